"""Reading the text data files (ARFF / XARFF, KEBI CSV): UTF-8 lines with the file's problems
reported as :class:`lrank.errors.DataFormatError`."""

from __future__ import annotations

import os

from lrank.errors import DataFormatError
from lrank.file_bytes import read_file_bytes

__all__ = ["read_text_lines"]


def read_text_lines(path: str | os.PathLike[str]) -> tuple[str, list[str]]:
    """Read a UTF-8 text file; return (path string, lines without line ends).

    LF and CRLF line ends and a UTF-8 byte-order mark are accepted; UTF-16 and line ends of a
    CR alone (classic Mac) are refused as such.
    """
    spath = os.fspath(path)
    try:
        raw = read_file_bytes(spath)
    except FileNotFoundError:
        raise DataFormatError(spath, None, "file not found") from None
    except IsADirectoryError:
        raise DataFormatError(spath, None, "is a directory, not a data file") from None
    except OSError as exc:
        raise DataFormatError(spath, None, f"cannot read file: {exc.strerror or exc}") from None
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff") or (raw[:2].count(0) == 1 and raw[:400].count(0) * 3 > len(raw[:400])):
        # What Windows tools (PowerShell, Notepad's "Unicode") write: every other byte 0.
        raise DataFormatError(spath, 1, "file is UTF-16 text: save it as UTF-8")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise DataFormatError(spath, line, f"file is not valid UTF-8 (byte 0x{raw[exc.start]:02x})") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    if len(lines) == 1 and "\r" in lines[0].rstrip("\r"):
        # The whole file on its first line: classic Mac line ends (CR alone). A CR further on is
        # left to the reader (ARFF keeps one inside a quoted value, CSV refuses it).
        raise DataFormatError(
            spath, 1, "lines end in a carriage return (CR) alone: save the file with LF or CRLF line ends"
        )
    return spath, lines
