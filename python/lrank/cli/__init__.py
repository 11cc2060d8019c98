"""The ``lrank`` command line, mirroring WEKA-LR's workflow (``lrank train -t iris.xarff -W LRRF``)."""

from __future__ import annotations

import importlib
import warnings

import click

from lrank import __version__

# Each subcommand's module and object, imported when the command runs (or help lists it): every
# ``lrank train`` paid for importing the experiment commands and their dependencies.
_SUBCOMMANDS = {
    "train": ("lrank.cli.train", "train_command"),
    "predict": ("lrank.cli.predict", "predict_command"),
    "learners": ("lrank.cli.learners", "learners_command"),
    "info": ("lrank.cli.data_commands", "info_command"),
    "convert": ("lrank.cli.data_commands", "convert_command"),
    "experiment": ("lrank.cli.experiment", "experiment_group"),
}


class _LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_SUBCOMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in _SUBCOMMANDS:
            return None
        module, name = _SUBCOMMANDS[cmd_name]
        command: click.Command = getattr(importlib.import_module(module), name)
        return command


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="lrank")
def main() -> None:
    """lrank: label ranking learners with WEKA-LR's command-line workflow.

    \b
    Examples:
      lrank train -t datasets/iris.xarff -W LRRF
      lrank train -t train.xarff -T test.xarff -W LRRF -d model.lrm -- -I 100
      lrank predict -l model.lrm -T new.arff -o rankings.txt
      lrank learners
      lrank info datasets/iris.xarff
      lrank convert data.csv data.parquet
      lrank experiment run datasets/ -W LRRF -W "IBLR -K 10" --missing 0,0.3
      lrank experiment report experiment.parquet --format markdown
    """
    # A learner's warning is one line for the user, not Python's file, line and source text.
    warnings.formatwarning = _one_line_warning


def _one_line_warning(message: Warning | str, category: type[Warning], *_: object, **__: object) -> str:
    return f"Warning: {message}\n"


__all__ = ["main"]
