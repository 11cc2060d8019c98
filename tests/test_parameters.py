"""Parameters are checked once, by the core, and a bad one is an InvalidParameterError naming it
(as the estimator calls it) before any data is read; wrong types are refused, never coerced."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from lrank import (
    BaggingLabelRanker,
    InstanceBasedLabelRanker,
    InstanceBasedPlackettLuce,
    InvalidParameterError,
    LabelRankingRandomForest,
    LabelRankingTree,
    LabelwiseRandomForest,
    OneVsOneLabelRanker,
    RankingByPairwiseComparison,
)

BAD = [
    (LabelRankingRandomForest(n_estimators=0), "n_estimators"),
    (LabelRankingRandomForest(n_estimators=-1), "n_estimators"),
    (LabelRankingRandomForest(max_features="bogus"), "max_features"),
    (LabelRankingRandomForest(max_features=1.5), "max_features"),
    (LabelRankingRandomForest(bootstrap="no"), "bootstrap"),
    (LabelRankingRandomForest(class_mode="labels"), "class_mode"),
    (LabelRankingRandomForest(max_depth=2.5), "max_depth"),
    (InstanceBasedLabelRanker(n_neighbors=0), "n_neighbors"),
    (InstanceBasedLabelRanker(max_iter=0), "max_iter"),
    (InstanceBasedPlackettLuce(max_iter=0), "max_iter"),
    (InstanceBasedPlackettLuce(tol=-1.0), "tol"),
    (InstanceBasedPlackettLuce(weights="inverse"), "weights"),
    (LabelRankingTree(splitter="random"), "splitter"),
    (LabelRankingTree(min_samples_split=-1.0), "min_samples_split"),
    (LabelRankingTree(max_iter=0), "max_iter"),
    (LabelwiseRandomForest(min_samples_leaf=-1.0), "min_samples_leaf"),
    (LabelwiseRandomForest(tune_depth=1), "tune_depth"),
    # The forest's parameters are checked even when the classifier is a single tree.
    (OneVsOneLabelRanker(classifier="tree", n_estimators=0), "n_estimators"),
    (OneVsOneLabelRanker(classifier="tree", max_features="bogus"), "max_features"),
    (OneVsOneLabelRanker(classifier="svm"), "classifier"),
    (RankingByPairwiseComparison(C=0.0), "C"),
    (RankingByPairwiseComparison(C="1"), "C"),
    (RankingByPairwiseComparison(max_iter=0), "max_iter"),
    (BaggingLabelRanker(n_estimators=0), "n_estimators"),
    (BaggingLabelRanker(max_samples=1.5), "max_samples"),
    (BaggingLabelRanker(aggregation="mean"), "aggregation"),
    # A bad base learner's parameter is named as the base learner calls it.
    (BaggingLabelRanker(InstanceBasedLabelRanker(n_neighbors=0)), "n_neighbors"),
]


@pytest.mark.parametrize(("est", "name"), BAD, ids=[f"{type(e).__name__}-{n}-{i}" for i, (e, n) in enumerate(BAD)])
def test_a_bad_parameter_is_named(est, name):
    # Y is not even a rank matrix: the parameters are checked first.
    with pytest.raises(InvalidParameterError) as err:
        est.fit(np.zeros((3, 2)), np.zeros((3, 2), dtype=np.int32))
    assert err.value.parameter == name, str(err.value)
    assert str(err.value).startswith(f"invalid parameter {name}: "), str(err.value)


def test_a_base_estimator_that_is_no_label_ranker_is_refused(problem):
    x, y = problem
    with pytest.raises(ValueError, match="estimator must be a label ranker"):
        BaggingLabelRanker(object()).fit(x, y)
    # The class where an instance belongs: said so, not scikit-learn's "get_params() missing 'self'".
    with pytest.raises(ValueError, match=r"not the class LabelRankingTree: pass LabelRankingTree\(\)"):
        BaggingLabelRanker(LabelRankingTree).fit(x, y)


def test_seeds_beyond_64_bits_are_refused_not_folded(problem):
    x, y = problem
    with pytest.raises(InvalidParameterError, match=r"random_state: must lie in \[0, 2\*\*64\)"):
        LabelRankingRandomForest(random_state=2**64).fit(x, y)
    a = LabelRankingRandomForest(n_estimators=3, random_state=2**64 - 1).fit(x, y)
    assert a.seed_ == 2**64 - 1


def test_thread_counts_beyond_the_cores_are_capped(problem):
    x, y = problem
    a = LabelRankingRandomForest(n_estimators=3, random_state=1, n_jobs=10**6).fit(x, y)
    b = LabelRankingRandomForest(n_estimators=3, random_state=1, n_jobs=1).fit(x, y)
    np.testing.assert_array_equal(a.predict(x), b.predict(x))


def test_threads_and_seeds_are_parameters_and_a_random_state_seeds_as_in_scikit_learn(problem):
    x, y = problem
    for bad in ({"n_jobs": 0}, {"random_state": "seven"}):
        with pytest.raises(InvalidParameterError) as err:
            LabelRankingRandomForest(n_estimators=2, **bad).fit(x, y)
        assert err.value.parameter == next(iter(bad))
    # A RandomState gives a seed drawn from it: the same state, the same model; it advances.
    state = np.random.RandomState(7)
    a = LabelRankingRandomForest(n_estimators=3, random_state=np.random.RandomState(7)).fit(x, y)
    b = LabelRankingRandomForest(n_estimators=3, random_state=state).fit(x, y)
    c = LabelRankingRandomForest(n_estimators=3, random_state=state).fit(x, y)
    assert a.seed_ == b.seed_ != c.seed_
    np.testing.assert_array_equal(a.predict(x), b.predict(x))


def test_an_int_seed_costs_a_fresh_process_no_import_of_numpy_random():
    # numpy.random takes 8 to 11 ms to import, more than a whole small fit; an int or None seed
    # does not need it.
    code = (
        "import sys, numpy as np, lrank\n"
        "x = np.arange(40.0).reshape(20, 2); y = np.tile(np.array([1, 2, 3], np.int32), (20, 1))\n"
        "lrank.LabelRankingTree(random_state=3).fit(x, y)\n"
        "a = lrank.LabelRankingTree(random_state=None).fit(x, y).seed_\n"
        "b = lrank.LabelRankingTree(random_state=None).fit(x, y).seed_\n"
        "print('numpy.random' in sys.modules, a != b)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]


@pytest.mark.parametrize("cls", [InstanceBasedLabelRanker, InstanceBasedPlackettLuce])
def test_more_neighbours_than_rows_is_said(problem, cls):
    # scikit-learn refuses n_neighbors above the rows; lrank takes them all, and says so.
    x, y = problem
    with pytest.warns(UserWarning, match=rf"n_neighbors=1000 is more than the {len(x)} training rows"):
        est = cls(n_neighbors=1000).fit(x, y)
    assert est.n_neighbors_ == len(x)


def test_dudani_weights_go_by_either_name(problem):
    # IBLR called them "dudani", IBPLR "distance": each refused the other's name.
    from lrank import InstanceBasedPartialLabelRanker

    x, y = problem
    for cls in (InstanceBasedLabelRanker, InstanceBasedPartialLabelRanker):
        a = cls(weights="dudani", random_state=0).fit(x, y)
        b = cls(weights="distance", random_state=0).fit(x, y)
        assert a.model_ == b.model_
