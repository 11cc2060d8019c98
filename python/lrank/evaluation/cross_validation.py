"""Stratified k-fold cross-validation with optional deletion of training labels.

The papers' protocol is laid out once, as a sequence of :class:`FoldPlan` (which rows train and
test, and the training rankings after label deletion), so that :func:`cross_validate` and the
experiment runner (:mod:`lrank.experiment`) use the very same folds and deleted labels.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lrank.errors import InvalidInputError, LearnerOutputError
from lrank.evaluation.measures import Evaluation
from lrank.rankings import delete_labels, top_labels

# Mixed into the seed of the label-deletion generator, so it draws other numbers than the
# fold shuffle that uses the plain seed.
DELETION_SEED_TAG = 0x5EED


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


# Far beyond any protocol (the papers repeat 5 or 10 times), low enough that the plans of a run
# and an experiment's list of cells cannot exhaust memory.
MAX_REPEATS = 10_000


@dataclass(frozen=True)
class FoldPlan:
    """One fold of one repeat: the row indices and the training rankings after label deletion."""

    repeat: int
    fold: int
    train: NDArray[np.int64]
    test: NDArray[np.int64]
    y_train: NDArray[np.int32]


def fold_plans(
    y: NDArray[np.int32],
    *,
    n_folds: int,
    repeats: int,
    seed: int,
    missing: float = 0.0,
    only: Collection[tuple[int, int]] | None = None,
) -> Iterator[FoldPlan]:
    """The folds of repeated stratified cross-validation, repeat by repeat, fold by fold.

    Repeat r shuffles its folds with seed ``seed + r`` and deletes training labels (probability
    ``missing``) with one generator seeded ``[seed + r, DELETION_SEED_TAG]`` that is consumed fold
    after fold. With ``only`` (a set of ``(repeat, fold)`` pairs) just those plans are yielded,
    but the deletions of the earlier folds of their repeat are still drawn (and dropped), so a
    fold computed alone is identical to the same fold computed in sequence.
    """
    if not 1 <= repeats <= MAX_REPEATS:
        raise InvalidInputError(f"repeats must lie in 1..{MAX_REPEATS}, got {repeats}")
    if not 0.0 <= missing <= 1.0:
        raise InvalidInputError(f"missing-label probability must lie in [0, 1], got {missing}")
    wanted = None if only is None else set(only)
    n = int(np.asarray(y).shape[0])
    for r in range(repeats):
        if wanted is None:
            last = n_folds - 1
        else:
            ks = [k for (rr, k) in wanted if rr == r]
            if not ks:
                continue
            last = max(ks)
        rng = np.random.default_rng([seed + r, DELETION_SEED_TAG])
        folds = stratified_folds(y, n_folds, seed + r)
        for k, test in enumerate(folds[: last + 1]):
            train = np.setdiff1d(np.arange(n), test, assume_unique=True)
            y_train = delete_labels(y[train], missing, rng) if missing > 0 else y[train]
            if wanted is None or (r, k) in wanted:
                yield FoldPlan(repeat=r, fold=k, train=train, test=test, y_train=y_train)


def fold_plan(y: NDArray[np.int32], *, n_folds: int, seed: int, missing: float, repeat: int, fold: int) -> FoldPlan:
    """Fold ``fold`` of repeat ``repeat`` alone, identical to the one :func:`fold_plans` yields."""
    if not 0 <= fold < n_folds:
        raise InvalidInputError(f"fold {fold} does not exist with {n_folds} folds")
    if repeat < 0:
        raise InvalidInputError(f"repeat must be >= 0, got {repeat}")
    return next(fold_plans(y, n_folds=n_folds, repeats=repeat + 1, seed=seed, missing=missing, only={(repeat, fold)}))


def percentage_split(
    y: NDArray[np.int32], percent: float, *, seed: int, missing: float = 0.0, preserve_order: bool = False
) -> FoldPlan:
    """WEKA's ``-split-percentage``: ``percent`` % of the rows to train on, the rest to test.

    The rows are shuffled with ``seed`` and each top label's rows split in that proportion
    (rounded), so both parts hold the top labels as the data does; with ``preserve_order``
    (WEKA's ``-preserve-order``) the first rows, in file order, are the training part. Training
    labels are deleted with probability ``missing`` as in :func:`fold_plans`.
    """
    n = int(np.asarray(y).shape[0])
    if not 0.0 < percent < 100.0:
        raise InvalidInputError(f"the split percentage must lie strictly between 0 and 100, got {percent:g}")
    if preserve_order:
        train = np.arange(round(percent / 100.0 * n), dtype=np.int64)
    else:
        order = np.random.default_rng(seed).permutation(n)
        tops = top_labels(y)[order]
        train = np.sort(
            np.concatenate(
                [order[tops == t][: round(percent / 100.0 * np.count_nonzero(tops == t))] for t in np.unique(tops)]
            )
        ).astype(np.int64)
    test = np.setdiff1d(np.arange(n), train, assume_unique=True)
    if train.size == 0 or test.size == 0:
        part = "training" if train.size == 0 else "test"
        raise InvalidInputError(f"a {percent:g}% split of {n} instances leaves no {part} instances")
    rng = np.random.default_rng([seed, DELETION_SEED_TAG])
    y_train = delete_labels(y[train], missing, rng) if missing > 0 else y[train]
    return FoldPlan(repeat=0, fold=0, train=train, test=test, y_train=y_train)


@dataclass(frozen=True)
class FoldResult:
    """What one fold gave: its sizes, the means of the measures on its test rows, and the
    seconds the learner took to fit and to predict."""

    repeat: int
    fold: int
    n_train: int
    n_test: int
    measures: dict[str, float]
    fit_seconds: float
    predict_seconds: float


def evaluate_folds(
    make_estimator: Callable[[], object],
    x: NDArray[np.float64],
    y: NDArray[np.int32],
    plans: Iterable[FoldPlan],
    *,
    labels: Sequence[str],
    sample_weight: NDArray[np.float64] | None = None,
    on_fold: Callable[[FoldResult], None] | None = None,
    name: str = "cross-validation",
    on_predicted: Callable[[FoldPlan, NDArray[np.int32]], None] | None = None,
    learner: str = "the learner",
    tell_fold: bool = False,
) -> tuple[Evaluation, list[FoldResult]]:
    """Fit a fresh estimator on each plan's training rows (with its rankings after label
    deletion) and measure it on the plan's test rows against their complete rankings; the
    evaluation is called ``name``. ``on_predicted(plan, predicted)`` gets each plan's predicted
    rank matrix of its test rows. ``tell_fold``: a fit's refusal names the fold (callers that
    name their cells themselves, as experiments do, leave it off)."""
    evaluation = Evaluation(name=name, labels=list(labels))
    results = []
    for plan in plans:
        est = make_estimator()
        w = None if sample_weight is None else sample_weight[plan.train]
        start = time.perf_counter()
        try:
            fit_weighted(est, x[plan.train], plan.y_train, w, learner)
        except InvalidInputError as exc:
            whole = _in_whole_rows(exc, plan.train)
            if whole is not None:
                raise whole from None
            if not tell_fold:
                raise
            # Said of the fold: the whole data may fit (all weight in another fold's rows, too
            # few rows for an inner search), and the message alone read as if it did not.
            part = "its training part" if name == "percentage split" else f"fold {plan.fold + 1}"
            raise InvalidInputError(f"{name}, {part} ({plan.train.size} training rows): {exc}") from None
        fit_seconds = time.perf_counter() - start
        start = time.perf_counter()
        predicted = est.predict(x[plan.test])  # type: ignore[attr-defined]
        predict_seconds = time.perf_counter() - start
        means = add_predictions(evaluation, y[plan.test], predicted, learner)
        if on_predicted is not None:
            on_predicted(plan, predicted)
        result = FoldResult(
            repeat=plan.repeat,
            fold=plan.fold,
            n_train=int(plan.train.size),
            n_test=int(plan.test.size),
            measures=means,
            fit_seconds=fit_seconds,
            predict_seconds=predict_seconds,
        )
        results.append(result)
        if on_fold is not None:
            on_fold(result)
    return evaluation, results


def fit_weighted(est: Any, x: Any, y: Any, sample_weight: Any, learner: str) -> None:
    """``est.fit(x, y)``, with ``sample_weight`` when there are weights: a learner whose fit takes
    none (a plug-in's, say) is fitted without them when every row weighs 1, and refused in its
    name otherwise."""
    from lrank.estimators._inputs import fit_takes_sample_weight

    w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if w is not None and not fit_takes_sample_weight(est):
        if np.all(w == 1.0):
            w = None
        else:
            raise InvalidInputError(f"{learner} cannot use the data's instance weights: its fit takes no sample_weight")
    if w is None:
        est.fit(x, y)
    else:
        est.fit(x, y, sample_weight=w)


def add_predictions(
    evaluation: Evaluation, y_true: NDArray[np.int32], predicted: Any, learner: str
) -> dict[str, float]:
    """``evaluation.add``, a learner's predictions that are no complete rankings (a plug-in's
    0-based positions, say) refused in its name rather than scored."""
    shape = np.shape(predicted)
    if shape != y_true.shape:
        raise LearnerOutputError(
            f"{learner} predicted an array of shape {shape} for {y_true.shape[0]} rows of {y_true.shape[1]} labels"
        )
    try:
        return evaluation.add(y_true, predicted)
    except InvalidInputError as exc:
        if "Y_pred" not in str(exc):
            raise
        raise LearnerOutputError(
            f"{learner} predicted no complete ranking: {str(exc).replace('Y_pred', 'its predictions')}"
        ) from None


def _in_whole_rows(exc: InvalidInputError, train: NDArray[np.int64]) -> InvalidInputError | None:
    """A fold's complaint about row k of its rank matrix, told of the row of the whole data (k
    counts the fold's training rows only); None for other complaints."""
    found = re.match(r"row (\d+) of the rank matrix\b", str(exc))
    if found is None or not 0 <= int(found.group(1)) < train.size:
        return None
    return InvalidInputError(f"row {int(train[int(found.group(1))])}{str(exc)[found.end(1) :]}")


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
    plans = fold_plans(y, n_folds=n_folds, repeats=repeats, seed=seed, missing=missing)
    evaluation, _ = evaluate_folds(
        make_estimator,
        x,
        y,
        plans,
        labels=labels,
        sample_weight=sample_weight,
        on_fold=None if on_fold is None else lambda r: on_fold(r.repeat, r.fold, r.measures),
    )
    return evaluation
