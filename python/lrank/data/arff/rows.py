"""The XARFF data section: the rows after ``@data``, their instance weights, and the typed
columns (feature series, rank matrix, partial orders) built from them.

A row without quotes, comments or braces (the common case) is split by one regular expression;
any other row goes through :func:`lrank.data.arff.lexer.tokenize_row`.  Rankings are parsed by
:mod:`lrank.ranking_notation`, once per distinct ranking text.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from lrank.data.arff.dates import DatePattern
from lrank.data.arff.header import Header
from lrank.data.arff.lexer import NEEDS_LEXER, PLAIN_SEPARATORS, tokenize_row, value_of
from lrank.data.dataset import Attribute, check_rank_matrix_size, numeric_columns
from lrank.errors import DataFormatError
from lrank.quoting import MalformedTextError
from lrank.ranking_notation import EMPTY_RANKING, Chains, parse_rank_row

__all__ = ["DataRows", "build_columns", "read_rows"]


@dataclass(frozen=True)
class DataRows:
    """The data section as text: one tuple of values per column (None = missing ``?``; the
    ranking column holds the raw ranking text), the line of each row and the instance weights."""

    columns: list[tuple[str | None, ...]]
    lines: list[int]
    weights: np.ndarray


def read_rows(path: str, lines: list[str], header: Header) -> DataRows:
    """Read the data rows that follow ``@data`` (line ``header.data_line``) in ``lines``.

    Raises :class:`lrank.errors.DataFormatError` naming the file and the line.
    """
    ncol = len(header.column_kinds)
    rank_col = header.rank_col
    rows: list[list[str | None]] = []
    row_lines: list[int] = []
    weights: dict[int, float] = {}
    needs_lexer = NEEDS_LEXER.search
    for k in range(header.data_line, len(lines)):
        s = lines[k].strip()
        if not s or s[0] == "%":
            continue
        try:
            if needs_lexer(s) is None:
                toks = _plain_row(s, ncol, rank_col)
            else:
                toks, weight = _lexed_row(s, ncol, rank_col)
                if weight is not None:
                    weights[len(rows)] = weight
        except MalformedTextError as exc:
            raise DataFormatError(path, k + 1, str(exc)) from None
        rows.append(toks)
        row_lines.append(k + 1)
    if not rows:
        raise DataFormatError(path, header.data_line, "no data rows after @data")
    w_arr = np.ones(len(rows), dtype=np.float64)
    for i, w in weights.items():
        w_arr[i] = w
    return DataRows(columns=list(zip(*rows)), lines=row_lines, weights=w_arr)


def _plain_row(s: str, ncol: int, rank_col: int | None) -> list[str | None]:
    """Values of a row that holds no quote, comment or brace."""
    if s[0] == "@":
        raise MalformedTextError(f"header line {s.split()[0]!r} after @data")
    toks: list[str | None] = PLAIN_SEPARATORS.split(s)
    if "?" in s:
        toks = [None if t == "?" else t for t in toks]
    if len(toks) != ncol or "" in toks:
        if rank_col is not None and len(toks) == ncol and toks[rank_col] == "":
            raise MalformedTextError(EMPTY_RANKING)
        if "" in toks:
            raise MalformedTextError("empty value (two separators ',' with nothing between, or a ',' at the end)")
        raise MalformedTextError(f"wrong number of values: expected {ncol}, got {len(toks)}")
    return toks


def _lexed_row(s: str, ncol: int, rank_col: int | None) -> tuple[list[str | None], float | None]:
    """Values and instance weight (None if not given) of a row that needs the lexer."""
    raw, wtext = tokenize_row(s)
    if len(raw) != ncol:
        raise MalformedTextError(f"wrong number of values: expected {ncol}, got {len(raw)}")
    toks = [r if j == rank_col else value_of(r) for j, r in enumerate(raw)]
    if wtext is None:
        return toks, None
    try:
        w = float(wtext.strip())
    except ValueError:
        w = math.nan
    if not (math.isfinite(w) and w >= 0):
        raise MalformedTextError(f"instance weight {{{wtext}}} is not a finite non-negative number")
    return toks, w


def build_columns(
    path: str, header: Header, data: DataRows, *, rankings_optional: bool = False
) -> tuple[pl.DataFrame, np.ndarray | None, dict[int, Chains]]:
    """The feature table, the rank matrix (None without a RANKING attribute) and the partial
    orders of the rows.  Columns are checked in declaration order, so the first bad column of
    the file is the one reported. ``rankings_optional`` (data to predict): a ranking column that
    is ``?`` in every row, WEKA's unknown class, gives no rank matrix instead of an error."""
    series: list[pl.Series] = []
    attrs = iter(header.attributes)
    rankings: np.ndarray | None = None
    partial: dict[int, Chains] = {}
    numbers, numeric_error = _numeric_columns(path, header, data)
    for k, (kind, col) in enumerate(zip(header.column_kinds, data.columns)):
        if numeric_error is not None and k == numeric_error[0]:
            raise numeric_error[1]  # the first bad column in declaration order
        if numeric_error is not None and kind == "numeric":
            next(attrs)
            continue  # a numeric column before the first bad one is good
        if kind == "ranking":
            if rankings_optional and all(raw is None or raw == "?" for raw in col):
                continue
            rankings, partial = _rank_column(path, col, header.labels, data.lines)
            continue
        attr = next(attrs)
        if kind == "numeric":
            series.append(numbers[attr.name])
        elif kind == "date":
            series.append(_date_series(path, attr, header.date_patterns[k], col, data.lines))
        elif kind == "nominal":
            series.append(_nominal_series(path, attr, col, data.lines))
        else:
            series.append(pl.Series(attr.name, col, dtype=pl.Utf8))
    return pl.DataFrame({s.name: s for s in series}), rankings, partial


