"""LabelRankingRandomForest: scikit-learn conventions, determinism, pickling, input checks."""

from __future__ import annotations

import pickle

import numpy as np
import polars as pl
import pytest
from conftest import make_problem
from lrank import InvalidInputError, InvalidParameterError, LabelRankingRandomForest
from lrank.estimators import NotFittedError


def is_complete_ranking_matrix(y: np.ndarray) -> bool:
    m = y.shape[1]
    return bool(np.all(np.sort(y, axis=1) == np.arange(1, m + 1)))


def test_fit_returns_self_and_predicts_complete_rankings(problem):
    x, y = problem
    est = LabelRankingRandomForest(n_estimators=20, random_state=0)
    assert est.fit(x, y) is est
    pred = est.predict(x)
    assert pred.shape == y.shape and pred.dtype == np.int32
    assert is_complete_ranking_matrix(pred)
    assert est.n_features_in_ == 3 and est.n_labels_ == 4
    assert len(est.tree_depths_) == 20
    assert max(est.tree_depths_) <= 8


def test_learns_a_ranking_function_better_than_chance():
    x, y = make_problem(n=600, seed=1)
    est = LabelRankingRandomForest(n_estimators=30, random_state=0, class_mode="ranking").fit(x[:400], y[:400])
    assert est.score(x[400:], y[400:]) > 0.7
    baseline = LabelRankingRandomForest(n_estimators=30, random_state=0, max_depth=0).fit(x[:400], y[:400])
    assert est.score(x[400:], y[400:]) > baseline.score(x[400:], y[400:]) + 0.15


def test_params_follow_sklearn_conventions():
    est = LabelRankingRandomForest(n_estimators=7, max_depth=None)
    params = est.get_params()
    assert params["n_estimators"] == 7 and params["max_depth"] is None
    assert set(params) == {
        "n_estimators",
        "max_depth",
        "max_features",
        "class_mode",
        "bootstrap",
        "max_bins",
        "leaf_missing",
        "node_seeds",
        "oob_score",
        "warm_start",
        "random_state",
        "n_jobs",
        "categorical_features",
    }
    assert est.set_params(n_estimators=3) is est and est.n_estimators == 3
    with pytest.raises(ValueError, match="Invalid parameter 'depth'"):
        est.set_params(depth=3)
    assert repr(est) == "LabelRankingRandomForest(max_depth=None, n_estimators=3)"


def test_sklearn_clone_works(problem):
    base = pytest.importorskip("sklearn.base")
    est = LabelRankingRandomForest(n_estimators=5, random_state=3)
    twin = base.clone(est)
    assert twin.get_params() == est.get_params() and twin is not est
    x, y = problem
    np.testing.assert_array_equal(est.fit(x, y).predict(x), twin.fit(x, y).predict(x))


def test_same_seed_same_predictions_for_any_thread_count(problem):
    x, y = problem
    one = LabelRankingRandomForest(n_estimators=16, random_state=42, n_jobs=1).fit(x, y)
    two = LabelRankingRandomForest(n_estimators=16, random_state=42, n_jobs=2).fit(x, y)
    assert one.model_ == two.model_
    np.testing.assert_array_equal(one.predict(x), two.predict(x))
    np.testing.assert_array_equal(one.predict_per_tree(x), two.predict_per_tree(x))
    other = LabelRankingRandomForest(n_estimators=16, random_state=43, n_jobs=2).fit(x, y)
    assert other.model_ != one.model_


def test_random_state_none_draws_a_fresh_seed(problem):
    x, y = problem
    a = LabelRankingRandomForest(n_estimators=3).fit(x, y)
    b = LabelRankingRandomForest(n_estimators=3).fit(x, y)
    assert a.seed_ != b.seed_


def test_pickle_round_trip_keeps_predictions(problem):
    x, y = problem
    est = LabelRankingRandomForest(n_estimators=10, random_state=0).fit(x, y)
    back = pickle.loads(pickle.dumps(est))
    assert back.get_params() == est.get_params()
    np.testing.assert_array_equal(back.predict(x), est.predict(x))
    unfitted = pickle.loads(pickle.dumps(LabelRankingRandomForest(n_estimators=2)))
    assert unfitted.n_estimators == 2


