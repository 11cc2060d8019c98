"""Rank-matrix helpers shared by estimators, evaluation and the CLI.

A rank matrix is an int32 array of shape (n, m): entry [i, j] is the 1-based position of label j
in row i's ranking (1 = most preferred), 0 when label j is missing from that ranking. Labels
sharing a position are tied (a bucket order); positions are dense: ``[1, 2, 2, 3]``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank import _core
from lrank.errors import InvalidInputError
from lrank.quoting import MalformedTextError
from lrank.ranking_notation import format_rank_row, parse_rank_row, split_bucket_chains


def _text_hint(arr: np.ndarray) -> str:
    """How to pass text ``y`` that arrived as a 2-D array: one column of rankings, or label names
    listed in order."""
    if arr.dtype.kind not in "OUS" or not arr.size:
        return ""
    if arr.shape[1] == 1:
        return ": a single column of rankings as text goes in as a 1-D sequence (df['ranking'], not df[['ranking']])"
    return ": rows of label names, most preferred first? write each as text, 'a>b>c' (ties 'a>b=c')"


def as_rank_matrix(y: ArrayLike, *, name: str = "Y") -> NDArray[np.int32]:
    """``y`` as a C-contiguous int32 rank matrix, validated (raises InvalidInputError); ties
    (labels sharing a position, positions dense) are allowed."""
    try:
        arr = np.asarray(y)
    except (TypeError, ValueError):  # rows of different lengths: numpy's "inhomogeneous shape"
        raise InvalidInputError(
            f"{name} must be a 2-D rank matrix (n_rows, n_labels): its rows differ in length"
        ) from None
    if arr.ndim != 2:
        raise InvalidInputError(f"{name} must be a 2-D rank matrix (n_rows, n_labels), got shape {arr.shape}")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr) | np.isnan(arr)):
            raise InvalidInputError(f"{name} holds infinite values")
        # scikit-lr marks missing labels with NaN; accept that spelling too.
        arr = np.where(np.isnan(arr), 0, arr)
        if np.any(arr != np.round(arr)):
            fraction = arr[arr != np.round(arr)].flat[0]
            hint = (
                ": halves look like average ranks of ties (pandas' rank()): give tied labels one position, "
                "dense (rank(method='dense'))"
                if fraction * 2 == np.round(fraction * 2)
                else ""
            )
            raise InvalidInputError(f"{name} must hold integer positions, got {fraction:g}{hint}")
    elif arr.dtype.kind not in "iu":
        raise InvalidInputError(f"{name} must hold integer positions, got dtype {arr.dtype}{_text_hint(arr)}")
    if arr.size and arr.dtype != np.int32:
        # Positions beyond int32 would wrap around to valid ones in the conversion below.
        info = np.iinfo(np.int32)
        outside = (arr < info.min) | (arr > info.max)
        if outside.any():
            i, j = (int(v) for v in np.argwhere(outside)[0])
            raise InvalidInputError(
                f"row {i} of {name} is not a ranking: label {j} has position {arr[i, j]}, outside 0..={arr.shape[1]}"
            )
    out = np.ascontiguousarray(arr, dtype=np.int32)
    _core.validate_rank_matrix(out)
    return out


def as_predictions(y: ArrayLike, *, name: str = "y_pred") -> NDArray[np.int32]:
    """Predicted rankings as a rank matrix: valid (:func:`as_rank_matrix`) and ranking every label
    (ties allowed). A prediction with a label left out (0 or NaN) is refused, where truth may
    lack labels: scored on the labels it holds, a prediction missing some would score as if it
    had them right (0-based positions, a common slip, read 0 as missing and scored tau near 1)."""
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.dtype.kind == "f" and np.isnan(arr).any():
        i, j = (int(v) for v in np.argwhere(np.isnan(arr))[0])
        raise InvalidInputError(
            f"row {i} of {name} leaves label {j} unranked (NaN): a prediction must rank every label"
        )
    try:
        out = as_rank_matrix(arr, name=name)
    except InvalidInputError as exc:
        raise InvalidInputError(str(exc).replace("of the rank matrix", f"of {name}", 1)) from None
    missing = out == 0
    if missing.any():
        i, j = (int(v) for v in np.argwhere(missing)[0])
        zero_based = bool((out.min(axis=1) == 0).all() and (out.max(axis=1) <= out.shape[1] - 1).all())
        hint = "; if its positions are 0-based, add 1" if zero_based else ""
        raise InvalidInputError(
            f"row {i} of {name} leaves label {j} unranked (position 0): a prediction must rank every label, "
            f"with positions from 1{hint}"
        )
    return out


def zero_based_suspicion(y: NDArray[np.int32], holder: str) -> str | None:
    """Why a valid rank matrix looks like 0-based positions, which lrank reads as rankings that
    each leave a label (or a tied top bucket) out, or None: the rest of "every row of y ...".
    ``holder`` names what holds the positions (``y``, a file)."""
    n, m = y.shape
    zeros = (y == 0).sum(axis=1)
    if n and m >= 2 and np.all(zeros == 1) and np.all(y.max(axis=1) == m - 1):
        return (
            "leaves out one label (position 0 means a missing label) and ranks the rest "
            f"1..{m - 1}: if {holder} holds 0-based positions, add 1 (positions start at 1)"
        )
    if n >= 5 and m >= 2 and np.all(zeros >= 1) and np.any(zeros >= 2) and _looks_shifted(y, zeros):
        # With ties, 0-based positions leave out a whole top bucket: every row misses a label,
        # which labels truly missing at random rarely do to every row. Top-k rankings (1..k, the
        # rest 0) do too, but neither tie ranked labels nor hold a row that is a whole 0-based
        # ranking (one 0, the rest 1..m-1).
        return (
            f"leaves out at least one label (position 0 means a missing label): if {holder} holds "
            "0-based positions (a tied top bucket at 0), add 1 (positions start at 1); labels missing "
            "at random can look alike, and then there is nothing to do"
        )
    return None


def _looks_shifted(y: NDArray[np.int32], zeros: NDArray[np.intp]) -> bool:
    """Whether rows that all leave out labels look like 0-based bucket orders rather than top-k
    rankings: some row ties two ranked labels, or is a whole 0-based ranking."""
    ranked = np.sort(y, axis=1)
    ties = np.any((ranked[:, 1:] == ranked[:, :-1]) & (ranked[:, 1:] > 0))
    return bool(ties or np.any((zeros == 1) & (y.max(axis=1) == y.shape[1] - 1)))


def tied_rows(y: ArrayLike) -> NDArray[np.bool_]:
    """Per row of a valid rank matrix: whether it ties labels (fewer buckets than labels present)."""
    arr = np.asarray(y)
    if arr.ndim != 2:
        raise InvalidInputError(f"a rank matrix is 2-D (n_rows, n_labels), got shape {arr.shape}")
    if arr.shape[1] == 0:
        return np.zeros(arr.shape[0], dtype=bool)
    return np.asarray(arr.max(axis=1) < (arr > 0).sum(axis=1))


def has_ties(y: ArrayLike) -> bool:
    """Whether any row of a valid rank matrix ties labels."""
    return bool(tied_rows(y).any())


def tie_complaint(
    y: ArrayLike,
    refusal: str,
    *,
    learner: str = "this estimator",
    where: Callable[[int], str] = lambda row: f"row {row} of y",
    labels: Sequence[str] | None = None,
    instead: str = "a partial label ranking learner",
) -> str | None:
    """What to tell a user whose training rankings ``y`` tie labels, for a ``learner`` that cannot
    learn from ties (``refusal``, the core's ``tie_refusal``, says why); None when no row ties
    labels. ``where`` names a 0-based row, ``labels`` the labels (else 0-based columns)."""
    arr = np.asarray(y)
    tied = tied_rows(arr)
    if not tied.any():
        return None
    i = int(np.argmax(tied))
    row = arr[i]
    a = next(j for j in range(row.shape[0]) if row[j] > 0 and np.count_nonzero(row == row[j]) > 1)
    b = next(j for j in range(a + 1, row.shape[0]) if row[j] == row[a])
    pair = f"labels {labels[a]!r} and {labels[b]!r}" if labels is not None else f"labels {a} and {b}"
    return (
        f"{where(i)}: {pair} are tied ({int(tied.sum())} of {arr.shape[0]} rankings tie labels), which "
        f"{learner} cannot learn from ({refusal}): use {instead}"
    )


def order_of(row: Sequence[int] | NDArray[np.integer]) -> list[int]:
    """Labels of one rank-matrix row, most preferred first (missing labels left out)."""
    r = np.asarray(row)
    present = np.flatnonzero(r > 0)
    return [int(j) for j in present[np.argsort(r[present], kind="stable")]]


def format_ranking(row: Sequence[int] | NDArray[np.integer], labels: Sequence[str]) -> str:
    """One rank-matrix row as ``a>b>c`` (most preferred first), label names unquoted
    (:func:`lrank.ranking_notation.format_rank_row`)."""
    return format_rank_row(row, labels)


def delete_labels(
    y: NDArray[np.int32], p: float, rng: np.random.Generator, *, keep_at_least: int = 2
) -> NDArray[np.int32]:
    """Deletes each label of each ranking with probability ``p`` (as in the papers' protocol).

    A ranking keeps at least ``keep_at_least`` labels (or all it had, if fewer): when the random
    deletion would leave fewer, randomly chosen deleted labels are put back. The remaining labels
    keep their relative order and their ties, renumbered densely (1..k without ties).
    """
    if not 0.0 <= p <= 1.0:
        raise InvalidInputError(f"missing-label probability must lie in [0, 1], got {p}")
    y = np.asarray(y, dtype=np.int32)
    if p == 0.0:
        return y.copy()
    present = y > 0
    drop = (rng.random(y.shape) < p) & present
    need = np.minimum(keep_at_least, present.sum(axis=1)) - (present & ~drop).sum(axis=1)
    for i in np.flatnonzero(need > 0):  # rows left too short: put back random deleted labels
        dropped = np.flatnonzero(drop[i])
        drop[i, rng.choice(dropped, size=need[i], replace=False)] = False
    kept = present & ~drop
    # Renumber the kept labels densely in their old order: a label's new position is the number
    # of distinct kept positions up to its own (1..k when nothing is tied).
    key = np.where(kept, y, np.iinfo(np.int32).max)
    order = np.argsort(key, axis=1, kind="stable")
    srt = np.take_along_axis(key, order, axis=1)
    rises = np.ones_like(srt)
    rises[:, 1:] = srt[:, 1:] != srt[:, :-1]
    new = np.empty_like(y)
    np.put_along_axis(new, order, np.cumsum(rises, axis=1).astype(np.int32), axis=1)
    return np.where(kept, new, 0).astype(np.int32)


def top_labels(y: NDArray[np.int32]) -> NDArray[np.int64]:
    """Index of each row's most preferred label (-1 for an empty row; the lowest index of a tied
    top bucket)."""
    y = np.asarray(y)
    has_top = (y == 1).any(axis=1)
    return np.where(has_top, np.argmax(y == 1, axis=1), -1)


def _natural_key(name: str) -> list[Any]:
    # L2 before L10, as the files' label columns are ordered.
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def rank_matrix_from_strings(
    texts: Sequence[str], labels: Sequence[str] | None = None, *, name: str = "y"
) -> tuple[NDArray[np.int32], list[str]]:
    """Rankings written as text (``"b>a>c"``; ties ``"a>b=c"``; labels left out are missing;
    blanks around names ignored) as a rank matrix, and its label names: ``labels`` in their
    order, else every name the texts use, in natural order (``L2`` before ``L10``). A partial
    order ``"a>b|c>d"`` keeps its first longest chain, as the data readers do. An item that is no
    ranking, or names a label not in ``labels``, raises :class:`~lrank.errors.InvalidInputError`
    naming its index (``y[3]: ...``); so do texts that are all single labels (class labels, not
    rankings)."""
    if isinstance(texts, (str, bytes)):
        raise InvalidInputError(f"{name} must be a sequence of rankings as text, not one string {texts!r}")
    texts = list(texts)
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise InvalidInputError(f"{name}[{i}] is not a ranking written as text: {text!r}")
    if texts and not any(mark in text for text in texts for mark in ">="):
        raise InvalidInputError(
            f"{name} holds single labels ({texts[0]!r}, ...), not rankings: a ranking orders labels, as in 'b>a>c'"
        )
    if labels is None:
        found: set[str] = set()
        for i, text in enumerate(texts):
            try:
                chains = split_bucket_chains(text, strip_blanks=True)
                found.update(label for chain in chains for bucket in chain for label in bucket)
            except MalformedTextError as exc:
                raise InvalidInputError(f"{name}[{i}]: {exc}") from None
        names = sorted(found, key=_natural_key)
    else:
        names = [str(label) for label in labels]
    index = {label: j for j, label in enumerate(names)}
    if len(index) != len(names):
        raise InvalidInputError(f"labels must be distinct, got {names}")
    out = np.zeros((len(texts), len(names)), dtype=np.int32)
    for i, text in enumerate(texts):
        try:
            out[i], _ = parse_rank_row(text, index, len(names), strip_blanks=True)
        except MalformedTextError as exc:
            raise InvalidInputError(f"{name}[{i}]: {exc}") from None
    return out, names
