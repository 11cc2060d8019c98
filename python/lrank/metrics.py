"""Ranking measures of predicted rank matrices against true ones, and scorers for
scikit-learn's ``GridSearchCV(scoring=...)`` and ``cross_val_score``.

Each measure is the mean over rows (weighted by ``sample_weight``) of a per-row value computed,
as ``lrank train`` reports it, on the labels the true ranking contains: an incomplete true
ranking is compared with the order the prediction induces on its labels, and a row with fewer
than two labels does not count for the correlations.

>>> import numpy as np
>>> from lrank.metrics import kendall_tau
>>> round(kendall_tau(np.array([[1, 2, 3]]), np.array([[1, 3, 2]])), 4)  # (2 - 1) / 3 pairs
0.3333
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank import _core
from lrank.errors import InvalidInputError
from lrank.metadata_routing import MetadataRequests
from lrank.rankings import as_predictions

# Also, made on first use: SCORERS (name -> scorer) and one
# ``<measure>_scorer`` per measure, e.g. ``kendall_tau_scorer``.
__all__ = [
    "exact_match",
    "footrule",
    "get_scorer",
    "get_scorer_names",
    "kendall_distance",
    "kendall_tau",
    "kendall_tau_score",
    "spearman_rho",
    "tau_x",
    "tau_x_score",
    "top_label_accuracy",
]


def _rows(y_true: Any, y_pred: Any, labels: Sequence[str] | None) -> dict[str, NDArray[np.float64]]:
    truth, pred = _matrices(y_true, y_pred, labels)
    return _core.row_measures(truth, pred)


def _matrices(y_true: Any, y_pred: Any, labels: Sequence[str] | None) -> tuple[NDArray[np.int32], NDArray[np.int32]]:
    """Both rank matrices with their columns in one label order: DataFrames are matched by
    column name, to ``labels`` when given, else to a DataFrame ``y_pred``'s columns."""
    from lrank.estimators._inputs import _ranking_texts, frame_names, rank_targets

    pred_names = frame_names(y_pred)
    if pred_names is not None:
        y_pred = _label_columns(y_pred, pred_names)
        pred_names = frame_names(y_pred)
    if labels is None:
        labels = pred_names

    # y_pred as text: what predict_strings returns (it was refused as "not a 2-D rank matrix").
    pred_text = _ranking_texts(y_pred) is not None
    text = [name for name, y in (("y_true", y_true), ("y_pred", y_pred)) if _ranking_texts(y) is not None]
    if labels is None and text:
        # Sorted names need not be y_pred's columns (an estimator fitted with labels= in another
        # order): a silently wrong score. The scorers pass the estimator's labels_.
        raise InvalidInputError(
            f"{' and '.join(text)} {'holds' if len(text) == 1 else 'hold'} rankings as text: pass labels= "
            "(the label of each column of the rank matrices, e.g. the estimator's labels_)"
        )
    truth = rank_targets(y_true, labels, by_name=True)[0]
    by_name = pred_names is not None or pred_text
    pred = as_predictions(rank_targets(y_pred, labels, by_name=True)[0] if by_name else y_pred)
    return truth, pred


def _label_columns(frame: Any, names: list[str]) -> Any:
    """A DataFrame ``y_pred`` without its text columns (``predict_frame``'s ``ranking``): the
    label columns hold numbers."""
    import polars as pl

    if type(frame).__module__.startswith("pyarrow"):
        frame = pl.from_arrow(frame)
    if isinstance(frame, pl.DataFrame):
        return frame.select(c for c in frame.columns if frame.schema[c] != pl.String)
    text = [
        c for c, dtype in zip(frame.columns, frame.dtypes) if str(dtype) == "object" or str(dtype).startswith("str")
    ]
    return frame.drop(columns=text) if text and len(text) < len(names) else frame


def _mean(values: NDArray[np.float64], sample_weight: ArrayLike | None) -> float:
    ok = np.isfinite(values)
    if not ok.any():
        return float("nan")
    if sample_weight is None:
        return float(values[ok].mean())
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInputError(f"sample_weight must be numbers, got {sample_weight!r:.80}") from None
    if w.shape != values.shape:
        raise InvalidInputError(f"sample_weight has shape {w.shape}, expected ({values.shape[0]},)")
    # A negative weight moved the mean out of the measure's range (tau 3.0), a NaN gave NaN.
    with np.errstate(over="ignore"):
        total = w.sum()
    if not (np.isfinite(w).all() and (w >= 0).all() and np.isfinite(total)):
        raise InvalidInputError("sample_weight must be finite and non-negative, with a finite sum")
    return float(np.average(values[ok], weights=w[ok])) if w[ok].sum() > 0 else float("nan")


