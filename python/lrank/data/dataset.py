"""In-memory label-ranking data set.

A :class:`LabelRankingDataset` holds a feature table (a Polars DataFrame) and,
for every row, a ranking of a fixed set of labels.

Decisions documented here (they hold for every reader and writer of
``lrank.data``):

Rank matrix
    ``rankings[i, j]`` is the 1-based position of label ``j`` in row ``i``'s
    ranking (1 = most preferred); 0 means label ``j`` does not occur in the
    row's ranking (an *incomplete* ranking).  Labels sharing a position are
    tied: a row is a bucket order, its positions dense (the distinct non-zero
    positions are exactly ``1..b``, ``b`` the number of buckets, at least 1):
    ``1,2,2,3`` is ``{L1} > {L2, L3} > {L4}`` (scikit-lr's convention).  A row
    without ties holds exactly ``1..m'`` for its ``m'`` ranked labels.  In text
    a tie is written ``=`` (``L1>L2=L3>L4``; see :mod:`lrank.ranking_notation`).

Partial orders
    XARFF lets a row give its preferences as several ``|``-separated chains
    (``a>b|c>d``).  A rank-matrix row cannot hold a partial order, so it keeps
    the *first longest chain* (``a>b`` here): an incomplete ranking that is
    consistent with the partial order and invents no preference.  The exact
    chains are kept in ``partial_orders[row]`` as tuples of label indices,
    most preferred first; the XARFF writer writes them back verbatim.  Rows
    given as a single chain are ordinary (incomplete) rankings and never
    appear in ``partial_orders``.  A partial order cannot hold ties.

Missing feature values
    A missing value (``?`` in ARFF, an empty cell in the KEBI CSV) is a null
    in ``features`` and NaN in :meth:`LabelRankingDataset.feature_matrix`.  A
    numeric value written as ``NaN`` is treated as missing too (stored as
    null).  An infinite value (``inf``, ``-inf``, ``1e999``) is refused by the
    readers, naming the file and the line: no learner accepts one.

Nominal attributes
    Stored as ``pl.Enum(declared values)``, so the declared order is kept.
    In :meth:`LabelRankingDataset.feature_matrix` a nominal value is coded as
    its 0-based index among the declared values (as float64).

String attributes
    Stored as ``pl.Utf8`` columns of ``features`` but EXCLUDED from
    :meth:`LabelRankingDataset.feature_matrix` (there is no meaningful numeric
    coding); :meth:`LabelRankingDataset.feature_names` lists the columns that
    are used.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import polars as pl

from lrank import _core
from lrank.errors import DataFormatError, InvalidInputError
from lrank.ranking_notation import format_rank_rows, rank_row_from_chains

__all__ = [  # rank_row_from_chains lives in lrank.ranking_notation, re-exported here
    "Attribute",
    "LabelRankingDataset",
    "check_rank_matrix_size",
    "check_writable",
    "dataset_from_arrays",
    "first_invalid_rank_row",
    "rank_row_from_chains",
]

AttributeKind = Literal["numeric", "nominal", "string"]


@dataclass(frozen=True)
class Attribute:
    """One feature attribute.

    ``kind`` is ``"numeric"`` (ARFF NUMERIC/REAL/INTEGER), ``"nominal"`` (with
    ``values`` = the declared values, in declaration order) or ``"string"``.
    """

    name: str
    kind: AttributeKind
    values: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise InvalidInputError(f"an attribute name must be a string, got {self.name!r:.40}")
        if self.values is not None and not all(isinstance(v, str) for v in self.values):
            raise InvalidInputError(f"attribute {self.name!r}: declared values must be strings")
        if self.kind not in ("numeric", "nominal", "string"):
            raise InvalidInputError(f"attribute {self.name!r}: unknown kind {self.kind!r}")
        if self.kind == "nominal":
            if self.values is None:
                raise InvalidInputError(f"nominal attribute {self.name!r} needs declared values")
            if len(set(self.values)) != len(self.values):
                raise InvalidInputError(f"nominal attribute {self.name!r} declares a value twice")
        elif self.values is not None:
            raise InvalidInputError(f"{self.kind} attribute {self.name!r} cannot declare values")

    def polars_dtype(self) -> pl.DataType:
        """The Polars dtype of this attribute's column in ``features``."""
        if self.kind == "numeric":
            return pl.Float64()
        if self.kind == "nominal":
            return pl.Enum(list(self.values or ()))
        return pl.Utf8()


