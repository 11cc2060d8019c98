"""``lrank predict``: rankings for a data file from a saved model."""

from __future__ import annotations

import contextlib
import dataclasses
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import numpy as np
import polars as pl

from lrank.cli.common import jobs_option, kebi_label_names, replaced_when_written, user_errors
from lrank.data import DATA_SUFFIXES, LabelRankingDataset, read_dataset, write_dataset
from lrank.data.alignment import aligned_features
from lrank.data.parquet import read_parquet
from lrank.datasets import resolve
from lrank.model_file import load_model
from lrank.ranking_notation import format_rank_rows


@click.command("predict", context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "-l", "model_file", required=True, type=click.Path(dir_okay=False), help="Model file written by `lrank train -d`."
)
@click.option(
    "-T",
    "data_file",
    required=True,
    type=click.Path(dir_okay=False),
    help="Data to rank: XARFF/ARFF (a RANKING attribute is optional), KEBI CSV, or Parquet "
    "(read and ranked a slice at a time: memory stays bounded with text output).",
)
@click.option(
    "-o",
    "out",
    type=click.Path(dir_okay=False),
    help="Write here (default: stdout): one ranking per line as text, or, for a name ending in .parquet, "
    ".xarff, .arff or .csv, the data with its rankings replaced by the predicted ones, in that format "
    "(read back by lrank info, lrank train -T and read_dataset).",
)
@jobs_option("Threads (default: all cores, or OMP_NUM_THREADS if set).")
@click.option(
    "--confidence",
    is_flag=True,
    help="Append each row's confidence after a tab: IBLR and LRT the Mallows spread theta (inf when "
    "the rankings agree), IBPL the predicted ranking's Plackett-Luce probability; other learners "
    "have none. Text output only.",
)
def predict_command(model_file: str, data_file: str, out: str | None, jobs: int | None, confidence: bool) -> None:
    """Write one predicted ranking per row of the data file, as a>b>c (most preferred first; label
    names quoted where they hold > = | or blanks), or the data with the predicted rankings."""
    if out == "-":
        out = None  # the usual name of standard output
    if data_file == "-":
        raise click.BadParameter(
            "lrank predict reads a data file, not standard input: save the data and give its path",
            param_hint="-T",
        )
    as_data = out is not None and Path(out).suffix.lower() in DATA_SUFFIXES
    if out is not None and Path(out).suffix.lower() in _UNWRITTEN_FORMATS:
        # Text lines under a name that promises another format would mislead whoever reads it.
        raise click.BadParameter(
            f"{out}: lrank predict writes no {Path(out).suffix} file: name it .txt (or without a suffix) for one "
            "ranking per line, or .parquet, .xarff, .arff or .csv for the data with the predicted rankings",
            param_hint="-o",
        )
    if as_data and confidence:
        raise click.BadParameter(
            f"{out}: confidences are written beside text rankings only (name the output .txt)",
            param_hint="--confidence",
        )
    with user_errors():
        loaded = load_model(model_file)
        if jobs is not None:
            loaded.estimator.set_params(n_jobs=jobs)
        if confidence and not hasattr(loaded.estimator, "predict_with_confidence"):
            raise click.ClickException(f"learner {loaded.learner} gives no per-row confidence")
        path = resolve(data_file)
        if as_data and out is not None:
            parts = [
                with_rankings(
                    _same_labels(data, loaded.labels),
                    loaded.labels,
                    loaded.estimator.predict(aligned_features(loaded.attributes, data)),
                )
                for data in _batches(path)
            ]
            written, note = kebi_label_names(concatenated(parts), out)
            with _naming(out), replaced_when_written(out) as temporary:
                write_dataset(written, temporary)
            if note is not None:
                click.echo(note, err=True)
            return
        # A plain file OUT is written under another name and takes its place at the end: a bad
        # data file (even in a later Parquet slice) or Ctrl-C leaves it as it was.
        if out is None:
            _write_rankings(_batches(path), loaded, confidence, None)
            return
        with _naming(out), replaced_when_written(out) as temporary, open(temporary, "w", encoding="utf-8") as fh:
            _write_rankings(_batches(path), loaded, confidence, fh)


