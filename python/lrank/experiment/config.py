"""What an experiment runs: data sets, learners with options, and the protocol.

Learners are written as on the command line, ``NAME OPTIONS`` (``"IBLR -K 10"``), optionally
with a label for the tables (``"RF100=LRRF -I 100"``); a sweep (``"LRRF -I 10,20,50"``) expands to
one learner per value. Data sets are files, globs or directories. A TOML file can hold all of it::

    datasets = ["../shared/datasets/kebi-csv"]        # files, globs, directories
    learners = ["LRRF", "IBLR -K 10", "RF100=LRRF -I 100"]
    sweep = ["LRRF -depth 2,4,8"]                    # optional
    folds = 10
    repeats = 5
    missing = [0, 0.3, 0.6]
    seed = 1
    output = "results.parquet"
    jobs = 2                                         # optional: threads per learner
    workers = 1                                      # optional: processes

Relative paths in the file are relative to the file's directory.
"""

from __future__ import annotations

import glob
import math
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lrank.data import DATA_SUFFIXES
from lrank.data.dataset import relation_of
from lrank.errors import ExperimentError, LrankError
from lrank.evaluation.cross_validation import MAX_REPEATS
from lrank.file_bytes import read_file_bytes
from lrank.registry import get_learner

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found]

__all__ = [
    "DatasetSource",
    "ExperimentConfig",
    "LearnerSetting",
    "expand_datasets",
    "expand_sweep",
    "load_config_file",
    "parse_learner",
    "parse_missing",
]

DEFAULT_OUTPUT = "experiment.parquet"


@dataclass(frozen=True)
class LearnerSetting:
    """One learner column of the experiment: a label and a registry learner with options."""

    label: str
    name: str
    options: tuple[str, ...] = ()

    @property
    def options_text(self) -> str:
        """The options as one shell-quoted string (how the store records them)."""
        return shlex.join(self.options)


def _split_label(text: str) -> tuple[str | None, str]:
    """``"RF100=LRRF -I 100"`` -> ``("RF100", "LRRF -I 100")``; no label -> ``(None, text)``.

    The part before the first ``=`` is a label only when none of its words is an option (starts
    with ``-``), so an option value holding ``=`` is not mistaken for one.
    """
    head, sep, tail = text.partition("=")
    if sep and head.strip() and not any(word.startswith("-") for word in head.split()):
        return head.strip(), tail.strip()
    return None, text.strip()


def _tokens(text: str, original: str) -> list[str]:
    try:
        tokens = shlex.split(text)
    except ValueError as exc:
        raise ExperimentError(f"learner {original!r}: {exc}") from None
    if not tokens:
        raise ExperimentError(f"learner {original!r}: no learner name (see `lrank learners`)")
    return tokens


def _setting(label: str | None, tokens: list[str]) -> LearnerSetting:
    spec = get_learner(tokens[0])  # LearnerOptionError names the available learners
    options = tuple(tokens[1:])
    spec.parse_options(options)  # option mistakes are reported before any work starts
    return LearnerSetting(label=label or " ".join(tokens), name=spec.name, options=options)


def parse_learner(text: str) -> LearnerSetting:
    """A learner string, ``[LABEL=]NAME [OPTIONS]``, checked against the registry."""
    if not isinstance(text, str):
        raise ExperimentError(
            f"a learner is given as text, as -W takes it ('LRT -depth 3'), not as {type(text).__name__}; "
            "`lrank learners` lists the names and options"
        )
    label, rest = _split_label(text)
    try:
        return _setting(label, _tokens(rest, text))
    except LrankError as exc:
        if label is None or " " not in label or not str(exc).startswith("unknown learner"):
            raise
        # "LRT max_depth=3" read as the label "LRT max_depth" of a learner named "3".
        raise type(exc)(
            f"{exc} (in {text!r}: options are written as -W takes them, 'LRT -depth 3', and LABEL=NAME "
            "labels a learner, 'Deep=LRT -depth 0')"
        ) from None


