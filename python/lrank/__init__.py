"""lrank: label ranking with a Rust core.

Estimators follow scikit-learn's conventions: ``fit(X, Y)`` with ``Y`` a rank matrix
(``Y[i, j]`` is the 1-based position of label ``j`` in row ``i``'s ranking, 0 when the label is
missing; tied labels share a position), ``predict(X)`` returning a complete rank matrix (a bucket
order for the partial-label-ranking learners), ``score`` the mean Kendall tau (tau_x when ``Y``
ties labels).
"""

from lrank import registry  # noqa: F401 - whichever lrank module is imported, the specs can find learners by name
from lrank._core import __version__
from lrank.errors import (
    DataFormatError,
    InvalidInputError,
    InvalidParameterError,
    LearnerOutputError,
    LrankError,
    ModelFormatError,
)
from lrank.estimators import (
    AdaBoostLabelRanker,
    BaggingLabelRanker,
    DummyLabelRanker,
    GradientBoostingLabelRanker,
    InstanceBasedLabelRanker,
    InstanceBasedPartialLabelRanker,
    InstanceBasedPlackettLuce,
    LabelRankingRandomForest,
    LabelRankingTree,
    LabelwiseDecisionTree,
    LabelwisePartialLabelRanker,
    LabelwiseRandomForest,
    LinearLabelRanker,
    OneVsOneLabelRanker,
    PairwisePartialLabelRanker,
    PartialLabelRankingForest,
    PartialLabelRankingTree,
    RankingByPairwiseComparison,
)

__all__ = [
    "AdaBoostLabelRanker",
    "BaggingLabelRanker",
    "DataFormatError",
    "DummyLabelRanker",
    "GradientBoostingLabelRanker",
    "InstanceBasedLabelRanker",
    "InstanceBasedPartialLabelRanker",
    "InstanceBasedPlackettLuce",
    "InvalidInputError",
    "InvalidParameterError",
    "LabelRankingRandomForest",
    "LabelRankingTree",
    "LabelwiseDecisionTree",
    "LabelwisePartialLabelRanker",
    "LabelwiseRandomForest",
    "LearnerOutputError",
    "LinearLabelRanker",
    "LrankError",
    "ModelFormatError",
    "OneVsOneLabelRanker",
    "PairwisePartialLabelRanker",
    "PartialLabelRankingForest",
    "PartialLabelRankingTree",
    "RankingByPairwiseComparison",
    "__version__",
]
