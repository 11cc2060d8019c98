"""lrank.aggregation: Borda, Kemeny and the Mallows EM median from Python."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lrank import InvalidInputError, _core
from lrank.aggregation import borda, kemeny, mallows


def kendall_cost(centre: np.ndarray, rankings: np.ndarray) -> int:
    cost = 0
    for r in rankings:
        for a, b in itertools.combinations(range(len(centre)), 2):
            if r[a] > 0 and r[b] > 0 and (r[a] < r[b]) != (centre[a] < centre[b]):
                cost += 1
    return cost


@st.composite
def incomplete_rank_matrices(draw):
    m = draw(st.integers(2, 5))
    n = draw(st.integers(1, 6))
    rows = []
    for _ in range(n):
        labels = draw(st.permutations(range(m)))
        k = draw(st.integers(1, m))
        row = np.zeros(m, dtype=np.int32)
        row[list(labels[:k])] = np.arange(1, k + 1)
        rows.append(row)
    return np.array(rows, dtype=np.int32)


@settings(max_examples=80, deadline=None)
@given(y=incomplete_rank_matrices())
def test_kemeny_is_optimal_and_no_worse_than_borda_or_mallows(y):
    m = y.shape[1]
    best = min(kendall_cost(np.argsort(p).argsort() + 1, y) for p in itertools.permutations(range(m)))
    centre = kemeny(y)
    assert kendall_cost(centre, y) == best
    assert kendall_cost(borda(y), y) >= best
    assert kendall_cost(mallows(y).centre, y) >= best


def test_mallows_of_unanimous_rankings():
    fit = mallows([[2, 1, 3], [2, 1, 3]])
    assert fit.centre.tolist() == [2, 1, 3] and fit.theta == float("inf") and fit.converged


def test_optimal_insertion_and_theta_from_python():
    # centre 0>1>2>3; the incomplete ranking 3>1 gets 0 before 3 and 2 between... minimising disagreements
    out = _core.optimal_insertion([0, 2, 0, 1], [1, 2, 3, 4])
    assert sorted(out.tolist()) == [1, 2, 3, 4]
    assert out[3] < out[1]  # the observed order is kept
    assert _core.theta_mle(0.0, 4) == float("inf") and _core.theta_mle(3.0, 4) == 0.0
    with pytest.raises(InvalidInputError, match="complete"):
        _core.optimal_insertion([1, 0, 2], [1, 0, 2])
    with pytest.raises(InvalidInputError, match="at most 16"):
        kemeny(np.tile(np.arange(1, 18, dtype=np.int32), (2, 1)))
