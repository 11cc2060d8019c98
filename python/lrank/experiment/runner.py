"""Running an experiment's cells, in this process or in worker processes, into a store.

Every cell is computed by :func:`execute_cell` from its :class:`CellTask` alone: the fold comes
from :func:`lrank.evaluation.fold_plans` (the protocol of ``lrank train`` and
:func:`lrank.evaluation.cross_validate`), and the learner is built, fitted and measured on it by
:func:`lrank.evaluation.workflow.train_and_evaluate`, as ``lrank train`` does, fresh with the
experiment's seed. So a cell's numbers do not depend on which other cells run, in which order, in which process, or
on how many threads a learner uses.
"""

from __future__ import annotations

import contextlib
import hashlib
import multiprocessing
import signal
import sys
import time
import traceback
import uuid
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import numpy as np
import polars as pl
from numpy.typing import NDArray

from lrank import __version__
from lrank.data import read_dataset
from lrank.errors import ExperimentError, InvalidParameterError, LrankError
from lrank.evaluation import FoldPlan, fold_plans
from lrank.evaluation.workflow import (
    TrainingData,
    check_parameters,
    load_training_data,
    tie_complaint_of,
    train_and_evaluate,
)
from lrank.experiment.config import DatasetSource, ExperimentConfig, LearnerSetting
from lrank.experiment.store import KEY, MEASURE_COLUMNS, ResultStore, StoreWriter
from lrank.rankings import has_ties
from lrank.registry import LearnerPluginWarning, get_learner, plugin_versions

__all__ = ["CellTask", "DatasetInfo", "RunSummary", "execute_cell", "plan_experiment", "run_experiment"]


@dataclass(frozen=True)
class DatasetInfo:
    """What the store records about a data file, checked when a run resumes."""

    source: DatasetSource
    sha256: str
    n_instances: int
    n_labels: int


@dataclass(frozen=True)
class CellTask:
    """One (data set, learner, p, repeat, fold) cell and everything needed to compute it."""

    dataset: DatasetInfo
    learner: LearnerSetting
    missing: float
    repeat: int
    fold: int
    folds: int
    repeats: int
    seed: int
    jobs: int | None

    @property
    def key(self) -> tuple[str, str, float, int, int]:
        return (self.dataset.source.name, self.learner.label, self.missing, self.repeat, self.fold)

    def describe(self) -> str:
        return (
            f"{self.dataset.source.name} / {self.learner.label} / p={self.missing:g} / "
            f"repeat {self.repeat + 1} fold {self.fold + 1}"
        )


@dataclass(frozen=True)
class CellFailure:
    """A cell whose learner raised: the message (and traceback for unexpected errors)."""

    task: CellTask
    message: str
    details: str


def file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# -- per-process caches: a worker reads each data file once and lays out each repeat once -------


_DATA: OrderedDict[str, TrainingData] = OrderedDict()
_PLANS: OrderedDict[tuple[str, int, int, float, int], list[FoldPlan]] = OrderedDict()


def _remember(cache: OrderedDict[Any, Any], key: Any, value: Any, size: int) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > size:
        cache.popitem(last=False)


def _load(path: str) -> TrainingData:
    hit = _DATA.get(path)
    if hit is None:
        hit = load_training_data(path)
        _remember(_DATA, path, hit, size=4)
    else:
        _DATA.move_to_end(path)
    return hit


def _plan(task: CellTask, y: NDArray[np.int32]) -> FoldPlan:
    key = (task.dataset.source.path, task.folds, task.seed, task.missing, task.repeat)
    plans = _PLANS.get(key)
    if plans is None:
        # the whole repeat at once: its folds share one deletion generator, consumed in order
        plans = list(
            fold_plans(
                y,
                n_folds=task.folds,
                repeats=task.repeat + 1,
                seed=task.seed,
                missing=task.missing,
                only={(task.repeat, k) for k in range(task.folds)},
            )
        )
        _remember(_PLANS, key, plans, size=4)
    return plans[task.fold]


