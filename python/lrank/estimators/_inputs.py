"""What the estimators accept as ``X`` and ``y``, turned into the arrays the core reads.

``X``: a NumPy array or anything ``numpy.asarray`` reads; a Polars or pandas DataFrame (its
column names become ``feature_names_in_``, checked at predict as scikit-learn does); a pyarrow
Table or RecordBatch (through Polars); categorical columns (pandas ``Categorical``, Polars
``Categorical`` or ``Enum``) as nominal features coded by their categories at fit. Sparse
matrices and complex numbers are refused with scikit-learn's messages.

``y``: a rank matrix (``y[i, j]`` the 1-based position of label ``j``, 0 when missing), a
DataFrame of positions whose column names are the label names, or a sequence of rankings as text
(``"b>a>c"``, see :func:`lrank.rankings.rank_matrix_from_strings`).
"""

from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lrank.errors import InvalidInputError
from lrank.rankings import as_rank_matrix, rank_matrix_from_strings, zero_based_suspicion


@dataclass
class Features:
    """``X`` as the core reads it."""

    values: NDArray[np.float64]
    names: list[str] | None = None
    # Per column: the categories of a categorical column (codes are their indices), else None.
    categories: list[list[Any] | None] = field(default_factory=list)


def _module(obj: Any) -> str:
    return type(obj).__module__.split(".")[0]


def _is_polars_categorical(dtype: Any) -> bool:
    import polars as pl

    return isinstance(dtype, (pl.Categorical, pl.Enum)) or dtype in (pl.Categorical, pl.Enum)


def _warn_unseen(unseen: set[Any], name: str) -> None:
    if unseen:
        shown = ", ".join(sorted(map(repr, map(str, unseen)))[:5])
        warnings.warn(
            f"X column {name!r} holds categories not seen at fit ({shown}): treated as missing values",
            UserWarning,
            stacklevel=_user_stacklevel(),
        )


def _user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning of the caller at the first frame outside lrank
    and scikit-learn: the user's line, whether it called fit, a metric or a pipeline."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None:
        name = frame.f_code.co_filename
        if not (name.startswith(package + os.sep) or f"{os.sep}sklearn{os.sep}" in name):
            break
        frame, level = frame.f_back, level + 1
    return level


def _polars_codes(col: Any, categories: list[Any]) -> NDArray[np.float64]:
    """Each value's index among ``categories``; missing and unseen values become NaN (missing)."""
    import polars as pl

    text = col.cast(pl.Utf8)
    codes = text.replace_strict(
        [str(c) for c in categories], list(range(len(categories))), default=None, return_dtype=pl.Float64
    )
    _warn_unseen(set(text.filter(codes.is_null() & text.is_not_null()).unique().to_list()), col.name)
    return codes.to_numpy(allow_copy=True)


def _polars_columns(frame: Any, known: list[list[Any] | None] | None) -> Features:
    import polars as pl

    columns: list[NDArray[np.float64]] = []
    categories: list[list[Any] | None] = []
    for j, name in enumerate(frame.columns):
        col = frame.get_column(name)
        seen = known[j] if known is not None and j < len(known) else None
        if _is_polars_categorical(col.dtype) or seen is not None:
            cats = seen if seen is not None else _categories_in_order(col)
            columns.append(_polars_codes(col, cats))
            categories.append(cats)
        elif col.dtype.is_numeric() or col.dtype == pl.Boolean:
            columns.append(col.cast(pl.Float64).to_numpy(allow_copy=True))
            categories.append(None)
        else:
            raise InvalidInputError(
                f"X column {name!r} has dtype {col.dtype}: lrank needs numbers, or categories "
                "(a Polars Categorical or Enum column, a pandas Categorical)"
            )
    values = np.column_stack(columns) if columns else np.empty((frame.height, 0))
    return Features(np.ascontiguousarray(values, dtype=np.float64), [str(c) for c in frame.columns], categories)


def _categories_in_order(col: Any) -> list[Any]:
    import polars as pl

    if isinstance(col.dtype, pl.Enum):
        # The declared categories the column holds, in their order: one declared but absent is
        # unseen at fit, and counts as missing at predict like any unseen category.
        present = set(col.cast(pl.Utf8).drop_nulls().unique().to_list())
        return [c for c in col.dtype.categories if c in present]
    return sorted(v for v in col.cast(pl.Utf8).unique().to_list() if v is not None)


