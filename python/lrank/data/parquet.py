"""Label-ranking data sets as Parquet files (Polars).

Layout of a file written by :func:`write_parquet`:

* one column per feature attribute, in order: numeric as ``Float64``, nominal as ``Enum`` of the
  declared values (declared order kept), string as ``String``; missing values are nulls;
* the ranking column (named like the XARFF ranking attribute, ``L`` by default) of type
  ``List(List(String))``: each row's preference as chains of label names, most preferred first.
  An ordinary (possibly incomplete) ranking is one chain, ``a>b|c>d`` is two chains; so
  incomplete rankings and partial orders round-trip exactly.  Data with ties (bucket orders) is
  written as format version 2, whose ranking column is ``List(List(List(String)))``: chains of
  buckets of label names (``a>b=c`` is ``[[["a"], ["b", "c"]]]``); data without ties keeps
  version 1, so its files read in older lrank versions too;
* a weight column, only when some instance weight is not 1;
* the file-level key-value metadata entry ``lrank``: JSON with the format name and version, the
  relation name, the label names (in order), the attributes (name, kind, declared values), and
  the names of the ranking and weight columns.

A file without that metadata entry (written by pandas, pyarrow, another tool) is read by the KEBI
column layout: see :mod:`lrank.data.plain_parquet`. Files carry a checksum
and are read through :mod:`lrank.parquet_io`: a damaged file is refused before Polars decodes it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from lrank import _core
from lrank.data.dataset import (
    Attribute,
    LabelRankingDataset,
    check_writable,
    first_invalid_rank_row,
    free_name,
    rank_row_from_chains,
)
from lrank.data.plain_parquet import pandas_index_columns, read_plain_parquet
from lrank.errors import DataFormatError, InvalidInputError
from lrank.parquet_io import read_verified, read_verified_rows, write_checksummed
from lrank.quoting import MalformedTextError
from lrank.ranking_notation import check_acyclic, format_chains, label_indices, preference_chains

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "METADATA_KEY", "read_parquet", "write_parquet"]

METADATA_KEY = "lrank"
FORMAT_NAME = "lrank-dataset"
FORMAT_VERSION = 1
TIES_FORMAT_VERSION = 2  # the ranking column holds buckets: written only for data with ties
_BUCKETS = pl.List(pl.List(pl.List(pl.String)))


def _buckets_of(dataset: LabelRankingDataset) -> pl.Series:
    """Each row as chains of buckets of label names (version 2)."""
    assert dataset.rankings is not None
    if not dataset.partial_orders:
        # One chain per row: built by Polars, not row by row in Python (a million rows in a second).
        buckets = _ordered_labels(dataset).group_by("row", "pos", maintain_order=True).agg(pl.col("label"))
        return _one_chain(buckets.group_by("row", maintain_order=True).agg(pl.col("label")))
    labels = dataset.labels
    out: list[list[list[list[str]]]] = []
    for i, row in enumerate(dataset.rankings):
        chains = dataset.partial_orders.get(i)
        if chains is not None:
            out.append([[[labels[j]] for j in c] for c in chains])
            continue
        order = sorted((int(p), j) for j, p in enumerate(row) if p > 0)
        buckets_of_row: list[list[str]] = []
        for k, (p, j) in enumerate(order):
            if k == 0 or p != order[k - 1][0]:
                buckets_of_row.append([])
            buckets_of_row[-1].append(labels[j])
        out.append([buckets_of_row])
    return pl.Series(out, dtype=_BUCKETS)


def _chains_of(dataset: LabelRankingDataset) -> pl.Series:
    assert dataset.rankings is not None
    if not dataset.partial_orders:
        return _one_chain(_ordered_labels(dataset).group_by("row", maintain_order=True).agg(pl.col("label")))
    labels = dataset.labels
    chains = [
        [[labels[j] for j in c] for c in chains]
        for chains in preference_chains(dataset.rankings, dataset.partial_orders)
    ]
    return pl.Series(chains, dtype=pl.List(pl.List(pl.String)))


def _ordered_labels(dataset: LabelRankingDataset) -> pl.DataFrame:
    """The labels each row ranks, one per line (row, position, label name), by row, then
    position, then label index: the order of the rows' chains and buckets."""
    assert dataset.rankings is not None
    n, m = dataset.rankings.shape
    frame = pl.DataFrame(
        {
            "row": np.repeat(np.arange(n, dtype=np.int64), m),
            "pos": dataset.rankings.ravel(),
            "label": pl.Series(list(dataset.labels), dtype=pl.String).gather(np.tile(np.arange(m), n)),
        }
    )
    # A stable sort: labels of one position (a bucket) stay in label order.
    return frame.filter(pl.col("pos") > 0).sort("row", "pos", maintain_order=True)


def _one_chain(rows: pl.DataFrame) -> pl.Series:
    """Each row's list (a chain) wrapped as the one chain of the row."""
    return rows.group_by("row", maintain_order=True).agg(pl.col("label")).get_column("label")


