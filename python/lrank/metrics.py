"""Ranking measures of predicted rank matrices against true ones, and scorers for
scikit-learn's ``GridSearchCV(scoring=...)`` and ``cross_val_score``.

Each measure is the mean over rows (weighted by ``sample_weight``) of a per-row value computed,
as ``lrank train`` reports it, on the labels the true ranking contains: an incomplete true
ranking is compared with the order the prediction induces on its labels, and a row with fewer
than two labels does not count for the correlations.

>>> import numpy as np
>>> from lrank.metrics import kendall_tau
>>> kendall_tau(np.array([[1, 2, 3]]), np.array([[1, 3, 2]]))
0.3333333333333333
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank import _core
from lrank.errors import InvalidInputError
from lrank.rankings import as_rank_matrix

# Also, made on first use: SCORERS (name -> scorer) and one
# ``<measure>_scorer`` per measure, e.g. ``kendall_tau_scorer``.
__all__ = ["exact_match", "footrule", "get_scorer", "kendall_tau", "spearman_rho", "tau_x", "top_label_accuracy"]


def _rows(y_true: Any, y_pred: Any, labels: Sequence[str] | None) -> dict[str, NDArray[np.float64]]:
    from lrank.estimators._inputs import _ranking_texts, rank_targets

    if labels is None and _ranking_texts(y_true) is not None:
        # Sorted names need not be y_pred's columns (an estimator fitted with labels= in another
        # order): a silently wrong score. The scorers pass the estimator's labels_.
        raise InvalidInputError(
            "y_true holds rankings as text: pass labels= (the label of each column of y_pred, e.g. the "
            "estimator's labels_)"
        )
    truth = rank_targets(y_true, labels, by_name=True)[0]
    return _core.row_measures(truth, as_rank_matrix(y_pred, name="y_pred"))


def _mean(values: NDArray[np.float64], sample_weight: ArrayLike | None) -> float:
    ok = np.isfinite(values)
    if not ok.any():
        return float("nan")
    if sample_weight is None:
        return float(values[ok].mean())
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != values.shape:
        raise ValueError(f"sample_weight has shape {w.shape}, expected ({values.shape[0]},)")
    return float(np.average(values[ok], weights=w[ok])) if w[ok].sum() > 0 else float("nan")


def kendall_tau(
    y_true: Any, y_pred: Any, *, sample_weight: ArrayLike | None = None, labels: Sequence[str] | None = None
) -> float:
    """Mean Kendall rank correlation, in [-1, 1] (1: the same order)."""
    return _mean(_rows(y_true, y_pred, labels)["kendall_tau"], sample_weight)


def tau_x(
    y_true: Any, y_pred: Any, *, sample_weight: ArrayLike | None = None, labels: Sequence[str] | None = None
) -> float:
    """Mean Kendall tau_x (Emond & Mason 2002), in [-1, 1]: the measure for true rankings with
    ties (a tied pair agrees with a prediction that ties it or orders it either way only half as
    far: for ordered pairs, a_uv = 1 if u is before or tied with v, else -1). Equals Kendall's
    tau on rankings without ties."""
    return _mean(_rows(y_true, y_pred, labels)["tau_x"], sample_weight)


def spearman_rho(
    y_true: Any, y_pred: Any, *, sample_weight: ArrayLike | None = None, labels: Sequence[str] | None = None
) -> float:
    """Mean Spearman rank correlation, in [-1, 1]."""
    return _mean(_rows(y_true, y_pred, labels)["spearman_rho"], sample_weight)


def footrule(
    y_true: Any,
    y_pred: Any,
    *,
    normalized: bool = True,
    sample_weight: ArrayLike | None = None,
    labels: Sequence[str] | None = None,
) -> float:
    """Mean Spearman footrule distance, sum of |position differences| (lower is better);
    ``normalized`` (default) divides it by its largest value for the row's labels, so it lies in
    [0, 1] and compares across data sets."""
    rows = _rows(y_true, y_pred, labels)
    return _mean(rows["normalized_footrule" if normalized else "footrule"], sample_weight)


def top_label_accuracy(
    y_true: Any, y_pred: Any, *, sample_weight: ArrayLike | None = None, labels: Sequence[str] | None = None
) -> float:
    """Share of rows whose predicted top label (among the true ranking's labels) is the true one."""
    return _mean(_rows(y_true, y_pred, labels)["top_label_correct"], sample_weight)


def exact_match(
    y_true: Any, y_pred: Any, *, sample_weight: ArrayLike | None = None, labels: Sequence[str] | None = None
) -> float:
    """Share of rows whose prediction orders the true ranking's labels exactly as it does."""
    return _mean(_rows(y_true, y_pred, labels)["exact_match"], sample_weight)


# name -> (measure, higher is better)
_MEASURES: dict[str, tuple[Callable[..., float], bool]] = {
    "kendall_tau": (kendall_tau, True),
    "tau_x": (tau_x, True),
    "spearman_rho": (spearman_rho, True),
    "footrule": (footrule, False),
    "top_label_accuracy": (top_label_accuracy, True),
    "exact_match": (exact_match, True),
}


def get_scorer(name: str) -> Callable[..., float]:
    """The scikit-learn scorer of a measure, for ``GridSearchCV(scoring=...)`` and
    ``cross_val_score``: ``kendall_tau``, ``tau_x`` (for ties), ``spearman_rho``, ``footrule`` (negated, as
    scikit-learn's losses are: higher is better), ``top_label_accuracy``, ``exact_match``."""
    try:
        measure, higher_is_better = _MEASURES[name]
    except KeyError:
        raise ValueError(f"unknown lrank scorer {name!r}; choose one of {', '.join(_MEASURES)}") from None
    return _Scorer(name, measure, 1.0 if higher_is_better else -1.0)


class _Scorer:
    """A scikit-learn scorer, ``scorer(estimator, X, y)``: the measure of ``estimator.predict(X)``
    against ``y``; rankings given as text are read by the estimator's ``labels_`` (the final
    step's, for a pipeline)."""

    def __init__(self, name: str, measure: Callable[..., float], sign: float) -> None:
        self.name, self.measure, self.sign = name, measure, sign

    def __call__(self, estimator: Any, X: Any, y_true: Any, sample_weight: ArrayLike | None = None) -> float:
        fitted = estimator.steps[-1][1] if hasattr(estimator, "steps") else estimator
        labels = getattr(fitted, "labels_", None)
        try:
            return self.sign * self.measure(y_true, estimator.predict(X), sample_weight=sample_weight, labels=labels)
        except InvalidInputError as exc:
            from lrank.estimators._inputs import with_known_labels

            raise with_known_labels(exc, labels) from None

    def __repr__(self) -> str:
        return f"lrank.metrics.get_scorer({self.name!r})"


def __getattr__(name: str) -> Any:
    # SCORERS and the ``*_scorer`` objects are made on first use.
    if name == "SCORERS":
        return {n: get_scorer(n) for n in _MEASURES}
    if name.endswith("_scorer") and name[: -len("_scorer")] in _MEASURES:
        return get_scorer(name[: -len("_scorer")])
    raise AttributeError(f"module 'lrank.metrics' has no attribute {name!r}")
