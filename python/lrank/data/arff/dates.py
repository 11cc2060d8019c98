"""ARFF ``DATE`` attributes: WEKA's date patterns (Java's ``SimpleDateFormat``) and the values
they describe, read as milliseconds since 1970-01-01 00:00:00 UTC, the number WEKA stores.

A pattern is compiled once into a regular expression with one group per field; values are
parsed strictly (month 13 or February 30 is an error, as in a non-lenient Java parser), and a
value without a time zone is read as UTC, so a file reads the same on every machine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from lrank.quoting import MalformedTextError

__all__ = ["DEFAULT_DATE_FORMAT", "DatePattern"]

DEFAULT_DATE_FORMAT = "yyyy-MM-dd'T'HH:mm:ss"
"""WEKA's pattern for a ``DATE`` attribute declared without one (ISO 8601)."""

_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]  # fmt: skip
_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_NUMERIC = set("yMdDHkKhmsS")
_UNSUPPORTED = {
    "G": "era",
    "Y": "week year",
    "w": "week in year",
    "W": "week in month",
    "F": "day of week in month",
    "u": "day number of week",
}


@dataclass(frozen=True)
class _Field:
    letter: str
    count: int


class DatePattern:
    """A compiled Java ``SimpleDateFormat`` pattern; :meth:`millis` reads one value."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        parts = _split(pattern)
        fields = [p for p in parts if isinstance(p, _Field)]
        if not fields:
            raise MalformedTextError(f"date format {pattern!r} has no date or time field")
        regex: list[str] = []
        for k, part in enumerate(parts):
            if isinstance(part, str):
                regex.append(re.escape(part))
                continue
            nxt = parts[k + 1] if k + 1 < len(parts) else None
            # Abutting numeric fields (yyyyMMdd) take exactly their width, as in Java.
            abutting = isinstance(nxt, _Field) and nxt.letter in _NUMERIC
            regex.append(f"({_field_regex(part, abutting, pattern)})")
        self._regex = re.compile("".join(regex), re.IGNORECASE)
        self._fields = fields

    def millis(self, value: str) -> float:
        """``value`` as milliseconds since the epoch (UTC); MalformedTextError if it does not match."""
        match = self._regex.fullmatch(value.strip())
        if match is None:
            raise MalformedTextError(f"date {value!r} does not match the attribute's format {self.pattern!r}")
        parts = {"y": 1970, "M": 1, "d": 1, "H": 0, "m": 0, "s": 0, "S": 0}
        day_of_year = None
        pm = twelve_hour = False
        zone = timezone.utc
        for field, text in zip(self._fields, match.groups()):
            letter = field.letter
            if letter == "y":
                year = int(text)
                parts["y"] = (2000 + year if year < 69 else 1900 + year) if field.count == 2 else year
            elif letter in "ML":
                parts["M"] = int(text) if field.count <= 2 else _month(text, value)
            elif letter == "D":
                day_of_year = int(text)
            elif letter in "kKh":
                hour = int(text)
                low, high = {"k": (1, 24), "K": (0, 11), "h": (1, 12)}[letter]
                if not low <= hour <= high:
                    raise MalformedTextError(f"date {value!r}: hour {hour} is outside {low}..{high}")
                parts["H"] = hour % (24 if letter == "k" else 12)
                twelve_hour = letter != "k"
            elif letter == "a":
                pm = text.lower() == "pm"
            elif letter in "zZX":
                zone = _zone(text, value)
            elif letter == "E":
                _day_name(text, value)
            else:
                parts[letter] = int(text)
        if parts["S"] > 999:
            raise MalformedTextError(f"date {value!r}: millisecond {parts['S']} is outside 0..999")
        if pm and twelve_hour:
            parts["H"] += 12
        try:
            if day_of_year is not None:
                base = datetime(parts["y"], 1, 1, parts["H"], parts["m"], parts["s"], tzinfo=zone)
                if not 1 <= day_of_year <= (366 if _leap(parts["y"]) else 365):
                    raise ValueError("day of year out of range")
                when = base + timedelta(days=day_of_year - 1)
            else:
                when = datetime(parts["y"], parts["M"], parts["d"], parts["H"], parts["m"], parts["s"], tzinfo=zone)
        except (ValueError, OverflowError) as exc:
            raise MalformedTextError(f"date {value!r} is not a valid date for format {self.pattern!r}: {exc}") from None
        delta = when - _EPOCH
        return float((delta.days * 86_400 + delta.seconds) * 1000 + parts["S"])


def _split(pattern: str) -> list[_Field | str]:
    """The pattern as fields (runs of one letter) and literal texts (quoted or not)."""
    parts: list[_Field | str] = []
    i, n = 0, len(pattern)
    literal: list[str] = []
    while i < n:
        c = pattern[i]
        if c == "'":
            if pattern.startswith("''", i):
                literal.append("'")
                i += 2
                continue
            end = pattern.find("'", i + 1)
            while end != -1 and pattern.startswith("''", end):
                end = pattern.find("'", end + 2)
            if end == -1:
                raise MalformedTextError(f"date format {pattern!r} has an unclosed quote")
            literal.append(pattern[i + 1 : end].replace("''", "'"))
            i = end + 1
        elif c.isascii() and c.isalpha():
            j = i
            while j < n and pattern[j] == c:
                j += 1
            if literal:
                parts.append("".join(literal))
                literal = []
            parts.append(_Field(c, j - i))
            i = j
        else:
            literal.append(c)
            i += 1
    if literal:
        parts.append("".join(literal))
    return parts


def _field_regex(field: _Field, abutting: bool, pattern: str) -> str:
    letter, count = field.letter, field.count
    if letter in _UNSUPPORTED:
        raise MalformedTextError(
            f"date format {pattern!r}: pattern letter {letter!r} ({_UNSUPPORTED[letter]}) is not supported"
        )
    if letter in "ML" and count >= 3:
        return "[A-Za-z]+"
    if letter in _NUMERIC:
        if abutting:
            return rf"\d{{{count}}}"
        if letter == "y" and count == 2:
            return r"\d{2}"
        return r"[+-]?\d+" if letter == "y" else r"\d+"
    if letter == "a":
        return "AM|PM"
    if letter == "E":
        return "[A-Za-z]+"
    if letter in "zZX":
        return r"Z|UTC|GMT(?:[+-]\d{1,2}(?::?\d{2})?)?|[+-]\d{2}(?::?\d{2})?"
    raise MalformedTextError(f"date format {pattern!r}: unknown pattern letter {letter!r} (quote text as 'text')")


def _month(text: str, value: str) -> int:
    t = text.lower()
    for k, name in enumerate(_MONTHS):
        if t == name or t == name[:3]:
            return k + 1
    raise MalformedTextError(f"date {value!r}: {text!r} is not an English month name")


def _day_name(text: str, value: str) -> None:
    t = text.lower()
    if not any(t == name or t == name[:3] for name in _DAYS):
        raise MalformedTextError(f"date {value!r}: {text!r} is not an English day name")


def _zone(text: str, value: str) -> timezone:
    t = text.upper()
    if t in ("Z", "UTC", "GMT"):
        return timezone.utc
    offset = t[3:] if t.startswith("GMT") else t
    digits = offset[1:].replace(":", "")
    hours, minutes = (digits, "0") if len(digits) <= 2 else (digits[:-2], digits[-2:])
    try:
        delta = timedelta(hours=int(hours), minutes=int(minutes))
        if delta >= timedelta(hours=24) or int(minutes) >= 60:
            raise ValueError
    except ValueError:
        raise MalformedTextError(f"date {value!r}: time zone {text!r} is out of range") from None
    return timezone(-delta if offset[0] == "-" else delta)


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
