"""Parquet files as lrank writes and reads them (data sets, experiment stores): checksummed, and
never decoded in this process unless they are known to be intact.

Polars panics on some damaged files (``PanicException``, a ``BaseException``) and aborts the
whole process on others (one asked for a 2^61-byte allocation). So:

* :func:`write_checksummed` keeps the SHA-256 of the whole file in its key-value metadata
  (``lrank_sha256``; computed with those 64 hex digits set to ``0``, then written in their place);
* :func:`read_verified` recomputes it before Polars sees the bytes: a file changed since lrank
  wrote it (a flipped bit anywhere) is refused as damaged. A file without the checksum (another
  writer, or an older lrank) is first decoded in a child process with a memory limit and a
  timeout; only when that child succeeds is it decoded here. Either way a panic of Polars becomes
  the caller's error, and the bytes decoded are the bytes checked.

The checksum detects damage; it does not authenticate: a file forged with a recomputed checksum
is read like one lrank wrote.
"""

from __future__ import annotations

import hashlib
import io
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import polars as pl

from lrank.file_bytes import read_file_bytes

__all__ = ["CHECKSUM_KEY", "read_verified", "read_verified_rows", "write_checksummed"]

CHECKSUM_KEY = "lrank_sha256"
# The key-value entry as Polars writes it (Thrift compact: the key's length 12, the key, the
# value's field header and length 64), then the 64 digits.
_ENTRY = b"\x0c" + CHECKSUM_KEY.encode() + b"\x18\x40"
_PLACEHOLDER = b"0" * 64
_MAGIC = b"PAR1"

# The child that decodes an unchecksummed file: its address space limited to argv[1] bytes (before
# Polars is loaded), the bytes on stdin (the same bytes this process then decodes), the first line
# of any error to stdout.
_CHILD = """
import io, sys
try:
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), int(sys.argv[1])))
except (ImportError, ValueError, OSError):
    pass
import polars as pl
data = sys.stdin.buffer.read()
try:
    pl.read_parquet_metadata(io.BytesIO(data))
    pl.read_parquet(io.BytesIO(data))
except BaseException as exc:
    text = str(exc).strip().splitlines()
    print(f"{type(exc).__name__}: {text[0] if text else ''}"[:300])
    sys.exit(1)
"""


# The child for a file read a slice at a time: it decodes the file by path, in slices of argv[3]
# rows, so that a file too large for memory is checked in bounded memory too.
_CHILD_SLICES = """
import sys
try:
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), int(sys.argv[1])))
except (ImportError, ValueError, OSError):
    pass
import polars as pl
try:
    pl.read_parquet_metadata(sys.argv[2])
    scan = pl.scan_parquet(sys.argv[2])
    n = scan.select(pl.len()).collect().item()
    for offset in range(0, n, int(sys.argv[3])):
        scan.slice(offset, int(sys.argv[3])).collect()
except BaseException as exc:
    text = str(exc).strip().splitlines()
    print(f"{type(exc).__name__}: {text[0] if text else ''}"[:300])
    sys.exit(1)
"""


def write_checksummed(frame: pl.DataFrame, path: str | os.PathLike[str], metadata: Mapping[str, str]) -> None:
    """Writes ``frame`` as Parquet with ``metadata`` and the file's checksum."""
    buffer = io.BytesIO()
    frame.write_parquet(buffer, metadata={**metadata, CHECKSUM_KEY: _PLACEHOLDER.decode()})
    data = bytearray(buffer.getvalue())
    at = data.rfind(_ENTRY + _PLACEHOLDER)
    if at < 0:  # pragma: no cover - Polars changed how it writes key-value metadata
        raise RuntimeError("cannot find the checksum entry in the Parquet file Polars wrote")
    at += len(_ENTRY)
    data[at : at + 64] = hashlib.sha256(data).hexdigest().encode()
    Path(os.fspath(path)).write_bytes(data)


def _checksum_state(data: bytes) -> str:
    """``"valid"``, ``"absent"`` or ``"mismatch"``."""
    at = data.rfind(_ENTRY)
    if at < 0 or at + len(_ENTRY) + 64 > len(data):
        return "absent"
    at += len(_ENTRY)
    stored = bytes(data[at : at + 64])
    zeroed = data[:at] + _PLACEHOLDER + data[at + 64 :]
    return "valid" if hashlib.sha256(zeroed).hexdigest().encode() == stored else "mismatch"


