"""The partitions of the data ``lrank.dask`` takes, as tasks a worker turns into arrays.

Data: a Dask DataFrame (feature columns and label-position columns), a pair of Dask arrays
``(X, y)`` chunked alike along the rows, or a directory of Parquet files (each file one
partition, read by the worker that needs it). Label columns are named, or are the trailing
columns ``L1``, ``L2``, ... of the KEBI layout.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import numpy as np

from lrank.dask.cluster import DaskError


def partitions(data: Any) -> list[Any]:
    """One delayed object (or path) per partition."""
    if isinstance(data, (str, os.PathLike)):
        directory = Path(data)
        files = sorted(directory.glob("*.parquet")) if directory.is_dir() else []
        if not files:
            raise DaskError(f"{directory}: no Parquet files in this directory")
        return [str(f) for f in files]
    if isinstance(data, tuple) and len(data) == 2:
        x, y = data
        if not (hasattr(x, "to_delayed") and hasattr(y, "to_delayed")):
            raise DaskError("(X, y) must be Dask arrays")
        if x.chunks[0] != y.chunks[0]:
            raise DaskError("X and y must be chunked alike along the rows (y.rechunk(X.chunks[0]))")
        if len(x.chunks[1]) != 1 or len(y.chunks[1]) != 1:
            raise DaskError("X and y must be chunked along the rows only (one chunk of columns)")
        return [(a, b) for a, b in zip(x.to_delayed().ravel(), y.to_delayed().ravel())]
    if hasattr(data, "to_delayed") and hasattr(data, "columns"):
        return list(data.to_delayed())
    raise DaskError("give a Dask DataFrame, a pair of Dask arrays (X, y) or a directory of Parquet files")


def _frame(part: Any) -> Any:
    import polars as pl

    if isinstance(part, str):
        return pl.read_parquet(part)
    return pl.from_pandas(part) if not isinstance(part, pl.DataFrame) else part


def kebi_label_columns(columns: list[str]) -> list[str]:
    """The trailing run of columns named L1, L2, ..., Lm (the KEBI layout)."""
    names = []
    for name in reversed(columns):
        if not re.fullmatch(r"L\d+", name):
            break
        names.append(name)
    names.reverse()
    if not names:
        raise DaskError(
            f"no label columns: name them (label_columns=...) or use the KEBI layout L1..Lm; columns: {columns}"
        )
    return names


def arrays(
    part: Any, label_columns: list[str] | None, feature_columns: list[str] | None
) -> tuple[Any, Any, list[str], list[str] | None]:
    """(X, y or None, feature names, label names) of one partition; X a Polars frame
    (categorical columns stay categorical) or an array, y a rank matrix."""
    if isinstance(part, tuple):
        x, y = part
        return np.asarray(x, dtype=np.float64), np.asarray(y), [], None
    frame = _frame(part)
    labels = label_columns if label_columns is not None else kebi_label_columns(frame.columns)
    features = feature_columns if feature_columns is not None else [c for c in frame.columns if c not in labels]
    missing = [c for c in [*features, *labels] if c not in frame.columns]
    if missing:
        raise DaskError(f"columns {missing} are not in the data (columns: {frame.columns})")
    y = frame.select(labels).to_numpy() if labels else None
    return frame.select(features), y, features, list(labels)


def rows(part: Any) -> int:
    if isinstance(part, str):
        import polars as pl

        return int(pl.scan_parquet(part).select(pl.len()).collect().item())
    if isinstance(part, tuple):
        return int(len(part[0]))
    return int(len(part))


def categories_of(part: Any, label_columns: list[str] | None, feature_columns: list[str] | None) -> list[Any]:
    """On a worker: per feature column, None (numbers) or (its declared categories, or None, and
    the categories this partition holds, in the order a local fit codes them)."""
    import polars as pl

    from lrank.estimators._inputs import _categories_in_order, _is_polars_categorical

    x = arrays(part, label_columns, feature_columns)[0]
    if isinstance(x, np.ndarray):
        return [None] * x.shape[1]
    out: list[Any] = []
    for name in x.columns:
        col = x.get_column(name)
        if not _is_polars_categorical(col.dtype):
            out.append(None)  # numbers (or what the fit then refuses)
            continue
        declared = list(col.dtype.categories) if isinstance(col.dtype, pl.Enum) else None
        out.append((declared, _categories_in_order(col)))
    return out


def union_categories(per_partition: list[list[Any]]) -> list[list[Any] | None] | None:
    """The categories of each column over all partitions, coded as one local fit on all their
    rows codes them (declared ones in their order, the rest sorted); None without any: a
    partition that lacks a category then codes the others as the rest do."""
    if not per_partition or all(c is None for c in per_partition[0]):
        return None
    union: list[list[Any] | None] = []
    for j, first in enumerate(per_partition[0]):
        if first is None:
            union.append(None)
            continue
        present = {c for part in per_partition if part[j] is not None for c in part[j][1]}
        declared = first[0]
        union.append([c for c in declared if c in present] if declared is not None else sorted(present))
    return union


def _may_hold_categories(data: Any, parts: list[Any]) -> bool:
    """Whether a column of the data can be categorical, from its schema alone: arrays cannot,
    Parquet files say so in their footers, a Dask DataFrame in its dtypes (numbers and booleans
    cannot; anything else is looked at, partition by partition)."""
    import polars as pl

    from lrank.estimators._inputs import _is_polars_categorical

    if isinstance(data, tuple):
        return False
    if isinstance(data, (str, os.PathLike)):
        return any(_is_polars_categorical(t) for part in parts for t in pl.read_parquet_schema(part).values())
    dtypes = getattr(data, "dtypes", None)
    if dtypes is None:
        return True
    return not all(isinstance(t, np.dtype) and t.kind in "biuf" for t in dtypes)


def known_categories(client: Any, data: Any, parts: list[Any], label_columns: Any, feature_columns: Any) -> Any:
    """The categories of every partition's categorical columns, as one local fit codes them (a
    pass over the partitions before the fit, skipped when no column can be categorical)."""
    import dask

    if not _may_hold_categories(data, parts):
        return None
    found = client.gather(
        client.compute([dask.delayed(categories_of)(p, label_columns, feature_columns) for p in parts])
    )
    return union_categories(found)


def column_names(data: Any) -> list[str] | None:
    """The columns of a Dask DataFrame or of a directory's first Parquet file, read on the
    driver (so a wrong name is one line here, not a traceback from every worker); None for arrays."""
    if isinstance(data, (str, os.PathLike)):
        import polars as pl

        files = sorted(Path(data).glob("*.parquet")) if Path(data).is_dir() else []
        return list(pl.read_parquet_schema(files[0]).keys()) if files else None
    if hasattr(data, "columns") and not isinstance(data, tuple):
        return [str(c) for c in data.columns]
    return None


def check_columns(data: Any, wanted: list[str], what: str, columns: list[str] | None = None) -> None:
    """Refuses, on the driver, ``wanted`` columns the data (whose ``columns`` may be known) does not have."""
    columns = column_names(data) if columns is None else columns
    if columns is None:
        return
    missing = [c for c in wanted if c not in columns]
    if missing:
        raise DaskError(f"{what} {missing} are not in the data (columns: {columns})")


def check_fit_columns(data: Any, label_columns: list[str] | None, feature_columns: list[str] | None) -> None:
    """The label and feature columns a fit reads, checked on the driver."""
    columns = column_names(data)
    if columns is None:
        return
    labels = label_columns if label_columns is not None else kebi_label_columns(columns)
    check_columns(data, [*labels, *(feature_columns or [])], "columns", columns)
