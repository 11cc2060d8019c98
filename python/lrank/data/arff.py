"""ARFF / XARFF reader and XARFF writer.

The accepted syntax is WEKA's ARFF as extended by WEKA-LR (XARFF):

* ``@relation NAME``, then ``@attribute NAME TYPE`` lines, then ``@data``.
  Keywords and type names are case-insensitive; names may be quoted with
  ``'`` or ``"`` (backslash escapes ``\\\\ \\' \\" \\n \\r \\t`` inside quotes).
* TYPE is ``numeric``/``real``/``integer`` (all read as float64), ``string``,
  a nominal list ``{v1,v2,...}`` or ``RANKING {l1,l2,...}`` (the labels).
  ``date`` and ``relational`` are not supported.
* ``%`` starts a comment (a whole line, or the rest of a line outside
  quotes); blank lines are ignored anywhere; LF or CRLF line ends; a UTF-8
  byte-order mark is ignored.
* Data values are separated by a comma and/or blanks (spaces, tabs), so the
  KEBI files' ``,<TAB>`` works.  Two commas with nothing between them are an
  error (WEKA would silently collapse them).  Values may be quoted; an
  unquoted ``?`` is a missing feature value (a quoted ``'?'`` is the text ?).
* An optional instance weight in braces as the last value:
  ``1.0,2.0,a>b>c,{0.5}`` (WEKA's syntax).  Weights must be finite and >= 0.
* A ranking is ``a>b>c`` (most preferred first); leaving labels out gives an
  incomplete ranking; ``|`` separates chains of a partial order
  (``a>b|c>d``).  Labels inside a ranking may be quoted individually
  (``'x y'>z``).  The RANKING attribute may be declared at any position; the
  writer always puts it last.
* Sparse rows (``{0 1.0, 3 2.0}``) are not supported.

Every problem is reported as :class:`lrank.errors.DataFormatError` naming the
file and the 1-based line.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl

from lrank.data.dataset import Attribute, LabelRankingDataset, first_invalid_rank_row, rank_row_from_chains
from lrank.data.textfile import read_text_lines
from lrank.errors import DataFormatError, InvalidInputError
from lrank.quoting import MalformedTextError, quote, read_quoted
from lrank.ranking_notation import EMPTY_RANKING, format_rank_rows, parse_ranking

__all__ = ["read_arff", "read_text_lines", "write_xarff"]

_FAST_SPLIT = re.compile(r"[ \t]*,[ \t]*|[ \t]+")
_SLOW_CHARS = re.compile(r"['\"%{}]")
_BLANKS = " \t"


# ---------------------------------------------------------------------------
# low-level lexing


def _skip_blanks(s: str, i: int) -> int:
    n = len(s)
    while i < n and s[i] in _BLANKS:
        i += 1
    return i


def _read_word(s: str, i: int, stops: str = "") -> tuple[str, int, bool]:
    """Read a (possibly quoted) word at s[i]; return (text, next index, quoted)."""
    if i < len(s) and s[i] in "'\"":
        text, j = read_quoted(s, i)
        return text, j, True
    j = i
    n = len(s)
    while j < n and s[j] not in _BLANKS and s[j] not in stops and s[j] != "%":
        j += 1
    return s[i:j], j, False


def _rest_is_empty(s: str, i: int) -> bool:
    i = _skip_blanks(s, i)
    return i >= len(s) or s[i] == "%"


def _split_brace_list(s: str, i: int) -> tuple[list[str], int]:
    """Parse ``{a, 'b c', d}`` starting at s[i] == '{'; return (items, index after '}')."""
    assert s[i] == "{"
    i += 1
    items: list[str] = []
    n = len(s)
    expect_item = True
    while True:
        i = _skip_blanks(s, i)
        if i >= n:
            raise MalformedTextError("missing closing '}' in value list")
        c = s[i]
        if c == "}":
            if not expect_item or not items:
                return items, i + 1
            raise MalformedTextError("empty value in list")
        if c == ",":
            if expect_item:
                raise MalformedTextError("empty value in list")
            expect_item = True
            i += 1
            continue
        if not expect_item:
            raise MalformedTextError("missing ',' between values in list")
        if c in "'\"":
            text, i = read_quoted(s, i)
        else:
            j = i
            while j < n and s[j] not in ",}" and s[j] not in _BLANKS:
                if s[j] in "'\"{%":
                    raise MalformedTextError(f"unexpected {s[j]!r} in value list")
                j += 1
            text, i = s[i:j], j
        items.append(text)
        expect_item = False


def _tokenize_row(s: str) -> tuple[list[str], str | None]:
    """Quote-aware split of a data row.

    Returns the raw tokens (quotes and escapes kept, so a ranking can be
    split on unquoted ``>``/``|`` later) and the text inside a trailing
    ``{...}`` weight group, if any.
    """
    tokens: list[str] = []
    weight: str | None = None
    n = len(s)
    i = 0
    after_comma = True  # at start: a leading comma is an empty value
    while True:
        i = _skip_blanks(s, i)
        if i >= n or s[i] == "%":
            if after_comma and tokens:
                raise MalformedTextError("empty value after the last ','")
            break
        c = s[i]
        if weight is not None:
            raise MalformedTextError("the instance weight {...} must be the last value of the row")
        if c == ",":
            if after_comma:
                raise MalformedTextError("empty value (two separators ',' with nothing between)")
            after_comma = True
            i += 1
            continue
        if c == "{":
            if not tokens:
                raise MalformedTextError("sparse rows ({index value, ...}) are not supported")
            j = s.find("}", i)
            if j < 0:
                raise MalformedTextError("missing closing '}' of the instance weight")
            weight = s[i + 1 : j]
            i = j + 1
            after_comma = False
            continue
        if c == "}":
            raise MalformedTextError("unexpected '}'")
        start = i
        while i < n:
            c = s[i]
            if c in "'\"":
                _, i = read_quoted(s, i)
            elif c in " \t,%{}":
                break
            else:
                i += 1
        tokens.append(s[start:i])
        after_comma = False
    return tokens, weight


def _value_of(raw: str) -> str | None:
    """Feature value of a raw token: unquoted text, None for a bare ``?``."""
    if not raw:
        raise MalformedTextError("empty value")
    if raw[0] in "'\"":
        text, j = read_quoted(raw, 0)
        if j != len(raw):
            raise MalformedTextError(f"unexpected text after quoted value: {raw!r}")
        return text
    if "'" in raw or '"' in raw:
        raise MalformedTextError(f"malformed quoting in value {raw!r}")
    return None if raw == "?" else raw


# ---------------------------------------------------------------------------
# reader


def read_arff(path: str | os.PathLike[str], *, require_rankings: bool = True) -> LabelRankingDataset:
    """Read an ARFF or XARFF file (syntax in the module docstring).

    With ``require_rankings=False`` a file without a RANKING attribute loads
    as a plain feature table (``rankings=None``, ``labels=()``).
    """
    spath, lines = read_text_lines(path)

    def fail(line: int | None, problem: str) -> DataFormatError:
        return DataFormatError(spath, line, problem)

    relation: str | None = None
    attributes: list[Attribute] = []
    columns_kind: list[str] = []  # per data column: "numeric"/"nominal"/"string"/"ranking"
    rank_col: int | None = None
    labels: tuple[str, ...] = ()
    ranking_name = "L"
    names_seen: dict[str, int] = {}
    data_line: int | None = None
    k = 0
    nlines = len(lines)

    # -- header --
    while k < nlines:
        lineno = k + 1
        s = lines[k].strip()
        k += 1
        if not s or s[0] == "%":
            continue
        if s[0] != "@":
            raise fail(lineno, f"expected a header line (@relation, @attribute or @data), got {s[:40]!r}")
        kw_end = 1
        while kw_end < len(s) and s[kw_end] not in _BLANKS and s[kw_end] not in "{'\"%":
            kw_end += 1
        kw = s[1:kw_end].lower()
        try:
            if kw == "relation":
                if relation is not None:
                    raise MalformedTextError("@relation given twice")
                if attributes:
                    raise MalformedTextError("@relation must come before the @attribute lines")
                i = _skip_blanks(s, kw_end)
                name, i, quoted = _read_word(s, i)
                if not name and not quoted:
                    raise MalformedTextError("@relation needs a name")
                if not _rest_is_empty(s, i):
                    raise MalformedTextError(f"unexpected text after the relation name: {s[i:].strip()!r}")
                relation = name
            elif kw == "attribute":
                if relation is None:
                    raise MalformedTextError("@attribute before @relation")
                i = _skip_blanks(s, kw_end)
                name, i, quoted = _read_word(s, i, stops="{")
                if not name and not quoted:
                    raise MalformedTextError("@attribute needs a name")
                if name in names_seen:
                    raise MalformedTextError(f"attribute {name!r} declared twice (first on line {names_seen[name]})")
                i = _skip_blanks(s, i)
                if i < len(s) and s[i] == "{":
                    values, i = _split_brace_list(s, i)
                    if len(set(values)) != len(values):
                        dup = next(v for v in values if values.count(v) > 1)
                        raise MalformedTextError(f"nominal attribute {name!r} declares value {dup!r} twice")
                    kind, decl = "nominal", tuple(values)
                else:
                    tname, i, tquoted = _read_word(s, i, stops="{")
                    t = tname.lower()
                    if tquoted or not tname:
                        raise MalformedTextError(f"attribute {name!r} has no type")
                    if t in ("numeric", "real", "integer"):
                        kind, decl = "numeric", None
                    elif t == "string":
                        kind, decl = "string", None
                    elif t == "ranking":
                        i = _skip_blanks(s, i)
                        if i >= len(s) or s[i] != "{":
                            raise MalformedTextError(f"RANKING attribute {name!r} needs a label list {{l1,l2,...}}")
                        values, i = _split_brace_list(s, i)
                        if len(set(values)) != len(values):
                            dup = next(v for v in values if values.count(v) > 1)
                            raise MalformedTextError(f"RANKING attribute {name!r} declares label {dup!r} twice")
                        if rank_col is not None:
                            raise MalformedTextError(f"more than one RANKING attribute ({ranking_name!r} and {name!r})")
                        kind, decl = "ranking", tuple(values)
                    elif t in ("date", "relational"):
                        raise MalformedTextError(f"attribute {name!r}: type {tname!r} is not supported")
                    else:
                        raise MalformedTextError(f"attribute {name!r}: unknown attribute type {tname!r}")
                if not _rest_is_empty(s, i):
                    raise MalformedTextError(f"unexpected text after the type of attribute {name!r}: {s[i:].strip()!r}")
                names_seen[name] = lineno
                if kind == "ranking":
                    rank_col = len(columns_kind)
                    labels = decl or ()
                    ranking_name = name
                else:
                    attributes.append(Attribute(name, kind, decl))  # type: ignore[arg-type]
                columns_kind.append(kind)
            elif kw == "data":
                if not _rest_is_empty(s, kw_end):
                    raise MalformedTextError("unexpected text after @data")
                if relation is None:
                    raise MalformedTextError("@data before @relation")
                if not columns_kind:
                    raise MalformedTextError("no @attribute declared before @data")
                data_line = lineno
                break
            else:
                raise MalformedTextError(f"unknown header keyword '@{s[1:kw_end]}'")
        except MalformedTextError as exc:
            raise fail(lineno, str(exc)) from None

    if data_line is None:
        raise fail(nlines if nlines else None, "missing @data section (end of file reached in the header)")
    if rank_col is None and require_rankings:
        raise fail(
            data_line,
            "no RANKING attribute declared (a label-ranking file needs '@attribute NAME RANKING {l1,l2,...}')",
        )
    assert relation is not None

    # -- data --
    ncol = len(columns_kind)
    rows: list[list[str | None]] = []
    row_lines: list[int] = []
    weights: dict[int, float] = {}
    fast_split = _FAST_SPLIT.split
    slow_chars = _SLOW_CHARS.search
    while k < nlines:
        lineno = k + 1
        s = lines[k].strip()
        k += 1
        if not s or s[0] == "%":
            continue
        if slow_chars(s) is None:
            if s[0] == "@":
                raise fail(lineno, f"header line {s.split()[0]!r} after @data")
            toks: list = fast_split(s)
            if "?" in s:
                toks = [None if t == "?" else t for t in toks]
            if len(toks) != ncol or "" in toks:
                if rank_col is not None and len(toks) == ncol and toks[rank_col] == "":
                    raise fail(lineno, EMPTY_RANKING)
                if "" in toks:
                    raise fail(lineno, "empty value (two separators ',' with nothing between, or a ',' at the end)")
                raise fail(lineno, f"wrong number of values: expected {ncol}, got {len(toks)}")
        else:
            try:
                raw, wtext = _tokenize_row(s)
                if len(raw) != ncol:
                    raise fail(lineno, f"wrong number of values: expected {ncol}, got {len(raw)}")
                toks = [r if j == rank_col else _value_of(r) for j, r in enumerate(raw)]
            except MalformedTextError as exc:
                raise fail(lineno, str(exc)) from None
            if wtext is not None:
                try:
                    w = float(wtext.strip())
                except ValueError:
                    w = math.nan
                if not (math.isfinite(w) and w >= 0):
                    raise fail(lineno, f"instance weight {{{wtext}}} is not a finite non-negative number")
                weights[len(rows)] = w
        rows.append(toks)
        row_lines.append(lineno)

    n = len(rows)
    if n == 0:
        raise fail(data_line, "no data rows after @data")

    cols = list(zip(*rows))
    del rows
    series: list[pl.Series] = []
    attr_iter = iter(attributes)
    rankings: np.ndarray | None = None
    partial_orders: dict[int, tuple[tuple[int, ...], ...]] = {}
    for j, kind in enumerate(columns_kind):
        col = cols[j]
        if kind == "ranking":
            rankings, partial_orders = _rank_column(col, labels, row_lines, fail)
            continue
        attr = next(attr_iter)
        if kind == "numeric":
            s_str = pl.Series(attr.name, col, dtype=pl.Utf8)
            s_num = s_str.cast(pl.Float64, strict=False)
            bad = s_num.is_null() & s_str.is_not_null()
            if bad.any():
                i = int(bad.arg_true()[0])
                raise fail(row_lines[i], f"non-numeric value {col[i]!r} for numeric attribute {attr.name!r}")
            series.append(s_num.fill_nan(None))
        elif kind == "nominal":
            allowed = set(attr.values or ())
            for i, v in enumerate(col):
                if v is not None and v not in allowed:
                    raise fail(
                        row_lines[i],
                        f"value {v!r} is not among the declared values of nominal attribute {attr.name!r}",
                    )
            series.append(pl.Series(attr.name, col, dtype=pl.Enum(list(attr.values or ()))))
        else:
            series.append(pl.Series(attr.name, col, dtype=pl.Utf8))

    w_arr = np.ones(n, dtype=np.float64)
    for i, w in weights.items():
        w_arr[i] = w
    return LabelRankingDataset(
        relation=relation,
        attributes=attributes,
        features=pl.DataFrame({s.name: s for s in series}),
        labels=labels,
        rankings=rankings,
        weights=w_arr,
        partial_orders=partial_orders,
        source=spath,
        ranking_name=ranking_name,
    )


def _rank_column(
    col: tuple[str | None, ...],
    labels: tuple[str, ...],
    row_lines: list[int],
    fail: Callable[[int | None, str], DataFormatError],
) -> tuple[np.ndarray, dict[int, tuple[tuple[int, ...], ...]]]:
    m = len(labels)
    label_index = {name: j for j, name in enumerate(labels)}
    cache: dict[str, int] = {}
    table: list[np.ndarray] = []
    chain_table: list[tuple[tuple[int, ...], ...] | None] = []
    ids = np.empty(len(col), dtype=np.intp)
    partial: dict[int, tuple[tuple[int, ...], ...]] = {}
    for i, raw in enumerate(col):
        u = cache.get(raw) if raw is not None else None
        if u is None:
            if raw is None or raw == "?":
                raise fail(row_lines[i], "missing ranking '?' (every row needs a ranking of at least one label)")
            try:
                chains = parse_ranking(raw, label_index)
            except MalformedTextError as exc:
                raise fail(row_lines[i], str(exc)) from None
            u = len(table)
            cache[raw] = u
            table.append(rank_row_from_chains(chains, m))
            chain_table.append(chains if len(chains) > 1 else None)
        ids[i] = u
        ch = chain_table[u]
        if ch is not None:
            partial[i] = ch
    rankings = np.ascontiguousarray(np.asarray(table, dtype=np.int32).reshape(len(table), m)[ids])
    return rankings, partial


# ---------------------------------------------------------------------------
# writer


def _fmt_float(x: float) -> str:
    return repr(float(x))


def write_xarff(dataset: LabelRankingDataset, path: str | os.PathLike[str]) -> None:
    """Write ``dataset`` as XARFF so that :func:`read_arff` reads it back identically.

    The RANKING attribute is written last (if the data set has rankings).
    Floats are written with ``repr`` (exact round trip), missing values as
    ``?``, weights as a trailing ``{w}`` only where ``w != 1``, partial orders
    as their ``|``-separated chains.
    """
    ds = dataset
    n = ds.n_rows
    if n == 0:
        raise InvalidInputError("cannot write a data set without rows (ARFF needs at least one)")
    if ds.rankings is None and not ds.attributes:
        raise InvalidInputError("cannot write a data set without attributes")
    if ds.rankings is not None:
        bad = first_invalid_rank_row(ds.rankings)
        if bad is not None:
            raise InvalidInputError(f"row {bad} of the rank matrix is not a valid ranking")
        if not ds.labels:
            raise InvalidInputError("a data set with rankings needs at least one label")
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

    text_cols: list[list[str]] = []
    for a in ds.attributes:
        col = ds.features.get_column(a.name)
        if a.kind == "numeric":
            vals = col.cast(pl.Float64).to_list()
            text_cols.append(["?" if v is None or v != v else _fmt_float(v) for v in vals])
        else:
            vals = col.cast(pl.Utf8).to_list()
            cache: dict[str, str] = {}
            txt = []
            for v in vals:
                if v is None:
                    txt.append("?")
                else:
                    q = cache.get(v)
                    if q is None:
                        q = cache[v] = quote(v)
                    txt.append(q)
            text_cols.append(txt)
    if ds.rankings is not None:
        text_cols.append(format_rank_rows(ds.rankings, ds.labels, ds.partial_orders, quoted=True))
    w = ds.weights
    for i, fields in enumerate(zip(*text_cols)):
        line = ",".join(fields)
        if w[i] != 1.0:
            line += ",{" + _fmt_float(w[i]) + "}"
        out.append(line)
    Path(os.fspath(path)).write_text("\n".join(out) + "\n", encoding="utf-8")
