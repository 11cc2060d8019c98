"""scikit-learn-style label ranking estimators."""

from lrank.estimators.base import LabelRanker, NotFittedError
from lrank.estimators.forest import LabelRankingRandomForest

__all__ = ["LabelRanker", "LabelRankingRandomForest", "NotFittedError"]