def relation_of(path: str | os.PathLike[str]) -> str:
    """A data set's name from its file name (formats without one of their own): the stem, with
    bytes that are not UTF-8 (an old archive's Latin-1 name) as U+FFFD, since the name is
    written into model files and XARFF headers, which must be valid UTF-8."""
    return Path(path).stem.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def free_name(base: str, taken: set[str]) -> str:
    """``base``, or with underscores in front until no name in ``taken`` is the same (the name
    of a ranking or weight column beside the features)."""
    name = base
    while name in taken:
        name = "_" + name
    return name


def check_writable(dataset: LabelRankingDataset) -> None:
    """Refuses what no reader would read back: no rows, weights that are not finite and
    non-negative, infinite feature values, a ranking named like a feature (InvalidInputError)."""
    if dataset.n_rows == 0:
        raise InvalidInputError("cannot write a data set without rows (no reader would read it)")
    w = dataset.weights
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        bad = int(np.flatnonzero(~(np.isfinite(w) & (w >= 0)))[0])
        raise InvalidInputError(f"row {bad + 1} has weight {w[bad]}: weights must be finite and non-negative")
    for a in dataset.attributes:
        if a.kind == "numeric":
            values = dataset.features.get_column(a.name).cast(pl.Float64).to_numpy()
            infinite = np.flatnonzero(np.isinf(values))
            if infinite.size:
                raise InvalidInputError(f"attribute {a.name!r} holds an infinite value in row {infinite[0] + 1}")
    if dataset.rankings is not None and dataset.ranking_name in {a.name for a in dataset.attributes}:
        raise InvalidInputError(f"ranking name {dataset.ranking_name!r} clashes with a feature name")


def check_rank_matrix_size(path: str, line: int | None, n_rows: int, n_labels: int, item_bytes: int = 4) -> None:
    """Refuses (DataFormatError naming the file) a rank matrix of ``n_rows`` x ``n_labels`` that
    would need more memory than this process may use: a file of rows that each name one label
    of a million declared ones would otherwise be allocated until the machine gives out."""
    try:
        _core.check_allocation("the rank matrix", [n_rows, n_labels], item_bytes)
    except InvalidInputError as exc:
        raise DataFormatError(path, line, str(exc)) from None


def first_invalid_rank_row(rankings: np.ndarray) -> int | None:
    """Index of the first row that is not a valid rank-matrix row, or None.

    A valid row has at least one non-zero entry, and its distinct non-zero
    entries are exactly ``1..b`` for some ``b`` (ties allowed; zeros are
    missing labels).
    """
    if rankings.ndim != 2:
        raise InvalidInputError("rank matrix must be two-dimensional")
    n, m = rankings.shape
    if n == 0:
        return None
    r = rankings.astype(np.int64, copy=False)
    in_range = ((r >= 0) & (r <= m)).all(axis=1)
    present = (r > 0).sum(axis=1)
    srt = np.sort(np.where(in_range[:, None], r, 0), axis=1)
    # Dense: the sorted row (zeros first) rises from 0 in steps of 0 or 1.
    steps = np.diff(srt, axis=1, prepend=0)
    ok = in_range & (present >= 1) & ((steps == 0) | (steps == 1)).all(axis=1)
    bad = np.flatnonzero(~ok)
    return int(bad[0]) if bad.size else None


