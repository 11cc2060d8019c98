"""Rank-matrix helpers shared by estimators, evaluation and the CLI.

A rank matrix is an int32 array of shape (n, m): entry [i, j] is the 1-based position of label j
in row i's ranking (1 = most preferred), 0 when label j is missing from that ranking.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank import _core
from lrank.errors import InvalidInputError


def as_rank_matrix(y: ArrayLike, *, name: str = "Y") -> NDArray[np.int32]:
    """``y`` as a C-contiguous int32 rank matrix, validated (raises InvalidInputError)."""
    arr = np.asarray(y)
    if arr.ndim != 2:
        raise InvalidInputError(f"{name} must be a 2-D rank matrix (n_rows, n_labels), got shape {arr.shape}")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr) | np.isnan(arr)):
            raise InvalidInputError(f"{name} holds infinite values")
        # scikit-lr marks missing labels with NaN; accept that spelling too.
        arr = np.where(np.isnan(arr), 0, arr)
        if np.any(arr != np.round(arr)):
            raise InvalidInputError(f"{name} must hold integer positions")
    elif arr.dtype.kind not in "iu":
        raise InvalidInputError(f"{name} must hold integer positions, got dtype {arr.dtype}")
    out = np.ascontiguousarray(arr, dtype=np.int32)
    _core.validate_rank_matrix(out)
    return out


def order_of(row: Sequence[int] | NDArray[np.integer]) -> list[int]:
    """Labels of one rank-matrix row, most preferred first (missing labels left out)."""
    r = np.asarray(row)
    present = np.flatnonzero(r > 0)
    return [int(j) for j in present[np.argsort(r[present], kind="stable")]]


def format_ranking(row: Sequence[int] | NDArray[np.integer], labels: Sequence[str]) -> str:
    """One rank-matrix row as ``a>b>c`` (most preferred first)."""
    return ">".join(labels[j] for j in order_of(row))


def delete_labels(
    y: NDArray[np.int32], p: float, rng: np.random.Generator, *, keep_at_least: int = 2
) -> NDArray[np.int32]:
    """Deletes each label of each ranking with probability ``p`` (as in the papers' protocol).

    A ranking keeps at least ``keep_at_least`` labels (or all it had, if fewer): when the random
    deletion would leave fewer, randomly chosen deleted labels are put back. The remaining labels
    keep their relative order and are renumbered 1..k.
    """
    if not 0.0 <= p <= 1.0:
        raise InvalidInputError(f"missing-label probability must lie in [0, 1], got {p}")
    y = np.asarray(y, dtype=np.int32)
    out = y.copy()
    if p == 0.0:
        return out
    drop = rng.random(y.shape) < p
    drop &= y > 0
    for i in range(y.shape[0]):
        present = np.flatnonzero(y[i] > 0)
        kept = present[~drop[i, present]]
        need = min(keep_at_least, present.size) - kept.size
        if need > 0:
            dropped = present[drop[i, present]]
            restore = rng.choice(dropped, size=need, replace=False)
            drop[i, restore] = False
        row = np.where(drop[i], 0, y[i])
        nz = np.flatnonzero(row > 0)
        row[nz[np.argsort(row[nz], kind="stable")]] = np.arange(1, nz.size + 1)
        out[i] = row
    return out


def top_labels(y: NDArray[np.int32]) -> NDArray[np.int64]:
    """Index of each row's most preferred label (-1 for an empty row)."""
    y = np.asarray(y)
    has_top = (y == 1).any(axis=1)
    return np.where(has_top, np.argmax(y == 1, axis=1), -1)