def compute_cell(task: CellTask, data: TrainingData | None = None) -> dict[str, Any]:
    """Fit the cell's learner on its training fold and measure it on its test fold (the data
    set read from its file, unless given)."""
    if data is None:
        data = _load(task.dataset.source.path)
    result = train_and_evaluate(
        task.learner.name,
        data,
        task.learner.options,
        seed=task.seed,
        n_jobs=task.jobs,
        plans=[_plan(task, data.y)],
        final_model=False,
    )
    (fold,) = result.folds
    return {
        "dataset": task.dataset.source.name,
        "dataset_sha256": task.dataset.sha256,
        "n_instances": task.dataset.n_instances,
        "n_labels": task.dataset.n_labels,
        "ties": has_ties(data.y),
        "learner": task.learner.label,
        "learner_name": task.learner.name,
        "learner_options": task.learner.options_text,
        "missing": task.missing,
        "repeat": task.repeat,
        "fold": task.fold,
        "n_train": fold.n_train,
        "n_test": fold.n_test,
        **{m: float(fold.measures[m]) for m in MEASURE_COLUMNS},
        "fit_seconds": fold.fit_seconds,
        "predict_seconds": fold.predict_seconds,
        "seed": task.seed,
        "folds": task.folds,
        "repeats": task.repeats,
        "lrank_version": __version__,
        "plugin_versions": plugin_versions(task.learner.name, task.learner.options),
        "computed_at": datetime.now(timezone.utc),
    }


def execute_cell(task: CellTask, data: TrainingData | None = None) -> dict[str, Any] | CellFailure:
    """:func:`compute_cell`, with errors returned rather than raised (they cross processes)."""
    try:
        return compute_cell(task, data)
    except LrankError as exc:
        return CellFailure(task, str(exc), "")
    except Exception as exc:  # a learner's bug must still name the cell it happened in
        return CellFailure(task, f"{type(exc).__name__}: {exc}", traceback.format_exc())


# -- planning --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExperimentPlan:
    """The cells of an experiment, split into those already stored and those still to run."""

    config: ExperimentConfig
    datasets: tuple[DatasetInfo, ...]
    stored: pl.DataFrame
    pending: tuple[CellTask, ...]
    # The store's repeats before this run asked for more (None: unchanged).
    extended_from: int | None = None

    @property
    def n_cells(self) -> int:
        return self.config.n_cells

    @property
    def other_versions(self) -> list[str]:
        """lrank versions other than this one that computed stored cells (worth a note: a
        resumed store then mixes versions, which the lrank_version column records)."""
        return sorted(set(self.stored.get_column("lrank_version").to_list()) - {__version__})

    @property
    def other_plugin_versions(self) -> list[tuple[str, str, str]]:
        """(learner, stored plug-in versions, installed ones) for each learner of this run whose
        stored cells came from other plug-in versions (stores before the column say nothing)."""
        out = []
        for learner in self.config.learners:
            now = plugin_versions(learner.name, learner.options)
            cells = self.stored.filter(pl.col("learner") == learner.label, pl.col("plugin_versions").is_not_null())
            for before in sorted(set(cells.get_column("plugin_versions").to_list()) - {now}):
                out.append((learner.label, before, now))
        return out


def describe_datasets(config: ExperimentConfig) -> list[DatasetInfo]:
    """Read every data file once (so a bad file, or ties a learner cannot learn from, fail
    before any work) and fingerprint it."""
    out = []
    learners = [(lr, get_learner(lr.name).build(lr.options)) for lr in config.learners]
    for setting, estimator in learners:
        try:
            check_parameters(get_learner(setting.name), estimator)
        except InvalidParameterError as exc:
            raise ExperimentError(f"-W {setting.label!r}: {exc}") from None
    for source in config.datasets:
        data = read_dataset(source.path)
        assert data.rankings is not None
        if config.folds > data.n_rows:
            raise ExperimentError(f"{source.path}: cannot make {config.folds} folds from {data.n_rows} instances")
        training = TrainingData.from_dataset(data)
        for setting, estimator in learners:
            complaint = tie_complaint_of(setting.label, estimator, training)
            if complaint is not None:
                raise ExperimentError(complaint.replace(" such as -W PLRPW", " such as PLRPW"))
        out.append(
            DatasetInfo(source=source, sha256=file_sha256(source.path), n_instances=data.n_rows, n_labels=data.n_labels)
        )
    return out


