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

__all__ = ["CHECKSUM_KEY", "read_verified", "write_checksummed"]

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


def _decodes_in_a_child(data: bytes) -> str | None:
    """Why a child process could not decode ``data`` with Polars, or None when it could."""
    limit = max(4 << 30, 64 * len(data))
    timeout = 60 + len(data) / 1e6
    env = {**os.environ, "POLARS_MAX_THREADS": "1"}
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(limit)],
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
        data = Path(os.fspath(path)).read_bytes()
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