@dataclass
class LabelRankingDataset:
    """Feature table plus one (possibly incomplete) label ranking per row.

    See the module docstring for the encoding of rankings, partial orders,
    missing values, nominal and string attributes.
    """

    relation: str
    attributes: list[Attribute]
    features: pl.DataFrame
    labels: tuple[str, ...]
    rankings: np.ndarray | None
    weights: np.ndarray
    partial_orders: dict[int, tuple[tuple[int, ...], ...]] = field(default_factory=dict)
    source: str | None = None
    ranking_name: str = "L"
    # Each row's 1-based line in its text file (XARFF/ARFF, KEBI CSV), for messages about a row;
    # None for Parquet and data built in memory.
    lines: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.labels = tuple(self.labels)
        self.weights = np.ascontiguousarray(self.weights, dtype=np.float64)
        if self.weights.ndim != 1:
            raise InvalidInputError("weights must be one-dimensional")
        n = self.weights.shape[0]
        names = [a.name for a in self.attributes]
        if len(set(names)) != len(names):
            raise InvalidInputError("attribute names must be unique")
        if self.features.columns != names:
            raise InvalidInputError(f"features columns {self.features.columns} do not match attributes {names}")
        if self.attributes and self.features.height != n:
            raise InvalidInputError(f"features has {self.features.height} rows but weights has {n}")
        if len(set(self.labels)) != len(self.labels):
            raise InvalidInputError("label names must be unique")
        if self.rankings is not None and self.ranking_name in names:
            raise InvalidInputError(f"ranking name {self.ranking_name!r} clashes with a feature name")
        if self.rankings is not None:
            self.rankings = np.ascontiguousarray(self.rankings, dtype=np.int32)
            if self.rankings.shape != (n, len(self.labels)):
                raise InvalidInputError(f"rankings has shape {self.rankings.shape}, expected {(n, len(self.labels))}")
        for row in self.partial_orders:
            if not 0 <= row < n:
                raise InvalidInputError(f"partial order given for row {row} of {n}")

    def __repr__(self) -> str:
        # The generated repr printed every attribute and the feature table (7,000 characters for
        # wine), in a notebook and inside scikit-learn's messages.
        shown = ", ".join(self.labels[:6]) + (", ..." if self.n_labels > 6 else "")
        rankings = "" if self.rankings is not None else ", no rankings"
        where = f", from {self.source!r}" if self.source is not None else ""
        return (
            f"LabelRankingDataset({self.relation!r}: {self.n_rows} rows, {self.n_features} attributes, "
            f"{self.n_labels} labels ({shown}){rankings}{where})"
        )

    # -- sizes ---------------------------------------------------------------
    @property
    def n_rows(self) -> int:
        return int(self.weights.shape[0])

    @property
    def n_features(self) -> int:
        """Number of feature attributes (string attributes included)."""
        return len(self.attributes)

    @property
    def n_labels(self) -> int:
        return len(self.labels)

    def where(self, row: int) -> str:
        """Where 0-based ``row`` is, for a message: ``FILE:LINE`` when the file's lines are
        known, else ``FILE, instance N`` (1-based, as WEKA counts), without a file ``instance N``."""
        if self.source is not None and self.lines is not None and 0 <= row < len(self.lines):
            return f"{self.source}:{int(self.lines[row])}"
        return f"{self.source}, instance {row + 1}" if self.source is not None else f"instance {row + 1}"

    # -- views ---------------------------------------------------------------
    def feature_names(self) -> list[str]:
        """Names of the columns of :meth:`feature_matrix` (string attributes excluded)."""
        return [a.name for a in self.attributes if a.kind != "string"]

    def nominal_features(self) -> np.ndarray:
        """Boolean mask over the columns of :meth:`feature_matrix`: True for nominal attributes.

        Pass it as ``categorical_features`` to an estimator so that trees split one value
        against the rest and distances count a mismatch, instead of treating codes as numbers.
        """
        return np.array([a.kind == "nominal" for a in self.attributes if a.kind != "string"], dtype=bool)

    def feature_matrix(self) -> np.ndarray:
        """float64 (n, d_used) C-contiguous matrix of the non-string features.

        Numeric values as they are, nominal values as the 0-based index of the
        value among the declared values, missing values as NaN.  String
        attributes are excluded.
        """
        used = [a for a in self.attributes if a.kind != "string"]
        out = np.empty((self.n_rows, len(used)), dtype=np.float64)
        for j, attr in enumerate(used):
            col = self.features.get_column(attr.name)
            if attr.kind == "nominal":
                col = col.to_physical()
            out[:, j] = col.cast(pl.Float64).to_numpy(allow_copy=True)
        return out

    def ranking_strings(self) -> list[str]:
        """Each row's ranking as ``"a>b>c"``; partial orders as chains joined by ``|``. A label name
        that holds the notation's characters is quoted (see :mod:`lrank.ranking_notation`), so
        the text reads back."""
        if self.rankings is None:
            raise InvalidInputError("this data set has no rankings")
        return format_rank_rows(self.rankings, self.labels, self.partial_orders, quoted=True)


