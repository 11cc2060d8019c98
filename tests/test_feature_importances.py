"""``feature_importances_``: each feature's share of the decrease in disagreement among the
training rankings over a model's splits (the definition is checked against a slow reference in
the core's tests; these check what a scikit-learn user relies on)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from lrank import model_file
from lrank.data import Attribute
from lrank.errors import InvalidInputError
from lrank.estimators import (
    AdaBoostLabelRanker,
    BaggingLabelRanker,
    DummyLabelRanker,
    GradientBoostingLabelRanker,
    InstanceBasedLabelRanker,
    InstanceBasedPartialLabelRanker,
    LabelRankingRandomForest,
    LabelRankingTree,
    LabelwiseDecisionTree,
    LabelwisePartialLabelRanker,
    LabelwiseRandomForest,
    OneVsOneLabelRanker,
    PairwisePartialLabelRanker,
    PartialLabelRankingForest,
    PartialLabelRankingTree,
    RankingByPairwiseComparison,
)
from sklearn.feature_selection import SelectFromModel


def deciding_feature_problem(n: int = 300, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Five features, the third alone decides the ranking of four labels (with ties above .8)."""
    rng = np.random.default_rng(seed)
    x = rng.random((n, 5))
    rankings = {0: [1, 2, 3, 4], 1: [2, 1, 4, 3], 2: [4, 3, 2, 1], 3: [1, 1, 2, 3]}
    y = np.array([rankings[int(v > 0.3) + int(v > 0.55) + int(v > 0.8)] for v in x[:, 2]], dtype=np.int32)
    return x, y


def strict(y: np.ndarray) -> np.ndarray:
    """The tied rows broken, for learners that refuse ties."""
    return np.where((y == [1, 1, 2, 3]).all(axis=1)[:, None], np.array([1, 2, 3, 4], dtype=np.int32), y)


TREE_ESTIMATORS = [
    (LabelRankingRandomForest(n_estimators=10, random_state=0), False),
    (LabelRankingTree(random_state=0), False),
    (LabelwiseDecisionTree(random_state=0), True),
    (LabelwiseRandomForest(n_estimators=10, random_state=0), True),
    (OneVsOneLabelRanker(n_estimators=5, random_state=0), False),
    (PartialLabelRankingTree(random_state=0), True),
    (PartialLabelRankingForest(n_estimators=10, random_state=0), True),
    (PairwisePartialLabelRanker(n_estimators=5, random_state=0), True),
    (LabelwisePartialLabelRanker(n_estimators=10, random_state=0), True),
    (BaggingLabelRanker(PartialLabelRankingTree(), n_estimators=5, random_state=0), True),
    (AdaBoostLabelRanker(LabelRankingTree(max_depth=3), n_estimators=5, random_state=0), False),
    # Gains of the splits on the loss's derivatives (see test_boosting_counts_gains).
    (GradientBoostingLabelRanker(n_estimators=20, random_state=0), False),
    (GradientBoostingLabelRanker(n_estimators=10, loss="pairwise", per_label_trees=True, random_state=0), True),
    (BaggingLabelRanker(GradientBoostingLabelRanker(n_estimators=5), n_estimators=3, random_state=0), False),
]


@pytest.mark.parametrize(("estimator", "ties"), TREE_ESTIMATORS, ids=lambda e: type(e).__name__)
def test_the_deciding_feature_gets_the_largest_share(estimator, ties):
    x, y = deciding_feature_problem()
    y = y if ties else strict(y)
    shares = estimator.fit(x, y).feature_importances_
    assert shares.shape == (5,) and shares.dtype == np.float64
    assert np.all(shares >= 0) and shares.sum() == pytest.approx(1.0)
    assert shares[2] > 0.6, shares
    # The same for another thread count, and read twice.
    again = estimator.set_params(n_jobs=1).fit(x, y).feature_importances_
    assert np.array_equal(again, shares) and estimator.feature_importances_ is again


def test_learners_without_trees_have_no_attribute():
    x, y = deciding_feature_problem()
    for estimator in [
        InstanceBasedLabelRanker(),
        InstanceBasedPartialLabelRanker(),
        RankingByPairwiseComparison(),
        DummyLabelRanker(),
        BaggingLabelRanker(InstanceBasedLabelRanker(), n_estimators=3, random_state=0),
    ]:
        estimator.fit(x, strict(y))
        assert not hasattr(estimator, "feature_importances_"), type(estimator).__name__
        with pytest.raises(AttributeError, match="has no trees"):
            estimator.feature_importances_  # noqa: B018
    assert not hasattr(LabelRankingRandomForest(), "feature_importances_")


def test_refitting_without_trees_drops_the_earlier_shares():
    x, y = deciding_feature_problem()
    bagging = BaggingLabelRanker(PartialLabelRankingTree(), n_estimators=3, random_state=0).fit(x, y)
    assert bagging.feature_importances_.shape == (5,)
    bagging.set_params(estimator=InstanceBasedPartialLabelRanker()).fit(x, y)
    assert not hasattr(bagging, "feature_importances_")


