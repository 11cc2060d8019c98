"""IB-PL: Plackett-Luce MM, neighbours, confidence, CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
from lrank import InstanceBasedPlackettLuce, InvalidInputError
from lrank.aggregation import plackett_luce


def test_mm_on_two_labels_is_the_closed_form():
    # a before b in 7 of 10 weighted comparisons: the MLE share v_a / (v_a + v_b) is 0.7.
    y = np.array([[1, 2], [1, 2], [2, 1]], dtype=np.int32)
    fit = plackett_luce(y, weights=[3.0, 4.0, 3.0], tol=1e-14)
    np.testing.assert_allclose(fit.skills, [0.7, 0.3], atol=1e-12)
    assert fit.converged


def test_predictions_are_sorted_skills_of_the_nearest_rankings(problem):
    from sklearn.neighbors import NearestNeighbors

    x, y = problem
    rng = np.random.default_rng(1)
    y = y.copy()
    y[rng.random(len(y)) < 0.3, 0] = 0
    y = np.where(y > 0, np.argsort(np.argsort(np.where(y > 0, y, 99), axis=1), axis=1) + 1, 0).astype(np.int32)
    train, test = slice(0, 150), slice(150, 200)
    est = InstanceBasedPlackettLuce(n_neighbors=7).fit(x[train], y[train])
    pred, prob = est.predict_with_confidence(x[test])
    np.testing.assert_array_equal(pred, est.predict(x[test]))  # predict skips the probabilities
    lo, hi = x[train].min(axis=0), x[train].max(axis=0)
    scale = lambda a: (a - lo) / (hi - lo)  # noqa: E731
    _, idx = NearestNeighbors(n_neighbors=7).fit(scale(x[train])).kneighbors(scale(x[test]))
    for i, rows in enumerate(idx):
        skills = plackett_luce(y[train][rows], max_iter=est.max_iter, tol=est.tol).skills
        expect = np.empty(4, dtype=np.int32)
        expect[np.argsort(-skills, kind="stable")] = np.arange(1, 5)
        np.testing.assert_array_equal(pred[i], expect)
        order = np.argsort(expect)
        p, rest = 1.0, skills.sum()
        for j in order[:-1]:
            p, rest = p * skills[j] / rest, rest - skills[j]
        assert prob[i] == pytest.approx(p)


def test_chosen_k_errors_and_cli(problem):
    from click.testing import CliRunner
    from lrank.cli import main

    x, y = problem
    est = InstanceBasedPlackettLuce(n_neighbors=None, random_state=0).fit(x, y)
    assert est.n_neighbors_ in (5, 10, 15, 20)
    for kwargs, match in [
        ({"n_neighbors": 0}, "n_neighbors"),
        ({"weights": "inverse"}, "weights"),
        ({"max_iter": 0}, "max_iter"),
    ]:
        with pytest.raises(InvalidInputError, match=match):
            InstanceBasedPlackettLuce(**kwargs).fit(x, y)
    from pathlib import Path

    iris = str(Path(__file__).resolve().parents[1] / "datasets" / "iris.xarff")
    result = CliRunner().invoke(main, ["train", "-t", iris, "-W", "IBPL", "--format", "json", "--", "-K", "10"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["learner"]["params"]["n_neighbors"] == 10
    assert report["evaluations"][1]["measures"]["kendall_tau"]["mean"] > 0.8
