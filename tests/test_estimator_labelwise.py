"""Labelwise learners (LWDT, LWRF): regression targets, scikit-learn agreement, tuning, CLI."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from lrank import InvalidInputError, LabelwiseDecisionTree, LabelwiseRandomForest
from lrank.data import read_dataset
from lrank.evaluation import measure_predictions


def _ranks_from_positions(scores: np.ndarray) -> np.ndarray:
    """Rank matrix sorting each row's labels by increasing score, ties to the lower label."""
    order = np.argsort(scores, axis=1, kind="stable")
    ranks = np.empty_like(order)
    rows = np.arange(scores.shape[0])[:, None]
    ranks[rows, order] = np.arange(1, scores.shape[1] + 1)
    return ranks.astype(np.int32)


def test_grown_tree_agrees_with_scikit_learn_regression_tree_used_labelwise(kebi_dir):
    """A fully grown tree on positions/m is the tree scikit-learn grows (same criterion)."""
    from sklearn.tree import DecisionTreeRegressor

    data = read_dataset(kebi_dir / "stock.csv")
    x, y = data.feature_matrix(), data.rankings
    train, test = np.arange(0, 800), np.arange(800, len(x))
    ours = LabelwiseDecisionTree(random_state=0).fit(x[train], y[train]).predict(x[test])
    theirs = _ranks_from_positions(
        DecisionTreeRegressor(random_state=0).fit(x[train], y[train] / y.shape[1]).predict(x[test])
    )
    assert np.mean(np.all(ours == theirs, axis=1)) > 0.95
    tau_ours = measure_predictions(y[test], ours)[0]["kendall_tau"]
    tau_theirs = measure_predictions(y[test], theirs)[0]["kendall_tau"]
    assert abs(tau_ours - tau_theirs) < 0.01


def test_forest_scores_like_scikit_learn_forest_used_labelwise(kebi_dir):
    from sklearn.ensemble import RandomForestRegressor

    data = read_dataset(kebi_dir / "vehicle.csv")
    x, y = data.feature_matrix(), data.rankings
    train, test = np.arange(0, 700), np.arange(700, len(x))
    ours = LabelwiseRandomForest(n_estimators=100, random_state=0).fit(x[train], y[train]).predict(x[test])
    rf = RandomForestRegressor(n_estimators=100, max_features=1 / 3, random_state=0)
    theirs = _ranks_from_positions(rf.fit(x[train], y[train] / y.shape[1]).predict(x[test]))
    tau_ours = measure_predictions(y[test], ours)[0]["kendall_tau"]
    tau_theirs = measure_predictions(y[test], theirs)[0]["kendall_tau"]
    assert tau_ours > tau_theirs - 0.02, (tau_ours, tau_theirs)


def test_incomplete_rankings_predict_complete_rankings(problem):
    x, y = problem
    y = np.where(y == 4, 0, y).astype(np.int32)  # label in last place dropped everywhere
    pred = LabelwiseRandomForest(n_estimators=10, random_state=1).fit(x, y).predict(x)
    assert np.all(np.sort(pred, axis=1) == np.arange(1, 5))
    # The dropped positions leave the other labels' order intact.
    assert LabelwiseDecisionTree(random_state=1).fit(x, y).score(x, y) == 1.0


def test_tuned_depth_and_scores(problem):
    x, y = problem
    est = LabelwiseDecisionTree(tune_depth=True, random_state=2).fit(x, y)
    assert set(est.depth_scores_) == {5, 10, 15, None}
    assert est.max_depth_ == max(est.depth_scores_, key=lambda d: (est.depth_scores_[d], -(d or 99)))
    scores = est.predict_scores(x[:3])
    assert scores.shape == (3, 4) and np.all((scores > 0) & (scores < 1))


def test_determinism_pickle_and_errors(problem):
    x, y = problem
    a = LabelwiseRandomForest(n_estimators=12, random_state=3, n_jobs=1).fit(x, y)
    b = LabelwiseRandomForest(n_estimators=12, random_state=3, n_jobs=2).fit(x, y)
    assert a.model_ == b.model_
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(a)).predict(x), a.predict(x))
    for est, match in [
        (LabelwiseRandomForest(n_estimators=0), "n_estimators"),
        (LabelwiseRandomForest(max_features=0), "max_features"),
        (LabelwiseDecisionTree(max_depth=-1), "max_depth"),
        (LabelwiseDecisionTree(min_samples_leaf=-1), "min_samples_leaf"),
    ]:
        with pytest.raises(InvalidInputError, match=match):
            est.fit(x, y)


def test_node_seeds_grow_another_forest_as_good_and_the_same_for_any_thread_count():
    from lrank.datasets import load_iris

    data = load_iris()
    x, y = data.feature_matrix(), data.rankings
    train, test = np.arange(len(y)) % 3 != 0, np.arange(len(y)) % 3 == 0
    streams = LabelwiseRandomForest(n_estimators=20, random_state=4).fit(x[train], y[train])
    per_node = {"n_estimators": 20, "random_state": 4, "node_seeds": True}
    nodes = [LabelwiseRandomForest(**per_node, n_jobs=j).fit(x[train], y[train]) for j in (1, 2)]
    assert nodes[0].model_ == nodes[1].model_ and nodes[0].model_ != streams.model_
    assert nodes[0].score(x[test], y[test]) > streams.score(x[test], y[test]) - 0.03
    # Saved and pickled with the parameter.
    again = pickle.loads(pickle.dumps(nodes[0]))
    assert again.node_seeds and again.model_ == nodes[0].model_
