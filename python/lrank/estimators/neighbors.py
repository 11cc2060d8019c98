"""IBLR: instance-based label ranking with the Mallows model (Cheng, Hühn & Hüllermeier 2009)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank import _core
from lrank.errors import InvalidInputError
from lrank.estimators.base import CoreLearnerRanker, LabelRanker, resolve_categorical, resolve_n_jobs, resolve_seed
from lrank.learner_spec import LearnerOption, LearnerSpec, parse_choice, parse_optional_count


class InstanceBasedLabelRanker(LabelRanker):
    """IBLR (the paper's IB-M): k nearest neighbours, aggregated by a Mallows model.

    Attributes are min-max normalised on the training data; the k nearest training rows by
    Euclidean distance vote with Dudani's weight (d_k - d_i)/(d_k - d_1) times the share of the
    labels their ranking contains; their rankings are aggregated by the approximate EM median of
    the Mallows model (generalized Borda start, optimal insertion of missing labels, Borda of the
    completions, until the centre stops changing). The fitted spread theta of each neighbourhood
    is its confidence (:meth:`predict_with_confidence`; infinity when the neighbours agree).

    Parameters
    ----------
    n_neighbors : k; None chooses k from {5, 10, 15, 20} by leave-one-out on the training data
        (on at most 1000 rows drawn with ``random_state``), as the paper does by inner CV.
    max_iter : iteration cap of the EM median.
    random_state : seed of the rows used to choose k. None: random.
    n_jobs : threads (None or -1: all cores); results do not depend on it.
    categorical_features : None, a boolean mask or column indices of nominal features: they are
        not scaled, and a mismatch adds 1 to the squared distance (as WEKA's distance does).
    """

    def __init__(
        self,
        n_neighbors: int | None = None,
        max_iter: int = 20,
        random_state: int | None = None,
        n_jobs: int | None = None,
        categorical_features: ArrayLike | None = None,
    ) -> None:
        self.n_neighbors = n_neighbors
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features

    def _validate_params(self) -> None:
        k = self.n_neighbors
        if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1):
            raise InvalidInputError(f"n_neighbors must be a positive int or None, got {k!r}")
        if isinstance(self.max_iter, bool) or not isinstance(self.max_iter, (int, np.integer)) or self.max_iter < 0:
            raise InvalidInputError(f"max_iter must be a non-negative int, got {self.max_iter!r}")

    def _core_params(self, seed: int = 0) -> dict[str, Any]:
        """The core learner's parameters (serde form), e.g. for bagging in the core."""
        self._validate_params()
        k = self.n_neighbors
        return {
            "InstanceBased": {
                "k": None if k is None else int(k),
                "max_iter": int(self.max_iter),
                "seed": seed,
                "model": "Mallows",
                "weighting": "Dudani",
            }
        }

    def fit(self, X: ArrayLike, Y: ArrayLike, sample_weight: ArrayLike | None = None) -> InstanceBasedLabelRanker:
        self._validate_params()
        k = self.n_neighbors
        x, y, w = self._check_xy(X, Y, sample_weight)
        self.seed_ = resolve_seed(self.random_state)
        self.model_ = _core.InstanceBasedModel.fit(
            x,
            y,
            w,
            k=None if k is None else int(k),
            max_iter=int(self.max_iter),
            seed=self.seed_,
            n_jobs=resolve_n_jobs(self.n_jobs),
            nominal=resolve_categorical(self.categorical_features, x.shape[1]),
        )
        self.n_neighbors_ = self.model_.k
        return self

    def predict_with_confidence(self, X: ArrayLike) -> tuple[NDArray[np.int32], NDArray[np.float64]]:
        """Predicted rank matrix and each row's Mallows spread theta (higher: more confident)."""
        self._check_fitted()
        return self.model_.predict(self._check_x(X, fitting=False), n_jobs=resolve_n_jobs(self.n_jobs))

    def predict(self, X: ArrayLike) -> NDArray[np.int32]:
        """Predicted complete rank matrix (n, m)."""
        self._check_fitted()
        return self.model_.predict_ranks(self._check_x(X, fitting=False), n_jobs=resolve_n_jobs(self.n_jobs))

    def _set_fitted(self, model: _core.InstanceBasedModel) -> None:
        self.model_ = model
        self.n_features_in_ = model.n_features
        self.n_labels_ = model.n_labels
        self.n_neighbors_ = model.k
        self.seed_ = int(model.params()["seed"])


class InstanceBasedPlackettLuce(CoreLearnerRanker):
    """IB-PL (Cheng, Dembczyński & Hüllermeier 2010, "Label ranking methods based on the
    Plackett-Luce model"): the k nearest neighbours' rankings give Plackett-Luce skills, fitted by
    Hunter's MM algorithm; the prediction sorts the labels by skill (ties to the lower label).

    Attributes are min-max normalised on the training data (nominal ones count a mismatch as 1).
    Incomplete rankings are rankings of the labels they hold. A label never picked before the last
    place gets skill 0; a label no neighbour ranks gets the geometric mean of the others' skills.
    :meth:`predict_with_confidence` also gives the predicted ranking's probability under the
    fitted model.

    Parameters
    ----------
    n_neighbors : k (default 5, as in Zhou & Qiu's comparison); None chooses k from
        {5, 10, 15, 20} by leave-one-out on the training data.
    weights : "uniform" (default) or "dudani" (Dudani's distance weights times the share of
        labels a ranking holds, as in IBLR).
    max_iter, tol : MM stops when no skill changes by more than ``tol`` relative to the largest,
        or after ``max_iter`` steps (defaults 100 and 1e-6: a few neighbours that mostly agree
        usually have no finite maximum-likelihood skills, one label always beating another, so
        MM creeps on towards infinity; the order of the skills is settled long before).
    random_state : seed of the rows used to choose k. None: random.
    n_jobs : threads (None or -1: all cores); results do not depend on it.
    categorical_features : None, a boolean mask or column indices of nominal features.
    """

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
    ) -> None:
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features

    def _core_params(self, seed: int = 0) -> dict[str, Any]:
        """The core learner's parameters (serde form), e.g. for bagging in the core."""
        k = self.n_neighbors
        if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1):
            raise InvalidInputError(f"n_neighbors must be a positive int or None, got {k!r}")
        if self.weights not in ("uniform", "dudani"):
            raise InvalidInputError(f"weights must be 'uniform' or 'dudani', got {self.weights!r}")
        if isinstance(self.max_iter, bool) or not isinstance(self.max_iter, (int, np.integer)) or self.max_iter < 1:
            raise InvalidInputError(f"max_iter must be a positive int, got {self.max_iter!r}")
        if not isinstance(self.tol, (int, float, np.number)) or not self.tol >= 0:
            raise InvalidInputError(f"tol must be >= 0, got {self.tol!r}")
        return {
            "InstanceBased": {
                "k": None if k is None else int(k),
                "max_iter": int(self.max_iter),
                "seed": seed,
                "model": {"PlackettLuce": {"tol": float(self.tol)}},
                "weighting": "Uniform" if self.weights == "uniform" else "Dudani",
            }
        }

    def _read_summary(self, summary: dict[str, Any], *, fitting: bool) -> None:
        self.n_neighbors_ = summary["k"]

    def predict_with_confidence(self, X: ArrayLike) -> tuple[NDArray[np.int32], NDArray[np.float64]]:
        """Predicted rank matrix and each predicted ranking's probability under its neighbours'
        Plackett-Luce model."""
        self._check_fitted()
        ranks, conf = self.model_.predict_with_confidence(self._check_x(X, fitting=False), n_jobs=self._predict_jobs())
        assert conf is not None
        return ranks, conf


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
                "uniform or dudani (default uniform)",
                parse_choice("uniform", "dudani"),
                "W",
            ),
            LearnerOption("-max-iter", "max_iter", "MM iterations at most (default 100)"),
            LearnerOption("-tol", "tol", "MM tolerance, relative to the largest skill (default 1e-6)", float, "T"),
        ),
    ),
)