def test_per_tree_predictions_aggregate_to_the_forest_by_borda(problem):
    x, y = problem
    est = LabelRankingRandomForest(n_estimators=9, random_state=0).fit(x, y)
    per_tree = est.predict_per_tree(x[:20])
    m = y.shape[1]
    votes = (m + 1 - per_tree).sum(axis=1)
    order = np.argsort(-votes, axis=1, kind="stable")  # ties -> lower label index
    expect = np.empty_like(order)
    expect[np.arange(20)[:, None], order] = np.arange(1, m + 1)
    np.testing.assert_array_equal(est.predict(x[:20]), expect)


def test_incomplete_rankings_and_missing_features(problem):
    x, y = problem
    y = y.copy()
    y[::2, :] = np.where(y[::2, :] > 2, 0, y[::2, :])  # keep only the top two labels of every other row
    x = x.copy()
    x[::5, 1] = np.nan
    for mode in ("top_label", "ranking", "pairwise"):
        est = LabelRankingRandomForest(n_estimators=10, random_state=0, class_mode=mode).fit(x, y)
        assert is_complete_ranking_matrix(est.predict(x))
    # The fill value is the lower median of the present values.
    present = np.sort(x[~np.isnan(x[:, 1]), 1])
    assert est.fill_values_[1] == present[(present.size - 1) // 2]


def test_accepts_dataframes_and_nan_marked_missing_labels(problem):
    x, y = problem
    frame = pl.DataFrame({f"f{j}": x[:, j] for j in range(3)})
    y_nan = y.astype(float)
    y_nan[0, :] = [1, 2, np.nan, np.nan]  # scikit-lr's spelling of an incomplete ranking
    est = LabelRankingRandomForest(n_estimators=5, random_state=0).fit(frame, y_nan)
    assert list(est.feature_names_in_) == ["f0", "f1", "f2"]
    assert est.predict(frame).shape == y.shape


def test_sample_weight_changes_the_model(problem):
    x, y = problem
    w = np.where(np.arange(len(x)) < 100, 5.0, 0.0)
    a = LabelRankingRandomForest(n_estimators=5, random_state=0).fit(x, y)
    b = LabelRankingRandomForest(n_estimators=5, random_state=0).fit(x, y, sample_weight=w)
    c = LabelRankingRandomForest(n_estimators=5, random_state=0).fit(x[:100], y[:100])
    assert a.model_ != b.model_
    assert b.score(x[:100], y[:100]) >= c.score(x[:100], y[:100]) - 0.1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_estimators": 0}, "n_estimators"),
        ({"max_depth": -1}, "max_depth"),
        ({"max_features": "cube"}, "max_features"),
        ({"max_features": 0}, "max_features"),
        ({"max_features": 1.5}, "max_features"),
        ({"class_mode": "votes"}, "class_mode"),
        ({"max_bins": 1}, "max_bins"),
        ({"max_bins": 256}, "max_bins"),
        ({"max_bins": 2.5}, "max_bins"),
        ({"leaf_missing": 1.5}, "leaf_missing"),
        ({"leaf_missing": "half"}, "leaf_missing"),
        ({"n_jobs": 0}, "n_jobs"),
        ({"random_state": -3}, "random_state"),
    ],
)
def test_bad_parameters_raise_clear_errors(problem, kwargs, message):
    x, y = problem
    with pytest.raises(InvalidInputError, match=message):
        LabelRankingRandomForest(**{"n_estimators": 2, "random_state": 0, **kwargs}).fit(x, y)


def test_bad_data_raises_clear_errors(problem):
    x, y = problem
    est = LabelRankingRandomForest(n_estimators=2, random_state=0)
    with pytest.raises(InvalidInputError, match="rows"):
        est.fit(x[:10], y)
    bad = y.copy()
    bad[3] = [1, 1, 3, 4]
    with pytest.raises(InvalidInputError, match="row 3 of the rank matrix"):
        est.fit(x, bad)
    empty_row = y.copy()
    empty_row[5] = 0
    with pytest.raises(InvalidInputError, match="row 5"):
        est.fit(x, empty_row)
    with pytest.raises(InvalidInputError, match="infinite"):
        est.fit(np.where(x > 0.5, np.inf, x), y)
    with pytest.raises(NotFittedError):
        LabelRankingRandomForest().predict(x)
    est.fit(x, y)
    with pytest.raises(InvalidInputError, match="features"):
        est.predict(x[:, :2])
    with pytest.raises(InvalidInputError, match="Expected 2D array"):
        est.fit(x[:, 0], y)


