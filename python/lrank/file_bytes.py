"""Reading a whole file into memory, bounded: a path that never ends (``/dev/zero``, a pipe
that keeps writing) or a file larger than this process could hold is refused with an OSError
naming the problem, instead of reading until memory runs out."""

from __future__ import annotations

import errno
import os
import stat

from lrank import _core
from lrank.errors import InvalidInputError

__all__ = ["read_file_bytes"]

# What a stream that is not a regular file (its size unknown) may hold: text and model files of
# that size are far beyond any data set lrank reads whole.
STREAM_LIMIT = 1 << 30
_CHUNK = 1 << 24


def _refuse_size(n_bytes: int, expansion: int) -> None:
    try:
        _core.check_allocation("the file's contents", [n_bytes], expansion)
    except InvalidInputError as exc:
        raise OSError(errno.EFBIG, f"too large to read: {exc}") from None


def read_file_bytes(path: str | os.PathLike[str], *, expansion: int = 4) -> bytes:
    """The contents of the file at ``path``; OSError (``strerror`` says why) when it cannot be
    read, is a stream of more than 1 GiB, or is larger than this process may hold ``expansion``
    times over (what reading and decoding it takes: text files become lines and a parse, about 4
    times their size; a model or Parquet file about twice)."""
    with open(path, "rb") as fh:
        info = os.fstat(fh.fileno())
        if stat.S_ISREG(info.st_mode):
            _refuse_size(info.st_size, expansion)
            return fh.read()
        data = bytearray()
        while chunk := fh.read(_CHUNK):
            data += chunk
            if len(data) > STREAM_LIMIT:
                endless = f"not a regular file, and {STREAM_LIMIT >> 20} MiB read from it without an end"
                raise OSError(errno.EFBIG, endless)
            _refuse_size(len(data), expansion)
        return bytes(data)
