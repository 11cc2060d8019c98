"""Partial label ranking, as a user coming from scikit-lr checks it (findings of an audit): BPA
chooses its pivots by the global DANI as scikit-lr does, bucket orders do not move when every
weight is scaled, tied top buckets earn a share of top-label accuracy, an ignored beta is refused,
tied 0-based targets are warned about and label names print quoted where they must."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import make_tied_problem
from lrank import DummyLabelRanker, InstanceBasedPartialLabelRanker, InvalidParameterError, PartialLabelRankingTree
from lrank.aggregation import AGGREGATORS, bpa, tied_borda, tied_copeland
from lrank.metrics import top_label_accuracy
from lrank.ranking_notation import parse_bucket_order


def test_bpa_pivots_by_the_global_dani_and_keeps_the_local_variant_by_name():
    rows = [[1, 3, 2, 4], [1, 2, 3, 4], [1, 3, 1, 2]]
    # scikit-lr 0.3's DummyPartialLabelRanker (LIA_G^MP2) gives 1,3,2,3 on these rankings.
    np.testing.assert_array_equal(bpa(rows), [1, 3, 2, 3])
    np.testing.assert_array_equal(bpa(rows, dani="local"), [1, 2, 2, 3])
    np.testing.assert_array_equal(AGGREGATORS["bpa-local"](np.array(rows)), [1, 2, 2, 3])
    np.testing.assert_array_equal(
        DummyLabelRanker(aggregation="bpa").fit(np.zeros((3, 1)), rows).ranking_, [1, 3, 2, 3]
    )
    with pytest.raises(Exception, match="dani must be 'global' or 'local'"):
        bpa(rows, dani="other")


@pytest.mark.parametrize("consensus", [bpa, tied_borda, tied_copeland])
def test_scaling_every_weight_changes_no_bucket_order(consensus):
    rows = [[1, 2]] * 3 + [[2, 1]]  # C = 3/4 sits on BPA's threshold; 0.3 / 0.4 rounds above it
    np.testing.assert_array_equal(consensus(rows, weights=[0.1] * 4), consensus(rows))
    x, y = make_tied_problem(n=120, seed=3)
    w = np.random.default_rng(0).choice([1.0, 2.0, 3.0], size=len(x))
    for est in (PartialLabelRankingTree(max_depth=4, random_state=0), InstanceBasedPartialLabelRanker(n_neighbors=10)):
        unit = est.fit(x, y, sample_weight=w).predict(x)
        np.testing.assert_array_equal(est.fit(x, y, sample_weight=w * 0.1).predict(x), unit)


def test_a_tied_top_bucket_earns_the_share_of_its_labels_that_are_true_top_labels():
    truth = [[1, 2, 3], [1, 1, 2]]
    assert top_label_accuracy(truth[:1], [[1, 1, 1]]) == pytest.approx(1 / 3)
    assert top_label_accuracy(truth[1:], [[1, 1, 1]]) == pytest.approx(2 / 3)
    assert top_label_accuracy(truth[:1], [[2, 1, 3]]) == 0.0 and top_label_accuracy(truth[:1], [[1, 2, 3]]) == 1.0


def test_beta_with_a_consensus_without_ties_is_refused_not_ignored():
    x, y = np.zeros((4, 1)), [[1, 2, 3], [2, 1, 3], [1, 2, 3], [1, 3, 2]]
    with pytest.raises(InvalidParameterError, match="beta: is the tie threshold of bpa, borda-ties and copeland-ties"):
        DummyLabelRanker(aggregation="borda", beta=0.1).fit(x, y)
    DummyLabelRanker(aggregation="borda-ties", beta=0.1).fit(x, y)


def test_zero_based_tied_targets_are_warned_about():
    x, y = make_tied_problem(n=60, seed=1)
    with pytest.warns(UserWarning, match="0-based positions \\(a tied top bucket at 0\\)"):
        PartialLabelRankingTree(max_depth=2).fit(x, (y - 1).tolist())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        PartialLabelRankingTree(max_depth=2).fit(x, y.tolist())


def test_top_k_targets_get_no_zero_based_warning():
    # Every row ranks its top 3 of 6 labels (the rest 0): incomplete, not 0-based.
    rng = np.random.default_rng(0)
    y = np.zeros((50, 6), dtype=np.int64)
    for row in y:
        row[rng.permutation(6)[:3]] = [1, 2, 3]
    x = rng.random((50, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        PartialLabelRankingTree(max_depth=2).fit(x, y)


def test_predicted_rankings_quote_label_names_that_hold_the_notation():
    x, y = make_tied_problem(n=60, seed=2)
    labels = ["a=1", "b>2", "c d", "plain"][: y.shape[1]]
    est = PartialLabelRankingTree(max_depth=2).fit(x, y, labels=labels)
    texts = est.predict_strings(x[:5])
    assert any("'a=1'" in t for t in texts)
    for text, row in zip(texts, est.predict(x[:5])):
        buckets = parse_bucket_order(text, labels)
        ranks = np.zeros(len(labels), dtype=int)
        for b, bucket in enumerate(buckets):
            ranks[list(bucket)] = b + 1
        np.testing.assert_array_equal(ranks, row)


def test_a_tied_top_bucket_shares_its_row_in_the_top_label_distribution():
    from lrank.data.dataset import dataset_from_arrays
    from lrank.data.summary import summarize

    y = np.array([[1, 1, 2, 3], [2, 3, 1, 1], [1, 2, 3, 4]])
    data = dataset_from_arrays(np.zeros((3, 1)), y, labels=["a", "b", "c", "d"])
    assert summarize(data)["top_label_distribution"] == {"a": 1.5, "b": 0.5, "c": 0.5, "d": 0.5}
