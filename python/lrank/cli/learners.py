"""``lrank learners``: the registry, as WEKA lists classifiers and their options."""

from __future__ import annotations

import click

from lrank.cli.common import user_errors
from lrank.registry import available_learners


@click.command("learners")
def learners_command() -> None:
    """List the available learners (-W NAME) and their options (after --)."""
    with user_errors():
        specs = available_learners()
    for spec in specs.values():
        click.echo(f"{spec.name}: {spec.summary}")
        if spec.reference:
            click.echo(f"    {spec.reference}")
        if spec.usage():
            click.echo(f"    usage: {spec.usage()}")
        for opt in spec.options:
            flag = f"{opt.flag} {opt.metavar}".rstrip()
            click.echo(f"    {flag:<22} {opt.help}")
        click.echo()
