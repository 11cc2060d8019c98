"""The text notation of label rankings: ``b>a>c``, incomplete rankings, ties, WEKA-LR partial orders.

Every reader, writer and printer of lrank parses and formats rankings through this module.

Notation
    ``b>a>c`` ranks label ``b`` first (most preferred), then ``a``, then ``c``.  Labels left
    out are missing from the ranking (``c>a`` is an incomplete ranking).  ``|`` separates the
    chains of a partial order (WEKA-LR): ``a>b|c>d`` prefers ``a`` to ``b`` and ``c`` to ``d``
    and says nothing about ``a`` against ``c``.  A label occurs at most once in a chain but may
    occur in several chains (``a>b|a>c``); the chains must not contradict each other
    (``a>b|b>a`` is a preference cycle).  A ranking names at least one label.

Ties
    ``=`` ties labels: ``a>b=c>d`` is the bucket order ``{a} > {b, c} > {d}`` (a partial
    ranking, as in partial label ranking).  ``=`` binds tighter than ``>``; the labels of a tie
    are written in label order.  WEKA-LR's grammar leaves ``=`` free, so its ``a>b|c>d`` keeps its
    meaning; a tie cannot be combined with ``|`` (a partial order of tied labels is not a bucket
    order).  In a rank-matrix row, tied labels share a position and positions are dense
    (``a>b=c>d`` is ``1, 2, 2, 3``).  A label name holding ``=`` must be quoted.

Chains
    The parsed form is a tuple of chains, each a tuple of 0-based label indices, most
    preferred first.  An ordinary (complete or incomplete) ranking is a single chain.  A ranking
    with ties parses to :data:`Buckets` (:func:`parse_bucket_order`); readers take any text with
    :func:`parse_rank_row`.

Quoting
    Between the separators a label name is taken verbatim, except that any part of it may be
    quoted as described in :mod:`lrank.quoting` (``'x y'>z``, ``'a>b'>c``);
    :func:`split_ranking` removes the quotes.  The formatting functions write names as they
    are by default (for display: ``lrank predict``, ``ranking_strings``); with
    ``quoted=True`` they quote exactly the names that need it, so that :func:`parse_ranking`
    reads the text back (the XARFF writer).

Errors
    Malformed text raises :class:`lrank.quoting.MalformedTextError` (an
    :class:`lrank.errors.InvalidInputError`) whose message names the problem and the text; a
    file reader turns it into a :class:`lrank.errors.DataFormatError` naming the file and the
    line.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from lrank.errors import InvalidInputError
from lrank.quoting import QUOTES, MalformedTextError, quote, read_quoted

__all__ = [
    "Buckets",
    "Chains",
    "check_acyclic",
    "format_buckets",
    "format_chains",
    "format_rank_row",
    "format_rank_rows",
    "label_indices",
    "parse_bucket_order",
    "parse_rank_row",
    "parse_ranking",
    "preference_chains",
    "rank_row_from_chains",
    "split_bucket_chains",
    "split_ranking",
]

Chains = tuple[tuple[int, ...], ...]
"""A preference as chains of 0-based label indices, most preferred first (one chain = a ranking)."""

Buckets = tuple[tuple[int, ...], ...]
"""A bucket order as buckets of 0-based label indices (ascending), most preferred bucket first."""

EMPTY_RANKING = "empty ranking (a ranking needs at least one label)"


# ---------------------------------------------------------------------------
# formatting


def _label_names(labels: Sequence[str], quoted: bool) -> Sequence[str]:
    return [quote(name) for name in labels] if quoted else labels


def _join(chains: Iterable[Sequence[int]], names: Sequence[str]) -> str:
    return "|".join(">".join(names[j] for j in chain) for chain in chains)


def format_chains(chains: Iterable[Sequence[int]], labels: Sequence[str], *, quoted: bool = False) -> str:
    """Chains of label indices as text: ``((1, 0), (2,))`` with labels ``a, b, c`` gives ``b>a|c``.

    With ``quoted=True`` label names are quoted where they must be (see the module docstring).
    """
    return _join(chains, _label_names(labels, quoted))


def preference_chains(rankings: ArrayLike, partial_orders: Mapping[int, Chains] | None = None) -> list[Chains]:
    """Each row's preference as chains of label indices.

    ``rankings`` is a rank matrix (``rankings[i, j]`` = 1-based position of label ``j``, 0 =
    missing); a row listed in ``partial_orders`` gives its chains from there, any other row the
    single chain of its ranked labels, most preferred first.
    """
    r = np.asarray(rankings)
    order, counts = _orders(r)
    po = partial_orders or {}
    out: list[Chains] = []
    for i in range(r.shape[0]):
        chains = po.get(i)
        out.append(chains if chains is not None else (tuple(order[i, : counts[i]].tolist()),))
    return out


def format_buckets(buckets: Iterable[Sequence[int]], labels: Sequence[str], *, quoted: bool = False) -> str:
    """Buckets of label indices as text: ``((0,), (1, 2))`` with labels ``a, b, c`` gives ``a>b=c``."""
    names = _label_names(labels, quoted)
    return ">".join("=".join(names[j] for j in bucket) for bucket in buckets)


def format_rank_rows(
    rankings: ArrayLike,
    labels: Sequence[str],
    partial_orders: Mapping[int, Chains] | None = None,
    *,
    quoted: bool = False,
) -> list[str]:
    """Each row of a rank matrix as text (``b>a>c``); rows in ``partial_orders`` as their chains
    (``a>b|c>d``).  ``quoted`` as for :func:`format_chains`."""
    names = _label_names(labels, quoted)
    r = np.asarray(rankings)
    if r.ndim == 2 and r.shape[1] != len(names):
        # An IndexError from deep inside, or a silently shortened ranking, before.
        raise InvalidInputError(f"{len(names)} label names for rankings of {r.shape[1]} labels")
    if r.size:  # [5, -1] was formatted as "a"
        if not np.issubdtype(r.dtype, np.number) or (r.dtype.kind == "f" and not np.all(r == np.floor(r))):
            raise InvalidInputError("a ranking's positions must be whole numbers")
        low, high = r.min(), r.max()
        if low < 0 or high > r.shape[-1]:
            bad = low if low < 0 else high
            raise InvalidInputError(f"a ranking holds position {bad}, outside 0 to {r.shape[-1]}")
    keys = _row_keys(r)
    if keys is not None:
        # Each distinct row is formatted once: predictions repeat few rankings, and a Python
        # loop over millions of rows took longer than predicting them.
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        texts = np.asarray(_format_rows(r[first], names), dtype=object)[inverse.reshape(-1)].tolist()
    else:
        texts = _format_rows(r, names)
    for i, chains in (partial_orders or {}).items():
        texts[i] = _join(chains, names)
    return texts


def _row_keys(r: np.ndarray) -> np.ndarray | None:
    """Each row of a rank matrix packed into one int64 (equal rows, equal keys), or None when the
    rows do not fit in 63 bits (many labels) or there is nothing to share."""
    if r.ndim != 2 or r.shape[0] < 2 or r.shape[1] == 0 or not np.issubdtype(r.dtype, np.integer):
        return None
    low, high = int(r.min()), int(r.max())
    bits = max(high.bit_length(), 1)
    if low < 0 or bits * r.shape[1] > 63:
        return None
    keys = np.zeros(r.shape[0], dtype=np.int64)
    for j in range(r.shape[1]):
        keys = (keys << bits) | r[:, j].astype(np.int64)
    return keys


def _format_rows(r: np.ndarray, names: Sequence[str]) -> list[str]:
    order, counts = _orders(r)
    out: list[str] = []
    for i in range(r.shape[0]):
        ranked = order[i, : counts[i]]
        positions = r[i, ranked]
        if np.all(positions[1:] != positions[:-1]):
            out.append(">".join(names[j] for j in ranked))
        else:  # ties: '=' between labels sharing a position
            parts = [names[ranked[0]]] if len(ranked) else []
            for k in range(1, len(ranked)):
                parts.append(("=" if positions[k] == positions[k - 1] else ">") + names[ranked[k]])
            out.append("".join(parts))
    return out


def format_rank_row(row: ArrayLike, labels: Sequence[str], *, quoted: bool = False) -> str:
    """One rank-matrix row as text: ``[2, 0, 1]`` with labels ``a, b, c`` gives ``c>a``."""
    return format_rank_rows(np.asarray(row).reshape(1, -1), labels, quoted=quoted)[0]


def _orders(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the label indices sorted by position (ranked labels first) and how many are ranked."""
    order = np.argsort(np.where(r > 0, r, np.iinfo(np.int32).max), axis=1, kind="stable")
    return order, (r > 0).sum(axis=1)


