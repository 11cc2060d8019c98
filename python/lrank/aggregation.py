"""Rank aggregation: one consensus ranking from several (weighted, possibly incomplete) rankings.

Every function takes a rank matrix (rows = rankings; entry = 1-based position, 0 = missing;
labels sharing a position are tied) and optional row weights, and returns a complete rank vector.
``borda``, ``copeland``, ``kemeny``, ``mallows`` and ``plackett_luce`` return rankings without
ties (equal scores go to the lower label index; scores are compared as computed in floating
point, so weights that are no exact binary fractions, such as 0.1, can split a tie by rounding:
whole-number weights give exactly the consensus of the rankings repeated). Borda gives tied
labels the votes of their mid-rank, Copeland and Kemeny count a tied pair for neither order,
Mallows and Plackett-Luce refuse ties. The partial-label-ranking consensus keeps ties: ``bpa``
(BPA-LIA-MP2), ``tied_borda`` and ``tied_copeland`` (with a tie threshold beta), all computed
from ``pair_order_matrix``; they return bucket orders (dense positions, tied labels sharing
one). A label that no ranking orders against another label (none holds it, or only rankings
of that label alone) is set aside: the consensus orders the other labels (their pair-order
matrix) and puts it in a last bucket of its own (several such labels tie there), where its
entries of 1/2 would otherwise pull it into the middle (BPA would even take it as a pivot and
tie every label). :func:`bucket_order_of_matrix` sees only a matrix, so it cannot tell such
labels apart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank import _core
from lrank.errors import InvalidInputError, InvalidParameterError
from lrank.rankings import as_rank_matrix


def _weights(weights: ArrayLike | None) -> NDArray[np.float64] | None:
    if weights is None:
        return None
    try:
        w = np.ascontiguousarray(weights, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInputError(f"weights must be numbers, got {weights!r:.80}") from None
    if w.ndim != 1:
        raise InvalidInputError(f"weights must be one number per ranking (1-D), got shape {w.shape}")
    with np.errstate(over="ignore"):
        total = w.sum()
    if np.isfinite(w).all() and not np.isfinite(total):
        # Each weight finite, their sum not: counts overflowed to a pair order of 0 against 0.
        raise InvalidInputError(f"weights must have a finite sum, got {total}: scale them down")
    return w


def _bad(name: str, reason: str) -> InvalidParameterError:
    err = InvalidParameterError(f"invalid parameter {name}: {reason}")
    err.parameter, err.reason = name, reason
    return err


def _count(name: str, value: object) -> int:
    # The core reads an unsigned count: a negative or huge int would fail in the conversion.
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise _bad(name, f"must be an int, got {value!r:.80}")
    if value < 1:  # the core's own words for 0, and for -1 too (not "0 or more")
        raise _bad(name, f"must be at least 1, got {value}")
    if value >= 2**63:
        raise _bad(name, f"must be below 2**63, got {value}")
    return int(value)


def _real(name: str, value: object) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise _bad(name, f"must be a number, got {value!r:.80}")
    return float(value)


def borda(rankings: ArrayLike, weights: ArrayLike | None = None) -> NDArray[np.int32]:
    """Generalized Borda (Cheng et al. 2009): a label at position r of m' ranked labels gets
    (m'+1-r)(m+1)/(m'+1) votes, a missing label (m+1)/2; plain Borda on complete rankings."""
    return _core.borda(as_rank_matrix(rankings), _weights(weights))


def copeland(rankings: ArrayLike, weights: ArrayLike | None = None) -> NDArray[np.int32]:
    """Copeland: each label scores one point per other label it beats in a (weighted) pairwise
    majority and half a point per tie, counting only the pairs each ranking contains."""
    return _core.copeland(as_rank_matrix(rankings), _weights(weights))


def kemeny(rankings: ArrayLike, weights: ArrayLike | None = None) -> NDArray[np.int32]:
    """The exact Kemeny median (minimum total Kendall distance, each ranking counting the label
    pairs it contains), by dynamic programming over label subsets; at most 16 labels."""
    return _core.kemeny(as_rank_matrix(rankings), _weights(weights))


class MallowsFit(NamedTuple):
    centre: NDArray[np.int32]
    theta: float
    iterations: int
    converged: bool


def mallows(rankings: ArrayLike, weights: ArrayLike | None = None, max_iter: int = 20) -> MallowsFit:
    """Mallows model by the approximate EM of Cheng et al. (2009): generalized Borda start, then
    optimal insertion of missing labels and Borda of the completions until the centre is stable."""
    return MallowsFit(*_core.fit_mallows(as_rank_matrix(rankings), _weights(weights), _count("max_iter", max_iter)))


class PlackettLuceFit(NamedTuple):
    skills: NDArray[np.float64]
    iterations: int
    converged: bool


def plackett_luce(
    rankings: ArrayLike, weights: ArrayLike | None = None, max_iter: int = 1000, tol: float = 1e-9
) -> PlackettLuceFit:
    """Plackett-Luce skills (summing to 1) by Hunter's MM algorithm; an incomplete ranking is a
    ranking of the labels it holds. A label never picked before last place gets 0, a label no
    ranking holds the geometric mean of the positive skills. Sort the skills for the ranking."""
    return PlackettLuceFit(
        *_core.fit_plackett_luce(
            as_rank_matrix(rankings), _weights(weights), _count("max_iter", max_iter), _real("tol", tol)
        )
    )


# The threshold beta of each consensus with ties: BPA's published default; for Borda (a gap
# between summed preferences) and Copeland (a distance of C_ij from 1/2) lrank's choices.
DEFAULT_BETA = {"bpa": 0.25, "borda": 0.5, "copeland": 0.1, "bpa-local": 0.25}


class PairOrderMatrix(NamedTuple):
    matrix: NDArray[np.float64]
    before: NDArray[np.float64]
    tied: NDArray[np.float64]


def pair_order_matrix(rankings: ArrayLike, weights: ArrayLike | None = None) -> PairOrderMatrix:
    """The pair-order matrix of rankings with ties: ``before[i, j]`` (``tied[i, j]``) is the weight
    of the rankings that hold both labels with i before j (tied), and
    ``matrix[i, j] = (before_ij + tied_ij / 2) / (before_ij + tied_ij + before_ji)`` (1/2 for a
    pair no ranking holds)."""
    return PairOrderMatrix(*_core.pair_order_matrix(as_rank_matrix(rankings), _weights(weights)))


def _bucket(method: str, rankings: ArrayLike, weights: ArrayLike | None, beta: float | None) -> NDArray[np.int32]:
    b = DEFAULT_BETA[method] if beta is None else _real("beta", beta)
    return _core.bucket_consensus(as_rank_matrix(rankings), _weights(weights), method, b)


def bpa(
    rankings: ArrayLike, weights: ArrayLike | None = None, beta: float | None = None, dani: str = "global"
) -> NDArray[np.int32]:
    """BPA-LIA-MP2 (Aledo, Gámez & Rosete 2017), the bucket pivot algorithm with multiple pivots
    and two stages, on the pair-order matrix; beta (default 0.25) in [0, 0.5] is how far from 1/2
    a preference may be and still tie. Returns a bucket order.

    ``dani``: "global" (LIA_G^MP2: each item's indecision index computed once over all labels,
    as scikit-lr and the authors compute it) or "local" (recomputed among the labels of each
    recursive call; the BPA of lrank model files before format 11, the learners' ``-A bpa-local``)."""
    if dani not in ("global", "local"):
        raise InvalidInputError(f"dani must be 'global' or 'local', got {dani!r}")
    return _bucket("bpa" if dani == "global" else "bpa-local", rankings, weights, beta)


def tied_borda(rankings: ArrayLike, weights: ArrayLike | None = None, beta: float | None = None) -> NDArray[np.int32]:
    """Borda with ties (Wang, Alfaro & Bengs 2025): scores ``sum_j C_ij``; labels sorted by score
    share a bucket while consecutive scores differ by at most beta (default 0.5)."""
    return _bucket("borda", rankings, weights, beta)


def tied_copeland(
    rankings: ArrayLike, weights: ArrayLike | None = None, beta: float | None = None
) -> NDArray[np.int32]:
    """Copeland with ties (Wang, Alfaro & Bengs 2025): a label scores 1 per label it beats by more
    than beta (``C_ij > 1/2 + beta``, default beta 0.1) and 1/2 per label within beta of a tie;
    equal scores tie."""
    return _bucket("copeland", rankings, weights, beta)


def bucket_order_of_matrix(c: ArrayLike, method: str = "bpa", beta: float | None = None) -> NDArray[np.int32]:
    """The bucket order of a pair-order matrix ``c`` (e.g. predicted by pairwise models) by
    ``method`` "bpa", "bpa-local" (see :func:`bpa`), "borda" or "copeland"."""
    if method not in DEFAULT_BETA:
        raise InvalidInputError(f"method must be one of {', '.join(DEFAULT_BETA)}, got {method!r}")
    b = DEFAULT_BETA[method] if beta is None else _real("beta", beta)
    try:
        matrix = np.ascontiguousarray(c, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInputError(f"C must be a matrix of numbers, got {c!r:.80}") from None
    if matrix.ndim != 2:
        raise InvalidInputError(f"C must be a 2-D (m x m) pair-order matrix, got shape {matrix.shape}")
    return _core.bucket_order_of_matrix(matrix, method, b)


# Typed: the functions take different optional arguments, and mypy's join of them depends on
# which modules it checks together.
AGGREGATORS: dict[str, Callable[..., Any]] = {
    "borda": borda,
    "copeland": copeland,
    "kemeny": kemeny,
    "mallows": lambda r, w=None: mallows(r, w).centre,
    "bpa": bpa,
    "borda-ties": tied_borda,
    "copeland-ties": tied_copeland,
    "bpa-local": lambda r, w=None, beta=None: bpa(r, w, beta, dani="local"),
}


__all__ = [
    "AGGREGATORS",
    "DEFAULT_BETA",
    "MallowsFit",
    "PairOrderMatrix",
    "PlackettLuceFit",
    "borda",
    "bpa",
    "bucket_order_of_matrix",
    "copeland",
    "kemeny",
    "mallows",
    "pair_order_matrix",
    "plackett_luce",
    "tied_borda",
    "tied_copeland",
]
