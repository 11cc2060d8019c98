"""Instance-based partial label ranking (IBPLR)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import make_tied_problem, plr_data
from lrank import InstanceBasedPartialLabelRanker, InvalidInputError, InvalidParameterError
from lrank.aggregation import bpa
from lrank.evaluation import cross_validate


def test_uniform_neighbours_give_the_bpa_of_their_bucket_orders():
    x, y = make_tied_problem()
    est = InstanceBasedPartialLabelRanker(n_neighbors=7, weights="uniform").fit(x, y)
    # the 7 nearest by Euclidean distance on min-max normalised features (ties: lower row)
    z = (x - x.min(axis=0)) / (x.max(axis=0) - x.min(axis=0))
    for i in range(5):
        near = np.lexsort((np.arange(len(z)), ((z - z[i]) ** 2).sum(axis=1)))[:7]
        np.testing.assert_array_equal(est.predict(x[i : i + 1])[0], bpa(y[near]))
    assert est.n_neighbors_ == 7 and est.k_scores_ == {}


def test_a_k_above_the_training_rows_uses_them_all():
    x, y = make_tied_problem(n=12)
    est = InstanceBasedPartialLabelRanker(n_neighbors=50, weights="uniform").fit(x, y)
    assert est.n_neighbors_ == 12
    every_row = bpa(y)
    for row in est.predict(x[:3]):
        np.testing.assert_array_equal(row, every_row)


def test_k_is_chosen_by_leave_one_out():
    x, y = make_tied_problem(n=200)
    est = InstanceBasedPartialLabelRanker(random_state=0).fit(x, y)
    assert set(est.k_scores_) == {5, 10, 15, 20}
    assert est.k_scores_[est.n_neighbors_] == max(est.k_scores_.values())
    with pytest.raises(InvalidParameterError, match="n_neighbors"):
        InstanceBasedPartialLabelRanker(n_neighbors=0).fit(x, y)
    with pytest.raises(InvalidParameterError, match="weights"):
        InstanceBasedPartialLabelRanker(weights="gaussian").fit(x, y)


def test_on_the_published_iris_set():
    """scikit-lr's kNN partial label ranker reaches tau_x .897 here (5 x 10 CV)."""
    x, y = plr_data("iris")
    ev = cross_validate(lambda: InstanceBasedPartialLabelRanker(random_state=1), x, y, labels=["a", "b", "c"])
    assert ev.mean("tau_x") > 0.9


@pytest.mark.parametrize("scaling", ["minmax", "standard", "none"])
def test_scaling_sets_the_distance_of_the_neighbours(scaling):
    """k = 5, uniform weights: each prediction is the BPA consensus of the 5 rows nearest under
    the scaling's distance (checked by brute force)."""
    x, y = make_tied_problem(n=160, seed=3)
    x = x * np.array([1.0, 50.0, 0.02])  # three very different spreads
    train, test = slice(0, 120), slice(120, None)
    est = InstanceBasedPartialLabelRanker(n_neighbors=5, weights="uniform", scaling=scaling).fit(x[train], y[train])
    xt = x[train]
    if scaling == "minmax":
        lo, spread = xt.min(0), xt.max(0) - xt.min(0)
    elif scaling == "standard":
        lo, spread = xt.mean(0), xt.std(0)
    else:
        lo, spread = np.zeros(3), np.ones(3)
    a, b = (xt - lo) / spread, (x[test] - lo) / spread
    dist = ((b[:, None, :] - a[None, :, :]) ** 2).sum(-1)
    nearest = np.argsort(dist, axis=1, kind="stable")[:, :5]
    expected = np.array([bpa(y[train][idx]) for idx in nearest])
    np.testing.assert_array_equal(est.predict(x[test]), expected)


def test_scaling_is_checked_and_has_a_cli_option():
    x, y = make_tied_problem()
    with pytest.raises(InvalidParameterError, match="scaling"):
        InstanceBasedPartialLabelRanker(scaling="robust").fit(x, y)
    from lrank.registry import get_learner

    est = get_learner("IBPLR").build(["-scale", "standard"], seed=1)
    assert est.scaling == "standard"


def test_a_feature_no_float_can_span_is_refused_by_name_for_min_max_scaling():
    x = np.array([[1e308], [-1e308], [0.0], [1.0], [5.0]])
    y = np.array([[1, 2, 3], [2, 1, 3], [3, 2, 1], [1, 3, 2], [2, 3, 1]], dtype=np.int32)
    with pytest.raises(InvalidInputError, match=r"feature 0 spans -1e308 to 1e308, a range too wide"):
        InstanceBasedPartialLabelRanker(n_neighbors=2).fit(x, y)
    InstanceBasedPartialLabelRanker(n_neighbors=2, scaling="standard").fit(x, y).predict(x)