def test_auto_class_mode_is_ranking_on_complete_and_pairwise_on_incomplete_rankings(problem):
    x, y = problem
    auto = LabelRankingRandomForest(n_estimators=6, random_state=2).fit(x, y)
    ranking = LabelRankingRandomForest(n_estimators=6, random_state=2, class_mode="ranking").fit(x, y)
    assert auto.class_mode_ == "ranking"
    np.testing.assert_array_equal(auto.predict_per_tree(x), ranking.predict_per_tree(x))
    partial = y.copy()
    partial[::4, 0] = 0
    partial[::4] = np.where(partial[::4] > 0, partial[::4] - (partial[::4] > y[::4, :1]), 0)
    auto = LabelRankingRandomForest(n_estimators=6, random_state=2).fit(x, partial)
    pairwise = LabelRankingRandomForest(n_estimators=6, random_state=2, class_mode="pairwise").fit(x, partial)
    assert auto.class_mode_ == "pairwise"
    np.testing.assert_array_equal(auto.predict_per_tree(x), pairwise.predict_per_tree(x))


def test_histograms_with_a_bin_per_value_are_the_exact_search_and_coarse_ones_differ(problem):
    x, y = problem
    xr = np.round(x, 1)  # at most a few dozen values per feature
    exact = LabelRankingRandomForest(n_estimators=5, random_state=1, max_bins=None).fit(xr, y)
    binned = LabelRankingRandomForest(n_estimators=5, random_state=1).fit(xr, y)
    np.testing.assert_array_equal(exact.predict_per_tree(x), binned.predict_per_tree(x))
    coarse = LabelRankingRandomForest(n_estimators=5, random_state=1, max_bins=3).fit(xr, y)
    assert not np.array_equal(exact.predict_per_tree(x), coarse.predict_per_tree(x))


def test_leaf_missing_thins_leaf_neighbours_deterministically(problem):
    x, y = problem
    kwargs = {"n_estimators": 8, "random_state": 4}
    plain = LabelRankingRandomForest(**kwargs).fit(x, y)
    thinned = LabelRankingRandomForest(**kwargs, leaf_missing=0.7, n_jobs=1).fit(x, y)
    again = LabelRankingRandomForest(**kwargs, leaf_missing=0.7, n_jobs=2).fit(x, y)
    np.testing.assert_array_equal(thinned.predict(x), again.predict(x))
    np.testing.assert_array_equal(thinned.predict(x[:7]), thinned.predict(x)[:7])  # a row alone or in a batch
    assert not np.array_equal(plain.predict(x), thinned.predict(x))
    assert is_complete_ranking_matrix(thinned.predict_per_tree(x).reshape(-1, y.shape[1]))
    # Everything deleted would make every ranking the label order, whatever the data: refused.
    with pytest.raises(InvalidParameterError, match=r"leaf_missing: must lie in \[0, 1\), got 1"):
        LabelRankingRandomForest(**kwargs, leaf_missing=1.0).fit(x, y)
    again = pickle.loads(pickle.dumps(thinned))
    np.testing.assert_array_equal(again.predict(x), thinned.predict(x))


def test_node_seeds_grow_another_forest_as_good_and_the_same_for_any_thread_count():
    from lrank.datasets import load_iris

    data = load_iris()
    x, y = data.feature_matrix(), data.rankings
    streams = LabelRankingRandomForest(n_estimators=10, random_state=4).fit(x, y)
    per_node = {"n_estimators": 10, "random_state": 4, "node_seeds": True}
    nodes = [LabelRankingRandomForest(**per_node, n_jobs=j).fit(x, y) for j in (1, 2)]
    assert nodes[0].model_ == nodes[1].model_ and nodes[0].model_ != streams.model_
    assert nodes[0].score(x, y) > streams.score(x, y) - 0.03