def kendall_tau(
    y_true: Any, y_pred: Any, *, sample_weight: ArrayLike | None = None, labels: Sequence[str] | None = None
) -> float:
    """Mean Kendall rank correlation, in [-1, 1] (1: the same order). With ties it is Kendall's
    tau-a, (concordant - discordant pairs) / all pairs, a pair tied in either ranking counting 0
    (not scipy's tau-b, which divides by the untied pairs); :func:`tau_x` is the measure of
    rankings with ties."""
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
    """Mean Spearman rank correlation, in [-1, 1]. With ties, Pearson's correlation of the
    mid-ranks (as ``scipy.stats.spearmanr``); a ranking that ties all its labels scores 0
    against one that does not and 1 against another such, where scipy gives NaN."""
    return _mean(_rows(y_true, y_pred, labels)["spearman_rho"], sample_weight)


def footrule(
    y_true: Any,
    y_pred: Any,
    *,
    normalized: bool = True,
    sample_weight: ArrayLike | None = None,
    labels: Sequence[str] | None = None,
) -> float:
    """Mean Spearman footrule distance, sum of |position differences| (lower is better), on the
    labels the true ranking holds, tied labels at their mid-rank (``[1, 1, 2]`` against
    ``[1, 2, 3]``: 1.5, 1.5, 3 against 1, 2, 3, so 1); ``normalized`` (default) divides it by its
    largest value for the row's labels, so it lies in [0, 1] and compares across data sets."""
    rows = _rows(y_true, y_pred, labels)
    return _mean(rows["normalized_footrule" if normalized else "footrule"], sample_weight)


