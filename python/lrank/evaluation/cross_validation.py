"""Stratified k-fold cross-validation with optional deletion of training labels."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from lrank.errors import InvalidInputError
from lrank.evaluation.measures import Evaluation
from lrank.rankings import delete_labels, top_labels


def stratified_folds(y: NDArray[np.int32], n_folds: int, seed: int) -> list[NDArray[np.int64]]:
    """Test indices of each fold, stratified by top label (as WEKA stratifies by class).

    The rows are shuffled with ``seed``, stably grouped by top label, and dealt to the folds in
    turn, so every fold holds each top label in nearly the same proportion.
    """
    n = int(np.asarray(y).shape[0])
    if n_folds < 2:
        raise InvalidInputError(f"the number of folds must be at least 2, got {n_folds}")
    if n_folds > n:
        raise InvalidInputError(f"cannot make {n_folds} folds from {n} instances")
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    order = order[np.argsort(top_labels(y)[order], kind="stable")]
    fold_of = np.empty(n, dtype=np.int64)
    fold_of[order] = np.arange(n) % n_folds
    return [np.flatnonzero(fold_of == k) for k in range(n_folds)]


def cross_validate(
    make_estimator: Callable[[], object],
    x: NDArray[np.float64],
    y: NDArray[np.int32],
    *,
    labels: Sequence[str],
    n_folds: int = 10,
    repeats: int = 1,
    seed: int = 1,
    missing: float = 0.0,
    sample_weight: NDArray[np.float64] | None = None,
    on_fold: Callable[[int, int, dict[str, float]], None] | None = None,
) -> Evaluation:
    """Repeated stratified cross-validation; repeat r uses seed ``seed + r`` for its folds and
    its label deletion. With ``missing = p`` each training label is deleted with probability p
    (keeping at least two per ranking); test rankings stay complete, as in the papers.
    ``on_fold(repeat, fold, measures)`` is called after each fold (progress reporting).
    """
    if repeats < 1:
        raise InvalidInputError(f"repeats must be at least 1, got {repeats}")
    evaluation = Evaluation(name="cross-validation", labels=list(labels))
    for r in range(repeats):
        rng = np.random.default_rng([seed + r, 0x5EED])
        for k, test in enumerate(stratified_folds(y, n_folds, seed + r)):
            train = np.setdiff1d(np.arange(y.shape[0]), test, assume_unique=True)
            y_train = delete_labels(y[train], missing, rng) if missing > 0 else y[train]
            est = make_estimator()
            w = None if sample_weight is None else sample_weight[train]
            est.fit(x[train], y_train, sample_weight=w)  # type: ignore[attr-defined]
            means = evaluation.add(y[test], est.predict(x[test]))  # type: ignore[attr-defined]
            if on_fold is not None:
                on_fold(r, k, means)
    return evaluation
