"""RPC: pairwise logistic regressions checked against scikit-learn's, voting, CLI."""

from __future__ import annotations

import itertools
import json
import pickle
from pathlib import Path

import numpy as np
import pytest
from lrank import InvalidInputError, RankingByPairwiseComparison


def test_soft_votes_are_sums_of_scikit_learn_logistic_regressions(problem):
    from sklearn.linear_model import LogisticRegression

    x, y = problem
    rng = np.random.default_rng(0)
    y = y.copy()
    for i in rng.choice(len(y), size=len(y) // 4, replace=False):  # noise: every pair has both classes
        y[i] = rng.permutation(y[i])
    for i in range(0, len(y), 3):  # every third ranking misses label 0: its pairs skip those rows
        y[i] = np.where(y[i] > y[i, 0], y[i] - 1, y[i])
        y[i, 0] = 0
    est = RankingByPairwiseComparison(C=0.5).fit(x, y)
    z = (x - x.mean(axis=0)) / x.std(axis=0)
    m = y.shape[1]
    expect = np.zeros((len(x), m))
    for a, b in itertools.combinations(range(m), 2):
        rows = (y[:, a] > 0) & (y[:, b] > 0)
        lr = LogisticRegression(C=0.5, tol=1e-12, max_iter=10_000).fit(z[rows], (y[rows, a] < y[rows, b]).astype(int))
        p = lr.predict_proba(z)[:, 1]
        expect[:, a] += p
        expect[:, b] += 1 - p
    np.testing.assert_allclose(est.predict_scores(x), expect, atol=1e-5)


def test_binary_voting_counts_wins(problem):
    x, y = problem
    soft = RankingByPairwiseComparison().fit(x, y)
    binary = RankingByPairwiseComparison(voting="binary").fit(x, y)
    wins = binary.predict_scores(x)
    assert np.all(np.isin(2 * wins, np.arange(0, 2 * y.shape[1])))
    assert binary.score(x, y) > 0.8 and soft.score(x, y) > 0.8


def test_nominal_features_are_one_hot_encoded():
    # The ranking depends on whether a code equals 1; as a number, code 1 lies between 0 and 2
    # and no linear model separates it; one-hot encoded it is one coefficient.
    codes = np.tile([0.0, 1.0, 2.0], 50)[:, None]
    y = np.where(codes == 1.0, [[1, 2]], [[2, 1]]).astype(np.int32)
    assert (
        RankingByPairwiseComparison(C=100)
        .fit(
            codes,
            y,
        )
        .score(codes, y)
        < 0.5
    )
    assert RankingByPairwiseComparison(C=100, categorical_features=[0]).fit(codes, y).score(codes, y) == 1.0


def test_persistence_and_errors(problem):
    x, y = problem
    est = RankingByPairwiseComparison().fit(x, y)
    assert est.n_iter_ < est.max_iter  # converged (no warning either)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(est)).predict(x), est.predict(x))
    assert json.loads(est.model_.params_json())["Rpc"]["c"] == 1.0
    for kwargs, match in [
        ({"C": 0}, "invalid parameter C: must be positive"),
        ({"voting": "hard"}, "voting"),
        ({"max_iter": 0}, "max_iter"),
    ]:
        with pytest.raises(InvalidInputError, match=match):
            RankingByPairwiseComparison(**kwargs).fit(x, y)


def test_tune_chooses_c_by_inner_cv_from_python_the_cli_and_a_model_file(tmp_path):
    from click.testing import CliRunner
    from lrank.cli import main
    from lrank.data import read_dataset
    from lrank.model_file import load_model

    iris = Path(__file__).resolve().parents[1] / "datasets" / "iris.xarff"
    data = read_dataset(iris)
    x, y = data.feature_matrix(), data.rankings
    tuned = RankingByPairwiseComparison(tune=True).fit(x, y)
    scores = tuned.tuning_scores_
    assert [s["c"] for s in scores] == [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0]
    best = max(scores, key=lambda s: s["tau"])  # first of the best: the smaller C
    assert tuned.best_params_ == {"C": best["c"]}
    # On iris the default C = 1 is not the best (RPC's tau .85 against .90 with C = 100, 5 x 10 CV).
    assert best["c"] > 1.0 and best["tau"] > next(s["tau"] for s in scores if s["c"] == 1.0)
    direct = RankingByPairwiseComparison(C=best["c"]).fit(x, y)
    np.testing.assert_array_equal(tuned.predict_scores(x), direct.predict_scores(x))
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(tuned)).predict_scores(x), direct.predict_scores(x))
    untuned = RankingByPairwiseComparison().fit(x, y)
    assert untuned.best_params_ is None and untuned.tuning_scores_ == []
    model = tmp_path / "rpc.lrm"
    out = CliRunner().invoke(main, ["train", "-t", str(iris), "-W", "RPC", "--no-cv", "-d", str(model), "--", "-tune"])
    assert out.exit_code == 0, out.output
    loaded = load_model(model)
    assert loaded.estimator.tune and loaded.estimator.best_params_ == {"C": best["c"]}
    np.testing.assert_array_equal(loaded.estimator.predict(x), direct.predict(x))
    few = CliRunner().invoke(main, ["train", "-t", str(iris), "-W", "RPC", "--no-cv", "--", "-tune", "-C", "abc"])
    assert few.exit_code != 0 and "Traceback" not in few.output
    with pytest.raises(InvalidInputError, match="at least 10 training rows, got 6"):
        RankingByPairwiseComparison(tune=True).fit(x[:6], y[:6])
