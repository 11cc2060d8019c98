"""Fit a label ranker on the bundled iris data and read its predictions as label names."""

from lrank import LabelRankingRandomForest
from lrank.datasets import load_iris

data = load_iris()  # a LabelRankingDataset: features, rankings, label names
model = LabelRankingRandomForest(random_state=0).fit(data)  # X alone: rankings and labels come with it

print(model.labels_)  # ['setosa', 'versicolor', 'virginica']
print(model.predict_strings(data.features[:3]))  # ['setosa>versicolor>virginica', ...]
print(model.predict_orderings(data.features[:1]))  # [['setosa', 'versicolor', 'virginica']]
print(model.predict_frame(data.features[:3]))  # a Polars frame: the ranking, then each label's position
print(f"mean Kendall tau on the training data: {model.score(data.features, data.rankings):.3f}")