def _pandas_codes(col: Any, categories: list[Any], name: str) -> NDArray[np.float64]:
    index = {c: i for i, c in enumerate(categories)}
    if hasattr(col, "cat"):
        own = list(col.cat.categories)
        remap = np.array([index.get(c, np.nan) for c in own] + [np.nan], dtype=np.float64)
        codes = col.cat.codes.to_numpy()
        _warn_unseen({c for c in own if c not in index} & set(col.dropna().unique()), name)
        return remap[np.where(codes < 0, len(own), codes)]
    values = col.tolist()
    _warn_unseen({v for v in values if v == v and v is not None and v not in index}, name)
    return np.array([index.get(v, np.nan) for v in values], dtype=np.float64)


def _arrow_dictionary(dtype: Any) -> bool:
    """Whether a pandas dtype is a pyarrow dictionary type (pandas' ArrowDtype of categories)."""
    pyarrow_dtype = getattr(dtype, "pyarrow_dtype", None)
    return pyarrow_dtype is not None and type(pyarrow_dtype).__name__ == "DictionaryType"


def _pandas_frame(frame: Any, known: list[list[Any] | None] | None) -> Features:
    import pandas as pd  # only reached with a pandas object, so pandas is installed

    columns: list[NDArray[np.float64]] = []
    categories: list[list[Any] | None] = []
    for j, name in enumerate(frame.columns):
        col = frame.iloc[:, j]
        if _arrow_dictionary(col.dtype):
            # pandas' pyarrow-backed categories (read_parquet(dtype_backend="pyarrow")).
            chunks = col.array.__arrow_array__().unify_dictionaries().chunks
            order = chunks[0].dictionary.to_pylist() if chunks else []
            col = col.astype(object).astype(pd.CategoricalDtype(order))
        seen = known[j] if known is not None and j < len(known) else None
        if isinstance(col.dtype, pd.CategoricalDtype) or seen is not None:
            # At fit, the declared categories the column holds (in their order): one declared
            # but absent from training counts as missing at predict, as an undeclared one does.
            present = set(col.dropna().unique()) if seen is None else set()
            cats = seen if seen is not None else [c for c in col.cat.categories if c in present]
            columns.append(_pandas_codes(col, cats, str(name)))
            categories.append(cats)
        elif col.dtype.kind in "biuf":
            columns.append(col.to_numpy(dtype=np.float64, na_value=np.nan))
            categories.append(None)
        else:
            raise InvalidInputError(
                f"X column {name!r} has dtype {col.dtype}: lrank needs numbers, or categories "
                "(a Polars Categorical or Enum column, a pandas Categorical)"
            )
    values = np.column_stack(columns) if columns else np.empty((len(frame), 0))
    return Features(np.ascontiguousarray(values, dtype=np.float64), _feature_names(frame.columns), categories)


def _feature_names(columns: Any) -> list[str] | None:
    """A pandas frame's column names as feature names: all strings, or none when no name is a
    string (integer columns); mixed names are refused, as scikit-learn does, for a reordered
    frame could not be told at predict (pd.concat and get_dummies make such frames)."""
    strings = [isinstance(c, str) for c in columns]
    if all(strings):
        return [str(c) for c in columns]
    if any(strings):
        kinds = sorted({type(c).__name__ for c in columns})
        raise InvalidInputError(
            f"X's column names are of types {kinds}: feature names must all be strings (or none), "
            "so that columns can be matched at predict; convert them with X.columns = X.columns.astype(str)"
        )
    return None


