"""Rank aggregation: one consensus ranking from several (weighted, possibly incomplete) rankings.

Every function takes a rank matrix (rows = rankings; entry = 1-based position, 0 = missing)
and optional row weights, and returns a complete rank vector; ties go to the lower label index.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank import _core
from lrank.rankings import as_rank_matrix


def _weights(weights: ArrayLike | None) -> NDArray[np.float64] | None:
    return None if weights is None else np.ascontiguousarray(weights, dtype=np.float64)


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
    return MallowsFit(*_core.fit_mallows(as_rank_matrix(rankings), _weights(weights), int(max_iter)))


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
        *_core.fit_plackett_luce(as_rank_matrix(rankings), _weights(weights), int(max_iter), float(tol))
    )


AGGREGATORS = {
    "borda": borda,
    "copeland": copeland,
    "kemeny": kemeny,
    "mallows": lambda r, w=None: mallows(r, w).centre,
}


__all__ = ["AGGREGATORS", "MallowsFit", "PlackettLuceFit", "borda", "copeland", "kemeny", "mallows", "plackett_luce"]