# ---------------------------------------------------------------------------
# parsing


def split_ranking(text: str) -> list[list[str]]:
    """Split ranking text into chains of label names, quotes removed: ``"a>'x y'|c"`` gives
    ``[["a", "x y"], ["c"]]``.  Names are not checked against any label set.  Text with ties
    (``=``) is refused: split it with :func:`split_bucket_chains`."""
    chains = split_bucket_chains(text)
    if any(len(bucket) > 1 for chain in chains for bucket in chain):
        raise MalformedTextError(f"ranking {text!r} ties labels ('='): it is a bucket order, not chains")
    return [[bucket[0] for bucket in chain] for chain in chains]


def split_bucket_chains(text: str, *, strip_blanks: bool = False) -> list[list[list[str]]]:
    """Split ranking text into chains of buckets of label names, quotes removed: ``"a>b='x y'|c"``
    gives ``[[["a"], ["b", "x y"]], [["c"]]]``.  Names are not checked against any label set.
    ``strip_blanks`` drops the blanks around each name outside its quotes (``a > ' b'`` gives
    ``a`` and `` b``); a name of blanks alone is then empty, which is refused."""
    chains: list[list[list[str]]] = []
    chain: list[list[str]] = []
    bucket: list[str] = []
    parts: list[tuple[str, bool]] = []  # the current name's pieces, and whether each was quoted

    def name_at(i: int) -> str:
        pieces = list(parts)
        if strip_blanks:
            while pieces and not pieces[0][1] and not pieces[0][0].strip():
                pieces.pop(0)
            while pieces and not pieces[-1][1] and not pieces[-1][0].strip():
                pieces.pop()
            if pieces and not pieces[0][1]:
                pieces[0] = (pieces[0][0].lstrip(), False)
            if pieces and not pieces[-1][1]:
                pieces[-1] = (pieces[-1][0].rstrip(), False)
        if not pieces:
            if i >= len(text) and not chains and not chain and not bucket:
                raise MalformedTextError(EMPTY_RANKING)
            if i >= len(text):
                raise MalformedTextError(f"ranking {text!r} ends with {text[-1]!r}: a label name must follow it")
            raise MalformedTextError(_empty_label(text, i))
        return "".join(piece for piece, _ in pieces)

    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c in QUOTES:
            part, i = read_quoted(text, i)
            parts.append((part, True))
            continue
        if c == ">" or c == "|" or c == "=":
            bucket.append(name_at(i))
            parts = []
            if c != "=":
                chain.append(bucket)
                bucket = []
            if c == "|":
                chains.append(chain)
                chain = []
            i += 1
            continue
        parts.append((c, False))
        i += 1
    bucket.append(name_at(n))
    chain.append(bucket)
    chains.append(chain)
    return chains