def features(X: Any, known_categories: list[list[Any] | None] | None = None) -> Features:
    """``X`` as a float64 matrix with its column names and categories (see the module docs).
    ``known_categories`` are those of the fit, which code a predict-time frame the same way."""
    # Polars, pandas and lrank's data layer are imported only when X is one of theirs.
    if _module(X) == "lrank":
        from lrank.data.dataset import LabelRankingDataset

        if isinstance(X, LabelRankingDataset):
            X = X.features.select([a.name for a in X.attributes if a.kind != "string"])
    if _module(X) == "pyarrow" and hasattr(X, "schema"):
        import polars as pl

        # One copy into a float64 matrix: Arrow keeps each column in buffers of its own.
        X = pl.from_arrow(X)
        if isinstance(X, pl.Series):
            X = X.to_frame()
    if _module(X) == "polars" and hasattr(X, "get_column"):
        out = _polars_columns(X, known_categories)
    elif _module(X) == "pandas" and hasattr(X, "iloc") and getattr(X, "ndim", 0) == 2:
        out = _pandas_frame(X, known_categories)
    else:
        out = Features(_numeric_matrix(X))
    out.values = _checked_matrix(out.values)
    if not out.categories:
        out.categories = [None] * out.values.shape[1]
    return out


def _numeric_matrix(X: Any) -> Any:
    """An array-like as an array, refusing what scikit-learn's check_array refuses, with its
    messages (sparse matrices, complex numbers)."""
    if _module(X) == "scipy" and hasattr(X, "tocsr"):
        raise TypeError(
            "Sparse data was passed for X, but dense data is required. "
            "Use '.toarray()' to convert to a dense numpy array."
        )
    arr = np.asarray(X)
    if np.iscomplexobj(arr):
        raise InvalidInputError(f"Complex data not supported\n{arr}\n")
    return arr


def _checked_matrix(values: Any) -> NDArray[np.float64]:
    """2-D float64, C-contiguous, at least one row. NaN is a missing value; infinite values are
    refused by the core, which names their row and column."""
    try:
        arr = np.asarray(values, dtype=np.float64)
    except TypeError as exc:
        raise TypeError(f"X must be numeric: {exc}") from None
    except ValueError as exc:
        raise InvalidInputError(f"X must be numeric: {exc}") from None
    if arr.ndim != 2:
        raise InvalidInputError(
            f"Expected 2D array, got {arr.ndim}D array instead. Reshape your data either using "
            "array.reshape(-1, 1) if your data has a single feature or array.reshape(1, -1) if it "
            "contains a single sample."
        )
    if arr.shape[0] < 1:
        raise InvalidInputError(f"Found array with 0 sample(s) (shape={arr.shape}) while a minimum of 1 is required.")
    if arr.shape[1] < 1:
        raise InvalidInputError(f"Found array with 0 feature(s) (shape={arr.shape}) while a minimum of 1 is required.")
    return np.ascontiguousarray(arr)


def _ranking_texts(y: Any) -> list[str] | None:
    """``y``'s items when it is a one-dimensional sequence of strings (rankings as text)."""
    if isinstance(y, (str, bytes)):
        return None
    if isinstance(y, (list, tuple)):
        values = list(y)
    elif isinstance(y, np.ndarray) and y.ndim == 1 and y.dtype.kind in "OU":
        values = y.tolist()
    elif _module(y) in ("pandas", "polars") and type(y).__name__ == "Series":
        values = y.to_list()
    else:
        return None
    # Any string among the items: text, whose other items are then named as errors (y[3]: None).
    return values if any(isinstance(v, str) for v in values) else None


def _warn_if_zero_based(y: NDArray[np.int32]) -> None:
    # Positions from argsort start at 0, which lrank reads as "label missing": every row would
    # silently lose a label.
    why = zero_based_suspicion(y, "y")
    if why is not None:
        warnings.warn(f"every row of y {why}", UserWarning, stacklevel=_user_stacklevel())


def with_known_labels(exc: InvalidInputError, labels: Any) -> InvalidInputError:
    """``exc`` with what the model knows when text ``y`` named a label it was not fitted with (a
    label no training row of a fold ranked); ``exc`` itself otherwise."""
    if labels is None or "undeclared label" not in str(exc):
        return exc
    return InvalidInputError(f"{exc}; the model knows {list(labels)} (fit with labels= naming every label)")


def frame_names(y: Any) -> list[str] | None:
    """The column names of a pandas, Polars or pyarrow table, else None."""
    module = _module(y)
    if module == "polars" and hasattr(y, "get_column"):
        return [str(c) for c in y.columns]
    if module == "pandas" and hasattr(y, "columns") and hasattr(y, "index"):
        return [str(c) for c in y.columns]
    if module == "pyarrow" and hasattr(y, "column_names"):
        return [str(c) for c in y.column_names]
    return None


