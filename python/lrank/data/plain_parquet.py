"""Parquet files that another tool wrote (pandas, pyarrow, Polars, Spark): read by the KEBI layout.

A file without lrank's metadata is read as the KEBI CSV layout reads its columns: the trailing
columns named ``L<number>`` are the labels, holding each label's position in the row's ranking
(1 = most preferred, tied labels sharing one; 0 or null = label missing); every other column is
a feature. A feature column is numeric when its type is (integers, floats, booleans as 0/1; NaN
and null missing) and nominal when it holds text or categories (the values of an ``Enum`` in
their order, else the distinct values sorted). Dates and times are numeric, milliseconds since
1970-01-01 UTC (a time without a zone read as UTC), as lrank reads an ARFF ``DATE``. Columns of
another type (lists, binary, durations) are refused by name; pandas' saved index columns
(``__index_level_0__``, and a named index, which pandas writes last) are left out.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Callable

import numpy as np
import polars as pl

from lrank.data.dataset import Attribute, LabelRankingDataset, first_invalid_rank_row, free_name, relation_of
from lrank.data.kebi_csv import LABEL_COLUMN
from lrank.errors import DataFormatError, InvalidInputError
from lrank.rankings import zero_based_suspicion

__all__ = ["read_plain_parquet"]

# pandas writes a non-default index as columns of these names.
_PANDAS_INDEX = re.compile(r"__index_level_\d+__")

Fail = Callable[[str], DataFormatError]


def pandas_index_columns(pandas_metadata: str | None) -> frozenset[str]:
    """The columns that hold a pandas frame's index (its metadata's ``index_columns``): pandas
    writes a named index as the last column, after the labels (it hid them: 0 labels read)."""
    if pandas_metadata is None:
        return frozenset()
    try:
        listed = json.loads(pandas_metadata).get("index_columns", [])
    except (ValueError, AttributeError, RecursionError):
        return frozenset()
    return frozenset(c for c in listed if isinstance(c, str)) if isinstance(listed, list) else frozenset()


def read_plain_parquet(
    frame: pl.DataFrame,
    path: str,
    fail: Fail,
    *,
    require_rankings: bool = True,
    index_columns: frozenset[str] = frozenset(),
) -> LabelRankingDataset:
    """The data set in ``frame``, read from the Parquet file ``path`` that has no lrank metadata;
    ``index_columns`` (a pandas index) are left out."""
    frame = frame.select(c for c in frame.columns if not _PANDAS_INDEX.fullmatch(c) and c not in index_columns)
    names = frame.columns
    n_labels = 0
    while n_labels < len(names) and LABEL_COLUMN.fullmatch(names[len(names) - 1 - n_labels]):
        n_labels += 1
    if n_labels == 0 and require_rankings:
        raise fail(
            "Parquet file without lrank metadata and without label columns: name the label columns "
            "L1, L2, ... and put them last (each holds its label's position, 1 = most preferred), "
            "or write the file with `lrank convert`"
        )
    if frame.height == 0:
        raise fail("no rows (a data set needs at least one)")
    feature_names = names[: len(names) - n_labels]
    attributes, series = [], []
    for name in feature_names:
        attribute, column = _feature(frame.get_column(name), fail)
        attributes.append(attribute)
        series.append(column)
    labels = tuple(names[len(names) - n_labels :])
    rankings = _rank_matrix(frame.select(labels), fail) if labels else None
    suspicion = None if rankings is None else zero_based_suspicion(rankings, "the file")
    if suspicion is not None:
        warnings.warn(f"{path}: every ranking {suspicion}", UserWarning, stacklevel=2)
    try:
        return LabelRankingDataset(
            relation=relation_of(path),
            attributes=attributes,
            features=pl.DataFrame({s.name: s for s in series}),
            labels=labels,
            rankings=rankings,
            weights=np.ones(frame.height, dtype=np.float64),
            partial_orders={},
            source=path,
            ranking_name=free_name("L", set(feature_names)),
        )
    except InvalidInputError as exc:
        raise fail(str(exc)) from None


def _feature(column: pl.Series, fail: Fail) -> tuple[Attribute, pl.Series]:
    name, dtype = column.name, column.dtype
    if dtype == pl.Boolean or dtype.is_numeric():
        values = column.cast(pl.Float64)
        infinite = values.is_infinite()
        if infinite.any():
            raise fail(f"row {int(infinite.arg_true()[0]) + 1}: infinite value in column {name!r}")
        return Attribute(name, "numeric"), values.fill_nan(None)
    if dtype == pl.Date or isinstance(dtype, pl.Datetime):
        return Attribute(name, "numeric"), column.dt.epoch("ms").cast(pl.Float64)
    if isinstance(dtype, pl.Enum):
        categories = tuple(str(v) for v in dtype.categories.to_list())
        return Attribute(name, "nominal", categories), column
    if dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Categorical):
        text = column.cast(pl.String)
        categories = tuple(sorted(v for v in text.unique().to_list() if v is not None))
        return Attribute(name, "nominal", categories), text.cast(pl.Enum(list(categories)))
    raise fail(
        f"column {name!r} has type {dtype}, which is no feature lrank can use: make it a number "
        "or text before writing the file (or, if it is a label, name it L<number> and put it last)"
    )


def _rank_matrix(labels: pl.DataFrame, fail: Fail) -> np.ndarray:
    """The label columns as a rank matrix (null or 0: label missing), each row checked dense."""
    for column in labels.get_columns():
        if not (column.dtype.is_numeric() or column.dtype == pl.Null):
            raise fail(f"label column {column.name!r} has type {column.dtype}: it must hold positions (integers)")
    positions = labels.select(pl.all().cast(pl.Float64).fill_null(0.0).fill_nan(0.0)).to_numpy()
    integral = np.isfinite(positions) & (positions == np.round(positions)) & (positions >= 0)
    if not integral.all():
        i, j = (int(k) for k in np.argwhere(~integral)[0])
        raise fail(
            f"row {i + 1}: position {float(positions[i, j]):g} of label {labels.columns[j]!r} "
            "is not a whole number >= 0 (0 or null: label missing)"
        )
    ranks = positions.clip(max=np.iinfo(np.int32).max).astype(np.int32)
    bad = first_invalid_rank_row(ranks)
    if bad is not None:
        shown = ",".join(str(int(v)) for v in ranks[bad])
        distinct = np.unique(ranks[bad][ranks[bad] > 0]).size
        problem = (
            "empty ranking: no label has a position (a ranking needs at least one label)"
            if not (ranks[bad] > 0).any()
            else f"label positions {shown} are not dense: the {distinct} distinct positions must be 1..{distinct} "
            "(tied labels share one; 0 or null = label missing)"
        )
        raise fail(f"row {bad + 1}: {problem}")
    return np.ascontiguousarray(ranks)