def _write_rankings(batches: Iterator[LabelRankingDataset], loaded: Any, confidence: bool, fh: Any) -> None:
    """One predicted ranking per row of every slice, to ``fh`` or stdout (None)."""
    for data in batches:
        x = aligned_features(loaded.attributes, _same_labels(data, loaded.labels))
        if confidence:
            pred, conf = loaded.estimator.predict_with_confidence(x)
            rows = format_rank_rows(pred, loaded.labels, quoted=True)
            lines = [f"{row}\t{c:.6g}" for row, c in zip(rows, conf)]
        else:
            lines = format_rank_rows(loaded.estimator.predict(x), loaded.labels, quoted=True)
        text = "".join(line + "\n" for line in lines)
        if fh is not None:
            fh.write(text)
        else:
            click.echo(text, nl=False)


# Suffixes of formats lrank predict does not write (text lines would go out under their name).
_UNWRITTEN_FORMATS = {".json", ".jsonl", ".ndjson", ".arrow", ".feather", ".ipc", ".xlsx", ".xls", ".orc", ".avro"}
_UNWRITTEN_FORMATS |= {".pkl", ".pickle", ".npy", ".npz", ".lrm", ".h5", ".hdf5"}


def _same_labels(data: LabelRankingDataset, labels: list[str]) -> LabelRankingDataset:
    """``data``, after a warning if it holds rankings of other labels than the model's (the
    wrong model, or the wrong file): they are not read, and the output holds the model's."""
    if data.labels and set(data.labels) != set(labels):
        warnings.warn(
            f"{data.source}: its rankings are of labels {list(data.labels)}, the model ranks {labels}: "
            "the predictions rank the model's labels",
            UserWarning,
            stacklevel=2,
        )
    return data


@contextlib.contextmanager
def _naming(out: str | None) -> Iterator[None]:
    """Errors writing OUT name it (a full disk's OSError carries no file name)."""
    try:
        yield
    except OSError as exc:
        if out is None or exc.filename is not None:
            raise
        raise click.ClickException(f"{out}: cannot write: {exc.strerror or exc}") from None


def with_rankings(data: LabelRankingDataset, labels: list[str], rankings: np.ndarray) -> LabelRankingDataset:
    """``data`` with ``rankings`` of ``labels`` in place of its own (if any)."""
    taken = {a.name for a in data.attributes}
    name = data.ranking_name
    while name in taken:  # a file without rankings may have a feature of the default name
        name = "_" + name
    return dataclasses.replace(
        data, labels=tuple(labels), rankings=rankings, partial_orders={}, ranking_name=name, lines=None
    )


def concatenated(parts: list[LabelRankingDataset]) -> LabelRankingDataset:
    """The batches of one file as one data set."""
    if len(parts) == 1:
        return parts[0]
    rankings = [p.rankings for p in parts if p.rankings is not None]
    return dataclasses.replace(
        parts[0],
        features=pl.concat([p.features for p in parts]),
        rankings=np.concatenate(rankings),
        weights=np.concatenate([p.weights for p in parts]),
    )


# Rows of a Parquet file predicted at a time: memory stays bounded however large the file.
PARQUET_BATCH_ROWS = 65_536


def _batches(path: Path) -> Iterator[LabelRankingDataset]:
    """The data file whole, or a Parquet file a slice of rows at a time."""
    if path.suffix.lower() != ".parquet":
        yield read_dataset(path, require_rankings=False)
        return
    # The first slice checks the whole file (read_parquet verifies it before decoding), and then
    # its row count (from the footer) says where to stop: a slice past the end is no data set.
    offset = 0
    while True:
        batch = read_parquet(path, require_rankings=False, rows=(offset, PARQUET_BATCH_ROWS))
        yield batch
        if offset == 0:
            total = pl.scan_parquet(path).select(pl.len()).collect().item()
        offset += PARQUET_BATCH_ROWS
        if batch.n_rows < PARQUET_BATCH_ROWS or offset >= total:
            return
