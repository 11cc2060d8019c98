"""Instance-based partial label ranking: the k nearest neighbours' bucket orders combined by a
consensus with ties."""

from __future__ import annotations

from typing import Any, ClassVar

from numpy.typing import ArrayLike

from lrank.estimators import _convert
from lrank.estimators._neighbours import KNeighbors
from lrank.estimators.base import CoreLearnerRanker
from lrank.learner_spec import LearnerOption, LearnerSpec, parse_choice, scaling_option

# "dudani" as IBLR names the same weights.
_WEIGHTS = {"distance": True, "uniform": False, "dudani": True}


def _parse_k(text: str) -> int | None:
    k = int(text)
    if k < 0:
        raise ValueError("must be >= 0")
    return None if k == 0 else k


class InstanceBasedPartialLabelRanker(KNeighbors, CoreLearnerRanker):
    """Instance-based partial label ranking (IB-PLR): the prediction is the consensus bucket
    order (``aggregation``: "bpa", BPA-LIA-MP2, by default; "borda-ties", "copeland-ties") of
    the k nearest training rows' rankings, which may tie and leave out labels.

    Features are min-max normalised on the training data (``scaling="minmax"``, the default, as
    IBLR does), standardised (``"standard"``) or used as they are (``"none"``, as scikit-lr's kNN
    does: for data already on one scale); missing values take the training lower median and
    nominal features count a mismatch as 1. A neighbour weighs Dudani's distance weight
    (``weights="distance"``, the default; "uniform": 1) times the share of the labels its ranking
    holds times its sample weight. ``n_neighbors=None`` chooses k from 5, 10, 15, 20 by
    leave-one-out mean tau_x on the training data (at most 1000 rows), as IBLR does.

    Parameters
    ----------
    n_neighbors : k, or None to choose it (default). A k above the training rows uses them all
        (``n_neighbors_`` says so).
    weights : "distance" (default: Dudani's, as IBLR's "dudani", which is accepted too) or "uniform".
    aggregation : "bpa" (default), "borda-ties" or "copeland-ties".
    beta : its tie threshold (None: the method's default, 0.25 for BPA).
    scaling : "minmax" (default), "standard" or "none".
    random_state : seed of the rows of the leave-one-out selection. None: random.
    n_jobs : threads (None: all cores, or OMP_NUM_THREADS if set; -1: all cores).
    categorical_features : None, a boolean mask or column indices of nominal features.

    Attributes
    ----------
    n_neighbors_ : the k used: ``n_neighbors``, the chosen one, or the training rows if fewer.
    k_scores_ : leave-one-out mean tau_x of each candidate k (empty when k was given).
    """

    _has_trees = False

    _core_kind = "InstanceBasedPlr"
    _added_params: ClassVar[dict[str, Any]] = {"scaling": "minmax"}
    _core_names: ClassVar[dict[str, str]] = {"k": "n_neighbors", "consensus": "aggregation"}

    def __init__(
        self,
        n_neighbors: int | None = None,
        weights: str = "distance",
        aggregation: str = "bpa",
        beta: float | None = None,
        scaling: str = "minmax",
        random_state: int | None = None,
        n_jobs: int | None = None,
        categorical_features: ArrayLike | None = None,
    ) -> None:
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.aggregation = aggregation
        self.beta = beta
        self.scaling = scaling
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features

    def _core_params(self, seed: int = 0) -> dict[str, Any]:
        """The core learner's parameters (serde form), e.g. for bagging in the core."""
        return {
            "InstanceBasedPlr": {
                "k": _convert.count("n_neighbors", self.n_neighbors, none=True),
                "distance_weights": _convert.choice("weights", self.weights, _WEIGHTS),
                "consensus": _convert.bucket_consensus(self.aggregation, self.beta),
                "seed": seed,
                "scaling": _convert.choice("scaling", self.scaling, _convert.SCALINGS),
            }
        }

    def _read_summary(self, summary: dict[str, Any], *, fitting: bool) -> None:
        self.n_neighbors_ = int(summary["k"])
        self._warn_if_k_capped(self.n_neighbors_, fitting)
        self.k_scores_ = {int(k): float("nan") if tau is None else float(tau) for k, tau in summary["k_scores"]}


# -- the command line's view of the learner (collected by lrank.registry) --------------------------

LEARNER_SPECS = (
    LearnerSpec(
        name="IBPLR",
        factory=InstanceBasedPartialLabelRanker,
        summary="Instance-based partial label ranking: BPA consensus of the k nearest bucket orders (ties)",
        reference="Alfaro, Aledo & Gamez (instance-based PLR); k chosen as in Cheng, Huhn & Hullermeier 2009",
        options=(
            LearnerOption(
                "-K", "n_neighbors", "neighbours, 0 = choose from 5, 10, 15, 20 by leave-one-out (0)", _parse_k
            ),
            LearnerOption(
                "-weights",
                "weights",
                "distance (Dudani's; also called dudani) or uniform (default distance)",
                parse_choice(*_WEIGHTS),
                "W",
            ),
            LearnerOption(
                "-A",
                "aggregation",
                "consensus: bpa, borda-ties, copeland-ties or bpa-local (default bpa)",
                parse_choice(*_convert.BUCKET_METHODS),
                "AGG",
            ),
            LearnerOption(
                "-beta",
                "beta",
                "its tie threshold (default: 0.25 bpa, 0.5 borda-ties, 0.1 copeland-ties)",
                float,
                "BETA",
            ),
            scaling_option(),
        ),
    ),
)
