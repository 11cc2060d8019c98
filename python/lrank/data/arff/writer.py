"""``write_xarff``: a :class:`lrank.data.LabelRankingDataset` as XARFF that
:func:`lrank.data.arff.read_arff` reads back identically."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from lrank.data.dataset import Attribute, LabelRankingDataset, check_writable, first_invalid_rank_row
from lrank.errors import InvalidInputError
from lrank.quoting import quote
from lrank.ranking_notation import format_rank_rows

__all__ = ["write_xarff"]


def write_xarff(dataset: LabelRankingDataset, path: str | os.PathLike[str]) -> None:
    """Write ``dataset`` as XARFF so that :func:`read_arff` reads it back identically.

    The RANKING attribute is written last (if the data set has rankings).
    Floats are written with ``repr`` (exact round trip), missing values as
    ``?``, weights as a trailing ``{w}`` only where ``w != 1``, partial orders
    as their ``|``-separated chains.
    """
    ds = dataset
    _check_writable(ds)
    out = _header_lines(ds)
    text_cols = [_value_texts(ds, a) for a in ds.attributes]
    if ds.rankings is not None:
        text_cols.append(format_rank_rows(ds.rankings, ds.labels, ds.partial_orders, quoted=True))
    w = ds.weights
    for i, fields in enumerate(zip(*text_cols)):
        line = ",".join(fields)
        if w[i] != 1.0:
            line += ",{" + _fmt_float(w[i]) + "}"
        out.append(line)
    Path(os.fspath(path)).write_text("\n".join(out) + "\n", encoding="utf-8")


def _check_writable(ds: LabelRankingDataset) -> None:
    check_writable(ds)
    if ds.rankings is None and not ds.attributes:
        raise InvalidInputError("cannot write a data set without attributes")
    if ds.rankings is not None:
        bad = first_invalid_rank_row(ds.rankings)
        if bad is not None:
            raise InvalidInputError(f"row {bad} of the rank matrix is not a valid ranking")
        if not ds.labels:
            raise InvalidInputError("a data set with rankings needs at least one label")


def _header_lines(ds: LabelRankingDataset) -> list[str]:
    """``@relation``, the ``@attribute`` lines (RANKING last) and ``@data``."""
    out: list[str] = [f"@relation {quote(ds.relation)}", ""]
    for a in ds.attributes:
        if a.kind == "numeric":
            t = "NUMERIC"
        elif a.kind == "string":
            t = "STRING"
        else:
            t = "{" + ",".join(quote(v) for v in a.values or ()) + "}"
        out.append(f"@attribute {quote(a.name)} {t}")
    if ds.rankings is not None:
        out.append(f"@attribute {quote(ds.ranking_name)} RANKING {{{','.join(quote(l) for l in ds.labels)}}}")
    out += ["", "@data"]
    return out


def _value_texts(ds: LabelRankingDataset, a: Attribute) -> list[str]:
    """The values of attribute ``a`` as written in the data rows."""
    col = ds.features.get_column(a.name)
    if a.kind == "numeric":
        return ["?" if v is None or v != v else _fmt_float(v) for v in col.cast(pl.Float64).to_list()]
    cache: dict[str, str] = {}
    txt = []
    for v in col.cast(pl.Utf8).to_list():
        if v is None:
            txt.append("?")
        else:
            q = cache.get(v)
            if q is None:
                q = cache[v] = quote(v)
            txt.append(q)
    return txt


def _fmt_float(x: float) -> str:
    return repr(float(x))
