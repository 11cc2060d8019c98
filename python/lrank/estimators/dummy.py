"""The baseline: one consensus ranking of all training rankings, whatever the features."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from lrank.estimators import _convert
from lrank.estimators.base import CoreLearnerRanker
from lrank.learner_spec import LearnerOption, LearnerSpec, parse_choice

_AGGREGATORS = {"borda": "Borda", "copeland": "Copeland", "mallows": "Mallows", "kemeny": "Kemeny"}


class DummyLabelRanker(CoreLearnerRanker):
    """Baseline label ranker: predicts for every row one consensus ranking of the training
    rankings (weighted by ``sample_weight``), ignoring the features, as scikit-lr's and
    scikit-learn's dummy estimators do. A learner that does not beat it has learned nothing from
    the features.

    Parameters
    ----------
    aggregation : the consensus: "borda" (default, generalized Borda), "copeland", "kemeny"
        (exact, at most 16 labels) or "mallows" (the EM median of Cheng et al.).

    Attributes
    ----------
    ranking_ : the predicted rank vector (1-based positions of the labels).
    """

    _core_kind = "Dummy"
    _core_names: ClassVar[dict[str, str]] = {"aggregator": "aggregation"}

    def __init__(self, aggregation: str = "borda") -> None:
        self.aggregation = aggregation

    def _core_params(self, seed: int = 0) -> dict[str, Any]:
        """The core learner's parameters (serde form), e.g. for bagging in the core."""
        return {"Dummy": {"aggregator": _convert.choice("aggregation", self.aggregation, _AGGREGATORS), "seed": seed}}

    def _read_summary(self, summary: dict[str, Any], *, fitting: bool) -> None:
        self.ranking_ = np.asarray(summary["ranking"], dtype=np.int32)


# -- the command line's view of the learner (collected by lrank.registry) --------------------------

LEARNER_SPECS = (
    LearnerSpec(
        name="Dummy",
        factory=DummyLabelRanker,
        summary="Baseline: one consensus ranking of all training rankings, whatever the features",
        reference="a baseline, as scikit-lr's DummyLabelRanker",
        options=(
            LearnerOption(
                "-A",
                "aggregation",
                "consensus: borda, copeland, kemeny or mallows (default borda)",
                parse_choice("borda", "copeland", "kemeny", "mallows"),
                "AGG",
            ),
        ),
        seed_param=None,
        jobs_param=None,
    ),
)
