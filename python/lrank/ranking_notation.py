"""The text notation of label rankings: ``b>a>c``, incomplete rankings, WEKA-LR partial orders.

Every reader, writer and printer of lrank parses and formats rankings through this module.

Notation
    ``b>a>c`` ranks label ``b`` first (most preferred), then ``a``, then ``c``.  Labels left
    out are missing from the ranking (``c>a`` is an incomplete ranking).  ``|`` separates the
    chains of a partial order (WEKA-LR): ``a>b|c>d`` prefers ``a`` to ``b`` and ``c`` to ``d``
    and says nothing about ``a`` against ``c``.  A label occurs at most once in a chain but may
    occur in several chains (``a>b|a>c``); the chains must not contradict each other
    (``a>b|b>a`` is a preference cycle).  A ranking names at least one label.

Chains
    The parsed form is a tuple of chains, each a tuple of 0-based label indices, most
    preferred first.  An ordinary (complete or incomplete) ranking is a single chain.

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

from lrank.quoting import QUOTES, MalformedTextError, quote, read_quoted

__all__ = [
    "Chains",
    "check_acyclic",
    "format_chains",
    "format_rank_row",
    "format_rank_rows",
    "label_indices",
    "parse_ranking",
    "preference_chains",
    "split_ranking",
]

Chains = tuple[tuple[int, ...], ...]
"""A preference as chains of 0-based label indices, most preferred first (one chain = a ranking)."""

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
    order, counts = _orders(r)
    po = partial_orders or {}
    out: list[str] = []
    for i in range(r.shape[0]):
        chains = po.get(i)
        if chains is not None:
            out.append(_join(chains, names))
        else:
            out.append(">".join(names[j] for j in order[i, : counts[i]]))
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
    ``[["a", "x y"], ["c"]]``.  Names are not checked against any label set."""
    chains: list[list[str]] = []
    chain: list[str] = []
    buf: list[str] = []
    had = False  # the current label has a character or a quoted part (possibly empty)
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c in QUOTES:
            part, i = read_quoted(text, i)
            buf.append(part)
            had = True
            continue
        if c == ">" or c == "|":
            if not had:
                raise MalformedTextError(f"empty label in ranking {text!r}")
            chain.append("".join(buf))
            buf, had = [], False
            if c == "|":
                chains.append(chain)
                chain = []
            i += 1
            continue
        buf.append(c)
        had = True
        i += 1
    if not had:
        if not chains and not chain:
            raise MalformedTextError(EMPTY_RANKING)
        raise MalformedTextError(f"empty label in ranking {text!r}")
    chain.append("".join(buf))
    chains.append(chain)
    return chains


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
