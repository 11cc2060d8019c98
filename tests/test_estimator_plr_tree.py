"""Partial label ranking trees and forests (PLRT, PLRRF)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import make_tied_problem, plr_data
from lrank import (
    InvalidParameterError,
    LabelwisePartialLabelRanker,
    PairwisePartialLabelRanker,
    PartialLabelRankingForest,
    PartialLabelRankingTree,
)
from lrank.aggregation import bpa
from lrank.evaluation import cross_validate
from lrank.rankings import tied_rows


def test_a_tree_learns_ties_and_predicts_bucket_orders():
    x, y = make_tied_problem()
    est = PartialLabelRankingTree(random_state=0).fit(x, y)
    pred = est.predict(x)
    assert tied_rows(pred).any()  # it predicts ties
    assert est.score(x, y) == 1.0  # a fully grown tree fits its training data
    assert len(est.tree_depths_) == 1
    shallow = PartialLabelRankingTree(max_depth=1, random_state=0).fit(x, y)
    assert shallow.tree_depths_ == [1] and shallow.score(x, y) < 1.0


@pytest.mark.parametrize("criterion", ["entropy", "disagreements", "distance"])
def test_every_criterion_generalises(criterion):
    x, y = make_tied_problem(n=300)
    train, test = slice(0, 200), slice(200, 300)
    est = PartialLabelRankingTree(criterion=criterion, random_state=0).fit(x[train], y[train])
    score = est.score(x[test], y[test])
    # better than the root's consensus alone, and than predicting every label tied
    assert score > PartialLabelRankingTree(max_depth=0).fit(x[train], y[train]).score(x[test], y[test]) + 0.15
    assert score > 0.75 > PartialLabelRankingTree().fit(x, np.ones_like(y)).score(x[test], y[test])


def test_forest_is_the_bpa_consensus_of_its_trees_for_any_thread_count():
    x, y = make_tied_problem()
    a = PartialLabelRankingForest(n_estimators=7, random_state=2, n_jobs=1).fit(x, y)
    b = PartialLabelRankingForest(n_estimators=7, random_state=2, n_jobs=2).fit(x, y)
    np.testing.assert_array_equal(a.predict(x), b.predict(x))
    per = a.predict_per_tree(x[:6])
    assert per.shape == (7, 6, 4)
    np.testing.assert_array_equal(a.predict(x[:6]), [bpa(per[:, i, :]) for i in range(6)])


def test_parameters_are_checked_by_name():
    x, y = make_tied_problem()
    with pytest.raises(InvalidParameterError, match="criterion"):
        PartialLabelRankingTree(criterion="gini").fit(x, y)
    with pytest.raises(InvalidParameterError, match="beta"):
        PartialLabelRankingTree(beta=0.9).fit(x, y)
    with pytest.raises(InvalidParameterError, match="aggregation"):
        PartialLabelRankingForest(aggregation="kemeny").fit(x, y)
    with pytest.raises(InvalidParameterError, match="n_estimators"):
        PartialLabelRankingForest(n_estimators=0).fit(x, y)


def test_on_the_published_iris_set():
    """10-fold CV on the partial-label-ranking iris (2.4 buckets per row): scikit-lr's tree
    reaches tau_x .917 there; Alfaro et al.'s forest .932 (5 x 10 CV)."""
    x, y = plr_data("iris")
    tree = cross_validate(lambda: PartialLabelRankingTree(random_state=1), x, y, labels=["a", "b", "c"])
    forest = cross_validate(
        lambda: PartialLabelRankingForest(n_estimators=50, random_state=1), x, y, labels=["a", "b", "c"]
    )
    assert tree.mean("tau_x") > 0.9
    assert forest.mean("tau_x") > 0.92


_BINNED = [
    (PartialLabelRankingTree, {}),
    (PartialLabelRankingForest, {"n_estimators": 5}),
    (PairwisePartialLabelRanker, {"n_estimators": 4}),
    (PairwisePartialLabelRanker, {"classifier": "tree"}),
    (LabelwisePartialLabelRanker, {"n_estimators": 4}),
]


@pytest.mark.parametrize(("cls", "kwargs"), _BINNED, ids=lambda v: getattr(v, "__name__", str(v)))
def test_histograms_with_a_bin_per_value_are_the_exact_search_and_coarse_ones_differ(cls, kwargs):
    x, y = make_tied_problem(n=240)
    xr = np.round(x, 1)  # at most a few dozen values per feature
    exact = cls(max_bins=None, random_state=3, **kwargs).fit(xr, y)
    binned = cls(max_bins=255, random_state=3, **kwargs).fit(xr, y)
    np.testing.assert_array_equal(exact.predict(x), binned.predict(x))
    coarse = cls(max_bins=2, random_state=3, **kwargs).fit(xr, y)
    assert not np.array_equal(exact.predict(x), coarse.predict(x))
    with pytest.raises(InvalidParameterError, match="max_bins"):
        cls(max_bins=256, **kwargs).fit(x, y)


