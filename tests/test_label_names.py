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


def test_a_frame_y_with_other_names_is_refused_in_one_line(fitted):
    x, y, est = fitted
    other = pd.DataFrame(y, columns=["a", "b", "c", "z"])
    with pytest.raises(InvalidInputError, match=r"y's columns \['a', 'b', 'c', 'z'\] are not the labels"):
        est.score(x, other)
    with pytest.raises(InvalidInputError, match="are not the labels"):
        kendall_tau(other, est.predict(x), labels=LABELS)


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
