"""Exception types raised by lrank.

The Rust extension raises these same classes (it imports them), so user code
can catch one hierarchy whatever layer the problem was found in.
"""

from __future__ import annotations


class LrankError(Exception):
    """Base class of every error lrank raises on purpose."""


class InvalidInputError(LrankError, ValueError):
    """Arrays or parameters passed to lrank are malformed (shape, range, value)."""


class InvalidParameterError(InvalidInputError):
    """A learner parameter outside its domain. ``parameter`` names it (as the estimator calls
    it), ``reason`` says what is wrong."""

    parameter: str
    reason: str


class LearnerOutputError(LrankError, ValueError):
    """A learner's own output is not what lrank can use (a plug-in's predictions that leave
    labels out, say): the learner's fault, so the message names it, not the data file."""


class ModelFormatError(LrankError, ValueError):
    """A saved model file is corrupt, of another format version, or not a model."""


class DataFormatError(LrankError, ValueError):
    """A data file could not be read; names the file, the line and the problem."""

    # A problem quotes the text at fault; a 10 MB cell quoted whole would bury the message.
    MAX_PROBLEM_CHARS = 300

    def __init__(self, path: str | None, line: int | None, problem: str) -> None:
        self.path = path
        self.line = line
        half = self.MAX_PROBLEM_CHARS // 2
        cut = f"{problem[:half]} [... {len(problem) - 2 * half} characters ...] {problem[-half:]}"
        if len(cut) < len(problem):  # only where cutting shortens it
            problem = cut
        self.problem = problem
        where = path if path is not None else "<input>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {problem}")


class ExperimentError(LrankError):
    """An experiment cannot run or resume: bad configuration, a store made with other settings,
    or a learner that failed on one of its cells (the message names the cell)."""
