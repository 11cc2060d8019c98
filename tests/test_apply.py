"""apply(X): the leaf each row reaches in each tree, as scikit-learn's trees and forests have it."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import make_problem, make_tied_problem
from lrank import (
    BaggingLabelRanker,
    GradientBoostingLabelRanker,
    InstanceBasedLabelRanker,
    InvalidInputError,
    LabelRankingRandomForest,
    LabelRankingTree,
    OneVsOneLabelRanker,
)


def _with_missing(x: np.ndarray) -> np.ndarray:
    x = x.copy()
    x[::7, 0] = np.nan
    return x


def test_rows_sharing_a_trees_leaf_get_that_trees_ranking():
    x, y = make_problem(n=300, seed=1)
    est = LabelRankingRandomForest(n_estimators=12, random_state=0).fit(x, y)
    x_new = _with_missing(make_problem(n=200, seed=2)[0])
    nodes = est.apply(x_new)
    per_tree = est.predict_per_tree(x_new)  # (n, trees, m)
    assert nodes.shape == (200, 12) and nodes.dtype == np.int64
    for t in range(12):
        leaves = np.unique(nodes[:, t])
        assert 1 < len(leaves) < 200
        for leaf in leaves:
            rankings = per_tree[nodes[:, t] == leaf, t]
            assert (rankings == rankings[0]).all(), (t, leaf)


@pytest.mark.parametrize(
    "est",
    [
        LabelRankingTree(),
        GradientBoostingLabelRanker(n_estimators=6, random_state=0),
        OneVsOneLabelRanker(classifier="tree"),
        BaggingLabelRanker(GradientBoostingLabelRanker(n_estimators=3), n_estimators=2, random_state=0),
    ],
    ids=lambda e: type(e).__name__,
)
def test_rows_in_the_same_leaves_of_every_tree_are_predicted_alike(est):
    x, y = make_problem(n=300, seed=3)
    est.fit(x, y)
    x_new = _with_missing(make_problem(n=300, seed=4)[0])
    nodes, predicted = est.apply(x_new), est.predict(x_new)
    groups: dict[bytes, np.ndarray] = {}
    for row, ranking in zip(nodes, predicted):
        first = groups.setdefault(row.tobytes(), ranking)
        np.testing.assert_array_equal(ranking, first)
    assert 1 < len(groups) < 300


def test_tree_counts_and_proximities():
    x, y = make_problem(n=120, seed=5)
    m = y.shape[1]
    assert OneVsOneLabelRanker(classifier="tree").fit(x, y).apply(x).shape == (120, m * (m - 1) // 2)
    assert GradientBoostingLabelRanker(n_estimators=4, per_label_trees=True).fit(x, y).apply(x).shape == (120, 4 * m)
    nodes = LabelRankingRandomForest(n_estimators=20, random_state=1).fit(x, y).apply(x)
    proximity = (nodes[:, None, :] == nodes[None, :, :]).mean(axis=2)
    np.testing.assert_array_equal(np.diag(proximity), 1.0)
    assert np.allclose(proximity, proximity.T) and proximity.min() < 0.5


def test_models_without_trees_refuse_and_the_width_is_checked():
    x, y = make_problem(n=60, seed=6)
    # Learners that never grow trees have no such methods (hasattr said True, and calling one
    # raised), as scikit-learn's available_if hides them; others refuse when fitted without trees.
    from lrank import DummyLabelRanker, InstanceBasedPartialLabelRanker, LinearLabelRanker

    for never in (
        InstanceBasedLabelRanker(),
        InstanceBasedPartialLabelRanker(),
        DummyLabelRanker(),
        LinearLabelRanker(),
    ):
        assert not any(hasattr(never, name) for name in ("apply", "get_depth", "get_n_leaves"))
    with pytest.raises(AttributeError, match="InstanceBasedLabelRanker has no trees, so no apply"):
        InstanceBasedLabelRanker().fit(x, y).apply(x)
    assert hasattr(LabelRankingTree(), "get_n_leaves") and hasattr(OneVsOneLabelRanker(), "apply")
    with pytest.raises(InvalidInputError, match="no trees"):
        BaggingLabelRanker(InstanceBasedLabelRanker(), n_estimators=2).fit(x, y).get_n_leaves()
    with pytest.raises(InvalidInputError, match="no trees to apply"):
        BaggingLabelRanker(InstanceBasedLabelRanker(), n_estimators=2).fit(x, y).apply(x)
    tree = LabelRankingTree().fit(x, y)
    with pytest.raises(ValueError, match="features"):
        tree.apply(x[:, :2])


def test_tree_sizes_as_scikit_learns_trees_give_them():
    from lrank import PartialLabelRankingTree

    x, y = make_problem(n=300, seed=12)
    tree = LabelRankingTree(random_state=0).fit(x, y)
    # Every leaf of a tree grown on all rows holds some training row.
    assert tree.get_n_leaves() == len(np.unique(tree.apply(x)))
    assert isinstance(tree.get_depth(), int) and tree.get_depth() >= 2
    shallower = LabelRankingTree(max_depth=tree.get_depth() - 1, random_state=0).fit(x, y)
    assert shallower.get_depth() == tree.get_depth() - 1
    assert LabelRankingTree(max_depth=0).fit(x, y).get_n_leaves() == 1
    # A forest: one value per tree, in apply's order.
    forest = LabelRankingRandomForest(n_estimators=4, max_depth=3, random_state=0).fit(x, y)
    depths, leaves = forest.get_depth(), forest.get_n_leaves()
    assert depths.shape == leaves.shape == (4,) and np.all(depths <= 3)
    assert np.all(leaves >= forest.apply(x).max(axis=0) // 2 + 1)  # nodes = 2 leaves - 1
    assert np.all(leaves <= 2**depths)
    tx, ty = make_tied_problem(n=150, seed=3)
    plr = PartialLabelRankingTree(random_state=0).fit(tx, ty)
    assert plr.get_n_leaves() == len(np.unique(plr.apply(tx)))
