"""The ``lrank`` command line, mirroring WEKA-LR's workflow (``lrank train -t iris.xarff -W LRRF``)."""

from __future__ import annotations

import warnings

import click

from lrank import __version__
from lrank.cli.data_commands import convert_command, info_command
from lrank.cli.experiment import experiment_group
from lrank.cli.learners import learners_command
from lrank.cli.predict import predict_command
from lrank.cli.train import train_command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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


main.add_command(train_command)
main.add_command(predict_command)
main.add_command(learners_command)
main.add_command(info_command)
main.add_command(convert_command)
main.add_command(experiment_group)

__all__ = ["main"]