def _numeric_columns(
    path: str, header: Header, data: DataRows
) -> tuple[pl.DataFrame, tuple[int, DataFormatError] | None]:
    """Every numeric attribute's column, cast at once (a polars call per column made wide files
    slow); or the column (in file order) and error of the first bad value, raised by the caller
    when it reaches that column, so that an earlier bad nominal or ranking column comes first."""
    at = [k for k, kind in enumerate(header.column_kinds) if kind == "numeric"]
    feature_kinds = [kind for kind in header.column_kinds if kind != "ranking"]
    named = [a for a, kind in zip(header.attributes, feature_kinds) if kind == "numeric"]  # not DATE ones

    failed: list[int] = []

    def fail(i: int, j: int, problem: str) -> DataFormatError:
        failed.append(at[j])
        value = data.columns[at[j]][i]
        return DataFormatError(path, data.lines[i], f"{problem} {value!r} for numeric attribute {named[j].name!r}")

    try:
        return numeric_columns([a.name for a in named], [data.columns[k] for k in at], len(data.lines), fail), None
    except DataFormatError as err:
        return pl.DataFrame(), (failed[0], err)


def _date_series(
    path: str, attr: Attribute, pattern: DatePattern, col: tuple[str | None, ...], row_lines: list[int]
) -> pl.Series:
    """A ``DATE`` column as milliseconds since the epoch (UTC); each distinct text parsed once."""
    parsed: dict[str, float] = {}
    values: list[float | None] = []
    for i, v in enumerate(col):
        if v is None:
            values.append(None)
            continue
        ms = parsed.get(v)
        if ms is None:
            try:
                ms = parsed[v] = pattern.millis(v)
            except MalformedTextError as exc:
                raise DataFormatError(path, row_lines[i], f"attribute {attr.name!r}: {exc}") from None
        values.append(ms)
    return pl.Series(attr.name, values, dtype=pl.Float64)


def _nominal_series(path: str, attr: Attribute, col: tuple[str | None, ...], row_lines: list[int]) -> pl.Series:
    allowed = set(attr.values or ())
    for i, v in enumerate(col):
        if v is not None and v not in allowed:
            raise DataFormatError(
                path,
                row_lines[i],
                f"value {v!r} is not among the declared values of nominal attribute {attr.name!r}",
            )
    return pl.Series(attr.name, col, dtype=pl.Enum(list(attr.values or ())))


def _rank_column(
    path: str, col: tuple[str | None, ...], labels: tuple[str, ...], row_lines: list[int]
) -> tuple[np.ndarray, dict[int, Chains]]:
    """Rank matrix and partial orders of the ranking column; each distinct text is parsed once."""
    m = len(labels)
    # A row may name one label of a million declared: the matrix can outgrow the file.
    check_rank_matrix_size(path, row_lines[0] if row_lines else None, len(col), m)
    label_index = {name: j for j, name in enumerate(labels)}
    cache: dict[str, int] = {}
    table: list[np.ndarray] = []
    chain_table: list[Chains | None] = []
    ids = np.empty(len(col), dtype=np.intp)
    partial: dict[int, Chains] = {}
    for i, raw in enumerate(col):
        u = cache.get(raw) if raw is not None else None
        if u is None:
            if raw is None or raw == "?":
                raise DataFormatError(
                    path, row_lines[i], "missing ranking '?' (every row needs a ranking of at least one label)"
                )
            try:
                row, chains = parse_rank_row(raw, label_index, m)
            except MalformedTextError as exc:
                raise DataFormatError(path, row_lines[i], str(exc)) from None
            u = len(table)
            cache[raw] = u
            table.append(row)
            chain_table.append(chains)
        ids[i] = u
        ch = chain_table[u]
        if ch is not None:
            partial[i] = ch
    rankings = np.ascontiguousarray(np.asarray(table, dtype=np.int32).reshape(len(table), m)[ids])
    return rankings, partial
