"""Linear label ranking: a linear score per label, fitted under the Plackett-Luce likelihood
(LIN-PL, Cheng, Dembczyński & Hüllermeier 2010) or a pairwise logistic loss (constraint
classification, Har-Peled, Roth & Zimak 2002)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank.estimators import _convert
from lrank.estimators._inputs import _user_stacklevel
from lrank.estimators.base import CoreLearnerRanker
from lrank.learner_spec import LearnerOption, LearnerSpec, parse_choice

_LOSSES = {"plackett-luce": "PlackettLuce", "pairwise": "PairwiseLogistic"}


class LinearLabelRanker(CoreLearnerRanker):
    """One linear score per label, s_k(x) = b_k + w_k · z(x); labels are ranked by decreasing
    score (ties to the lower label).

    ``loss="plackett-luce"`` (default) maximises the likelihood of the training rankings under a
    Plackett-Luce model whose skills are exp(s_k(x)): Cheng, Dembczyński & Hüllermeier's LIN-PL
    (2010). An incomplete ranking counts as the model's marginal on the labels it holds; tied
    training rankings are refused. ``loss="pairwise"`` minimises ln(1 + exp(-(s_a - s_b))) over
    the label pairs each ranking orders: constraint classification (Har-Peled, Roth & Zimak
    2002) with a logistic loss, as WEKA-LR offers it; tied labels form no pair, so rankings with
    ties train it as they stand (predictions have no ties).

    Numeric features are standardised with the training mean and standard deviation, nominal
    ones one-hot encoded (as in :class:`RankingByPairwiseComparison`). The objective
    ½ Σ_k ‖w_k‖² + C Σ_i weight_i loss_i (intercepts not penalised; C as in scikit-learn's
    LogisticRegression) is convex and minimised by L-BFGS; the fit is deterministic.

    Parameters
    ----------
    loss : "plackett-luce" (default) or "pairwise".
    C : inverse regularisation strength (default 1.0).
    max_iter : L-BFGS steps at most (default 500).
    tol : stop when a step lowers the objective by at most ``tol`` times its size, or every
        gradient entry is at most ``tol`` (default 1e-9).
    n_jobs : threads (None: all cores, or OMP_NUM_THREADS if set; -1: all cores); the model does not depend on it.
    categorical_features : None, a boolean mask or column indices of nominal features.

    Attributes
    ----------
    n_iter_ : L-BFGS steps taken.
    coef_ : (n_labels, n_inputs) weights on the standardised / one-hot inputs.
    intercept_ : (n_labels,) the labels' intercepts.

    :meth:`predict_scores` gives the scores; with the Plackett-Luce loss,
    :meth:`predict_with_confidence` gives each predicted ranking's probability under the model.
    """

    _has_trees = False

    _core_kind = "Linear"

    def __init__(
        self,
        loss: str = "plackett-luce",
        C: float = 1.0,
        max_iter: int = 500,
        tol: float = 1e-9,
        n_jobs: int | None = None,
        categorical_features: ArrayLike | None = None,
    ) -> None:
        self.loss = loss
        self.C = C
        self.max_iter = max_iter
        self.tol = tol
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features

    _core_names: ClassVar[dict[str, str]] = {"c": "C"}

    def _core_params(self, seed: int = 0) -> dict[str, Any]:
        """The core learner's parameters (serde form), e.g. for bagging in the core."""
        return {
            "Linear": {
                "loss": _convert.choice("loss", self.loss, _LOSSES),
                "c": _convert.finite("C", self.C),
                "max_iter": _convert.count("max_iter", self.max_iter),
                "tol": _convert.finite("tol", self.tol),
                "seed": seed,
            }
        }

    def _read_summary(self, summary: dict[str, Any], *, fitting: bool) -> None:
        self.n_iter_ = summary["iterations"]
        coef = np.asarray(summary["coef"], dtype=np.float64).reshape(len(summary["coef"]), -1)
        self.intercept_ = coef[:, 0].copy()
        self.coef_ = coef[:, 1:].copy()
        if fitting and not summary["converged"]:
            warnings.warn(
                f"LinearLabelRanker did not converge in {self.max_iter} L-BFGS steps; raise max_iter (-max-iter)",
                RuntimeWarning,
                stacklevel=_user_stacklevel(),
            )

    def predict_scores(self, X: ArrayLike) -> NDArray[np.float64]:
        """Each label's score (higher preferred), shape (n, m)."""
        return self._scores(X)

    @property
    def predict_with_confidence(self) -> Callable[[ArrayLike], tuple[NDArray[np.int32], NDArray[np.float64]]]:
        """Predicted rank matrix and each predicted ranking's Plackett-Luce probability (with
        the Plackett-Luce loss only: the pairwise loss has no probability, and no such method,
        as scikit-learn's available_if hides one; importing scikit-learn here would cost every
        ``import lrank`` its import)."""
        if self.loss != "plackett-luce":
            raise AttributeError(f"LinearLabelRanker with loss={self.loss!r} gives no confidence")
        return self._confidence


# -- the command line's view of the learner (collected by lrank.registry) --------------------------

LEARNER_SPECS = (
    LearnerSpec(
        name="Linear",
        factory=LinearLabelRanker,
        summary="Linear label ranking: a linear score per label under the Plackett-Luce or a pairwise logistic loss",
        reference="Cheng, Dembczynski & Huellermeier 2010 (LIN-PL); Har-Peled, Roth & Zimak 2002 (constraint "
        "classification)",
        options=(
            LearnerOption(
                "-loss",
                "loss",
                "plackett-luce (LIN-PL, default) or pairwise (constraint classification; learns from ties)",
                parse_choice("plackett-luce", "pairwise"),
                "LOSS",
            ),
            LearnerOption("-C", "C", "inverse regularisation strength (default 1.0)", float, "C"),
            LearnerOption("-max-iter", "max_iter", "L-BFGS steps at most (default 500)"),
        ),
        seed_param=None,
    ),
)
