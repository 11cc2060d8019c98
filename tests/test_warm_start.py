"""warm_start=True: refits with more n_estimators add trees to the forest fitted before.

The core checks tree for tree that adding trees gives the forest of a fit with the final count
(rust/lrank-core/tests/add_trees.rs); here what users do with it and what is refused.
"""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from conftest import make_problem, make_tied_problem
from lrank import (
    BaggingLabelRanker,
    InvalidInputError,
    InvalidParameterError,
    LabelRankingRandomForest,
    LabelwiseRandomForest,
    PartialLabelRankingForest,
)
from lrank._core import save_model
from lrank.estimators import _warm

FORESTS = [LabelRankingRandomForest, LabelwiseRandomForest, PartialLabelRankingForest, BaggingLabelRanker]


def n_trees(est) -> int:
    summary = json.loads(est.model_.summary_json())
    return summary["n_members"] if "n_members" in summary else len(summary["tree_depths"])


def _data(cls):
    return make_tied_problem(n=150, seed=2) if cls is PartialLabelRankingForest else make_problem(n=150, seed=2)


@pytest.mark.parametrize("cls", FORESTS, ids=lambda c: c.__name__)
def test_growing_in_steps_gives_the_forest_of_one_fit(cls, monkeypatch):
    x, y = _data(cls)
    x_new = np.random.default_rng(9).random(x.shape)
    once = cls(n_estimators=25, random_state=3).fit(x, y)
    est = cls(n_estimators=5, warm_start=True, random_state=3).fit(x, y)
    added: list[int] = []
    real = _warm.Previous.add_trees

    def counting(self, n, *args, **kwargs):
        added.append(n)
        return real(self, n, *args, **kwargs)

    monkeypatch.setattr(_warm.Previous, "add_trees", counting)
    for n in (12, 25):
        est.set_params(n_estimators=n).fit(x, y)
    assert added == [12, 25]  # trees added to the model, not a new fit
    np.testing.assert_array_equal(est.predict(x_new), once.predict(x_new))
    assert save_model(est.model_) == save_model(once.model_)
    assert n_trees(est) == 25


def test_a_random_seed_is_kept_and_the_out_of_bag_estimate_follows_the_trees():
    x, y = make_problem(n=200, seed=4)
    with pytest.warns(UserWarning, match="drawn by every member"):
        est = LabelRankingRandomForest(n_estimators=3, warm_start=True, oob_score=True).fit(x, y)
    seed, few = est.seed_, est.oob_score_
    est.set_params(n_estimators=40).fit(x, y)
    assert est.seed_ == seed
    fresh = LabelRankingRandomForest(n_estimators=40, oob_score=True, random_state=seed).fit(x, y)
    assert est.oob_score_ == fresh.oob_score_ and est.oob_score_ != few
    again = pickle.loads(pickle.dumps(est)).set_params(n_estimators=45).fit(x, y)
    assert n_trees(again) == 45


@pytest.mark.parametrize("cls", FORESTS, ids=lambda c: c.__name__)
def test_a_random_state_generator_grows_on_the_seed_it_gave(cls):
    """The docs' growing pattern with a numpy RandomState: the first fit advanced the generator,
    and warm_start refused the second as 'random_state changed' (determinism audit)."""
    x, y = _data(cls)
    est = cls(n_estimators=5, warm_start=True, random_state=np.random.RandomState(0)).fit(x, y)
    seed = est.seed_
    est.set_params(n_estimators=9).fit(x, y)
    assert est.seed_ == seed and n_trees(est) == 9
    once = cls(n_estimators=9, random_state=seed).fit(x, y)
    assert save_model(est.model_) == save_model(once.model_)
    with pytest.raises(InvalidParameterError, match="random_state changed"):
        est.set_params(n_estimators=12, random_state=np.random.RandomState(0)).fit(x, y)


def test_unchanged_count_warns_and_fewer_trees_are_refused():
    x, y = make_problem(n=80, seed=5)
    est = LabelwiseRandomForest(n_estimators=6, warm_start=True, random_state=1).fit(x, y)
    before = est.predict(x)
    with pytest.warns(UserWarning, match="fits no new trees"):
        est.fit(x, y)
    np.testing.assert_array_equal(est.predict(x), before)
    with pytest.raises(InvalidParameterError, match="at least the 6 trees already fitted"):
        est.set_params(n_estimators=4).fit(x, y)


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        ({"max_depth": 3}, InvalidParameterError, "max_depth changed since"),
        ({"random_state": 2}, InvalidParameterError, "random_state changed since"),
        ("data", InvalidInputError, "X, y or sample_weight differ"),
        ({"tune_depth": True}, InvalidParameterError, "tune_depth changed since"),
    ],
)
def test_changes_between_warm_fits_are_refused(change, error, message):
    x, y = make_problem(n=80, seed=6)
    est = LabelwiseRandomForest(n_estimators=4, warm_start=True, random_state=1).fit(x, y)
    if change == "data":
        x = x[::-1].copy()
    else:
        est.set_params(**change)
    with pytest.raises(error, match=message):
        est.set_params(n_estimators=8).fit(x, y)


def test_a_tuned_depth_cannot_grow_and_without_warm_start_the_forest_is_new():
    x, y = make_problem(n=80, seed=7)
    tuned = LabelwiseRandomForest(n_estimators=3, tune_depth=True, warm_start=True, random_state=1).fit(x, y)
    with pytest.raises(InvalidInputError, match="tuned depth"):
        tuned.set_params(n_estimators=6).fit(x, y)
    est = LabelRankingRandomForest(n_estimators=4, random_state=1).fit(x, y)
    est.set_params(n_estimators=2, max_depth=3).fit(x, y)
    assert n_trees(est) == 2


def test_numpys_true_is_true():
    # np.bool_ passes the flag check, so it must act as True too (it used to refit from scratch).
    x, y = make_problem(n=80, seed=8)
    est = LabelRankingRandomForest(n_estimators=5, warm_start=np.bool_(True), random_state=7).fit(x, y)
    with pytest.raises(InvalidParameterError, match="max_depth changed since"):
        est.set_params(n_estimators=9, max_depth=2).fit(x, y)
    est.set_params(max_depth=8).fit(x, y)
    assert n_trees(est) == 9


def test_bagging_compares_its_base_by_parameters_and_refuses_python_bases():
    from lrank import LabelRankingTree

    x, y = make_problem(n=80, seed=9)
    est = BaggingLabelRanker(LabelRankingTree(), n_estimators=3, warm_start=True, random_state=2).fit(x, y)
    est.set_params(n_estimators=6).fit(x, y)  # the same base, by its parameters
    assert n_trees(est) == 6
    est.set_params(estimator__max_depth=2)
    with pytest.raises(InvalidParameterError, match="estimator changed since"):
        est.set_params(n_estimators=8).fit(x, y)

    class Plain:
        def get_params(self, deep=True):
            return {}

        def fit(self, x, y, sample_weight=None):
            return self

        def predict(self, x):
            return np.ones((len(x), y.shape[1]), dtype=np.int32)

    with pytest.raises(InvalidParameterError, match="lrank's own learners"):
        BaggingLabelRanker(Plain(), warm_start=True).fit(x, y)
