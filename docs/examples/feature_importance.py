"""Which features matter, by the forest's split importances and by scikit-learn's permutation
importance scored with Kendall's tau, and each row's out-of-fold prediction with
cross_val_predict (as `lrank train -p 0` prints it)."""

from lrank import LabelwiseRandomForest
from lrank.datasets import load_wine
from lrank.metrics import get_scorer, kendall_tau
from lrank.model_selection import StratifiedRankingKFold
from sklearn.inspection import permutation_importance
from sklearn.model_selection import cross_val_predict, train_test_split

data = load_wine()
X, y = data.feature_matrix(), data.rankings
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
forest = LabelwiseRandomForest(n_estimators=50, random_state=0).fit(X_train, y_train)

# From the fit: each feature's share of the splits' decrease in disagreement among the rankings.
shares = sorted(zip(data.feature_names(), forest.feature_importances_), key=lambda p: -p[1])
print("split importances:", ", ".join(f"{name} {share:.2f}" for name, share in shares[:3]))

# The drop in held-out tau when a feature's values are shuffled: larger, more important.
result = permutation_importance(forest, X_test, y_test, scoring=get_scorer("kendall_tau"), n_repeats=5, random_state=0)
ranked = sorted(zip(data.feature_names(), result.importances_mean), key=lambda p: -p[1])
for name, drop in ranked[:3]:
    print(f"{name}: tau drops by {drop:.3f}")

# Every row predicted by a model of the folds that did not train on it.
predicted = cross_val_predict(forest, X, y, cv=StratifiedRankingKFold(5, random_state=1))
print(f"out-of-fold tau {kendall_tau(y, predicted):.3f}")