def _check_compatible(stored: pl.DataFrame, config: ExperimentConfig, datasets: list[DatasetInfo], where: str) -> None:
    """Refuse to resume a store made with another protocol, other data or other learners."""
    if stored.is_empty():
        return
    for column, wanted in (("folds", config.folds), ("repeats", config.repeats), ("seed", config.seed)):
        values = sorted(stored.get_column(column).unique().to_list())
        if column == "repeats" and len(values) == 1 and values[0] < wanted:
            continue  # more repeats: see extended_repeats
        if values != [wanted]:
            have = ", ".join(str(v) for v in values)
            raise ExperimentError(
                f"{where} was made with {column} = {have}, this run asks for {column} = {wanted}; "
                f"use the same settings to resume it, or write to another store with -o"
            )
    by_name = {d.source.name: d for d in datasets}
    for name, sha in stored.select("dataset", "dataset_sha256").unique().iter_rows():
        info = by_name.get(name)
        if info is not None and info.sha256 != sha:
            raise ExperimentError(
                f"{where} holds results for another file named {name!r} ({info.source.path} has changed "
                f"since, or is a different file); write to another store with -o"
            )
    defined = {lr.label: lr for lr in config.learners}
    for label, name, options in stored.select("learner", "learner_name", "learner_options").unique().iter_rows():
        setting = defined.get(label)
        if setting is not None and (setting.name, setting.options_text) != (name, options):
            raise ExperimentError(
                f"{where} holds learner {label!r} as {name} {options}".rstrip()
                + f", but this run defines it as {setting.name} {setting.options_text}".rstrip()
                + "; give it another label (LABEL=NAME OPTIONS)"
            )


def plan_experiment(config: ExperimentConfig, store: ResultStore) -> ExperimentPlan:
    """Check the whole configuration and the store, and list the cells still to compute."""
    datasets = describe_datasets(config)
    stored = store.read()
    _check_compatible(stored, config, datasets, str(store.path))
    # A store of R repeats extends to more: repeat r's folds and deletions depend on the seed
    # and r alone, not on how many repeats there are, so the stored cells stay what this run
    # would compute; they are relabelled with the new count.
    extended_from = None
    if not stored.is_empty() and int(stored.get_column("repeats")[0]) < config.repeats:
        extended_from = int(stored.get_column("repeats")[0])
        stored = stored.with_columns(pl.lit(config.repeats, pl.Int64()).alias("repeats"))
    done = set(stored.select(list(KEY)).iter_rows())
    # With several worker processes, one thread per learner unless told otherwise: the
    # processes already keep the cores busy.
    jobs = config.jobs if config.jobs is not None or (config.workers == 1 and config.dask is None) else 1
    pending = []
    # Data set, p, repeat, fold, learner: a worker lays out a repeat's folds once for all learners.
    for info in datasets:
        for p in config.missing:
            for r in range(config.repeats):
                for k in range(config.folds):
                    for learner in config.learners:
                        task = CellTask(
                            dataset=info,
                            learner=learner,
                            missing=p,
                            repeat=r,
                            fold=k,
                            folds=config.folds,
                            repeats=config.repeats,
                            seed=config.seed,
                            jobs=jobs,
                        )
                        if task.key not in done:
                            pending.append(task)
    return ExperimentPlan(
        config=config, datasets=tuple(datasets), stored=stored, pending=tuple(pending), extended_from=extended_from
    )


# -- running -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunSummary:
    run_id: str
    cells: int
    already_stored: int
    computed: int
    seconds: float
    # Cells in the store after the run (its earlier cells included).
    stored_total: int = 0


def _ignore_sigint() -> None:
    # Ctrl-C goes to the whole process group; only the parent handles it (it stops the workers).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The parent has read the plug-ins and said which it skipped: once, not once per worker.
    warnings.filterwarnings("ignore", category=LearnerPluginWarning)


