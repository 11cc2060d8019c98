"""Sample weights count relative to one another, as in scikit-learn: multiplying them all by a
constant leaves every tree learner's model unchanged. Node-size thresholds (min_samples_split,
min_samples_leaf, LRT's 2m, GBLR's leaf size) count rows of the training set's average weight;
before, weights that sum to 1 made every tree a single leaf. Powers of two scale every sum
exactly, so the predictions must be bit-identical. The learners with a penalty in the loss
(RPC's C, GBLR's L2) depend on the weights' scale as scikit-learn's LogisticRegression and
HistGradientBoosting do, and are left out."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import make_problem, make_tied_problem
from lrank import (
    AdaBoostLabelRanker,
    BaggingLabelRanker,
    InstanceBasedLabelRanker,
    LabelRankingRandomForest,
    LabelRankingTree,
    LabelwiseDecisionTree,
    LabelwisePartialLabelRanker,
    LabelwiseRandomForest,
    OneVsOneLabelRanker,
    PairwisePartialLabelRanker,
    PartialLabelRankingForest,
    PartialLabelRankingTree,
)

STRICT = [
    LabelRankingTree,
    LabelRankingRandomForest,
    LabelwiseDecisionTree,
    LabelwiseRandomForest,
    OneVsOneLabelRanker,
    AdaBoostLabelRanker,
    BaggingLabelRanker,
    InstanceBasedLabelRanker,
]
TIED = [PartialLabelRankingTree, PartialLabelRankingForest, PairwisePartialLabelRanker, LabelwisePartialLabelRanker]


def problem(cls):
    x, y = (make_tied_problem if cls in TIED else make_problem)(n=160, seed=11)
    w = np.random.default_rng(2).choice([0.5, 1.0, 3.0], size=len(x))
    return x, y, w


@pytest.mark.parametrize("cls", STRICT + TIED, ids=lambda c: c.__name__)
def test_scaling_every_weight_changes_no_prediction(cls):
    x, y, w = problem(cls)
    preds = [cls(random_state=0).fit(x, y, sample_weight=w * s).predict(x) for s in (1.0, 2.0**-7, 2.0**5)]
    for p in preds[1:]:
        np.testing.assert_array_equal(p, preds[0])


@pytest.mark.parametrize(
    "cls", [LabelRankingTree, LabelwiseDecisionTree, PartialLabelRankingTree], ids=lambda c: c.__name__
)
def test_weights_that_sum_to_one_grow_the_tree_of_unit_weights(cls):
    x, y, _ = problem(cls)
    unit = cls(random_state=0).fit(x, y)
    normalised = cls(random_state=0).fit(x, y, sample_weight=np.full(len(x), 1 / len(x)))
    assert unit.get_n_leaves() > 1  # a real tree, which the test would not tell apart otherwise
    assert normalised.get_n_leaves() == unit.get_n_leaves()
    np.testing.assert_array_equal(normalised.predict(x), unit.predict(x))
