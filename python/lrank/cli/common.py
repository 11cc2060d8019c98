"""Helpers shared by the CLI commands: turning lrank errors into one-line user errors."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import click

from lrank.errors import LrankError


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Reports lrank's own errors (bad files, options, models) as ``Error: ...`` with exit code 1."""
    try:
        yield
    except LrankError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        name = f"{exc.filename}: " if exc.filename else ""
        raise click.ClickException(f"{name}{exc.strerror or exc}") from None


def check_jobs(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """-j: a positive number of threads, or as scikit-learn's n_jobs -1 for all cores, -2 for all
    but one...; 0 is refused before any data is read."""
    if value != 0:
        return value
    raise click.BadParameter("0 threads: give a positive number of threads, or -1 for all cores")
