"""BaggingLabelRanker: core and Python paths, consensus, determinism, persistence, CLI."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from lrank import (
    BaggingLabelRanker,
    InstanceBasedLabelRanker,
    InvalidInputError,
    LabelRankingRandomForest,
    LabelRankingTree,
    _core,
)
from lrank.aggregation import AGGREGATORS, borda
from lrank.estimators.base import LabelRanker


class PythonOnlyTree(LabelRanker):
    """A label ranker the core does not know (no ``_core_params``): bagged in Python."""

    def __init__(self, max_depth: int | None = None, random_state: int | None = None) -> None:
        self.max_depth = max_depth
        self.random_state = random_state

    def fit(self, X, Y, sample_weight=None):
        self.model_ = LabelRankingTree(max_depth=self.max_depth, random_state=self.random_state).fit(
            X, Y, sample_weight
        )
        return self

    def predict(self, X):
        return self.model_.predict(X)


def test_core_bagging_predicts_the_borda_consensus_of_its_members(problem):
    x, y = problem
    est = BaggingLabelRanker(LabelRankingTree(splitter="equal_width"), n_estimators=9, random_state=0)
    assert est.fit(x, y) is est
    assert est.model_.kind == "Bagging" and est.estimators_ is None
    per = est.predict_per_member(x[:30])
    assert per.shape == (9, 30, y.shape[1])
    pred = est.predict(x[:30])
    expect = np.stack([borda(per[:, i, :]) for i in range(30)])
    np.testing.assert_array_equal(pred, expect)
    assert est.score(x, y) > 0.6


@pytest.mark.parametrize("aggregation", sorted(AGGREGATORS))
def test_every_aggregation(problem, aggregation):
    x, y = problem
    est = BaggingLabelRanker(
        LabelRankingTree(max_depth=3), n_estimators=5, aggregation=aggregation, random_state=1
    ).fit(x, y)
    per, pred = est.predict_per_member(x[:10]), est.predict(x[:10])
    for i in range(10):
        np.testing.assert_array_equal(pred[i], AGGREGATORS[aggregation](per[:, i, :]))


def test_same_ensemble_for_any_number_of_threads(problem):
    x, y = problem
    a = BaggingLabelRanker(LabelRankingTree(splitter="equal_frequency"), n_estimators=8, random_state=4, n_jobs=1).fit(
        x, y
    )
    b = BaggingLabelRanker(LabelRankingTree(splitter="equal_frequency"), n_estimators=8, random_state=4, n_jobs=2).fit(
        x, y
    )
    assert a.model_ == b.model_
    np.testing.assert_array_equal(a.predict(x), b.predict(x))


@pytest.mark.parametrize(
    "base",
    [
        LabelRankingTree(max_depth=4, splitter="equal_width"),
        LabelRankingRandomForest(n_estimators=3, max_features=2),
        InstanceBasedLabelRanker(n_neighbors=3),
    ],
)
def test_core_parameters_fit_the_same_model_as_the_estimator(problem, base):
    """Each estimator's ``_core_params`` (what bagging hands the core) describes the estimator."""
    x, y = problem
    base.set_params(random_state=11)
    direct = base.fit(x, y)
    generic = _core.Model.fit(json.dumps(base._core_params(seed=direct.seed_)), x, y)
    np.testing.assert_array_equal(generic.predict(x), direct.predict(x))


def test_any_label_ranker_is_bagged_in_python(problem):
    x, y = problem
    est = BaggingLabelRanker(PythonOnlyTree(max_depth=3), n_estimators=4, random_state=2).fit(x, y)
    assert est.model_ is None and len(est.estimators_) == 4
    per = est.predict_per_member(x[:5])
    np.testing.assert_array_equal(est.predict(x[:5]), np.stack([borda(per[:, i, :]) for i in range(5)]))
    again = BaggingLabelRanker(PythonOnlyTree(max_depth=3), n_estimators=4, random_state=2).fit(x, y)
    np.testing.assert_array_equal(again.predict(x), est.predict(x))


