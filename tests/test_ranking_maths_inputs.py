"""Inputs the ranking mathematics refused wrongly or took silently (found by an audit acting as a
researcher using lrank.metrics, lrank.aggregation and the notation as a library)."""

from __future__ import annotations

import numpy as np
import pytest
from lrank import aggregation as agg
from lrank import metrics
from lrank.errors import InvalidInputError
from lrank.ranking_notation import format_rank_row, parse_rank_row
from lrank.rankings import has_ties, tied_rows

TRUE = [[1, 2, 3], [3, 2, 1]]
PRED = [[1, 2, 3], [1, 2, 3]]


@pytest.mark.parametrize("weights", [[2, -1], [1, np.nan], [1, np.inf], [1e308, 1e308]])
@pytest.mark.parametrize(
    "measure", [metrics.kendall_tau, metrics.tau_x, metrics.exact_match, metrics.footrule, metrics.kendall_distance]
)
def test_metric_weights_must_be_finite_and_non_negative(measure, weights):
    # [2, -1] gave a Kendall tau of 3.0 and a footrule of -1; NaN gave NaN.
    with pytest.raises(InvalidInputError, match="sample_weight must be finite and non-negative"):
        measure(TRUE, PRED, sample_weight=weights)
    with pytest.raises(InvalidInputError, match="sample_weight must be numbers"):
        measure(TRUE, PRED, sample_weight=["a", "b"])
    assert measure(TRUE, PRED, sample_weight=[1, 0]) == measure(TRUE[:1], PRED[:1])


def _kendall_distance_whole(t: np.ndarray, p: np.ndarray) -> float:
    """The definition on whole pair matrices: pairs both rankings hold, reversed ones 1, a pair
    tied in one ranking only 1/2, over the pairs."""
    both = (t > 0) & (p > 0)
    common = both[:, None] & both[None, :]
    st, sp = np.sign(t[:, None] - t[None, :]), np.sign(p[:, None] - p[None, :])
    distance = ((((st * sp) < 0) & common).sum() + 0.5 * (((st == 0) != (sp == 0)) & common).sum()) / 2
    k = both.sum()
    return distance / (k * (k - 1) / 2)


def test_kendall_distance_of_many_labels_in_bounded_memory_is_the_definition():
    # One row of 8,000 labels took 0.9 GB at once; the labels are now taken in slices.
    import tracemalloc

    rng = np.random.default_rng(3)
    m = 1500  # more pairs than one slice holds
    t = rng.permutation(m) + 1
    p = np.minimum(rng.permutation(m) + 1, m - 40)  # ties at the bottom
    t[rng.random(m) < 0.1] = 0
    t[t > 0] = np.unique(t[t > 0], return_inverse=True)[1] + 1
    tracemalloc.start()
    got = metrics.kendall_distance(t[None], p[None])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert got == pytest.approx(_kendall_distance_whole(t, p), abs=1e-12)
    assert peak < 120e6


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: agg.borda([[1, 2, 3]], [[1]]), "weights must be one number per ranking"),
        (lambda: agg.borda([[1, 2], [1]]), "its rows differ in length"),
        # each weight finite, the counts not: a pair order of 0 against 0, and a wrong consensus
        (lambda: agg.bpa([[1, 2], [2, 1]], [1e308, 1e308]), "weights must have a finite sum"),
        (lambda: agg.borda([[2, 1], [1, 2], [2, 1]], [1e308, 1e308, 1]), "weights must have a finite sum"),
        (lambda: agg.pair_order_matrix([[1, 2], [2, 1]], [1e308, 1e308]), "weights must have a finite sum"),
        (lambda: format_rank_row([1, 2, 3], ["a", "b"]), "2 label names for rankings of 3 labels"),
        (lambda: format_rank_row([5, -1], ["a", "b"]), "a ranking holds position -1, outside 0 to 2"),
        (lambda: parse_rank_row("a>b>c", list("abc"), 2), "3 label names for rankings of 2 labels"),
        (lambda: format_rank_row([1.5, 2, 3], ["a", "b", "c"]), "positions must be whole numbers"),
        (lambda: tied_rows([1, 2, 2]), "a rank matrix is 2-D"),
        (lambda: has_ties([]), "a rank matrix is 2-D"),
    ],
)
def test_bad_inputs_are_one_line_errors(call, message):
    # An IndexError, a TypeError ("'ndarray' object is not an instance of 'ndarray'") or numpy's
    # "inhomogeneous shape", or a silently wrong answer, before.
    with pytest.raises(InvalidInputError, match=message):
        call()


def test_whole_number_weights_are_the_rankings_repeated():
    rng = np.random.default_rng(5)
    for _ in range(200):
        m, n = int(rng.integers(2, 6)), int(rng.integers(1, 6))
        r = np.array([rng.permutation(m) + 1 for _ in range(n)])
        w = rng.integers(1, 4, size=n)
        repeated = np.repeat(r, w, axis=0)
        for method in (agg.borda, agg.copeland, agg.kemeny):
            np.testing.assert_array_equal(method(r, w), method(repeated))
    assert format_rank_row([2.0, 1.0], ["a", "b"]) == "b>a"  # whole positions as floats still print


def test_blanks_inside_quotes_survive_and_a_blank_name_is_refused():
    # Blanks were stripped after the quotes were removed: "' a'>b" read label "a", and "a> >b"
    # made a label named "".
    from lrank.rankings import rank_matrix_from_strings

    text = format_rank_row([1, 2], [" a", "b"], quoted=True)
    matrix, labels = rank_matrix_from_strings([text], labels=[" a", "b"])
    assert labels == [" a", "b"] and matrix.tolist() == [[1, 2]]
    assert rank_matrix_from_strings([" a > b = c "])[1] == ["a", "b", "c"]  # blanks outside quotes go
    with pytest.raises(InvalidInputError, match="no label between"):
        rank_matrix_from_strings(["a> >b"])


def test_a_truth_of_one_label_is_no_top_label_hit():
    # Every prediction's top among one label is that label: a constant learner scored 1.0 on
    # such rows, where tau and exact match leave them out.
    truth, pred = [[0, 0, 1, 0, 0], [1, 2, 3, 4, 5]], [[1, 2, 3, 4, 5], [2, 1, 3, 4, 5]]
    assert np.isnan(metrics.top_label_accuracy(truth[:1], pred[:1]))
    assert metrics.top_label_accuracy(truth, pred) == 0.0  # the second row alone
    assert np.isnan(metrics.exact_match(truth[:1], pred[:1]))
