"""AdaBoostLabelRanker (BoostLR): the weighted consensus of its members, early stopping,
parameters named in errors, determinism, persistence and the command line."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from click.testing import CliRunner
from lrank import AdaBoostLabelRanker, InvalidInputError, InvalidParameterError, LabelRankingTree
from lrank.aggregation import borda
from lrank.cli import main
from lrank.datasets import load_iris
from lrank.estimators.base import LabelRanker
from lrank.model_file import load_model, save_model


def test_prediction_is_the_weighted_borda_consensus_of_the_members(problem):
    x, y = problem
    est = AdaBoostLabelRanker(LabelRankingTree(max_depth=2), n_estimators=6, random_state=0).fit(x, y)
    members = est.predict_per_member(x)
    assert members.shape == (len(est.estimator_weights_), *y.shape) and len(est.estimator_weights_) > 1
    assert est.estimator_errors_.shape == est.estimator_weights_.shape
    assert np.all(est.estimator_errors_ < 0.5) and np.all(est.estimator_weights_ > 0)
    expected = np.stack([borda(members[:, i, :], est.estimator_weights_) for i in range(x.shape[0])])
    np.testing.assert_array_equal(est.predict(x), expected)


def test_each_stage_is_the_prediction_of_a_fit_stopped_there(problem):
    x, y = problem
    x_new = np.random.default_rng(5).random(x.shape)
    x_new[::5, 0] = np.nan
    params = {"estimator": LabelRankingTree(max_depth=2), "random_state": 0}
    est = AdaBoostLabelRanker(n_estimators=6, **params).fit(x, y)
    stages = list(est.staged_predict(x_new))
    assert len(stages) == len(est.estimator_weights_) > 2
    for k, ranks in enumerate(stages, start=1):
        stopped = AdaBoostLabelRanker(n_estimators=k, **params).fit(x, y)
        np.testing.assert_array_equal(ranks, stopped.predict(x_new), err_msg=f"round {k}")
    scores = list(est.staged_score(x, y))
    assert scores[-1] == pytest.approx(est.score(x, y)) and len(set(scores)) > 1


def test_boosting_beats_its_tree_on_iris_held_out_rows():
    data = load_iris()
    order = np.random.default_rng(0).permutation(data.n_rows)
    x, y = data.feature_matrix()[order], data.rankings[order]
    train, test = slice(0, 100), slice(100, None)
    tree = LabelRankingTree(max_depth=2).fit(x[train], y[train]).score(x[test], y[test])
    boosted = AdaBoostLabelRanker(LabelRankingTree(max_depth=2), n_estimators=20, random_state=0)
    assert boosted.fit(x[train], y[train]).score(x[test], y[test]) > tree


def test_a_member_without_error_predicts_alone():
    x = np.arange(40, dtype=float).reshape(-1, 1)
    y = np.where(x < 20, [[1, 2, 3]], [[3, 2, 1]]).astype(np.int32)
    est = AdaBoostLabelRanker(n_estimators=10, sampling="reweight", random_state=0).fit(x, y)
    assert est.estimator_weights_.tolist() == [1.0] and est.estimator_errors_.tolist() == [0.0]
    np.testing.assert_array_equal(est.predict(x), y)


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"n_estimators": 0}, "n_estimators"),
        ({"learning_rate": 0.0}, "learning_rate"),
        ({"learning_rate": float("nan")}, "learning_rate"),
        ({"loss": "hinge"}, "loss"),
        ({"sampling": "bootstrap"}, "sampling"),
        ({"aggregation": "mean"}, "aggregation"),
        ({"estimator": LabelRankingTree(max_depth=-1)}, "max_depth"),
    ],
)
def test_bad_parameters_are_named(problem, params, name):
    x, y = problem
    with pytest.raises(InvalidParameterError) as err:
        AdaBoostLabelRanker(**params).fit(x, y)
    assert err.value.parameter == name


def test_only_lranks_own_learners_are_boosted(problem):
    class Elsewhere(LabelRanker):
        def __init__(self) -> None:
            pass

        def fit(self, X, y, sample_weight=None):
            return self

    x, y = problem
    with pytest.raises(InvalidInputError, match="lrank's own learners"):
        AdaBoostLabelRanker(Elsewhere()).fit(x, y)


@pytest.mark.parametrize("sampling", ["resample", "reweight"])
def test_the_same_ensemble_for_any_n_jobs(problem, sampling):
    x, y = problem
    fits = [
        AdaBoostLabelRanker(n_estimators=5, sampling=sampling, random_state=3, n_jobs=jobs).fit(x, y) for jobs in (1, 2)
    ]
    np.testing.assert_array_equal(fits[0].estimator_weights_, fits[1].estimator_weights_)
    np.testing.assert_array_equal(fits[0].predict_per_member(x), fits[1].predict_per_member(x))


def test_model_files_and_pickles_predict_alike(tmp_path):
    data = load_iris()
    x, y = data.feature_matrix(), data.rankings
    est = AdaBoostLabelRanker(LabelRankingTree(max_depth=3), n_estimators=4, loss="square", random_state=1).fit(x, y)
    path = tmp_path / "boost.lrm"
    save_model(path, est, learner="BoostLR", learner_options=[], labels=list(data.labels), attributes=data.attributes)
    loaded = load_model(path).estimator
    np.testing.assert_array_equal(loaded.predict(x), est.predict(x))
    np.testing.assert_array_equal(loaded.estimator_weights_, est.estimator_weights_)
    assert loaded.get_params()["estimator__max_depth"] == 3 and loaded.loss == "square"
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict(x), est.predict(x))


def test_the_command_line_boosts_with_nested_options(tmp_path):
    model = tmp_path / "b.lrm"
    args = ["train", "-t", "iris", "-W", "BoostLR", "-x", "3", "-d", str(model), "--format", "json", "--"]
    args += ["-I", "8", "-shrinkage", "0.5", "-loss", "exponential", "-sampling", "reweight", "--", "-depth", "2"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    params = report["learner"]["params"]
    assert (params["n_estimators"], params["learning_rate"], params["loss"], params["sampling"]) == (
        8,
        0.5,
        "exponential",
        "reweight",
    )
    assert report["evaluations"][-1]["measures"]["kendall_tau"]["mean"] > 0.8
    est = load_model(model).estimator
    assert est.estimator.max_depth == 2 and len(est.estimator_weights_) <= 8
    bad = CliRunner().invoke(main, ["train", "-t", "iris", "-W", "BoostLR", "--", "-loss", "hinge"])
    assert bad.exit_code != 0 and "-loss" in bad.output and "Traceback" not in bad.output
