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
