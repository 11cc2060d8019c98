"""DummyLabelRanker, the baseline: the consensus of the training rankings for every row."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import ROOT
from lrank import BaggingLabelRanker, DummyLabelRanker, InvalidParameterError, aggregation
from lrank.cli import main


def test_predicts_the_consensus_of_the_training_rankings(problem):
    x, y = problem
    for name, consensus in [
        ("borda", aggregation.borda),
        ("copeland", aggregation.copeland),
        ("kemeny", aggregation.kemeny),
    ]:
        est = DummyLabelRanker(aggregation=name).fit(x, y)
        expected = consensus(y)
        np.testing.assert_array_equal(est.ranking_, expected)
        np.testing.assert_array_equal(est.predict(x[:7]), np.tile(expected, (7, 1)))
    mallows = DummyLabelRanker(aggregation="mallows").fit(x, y)
    np.testing.assert_array_equal(mallows.ranking_, aggregation.mallows(y).centre)


def test_sample_weights_weigh_the_rankings():
    x = np.zeros((3, 1))
    y = np.array([[1, 2, 3], [1, 2, 3], [3, 2, 1]], dtype=np.int32)
    np.testing.assert_array_equal(DummyLabelRanker().fit(x, y).ranking_, [1, 2, 3])
    np.testing.assert_array_equal(DummyLabelRanker().fit(x, y, sample_weight=[1, 1, 3]).ranking_, [3, 2, 1])


def test_bad_aggregation_names_the_parameter(problem):
    x, y = problem
    with pytest.raises(InvalidParameterError, match="aggregation.*'borda', 'copeland'"):
        DummyLabelRanker(aggregation="median").fit(x, y)


def test_bagged_in_the_core(problem):
    x, y = problem
    bag = BaggingLabelRanker(DummyLabelRanker(), n_estimators=5, random_state=1).fit(x, y)
    assert bag.model_.kind == "Bagging"
    members = bag.predict_per_member(x[:4])
    assert members.shape == (5, 4, y.shape[1])
    assert (members == members[:, :1, :]).all()  # each member predicts one ranking for every row


def test_from_the_command_line():
    result = CliRunner().invoke(
        main, ["train", "-t", str(ROOT / "datasets" / "iris.xarff"), "-W", "Dummy", "--", "-A", "kemeny"]
    )
    assert result.exit_code == 0, result.output
    assert "Dummy" in result.output and "Kendall's tau" in result.output
