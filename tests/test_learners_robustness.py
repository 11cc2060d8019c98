"""Every registered learner on small, awkward data: it predicts valid rankings or raises an
lrank error; it never crashes, hangs or lets a Rust panic through."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lrank.errors import LrankError
from lrank.registry import available_learners

# Small settings so that a hypothesis run stays quick; the learners' code paths are the same.
FAST_OPTIONS = {
    "LRRF": ["-I", "3"],
    "LWRF": ["-I", "3"],
    "OVO": ["-B", "forest", "-I", "3"],
    "Bagging": ["-I", "3"],
    "BoostLR": ["-I", "3"],
    "GBLR": ["-I", "3"],
    "IBLR": ["-K", "3"],
    "IBPL": ["-K", "3"],
    "PLRRF": ["-I", "3"],
    "PLRPW": ["-I", "3"],
    "IBPLR": ["-K", "3"],
    "MOREPLR": ["-I", "3"],
}
# Learners that predict bucket orders (ties); the others predict rankings without ties.
PREDICT_TIES = {"PLRT", "PLRRF", "PLRPW", "IBPLR", "MOREPLR"}


@st.composite
def awkward_problem(draw):
    n = draw(st.integers(1, 12))
    m = draw(st.integers(1, 5))
    d = draw(st.integers(1, 3))
    x = np.array(draw(st.lists(st.sampled_from([0.0, 1.0, 2.5, -3.0, np.nan]), min_size=n * d, max_size=n * d)))
    y = np.zeros((n, m), dtype=np.int32)
    ties = draw(st.booleans())
    for i in range(n):
        k = draw(st.integers(1, m))
        labels = draw(st.permutations(range(m)))[:k]
        y[i, labels] = np.arange(1, k + 1)
        if ties and k > 1 and draw(st.booleans()):  # tie the last two ranked labels
            y[i, labels[-1]] = k - 1
    nominal = draw(st.booleans())
    return x.reshape(n, d), y, nominal


@pytest.mark.parametrize("name", sorted(available_learners()))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=awkward_problem())
def test_valid_rankings_or_an_lrank_error(name, problem):
    x, y, nominal = problem
    spec = available_learners()[name]
    est = spec.build(
        FAST_OPTIONS.get(name, []),
        seed=0,
        n_jobs=1,
        categorical_features=[True] + [False] * (x.shape[1] - 1) if nominal else None,
    )
    try:
        est.fit(x, y)
    except LrankError:
        return  # a clear, typed refusal (e.g. too few rows to tune) is fine
    pred = est.predict(x)
    assert pred.shape == y.shape and pred.dtype == np.int32
    if name in PREDICT_TIES:  # complete bucket orders: every label placed, positions dense
        steps = np.diff(np.sort(pred, axis=1), axis=1, prepend=0)
        assert np.all(pred > 0) and np.all((steps == 0) | (steps == 1))
    else:
        assert np.all(np.sort(pred, axis=1) == np.arange(1, y.shape[1] + 1))


@pytest.mark.parametrize("name", sorted(available_learners()))
def test_same_predictions_for_any_number_of_threads(name, problem):
    """The same seed gives the same model whatever the thread count (the brief's rule)."""
    x, y = problem
    x, y = np.tile(x, (3, 1)), np.tile(y, (3, 1))  # large enough for the parallel paths
    spec = available_learners()[name]
    preds = [spec.build(FAST_OPTIONS.get(name, []), seed=7, n_jobs=jobs).fit(x, y).predict(x) for jobs in (1, 2)]
    np.testing.assert_array_equal(preds[0], preds[1])
