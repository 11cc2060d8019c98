"""The label-ranking data sets bundled with lrank, inside the package: ``iris`` and ``wine``,
made from scikit-learn's copies of the UCI tables by the KEBI procedure (see ``datasets/README.md``
in the repository: the files live there, with the script that made them, and the package holds
links to them that the wheel turns into copies).

>>> from lrank.datasets import load_iris
>>> data = load_iris()
>>> data.labels, data.n_rows
(('setosa', 'versicolor', 'virginica'), 150)

The command line takes the same names where it reads a data file: ``lrank train -t iris``.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import Any

NAMES = ("iris", "wine")

__all__ = ["NAMES", "load", "load_iris", "load_wine", "path", "resolve"]


def path(name: str) -> Path:
    """The file of a bundled data set."""
    if name not in NAMES:
        raise ValueError(f"no bundled data set {name!r}; there are {', '.join(NAMES)}")
    return Path(str(resources.files(__name__).joinpath(f"{name}.xarff")))


def resolve(path_or_name: str | os.PathLike[str]) -> Path:
    """A data file's path: the path itself when it exists, else a bundled data set's file when the
    name is one (``iris``, ``wine``), else the path (whose reading then reports it missing)."""
    given = Path(path_or_name)
    if not given.exists() and str(path_or_name) in NAMES:
        return path(str(path_or_name))
    return given


def load(name: str) -> Any:
    """A bundled data set as a :class:`lrank.data.LabelRankingDataset`."""
    from lrank.data import read_dataset

    return read_dataset(path(name))


def load_iris() -> Any:
    """Iris (150 rows, 4 features, 3 labels: setosa, versicolor, virginica)."""
    return load("iris")


def load_wine() -> Any:
    """Wine (178 rows, 13 features, 3 labels: class_0, class_1, class_2)."""
    return load("wine")
