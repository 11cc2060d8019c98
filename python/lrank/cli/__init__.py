"""The ``lrank`` command line, mirroring WEKA-LR's workflow (``lrank train -t iris.xarff -W LRRF``)."""

from __future__ import annotations

import errno
import importlib
import io
import os
import sys
import warnings
from typing import Any

import click

from lrank import __version__
from lrank.cli.signals import Terminated

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

    def invoke(self, ctx: click.Context) -> Any:
        """The subcommand, with the endings a script can tell apart: 130 after Ctrl-C (not
        click's 1 of a bad file), 143 after a SIGTERM it caught (:mod:`lrank.cli.signals`), 141
        and silence when the reader of stdout has gone (``| head``), one line when stdout cannot
        be written (a full disk) or is closed."""
        if sys.stdout is None:  # started with stdout closed (>&-): output would vanish unsaid
            sys.stdout = _ClosedStdout()
        try:
            result = super().invoke(ctx)
            sys.stdout.flush()  # a full disk shows here, not as a traceback at exit
            return result
        except KeyboardInterrupt as exc:
            # 128 + the signal, as a shell reports a process the signal ended.
            terminated = isinstance(exc, Terminated)
            click.echo("\nterminated" if terminated else "\ninterrupted", err=True)
            raise click.exceptions.Exit(143 if terminated else 130) from None
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                name = f"{exc.filename}: " if exc.filename else "cannot write the output: "
                _stop_writing_stdout()
                raise click.ClickException(f"{name}{exc.strerror or exc}") from None
            _stop_writing_stdout()
            raise click.exceptions.Exit(141) from None  # 128 + SIGPIPE, as other tools in a pipe end


class _ClosedStdout(io.TextIOBase):
    """Standard output when the process started without one: a command that writes to it fails
    with one line; one that writes only files (convert, predict -o) runs as usual."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not text:
            return 0
        raise click.ClickException("standard output is closed: redirect it to a file or /dev/null")


def _stop_writing_stdout() -> None:
    """Points stdout at /dev/null, so that its unwritten buffer is not flushed again at exit
    (which printed "Exception ignored ... BrokenPipeError")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no file descriptor (CliRunner's stdout)
        pass


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