def _empty_label(text: str, i: int) -> str:
    """Why no label precedes the notation character at ``text[i]``: it opens the text, or two
    notation characters meet (``a>=b``, where ``>`` and ``=`` do not combine)."""
    if i == 0:
        return f"ranking {text!r} starts with {text[0]!r}: a label name must come first"
    pair = text[i - 1 : i + 1]
    return f"no label between {text[i - 1]!r} and {text[i]!r} in ranking {text!r}" + (
        ": write a>b (before) or a=b (tied)" if pair in (">=", "=>") else ""
    )


def parse_ranking(text: str, labels: Sequence[str] | Mapping[str, int]) -> Chains:
    """Parse ranking text into chains of label indices.

    ``labels`` are the declared label names in order, or a ready map from name to index.
    Raises :class:`lrank.quoting.MalformedTextError` for an empty ranking or label, an
    undeclared label, a label twice in one chain, an unterminated quote, or chains that form a
    preference cycle.
    """
    label_index = labels if isinstance(labels, Mapping) else {name: j for j, name in enumerate(labels)}
    names = split_ranking(text)
    if names == [[""]] and "" not in label_index:
        raise MalformedTextError(EMPTY_RANKING)
    chains = label_indices(names, label_index, text=text)
    if len(chains) > 1:
        check_acyclic(chains, text)
    return chains


def parse_bucket_order(text: str, labels: Sequence[str] | Mapping[str, int]) -> Buckets:
    """Parse a ranking with or without ties (``a>b=c``) into buckets of label indices, each bucket
    ascending.  Raises :class:`lrank.quoting.MalformedTextError` as :func:`parse_ranking` does,
    and for partial-order chains (``|``), which are no bucket order."""
    label_index = labels if isinstance(labels, Mapping) else {name: j for j, name in enumerate(labels)}
    chains = split_bucket_chains(text)
    if chains == [[[""]]] and "" not in label_index:
        raise MalformedTextError(EMPTY_RANKING)
    if len(chains) > 1:
        raise MalformedTextError(f"ranking {text!r} is a partial order ('|'), not a bucket order")
    return _bucket_indices(chains[0], label_index, text)


