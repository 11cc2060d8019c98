"""Evaluation: label deletion, stratified folds, cross-validation and fold statistics."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import make_problem
from hypothesis import given, settings
from hypothesis import strategies as st
from lrank import InvalidInputError, LabelRankingRandomForest
from lrank.evaluation import Evaluation, cross_validate, measure_predictions, stratified_folds
from lrank.rankings import as_rank_matrix, delete_labels, format_ranking, order_of, top_labels


@st.composite
def rank_matrices(draw):
    n = draw(st.integers(1, 20))
    m = draw(st.integers(2, 7))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, m)), axis=1).argsort(axis=1).astype(np.int32) + 1


@settings(max_examples=60, deadline=None)
@given(y=rank_matrices(), p=st.floats(0.0, 0.95), seed=st.integers(0, 1000))
def test_delete_labels_keeps_two_labels_and_the_order(y, p, seed):
    out = delete_labels(y, p, np.random.default_rng(seed))
    as_rank_matrix(out)  # every row is still a valid (incomplete) ranking
    assert ((out > 0).sum(axis=1) >= 2).all()
    for before, after in zip(y, out):
        kept = order_of(after)
        assert kept == [j for j in order_of(before) if j in kept]


def test_delete_labels_removes_about_p_of_the_labels():
    y = make_problem(n=2000, m=10)[1]
    out = delete_labels(y, 0.3, np.random.default_rng(0))
    share = 1 - (out > 0).mean()
    assert 0.27 < share < 0.33
    np.testing.assert_array_equal(delete_labels(y, 0.0, np.random.default_rng(0)), y)
    with pytest.raises(InvalidInputError):
        delete_labels(y, 1.5, np.random.default_rng(0))


def test_stratified_folds_partition_and_balance_top_labels():
    y = make_problem(n=103, m=4, seed=2)[1]
    folds = stratified_folds(y, 10, seed=1)
    everything = np.sort(np.concatenate(folds))
    np.testing.assert_array_equal(everything, np.arange(103))
    tops = top_labels(y)
    for label in np.unique(tops):
        counts = [int((tops[f] == label).sum()) for f in folds]
        assert max(counts) - min(counts) <= 1
    assert [f.tolist() for f in stratified_folds(y, 10, seed=1)] == [f.tolist() for f in folds]
    with pytest.raises(InvalidInputError, match="cannot make 200 folds"):
        stratified_folds(y, 200, seed=1)


def test_measures_of_known_predictions():
    truth = np.array([[1, 2, 3], [1, 2, 3], [1, 2, 0]], dtype=np.int32)
    pred = np.array([[1, 2, 3], [2, 1, 3], [2, 1, 3]], dtype=np.int32)
    means, correct, incorrect = measure_predictions(truth, pred)
    assert means["kendall_tau"] == pytest.approx((1 + 1 / 3 - 1) / 3)
    assert means["top_label_accuracy"] == pytest.approx(1 / 3)
    assert means["exact_match"] == pytest.approx(1 / 3)
    assert correct[0, 1] == 1 and incorrect[0, 1] == 2


def test_evaluation_statistics_over_folds():
    ev = Evaluation("cv", ["a", "b"])
    ev.add(np.array([[1, 2]], dtype=np.int32), np.array([[1, 2]], dtype=np.int32))
    assert np.isnan(ev.std("kendall_tau"))
    ev.add(np.array([[1, 2]], dtype=np.int32), np.array([[2, 1]], dtype=np.int32))
    assert ev.mean("kendall_tau") == 0.0
    assert ev.std("kendall_tau") == pytest.approx(np.sqrt(2))
    assert ev.to_dict()["measures"]["kendall_tau"] == {"mean": 0.0, "std": pytest.approx(1.414214)}


def test_cross_validation_is_deterministic_and_uses_all_rows():
    x, y = make_problem(n=120, seed=3)

    def make():
        return LabelRankingRandomForest(n_estimators=5, random_state=0, n_jobs=1)

    a = cross_validate(make, x, y, labels=list("abcd"), n_folds=4, repeats=2, seed=7, missing=0.3)
    b = cross_validate(make, x, y, labels=list("abcd"), n_folds=4, repeats=2, seed=7, missing=0.3)
    assert a.folds == b.folds and len(a.folds) == 8 and a.n_instances == 240
    assert 0.3 < a.mean("kendall_tau") <= 1.0


def test_format_ranking():
    assert format_ranking([2, 0, 1], ["a", "b", "c"]) == "c>a"


def test_a_percentage_split_is_stratified_seeded_and_refuses_an_empty_part():
    from lrank.evaluation.cross_validation import percentage_split

    y = np.array([[1, 2, 3]] * 10 + [[2, 1, 3]] * 20 + [[3, 2, 1]] * 30, dtype=np.int32)
    plan = percentage_split(y, 70, seed=5, missing=0.5)
    assert [int(np.sum(np.argmax(y[plan.train] == 1, axis=1) == t)) for t in range(3)] == [7, 14, 21]
    np.testing.assert_array_equal(np.sort(np.concatenate([plan.train, plan.test])), np.arange(60))
    assert (plan.y_train == 0).any() and plan.y_train.shape == (42, 3)  # labels deleted in training rows only
    again = percentage_split(y, 70, seed=5, missing=0.5)
    np.testing.assert_array_equal(plan.train, again.train)
    np.testing.assert_array_equal(plan.y_train, again.y_train)
    assert not np.array_equal(percentage_split(y, 70, seed=6).train, plan.train)
    with pytest.raises(InvalidInputError, match="leaves no training instances"):
        percentage_split(y[:3], 1, seed=0)
    with pytest.raises(InvalidInputError, match="strictly between 0 and 100"):
        percentage_split(y, 100, seed=0)


def test_a_folds_own_problem_names_the_fold(tmp_path):
    """All the weight in one row: the fold without it cannot fit, which read as a complaint about
    the whole file (edge-case audit); --no-cv fits it."""
    from click.testing import CliRunner
    from lrank.cli import main

    path = tmp_path / "w.xarff"
    rows = ["1,a>b>c,{1}", "2,b>a>c,{0}", "3,a>c>b,{0}", "4,c>b>a,{0}", "5,a>b>c,{0}", "6,b>c>a,{0}"]
    path.write_text("@relation w\n@attribute x numeric\n@attribute L RANKING {a,b,c}\n@data\n" + "\n".join(rows) + "\n")
    result = CliRunner().invoke(main, ["train", "-t", str(path), "-W", "LRRF", "-x", "3"])
    assert result.exit_code == 1
    assert "cross-validation, fold 2 (4 training rows): sample weights are all zero" in result.output
    assert CliRunner().invoke(main, ["train", "-t", str(path), "-W", "LRRF", "--no-cv"]).exit_code == 0
