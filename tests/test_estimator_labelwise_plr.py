"""Labelwise partial label ranking with tie layers (MORE-PLR)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import make_tied_problem, plr_data
from lrank import InvalidParameterError, LabelwisePartialLabelRanker
from lrank.evaluation import cross_validate
from lrank.rankings import tied_rows


def _layer(scores: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Dense positions by increasing key (the reference of a tie layer)."""
    distinct = np.unique(keys)
    return np.searchsorted(distinct, keys) + 1


def test_tie_layers_follow_their_definitions():
    x, y = make_tied_problem(n=200)
    for layer in ("rounding", "interval", "epsilon"):
        est = LabelwisePartialLabelRanker(n_estimators=12, tie_layer=layer, random_state=0).fit(x, y)
        params = json.loads(est.model_.params_json())["LabelwisePlr"]["tie_layer"]
        assert (params if isinstance(params, str) else next(iter(params))).lower() == layer
        pred, mean = est.predict(x[:20]), est.predict_scores(x[:20])
        if layer == "rounding":
            for p, mu in zip(pred, mean):
                np.testing.assert_array_equal(p, _layer(mu, np.round(mu)))
        if layer == "epsilon":
            for p, mu in zip(pred, mean):
                order = np.argsort(mu, kind="stable")
                starts = np.concatenate([[True], np.diff(mu[order]) > 0.5])
                expect = np.empty(len(mu), dtype=int)
                expect[order] = np.cumsum(starts)
                np.testing.assert_array_equal(p, expect)
    wide = LabelwisePartialLabelRanker(n_estimators=12, tie_layer="interval", q=1e6, random_state=0).fit(x, y)
    # huge intervals overlap: every row whose trees disagree at all ties its labels (rows where
    # all trees agree have intervals of width 0)
    assert np.mean(np.all(wide.predict(x[:20]) == 1, axis=1)) > 0.5


def test_predicts_ties_and_generalises():
    x, y = make_tied_problem(n=300)
    est = LabelwisePartialLabelRanker(n_estimators=30, random_state=0).fit(x[:200], y[:200])
    assert tied_rows(est.predict(x[200:])).any()
    assert est.score(x[200:], y[200:]) > 0.8


def test_parameters_are_checked_by_name():
    x, y = make_tied_problem()
    with pytest.raises(InvalidParameterError, match="tie_layer"):
        LabelwisePartialLabelRanker(tie_layer="floor").fit(x, y)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        LabelwisePartialLabelRanker(epsilon=-1.0).fit(x, y)
    with pytest.raises(InvalidParameterError, match="q"):
        LabelwisePartialLabelRanker(tie_layer="interval", q=float("nan")).fit(x, y)
    # A width the chosen layer does not use is refused, not ignored; the defaults pass with any.
    with pytest.raises(InvalidParameterError, match="q: applies to the interval tie layer only, not to epsilon"):
        LabelwisePartialLabelRanker(q=2.0).fit(x, y)
    with pytest.raises(InvalidParameterError, match="epsilon: applies to the epsilon tie layer only, not to rounding"):
        LabelwisePartialLabelRanker(tie_layer="rounding", epsilon=0.3).fit(x, y)
    for layer in ("rounding", "interval", "epsilon"):
        LabelwisePartialLabelRanker(n_estimators=2, tie_layer=layer, q=1.0, epsilon=0.5).fit(x, y)


def test_on_the_published_iris_set():
    """Thies et al.'s labelwise variants reach tau_x about .93 here (5 x 10 CV)."""
    x, y = plr_data("iris")
    ev = cross_validate(lambda: LabelwisePartialLabelRanker(random_state=1), x, y, labels=["a", "b", "c"])
    assert ev.mean("tau_x") > 0.92