def write_parquet(dataset: LabelRankingDataset, path: str | os.PathLike[str]) -> None:
    """Write ``dataset`` as Parquet (layout in the module docstring); :func:`read_parquet` reads
    it back to an equal data set."""
    ds = dataset
    check_writable(ds)
    if ds.rankings is not None:
        bad = first_invalid_rank_row(ds.rankings)
        if bad is not None:
            raise InvalidInputError(f"row {bad} of the rank matrix is not a valid ranking")
    taken = {a.name for a in ds.attributes}
    columns: dict[str, pl.Series] = {
        a.name: ds.features.get_column(a.name).cast(a.polars_dtype()) for a in ds.attributes
    }
    ranking_column: str | None = None
    version = FORMAT_VERSION
    if ds.rankings is not None:
        if ds.ranking_name in taken:
            raise InvalidInputError(f"ranking name {ds.ranking_name!r} clashes with a feature name")
        ranking_column = ds.ranking_name
        taken.add(ranking_column)
        r = ds.rankings
        if r.size and np.any(r.max(axis=1) < (r > 0).sum(axis=1)):  # some row has ties
            version = TIES_FORMAT_VERSION
            columns[ranking_column] = _buckets_of(ds).cast(_BUCKETS).alias(ranking_column)
        else:
            columns[ranking_column] = _chains_of(ds).cast(pl.List(pl.List(pl.String))).alias(ranking_column)
    weight_column: str | None = None
    if np.any(ds.weights != 1.0):
        weight_column = free_name("weight", taken)
        columns[weight_column] = pl.Series(weight_column, ds.weights, dtype=pl.Float64)
    meta: dict[str, Any] = {
        "format": FORMAT_NAME,
        "version": version,
        "relation": ds.relation,
        "labels": list(ds.labels),
        "attributes": [
            {"name": a.name, "kind": a.kind, "values": None if a.values is None else list(a.values)}
            for a in ds.attributes
        ],
        "ranking_column": ranking_column,
        "weight_column": weight_column,
        "rows": ds.n_rows,
    }
    if not columns:
        raise InvalidInputError("cannot write a data set without attributes and rankings")
    frame = pl.DataFrame(columns)  # a dict keeps empty column names (a list of Series would not)
    write_checksummed(frame, path, {METADATA_KEY: json.dumps(meta)})


def read_parquet(
    path: str | os.PathLike[str], *, require_rankings: bool = True, rows: tuple[int, int] | None = None
) -> LabelRankingDataset:
    """Read a Parquet data set written by :func:`write_parquet` (or any writer that follows its
    layout and metadata). Problems raise :class:`DataFormatError` naming the file (and the row).
    ``rows=(offset, length)`` reads only those rows (the row groups that hold them), so a large
    file can be read a slice at a time."""
    spath = os.fspath(path)

    def fail(problem: str) -> DataFormatError:
        return DataFormatError(spath, None, problem)

    if not Path(spath).exists():
        raise fail("file not found")
    if Path(spath).is_dir():
        raise fail("is a directory, not a data file")
    if rows is None:
        frame, raw_meta = read_verified(spath, fail)
    else:
        frame, raw_meta = read_verified_rows(spath, fail, rows)
    text = raw_meta.get(METADATA_KEY)
    if text is None:  # another tool's file: read by the KEBI column layout
        index = pandas_index_columns(raw_meta.get("pandas"))
        return read_plain_parquet(frame, spath, fail, require_rankings=require_rankings, index_columns=index)
    try:
        meta = json.loads(text)
    except json.JSONDecodeError as exc:
        raise fail(f"the lrank metadata is not valid JSON: {exc}") from None
    except RecursionError:
        raise fail("the lrank metadata is not valid JSON: nested too deep") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise fail(f"the lrank metadata does not describe a data set (format {FORMAT_NAME!r})")
    version = meta.get("version")
    if version not in (FORMAT_VERSION, TIES_FORMAT_VERSION):
        raise fail(
            f"data set format version {version!r} is not supported (expected {FORMAT_VERSION} or {TIES_FORMAT_VERSION})"
        )
    try:
        attributes = [
            Attribute(a["name"], a["kind"], None if a["values"] is None else tuple(a["values"]))
            for a in meta["attributes"]
        ]
        labels = tuple(meta["labels"])
        ranking_column = meta["ranking_column"]
        weight_column = meta["weight_column"]
        relation = meta["relation"]
        if not all(isinstance(v, str) for v in (*labels, relation)):
            raise TypeError("labels and the relation must be names")
        if not all(c is None or isinstance(c, str) for c in (ranking_column, weight_column)):
            raise TypeError("the ranking and weight columns must be names")
        if len(set(labels)) != len(labels):
            raise TypeError("a label is named twice")
    except (KeyError, TypeError, InvalidInputError) as exc:
        raise fail(f"the lrank metadata is incomplete or malformed: {exc}") from None

    expected = [a.name for a in attributes] + [c for c in (ranking_column, weight_column) if c is not None]
    if frame.columns != expected:
        raise fail(f"columns {frame.columns} do not match the metadata's {expected}")
    n = frame.height
    if n == 0:
        raise fail("no rows (a data set needs at least one)")
    series = []
    for a in attributes:
        col = frame.get_column(a.name)
        want = a.polars_dtype()
        if col.dtype != want:
            try:
                col = col.cast(want, strict=True)
            except Exception:
                raise fail(
                    f"column {a.name!r} has type {col.dtype}, expected {want} for a {a.kind} attribute"
                ) from None
        if a.kind == "numeric":
            infinite = col.is_infinite()
            if infinite.any():
                raise fail(f"row {int(infinite.arg_true()[0]) + 1}: infinite value in column {a.name!r}")
            col = col.fill_nan(None)
        series.append(col)
    features = pl.DataFrame({s.name: s for s in series})

    rankings: np.ndarray | None = None
    partial: dict[int, tuple[tuple[int, ...], ...]] = {}
    if ranking_column is None:
        if require_rankings:
            raise fail("the data set has no rankings")
    else:
        column = frame.get_column(ranking_column)
        if version == TIES_FORMAT_VERSION:
            rankings, partial = _read_buckets(column, labels, fail)
        else:
            rankings, partial = _read_rankings(column, labels, fail)

    weights = np.ones(n, dtype=np.float64)
    if weight_column is not None:
        w = frame.get_column(weight_column)
        if w.null_count():
            raise fail(f"weight column {weight_column!r} holds nulls")
        if not w.dtype.is_numeric():
            raise fail(f"weight column {weight_column!r} has type {w.dtype}, expected Float64")
        weights = w.cast(pl.Float64).to_numpy().astype(np.float64)
        if not np.all(np.isfinite(weights)) or np.any(weights < 0):
            raise fail("weights must be finite and non-negative")
    try:
        return LabelRankingDataset(
            relation=relation,
            attributes=attributes,
            features=features,
            labels=labels,
            rankings=rankings,
            weights=weights,
            partial_orders=partial,
            source=spath,
            ranking_name=ranking_column if ranking_column is not None else "L",
        )
    except InvalidInputError as exc:  # the columns and the metadata disagree in a way not caught above
        raise fail(str(exc)) from None


