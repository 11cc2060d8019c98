"""Fold plans: the one description of the papers' protocol that cross-validation and experiments share."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import make_problem
from hypothesis import given, settings
from hypothesis import strategies as st
from lrank import InvalidInputError, LabelRankingRandomForest
from lrank.evaluation import Evaluation, cross_validate, fold_plan, fold_plans, stratified_folds
from lrank.rankings import delete_labels


def reference_cross_validate(make, x, y, *, labels, n_folds, repeats, seed, missing):
    """The loop cross_validate ran before fold plans existed, kept here to pin its results."""
    evaluation = Evaluation(name="cross-validation", labels=list(labels))
    for r in range(repeats):
        rng = np.random.default_rng([seed + r, 0x5EED])
        for test in stratified_folds(y, n_folds, seed + r):
            train = np.setdiff1d(np.arange(y.shape[0]), test, assume_unique=True)
            y_train = delete_labels(y[train], missing, rng) if missing > 0 else y[train]
            est = make()
            est.fit(x[train], y_train)
            evaluation.add(y[test], est.predict(x[test]))
    return evaluation


@pytest.mark.parametrize("missing", [0.0, 0.4])
def test_cross_validate_gives_the_results_it_gave_before_fold_plans(missing):
    x, y = make_problem(n=90, m=5, seed=8)

    def make():
        return LabelRankingRandomForest(n_estimators=4, random_state=2, n_jobs=1)

    kwargs = {"labels": list("abcde"), "n_folds": 3, "repeats": 2, "seed": 4, "missing": missing}
    assert cross_validate(make, x, y, **kwargs).folds == reference_cross_validate(make, x, y, **kwargs).folds


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    missing=st.sampled_from([0.0, 0.2, 0.5, 0.9]),
    n_folds=st.integers(2, 6),
    repeats=st.integers(1, 3),
    data_seed=st.integers(0, 100),
)
def test_a_fold_computed_alone_equals_the_same_fold_computed_in_sequence(seed, missing, n_folds, repeats, data_seed):
    _, y = make_problem(n=40, m=5, seed=data_seed)
    in_order = list(fold_plans(y, n_folds=n_folds, repeats=repeats, seed=seed, missing=missing))
    assert [(p.repeat, p.fold) for p in in_order] == [(r, k) for r in range(repeats) for k in range(n_folds)]
    for plan in in_order:
        alone = fold_plan(y, n_folds=n_folds, seed=seed, missing=missing, repeat=plan.repeat, fold=plan.fold)
        np.testing.assert_array_equal(alone.train, plan.train)
        np.testing.assert_array_equal(alone.test, plan.test)
        np.testing.assert_array_equal(alone.y_train, plan.y_train)


def test_only_yields_the_asked_folds_in_protocol_order():
    _, y = make_problem(n=30, m=4, seed=1)
    plans = list(fold_plans(y, n_folds=3, repeats=3, seed=5, missing=0.5, only={(2, 1), (0, 2)}))
    assert [(p.repeat, p.fold) for p in plans] == [(0, 2), (2, 1)]


def test_plans_partition_rows_delete_only_training_labels_and_depend_on_the_seed():
    _, y = make_problem(n=50, m=6, seed=2)
    plans = list(fold_plans(y, n_folds=5, repeats=1, seed=3, missing=0.5))
    np.testing.assert_array_equal(np.sort(np.concatenate([p.test for p in plans])), np.arange(50))
    for p in plans:
        assert np.intersect1d(p.train, p.test).size == 0 and p.train.size + p.test.size == 50
        assert (p.y_train > 0).sum() < (y[p.train] > 0).sum()  # labels were deleted ...
        assert ((p.y_train > 0) <= (y[p.train] > 0)).all()  # ... and none invented
    other = list(fold_plans(y, n_folds=5, repeats=1, seed=4, missing=0.5))
    assert any(not np.array_equal(a.test, b.test) for a, b in zip(plans, other))


def test_bad_plans_are_refused():
    _, y = make_problem(n=10, m=3)
    with pytest.raises(InvalidInputError, match="cannot make 20 folds"):
        list(fold_plans(y, n_folds=20, repeats=1, seed=1))
    with pytest.raises(InvalidInputError, match="repeats"):
        list(fold_plans(y, n_folds=2, repeats=0, seed=1))
    with pytest.raises(InvalidInputError, match="fold 3 does not exist"):
        fold_plan(y, n_folds=3, seed=1, missing=0.0, repeat=0, fold=3)
