"""The XARFF header: ``@relation``, the ``@attribute`` declarations and ``@data``.

An attribute is ``numeric``/``real``/``integer``, ``string``, a nominal list ``{v1,v2,...}`` or,
at most once, ``RANKING {l1,l2,...}`` declaring the labels; it may stand at any position among
the attributes.  The syntax is described in :mod:`lrank.data.arff`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from lrank.data.arff.dates import DEFAULT_DATE_FORMAT, DatePattern
from lrank.data.arff.lexer import BLANKS, read_word, rest_is_empty, skip_blanks, split_brace_list
from lrank.data.dataset import Attribute
from lrank.errors import DataFormatError
from lrank.quoting import MalformedTextError

__all__ = ["ColumnKind", "Header", "read_header"]

ColumnKind = Literal["numeric", "nominal", "string", "ranking", "date"]


@dataclass(frozen=True)
class Header:
    """What the header declares, and where the data section starts."""

    relation: str
    attributes: list[Attribute]
    """The feature attributes, in declaration order (the RANKING attribute is not one of them)."""
    column_kinds: list[ColumnKind]
    """The kind of each value of a data row, in declaration order (RANKING included)."""
    rank_col: int | None
    """Position of the RANKING attribute among the data columns (None: not declared)."""
    labels: tuple[str, ...]
    ranking_name: str
    data_line: int
    """1-based line of ``@data``; the data rows are the lines after it."""
    date_patterns: dict[int, DatePattern]
    """The pattern of each ``DATE`` column, by its position among the data columns (a date
    attribute is numeric: milliseconds since 1970-01-01 UTC)."""


def read_header(path: str, lines: list[str]) -> Header:
    """Read the header from ``lines`` (the file ``path``), up to and including ``@data``.

    Raises :class:`lrank.errors.DataFormatError` naming the file and the line.
    """
    decls = _Declarations()
    for k, line in enumerate(lines):
        lineno = k + 1
        s = line.strip()
        if not s or s[0] == "%":
            continue
        if s[0] != "@":
            raise DataFormatError(
                path, lineno, f"expected a header line (@relation, @attribute or @data), got {s[:40]!r}"
            )
        try:
            if decls.add(s, lineno):
                return decls.header(lineno)
        except MalformedTextError as exc:
            raise DataFormatError(path, lineno, str(exc)) from None
    raise DataFormatError(
        path, len(lines) if lines else None, "missing @data section (end of file reached in the header)"
    )


def _first_duplicate(values: list[str]) -> str | None:
    """The first of ``values`` that occurs a second time, or None (in one pass: a list of
    100,000 values counted value by value took minutes)."""
    seen: set[str] = set()
    for v in values:
        if v in seen:
            return v
        seen.add(v)
    return None


class _Declarations:
    """The header read so far; :meth:`add` takes one ``@`` line."""

    def __init__(self) -> None:
        self.relation: str | None = None
        self.attributes: list[Attribute] = []
        self.column_kinds: list[ColumnKind] = []
        self.rank_col: int | None = None
        self.labels: tuple[str, ...] = ()
        self.ranking_name = "L"
        self.names_seen: dict[str, int] = {}  # attribute name -> line of its declaration
        self.date_patterns: dict[int, DatePattern] = {}

    def add(self, s: str, lineno: int) -> bool:
        """Take the header line ``s`` (stripped, starting with ``@``); True when it is ``@data``."""
        kw_end = 1
        while kw_end < len(s) and s[kw_end] not in BLANKS and s[kw_end] not in "{'\"%":
            kw_end += 1
        kw = s[1:kw_end].lower()
        if kw == "relation":
            self._relation(s, kw_end)
        elif kw == "attribute":
            self._attribute(s, kw_end, lineno)
        elif kw == "data":
            self._data(s, kw_end)
            return True
        else:
            raise MalformedTextError(f"unknown header keyword '@{s[1:kw_end]}'")
        return False

    def header(self, data_line: int) -> Header:
        assert self.relation is not None
        return Header(
            relation=self.relation,
            attributes=self.attributes,
            column_kinds=self.column_kinds,
            rank_col=self.rank_col,
            labels=self.labels,
            ranking_name=self.ranking_name,
            data_line=data_line,
            date_patterns=self.date_patterns,
        )

    def _relation(self, s: str, i: int) -> None:
        if self.relation is not None:
            raise MalformedTextError("@relation given twice")
        if self.attributes:
            raise MalformedTextError("@relation must come before the @attribute lines")
        name, i, quoted = read_word(s, skip_blanks(s, i))
        if not name and not quoted:
            raise MalformedTextError("@relation needs a name")
        if not rest_is_empty(s, i):
            raise MalformedTextError(f"unexpected text after the relation name: {s[i:].strip()!r}")
        self.relation = name

    def _attribute(self, s: str, i: int, lineno: int) -> None:
        if self.relation is None:
            raise MalformedTextError("@attribute before @relation")
        name, i, quoted = read_word(s, skip_blanks(s, i), stops="{")
        if not name and not quoted:
            raise MalformedTextError("@attribute needs a name")
        if name in self.names_seen:
            raise MalformedTextError(f"attribute {name!r} declared twice (first on line {self.names_seen[name]})")
        i = skip_blanks(s, i)
        if i < len(s) and s[i] == "{":
            values, i = split_brace_list(s, i)
            dup = _first_duplicate(values)
            if dup is not None:
                raise MalformedTextError(f"nominal attribute {name!r} declares value {dup!r} twice")
            kind: ColumnKind = "nominal"
            decl: tuple[str, ...] | None = tuple(values)
        else:
            kind, decl, i = self._typed(name, s, i)
        if not rest_is_empty(s, i):
            raise MalformedTextError(f"unexpected text after the type of attribute {name!r}: {s[i:].strip()!r}")
        self.names_seen[name] = lineno
        if kind == "ranking":
            self.rank_col = len(self.column_kinds)
            self.labels = decl or ()
            self.ranking_name = name
        elif kind == "date":
            self.date_patterns[len(self.column_kinds)] = DatePattern(decl[0] if decl else DEFAULT_DATE_FORMAT)
            self.attributes.append(Attribute(name, "numeric"))
        else:
            self.attributes.append(Attribute(name, kind, decl))
        self.column_kinds.append(kind)

    def _typed(self, name: str, s: str, i: int) -> tuple[ColumnKind, tuple[str, ...] | None, int]:
        """The type named at ``s[i]`` (all but a nominal list): (kind, declared values, index after)."""
        tname, i, tquoted = read_word(s, i, stops="{")
        t = tname.lower()
        if tquoted or not tname:
            raise MalformedTextError(f"attribute {name!r} has no type")
        if t in ("numeric", "real", "integer"):
            return "numeric", None, i
        if t == "string":
            return "string", None, i
        if t == "ranking":
            i = skip_blanks(s, i)
            if i >= len(s) or s[i] != "{":
                raise MalformedTextError(f"RANKING attribute {name!r} needs a label list {{l1,l2,...}}")
            values, i = split_brace_list(s, i)
            dup = _first_duplicate(values)
            if dup is not None:
                raise MalformedTextError(f"RANKING attribute {name!r} declares label {dup!r} twice")
            if self.rank_col is not None:
                raise MalformedTextError(f"more than one RANKING attribute ({self.ranking_name!r} and {name!r})")
            return "ranking", tuple(values), i
        if t == "date":
            i = skip_blanks(s, i)
            if rest_is_empty(s, i):
                return "date", None, i
            pattern, i, _ = read_word(s, i)
            return "date", (pattern,), i
        if t == "relational":
            raise MalformedTextError(f"attribute {name!r}: type {tname!r} is not supported")
        raise MalformedTextError(f"attribute {name!r}: unknown attribute type {tname!r}")

    def _data(self, s: str, i: int) -> None:
        if not rest_is_empty(s, i):
            raise MalformedTextError("unexpected text after @data")
        if self.relation is None:
            raise MalformedTextError("@data before @relation")
        if not self.column_kinds:
            raise MalformedTextError("no @attribute declared before @data")