def _read_rankings(
    col: pl.Series, labels: tuple[str, ...], fail: Any
) -> tuple[np.ndarray, dict[int, tuple[tuple[int, ...], ...]]]:
    if col.dtype != pl.List(pl.List(pl.String)):
        raise fail(f"ranking column {col.name!r} has type {col.dtype}, expected List(List(String))")
    index = {lab: j for j, lab in enumerate(labels)}
    m = len(labels)
    try:
        _core.check_allocation("the rank matrix", [col.len(), m], 4)
    except InvalidInputError as exc:
        raise fail(str(exc)) from None
    rankings = np.zeros((col.len(), m), dtype=np.int32)
    partial: dict[int, tuple[tuple[int, ...], ...]] = {}
    for i, chains in enumerate(col.to_list()):
        where = f"row {i + 1}: "
        if not chains or any(not c for c in chains):
            raise fail(where + "empty ranking or empty chain (a ranking needs at least one label)")
        try:
            idx_chains = label_indices(chains, index)
            if len(idx_chains) > 1:
                check_acyclic(idx_chains, format_chains(idx_chains, labels))
        except MalformedTextError as exc:
            raise fail(where + str(exc)) from None
        if len(idx_chains) > 1:
            partial[i] = idx_chains
        rankings[i] = rank_row_from_chains(idx_chains, m)  # the first longest chain, as the XARFF reader keeps
    return rankings, partial


def _read_buckets(
    col: pl.Series, labels: tuple[str, ...], fail: Any
) -> tuple[np.ndarray, dict[int, tuple[tuple[int, ...], ...]]]:
    """Version 2: chains of buckets. A single chain is a bucket order; several chains are a
    partial order, whose buckets must hold one label each."""
    if col.dtype != _BUCKETS:
        raise fail(f"ranking column {col.name!r} has type {col.dtype}, expected {_BUCKETS} (format version 2)")
    index = {lab: j for j, lab in enumerate(labels)}
    m = len(labels)
    rankings = np.zeros((col.len(), m), dtype=np.int32)
    partial: dict[int, tuple[tuple[int, ...], ...]] = {}
    for i, chains in enumerate(col.to_list()):
        where = f"row {i + 1}: "
        if not chains or any(not c for c in chains) or any(not b for c in chains for b in c):
            raise fail(where + "empty ranking, chain or bucket (a ranking needs at least one label)")
        try:
            if len(chains) > 1:
                if any(len(b) > 1 for c in chains for b in c):
                    raise MalformedTextError("a tie cannot be part of a partial order (several chains)")
                idx_chains = label_indices([[b[0] for b in c] for c in chains], index)
                check_acyclic(idx_chains, format_chains(idx_chains, labels))
                partial[i] = idx_chains
                rankings[i] = rank_row_from_chains(idx_chains, m)
                continue
            flat = label_indices([[name for b in chains[0] for name in b]], index)[0]
        except MalformedTextError as exc:
            raise fail(where + str(exc)) from None
        k = 0
        for position, bucket in enumerate(chains[0], start=1):
            rankings[i, list(flat[k : k + len(bucket)])] = position
            k += len(bucket)
    return rankings, partial