def expand_sweep(text: str) -> list[LearnerSetting]:
    """``"LRRF -I 10,20,50"`` -> learners ``LRRF -I 10``, ``LRRF -I 20``, ``LRRF -I 50``.

    Exactly one option value must be a comma-separated list. With a label (``"RF=LRRF -I 10,20"``)
    the learners are labelled ``RF -I 10`` and so on.
    """
    label, rest = _split_label(text)
    tokens = _tokens(rest, text)
    lists = [i for i in range(2, len(tokens)) if "," in tokens[i] and tokens[i - 1].startswith("-")]
    if len(lists) != 1:
        raise ExperimentError(
            f"sweep {text!r}: give exactly one option with a comma-separated list of values, e.g. 'LRRF -I 10,20,50'"
        )
    at = lists[0]
    values = [v.strip() for v in tokens[at].split(",")]
    if any(not v for v in values) or len(set(values)) != len(values):
        raise ExperimentError(f"sweep {text!r}: the values {tokens[at]!r} must be distinct and non-empty")
    out = []
    for value in values:
        swept = tokens[:at] + [value] + tokens[at + 1 :]
        name = f"{label} {tokens[at - 1]} {value}" if label else None
        out.append(_setting(name, swept))
    return out


@dataclass(frozen=True)
class DatasetSource:
    """One data set: its name in the tables (the file name without suffix) and its file."""

    name: str
    path: str


def _data_files_in(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.is_file() and p.suffix.lower() in DATA_SUFFIXES)


def expand_datasets(specs: Sequence[str], base_dir: str | os.PathLike[str] | None = None) -> list[DatasetSource]:
    """Data files from files, globs and directories (a directory gives its data files, by name).

    Relative specs are taken relative to ``base_dir`` when given. Each data set is named by its
    file name without the suffix, or by ``NAME=FILE`` (for one file); two data sets of the same
    name are refused.
    """
    files: list[tuple[str, Path]] = []
    for spec in specs:
        given, sep, rest = spec.partition("=")
        named = bool(sep and given) and not any(ch in given for ch in "/\\*?[") and not os.path.exists(spec)
        found = _files_of(rest if named else spec, base_dir)
        if named and (len(found) != 1 or os.path.isdir(rest) or any(ch in rest for ch in "*?[")):
            raise ExperimentError(f"{spec}: NAME= names one data file, not a directory or a pattern")
        files += [(given if named else relation_of(f), f) for f in found]
    out: list[DatasetSource] = []
    seen: dict[str, str] = {}
    for name, f in files:
        path = os.fspath(f)
        if name in seen:
            if os.path.realpath(seen[name]) == os.path.realpath(path):
                continue  # the same file named twice
            raise ExperimentError(
                f"two data sets are named {name!r}: {seen[name]} and {path}; name one of them as NAME={path}"
            )
        seen[name] = path
        out.append(DatasetSource(name=name, path=path))
    return out


def _files_of(spec: str, base_dir: str | os.PathLike[str] | None) -> list[Path]:
    """The data files of one spec: a file, a glob pattern or a directory."""
    raw = os.path.expanduser(spec)
    full = Path(base_dir, raw) if base_dir is not None and not os.path.isabs(raw) else Path(raw)
    if any(ch in str(full) for ch in "*?["):  # a glob pattern
        matches = sorted(Path(p) for p in glob.glob(str(full)))
        found = [p for p in matches if p.is_file() and p.suffix.lower() in DATA_SUFFIXES]
        found += [f for p in matches if p.is_dir() for f in _data_files_in(p)]
        if not found:
            raise ExperimentError(f"{spec}: no data files ({', '.join(DATA_SUFFIXES)}) match this pattern")
        return found
    if full.is_dir():
        found = _data_files_in(full)
        if not found:
            raise ExperimentError(f"{spec}: the directory holds no data files ({', '.join(DATA_SUFFIXES)})")
        return found
    if full.is_file():
        if full.suffix.lower() not in DATA_SUFFIXES:
            raise ExperimentError(
                f"{spec}: unknown data file suffix {full.suffix or '(none)'!r}: expected {', '.join(DATA_SUFFIXES)}"
            )
        return [full]
    from lrank import datasets

    if spec in datasets.NAMES:  # a bundled data set by name, as lrank train -t iris takes it
        return [datasets.path(spec)]
    raise ExperimentError(f"{spec}: no such file or directory")


