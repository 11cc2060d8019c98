"""The baseline: one consensus ranking of all training rankings, whatever the features."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from lrank.estimators import _convert
from lrank.estimators.base import CoreLearnerRanker
from lrank.learner_spec import LearnerOption, LearnerSpec, parse_choice


class DummyLabelRanker(CoreLearnerRanker):
    """Baseline label ranker: predicts for every row one consensus ranking of the training
    rankings (weighted by ``sample_weight``), ignoring the features, as scikit-lr's and
    scikit-learn's dummy estimators do. A learner that does not beat it has learned nothing from
    the features.

    Parameters
    ----------
    aggregation : the consensus: "borda" (default, generalized Borda), "copeland", "kemeny"
        (exact, at most 16 labels) or "mallows" (the EM median of Cheng et al.); with ties (the
        partial-label-ranking baseline, predicting a bucket order): "bpa" (BPA-LIA-MP2),
        "borda-ties" or "copeland-ties".
    beta : the tie threshold of "bpa", "borda-ties" and "copeland-ties" (None: the method's
        default, :data:`lrank.aggregation.DEFAULT_BETA`).

    Attributes
    ----------
    ranking_ : the predicted rank vector (1-based positions of the labels).
    """

    _has_trees = False

    # Pickles made before ``beta`` existed restore no such attribute: they get this default.
    beta: float | None = None
    _core_kind = "Dummy"
    _core_names: ClassVar[dict[str, str]] = {"aggregator": "aggregation"}

    def __init__(self, aggregation: str = "borda", beta: float | None = None) -> None:
        self.aggregation = aggregation
        self.beta = beta

    def _core_params(self, seed: int = 0) -> dict[str, Any]:
        """The core learner's parameters (serde form), e.g. for bagging in the core."""
        return {"Dummy": {"aggregator": _convert.aggregator(self.aggregation, self.beta), "seed": seed}}

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
                "consensus: borda, copeland, kemeny, mallows, or with ties bpa, borda-ties, copeland-ties, bpa-local "
                "(default borda)",
                parse_choice(*_convert.AGGREGATIONS),
                "AGG",
            ),
            LearnerOption(
                "-beta", "beta", "tie threshold of bpa, borda-ties, copeland-ties (their default)", float, "BETA"
            ),
        ),
        seed_param=None,
        jobs_param=None,
    ),
)