def _decodes_in_a_child(data: bytes | None, path: str | None = None, slice_rows: int = 0) -> str | None:
    """Why a child process could not decode ``data`` (or the file ``path``, ``slice_rows`` rows at
    a time) with Polars, or None when it could."""
    size = len(data) if data is not None else Path(path or "").stat().st_size
    limit = max(4 << 30, 64 * size) if data is not None else 4 << 30
    timeout = 60 + size / 1e6
    env = {**os.environ, "POLARS_MAX_THREADS": "1"}
    args = [_CHILD, str(limit)] if data is not None else [_CHILD_SLICES, str(limit), str(path), str(slice_rows)]
    try:
        done = subprocess.run(
            [sys.executable, "-c", *args],
            input=data,
            capture_output=True,
            timeout=timeout,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"Polars took more than {timeout:.0f} s to decode it"
    if done.returncode == 0:
        return None
    said = done.stdout.decode("utf-8", "replace").strip()
    if done.returncode < 0:
        try:
            name = signal.Signals(-done.returncode).name
        except ValueError:
            name = f"signal {-done.returncode}"
        return f"Polars crashed decoding it ({name})"
    return said or f"Polars could not decode it (exit status {done.returncode})"


def read_verified(
    path: str | os.PathLike[str], fail: Callable[[str], Exception]
) -> tuple[pl.DataFrame, dict[str, str]]:
    """The frame and key-value metadata of a Parquet file; every problem is ``fail(problem)``."""
    try:
        data = read_file_bytes(path, expansion=2)
    except OSError as exc:
        raise fail(f"cannot read file: {exc.strerror or exc}") from None
    if len(data) < 12 or not data.startswith(_MAGIC) or not data.endswith(_MAGIC):
        raise fail("not a readable Parquet file (no PAR1 marks at its start and end)")
    state = _checksum_state(data)
    if state == "mismatch":
        raise fail("the file is damaged or was changed after lrank wrote it (its checksum does not match)")
    if state == "absent":
        problem = _decodes_in_a_child(data)
        if problem is not None:
            raise fail(f"not a readable Parquet file: {problem}")
    try:
        metadata = pl.read_parquet_metadata(io.BytesIO(data))
        frame = pl.read_parquet(io.BytesIO(data))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # Polars raises several error types, and panics
        text = str(exc).strip().splitlines()
        raise fail(f"not a readable Parquet file ({type(exc).__name__}: {text[0] if text else ''})") from None
    return frame, metadata


# Files already verified by read_verified_rows in this process: (path, size, mtime) -> metadata.
_VERIFIED: dict[tuple[str, int, int], dict[str, str]] = {}
_CHUNK = 1 << 20


def _verify_streaming(path: str, fail: Callable[[str], Exception], slice_rows: int) -> dict[str, str]:
    """The checks of :func:`read_verified` for a file read a slice at a time: the checksum
    computed over the file in chunks (the entry found in the footer), or, without one, the file
    decoded slice by slice in a child. Memory stays bounded by the chunk and slice sizes."""
    try:
        size = os.stat(path).st_size
        with open(path, "rb") as fh:
            head = fh.read(4)
            fh.seek(max(size - 8, 0))
            tail = fh.read(8)
            footer_len = int.from_bytes(tail[:4], "little") if len(tail) == 8 else 0
            if len(head) < 4 or head != _MAGIC or tail[4:] != _MAGIC or footer_len + 12 > size:
                raise fail("not a readable Parquet file (no PAR1 marks at its start and end)")
            footer_at = size - 8 - footer_len
            fh.seek(footer_at)
            footer = fh.read(footer_len)
            entry = footer.rfind(_ENTRY)
            if entry < 0 or entry + len(_ENTRY) + 64 > len(footer):
                state = "absent"
            else:
                digits_at = footer_at + entry + len(_ENTRY)
                stored = footer[entry + len(_ENTRY) : entry + len(_ENTRY) + 64]
                digest = hashlib.sha256()
                fh.seek(0)
                offset = 0
                while chunk := fh.read(_CHUNK):
                    lo, hi = max(digits_at - offset, 0), min(digits_at + 64 - offset, len(chunk))
                    if lo < hi:  # this chunk holds (part of) the digits: hash them as zeros
                        chunk = chunk[:lo] + _PLACEHOLDER[: hi - lo] + chunk[hi:]
                    digest.update(chunk)
                    offset += len(chunk)
                state = "valid" if digest.hexdigest().encode() == stored else "mismatch"
    except OSError as exc:
        raise fail(f"cannot read file: {exc.strerror or exc}") from None
    if state == "mismatch":
        raise fail("the file is damaged or was changed after lrank wrote it (its checksum does not match)")
    if state == "absent":
        problem = _decodes_in_a_child(None, path, slice_rows)
        if problem is not None:
            raise fail(f"not a readable Parquet file: {problem}")
    try:
        return pl.read_parquet_metadata(path)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # Polars raises several error types, and panics
        text = str(exc).strip().splitlines()
        raise fail(f"not a readable Parquet file ({type(exc).__name__}: {text[0] if text else ''})") from None


def read_verified_rows(
    path: str | os.PathLike[str], fail: Callable[[str], Exception], rows: tuple[int, int]
) -> tuple[pl.DataFrame, dict[str, str]]:
    """Rows ``rows = (offset, length)`` of a Parquet file and its key-value metadata, the file
    checked as :func:`read_verified` checks it, once per process (while its size and time stay)."""
    spath = os.fspath(path)
    try:
        stat = os.stat(spath)
    except OSError as exc:
        raise fail(f"cannot read file: {exc.strerror or exc}") from None
    key = (os.path.abspath(spath), stat.st_size, stat.st_mtime_ns)
    metadata = _VERIFIED.get(key)
    if metadata is None:
        metadata = _verify_streaming(spath, fail, max(rows[1], 1))
        _VERIFIED.clear()  # one file at a time is what a streaming reader needs
        _VERIFIED[key] = metadata
    try:
        frame = pl.scan_parquet(spath).slice(*rows).collect()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # Polars raises several error types, and panics
        text = str(exc).strip().splitlines()
        raise fail(f"not a readable Parquet file ({type(exc).__name__}: {text[0] if text else ''})") from None
    return frame, metadata