def parse_missing(value: str | float | Sequence[Any]) -> tuple[float, ...]:
    """Missing-label probabilities from ``"0,0.3,0.6"``, a number, or a list; each in [0, 1)."""
    if isinstance(value, str):
        parts: list[Any] = list(value.split(","))
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        parts = [value]
    elif isinstance(value, Sequence):
        parts = list(value)
    else:
        raise ExperimentError(f"missing-label probabilities: expected numbers, got {value!r}")
    out: list[float] = []
    for part in parts:
        try:
            p = float(part.strip() if isinstance(part, str) else part)
        except (TypeError, ValueError):
            raise ExperimentError(f"missing-label probability {part!r} is not a number") from None
        if isinstance(part, bool) or math.isnan(p) or not 0.0 <= p < 1.0:
            raise ExperimentError(f"missing-label probability {part!r} must lie in [0, 1)")
        if p not in out:
            out.append(p)
    if not out:
        raise ExperimentError("give at least one missing-label probability")
    return tuple(out)


@dataclass(frozen=True)
class ExperimentConfig:
    """A whole experiment: every (data set, learner, p, repeat, fold) cell it is made of."""

    datasets: tuple[DatasetSource, ...]
    learners: tuple[LearnerSetting, ...]
    folds: int = 10
    repeats: int = 5
    missing: tuple[float, ...] = (0.0,)
    seed: int = 1
    output: str = DEFAULT_OUTPUT
    jobs: int | None = None
    workers: int = 1
    sweeps: tuple[str, ...] = field(default=())
    # A Dask cluster for the cells: a scheduler address or local:N (see lrank.dask).
    dask: str | None = None

    def __post_init__(self) -> None:
        if not self.datasets:
            raise ExperimentError("no data sets: give files, globs or directories (or `datasets` in --config)")
        if not self.learners:
            raise ExperimentError("no learners: give -W NAME (or `learners` in --config); see `lrank learners`")
        for learner in self.learners:
            if not isinstance(learner, LearnerSetting):
                raise ExperimentError(f"learners are parse_learner's LearnerSettings, not {type(learner).__name__}")
        if not self.output.lower().endswith(".parquet"):
            # A store is a Parquet file whatever its name; another suffix would mislead.
            raise ExperimentError(
                f"{self.output}: the result store is a Parquet file; name it .parquet "
                "(`lrank experiment report STORE --format csv -o FILE.csv` writes the tables as CSV)"
            )
        labels = [lr.label for lr in self.learners]
        dup = sorted({x for x in labels if labels.count(x) > 1})
        if dup:
            specs = [f"{lr.name} {lr.options_text}".strip() for lr in self.learners if lr.label == dup[0]]
            # Marks in parentheses: a digit after "LRRF -I 5" would read as another option value.
            example = " ".join(f"-W '{dup[0]} ({'ab'[i]})={spec}'" for i, spec in enumerate(specs[:2]))
            raise ExperimentError(f"learner label {dup[0]!r} is given twice; name them apart, e.g. {example}")
        # Checked here as the command line checks them: before any work, not cell by cell.
        check_counts({"folds": self.folds, "repeats": self.repeats, "seed": self.seed, "workers": self.workers})
        object.__setattr__(self, "missing", parse_missing(self.missing))
        # The repeats take seeds s..s+R-1, stored as signed 64-bit integers.
        if not self.seed <= 2**63 - self.repeats:
            top = 2**63 - self.repeats
            raise ExperimentError(f"the seed must lie in 0..{top} with {self.repeats} repeats, got {self.seed}")
        if self.jobs is not None:
            check_counts({"jobs": self.jobs})
        if self.dask is not None:
            if self.workers != 1:
                raise ExperimentError("give workers (processes here) or dask (a cluster), not both")
            from lrank.dask.cluster import check_spec

            check_spec(self.dask)

    @property
    def n_cells(self) -> int:
        return len(self.datasets) * len(self.learners) * len(self.missing) * self.repeats * self.folds