def test_defaults_histograms_for_the_plr_forest_exact_search_for_the_tree():
    assert PartialLabelRankingForest().max_bins == 255
    assert PartialLabelRankingTree().max_bins is None


def test_node_seeds_grow_another_forest_as_good_and_the_same_for_any_thread_count():
    import pickle

    x, y = make_tied_problem(n=240, seed=9)
    train, test = np.arange(len(y)) % 4 != 0, np.arange(len(y)) % 4 == 0
    streams = PartialLabelRankingForest(n_estimators=15, random_state=2).fit(x[train], y[train])
    per_node = {"n_estimators": 15, "random_state": 2, "node_seeds": True}
    nodes = [PartialLabelRankingForest(**per_node, n_jobs=j).fit(x[train], y[train]) for j in (1, 2)]
    assert nodes[0].model_ == nodes[1].model_ and nodes[0].model_ != streams.model_
    assert nodes[0].score(x[test], y[test]) > streams.score(x[test], y[test]) - 0.05
    again = pickle.loads(pickle.dumps(nodes[0]))
    assert again.node_seeds and again.model_ == nodes[0].model_


def test_the_tree_draws_max_features_per_node_from_its_seed():
    import json

    x, y = make_tied_problem(n=200, seed=5)
    x = np.hstack([x, x[:, ::-1] * 0.5])  # more features to draw from
    trees = [PartialLabelRankingTree(max_features=1, random_state=s).fit(x, y).apply(x) for s in (0, 0, 3)]
    np.testing.assert_array_equal(trees[0], trees[1])
    assert (trees[0] != trees[2]).any()
    every = PartialLabelRankingTree(random_state=0).fit(x, y)
    assert json.loads(every.model_.params_json())["PlrTree"]["max_features"] == "All"


@pytest.mark.filterwarnings("ignore:every row of y leaves out one label")
def test_a_label_no_training_ranking_holds_goes_last_instead_of_tying_all():
    """A declared label that no training ranking holds (a rare label missing from a fold) used
    to become BPA's pivot, every label tied with it: PLRT, PLRRF, Dummy -A bpa and IBPLR
    predicted a=b=c=d for every row (audit)."""
    from lrank import DummyLabelRanker, InstanceBasedPartialLabelRanker, PartialLabelRankingForest

    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, size=(60, 1))
    y = np.where(x > 0, [[1, 2, 3, 0]], [[3, 2, 1, 0]])
    for est in (
        PartialLabelRankingTree(),
        PartialLabelRankingForest(n_estimators=10, random_state=0),
        InstanceBasedPartialLabelRanker(),
    ):
        pred = est.fit(x, y).predict(np.array([[0.5], [-0.5]]))
        np.testing.assert_array_equal(pred, [[1, 2, 3, 4], [3, 2, 1, 4]], err_msg=type(est).__name__)
    np.testing.assert_array_equal(DummyLabelRanker(aggregation="bpa").fit(x, y).predict(x[:1]), [[1, 1, 1, 2]])


@pytest.mark.parametrize("cls", [PartialLabelRankingTree, PartialLabelRankingForest])
def test_min_samples_leaf_keeps_that_much_weight_in_every_leaf(cls):
    # The PLR trees had no min_samples_leaf: a fully grown tree kept one-row leaves.
    x, y = make_tied_problem(n=300)
    kwargs = {"n_estimators": 3, "bootstrap": False} if cls is PartialLabelRankingForest else {}
    plain = cls(random_state=0, **kwargs).fit(x, y)
    assert plain.get_params()["min_samples_leaf"] == 0
    for min_leaf, least in [(15, 15), (0.1, 30)]:  # rows, or a share of the training weight
        est = cls(min_samples_leaf=min_leaf, random_state=0, **kwargs).fit(x, y)
        leaves = est.apply(x)
        for t in range(leaves.shape[1]):
            assert np.bincount(leaves[:, t])[np.unique(leaves[:, t])].min() >= least
        assert np.all(np.asarray(est.tree_n_leaves_) < np.asarray(plain.tree_n_leaves_))
    with pytest.raises(InvalidParameterError, match="min_samples_leaf"):
        cls(min_samples_leaf=-1, **kwargs).fit(x, y)


def test_min_samples_leaf_on_the_command_line_and_in_model_files(tmp_path):
    from click.testing import CliRunner
    from lrank.cli import main
    from lrank.data import dataset_from_arrays, write_xarff
    from lrank.model_file import load_model

    x, y = make_tied_problem()
    data = tmp_path / "tied.xarff"
    write_xarff(dataset_from_arrays(x, y), data)
    model = tmp_path / "plrt.lrm"
    out = CliRunner().invoke(
        main, ["train", "-t", str(data), "--no-cv", "-W", "PLRT", "-d", str(model), "--", "-L", "12"]
    )
    assert out.exit_code == 0, out.output
    assert "-L 12" in out.output
    assert load_model(model).estimator.get_params()["min_samples_leaf"] == 12