_NULLABLE_INTS = {"Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64"}


def rank_targets(y: Any, labels: Any = None, *, by_name: bool = False) -> tuple[NDArray[np.int32], list[str] | None]:
    """``y`` as a rank matrix, and its label names when ``y`` is a DataFrame or rankings as text
    (parsed with ``labels`` as the columns when given). ``by_name`` (scoring against fitted
    ``labels``): a DataFrame's columns are put in the order of ``labels``, and other names refused."""
    texts = _ranking_texts(y)
    if texts is not None:
        return rank_matrix_from_strings(texts, None if labels is None else list(labels))
    if _module(y) == "pyarrow" and hasattr(y, "schema"):
        import polars as pl

        y = pl.from_arrow(y)
    names = frame_names(y)
    if names is not None:
        if _module(y) == "pandas" and any(str(t) in _NULLABLE_INTS or "[pyarrow]" in str(t) for t in y.dtypes):
            # Nullable integer columns (Int64, int64[pyarrow]): a missing value is a missing label.
            try:
                y = y.to_numpy(dtype=np.float64, na_value=np.nan)
            except (TypeError, ValueError):
                raise InvalidInputError(
                    f"y must hold integer positions, got columns of {sorted(set(map(str, y.dtypes)))}"
                ) from None
        else:
            y = y.to_numpy()
    # NaN is scikit-lr's mark of a missing label: zeros from it are no sign of 0-based positions.
    marked_missing = isinstance(y, np.ndarray) and y.dtype.kind == "f" and bool(np.isnan(y).any())
    matrix = as_rank_matrix(y, name="y")
    if by_name and names is not None and labels is not None:
        fitted = [str(label) for label in labels]
        matrix, names = in_label_order(matrix, names, fitted), fitted
    # lrank's readers give int32 matrices and warn themselves (a CSV file's positions); the
    # check is for arrays a user built (argsort and lists give int64).
    if not (isinstance(y, np.ndarray) and y.dtype == np.int32) and not marked_missing:
        _warn_if_zero_based(matrix)
    return matrix, names


def in_label_order(matrix: NDArray[np.int32], names: list[str], labels: list[str]) -> NDArray[np.int32]:
    """A DataFrame ``y``'s rank matrix with its columns (``names``) in the order of the fitted
    ``labels``: columns are matched by name, as they were at fit, never by place."""
    if names == labels:
        return matrix
    if sorted(names) != sorted(labels):
        raise InvalidInputError(
            f"y's columns {names} are not the labels {labels} (the fitted labels_, or labels=): name the columns "
            "so, or pass a rank matrix with its columns in that order"
        )
    return np.ascontiguousarray(matrix[:, [names.index(label) for label in labels]])


def fit_takes_sample_weight(estimator: Any) -> bool:
    """Whether ``estimator.fit`` names a ``sample_weight`` parameter (scikit-learn's test)."""
    import inspect

    try:
        return "sample_weight" in inspect.signature(estimator.fit).parameters
    except (TypeError, ValueError):  # a fit without a signature (a builtin): assume not
        return False


def warn_if_nothing_to_learn(y: NDArray[np.int32], labels: list[str] | None) -> None:
    """Warns when the training rankings cannot teach an order: none orders two labels (each
    holds at most one), or some label is ranked by no row. Learners fitted so ranked every row
    in label order, or such a label anywhere, with nothing said."""
    if y.shape[0] == 0 or y.shape[1] < 2:
        return
    held = y > 0
    if (held.sum(axis=1) < 2).all():
        warnings.warn(
            "no training ranking orders two labels (each holds at most one): there is no preference to learn, "
            "and every prediction follows the label order",
            UserWarning,
            stacklevel=_user_stacklevel(),
        )
        return
    unranked = np.flatnonzero(~held.any(axis=0))
    if unranked.size:
        # Without names, the column of y (1-based, as the KEBI layout's L1, L2, ...).
        names = [labels[j] if labels is not None else f"the label of column {j + 1}" for j in unranked[:5]]
        warnings.warn(
            f"no training ranking holds {', '.join(map(str, names))}{', ...' if unranked.size > 5 else ''}: "
            "its predicted position comes from no data",
            UserWarning,
            stacklevel=_user_stacklevel(),
        )
