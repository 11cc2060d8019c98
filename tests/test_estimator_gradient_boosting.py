"""GBLR (GradientBoostingLabelRanker): fit, predict, parameters, early stopping, ties, the CLI."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from lrank import GradientBoostingLabelRanker, LabelRankingTree
from lrank.cli import main
from lrank.data import read_dataset
from lrank.errors import InvalidInputError, InvalidParameterError
from lrank.metrics import kendall_tau, tau_x

ROOT = Path(__file__).resolve().parents[1]
IRIS = ROOT / "datasets" / "iris.xarff"


@pytest.fixture(scope="module")
def iris():
    data = read_dataset(IRIS)
    return data.feature_matrix(), data.rankings


def _halves(x, y, seed=0):
    order = np.random.default_rng(seed).permutation(len(x))
    a, b = order[: len(x) // 2], order[len(x) // 2 :]
    return x[a], y[a], x[b], y[b]


@pytest.mark.parametrize("loss", ["plackett-luce", "pairwise"])
def test_boosting_beats_one_tree_on_held_out_rows(iris, loss):
    xa, ya, xb, yb = _halves(*iris)
    gblr = GradientBoostingLabelRanker(loss=loss, n_estimators=60, min_samples_leaf=3, random_state=1).fit(xa, ya)
    tree = LabelRankingTree(max_depth=3, random_state=1).fit(xa, ya)
    assert kendall_tau(yb, gblr.predict(xb)) >= kendall_tau(yb, tree.predict(xb)) - 0.01
    assert kendall_tau(yb, gblr.predict(xb)) > 0.9
    # The training loss falls round by round; the scores rank as the prediction does.
    assert gblr.n_estimators_ == 60 and np.all(np.diff(gblr.train_score_) <= 1e-9)
    scores = gblr.predict_scores(xb)
    np.testing.assert_array_equal(np.argsort(-scores, axis=1, kind="stable"), np.argsort(gblr.predict(xb), axis=1))


def test_same_seed_same_model_for_any_thread_count_and_pickle(iris):
    x, y = iris
    kwargs = {"n_estimators": 10, "subsample": 0.6, "max_features": 2, "random_state": 5}
    one = GradientBoostingLabelRanker(**kwargs, n_jobs=1).fit(x, y)
    two = GradientBoostingLabelRanker(**kwargs, n_jobs=2).fit(x, y)
    np.testing.assert_array_equal(one.predict_scores(x), two.predict_scores(x))
    again = pickle.loads(pickle.dumps(one))
    np.testing.assert_array_equal(again.predict_scores(x), one.predict_scores(x))
    other = GradientBoostingLabelRanker(**{**kwargs, "random_state": 6}).fit(x, y)
    assert not np.array_equal(other.predict_scores(x), one.predict_scores(x))


def test_early_stopping_keeps_the_best_round(iris):
    x, y = iris
    est = GradientBoostingLabelRanker(
        n_estimators=300,
        learning_rate=0.5,
        min_samples_leaf=1,
        max_depth=None,
        early_stopping=True,
        n_iter_no_change=4,
        validation_fraction=0.2,
        random_state=0,
    ).fit(x, y)
    v = est.validation_score_
    assert len(v) < 300
    assert est.n_estimators_ == int(np.argmin(v)) + 1
    off = GradientBoostingLabelRanker(n_estimators=7, early_stopping="auto").fit(x, y)
    assert off.n_estimators_ == 7 and off.validation_score_.size == 0  # 150 rows: auto is off


def test_ties_pairwise_learns_plackett_luce_refuses(iris):
    x, y = iris
    tied = y.copy()
    tied[:, 2] = np.where(tied[:, 2] == 3, 2, tied[:, 2])  # label 3 tied with position 2 where it was last
    tied[tied == 3] = 2
    est = GradientBoostingLabelRanker(loss="pairwise", n_estimators=10).fit(x, tied)
    assert tau_x(tied, est.predict(x)) > 0.5
    with pytest.raises(InvalidInputError, match=r"row \d+.*tie.*Plackett-Luce"):
        GradientBoostingLabelRanker().fit(x, tied)


def test_incomplete_rankings_are_used(iris):
    x, y = iris
    partial = y.copy()
    partial[::2] = np.where(partial[::2] == 3, 0, partial[::2])  # every other row: its top two
    est = GradientBoostingLabelRanker(n_estimators=30, min_samples_leaf=3, random_state=0).fit(x, partial)
    assert kendall_tau(y, est.predict(x)) > 0.9


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"loss": "hinge"}, "loss"),
        ({"learning_rate": 0}, "learning_rate"),
        ({"subsample": 0}, "subsample"),
        ({"subsample": 1.5}, "subsample"),
        ({"l2_regularization": -1}, "l2_regularization"),
        ({"early_stopping": "yes"}, "early_stopping"),
        ({"validation_fraction": 1.0}, "validation_fraction"),
        ({"n_iter_no_change": 0}, "n_iter_no_change"),
        ({"max_bins": 300}, "max_bins"),
        ({"max_features": "half"}, "max_features"),
        ({"n_estimators": -1}, "n_estimators"),
    ],
)
def test_bad_parameters_name_themselves(iris, params, name):
    x, y = iris
    with pytest.raises(InvalidParameterError, match=name):
        GradientBoostingLabelRanker(**params).fit(x, y)


def test_cli_trains_cross_validates_and_saves(tmp_path):
    model = tmp_path / "g.lrm"
    out = CliRunner().invoke(
        main,
        ["train", "-t", str(IRIS), "-W", "GBLR", "-x", "3", "-s", "1", "-d", str(model), "--", "-I", "20", "-L", "5"],
    )
    assert out.exit_code == 0, out.output
    assert "Stratified cross-validation" in out.output
    pred = CliRunner().invoke(main, ["predict", "-l", str(model), "-T", str(IRIS)])
    assert pred.exit_code == 0, pred.output
    assert len(pred.output.strip().splitlines()) == 150
    bad = CliRunner().invoke(main, ["train", "-t", str(IRIS), "-W", "GBLR", "--", "-loss", "hinge"])
    assert bad.exit_code != 0 and "plackett-luce" in bad.output and "Traceback" not in bad.output


def test_tune_chooses_by_inner_cv_and_fits_the_choice(iris):
    x, y = iris
    tuned = GradientBoostingLabelRanker(n_estimators=12, min_samples_leaf=5, tune=True, random_state=3).fit(x, y)
    best = tuned.best_params_
    assert set(best) == {"max_depth", "learning_rate", "n_estimators"}
    assert len(tuned.tuning_scores_) == 2 * 3 * 4
    assert max(s["tau"] for s in tuned.tuning_scores_) == pytest.approx(
        next(
            s["tau"]
            for s in tuned.tuning_scores_
            if (s["max_depth"], s["learning_rate"], s["n_estimators"])
            == (best["max_depth"], best["learning_rate"], best["n_estimators"])
        )
    )
    direct = GradientBoostingLabelRanker(min_samples_leaf=5, random_state=3, **best).fit(x, y)
    np.testing.assert_array_equal(tuned.predict_scores(x), direct.predict_scores(x))
    assert tuned.n_estimators_ == best["n_estimators"]
    out = CliRunner().invoke(main, ["train", "-t", str(IRIS), "-W", "GBLR", "--no-cv", "--", "-I", "8", "-tune"])
    assert out.exit_code == 0, out.output


def test_per_label_trees_from_python_the_cli_and_a_model_file(iris, tmp_path):
    x, y = iris
    xa, ya, xb, yb = _halves(x, y)
    est = GradientBoostingLabelRanker(n_estimators=20, min_samples_leaf=3, per_label_trees=True, random_state=2)
    est.fit(xa, ya)
    assert est.n_estimators_ == 20
    assert kendall_tau(yb, est.predict(xb)) > 0.9
    shared = GradientBoostingLabelRanker(n_estimators=20, min_samples_leaf=3, random_state=2).fit(xa, ya)
    assert not np.array_equal(shared.predict_scores(xb), est.predict_scores(xb))
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict_scores(xb), est.predict_scores(xb))
    model = tmp_path / "per_label.lrm"
    out = CliRunner().invoke(
        main,
        ["train", "-t", str(IRIS), "-W", "GBLR", "--no-cv", "-d", str(model), "--", "-I", "10", "-per-label"],
    )
    assert out.exit_code == 0, out.output
    from lrank.model_file import load_model

    loaded = load_model(model)
    assert loaded.estimator.per_label_trees is True
    direct = GradientBoostingLabelRanker(n_estimators=10, per_label_trees=True, random_state=1).fit(x, y)
    assert loaded.estimator.n_estimators_ == 10
    assert loaded.estimator.predict(x).shape == direct.predict(x).shape
    help_text = CliRunner().invoke(main, ["learners"])
    assert "-per-label" in help_text.output, help_text.output


@pytest.mark.parametrize("per_label_trees", [False, True])
def test_staged_predictions_are_the_models_cut_after_each_round(iris, per_label_trees):
    # Round k's stage predicts as a model fitted with k rounds (the rounds do not depend on how
    # many follow), with missing values routed as in predict; the last stage is predict itself.
    xa, ya, xb, yb = _halves(*iris)
    xb = xb.copy()
    xb[::7, 2] = np.nan
    kwargs = {"min_samples_leaf": 3, "per_label_trees": per_label_trees, "random_state": 2}
    gblr = GradientBoostingLabelRanker(n_estimators=8, **kwargs).fit(xa, ya)
    stages = list(zip(gblr.staged_predict(xb), gblr.staged_predict_scores(xb)))
    assert len(stages) == 8
    for k in (1, 4):
        cut = GradientBoostingLabelRanker(n_estimators=k, **kwargs).fit(xa, ya)
        np.testing.assert_array_equal(stages[k - 1][0], cut.predict(xb))
        np.testing.assert_array_equal(stages[k - 1][1], cut.predict_scores(xb))
    np.testing.assert_array_equal(stages[-1][0], gblr.predict(xb))
    np.testing.assert_array_equal(stages[-1][1], gblr.predict_scores(xb))
    taus = [kendall_tau(yb, ranks) for ranks, _ in stages]
    assert taus[-1] > taus[0]
    with pytest.raises(InvalidInputError, match="X has 3 features"):
        next(gblr.staged_predict(xb[:, :3]))


def test_only_boosting_models_predict_by_rounds(iris):
    x, y = iris
    tree = LabelRankingTree(random_state=0).fit(x, y)
    with pytest.raises(InvalidInputError, match="only GBLR models predict by rounds"):
        tree.model_.staged_round(x, 0)
    gblr = GradientBoostingLabelRanker(n_estimators=2, random_state=0).fit(x, y)
    with pytest.raises(InvalidInputError, match="round 2 of a model of 2 rounds"):
        gblr.model_.staged_round(x, 2)
    with pytest.raises(InvalidInputError, match="the scores have shape"):
        gblr.model_.staged_round(x, 1, np.zeros((3, len(x))))


def test_early_stopping_asked_for_on_too_few_rows_is_said():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 2))
    y = np.array([[1, 2, 3], [2, 1, 3], [3, 2, 1]], dtype=np.int32)
    with pytest.warns(UserWarning, match="too few rows to hold out a validation share: every round is kept"):
        est = GradientBoostingLabelRanker(n_estimators=5, early_stopping=True, random_state=0).fit(x, y)
    assert est.n_estimators_ == 5 and est.validation_score_.size == 0
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "auto" decides for itself: nothing to say
        GradientBoostingLabelRanker(n_estimators=5, random_state=0).fit(x, y)