def dataset_from_arrays(
    X: np.ndarray,
    Y: np.ndarray | None,
    *,
    labels: Sequence[str] | None = None,
    feature_names: Sequence[str] | None = None,
    relation: str = "data",
    weights: np.ndarray | None = None,
    ranking_name: str = "L",
) -> LabelRankingDataset:
    """Build a data set from a numeric feature matrix and a rank matrix.

    ``X`` is (n, d), NaN = missing (stored as null).  ``Y`` is the (n, m) rank
    matrix (1-based positions, 0 = label missing; see the module docstring) or
    None for a plain feature table.  Labels default to ``L1..Lm`` and feature
    names to ``A1..Ad`` (the KEBI convention).  Raises ``InvalidInputError``
    on inconsistent input.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise InvalidInputError(f"X must be two-dimensional, got shape {X.shape}")
    if np.isinf(X).any():
        i, j = np.argwhere(np.isinf(X))[0]
        raise InvalidInputError(f"X holds an infinite value in row {i}, column {j}")
    n, d = X.shape
    if feature_names is None:
        feature_names = [f"A{j + 1}" for j in range(d)]
    feature_names = [str(f) for f in feature_names]
    if len(feature_names) != d:
        raise InvalidInputError(f"{len(feature_names)} feature names for {d} columns")
    if ranking_name in feature_names:
        raise InvalidInputError(f"ranking name {ranking_name!r} clashes with a feature name")
    rankings = None
    if Y is not None:
        Y_arr = np.asarray(Y)
        if Y_arr.ndim != 2 or Y_arr.shape[0] != n:
            raise InvalidInputError(f"Y must have shape (n={n}, m), got {Y_arr.shape}")
        if (
            Y_arr.size
            and not np.issubdtype(Y_arr.dtype, np.integer)
            and (not np.all(np.isfinite(Y_arr)) or not np.all(Y_arr == np.round(Y_arr)))
        ):
            raise InvalidInputError("Y must hold integer positions")
        rankings = np.ascontiguousarray(Y_arr, dtype=np.int32)
        bad = first_invalid_rank_row(rankings)
        if bad is not None:
            raise InvalidInputError(
                f"row {bad} of Y is not a ranking (dense positions 1..b, tied labels sharing one, 0 = missing): "
                f"{Y_arr[bad].tolist()}"
            )
        m = rankings.shape[1]
        if labels is None:
            labels = [f"L{j + 1}" for j in range(m)]
        labels = tuple(str(x) for x in labels)
        if len(labels) != m:
            raise InvalidInputError(f"{len(labels)} labels for {m} rank-matrix columns")
    else:
        labels = tuple(str(x) for x in labels) if labels is not None else ()
    if weights is None:
        w = np.ones(n, dtype=np.float64)
    else:
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (n,):
            raise InvalidInputError(f"weights must have shape ({n},), got {w.shape}")
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise InvalidInputError("weights must be finite and non-negative")
    attributes = [Attribute(name, "numeric") for name in feature_names]
    if len(set(feature_names)) != len(feature_names):
        raise InvalidInputError("feature names must be unique")
    # a dict keeps empty column names (a list of Series would rename them)
    features = pl.DataFrame(
        {name: pl.Series(name, X[:, j], dtype=pl.Float64).fill_nan(None) for j, name in enumerate(feature_names)}
    )
    return LabelRankingDataset(
        relation=str(relation),
        attributes=attributes,
        features=features,
        labels=labels,
        rankings=rankings,
        weights=w,
        partial_orders={},
        source=None,
        ranking_name=ranking_name,
    )


def numeric_columns(
    names: Sequence[str],
    columns: Sequence[Sequence[str | None]],
    n: int,
    fail: Callable[[int, int, str], Exception],
    missing: Sequence[str] = (),
) -> pl.DataFrame:
    """Text columns of ``n`` rows (None or a ``missing`` marker = missing) as Float64 columns; NaN
    read as missing. The cells are cast as one series (a polars call per column made a file of
    2,000 features take seconds, of 40,000 most of a minute). The first column holding a value
    that is no number, then the first holding an infinite one, is refused at its first such
    row: ``fail(row, column, "non-numeric value" or "infinite value")`` makes the error."""
    if not names:
        return pl.DataFrame()
    text = pl.Series([cell for column in columns for cell in column], dtype=pl.Utf8)
    if missing:
        text = text.replace(list(missing), [None] * len(missing))
    numbers = text.cast(pl.Float64, strict=False)
    # Column after column: the first flagged cell is the first column's first row at fault.
    for problem, flags in (
        ("non-numeric value", numbers.is_null() & text.is_not_null()),
        ("infinite value", numbers.is_infinite()),
    ):
        if flags.any():
            k = int(flags.arg_true()[0])
            raise fail(k % n, k // n, problem)
    values = numbers.to_numpy().reshape(len(names), n)  # missing values as NaN, kept as nulls below
    return pl.DataFrame({name: pl.Series(name, values[j], nan_to_null=True) for j, name in enumerate(names)})
