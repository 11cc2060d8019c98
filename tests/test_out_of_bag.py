"""oob_score=True: out-of-bag estimates of the estimators with bootstrap members.

Which members left a row out is checked exactly in the core (rust/lrank-core/tests/out_of_bag.rs);
here: the estimates users read, their wiring and their errors.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from conftest import make_problem, make_tied_problem
from lrank import (
    BaggingLabelRanker,
    InvalidParameterError,
    LabelRankingRandomForest,
    LabelwisePartialLabelRanker,
    LabelwiseRandomForest,
    OneVsOneLabelRanker,
    PairwisePartialLabelRanker,
    PartialLabelRankingForest,
)
from lrank.metrics import kendall_tau, tau_x

FORESTS = [
    lambda **kw: LabelRankingRandomForest(n_estimators=40, **kw),
    lambda **kw: LabelwiseRandomForest(n_estimators=40, **kw),
    lambda **kw: BaggingLabelRanker(n_estimators=40, **kw),
    lambda **kw: OneVsOneLabelRanker(classifier="forest", n_estimators=40, **kw),
]
IDS = ["LRRF", "LWRF", "Bagging", "OVO-forest"]


@pytest.mark.parametrize("make", FORESTS, ids=IDS)
def test_the_estimate_comes_from_the_rows_left_out_not_from_the_fit(make):
    # Rankings unrelated to the features: the trees fit their training rows (tau near 1 on them),
    # while rows predicted only by trees that never saw them score about 0.
    rng = np.random.default_rng(3)
    x = rng.random((240, 3))
    y = np.array([rng.permutation(4) + 1 for _ in range(240)], dtype=np.int32)
    est = make(oob_score=True, random_state=0).fit(x, y)
    assert est.score(x, y) > 0.5
    assert abs(est.oob_score_) < 0.15
    assert est.oob_prediction_.shape == y.shape and est.oob_prediction_.dtype == np.int32


@pytest.mark.parametrize("make", FORESTS, ids=IDS)
def test_the_estimate_tracks_held_out_tau_on_a_learnable_problem(make):
    x, y = make_problem(n=600, seed=2)
    est = make(oob_score=True, random_state=1).fit(x[:400], y[:400])
    held_out = est.score(x[400:], y[400:])
    assert abs(est.oob_score_ - held_out) < 0.06, (est.oob_score_, held_out)
    # The score is the mean tau of the out-of-bag rankings, every row covered by 40 members.
    assert np.all(est.oob_prediction_ > 0)
    assert est.oob_score_ == pytest.approx(kendall_tau(y[:400], est.oob_prediction_))


@pytest.mark.parametrize(
    "cls",
    [PartialLabelRankingForest, LabelwisePartialLabelRanker, PairwisePartialLabelRanker],
    ids=lambda c: c.__name__,
)
def test_partial_label_ranking_forests_score_ties_by_tau_x(cls):
    x, y = make_tied_problem(n=300, seed=1)
    est = cls(n_estimators=30, oob_score=True, random_state=0).fit(x, y)
    assert est.oob_score_ == pytest.approx(tau_x(y, est.oob_prediction_))
    assert 0.3 < est.oob_score_ < est.score(x, y)
    held_out = cls(n_estimators=30, random_state=0).fit(x[:200], y[:200]).score(x[200:], y[200:])
    assert abs(est.oob_score_ - held_out) < 0.08, (est.oob_score_, held_out)


@pytest.mark.parametrize("cls", [OneVsOneLabelRanker, PairwisePartialLabelRanker], ids=lambda c: c.__name__)
def test_pairwise_forests_estimate_with_missing_labels_and_weights_at_any_thread_count(cls):
    # A pair's trees draw over the rows that rank both labels and have weight: rows that miss a
    # label or weigh nothing are out of bag for those pairs' trees, and still get a ranking.
    x, y = make_problem(n=200, seed=8)
    weights = np.where(np.arange(200) % 9 == 0, 0.0, 1.0)
    missing = y.copy()
    for i in range(0, 200, 4):  # label 0 left out, the others closed up
        missing[i, missing[i] > missing[i, 0]] -= 1
        missing[i, 0] = 0
    kw = {"classifier": "forest", "n_estimators": 30, "oob_score": True, "random_state": 3}
    one = cls(**kw, n_jobs=1).fit(x, missing, sample_weight=weights)
    two = cls(**kw, n_jobs=2).fit(x, missing, sample_weight=weights)
    np.testing.assert_array_equal(one.oob_prediction_, two.oob_prediction_)
    assert np.all(one.oob_prediction_ > 0)
    held_out = cls(**{**kw, "oob_score": False}).fit(x[:150], missing[:150]).score(x[150:], y[150:])
    assert abs(one.oob_score_ - held_out) < 0.08, (one.oob_score_, held_out)


@pytest.mark.parametrize("cls", [OneVsOneLabelRanker, PairwisePartialLabelRanker], ids=lambda c: c.__name__)
def test_pairwise_rows_some_pairs_trees_all_drew_have_no_estimate(cls):
    # Three trees per pair: a row that some pair's trees all drew gets no estimate, rather than
    # a coin flip for that pair, which pulled the estimate far below held-out tau.
    x, y = make_problem(n=150, seed=9)
    with pytest.warns(UserWarning, match="by every tree of some label pair"):
        est = cls(classifier="forest", n_estimators=3, oob_score=True, random_state=0).fit(x, y)
    covered = est.oob_prediction_.any(axis=1)
    assert 0 < covered.sum() < 75
    held_out = cls(classifier="forest", n_estimators=3, random_state=0).fit(x[:100], y[:100]).score(x[100:], y[100:])
    assert est.oob_score_ > held_out - 0.15, (est.oob_score_, held_out)


def test_rows_every_member_drew_are_zeros_left_out_of_the_score_with_a_warning():
    x, y = make_problem(n=60, seed=4)
    with pytest.warns(UserWarning, match=r"of 60 training rows were drawn by every member"):
        est = LabelRankingRandomForest(n_estimators=2, oob_score=True, random_state=0).fit(x, y)
    covered = est.oob_prediction_.any(axis=1)
    assert 0 < covered.sum() < 60
    assert np.all(est.oob_prediction_[~covered] == 0)
    assert est.oob_score_ == pytest.approx(kendall_tau(y[covered], est.oob_prediction_[covered]))


def test_estimates_are_deterministic_survive_pickling_and_vanish_on_a_refit_without():
    x, y = make_problem(n=150, seed=5)
    a = LabelwiseRandomForest(n_estimators=20, oob_score=True, random_state=7, n_jobs=1).fit(x, y)
    b = LabelwiseRandomForest(n_estimators=20, oob_score=True, random_state=7, n_jobs=2).fit(x, y)
    np.testing.assert_array_equal(a.oob_prediction_, b.oob_prediction_)
    restored = pickle.loads(pickle.dumps(a))
    assert restored.oob_score_ == a.oob_score_
    a.set_params(oob_score=False).fit(x, y)
    assert not hasattr(a, "oob_score_") and not hasattr(a, "oob_prediction_")


@pytest.mark.parametrize(
    ("est", "message"),
    [
        (LabelRankingRandomForest(oob_score=True, bootstrap=False), "needs bootstrap=True"),
        (LabelwiseRandomForest(oob_score=True, bootstrap=False), "needs bootstrap=True"),
        (LabelRankingRandomForest(oob_score="yes"), "oob_score: must be True or False"),
        (LabelRankingRandomForest(oob_score=True, leaf_missing=0.5), "not available with leaf_missing"),
        (OneVsOneLabelRanker(oob_score=True), "needs classifier='forest' \\(classifier='tree'"),
        (OneVsOneLabelRanker(classifier="forest", bootstrap=False, oob_score=True), "needs bootstrap=True"),
        (PairwisePartialLabelRanker(classifier="logistic", oob_score=True), "needs classifier='forest'"),
    ],
)
def test_impossible_requests_are_refused_in_one_line(est, message):
    x, y = make_problem(n=50, seed=6)
    with pytest.raises(InvalidParameterError, match=message):
        est.fit(x, y)


def test_bagging_a_python_learner_refuses_oob_score():
    class Plain:
        def get_params(self, deep=True):
            return {}

        def fit(self, x, y, sample_weight=None):
            self.first = y[0]
            return self

        def predict(self, x):
            return np.tile(self.first, (len(x), 1))

    x, y = make_problem(n=50, seed=6)
    with pytest.raises(InvalidParameterError, match="lrank's own learners"):
        BaggingLabelRanker(Plain(), n_estimators=3, oob_score=True).fit(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not hasattr(BaggingLabelRanker(Plain(), n_estimators=3).fit(x, y), "oob_score_")


def test_the_cli_reports_the_final_models_estimate_and_folds_skip_it(monkeypatch):
    import json
    from importlib import resources

    from click.testing import CliRunner
    from lrank.cli import main

    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(resources.files("lrank.cli").joinpath("train_report.schema.json").read_text())
    fits: list[bool] = []
    real = LabelRankingRandomForest.fit

    def counting(self, *args, **kwargs):
        fits.append(self.oob_score)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(LabelRankingRandomForest, "fit", counting)
    result = CliRunner().invoke(main, ["train", "-t", "iris", "-x", "3", "--format", "json", "--", "-oob"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    jsonschema.validate(report, schema)
    oob = report["out_of_bag"]
    assert oob["measure"] == "kendall_tau" and oob["rows"] == 150
    from lrank.datasets import load_iris

    expected = LabelRankingRandomForest(oob_score=True, random_state=1).fit(load_iris()).oob_score_
    assert oob["value"] == pytest.approx(expected, abs=1e-6)
    assert fits[:4] == [True, False, False, False]  # the final model, then three folds without
    text = CliRunner().invoke(main, ["train", "-t", "iris", "--no-cv", "-W", "LWRF", "--", "-oob"]).output
    assert "Out-of-bag Kendall tau: 0.9" in text and "(150 of 150 rows left out by some member)" in text
    refused = CliRunner().invoke(main, ["train", "-t", "iris", "--no-cv", "-W", "LWRF", "--", "-oob", "-no-bootstrap"])
    assert refused.exit_code != 0 and "needs bootstrap=True" in refused.output and "Traceback" not in refused.output


def test_numpy_flags_count_and_experiments_check_what_folds_skip(tmp_path):
    from click.testing import CliRunner
    from lrank.cli import main

    x, y = make_problem(n=60, seed=7)
    with pytest.raises(InvalidParameterError, match="needs bootstrap=True"):
        LabelwiseRandomForest(oob_score=True, bootstrap=np.bool_(False)).fit(x, y)
    assert hasattr(LabelwiseRandomForest(n_estimators=20, oob_score=np.bool_(True)).fit(x, y), "oob_score_")
    out = tmp_path / "cells.parquet"
    from lrank.datasets import path

    args = ["experiment", "run", str(path("iris")), "-W", "LRRF -oob -no-bootstrap", "-x", "3", "-o", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code != 0 and "needs bootstrap=True" in result.output and "Traceback" not in result.output
