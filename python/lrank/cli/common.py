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


@contextlib.contextmanager
def replaced_when_written(out: str) -> Iterator[str]:
    """A temporary file beside ``out`` to write, moved onto ``out`` once the block ends well:
    a failure or Ctrl-C leaves an existing ``out`` as it was, and never a cut-short file that
    looks complete (a Makefile would take it as made). A device or a pipe (``/dev/null``) is
    written in place; a symbolic link's target is replaced."""
    target = Path(os.path.realpath(out))
    if target.exists() and not stat.S_ISREG(target.stat().st_mode):
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
    if target.exists():
        mode = stat.S_IMODE(target.stat().st_mode)  # an existing file keeps its permissions
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask  # as open() would create it (mkstemp makes it private)
    os.chmod(temporary, mode)
    try:
        yield temporary
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
