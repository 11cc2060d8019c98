"""``lrank learners``: the registry, as WEKA lists classifiers and their options."""

from __future__ import annotations

import click

from lrank.cli.common import user_errors
from lrank.registry import available_learners, get_learner, is_builtin, plugin_source


@click.command("learners")
@click.argument("names", nargs=-1, metavar="[NAME]...")
def learners_command(names: tuple[str, ...]) -> None:
    """List the available learners (-W NAME) and their options (after --); with NAMEs, only
    those learners (any case: lrank learners lrrf ibplr)."""
    with user_errors():
        specs = [get_learner(name) for name in names] if names else list(available_learners().values())
    for spec in specs:
        click.echo(f"{spec.name}: {spec.summary}")
        if not is_builtin(spec):
            click.echo(f"    a plug-in, from {plugin_source(spec)}")
        if spec.reference:
            click.echo(f"    {spec.reference}")
        if spec.usage():
            click.echo(f"    usage: {spec.usage()}")
        for opt in spec.options:
            flag = f"{opt.flag} {opt.metavar}".rstrip()
            click.echo(f"    {flag:<22} {opt.help}")
        click.echo()
