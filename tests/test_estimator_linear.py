"""The linear label ranker (LIN-PL and constraint classification): checked against
scikit-learn's logistic regression where the two coincide, against its own Plackett-Luce
probability, and through the command line."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from lrank import InvalidInputError, LinearLabelRanker
from lrank.cli import main
from lrank.metrics import kendall_tau


def test_two_labels_are_scikit_learns_logistic_regression(problem):
    """With two labels both losses are the logistic loss of s_a - s_b; the penalty on w_a and
    w_b = -w_a is half that on their difference, so C matches LogisticRegression's 2C."""
    from sklearn.linear_model import LogisticRegression

    x, y = problem
    y2 = np.where(y[:, :1] < y[:, 1:2], [[1, 2]], [[2, 1]])
    rng = np.random.default_rng(1)
    flip = rng.random(len(y2)) < 0.2  # noise: the classes overlap
    y2[flip] = y2[flip][:, ::-1]
    z = (x - x.mean(axis=0)) / x.std(axis=0)
    lr = LogisticRegression(C=1.0, tol=1e-12, max_iter=10_000).fit(z, (y2[:, 0] == 1).astype(int))
    for loss in ("plackett-luce", "pairwise"):
        est = LinearLabelRanker(loss=loss, C=0.5, tol=1e-14).fit(x, y2)
        scores = est.predict_scores(x)
        np.testing.assert_allclose(scores[:, 0] - scores[:, 1], lr.decision_function(z), atol=1e-5)
        np.testing.assert_allclose(est.coef_[0], -est.coef_[1], atol=1e-6)


def test_predictions_sort_the_scores_and_confidence_is_the_plackett_luce_probability(problem):
    x, y = problem
    est = LinearLabelRanker(C=10.0).fit(x, y)
    assert est.coef_.shape == (y.shape[1], x.shape[1]) and est.intercept_.shape == (y.shape[1],)
    assert kendall_tau(y, est.predict(x)) > 0.7
    scores = est.predict_scores(x)
    ranks, conf = est.predict_with_confidence(x)
    np.testing.assert_array_equal(ranks, est.predict(x))
    for i in range(10):
        order = np.argsort(ranks[i])
        s = np.exp(scores[i][order])
        expected = np.prod([s[t] / s[t:].sum() for t in range(len(s))])
        assert conf[i] == pytest.approx(expected, rel=1e-10)
        assert np.all(np.diff(scores[i][order]) <= 0)


def test_c_scales_the_loss_as_weights_do(problem):
    x, y = problem
    w = np.full(len(y), 3.0)
    a = LinearLabelRanker(C=3.0, tol=1e-14).fit(x, y).predict_scores(x)
    b = LinearLabelRanker(C=1.0, tol=1e-14).fit(x, y, sample_weight=w).predict_scores(x)
    np.testing.assert_allclose(a, b, atol=1e-6)


def test_ties_train_the_pairwise_loss_only(problem):
    x, y = problem
    y = y.copy()
    y[::3] = np.minimum(y[::3], 2)  # every third ranking ties all but its top label
    with pytest.raises(InvalidInputError, match="Plackett-Luce loss"):
        LinearLabelRanker().fit(x, y)
    est = LinearLabelRanker(loss="pairwise").fit(x, y)
    assert not hasattr(est, "predict_with_confidence")
    assert sorted(est.predict(x)[0]) == list(range(1, y.shape[1] + 1))


def test_incomplete_rankings_and_a_warning_when_not_converged(problem):
    x, y = problem
    y = y.copy()
    y[::2, 0] = 0  # label 0 missing from every other ranking; positions stay dense below
    y[::2, 1:] = np.argsort(np.argsort(y[::2, 1:], axis=1), axis=1) + 1
    assert kendall_tau(y[1::2], LinearLabelRanker(C=10.0).fit(x, y).predict(x[1::2])) > 0.7
    with pytest.warns(RuntimeWarning, match="did not converge in 1 L-BFGS steps"):
        LinearLabelRanker(max_iter=1).fit(x, y)


def test_the_command_line_fits_and_saves_it(tmp_path):
    model = tmp_path / "linear.lrm"
    result = CliRunner().invoke(
        main, ["train", "-t", "iris", "-W", "Linear", "-x", "3", "-d", str(model), "--", "-C", "10"]
    )
    assert result.exit_code == 0, result.output
    assert "Kendall's tau" in result.output
    out = CliRunner().invoke(main, ["predict", "-l", str(model), "-T", "iris", "--confidence"])
    assert out.exit_code == 0, out.output
    first = out.output.splitlines()[0]
    assert ">" in first and 0 < float(first.split("\t")[1]) <= 1
    bad = CliRunner().invoke(main, ["train", "-t", "iris", "-W", "Linear", "--", "-loss", "hinge"])
    assert bad.exit_code != 0 and "-loss" in bad.output
