"""Label-ranking data: the :class:`LabelRankingDataset` model and its file formats.

* :func:`read_arff` - ARFF / XARFF (WEKA-LR) files,
* :func:`read_kebi_csv` - the CSV layout of the KEBI benchmark sets,
* :func:`read_parquet` / :func:`write_parquet` - Parquet with lrank's metadata (exact round trip),
* :func:`read_dataset` / :func:`write_dataset` - any of these, chosen by the file suffix,
* :func:`write_xarff` - XARFF that :func:`read_arff` reads back identically,
* :func:`dataset_from_arrays` - a data set from a feature matrix and a rank matrix.

The encoding decisions (rank matrix, partial orders, missing values, nominal
and string attributes) are documented in :mod:`lrank.data.dataset`.
"""

from __future__ import annotations

import os
from pathlib import Path

from lrank.data.arff import read_arff, write_xarff
from lrank.data.dataset import Attribute, LabelRankingDataset, dataset_from_arrays
from lrank.data.kebi_csv import read_kebi_csv, write_kebi_csv
from lrank.data.parquet import read_parquet, write_parquet
from lrank.errors import DataFormatError

__all__ = [
    "Attribute",
    "LabelRankingDataset",
    "dataset_from_arrays",
    "read_arff",
    "read_dataset",
    "read_kebi_csv",
    "read_parquet",
    "write_dataset",
    "write_kebi_csv",
    "write_parquet",
    "write_xarff",
]

DATA_SUFFIXES = (".xarff", ".arff", ".csv", ".parquet")


# '-' was taken for a file of that name ("file not found", "unknown suffix"): the readers take
# files only (their size and format known before they are read).
STDIN_REFUSED = "data are read from files only: standard input ('-') is not supported, save the data to a file"
STDOUT_REFUSED = "data are written to files only: standard output ('-') is not supported, name a file"


def read_dataset(path: str | os.PathLike[str], *, require_rankings: bool = True) -> LabelRankingDataset:
    """Read a data file, choosing the reader by suffix.

    ``.xarff`` / ``.arff`` -> :func:`read_arff`; ``.csv`` -> :func:`read_kebi_csv`
    (always with rankings); ``.parquet`` -> :func:`read_parquet`.  Any other suffix raises
    ``DataFormatError``.
    """
    if os.fspath(path) == "-":
        raise DataFormatError("-", None, STDIN_REFUSED)
    suffix = Path(os.fspath(path)).suffix.lower()
    if suffix in (".xarff", ".arff"):
        return read_arff(path, require_rankings=require_rankings)
    if suffix == ".csv":
        return read_kebi_csv(path, require_rankings=require_rankings)
    if suffix == ".parquet":
        return read_parquet(path, require_rankings=require_rankings)
    raise DataFormatError(
        os.fspath(path),
        None,
        f"unknown data file suffix {suffix or '(none)'!r}: expected .xarff, .arff, .csv or .parquet",
    )


def write_dataset(dataset: LabelRankingDataset, path: str | os.PathLike[str]) -> None:
    """Write a data set, choosing the format by suffix: ``.xarff``/``.arff``, ``.csv`` (KEBI) or
    ``.parquet``."""
    if os.fspath(path) == "-":
        raise DataFormatError("-", None, STDOUT_REFUSED)
    suffix = Path(os.fspath(path)).suffix.lower()
    if suffix in (".xarff", ".arff"):
        write_xarff(dataset, path)
    elif suffix == ".csv":
        write_kebi_csv(dataset, path)
    elif suffix == ".parquet":
        write_parquet(dataset, path)
    else:
        raise DataFormatError(
            os.fspath(path),
            None,
            f"unknown data file suffix {suffix or '(none)'!r}: expected .xarff, .arff, .csv or .parquet",
        )
