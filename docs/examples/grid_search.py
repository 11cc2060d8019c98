"""Tune a learner with scikit-learn's GridSearchCV, lrank's scorer and lrank's splitter
(the folds of `lrank train -x 5 -s 1`: stratified by top label)."""

from lrank import BaggingLabelRanker, LabelRankingTree
from lrank.datasets import load_wine
from lrank.metrics import get_scorer
from lrank.model_selection import StratifiedRankingKFold
from sklearn.model_selection import GridSearchCV, cross_val_score

data = load_wine()
X, y = data.feature_matrix(), data.rankings
cv = StratifiedRankingKFold(5, random_state=1)

# Nested parameters reach the bagged tree, as in scikit-learn.
search = GridSearchCV(
    BaggingLabelRanker(LabelRankingTree(), n_estimators=10, random_state=0),
    {"estimator__max_depth": [2, 4, None], "aggregation": ["borda", "copeland"]},
    scoring=get_scorer("kendall_tau"),
    cv=cv,
)
search.fit(X, y)
print("best:", search.best_params_, f"tau {search.best_score_:.3f}")

scores = cross_val_score(search.best_estimator_, X, y, cv=cv, scoring=get_scorer("kendall_tau"))
print("per fold:", scores.round(3))
