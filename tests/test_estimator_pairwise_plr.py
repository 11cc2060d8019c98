"""Pairwise partial label ranking (PLRPW)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import make_tied_problem, plr_data
from lrank import InvalidParameterError, PairwisePartialLabelRanker
from lrank.aggregation import bucket_order_of_matrix
from lrank.evaluation import cross_validate
from lrank.rankings import tied_rows


def test_prediction_is_the_consensus_of_the_predicted_pair_order_matrix():
    # Constant features: every pair's tree is one leaf holding the training shares.
    y = np.array([[1, 2, 3], [1, 2, 3], [1, 1, 2], [2, 1, 3]], dtype=np.int32)
    x = np.zeros((4, 1))
    est = PairwisePartialLabelRanker(classifier="tree", random_state=0).fit(x, y)
    assert est.beta_ == 0.25
    # (0, 1): before 1/2, tied 1/4, after 1/4 -> C = 5/8; the other pairs C = 1
    np.testing.assert_allclose(est.predict_scores(x[:1]), [[1.625, 1.375, 0.0]])
    c = np.array([[0.5, 0.625, 1.0], [0.375, 0.5, 1.0], [0.0, 0.0, 0.5]])
    for aggregation, beta in [("bpa", None), ("borda-ties", 0.3), ("copeland-ties", 0.1)]:
        est.set_params(aggregation=aggregation, beta=beta).fit(x, y)
        method = aggregation.replace("-ties", "")
        np.testing.assert_array_equal(est.predict(x[:1])[0], bucket_order_of_matrix(c, method, beta))


def test_forest_generalises_and_predicts_ties():
    x, y = make_tied_problem(n=300)
    est = PairwisePartialLabelRanker(n_estimators=30, random_state=0).fit(x[:200], y[:200])
    assert tied_rows(est.predict(x[200:])).any()
    assert est.score(x[200:], y[200:]) > 0.8


def test_beta_is_chosen_out_of_bag_unless_given():
    x, y = make_tied_problem(n=200)
    tuned = PairwisePartialLabelRanker(n_estimators=20, random_state=0).fit(x, y)
    assert set(tuned.beta_scores_) == {0.25, 0.2, 0.15, 0.1, 0.05}
    assert tuned.beta_scores_[tuned.beta_] == max(tuned.beta_scores_.values())
    given = PairwisePartialLabelRanker(n_estimators=20, beta=0.1, random_state=0).fit(x, y)
    assert given.beta_ == 0.1 and given.beta_scores_ == {}
    same = PairwisePartialLabelRanker(n_estimators=20, beta=tuned.beta_, random_state=0).fit(x, y)
    np.testing.assert_array_equal(tuned.predict(x), same.predict(x))
    tree = PairwisePartialLabelRanker(classifier="tree", random_state=0).fit(x, y)
    assert tree.beta_ == 0.25 and tree.beta_scores_ == {}


def test_parameters_are_checked_by_name():
    x, y = make_tied_problem()
    with pytest.raises(InvalidParameterError, match="classifier"):
        PairwisePartialLabelRanker(classifier="svm").fit(x, y)
    with pytest.raises(InvalidParameterError, match="tie_weighting"):
        PairwisePartialLabelRanker(tie_weighting="third").fit(x, y)
    with pytest.raises(InvalidParameterError, match="n_estimators"):
        PairwisePartialLabelRanker(classifier="tree", n_estimators=0).fit(x, y)
    with pytest.raises(InvalidParameterError, match="beta"):
        PairwisePartialLabelRanker(aggregation="copeland-ties", beta=0.6).fit(x, y)


def test_on_the_published_iris_set():
    """Alfaro et al.'s pairwise method reaches tau_x .932 on this set (5 x 10 CV, Thies et al.)."""
    x, y = plr_data("iris")
    ev = cross_validate(
        lambda: PairwisePartialLabelRanker(n_estimators=50, random_state=1), x, y, labels=["a", "b", "c"]
    )
    assert ev.mean("tau_x") > 0.925


def test_logistic_classifier_learns_ties_and_checks_c():
    x, y = make_tied_problem(n=300)
    est = PairwisePartialLabelRanker(classifier="logistic", C=10.0, random_state=0).fit(x[:200], y[:200])
    assert est.model_.kind == "PairwisePlrLogistic"
    assert set(est.beta_scores_) == {0.25, 0.2, 0.15, 0.1, 0.05}
    assert est.beta_scores_[est.beta_] == max(est.beta_scores_.values())
    assert est.score(x[200:], y[200:]) > 0.7
    assert tied_rows(est.predict(x[200:])).any()
    # A stronger penalty shrinks the probabilities towards the relations' shares: other scores.
    weak = PairwisePartialLabelRanker(classifier="logistic", C=1e-4, random_state=0).fit(x[:200], y[:200])
    assert not np.allclose(weak.predict_scores(x[200:]), est.predict_scores(x[200:]))
    with pytest.raises(InvalidParameterError, match="C"):
        PairwisePartialLabelRanker(classifier="logistic", C=0.0).fit(x, y)
    with pytest.raises(InvalidParameterError, match="C"):
        PairwisePartialLabelRanker(C=-1.0).fit(x, y)
    with pytest.raises(InvalidParameterError, match="n_estimators"):
        PairwisePartialLabelRanker(classifier="logistic", n_estimators=0).fit(x, y)


def test_logistic_classifier_saves_loads_and_pickles(tmp_path):
    import pickle

    from click.testing import CliRunner
    from lrank.cli import main
    from lrank.model_file import load_model

    data = tmp_path / "ties.csv"
    x, y = make_tied_problem(n=120)
    header = [f"A{j}" for j in range(x.shape[1])] + [f"L{j}" for j in range(y.shape[1])]
    lines = [",".join(header)] + [",".join([*map(str, xr), *map(str, yr)]) for xr, yr in zip(x, y)]
    data.write_text("\n".join(lines) + "\n")
    model = tmp_path / "m.lrm"
    runner = CliRunner()
    result = runner.invoke(main, ["train", "-t", str(data), "-W", "PLRPW", "-d", str(model), "--", "-B", "logistic"])
    assert result.exit_code == 0, result.output
    loaded = load_model(model)
    assert loaded.estimator.classifier == "logistic" and loaded.estimator.model_.kind == "PairwisePlrLogistic"
    back = pickle.loads(pickle.dumps(loaded.estimator))
    np.testing.assert_array_equal(back.predict(x), loaded.estimator.predict(x))
    result = runner.invoke(main, ["predict", "-l", str(model), "-T", str(data)])
    assert result.exit_code == 0, result.output