@contextlib.contextmanager
def _main_script_hidden() -> Iterator[None]:
    """Workers started without re-running the caller's script: "spawn" runs the main module
    again in each worker, so a script calling run_experiment without an ``if __name__ ==
    "__main__":`` guard started it again in every worker, which failed on the store's lock and
    was replaced, forever. The workers need nothing from it: cells name lrank's own functions and
    learners by their registry names."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    hidden = {k: getattr(main, k) for k in ("__file__", "__spec__") if hasattr(main, k)}
    try:
        for k in hidden:
            if k == "__spec__":
                main.__spec__ = None  # a module run with -m is re-imported by its name
            else:
                delattr(main, k)
        yield
    finally:
        for k, v in hidden.items():
            setattr(main, k, v)


def _results(
    tasks: tuple[CellTask, ...],
    workers: int,
    dask: str | None = None,
    on_cluster: Callable[[Any], None] | None = None,
    skip: Mapping[tuple[str, str], Any] | None = None,
) -> Iterator[dict[str, Any] | CellFailure]:
    """Each task's result; run in this process, the tasks whose (data set, learner) is in
    ``skip`` (filled by the caller as failures come) are not run."""
    if dask is not None and tasks:
        from lrank.dask.experiment import cell_results

        yield from cell_results(tasks, dask, on_start=on_cluster)
        return
    if workers <= 1 or len(tasks) <= 1:
        for task in tasks:
            if skip is None or (task.dataset.source.name, task.learner.label) not in skip:
                yield execute_cell(task)
        return
    # "spawn": a fresh interpreter per worker, safe whatever threads this process already runs.
    ctx = multiprocessing.get_context("spawn")
    # Hidden for the pool's life: a worker that dies (killed) is replaced by a new one.
    hidden = _main_script_hidden()
    hidden.__enter__()
    pool = ctx.Pool(processes=min(workers, len(tasks)), initializer=_ignore_sigint)
    try:
        results = pool.imap_unordered(execute_cell, tasks, chunksize=1)
        for _ in tasks:
            # Waited for in short slices: Ctrl-C may be delivered to one of the pool's threads,
            # and an untimed wait would keep the main thread from raising it until a cell ends.
            while True:
                try:
                    result = results.next(timeout=0.2)
                    break
                except multiprocessing.TimeoutError:
                    continue
            yield result
        pool.close()
    finally:
        pool.terminate()  # on errors and interrupts: running cells are abandoned, not stored
        pool.join()
        hidden.__exit__(None, None, None)


def run_experiment(
    plan: ExperimentPlan,
    store: ResultStore,
    *,
    on_cell: Callable[[dict[str, Any]], None] | None = None,
    on_cluster: Callable[[Any], None] | None = None,
    min_write_interval: float = 1.0,
) -> RunSummary:
    """Compute the plan's pending cells and stream them into ``store``.

    Stored cells are never recomputed. On an error (the message names the cell) or an interrupt
    the cells computed so far are written before the exception propagates. Call it while
    holding :meth:`ResultStore.locked`.
    """
    store.remove_stale_temporaries()
    run_id = uuid.uuid4().hex
    start = time.monotonic()
    # The run's cells are stored in the plan's order, whatever order the workers finish them
    # in: reports list learners in the order they entered the store, which then follows the
    # command line whatever the number of workers.
    order = {task.key: i for i, task in enumerate(plan.pending)}
    writer = StoreWriter(store, plan.stored, min_interval=min_write_interval, order=order)
    # A learner that fails on a data set does not stop the others: its first failure is kept
    # and its cells there not run (those already sent to workers come back and are dropped),
    # and the run ends with an error naming each such failure once the rest is computed.
    failed: dict[tuple[str, str], CellFailure] = {}
    tasks = plan.pending
    try:
        for result in _results(tasks, plan.config.workers, plan.config.dask, on_cluster, skip=failed):
            if isinstance(result, CellFailure):
                failed.setdefault((result.task.dataset.source.name, result.task.learner.label), result)
                continue
            if (result["dataset"], result["learner"]) in failed:
                continue
            result["run_id"] = run_id
            writer.add(result)
            if on_cell is not None:
                on_cell(result)
    finally:
        writer.close()
    if failed:
        lines = []
        for failure in failed.values():
            detail = f"\n{failure.details}" if failure.details else ""
            lines.append(f"{failure.task.describe()}: {failure.message}{detail}")
        skipped = sum(1 for t in tasks if (t.dataset.source.name, t.learner.label) in failed)
        head = (
            f"{len(failed)} learner / data set pair(s) failed; their {skipped} cells are not stored "
            f"(the other {writer.written} cells are):\n"
            if len(failed) > 1
            else ""
        )
        raise ExperimentError(head + "\n".join(lines))
    return RunSummary(
        run_id=run_id,
        cells=plan.n_cells,
        already_stored=plan.n_cells - len(plan.pending),
        computed=writer.written,
        seconds=time.monotonic() - start,
        stored_total=writer.frame.height,
    )
