"""scikit-learn-style label ranking estimators."""

from lrank.estimators.base import LabelRanker, NotFittedError
from lrank.estimators.boosting import AdaBoostLabelRanker
from lrank.estimators.dummy import DummyLabelRanker
from lrank.estimators.ensemble import BaggingLabelRanker
from lrank.estimators.forest import LabelRankingRandomForest
from lrank.estimators.gradient_boosting import GradientBoostingLabelRanker
from lrank.estimators.labelwise import LabelwiseDecisionTree, LabelwiseRandomForest
from lrank.estimators.labelwise_plr import LabelwisePartialLabelRanker
from lrank.estimators.linear import LinearLabelRanker
from lrank.estimators.neighbors import InstanceBasedLabelRanker, InstanceBasedPlackettLuce
from lrank.estimators.neighbors_plr import InstanceBasedPartialLabelRanker
from lrank.estimators.pairwise import OneVsOneLabelRanker
from lrank.estimators.pairwise_plr import PairwisePartialLabelRanker
from lrank.estimators.plr_tree import PartialLabelRankingForest, PartialLabelRankingTree
from lrank.estimators.rpc import RankingByPairwiseComparison
from lrank.estimators.tree import LabelRankingTree

__all__ = [
    "AdaBoostLabelRanker",
    "BaggingLabelRanker",
    "DummyLabelRanker",
    "GradientBoostingLabelRanker",
    "InstanceBasedLabelRanker",
    "InstanceBasedPartialLabelRanker",
    "InstanceBasedPlackettLuce",
    "LabelRanker",
    "LabelRankingRandomForest",
    "LabelRankingTree",
    "LabelwiseDecisionTree",
    "LabelwisePartialLabelRanker",
    "LabelwiseRandomForest",
    "LinearLabelRanker",
    "NotFittedError",
    "OneVsOneLabelRanker",
    "PairwisePartialLabelRanker",
    "PartialLabelRankingForest",
    "PartialLabelRankingTree",
    "RankingByPairwiseComparison",
]