def test_computed_when_first_read_and_pickled_without_the_training_data():
    x, y = deciding_feature_problem()
    forest = LabelRankingRandomForest(n_estimators=5, random_state=0).fit(x, strict(y))
    assert forest.__dict__["_importance_inputs"] is not None  # not computed by fit
    restored = pickle.loads(pickle.dumps(forest))
    assert "_importance_inputs" not in restored.__dict__
    assert np.array_equal(restored.feature_importances_, forest.feature_importances_)
    assert forest.__dict__["_importance_inputs"] is None  # released once read
    small = pickle.dumps(LabelRankingRandomForest(n_estimators=5, random_state=0).fit(x, strict(y)))
    assert x.tobytes() not in small


def test_training_arrays_changed_in_place_after_fit_are_not_used():
    x, y = deciding_feature_problem()
    y = strict(y)
    expected = LabelRankingRandomForest(n_estimators=5, random_state=0).fit(x, y).feature_importances_
    for change in ("x", "w"):
        xc, w = x.copy(), np.ones(len(x))
        forest = LabelRankingRandomForest(n_estimators=5, random_state=0).fit(xc, y, sample_weight=w)
        (xc if change == "x" else w)[:] = 0  # the caller reuses its buffers
        with pytest.raises(AttributeError, match="changed in place after fit"):
            forest.feature_importances_  # noqa: B018
        restored = pickle.loads(pickle.dumps(forest))  # pickles still, without the shares
        assert not hasattr(restored, "feature_importances_")
    xc = x.copy()
    forest = LabelRankingRandomForest(n_estimators=5, random_state=0).fit(xc, y)
    np.testing.assert_array_equal(forest.feature_importances_, expected)  # read before the change
    xc[:] = 0
    np.testing.assert_array_equal(forest.feature_importances_, expected)


def test_a_loaded_model_says_why_it_has_none(tmp_path):
    x, y = deciding_feature_problem()
    forest = LabelRankingRandomForest(n_estimators=5, random_state=0).fit(x, strict(y))
    path = tmp_path / "forest.lrm"
    attributes = [Attribute(f"A{j + 1}", "numeric") for j in range(5)]
    labels = ["a", "b", "c", "d"]
    model_file.save_model(path, forest, learner="LRRF", learner_options=[], labels=labels, attributes=attributes)
    loaded = model_file.load_model(path).estimator
    with pytest.raises(AttributeError, match="not fitted in this process"):
        loaded.feature_importances_  # noqa: B018


def test_select_from_model_keeps_the_deciding_feature():
    x, y = deciding_feature_problem()
    selector = SelectFromModel(PartialLabelRankingForest(n_estimators=10, random_state=0)).fit(x, y)
    assert selector.get_support().tolist() == [False, False, True, False, False]


def test_split_importances_on_given_data_serve_loaded_models(tmp_path):
    x, y = deciding_feature_problem()
    y = strict(y)
    forest = LabelRankingRandomForest(n_estimators=5, random_state=0).fit(x, y)
    path = tmp_path / "forest.lrm"
    attributes = [Attribute(f"A{j + 1}", "numeric") for j in range(5)]
    model_file.save_model(path, forest, learner="LRRF", learner_options=[], labels=list("abcd"), attributes=attributes)
    loaded = model_file.load_model(path).estimator
    # On the training data: the fitted model's own shares.
    np.testing.assert_allclose(loaded.split_importances(x, y), forest.feature_importances_, rtol=1e-12)
    # On other rows (held out, weighted, as text): still a distribution led by the deciding feature.
    x_new, y_new = deciding_feature_problem(n=200, seed=5)
    shares = forest.split_importances(x_new, strict(y_new), sample_weight=np.full(200, 2.0))
    assert shares.sum() == pytest.approx(1.0) and shares.argmax() == 2
    with pytest.raises(InvalidInputError, match="has no trees"):
        InstanceBasedLabelRanker().fit(x, y).split_importances(x, y)
    with pytest.raises(InvalidInputError, match="X has 4 features"):
        forest.split_importances(x[:, :4], y)


def test_boosting_shares_are_gains_and_serve_a_loaded_model(tmp_path):
    # GBLR's shares are its splits' gains on the loss (the definition is checked against a slow
    # reference in the core); a loaded model gives the same from the training data.
    x, y = deciding_feature_problem()
    y = strict(y)
    boosted = GradientBoostingLabelRanker(n_estimators=15, max_depth=2, random_state=0).fit(x, y)
    path = tmp_path / "gblr.lrm"
    attributes = [Attribute(f"A{j + 1}", "numeric") for j in range(5)]
    model_file.save_model(path, boosted, learner="GBLR", learner_options=[], labels=list("abcd"), attributes=attributes)
    loaded = model_file.load_model(path).estimator
    np.testing.assert_allclose(loaded.split_importances(x, y), boosted.feature_importances_, rtol=1e-12)
    assert boosted.feature_importances_.sum() == pytest.approx(1.0) and boosted.feature_importances_.argmax() == 2
