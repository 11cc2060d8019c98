"""IBLR: instance-based label ranking with the Mallows model (Cheng, Hühn & Hüllermeier 2009)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank.estimators import _convert
from lrank.estimators._neighbours import KNeighbors
from lrank.estimators.base import CoreLearnerRanker
from lrank.learner_spec import LearnerOption, LearnerSpec, parse_choice, parse_optional_count, scaling_option

# "distance" as IBPLR and scikit-learn name distance weighting: here Dudani's (see switching.md).
_WEIGHTS = {"uniform": "Uniform", "dudani": "Dudani", "distance": "Dudani"}


class InstanceBasedLabelRanker(KNeighbors, CoreLearnerRanker):
    """IBLR (the paper's IB-M): k nearest neighbours, aggregated by a Mallows model.

    Attributes are min-max normalised on the training data (``scaling``); the k nearest training rows by
    Euclidean distance vote with Dudani's weight (d_k - d_i)/(d_k - d_1) times the share of the
    labels their ranking contains; their rankings are aggregated by the approximate EM median of
    the Mallows model (generalized Borda start, optimal insertion of missing labels, Borda of the
    completions, until the centre stops changing). The fitted spread theta of each neighbourhood
    is its confidence (:meth:`predict_with_confidence`; infinity when the neighbours agree).

    Parameters
    ----------
    n_neighbors : k; None chooses k from {5, 10, 15, 20} by leave-one-out on the training data
        (on at most 1000 rows drawn with ``random_state``), as the paper does by inner CV. A k above
        the training rows uses them all (``n_neighbors_``, the k used, says so).
    weights : "dudani" (default, the paper's; "distance" is the same, as IBPLR names it) or
        "uniform" (every neighbour 1, times its sample weight: scikit-lr's ``KNeighborsLabelRanker``
        default).
    scaling : "minmax" (default, the paper's), "standard" or "none" (the features as they are,
        as scikit-lr's kNN takes them).
    max_iter : iteration cap of the EM median.
    random_state : seed of the rows used to choose k. None: random.
    n_jobs : threads (None: all cores, or OMP_NUM_THREADS if set; -1: all cores); results do not depend on it.
    categorical_features : None, a boolean mask or column indices of nominal features: they are
        not scaled, and a mismatch adds 1 to the squared distance (as WEKA's distance does).

    Attributes
    ----------
    k_scores_ : with ``n_neighbors=None``, the leave-one-out mean Kendall tau of each candidate k
        (the best is ``n_neighbors_``); empty when k was given.
    """

    _has_trees = False

    def __init__(
        self,
        n_neighbors: int | None = None,
        max_iter: int = 20,
        random_state: int | None = None,
        n_jobs: int | None = None,
        categorical_features: ArrayLike | None = None,
        weights: str = "dudani",
        scaling: str = "minmax",
    ) -> None:
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.scaling = scaling
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features

    _core_kind = "InstanceBased"
    _core_names: ClassVar[dict[str, str]] = {"k": "n_neighbors", "weighting": "weights"}
    # Pickled before weights and scaling were parameters: the paper's Dudani weights, min-max.
    _added_params: ClassVar[dict[str, Any]] = {"weights": "dudani", "scaling": "minmax"}

    def _core_params(self, seed: int = 0) -> dict[str, Any]:
        """The core learner's parameters (serde form), e.g. for bagging in the core."""
        return {
            "InstanceBased": {
                "k": _convert.count("n_neighbors", self.n_neighbors, none=True),
                "max_iter": _convert.count("max_iter", self.max_iter),
                "seed": seed,
                "model": "Mallows",
                "weighting": _convert.choice("weights", self.weights, _WEIGHTS),
                "scaling": _convert.choice("scaling", self.scaling, _convert.SCALINGS),
            }
        }

    def _read_summary(self, summary: dict[str, Any], *, fitting: bool) -> None:
        self.n_neighbors_ = summary["k"]
        self._warn_if_k_capped(self.n_neighbors_, fitting)
        # Leave-one-out mean Kendall tau of each candidate k (empty when k was given).
        self.k_scores_ = {int(k): (float("nan") if tau is None else float(tau)) for k, tau in summary["k_scores"]}

    def predict_with_confidence(self, X: ArrayLike) -> tuple[NDArray[np.int32], NDArray[np.float64]]:
        """Predicted rank matrix and each row's Mallows spread theta (higher: more confident)."""
        return self._confidence(X)


class InstanceBasedPlackettLuce(KNeighbors, CoreLearnerRanker):
    """IB-PL (Cheng, Dembczyński & Hüllermeier 2010, "Label ranking methods based on the
    Plackett-Luce model"): the k nearest neighbours' rankings give Plackett-Luce skills, fitted by
    Hunter's MM algorithm; the prediction sorts the labels by skill (ties to the lower label).

    Attributes are min-max normalised on the training data (``scaling``; nominal ones count a
    mismatch as 1).
    Incomplete rankings are rankings of the labels they hold. A label never picked before the last
    place gets skill 0; a label no neighbour ranks gets the geometric mean of the others' skills.
    :meth:`predict_with_confidence` also gives the predicted ranking's probability under the
    fitted model.

    Parameters
    ----------
    n_neighbors : k (default 5, as in Zhou & Qiu's comparison); None chooses k from
        {5, 10, 15, 20} by leave-one-out on the training data. A k above the training
        rows uses them all (``n_neighbors_``, the k used, says so).
    weights : "uniform" (default) or "dudani" (Dudani's distance weights times the share of
        labels a ranking holds, as in IBLR; "distance" is the same).
    scaling : "minmax" (default), "standard" or "none" (the features as they are, as
        scikit-lr's kNN takes them).
    max_iter, tol : MM stops when no skill changes by more than ``tol`` relative to the largest,
        or after ``max_iter`` steps (defaults 100 and 1e-6: a few neighbours that mostly agree
        usually have no finite maximum-likelihood skills, one label always beating another, so
        MM creeps on towards infinity; the order of the skills is settled long before).
    random_state : seed of the rows used to choose k. None: random.
    n_jobs : threads (None: all cores, or OMP_NUM_THREADS if set; -1: all cores); results do not depend on it.
    categorical_features : None, a boolean mask or column indices of nominal features.
    """

    _has_trees = False

    _core_kind = "InstanceBased"

    def __init__(
        self,
        n_neighbors: int | None = 5,
        weights: str = "uniform",
        max_iter: int = 100,
        tol: float = 1e-6,
        random_state: int | None = None,
        n_jobs: int | None = None,
        categorical_features: ArrayLike | None = None,
        scaling: str = "minmax",
    ) -> None:
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.scaling = scaling
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features

    _core_names: ClassVar[dict[str, str]] = {"k": "n_neighbors", "weighting": "weights"}
    # Pickled before scaling was a parameter: min-max.
    _added_params: ClassVar[dict[str, Any]] = {"scaling": "minmax"}

    def _core_params(self, seed: int = 0) -> dict[str, Any]:
        """The core learner's parameters (serde form), e.g. for bagging in the core."""
        return {
            "InstanceBased": {
                "k": _convert.count("n_neighbors", self.n_neighbors, none=True),
                "max_iter": _convert.count("max_iter", self.max_iter),
                "seed": seed,
                "model": {"PlackettLuce": {"tol": _convert.finite("tol", self.tol)}},
                "weighting": _convert.choice("weights", self.weights, _WEIGHTS),
                "scaling": _convert.choice("scaling", self.scaling, _convert.SCALINGS),
            }
        }

    def _read_summary(self, summary: dict[str, Any], *, fitting: bool) -> None:
        self.n_neighbors_ = summary["k"]
        self._warn_if_k_capped(self.n_neighbors_, fitting)

    def predict_with_confidence(self, X: ArrayLike) -> tuple[NDArray[np.int32], NDArray[np.float64]]:
        """Predicted rank matrix and each predicted ranking's probability under its neighbours'
        Plackett-Luce model."""
        return self._confidence(X)


# -- the command line's view of the learners (collected by lrank.registry) -------------------------

LEARNER_SPECS = (
    LearnerSpec(
        name="IBLR",
        factory=InstanceBasedLabelRanker,
        summary="Instance-based label ranking: k nearest neighbours aggregated by a Mallows model",
        reference="Cheng, Huehn & Huellermeier 2009, Decision tree and instance-based learning for label ranking",
        options=(
            LearnerOption(
                "-K",
                "n_neighbors",
                "neighbours, 0 = choose from 5, 10, 15, 20 by leave-one-out (default 0)",
                parse_optional_count,
            ),
            LearnerOption(
                "-weights",
                "weights",
                "dudani (also called distance) or uniform (default dudani)",
                parse_choice("dudani", "uniform", "distance"),
                "W",
            ),
            scaling_option(),
            LearnerOption("-max-iter", "max_iter", "iteration cap of the EM median (default 20)"),
        ),
    ),
    LearnerSpec(
        name="IBPL",
        factory=InstanceBasedPlackettLuce,
        summary="Instance-based Plackett-Luce: k nearest neighbours' rankings fitted by Hunter's MM",
        reference="Cheng, Dembczynski & Huellermeier 2010, Label ranking methods based on the Plackett-Luce model",
        options=(
            LearnerOption(
                "-K",
                "n_neighbors",
                "neighbours, 0 = choose from 5, 10, 15, 20 by leave-one-out (default 5)",
                parse_optional_count,
            ),
            LearnerOption(
                "-weights",
                "weights",
                "uniform or dudani (also called distance) (default uniform)",
                parse_choice("uniform", "dudani", "distance"),
                "W",
            ),
            scaling_option(),
            LearnerOption("-max-iter", "max_iter", "MM iterations at most (default 100)"),
            LearnerOption("-tol", "tol", "MM tolerance, relative to the largest skill (default 1e-6)", float, "T"),
        ),
    ),
)
