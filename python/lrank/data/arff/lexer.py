"""Lexing of XARFF lines: blanks, (quoted) words, ``{...}`` value lists, data-row tokens, values.

Problems raise :class:`lrank.quoting.MalformedTextError` naming the problem only; the header and
row readers add the file and the line.
"""

from __future__ import annotations

import re

from lrank.quoting import QUOTES, MalformedTextError, read_quoted

__all__ = [
    "BLANKS",
    "NEEDS_LEXER",
    "PLAIN_SEPARATORS",
    "read_word",
    "rest_is_empty",
    "skip_blanks",
    "split_brace_list",
    "tokenize_row",
    "value_of",
]

BLANKS = " \t"
PLAIN_SEPARATORS = re.compile(r"[ \t]*,[ \t]*|[ \t]+")
"""Splits a data row that holds no quote, comment or brace (see :data:`NEEDS_LEXER`) into values."""
NEEDS_LEXER = re.compile(r"['\"%{}]")
"""Finds the characters that make a data row need :func:`tokenize_row`."""


def skip_blanks(s: str, i: int) -> int:
    """Index of the first non-blank character at or after ``s[i]`` (``len(s)`` if none)."""
    n = len(s)
    while i < n and s[i] in BLANKS:
        i += 1
    return i


def read_word(s: str, i: int, stops: str = "") -> tuple[str, int, bool]:
    """Read a (possibly quoted) word at s[i]; return (text, next index, quoted).

    An unquoted word ends at a blank, a ``%`` or any character of ``stops``.
    """
    if i < len(s) and s[i] in QUOTES:
        text, j = read_quoted(s, i)
        return text, j, True
    j = i
    n = len(s)
    while j < n and s[j] not in BLANKS and s[j] not in stops and s[j] != "%":
        j += 1
    return s[i:j], j, False


def rest_is_empty(s: str, i: int) -> bool:
    """True if nothing but blanks and a comment follows ``s[i:]``."""
    i = skip_blanks(s, i)
    return i >= len(s) or s[i] == "%"


def split_brace_list(s: str, i: int) -> tuple[list[str], int]:
    """Parse ``{a, 'b c', d}`` starting at s[i] == '{'; return (items, index after '}')."""
    assert s[i] == "{"
    i += 1
    items: list[str] = []
    n = len(s)
    expect_item = True
    while True:
        i = skip_blanks(s, i)
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
        if c in QUOTES:
            text, i = read_quoted(s, i)
        else:
            j = i
            while j < n and s[j] not in ",}" and s[j] not in BLANKS:
                if s[j] in "'\"{%":
                    raise MalformedTextError(f"unexpected {s[j]!r} in value list")
                j += 1
            text, i = s[i:j], j
        items.append(text)
        expect_item = False


def tokenize_row(s: str) -> tuple[list[str], str | None]:
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
        i = skip_blanks(s, i)
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
        while i < n:  # the token ends at a separator, a comment or a brace; quoted parts are skipped whole
            c = s[i]
            if c in QUOTES:
                _, i = read_quoted(s, i)
            elif c in " \t,%{}":
                break
            else:
                i += 1
        tokens.append(s[start:i])
        after_comma = False
    return tokens, weight


def value_of(raw: str) -> str | None:
    """Feature value of a raw token: unquoted text, None for a bare ``?``."""
    if not raw:
        raise MalformedTextError("empty value")
    if raw[0] in QUOTES:
        text, j = read_quoted(raw, 0)
        if j != len(raw):
            raise MalformedTextError(f"unexpected text after quoted value: {raw!r}")
        return text
    if "'" in raw or '"' in raw:
        raise MalformedTextError(f"malformed quoting in value {raw!r}")
    return None if raw == "?" else raw
