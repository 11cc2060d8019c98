"""A test-only adapter that lets scikit-learn's estimator checks drive lrank estimators.

scikit-learn's checks make up their own targets: a column of class labels, never a rank matrix,
so an lrank estimator refuses them (rightly). The adapter turns such a column into rankings
(the row's class first, the other classes after it in label order) and hands everything else,
X, sample weights and all, to the lrank estimator unchanged, so the checks on data handling
(dtypes, read-only memory, pickling, subset and order invariance, idempotent fits, sample
weights) exercise the real estimator.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, clone


def rankings_of_classes(y: Any) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim == 2:
        y = y[:, 0]
    classes, codes = np.unique(y, return_inverse=True)
    m = max(2, len(classes))
    ranks = np.empty((len(y), m), dtype=np.int32)
    for i, c in enumerate(codes):
        others = [j for j in range(m) if j != c]
        ranks[i, c] = 1
        ranks[i, others] = np.arange(2, m + 1)
    return ranks


class ClassTargetAdapter(BaseEstimator):
    def __init__(self, estimator: Any = None) -> None:
        self.estimator = estimator

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> ClassTargetAdapter:
        if y is None:
            raise ValueError("ClassTargetAdapter requires y to be passed, but the target y is None")
        self.estimator_ = clone(self.estimator).fit(X, rankings_of_classes(y), sample_weight=sample_weight)
        self.n_features_in_ = self.estimator_.n_features_in_
        if hasattr(self.estimator_, "feature_names_in_"):
            self.feature_names_in_ = self.estimator_.feature_names_in_
        return self

    def predict(self, X: Any) -> np.ndarray:
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        return self.estimator_.predict(X)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        return float(self.estimator_.score(X, rankings_of_classes(y), sample_weight=sample_weight))

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags
