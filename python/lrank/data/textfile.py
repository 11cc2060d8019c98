"""Reading the text data files (ARFF / XARFF, KEBI CSV): UTF-8 lines with the file's problems
reported as :class:`lrank.errors.DataFormatError`."""

from __future__ import annotations

import os

from lrank.errors import DataFormatError
from lrank.file_bytes import read_file_bytes

__all__ = ["read_text_lines"]


def read_text_lines(path: str | os.PathLike[str]) -> tuple[str, list[str]]:
    """Read a UTF-8 text file; return (path string, lines without line ends).

    LF and CRLF line ends and a UTF-8 byte-order mark are accepted.
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
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise DataFormatError(spath, line, f"file is not valid UTF-8 (byte 0x{raw[exc.start]:02x})") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return spath, [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
