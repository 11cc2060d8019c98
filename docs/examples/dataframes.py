"""Polars (or pandas) frames in and out: column names are checked at predict, categorical
columns are nominal features, a DataFrame y names the labels."""

import numpy as np
import polars as pl
from lrank import LabelRankingTree, LabelwiseRandomForest
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

rng = np.random.default_rng(0)
n = 300
frame = pl.DataFrame(
    {
        "price": rng.random(n),
        "rating": rng.random(n),
        "brand": pl.Series(rng.choice(["acme", "bolt", "core"], n)).cast(pl.Categorical),
    }
)
# Each customer ranks three products; product "a" wins when cheap, "b" for brand bolt.
cheap = frame["price"].to_numpy() < 0.5
bolt = (frame["brand"] == "bolt").to_numpy()
ranks = np.where(bolt[:, None], [2, 1, 3], np.where(cheap[:, None], [1, 2, 3], [3, 2, 1]))
y = pl.DataFrame(ranks, schema=["a", "b", "c"])

tree = LabelRankingTree(random_state=0).fit(frame, y)  # "brand" is split one value against the rest
print(tree.labels_, tree.categories_[2])  # ['a', 'b', 'c'] ['acme', 'bolt', 'core']
print(tree.predict_strings(frame[:4]))
try:
    tree.predict(frame.select(["rating", "price", "brand"]))  # reordered columns
except ValueError as err:
    print("refused:", str(err).splitlines()[0])

# Numeric features in a scikit-learn Pipeline.
numeric = frame.select(["price", "rating"]).to_numpy()
pipe = Pipeline([("scale", StandardScaler()), ("rank", LabelwiseRandomForest(n_estimators=30, random_state=0))])
print(f"pipeline tau {pipe.fit(numeric, ranks).score(numeric, ranks):.3f}")