def check_counts(values: Mapping[str, int]) -> None:
    """The whole-number settings given (folds, repeats, seed, workers, jobs) in their ranges;
    jobs as scikit-learn's n_jobs (-1 all cores, -2 all but one), not 0."""
    for key, value in values.items():
        if key == "jobs":
            if value == 0:
                raise ExperimentError("jobs must not be 0: give a positive number of threads, or -1 for all cores")
            continue
        low = {"folds": 2, "repeats": 1, "seed": 0, "workers": 1}[key]
        if key == "repeats" and not low <= value <= MAX_REPEATS:
            raise ExperimentError(f"repeats must lie in 1..{MAX_REPEATS}, got {value}")
        if value < low:
            raise ExperimentError(f"{key} must be at least {low}, got {value}")


CONFIG_KEYS = (
    "datasets",
    "learners",
    "sweep",
    "folds",
    "repeats",
    "missing",
    "seed",
    "output",
    "jobs",
    "workers",
    "dask",
)


def load_config_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The settings of a TOML experiment file, type-checked, with data sets expanded and the
    output path resolved against the file's directory. Keys absent from the file are absent."""
    spath = os.fspath(path)
    try:
        raw = tomllib.loads(read_file_bytes(spath).decode("utf-8"))
    except FileNotFoundError:
        raise ExperimentError(f"{spath}: config file not found") from None
    except OSError as exc:
        raise ExperimentError(f"{spath}: cannot read config file: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ExperimentError(f"{spath}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ExperimentError(f"{spath}: not valid TOML: values nested too deep") from None
    unknown = sorted(set(raw) - set(CONFIG_KEYS))
    if unknown:
        raise ExperimentError(f"{spath}: unknown setting {unknown[0]!r} (known: {', '.join(CONFIG_KEYS)})")
    base = Path(spath).resolve().parent
    out: dict[str, Any] = {}

    def strings(key: str) -> list[str]:
        value = raw[key]
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ExperimentError(f"{spath}: {key} must be a string or a list of strings")
        return value

    def integer(key: str) -> int:
        value = raw[key]
        if not isinstance(value, int) or isinstance(value, bool):
            raise ExperimentError(f"{spath}: {key} must be an integer, got {value!r}")
        return value

    try:
        if "datasets" in raw:
            out["datasets"] = expand_datasets(strings("datasets"), base_dir=base)
        if "learners" in raw:
            out["learners"] = [parse_learner(s) for s in strings("learners")]
        if "sweep" in raw:
            out["sweep"] = strings("sweep")
        for key in ("folds", "repeats", "seed", "jobs", "workers"):
            if key in raw:
                out[key] = integer(key)
                check_counts({key: out[key]})
        if "missing" in raw:
            out["missing"] = parse_missing(raw["missing"])
        if "dask" in raw:
            if not isinstance(raw["dask"], str):
                raise ExperimentError(f"{spath}: dask must be a string (an address or local:N)")
            out["dask"] = raw["dask"]
        if "output" in raw:
            if not isinstance(raw["output"], str):
                raise ExperimentError(f"{spath}: output must be a string")
            out["output"] = os.fspath(base / os.path.expanduser(raw["output"]))
    except LrankError as exc:  # bad learners too: say which file they come from
        msg = str(exc)
        raise ExperimentError(msg if msg.startswith(spath) else f"{spath}: {msg}") from None
    return out


def merge_settings(file_settings: Mapping[str, Any], cli_settings: Mapping[str, Any]) -> dict[str, Any]:
    """Command-line settings override the file's (``None`` / empty on the command line = not given)."""
    merged = dict(file_settings)
    for key, value in cli_settings.items():
        if value is not None and value != () and value != []:
            merged[key] = value
    return merged
