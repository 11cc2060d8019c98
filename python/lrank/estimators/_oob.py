"""Out-of-bag estimates (``oob_score=True``) of the estimators with bootstrap members.

Each training row is predicted by the members whose bootstrap sample did not draw it (Breiman
2001), as scikit-learn's forests do: ``oob_prediction_`` holds those rankings (a row every member
drew is all zeros) and ``oob_score_`` their mean Kendall tau against the training rankings (tau_x
when they tie labels; unweighted, like scikit-learn's). The core draws each member's sample again
from its seed, so nothing is kept from the fit.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lrank.errors import InvalidParameterError
from lrank.estimators import _convert
from lrank.estimators._inputs import _user_stacklevel
from lrank.rankings import has_ties


def wanted(params: dict[str, Any]) -> bool:
    """Whether the estimator's parameters ask for out-of-bag estimates (checked before the fit)."""
    if not _convert.flag("oob_score", params.get("oob_score", False)):
        return False
    if not _convert.is_on(params.get("bootstrap", True)):
        raise InvalidParameterError(
            "oob_score=True needs bootstrap=True: without bootstrap samples every tree sees every training row"
        )
    if params.get("classifier", "forest") != "forest":
        raise InvalidParameterError(
            f"oob_score=True needs classifier='forest' (classifier={params['classifier']!r} has no bootstrap samples)"
        )
    if params.get("leaf_missing", 0.0) != 0.0:
        raise InvalidParameterError(
            "oob_score=True is not available with leaf_missing (it deletes labels when predicting)"
        )
    return True


def estimate(
    est: Any, x: NDArray[np.float64], y: NDArray[np.int32], w: NDArray[np.float64] | None, n_jobs: int | None
) -> None:
    """Sets ``oob_prediction_`` and ``oob_score_`` of a fitted estimator from its training data."""
    from lrank.metrics import kendall_tau, tau_x

    ranks = est.model_.out_of_bag(x, y, w, n_jobs=n_jobs)
    if ranks is None:  # pragma: no cover - only estimators with bootstrap members take oob_score
        raise InvalidParameterError(f"{type(est).__name__} has no out-of-bag predictions")
    covered = (ranks != 0).any(axis=1)
    left = int((~covered).sum())
    if left:
        warnings.warn(
            f"{left} of {len(ranks)} training rows were drawn by every member (for the pairwise learners: "
            "by every tree of some label pair): they have no out-of-bag prediction and the out-of-bag "
            "score leaves them out (use more members)",
            UserWarning,
            stacklevel=_user_stacklevel(),
        )
    est.oob_prediction_ = ranks
    if not covered.any():
        est.oob_score_ = float("nan")
        return
    measure = tau_x if has_ties(y) else kendall_tau
    est.oob_score_ = float(measure(y[covered], ranks[covered]))


def forget(est: Any) -> None:
    """Drops the estimates of an earlier fit."""
    for name in ("oob_prediction_", "oob_score_"):
        est.__dict__.pop(name, None)