def kendall_distance(
    y_true: Any,
    y_pred: Any,
    *,
    normalize: bool = True,
    sample_weight: ArrayLike | None = None,
    labels: Sequence[str] | None = None,
) -> float:
    """Mean Kendall distance (lower is better): the label pairs the two rankings order oppositely,
    on the labels both contain, a pair tied in one ranking but not the other counting 1/2 (on
    rankings without ties ``(1 - tau) / 2`` of the pairs). ``normalize`` (default) divides it by
    the row's pairs, so it lies in [0, 1]; else the count (scikit-lr's ``normalize=False``)."""
    from lrank.estimators import _convert

    normalize = _convert.flag("normalize", normalize)
    truth, pred = _matrices(y_true, y_pred, labels)
    if truth.shape != pred.shape:  # the core's check of every other measure, in its words
        raise InvalidInputError(
            f"true and predicted rank matrices differ in shape: {truth.shape[0]}x{truth.shape[1]} vs "
            f"{pred.shape[0]}x{pred.shape[1]}"
        )
    n, m = truth.shape
    out = np.empty(n)
    # Blocks of rows and of first labels, about 2 million ordered pairs each: bounded memory
    # (one row of 8,000 labels took 0.9 GB at once).
    step = max(1, 2_000_000 // max(1, m * m))
    cut = max(1, 2_000_000 // max(1, m))
    for start in range(0, n, step):
        t, p = truth[start : start + step], pred[start : start + step]
        both = (t > 0) & (p > 0)
        distance = np.zeros(t.shape[0])
        for first in range(0, m, cut):
            u = slice(first, first + cut)
            common = both[:, u, None] & both[:, None, :]
            st = np.sign(t[:, u, None] - t[:, None, :])
            sp = np.sign(p[:, u, None] - p[:, None, :])
            # Ordered pairs count each pair twice: halved below.
            reversed_ = ((st * sp) < 0) & common
            tied_once = ((st == 0) != (sp == 0)) & common
            distance += reversed_.sum(axis=(1, 2)) + 0.5 * tied_once.sum(axis=(1, 2))
        distance /= 2.0
        k = both.sum(axis=1)
        pairs = k * (k - 1) / 2.0
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start : start + step] = np.where(pairs > 0, distance / pairs if normalize else distance, np.nan)
    return _mean(out, sample_weight)


def top_label_accuracy(
    y_true: Any, y_pred: Any, *, sample_weight: ArrayLike | None = None, labels: Sequence[str] | None = None
) -> float:
    """Share of rows whose predicted top label among the true ranking's labels is its first one
    (a label the true ranking leaves out is unknown, not wrong; a tied predicted top counts by its
    share of true top labels). A row whose true ranking holds fewer than two labels is left out,
    as every measure leaves it out: any prediction's top among one label is that label."""
    return _mean(_rows(y_true, y_pred, labels)["top_label_correct"], sample_weight)


def exact_match(
    y_true: Any, y_pred: Any, *, sample_weight: ArrayLike | None = None, labels: Sequence[str] | None = None
) -> float:
    """Share of rows whose prediction orders the true ranking's labels exactly as it does. A row
    whose true ranking holds fewer than two labels orders nothing and is left out (NaN when every
    row is such), as by every measure."""
    return _mean(_rows(y_true, y_pred, labels)["exact_match"], sample_weight)


# scikit-lr's names of the same measures.
kendall_tau_score = kendall_tau
tau_x_score = tau_x

# name -> (measure, higher is better)
_MEASURES: dict[str, tuple[Callable[..., float], bool]] = {
    "kendall_tau": (kendall_tau, True),
    "tau_x": (tau_x, True),
    "spearman_rho": (spearman_rho, True),
    "footrule": (footrule, False),
    "kendall_distance": (kendall_distance, False),
    "top_label_accuracy": (top_label_accuracy, True),
    "exact_match": (exact_match, True),
}


def get_scorer(scoring: Any) -> Any:
    """The scikit-learn scorer of a measure, for ``GridSearchCV(scoring=...)`` and
    ``cross_val_score``: ``kendall_tau``, ``tau_x`` (for ties), ``spearman_rho``, ``footrule`` and
    ``kendall_distance`` (negated, as scikit-learn's losses are: higher is better; also as
    ``neg_footrule``, ``neg_kendall_distance``), ``top_label_accuracy``, ``exact_match``. None and
    callables are given back as they are, as scikit-learn's ``get_scorer`` does."""
    if scoring is None or callable(scoring):
        return scoring
    name = str(scoring)
    negated = name.startswith("neg_") and name[4:] in _MEASURES and not _MEASURES[name[4:]][1]
    try:
        measure, higher_is_better = _MEASURES[name[4:] if negated else name]
    except KeyError:
        raise ValueError(f"unknown lrank scorer {name!r}; choose one of {', '.join(get_scorer_names())}") from None
    return _Scorer(name, measure, 1.0 if higher_is_better else -1.0)


def get_scorer_names() -> list[str]:
    """The names :func:`get_scorer` takes."""
    return sorted([*_MEASURES, *(f"neg_{n}" for n, (_, higher) in _MEASURES.items() if not higher)])


def _fitted_labels(estimator: Any, depth: int = 0) -> Any:
    """The fitted label ranker's ``labels_`` inside ``estimator``: its own, or a pipeline's final
    step's, a search's ``best_estimator_``'s, a wrapper's fitted ``estimator_`` or ``estimator``'s
    (nested: a search over a pipeline inside cross-validation). None if there is none."""
    if depth > 10:
        return None
    labels = getattr(estimator, "labels_", None)
    if labels is not None:
        return labels
    inner = []
    if hasattr(estimator, "steps"):
        inner.append(estimator.steps[-1][1])
    inner += [getattr(estimator, name, None) for name in ("best_estimator_", "estimator_", "estimator")]
    for candidate in inner:
        if candidate is not None and candidate is not estimator:
            found = _fitted_labels(candidate, depth + 1)
            if found is not None:
                return found
    return None


class _Scorer(MetadataRequests):
    """A scikit-learn scorer, ``scorer(estimator, X, y)``: the measure of ``estimator.predict(X)``
    against ``y``; rankings given as text are read by the estimator's ``labels_`` (found through
    pipelines, searches and other wrappers: :func:`_fitted_labels`). With metadata routing,
    ``set_score_request(sample_weight=True)`` makes it weigh the rows, as scikit-learn's scorers
    do."""

    _metadata_params: ClassVar[dict[str, tuple[str, ...]]] = {"score": ("sample_weight",)}

    def __init__(self, name: str, measure: Callable[..., float], sign: float) -> None:
        self.name, self.measure, self.sign = name, measure, sign

    def __call__(self, estimator: Any, X: Any, y_true: Any, sample_weight: ArrayLike | None = None) -> float:
        labels = _fitted_labels(estimator)
        try:
            return self.sign * self.measure(y_true, estimator.predict(X), sample_weight=sample_weight, labels=labels)
        except InvalidInputError as exc:
            from lrank.estimators._inputs import with_known_labels

            raise with_known_labels(exc, labels) from None

    def __repr__(self) -> str:
        return f"lrank.metrics.get_scorer({self.name!r})"

    def _routing_owner(self) -> str:
        return repr(self)


def __getattr__(name: str) -> Any:
    # SCORERS and the ``*_scorer`` objects are made on first use.
    if name == "SCORERS":
        return {n: get_scorer(n) for n in get_scorer_names()}
    if name.endswith("_scorer") and name[: -len("_scorer")] in _MEASURES:
        return get_scorer(name[: -len("_scorer")])
    raise AttributeError(f"module 'lrank.metrics' has no attribute {name!r}")
