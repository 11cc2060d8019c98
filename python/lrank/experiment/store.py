"""The result store: one Parquet file with a row per computed cell, safe against kills.

Each (data set, learner, p, repeat, fold) cell is one row (schema in :data:`COLUMNS`). The file is
rewritten whole and swapped in by an atomic rename, so a run killed at any moment leaves either
the previous or the new complete file, never a torn one; new cells are written at most about a
second after they are computed (less often when the store is large, so that writing stays a small
share of the run). A lock file keeps two runs from writing the same store at once. Each file
written carries its checksum (:mod:`lrank.parquet_io`), so a store changed or damaged since it
was written is refused before it is decoded.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from lrank.errors import ExperimentError
from lrank.parquet_io import read_verified, write_checksummed

__all__ = ["ADDED_COLUMNS", "COLUMNS", "KEY", "MEASURE_COLUMNS", "ResultStore", "StoreWriter", "read_stores"]

MEASURE_COLUMNS = (
    "kendall_tau",
    "spearman_rho",
    "footrule",
    "top_label_accuracy",
    "exact_match",
    "tau_x",
    "normalized_footrule",
)
# Columns that stores written by earlier versions lack: read as empty (null) there.
ADDED_COLUMNS = ("normalized_footrule", "plugin_versions")

COLUMNS: dict[str, pl.DataType] = {
    "dataset": pl.String(),
    "dataset_sha256": pl.String(),
    "n_instances": pl.Int64(),
    "n_labels": pl.Int64(),
    "ties": pl.Boolean(),  # whether the data set's rankings tie labels (tau_x is then the measure)
    "learner": pl.String(),
    "learner_name": pl.String(),
    "learner_options": pl.String(),
    "missing": pl.Float64(),
    "repeat": pl.Int64(),
    "fold": pl.Int64(),
    "n_train": pl.Int64(),
    "n_test": pl.Int64(),
    **{m: pl.Float64() for m in MEASURE_COLUMNS},
    "fit_seconds": pl.Float64(),
    "predict_seconds": pl.Float64(),
    "seed": pl.Int64(),
    "folds": pl.Int64(),
    "repeats": pl.Int64(),
    "lrank_version": pl.String(),
    # The plug-ins the learner uses, as "distribution version" ("" for lrank's own learners).
    "plugin_versions": pl.String(),
    "run_id": pl.String(),
    "computed_at": pl.Datetime("us", "UTC"),
}

# A cell is identified by these columns; the store holds each at most once.
KEY = ("dataset", "learner", "missing", "repeat", "fold")

SCHEMA = pl.Schema(COLUMNS)


def empty_frame() -> pl.DataFrame:
    return pl.DataFrame(schema=SCHEMA)


class ResultStore:
    """A store file: reading (validated) and atomic whole-file writing."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(os.fspath(path))

    def exists(self) -> bool:
        return self.path.is_file()

    def read(self) -> pl.DataFrame:
        """All stored cells (an empty frame when the file does not exist yet)."""
        if not self.path.exists():
            return empty_frame()
        if self.path.is_dir():
            raise ExperimentError(f"{self.path}: is a directory, not an experiment store (a .parquet file)")
        frame, _ = read_verified(self.path, lambda problem: ExperimentError(f"{self.path}: {problem}"))
        # Stores written before ties were allowed: their data had none, and on rankings without
        # ties tau_x equals Kendall's tau.
        if "ties" not in frame.columns and "kendall_tau" in frame.columns:
            frame = frame.with_columns(pl.lit(False).alias("ties"), pl.col("kendall_tau").alias("tau_x"))
        # Stores written before the normalised footrule and the plug-in versions were recorded.
        frame = frame.with_columns(pl.lit(None, COLUMNS[c]).alias(c) for c in ADDED_COLUMNS if c not in frame.columns)
        missing = [c for c in COLUMNS if c not in frame.columns]
        if missing:
            raise ExperimentError(f"{self.path}: not an lrank experiment store (columns missing: {', '.join(missing)})")
        columns = []
        for name, dtype in COLUMNS.items():
            try:
                columns.append(frame.get_column(name).cast(dtype))
            except Exception:  # Polars' messages run over several lines: name the column instead
                raise ExperimentError(
                    f"{self.path}: column {name!r} ({frame.get_column(name).dtype}) cannot be read as {dtype}"
                ) from None
        frame = pl.DataFrame(columns)
        self._check_values(frame)
        # A cell stored twice (impossible through StoreWriter) would count twice in the means.
        return frame.unique(subset=list(KEY), keep="first", maintain_order=True)

    def _check_values(self, frame: pl.DataFrame) -> None:
        """Refuses missing values and values no run writes (the reports rely on them)."""
        for name in COLUMNS:
            column = frame.get_column(name)
            if column.null_count() and name not in ADDED_COLUMNS:
                row = int(column.is_null().arg_true()[0]) + 1
                raise ExperimentError(f"{self.path}: column {name!r} has no value in row {row}")
        domains = {
            "missing": (pl.col("missing") >= 0) & (pl.col("missing") <= 1),
            "folds": pl.col("folds") >= 1,
            "repeats": pl.col("repeats") >= 1,
            "fold": (pl.col("fold") >= 0) & (pl.col("fold") < pl.col("folds")),
            "repeat": (pl.col("repeat") >= 0) & (pl.col("repeat") < pl.col("repeats")),
            "seed": pl.col("seed") >= 0,
        }
        if frame.select("folds", "repeats", "seed").unique().height > 1:
            raise ExperimentError(f"{self.path}: the store mixes results of different folds, repeats or seeds")
        for name, ok in domains.items():
            bad = frame.select(ok.not_().arg_true()).to_series()
            if bad.len():
                row = int(bad[0])
                raise ExperimentError(
                    f"{self.path}: row {row + 1} has {name} = {frame.get_column(name)[row]}, which no run writes"
                )

    def write(self, frame: pl.DataFrame) -> None:
        """Replace the file by ``frame`` atomically (write a temporary file, fsync, rename)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            write_checksummed(frame, tmp, {"lrank": "experiment store"})
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()

    def remove_stale_temporaries(self) -> None:
        """Temporary files a killed run left behind (call only while holding the lock)."""
        for stale in self.path.parent.glob(f".{self.path.name}.*.tmp"):
            with contextlib.suppress(OSError):
                stale.unlink()

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold an exclusive lock on the store for a run; refuse if another run holds it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock_path = self.path.with_name(f".{self.path.name}.lock")
        try:
            import fcntl
        except ImportError:  # pragma: no cover - no advisory locks on this platform
            yield
            return
        with open(lock_path, "a+") as fh:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise ExperimentError(f"{self.path}: another lrank experiment is writing this store") from None
            try:
                yield
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


class StoreWriter:
    """Appends computed cells to a store, writing the file at most every ``min_interval`` seconds
    (and at least 20 times the last write's duration apart) plus once at :meth:`close`."""

    def __init__(
        self,
        store: ResultStore,
        existing: pl.DataFrame,
        *,
        min_interval: float = 1.0,
        order: Mapping[tuple[Any, ...], int] | None = None,
    ) -> None:
        self.store = store
        self.existing = existing
        self.frame = existing
        # The cells added, written after the existing ones in the order of ``order`` (a cell's
        # KEY values -> its place), not in the order they came.
        self.added: list[Mapping[str, Any]] = []
        self.order = order or {}
        self.pending: list[Mapping[str, Any]] = []
        self.min_interval = min_interval
        self.interval = min_interval
        self.last_write = time.monotonic()
        self.written = 0

    def add(self, row: Mapping[str, Any]) -> None:
        self.pending.append(row)
        if time.monotonic() - self.last_write >= self.interval:
            self.flush()

    def add_many(self, rows: Sequence[Mapping[str, Any]]) -> None:
        for row in rows:
            self.add(row)

    def flush(self) -> None:
        if not self.pending:
            return
        added = [*self.added, *self.pending]
        last = len(self.order)
        added.sort(key=lambda row: self.order.get(tuple(row[c] for c in KEY), last))
        frame = pl.concat([self.existing, pl.DataFrame(added, schema=SCHEMA)], how="vertical")
        start = time.monotonic()
        self.store.write(frame)
        took = time.monotonic() - start
        self.frame = frame
        self.added = added
        self.written += len(self.pending)
        self.pending = []
        self.last_write = time.monotonic()
        self.interval = max(self.min_interval, 20.0 * took)

    def close(self) -> None:
        self.flush()


def read_stores(paths: Sequence[str | os.PathLike[str]]) -> pl.DataFrame:
    """The cells of one or more stores, as one table: results computed in separate runs (a learner
    added later, a tuned variant) compared on their common folds.

    The stores must share folds, repeats and seed (their folds are then the same rows, so the
    comparison stays paired), a data set name must mean the same file in all of them, and a cell
    may come from one store only (a learner label present in two is refused: it would be counted
    twice or mix two runs)."""
    frames: list[tuple[Path, pl.DataFrame]] = []
    seen: set[Path] = set()
    for path in paths:
        store = ResultStore(path)
        if store.path.resolve() in seen:
            raise ExperimentError(f"{store.path}: the store is given twice")
        seen.add(store.path.resolve())
        if not store.exists():
            raise ExperimentError(f"{store.path}: no such store (write one with `lrank experiment run`)")
        frame = store.read()
        if frame.is_empty():
            raise ExperimentError(f"{store.path}: the store holds no results yet")
        frames.append((store.path, frame))
    first_path, first = frames[0]
    protocol = first.row(0, named=True)
    files = dict(first.select("dataset", "dataset_sha256").unique(maintain_order=True).iter_rows())
    owner = dict.fromkeys(first.get_column("learner").unique(maintain_order=True), first_path)
    for path, frame in frames[1:]:
        row = frame.row(0, named=True)
        if any(row[c] != protocol[c] for c in ("folds", "repeats", "seed")):
            raise ExperimentError(
                f"{first_path} and {path} were made with other folds, repeats or seeds "
                f"({protocol['folds']}, {protocol['repeats']}, {protocol['seed']} against "
                f"{row['folds']}, {row['repeats']}, {row['seed']}): their results are not on the same folds"
            )
        for name, digest in frame.select("dataset", "dataset_sha256").unique(maintain_order=True).iter_rows():
            if files.setdefault(name, digest) != digest:
                raise ExperimentError(f"{first_path} and {path} hold different files named {name!r}")
        for label in frame.get_column("learner").unique(maintain_order=True):
            if label in owner:
                raise ExperimentError(
                    f"learner {label!r} is in both {owner[label]} and {path}: "
                    "give it another label in one of the runs (-W LABEL=SPEC)"
                )
            owner[label] = path
    return pl.concat([frame for _, frame in frames], how="vertical")
