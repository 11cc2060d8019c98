"""scikit-learn-style label ranking estimators."""

from lrank.estimators.base import LabelRanker, NotFittedError
from lrank.estimators.forest import LabelRankingRandomForest
from lrank.estimators.neighbors import InstanceBasedLabelRanker

__all__ = ["InstanceBasedLabelRanker", "LabelRanker", "LabelRankingRandomForest", "NotFittedError"]
