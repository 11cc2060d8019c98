"""Helpers shared by the CLI commands: turning lrank errors into one-line user errors."""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from lrank.data.kebi_csv import LABEL_COLUMN
from lrank.errors import LrankError


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Reports lrank's own errors (bad files, options, models) as ``Error: ...`` with exit code 1."""
    try:
        yield
    except LrankError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        if exc.errno == errno.EPIPE:
            raise  # the reader of stdout has gone: the command group ends quietly
        name = f"{exc.filename}: " if exc.filename else ""
        raise click.ClickException(f"{name}{exc.strerror or exc}") from None


def check_jobs(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """-j: a positive number of threads, or as scikit-learn's n_jobs -1 for all cores, -2 for all
    but one...; 0 is refused before any data is read."""
    if value != 0:
        return value
    raise click.BadParameter("0 threads: give a positive number of threads, or -1 for all cores")


class FiniteFloatRange(click.FloatRange):
    """click's FloatRange refusing NaN, which fails every comparison and so passed the range
    (``--missing nan`` reached the data and was told as the data file's fault)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if number != number:
            self.fail(f"{value!r} is not a number", param, ctx)
        return number


def jobs_option(help: str) -> Any:
    """The -j/--jobs option of the commands that fit or predict: threads, checked by
    :func:`check_jobs`."""
    return click.option("-j", "--jobs", type=int, default=None, callback=check_jobs, help=help)


def kebi_label_names(data: Any, target: str) -> tuple[Any, str | None]:
    """``data`` ready to write to ``target``: for a ``.csv`` target (the KEBI layout names labels
    L1, L2, ...) other label names are replaced, with the note that says how; else as it is."""
    if not target.lower().endswith(".csv") or all(LABEL_COLUMN.fullmatch(name) for name in data.labels):
        return data, None
    kebi_names = tuple(f"L{j + 1}" for j in range(len(data.labels)))
    pairs = ", ".join(f"{old} = {new}" for old, new in zip(data.labels, kebi_names))
    return dataclasses.replace(data, labels=kebi_names), f"Note: the KEBI CSV layout names labels L1, L2, ...: {pairs}"


def _replaceable(path: Path) -> bool:
    """Whether writing ``path`` anew and moving it into place is what writing it would do: a new
    or plain file of ours, alone (no other hard link), that we may write, in a directory we may
    write. Anything else (a device, a pipe, ``/dev/stdout``, a symbolic link, another user's file,
    a read-only one) is written in place, as before."""
    if not os.access(path.parent if str(path.parent) else ".", os.W_OK | os.X_OK):
        return False
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_nlink == 1 and st.st_uid == os.geteuid() and os.access(path, os.W_OK)


def _umask() -> int:
    """The process's umask, read without changing it where Linux says it (threads may be running)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def replaced_when_written(out: str) -> Iterator[str]:
    """A temporary file beside ``out`` to write, moved onto ``out`` once the block ends well:
    a failure or Ctrl-C leaves an existing ``out`` as it was, and never a cut-short file that
    looks complete (a Makefile would take it as made). ``kill`` (SIGTERM) keeps its default, an
    immediate end, and may leave the hidden temporary file: a Python handler would run only once
    the core's work of the moment ended, minutes on a large file. Paths that are not a plain file
    of ours are written in place (see :func:`_replaceable`). Errors name ``out``, not the
    temporary file."""
    target = Path(out)
    if not _replaceable(target):
        yield out
        return
    try:
        # The data writers choose the format by suffix: the temporary name ends as ``out`` does.
        fd, temporary = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=f".partial{target.suffix}", dir=target.parent
        )
    except OSError as exc:
        raise click.ClickException(f"{out}: cannot write: {exc.strerror or exc}") from None
    os.close(fd)
    try:
        yield temporary
        # Permissions as an existing OUT had them, or as open() would create it (mkstemp's are
        # private); set after the writing, so that a read-only mode cannot stop it.
        mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else 0o666 & ~_umask()
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except LrankError as exc:
        _remove(temporary)
        raise click.ClickException(str(exc).replace(temporary, out)) from None
    except OSError as exc:
        _remove(temporary)
        if exc.errno == errno.EPIPE:
            raise
        raise click.ClickException(f"{out}: {exc.strerror or exc}") from None
    except BaseException:
        _remove(temporary)
        raise


def _remove(temporary: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(temporary)
