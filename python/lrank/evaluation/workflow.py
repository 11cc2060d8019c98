"""Training a learner and evaluating it: what ``lrank train`` does, and each cell of
``lrank experiment``, as one library function, :func:`train_and_evaluate`.

The learner is built from its registry spec with the seed, the threads and the nominal features
of the data; the model on all training data is fitted (after optional label deletion) and
evaluated on a test set or on the training data, and cross-validated with the papers' protocol
(:func:`lrank.evaluation.fold_plans`), or only on given folds.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lrank import _core
from lrank.data import DATA_SUFFIXES, LabelRankingDataset, read_dataset
from lrank.data.alignment import aligned_features, aligned_rankings
from lrank.datasets import resolve
from lrank.errors import InvalidInputError, InvalidParameterError, LrankError
from lrank.estimators import _oob
from lrank.evaluation.cross_validation import (
    DELETION_SEED_TAG,
    FoldPlan,
    FoldResult,
    add_predictions,
    evaluate_folds,
    fit_weighted,
    fold_plans,
    percentage_split,
)
from lrank.evaluation.measures import Evaluation
from lrank.model_file import LoadedModel, load_model, save_model, unsaveable
from lrank.rankings import delete_labels, tie_complaint
from lrank.registry import LearnerSpec, get_learner, is_builtin

__all__ = [
    "RowPredictions",
    "SavedModelResult",
    "TrainingData",
    "TrainingResult",
    "evaluate_saved_model",
    "load_training_data",
    "train_and_evaluate",
]

PathLike = str | os.PathLike[str]
# Called with the number of folds when cross-validation starts; the callable that its context
# yields is called after each fold (lrank train draws a progress bar with it).
Progress = Callable[[int], AbstractContextManager[Callable[[FoldResult], None]]]
# Called with what a long step does ("building LWRF on 18576 rows"); its context lasts the step
# (lrank train counts the seconds of the fit on all training data with it).
Stage = Callable[[str], AbstractContextManager[None]]


@dataclass(frozen=True)
class TrainingData:
    """A data set as the learners take it: features, rankings, weights and nominal features."""

    dataset: LabelRankingDataset
    x: NDArray[np.float64]
    y: NDArray[np.int32]
    weights: NDArray[np.float64] | None  # None when every row weighs 1
    categorical: list[bool] | None  # None when no feature is nominal
    labels: list[str]

    @classmethod
    def from_dataset(cls, data: LabelRankingDataset) -> TrainingData:
        if data.rankings is None:
            raise InvalidInputError("the training data has no rankings")
        x = data.feature_matrix()
        if x.shape[1] == 0:
            where = f"{data.source}: " if data.source else ""
            raise InvalidInputError(f"{where}no features to learn from (string attributes are not used)")
        nominal = data.nominal_features()
        return cls(
            dataset=data,
            x=x,
            y=data.rankings,
            weights=data.weights if np.any(data.weights != 1.0) else None,
            categorical=nominal.tolist() if nominal.any() else None,
            labels=list(data.labels),
        )

    @property
    def n_rows(self) -> int:
        return int(self.x.shape[0])


def load_training_data(path: PathLike) -> TrainingData:
    """Read a data file (any format :func:`lrank.data.read_dataset` reads) for training."""
    return TrainingData.from_dataset(read_dataset(resolve(path)))


@dataclass(frozen=True)
class RowPredictions:
    """Each evaluated row's true and predicted ranking (``lrank train -p``): the rows of a test
    file, of a percentage split's held-out part, of the training data, or every row of the
    training data as cross-validation predicted it (first repeat: by the fold that held it out)."""

    dataset: LabelRankingDataset  # the file the rows are from
    rows: NDArray[np.int64]  # 0-based rows of ``dataset``, ascending
    truth: NDArray[np.int32]
    predicted: NDArray[np.int32]
    folds: NDArray[np.int64] | None = None  # the 1-based cross-validation fold of each row


@dataclass
class TrainingResult:
    """What :func:`train_and_evaluate` did and measured."""

    spec: LearnerSpec
    options: list[str]
    data: TrainingData
    # The model fitted on all training data, and the seconds its fit took (None without one).
    estimator: Any
    build_seconds: float | None
    # In this order: on the test data or on the training data, then cross-validation.
    evaluations: list[Evaluation] = field(default_factory=list)
    # Each cross-validation fold: sizes, measures, fit and predict seconds.
    folds: list[FoldResult] = field(default_factory=list)
    test_rows: int | None = None
    test_seconds: float | None = None  # predicting the test data
    # With keep_predictions: the rows of the last evaluation (cross-validation's if it ran).
    predictions: RowPredictions | None = None


def train_and_evaluate(
    learner: str | LearnerSpec,
    train: TrainingData | LabelRankingDataset | PathLike,
    options: Sequence[str] = (),
    *,
    test: LabelRankingDataset | PathLike | None = None,
    seed: int = 1,
    n_jobs: int | None = None,
    folds: int = 10,
    repeats: int = 1,
    missing: float = 0.0,
    cross_validation: bool = True,
    plans: Sequence[FoldPlan] | None = None,
    split: float | None = None,
    preserve_order: bool = False,
    final_model: bool = True,
    model_out: PathLike | None = None,
    progress: Progress | None = None,
    keep_predictions: bool = False,
    check_data: Callable[[LabelRankingDataset, LabelRankingDataset | None], None] | None = None,
    stage: Stage | None = None,
) -> TrainingResult:
    """Build ``learner`` (a registry name or spec) with WEKA-style ``options`` and evaluate it.

        With ``final_model`` (the default) the learner is fitted on all training data, its labels
        deleted with probability ``missing`` first, and saved to ``model_out`` if given; then it is
        evaluated on ``test`` if given, else on the (complete) training data. Without ``test`` and
        with ``cross_validation``, it is also cross-validated: ``repeats`` x ``folds``-fold
        stratified, label deletion ``missing``, repeat r seeded ``seed + r`` (as
        :func:`lrank.evaluation.cross_validate`), or on just the given fold ``plans``. ``seed`` also
        seeds the learner and the deletion for the final model; ``n_jobs`` is its threads. With
        ``split`` (a percentage, WEKA's ``-split-percentage``) and no ``test``, a percentage split
        (:func:`lrank.evaluation.cross_validation.percentage_split`; the first rows for training with
        ``preserve_order``) replaces cross-validation.

        With ``keep_predictions``, ``result.predictions`` holds each row of the last evaluation
        (see :class:`RowPredictions`). ``check_data(train, test)`` is called with the data sets read
        (``test`` None without one) before anything is fitted, so a caller's check of them fails early.
    ``stage(what)`` is entered for the fit on all training data.

        Option mistakes are raised before any data is read, a fold count larger than the data
        before any fitting.
    """
    spec = get_learner(learner) if isinstance(learner, str) else learner
    options = list(options)
    spec.parse_options(options)  # report option mistakes before reading any data
    plugins = plugins_in(spec, options)
    if isinstance(train, TrainingData):
        data = train
    elif isinstance(train, LabelRankingDataset):
        data = TrainingData.from_dataset(train)
    else:
        data = load_training_data(train)
    validate = test is None and (cross_validation or split is not None)
    name = "cross-validation"
    if validate and split is not None:
        plans = [percentage_split(data.y, split, seed=seed, missing=missing, preserve_order=preserve_order)]
        name = "percentage split"
    if validate and plans is None and folds > data.n_rows:
        where = f"{data.dataset.source}: " if data.dataset.source else ""
        raise InvalidInputError(f"{where}cannot make {folds} folds from {data.n_rows} instances")
    if test is not None and not final_model:
        raise InvalidInputError("evaluating on test data needs the final model")
    # The test file is read and checked against the training data before anything is fitted,
    # so that a wrong path or a mismatched file is reported at once, not after the fit.
    test_set = None
    if test is not None:
        test_set = _test_set(data, test)
    if check_data is not None:
        check_data(data.dataset, None if test_set is None else test_set[2])

    def make() -> Any:
        with plugin_failures(plugins):  # a plug-in's __init__ refusing its parameters: one line
            return spec.build(options, seed=seed, n_jobs=n_jobs, categorical_features=data.categorical)

    def make_fold() -> Any:
        # Folds are scored on their held-out rows: an out-of-bag estimate per fold goes unread
        # (what it asks for is still checked: experiments fit folds alone).
        est = make()
        asks = hasattr(est, "get_params") and _oob.wanted(est.get_params(deep=False))
        return est.set_params(oob_score=False) if asks else est

    complaint = tie_complaint_of(spec.name, make(), data)
    if complaint is not None:
        raise InvalidInputError(complaint)
    if model_out:
        refusal = unsaveable(make(), spec.name)
        if refusal is not None:  # said before the fit, not after it
            raise LrankError(refusal)
        _check_model_path(model_out, [resolve(f) for f in (train, test) if isinstance(f, (str, os.PathLike))])
        where = os.path.dirname(os.path.abspath(model_out))
        if os.path.isdir(model_out) or not os.path.isdir(where) or not os.access(where, os.W_OK):
            problem = (
                "is a directory" if os.path.isdir(model_out) else f"cannot be written: no writable directory {where}"
            )
            raise LrankError(f"{model_out}: {problem}")

    result = TrainingResult(spec=spec, options=options, data=data, estimator=None, build_seconds=None)
    # A file's name goes in front of the learners' complaints about its data; callers that hand
    # over data already loaded name it themselves (the experiment runner names the cell).
    named = not isinstance(train, (TrainingData, LabelRankingDataset))
    with _naming(data.dataset.source if named else None, spec, data.dataset.where, plugins):
        if final_model:
            building = f"building {spec.name} on {data.n_rows} rows"
            with stage(building) if stage is not None else contextlib.nullcontext():
                estimator = _fit_final_model(result, make, seed=seed, missing=missing, model_out=model_out)
            if test_set is not None:
                _evaluate_on_test(result, estimator, *test_set, keep=keep_predictions)
            else:
                evaluation = Evaluation("training data", data.labels)
                predicted = estimator.predict(data.x)
                add_predictions(evaluation, data.y, predicted, spec.name)
                result.evaluations.append(evaluation)
                if keep_predictions:
                    rows = np.arange(data.n_rows, dtype=np.int64)
                    result.predictions = RowPredictions(data.dataset, rows, data.y, predicted)
        if validate:
            plans_given = plans  # given plans (an experiment's cells) are named by their caller
            if plans is None:
                plans = list(fold_plans(data.y, n_folds=folds, repeats=repeats, seed=seed, missing=missing))
            kept: list[tuple[FoldPlan, NDArray[np.int32]]] = []
            first_repeat = min((plan.repeat for plan in plans), default=0)

            def keep(plan: FoldPlan, predicted: NDArray[np.int32]) -> None:
                if plan.repeat == first_repeat:
                    kept.append((plan, predicted))

            with progress(len(plans)) if progress is not None else _no_progress() as on_fold:
                evaluation, result.folds = evaluate_folds(
                    make_fold,
                    data.x,
                    data.y,
                    plans,
                    labels=data.labels,
                    sample_weight=data.weights,
                    on_fold=on_fold,
                    name=name,
                    on_predicted=keep if keep_predictions else None,
                    learner=spec.name,
                    tell_fold=plans_given is None,
                )
            result.evaluations.append(evaluation)
            if keep_predictions:
                result.predictions = _fold_predictions(data, kept, per_fold=split is None)
    return result


def _fold_predictions(
    data: TrainingData, kept: list[tuple[FoldPlan, NDArray[np.int32]]], *, per_fold: bool
) -> RowPredictions:
    """The folds' predictions of their test rows, in the order of the rows."""
    rows = np.concatenate([plan.test for plan, _ in kept]).astype(np.int64)
    predicted = np.concatenate([p for _, p in kept]).astype(np.int32)
    folds = np.concatenate([np.full(plan.test.size, plan.fold + 1, dtype=np.int64) for plan, _ in kept])
    order = np.argsort(rows, kind="stable")
    return RowPredictions(
        data.dataset, rows[order], data.y[rows[order]], predicted[order], folds[order] if per_fold else None
    )


@dataclass
class SavedModelResult:
    """What :func:`evaluate_saved_model` measured."""

    model: LoadedModel
    test: LabelRankingDataset
    evaluation: Evaluation
    test_seconds: float
    predictions: RowPredictions | None = None


def evaluate_saved_model(
    model: PathLike,
    test: LabelRankingDataset | PathLike,
    *,
    n_jobs: int | None = None,
    keep_predictions: bool = False,
) -> SavedModelResult:
    """A model file written by ``lrank train -d`` evaluated on labelled test data, as WEKA's
    ``-l MODEL -T TEST``: the test file is checked against the model's attributes and labels as
    ``lrank predict`` checks it."""
    loaded = load_model(model)
    if n_jobs is not None:
        loaded.estimator.set_params(n_jobs=n_jobs)
    test_data = test if isinstance(test, LabelRankingDataset) else read_dataset(resolve(test))
    x = aligned_features(loaded.attributes, test_data)
    y = aligned_rankings(loaded.labels, test_data)
    start = time.perf_counter()
    predicted = loaded.estimator.predict(x)
    seconds = time.perf_counter() - start
    evaluation = Evaluation("test data", list(loaded.labels))
    evaluation.add(y, predicted)
    kept = None
    if keep_predictions:
        kept = RowPredictions(test_data, np.arange(test_data.n_rows, dtype=np.int64), y, predicted)
    return SavedModelResult(loaded, test_data, evaluation, seconds, kept)


def tie_complaint_of(learner: str, estimator: Any, data: TrainingData) -> str | None:
    """What to tell a user whose training file ties labels when ``estimator`` (the learner
    ``learner``) cannot learn from ties: the file's line and the labels; None otherwise. Asked
    before any fit, as the learner's own refusal would name a row of a fold or a resample."""
    refusal = getattr(estimator, "_tie_refusal", None)
    try:
        why = refusal() if refusal is not None else None
    except InvalidParameterError:
        return None  # the fit reports it, with the learner's option
    if why is None:
        return None
    return tie_complaint(
        data.y,
        why,
        learner=learner,
        where=data.dataset.where,
        labels=data.labels,
        instead="a partial label ranking learner such as -W PLRPW (lrank learners lists them)",
    )


def check_parameters(spec: LearnerSpec, estimator: Any) -> None:
    """Checks the parameters of a learner built from options before any data is read or fitted,
    as its fit would: an invalid one raises the error naming the learner's option."""
    params_json = getattr(estimator, "_params_json", None)
    if params_json is None:
        return  # not one of lrank's core learners (a plug-in): its fit checks them
    with _naming(None, spec, plugins=plugins_in(spec, ())):
        text = params_json(0)
        if text != "null":  # a Python-side ensemble: its members are checked when they are built
            _core.validate_params(text)


def plugins_in(spec: LearnerSpec, options: Sequence[str]) -> list[str]:
    """The names of the plug-ins a learner setting uses: itself, or learners nested in it."""
    return [used.name for used in spec.learners_used(options) if not is_builtin(used)]


@contextlib.contextmanager
def plugin_failures(plugins: Sequence[str]) -> Iterator[None]:
    """A plug-in's own error (not lrank's) as one line naming it, not a traceback: its author's
    to read. Without plug-ins, errors pass as they are (lrank's own bug: the traceback is what to
    report)."""
    try:
        yield
    except LrankError:
        raise
    except Exception as exc:
        if not plugins:
            raise
        names = " or ".join(dict.fromkeys(plugins))
        kind = "a learner plug-in" if len(set(plugins)) == 1 else "learner plug-ins"
        raise LrankError(f"{names} ({kind}) failed: {type(exc).__name__}: {exc}") from exc


@contextlib.contextmanager
def _naming(
    source: str | None,
    spec: LearnerSpec,
    where: Callable[[int], str] | None = None,
    plugins: Sequence[str] = (),
) -> Iterator[None]:
    """Puts the training file's name in front of the learners' complaints about its data (its
    line, with ``where``, when the complaint names a row of the rank matrix); an invalid
    parameter is no fault of the file, and is told with the learner's option. A plug-in's own
    error is one line naming it (:func:`plugin_failures`)."""
    try:
        with plugin_failures(plugins):
            yield
    except InvalidParameterError as exc:
        option_error = spec.option_error(exc)
        if option_error is None:
            raise
        raise option_error from None
    except InvalidInputError as exc:
        row = _MATRIX_ROW.match(str(exc))
        if where is not None and row is not None:
            # The file's line replaces the matrix's 0-based row, which would name the row twice.
            told = _MATRIX_ROW.sub("this row", str(exc), count=1)
            raise InvalidInputError(f"{where(int(row.group(1)))}: {told}") from None
        if source is None or str(exc).startswith(source):
            raise
        raise InvalidInputError(f"{source}: {exc}") from None


# The core's complaint about one training ranking: "row 12 of the rank matrix is not a ranking".
_MATRIX_ROW = re.compile(r"row (\d+) of the rank matrix\b")


def _check_model_path(model_out: PathLike, data_files: list[Any]) -> None:
    """Refuses a model path that names data: one swapped argument (``-d iris.xarff``) wrote the
    model over the very file it was trained on."""
    suffix = os.path.splitext(os.fspath(model_out))[1].lower()
    if suffix in DATA_SUFFIXES:
        raise LrankError(
            f"{os.fspath(model_out)}: a model file is not data ({suffix}): name it .lrm (binary) or .json (JSON)"
        )
    for data_file in data_files:
        if os.path.exists(model_out) and os.path.exists(data_file) and os.path.samefile(model_out, data_file):
            raise LrankError(f"{os.fspath(model_out)}: is the data file the model learns from or is tested on")


def _fit_final_model(
    result: TrainingResult, make: Callable[[], Any], *, seed: int, missing: float, model_out: PathLike | None
) -> Any:
    data = result.data
    y_fit = delete_labels(data.y, missing, np.random.default_rng([seed, DELETION_SEED_TAG])) if missing > 0 else data.y
    estimator = make()
    start = time.perf_counter()
    fit_weighted(estimator, data.x, y_fit, data.weights, result.spec.name)
    result.build_seconds = time.perf_counter() - start
    result.estimator = estimator
    if model_out:
        save_model(
            model_out,
            estimator,
            learner=result.spec.name,
            learner_options=result.options,
            labels=data.labels,
            attributes=data.dataset.attributes,
            relation=data.dataset.relation,
        )
    return estimator


def _test_set(data: TrainingData, test: LabelRankingDataset | PathLike) -> tuple[Any, Any, LabelRankingDataset]:
    """The test file's features and rankings, aligned with the training data's attributes and labels."""
    test_data = test if isinstance(test, LabelRankingDataset) else read_dataset(resolve(test))
    return (
        aligned_features(data.dataset.attributes, test_data),
        aligned_rankings(data.labels, test_data),
        test_data,
    )


def _evaluate_on_test(
    result: TrainingResult, estimator: Any, x_test: Any, y_test: Any, test_data: LabelRankingDataset, *, keep: bool
) -> None:
    data = result.data
    start = time.perf_counter()
    predicted = estimator.predict(x_test)
    result.test_seconds = time.perf_counter() - start
    result.test_rows = test_data.n_rows
    evaluation = Evaluation("test data", data.labels)
    add_predictions(evaluation, np.asarray(y_test, dtype=np.int32), predicted, result.spec.name)
    result.evaluations.append(evaluation)
    if keep:
        rows = np.arange(test_data.n_rows, dtype=np.int64)
        result.predictions = RowPredictions(test_data, rows, np.asarray(y_test, dtype=np.int32), predicted)


@contextlib.contextmanager
def _no_progress() -> Iterator[None]:
    yield None