def _bucket_indices(chain: Sequence[Sequence[str]], label_index: Mapping[str, int], text: str) -> Buckets:
    """One chain of buckets of label names as buckets of label indices, each ascending."""
    flat = label_indices([[name for bucket in chain for name in bucket]], label_index, text=text)[0]
    out: list[tuple[int, ...]] = []
    k = 0
    for bucket in chain:
        out.append(tuple(sorted(flat[k : k + len(bucket)])))
        k += len(bucket)
    return tuple(out)


def parse_rank_row(
    text: str, labels: Sequence[str] | Mapping[str, int], n_labels: int, *, strip_blanks: bool = False
) -> tuple[np.ndarray, Chains | None]:
    """Parse any ranking text into a rank-matrix row, and the chains of a partial order.

    A ranking, with or without ties, gives its row (tied labels sharing a dense position) and
    None; a partial order ``a>b|c>d`` gives the row of its first longest chain (see
    :func:`rank_row_from_chains`) and its chains.  A tie combined with ``|`` is refused.
    ``strip_blanks`` ignores blanks around each name (``a > b``).
    Raises :class:`lrank.quoting.MalformedTextError`.
    """
    label_index = labels if isinstance(labels, Mapping) else {name: j for j, name in enumerate(labels)}
    if label_index and max(label_index.values()) >= n_labels:
        raise InvalidInputError(f"{len(label_index)} label names for rankings of {n_labels} labels")
    chains = split_bucket_chains(text, strip_blanks=strip_blanks)
    if chains == [[[""]]] and "" not in label_index:
        raise MalformedTextError(EMPTY_RANKING)
    ties = any(len(bucket) > 1 for chain in chains for bucket in chain)
    if len(chains) > 1:
        if ties:
            raise MalformedTextError(
                f"ranking {text!r} combines a tie ('=') with a partial order ('|'), which lrank cannot represent"
            )
        parsed = label_indices([[bucket[0] for bucket in chain] for chain in chains], label_index, text=text)
        check_acyclic(parsed, text)
        return rank_row_from_chains(parsed, n_labels), parsed
    row = np.zeros(n_labels, dtype=np.int32)
    for position, bucket in enumerate(_bucket_indices(chains[0], label_index, text), start=1):
        row[list(bucket)] = position
    return row, None


def rank_row_from_chains(chains: Sequence[Sequence[int]], n_labels: int) -> np.ndarray:
    """Rank-matrix row for a preference given as chains of label indices.

    The row holds the first longest chain (see :mod:`lrank.data.dataset`); a single chain is
    returned as the incomplete ranking it is.
    """
    row = np.zeros(n_labels, dtype=np.int32)
    best = max(chains, key=len)  # max() returns the first of equal-length chains
    for pos, label in enumerate(best, start=1):
        row[label] = pos
    return row


def label_indices(
    name_chains: Iterable[Iterable[str]], label_index: Mapping[str, int], *, text: str | None = None
) -> Chains:
    """Chains of label names as chains of label indices.

    ``text`` is the ranking text the names come from, named in the messages; leave it out for
    chains that never were text (the Parquet column).  Raises
    :class:`lrank.quoting.MalformedTextError` for an undeclared label or a label twice in one
    chain.
    """
    where = f" in ranking {text!r}" if text is not None else ""
    out: list[tuple[int, ...]] = []
    for chain in name_chains:
        idx: list[int] = []
        seen: set[int] = set()
        for name in chain:
            j = label_index.get(name)
            if j is None:
                raise MalformedTextError(f"undeclared label {name!r}{where}")
            if j in seen:
                raise MalformedTextError(f"label {name!r} occurs twice{where or ' in one chain'}")
            seen.add(j)
            idx.append(j)
        out.append(tuple(idx))
    return tuple(out)


def check_acyclic(chains: Iterable[Sequence[int]], text: str) -> None:
    """Raise :class:`lrank.quoting.MalformedTextError` naming ``text`` if the chains, taken
    together, prefer some label to itself (a preference cycle such as ``a>b|b>a``)."""
    succ: dict[int, set[int]] = {}
    indeg: dict[int, int] = {}
    for chain in chains:
        for v in chain:
            indeg.setdefault(v, 0)
        for a, b in itertools.pairwise(chain):
            s = succ.setdefault(a, set())
            if b not in s:
                s.add(b)
                indeg[b] += 1
    stack = [v for v, d in indeg.items() if d == 0]
    done = 0
    while stack:
        v = stack.pop()
        done += 1
        for w in succ.get(v, ()):
            indeg[w] -= 1
            if indeg[w] == 0:
                stack.append(w)
    if done != len(indeg):
        raise MalformedTextError(f"ranking {text!r} contradicts itself (its chains form a preference cycle)")