def test_bad_parameters(problem):
    x, y = problem
    for kwargs, match in [
        ({"n_estimators": 0}, "n_estimators"),
        ({"aggregation": "mean"}, "aggregation"),
        ({"max_samples": 0}, "max_samples"),
        ({"max_samples": 1.5}, "max_samples"),
    ]:
        with pytest.raises(InvalidInputError, match=match):
            BaggingLabelRanker(**kwargs).fit(x, y)


def test_pickle_clone_and_defaults(problem):
    from sklearn.base import clone

    x, y = problem
    est = BaggingLabelRanker(n_estimators=3, random_state=5).fit(x, y)  # default base: LRT
    assert json.loads(est.model_.params_json())["Bagging"]["base"]["LabelTree"]["threshold_rule"] == "Best"
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(est)).predict(x), est.predict(x))
    twin = clone(est).fit(x, y)
    np.testing.assert_array_equal(twin.predict(x), est.predict(x))


class UnweightedTree(PythonOnlyTree):
    """A ranker whose fit takes no sample_weight (records the rows it was given)."""

    def fit(self, X, Y):
        self.rows_seen_ = len(X)
        return super().fit(X, Y)


def test_learners_without_sample_weight_get_the_drawn_rows_repeated(problem):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    x, y = problem
    # A Pipeline's fit takes no sample_weight: scaling before kNN, bagged.
    piped = BaggingLabelRanker(make_pipeline(StandardScaler(), InstanceBasedLabelRanker()), n_estimators=4)
    assert piped.fit(x, y).score(x, y) > 0.6
    # A Pipeline's learner gets its seed as a nested random_state: the same bag twice.
    forests = [
        BaggingLabelRanker(
            make_pipeline(StandardScaler(), LabelRankingRandomForest(n_estimators=3)), n_estimators=3, random_state=0
        ).fit(x, y)
        for _ in range(2)
    ]
    np.testing.assert_array_equal(forests[0].predict_per_member(x), forests[1].predict_per_member(x))
    seeds = {m.steps[-1][1].random_state for m in forests[0].estimators_}
    assert len(seeds) == 3 and None not in seeds
    # The repeated rows are the weighted path's draws: the same members, grown on duplicates.
    weighted = BaggingLabelRanker(PythonOnlyTree(), n_estimators=5, random_state=3).fit(x, y)
    repeated = BaggingLabelRanker(UnweightedTree(), n_estimators=5, random_state=3).fit(x, y)
    assert all(m.rows_seen_ == len(x) for m in repeated.estimators_)
    np.testing.assert_array_equal(weighted.predict_per_member(x), repeated.predict_per_member(x))
    with pytest.raises(InvalidInputError, match="sample_weight needs a base estimator whose fit takes sample_weight"):
        BaggingLabelRanker(UnweightedTree(), n_estimators=2).fit(x, y, sample_weight=np.ones(len(x)))


def test_a_sample_without_weighted_rows_is_drawn_again(problem):
    """One row carrying all the weight: about a third of the bootstrap samples miss it, and
    Bagging refused the fit ('a bootstrap sample holds no row with positive weight') where the
    forests fit (edge-case audit). Such a sample is drawn again from the member's stream."""
    x, y = problem
    w = np.zeros(len(y))
    w[7] = 1.0
    est = BaggingLabelRanker(n_estimators=10, random_state=0).fit(x, y, sample_weight=w)
    np.testing.assert_array_equal(est.predict(x), np.tile(y[7], (len(y), 1)))
    # Samples that hold a weighted row are drawn as before: unit weights give the same members.
    unit = BaggingLabelRanker(n_estimators=10, random_state=0)
    np.testing.assert_array_equal(unit.fit(x, y).predict(x), unit.fit(x, y, sample_weight=np.ones(len(y))).predict(x))
