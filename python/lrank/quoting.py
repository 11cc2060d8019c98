"""Quoting of names and values in lrank's text formats (ARFF / XARFF and the ranking notation).

A name or value may be written in ``'...'`` or ``"..."``; inside the quotes a backslash escapes
the next character (``\\n``, ``\\r`` and ``\\t`` stand for newline, carriage return and tab,
any other escaped character for itself).  :func:`quote` writes a text so that
:func:`read_quoted` (and every reader built on it) reads it back as itself.

This module is deliberately free of Polars so that :mod:`lrank.ranking_notation`, and through it
:mod:`lrank.rankings`, can use it without making ``import lrank`` load the data layer.
"""

from __future__ import annotations

import re

from lrank.errors import InvalidInputError

__all__ = ["QUOTES", "MalformedTextError", "quote", "read_quoted"]

QUOTES = "'\""
"""The characters that open (and close) a quoted text."""

_ESCAPES = {"n": "\n", "r": "\r", "t": "\t"}
# Anything that would end, split or change the meaning of an unquoted ARFF word, the ranking
# notation's '>', '|' and '=', and the missing-value mark '?'.
_QUOTE_TRIGGER = re.compile(r"[\s,'\"%{}>|=\\?@]")


class MalformedTextError(InvalidInputError):
    """A piece of text does not follow the syntax.

    The message names the problem only; a file reader turns it into a
    :class:`lrank.errors.DataFormatError` that adds the file and the line.
    """


def read_quoted(s: str, i: int) -> tuple[str, int]:
    """Read the quoted text that starts at ``s[i]`` (a quote); return (text, index after it).

    Raises :class:`MalformedTextError` when the closing quote is missing.
    """
    q = s[i]
    i += 1
    n = len(s)
    buf: list[str] = []
    while i < n:
        c = s[i]
        if c == "\\":
            if i + 1 >= n:
                break
            e = s[i + 1]
            buf.append(_ESCAPES.get(e, e))
            i += 2
        elif c == q:
            return "".join(buf), i + 1
        else:
            buf.append(c)
            i += 1
    raise MalformedTextError(f"unterminated quoted string starting with {q}")


def quote(s: str) -> str:
    """``s`` as it must be written in ARFF: unchanged if it reads back as itself unquoted, else in
    single quotes with backslash escapes."""
    if s and _QUOTE_TRIGGER.search(s) is None:
        return s
    out = s.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return f"'{out}'"
