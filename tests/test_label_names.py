"""Predictions as label names, and rank matrices read by their column names when scored."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest
from conftest import make_problem, make_tied_problem
from lrank import InvalidInputError, LabelRankingTree, PartialLabelRankingTree
from lrank.metrics import get_scorer, kendall_tau, tau_x

LABELS = ["a", "b", "c", "d"]


@pytest.fixture(scope="module")
def fitted():
    x, y = make_problem(n=120, seed=11, m=4)
    return x, y, LabelRankingTree(random_state=0).fit(x, pd.DataFrame(y, columns=LABELS))


@pytest.mark.parametrize("frame", [pd.DataFrame, pl.DataFrame], ids=["pandas", "polars"])
def test_a_frame_y_is_scored_by_its_column_names_not_their_order(fitted, frame):
    x, y, est = fitted
    reordered = frame({name: y[:, j] for j, name in reversed(list(enumerate(LABELS)))})
    as_fitted = est.score(x, y)
    assert as_fitted > 0.5
    assert est.score(x, reordered) == pytest.approx(as_fitted)
    assert get_scorer("kendall_tau")(est, x, reordered) == pytest.approx(as_fitted)
    assert kendall_tau(reordered, est.predict(x), labels=LABELS) == pytest.approx(as_fitted)
    # The reversed columns read by place would score about -as_fitted: the old, silent answer.
    assert kendall_tau(y[:, ::-1], est.predict(x)) < 0


@pytest.mark.parametrize("frame", [pd.DataFrame, pl.DataFrame], ids=["pandas", "polars"])
def test_frame_predictions_are_matched_by_name_too(fitted, frame):
    x, y, est = fitted
    pred = est.predict(x)
    as_fitted = kendall_tau(y, pred)
    reversed_pred = frame({name: pred[:, j] for j, name in reversed(list(enumerate(LABELS)))})
    truth = frame({name: y[:, j] for j, name in enumerate(LABELS)})
    assert kendall_tau(truth, reversed_pred, labels=LABELS) == pytest.approx(as_fitted)
    # Without labels=, a frame y_pred's own column names order y_true's columns.
    assert kendall_tau(truth, reversed_pred) == pytest.approx(as_fitted)
    assert tau_x(y, reversed_pred, labels=LABELS) == pytest.approx(as_fitted)


@pytest.mark.parametrize("convert", [lambda f: f, lambda f: f.to_pandas(), lambda f: f.to_arrow()])
def test_predict_frame_is_a_y_pred_the_metrics_take(fitted, convert):
    x, y, est = fitted
    reordered = pd.DataFrame({name: y[:, j] for j, name in reversed(list(enumerate(LABELS)))})
    expected = kendall_tau(y, est.predict(x))
    assert kendall_tau(reordered, convert(est.predict_frame(x))) == pytest.approx(expected)


def test_a_label_called_ranking_keeps_its_column_in_predict_frame():
    x, y = make_problem(n=60, seed=3, m=3)
    est = LabelRankingTree(random_state=0).fit(x, y, labels=["ranking", "_ranking", "c"])
    frame = est.predict_frame(x)
    assert frame.columns == ["__ranking", "ranking", "_ranking", "c"]
    np.testing.assert_array_equal(frame.select("ranking", "_ranking", "c").to_numpy(), est.predict(x))
    assert frame["__ranking"].to_list() == est.predict_strings(x)


def test_a_frame_y_with_other_names_is_refused_in_one_line(fitted):
    x, y, est = fitted
    other = pd.DataFrame(y, columns=["a", "b", "c", "z"])
    with pytest.raises(InvalidInputError, match=r"y's columns \['a', 'b', 'c', 'z'\] are not the labels"):
        est.score(x, other)
    with pytest.raises(InvalidInputError, match="are not the labels"):
        kendall_tau(other, est.predict(x), labels=LABELS)


@pytest.mark.parametrize("frame", [pd.DataFrame, pl.DataFrame], ids=["pandas", "polars"])
def test_fit_reads_a_frame_y_by_name_when_labels_are_given(fitted, frame):
    x, y, est = fitted
    truth = frame({name: y[:, j] for j, name in enumerate(LABELS)})
    given = LABELS[::-1]
    refit = LabelRankingTree(random_state=0).fit(x, truth, labels=given)
    assert refit.labels_ == given
    # the same model: its columns follow labels=, its names the frame's
    np.testing.assert_array_equal(refit.predict(x), est.predict(x)[:, ::-1])
    assert refit.predict_strings(x[:5]) == est.predict_strings(x[:5])
    assert refit.score(x, truth) == pytest.approx(est.score(x, truth))
    with pytest.raises(InvalidInputError, match=r"y's columns \['a', 'b', 'c', 'd'\] are not the labels \['w'"):
        LabelRankingTree().fit(x, truth, labels=["w", "x", "y", "z"])


def test_buckets_group_tied_labels_and_orderings_refuse_ties():
    x, y = make_tied_problem(n=200, seed=2)
    est = PartialLabelRankingTree(random_state=0, max_depth=2).fit(x, y)
    ranks = est.predict(x)
    buckets = est.predict_buckets(x)
    tied = [i for i, row in enumerate(ranks) if len(set(row)) < len(row)]
    assert tied, "the tree predicts some ties"
    for row, got in zip(ranks, buckets):
        # Bucket k holds the labels at position k + 1, in label order.
        assert got == [[f"L{j + 1}" for j in np.flatnonzero(row == p)] for p in range(1, row.max() + 1)]
    with pytest.raises(InvalidInputError, match=rf"{len(tied)} of 200 predicted rankings tie labels .*predict_buckets"):
        est.predict_orderings(x)
    assert tau_x(y, ranks) == pytest.approx(est.score(x, y))


def test_without_ties_buckets_hold_one_label_each_in_the_orderings_order(fitted):
    x, _, est = fitted
    orderings = est.predict_orderings(x[:20])
    assert est.predict_buckets(x[:20]) == [[[label] for label in row] for row in orderings]
    assert all(sorted(row) == LABELS for row in orderings)


def _brute_kendall_distance(t, p):
    """Pairs of labels both rank, ordered oppositely (1) or tied in one ranking only (1/2)."""
    total, pairs = 0.0, 0
    common = [j for j in range(len(t)) if t[j] > 0 and p[j] > 0]
    for a_i, a in enumerate(common):
        for b in common[a_i + 1 :]:
            pairs += 1
            s = np.sign(t[a] - t[b]) * np.sign(p[a] - p[b])
            total += 1.0 if s < 0 else 0.5 if s == 0 and (t[a] != t[b] or p[a] != p[b]) else 0.0
    return total, pairs


def test_kendall_distance_counts_reversed_pairs_as_scikit_lr_does():
    from lrank.metrics import get_scorer_names, kendall_distance

    rng = np.random.default_rng(5)

    def dense(values):  # positions 1.. by value, equal values tied
        return np.unique(values, return_inverse=True)[1].astype(np.int32) + 1

    truth = np.array([dense(rng.permutation(5)) for _ in range(40)], dtype=np.int32)
    truth[::5] = [dense(rng.integers(0, 3, size=5)) for _ in range(8)]  # ties in the truth too
    for row in truth[::3]:  # a missing label: the rest compared
        row[2] = 0
        row[row > 0] = dense(row[row > 0])
    # Predictions with ties (coarse utilities), which count half a reversed pair.
    pred = np.array([dense(rng.integers(0, 4, size=5)) for _ in range(40)], dtype=np.int32)
    brute = [_brute_kendall_distance(t, p) for t, p in zip(truth, pred)]
    assert kendall_distance(truth, pred, normalize=False) == pytest.approx(np.mean([d for d, _ in brute]))
    assert kendall_distance(truth, pred) == pytest.approx(np.mean([d / k for d, k in brute]))
    # Predictions rank every label: the rows of the truth that do compare with themselves.
    complete = (truth > 0).all(axis=1)
    assert kendall_distance(truth[complete], truth[complete]) == 0.0
    reversed_ = (truth.max(axis=1, keepdims=True) + 1 - truth).astype(np.int32)
    untied = np.arange(40) % 5 != 0  # a bucket order reversed keeps its ties
    assert kendall_distance(truth[untied & complete], reversed_[untied & complete]) == 1.0
    assert kendall_distance(truth[complete], reversed_[complete]) < 1.0
    assert {"neg_kendall_distance", "kendall_distance", "neg_footrule"} <= set(get_scorer_names())


def test_get_scorer_passes_none_and_callables_through_and_negates_losses(fitted):
    x, y, est = fitted
    assert get_scorer(None) is None and get_scorer(len) is len
    from lrank.metrics import kendall_distance

    loss = kendall_distance(y, est.predict(x))
    assert get_scorer("neg_kendall_distance")(est, x, y) == pytest.approx(-loss)
    assert get_scorer("kendall_distance")(est, x, y) == pytest.approx(-loss)
    with pytest.raises(ValueError, match="unknown lrank scorer 'neg_kendall_tau'"):
        get_scorer("neg_kendall_tau")
