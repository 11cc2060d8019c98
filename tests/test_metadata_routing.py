"""scikit-learn's metadata routing (``sklearn.set_config(enable_metadata_routing=True)``) with
lrank's estimators and scorers: ``set_fit_request``/``set_score_request`` decide whether
``sample_weight`` reaches ``fit`` and ``score`` inside ``cross_validate``, ``GridSearchCV`` and
``Pipeline``, with the results of fitting and scoring by hand. CI runs this module under the
newest and the oldest supported scikit-learn."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import sklearn
from conftest import make_problem
from lrank import LabelRankingTree
from lrank.metrics import get_scorer, kendall_tau
from sklearn.base import clone
from sklearn.exceptions import UnsetMetadataPassedError
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from test_sklearn_compat import estimators

CV = KFold(3, shuffle=True, random_state=0)


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


@pytest.fixture(scope="module")
def weighted() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    X, Y = make_problem(n=150, m=4, d=3, seed=3)
    # Weights far from uniform, so that a fold fitted or scored without them differs.
    w = np.random.default_rng(1).choice([0.05, 1.0, 8.0], size=len(X))
    return X, Y, w


def by_hand(est, X, Y, w, *, fit_weighted: bool, score_weighted: bool) -> list[float]:
    out = []
    for train, test in CV.split(X):
        fitted = clone(est).fit(X[train], Y[train], sample_weight=w[train] if fit_weighted else None)
        out.append(fitted.score(X[test], Y[test], sample_weight=w[test] if score_weighted else None))
    return out


@pytest.mark.parametrize("est", estimators(), ids=lambda e: type(e).__name__)
def test_routed_weights_reach_fit_and_score(routing, weighted, est):
    X, Y, w = weighted
    requested = clone(est).set_fit_request(sample_weight=True).set_score_request(sample_weight=True)
    got = cross_validate(requested, X, Y, params={"sample_weight": w}, cv=CV)["test_score"]
    np.testing.assert_allclose(got, by_hand(est, X, Y, w, fit_weighted=True, score_weighted=True))


def test_declined_weights_are_left_out(routing, weighted):
    X, Y, w = weighted
    est = LabelRankingTree(random_state=0)
    fit_only = clone(est).set_fit_request(sample_weight=True).set_score_request(sample_weight=False)
    got = cross_validate(fit_only, X, Y, params={"sample_weight": w}, cv=CV)["test_score"]
    expected = by_hand(est, X, Y, w, fit_weighted=True, score_weighted=False)
    np.testing.assert_allclose(got, expected)
    # The weights change these folds' scores, so the test above can tell them apart.
    assert not np.allclose(expected, by_hand(est, X, Y, w, fit_weighted=True, score_weighted=True))
    assert not np.allclose(expected, by_hand(est, X, Y, w, fit_weighted=False, score_weighted=False))


def test_unrequested_weights_raise_scikit_learns_error(routing, weighted):
    X, Y, w = weighted
    with pytest.raises(UnsetMetadataPassedError, match=r"LabelRankingTree.*set_fit_request"):
        cross_validate(LabelRankingTree(), X, Y, params={"sample_weight": w}, cv=CV)


def test_an_alias_routes_metadata_under_another_name(routing, weighted):
    X, Y, w = weighted
    est = LabelRankingTree(random_state=0).set_fit_request(sample_weight="w_fit").set_score_request(sample_weight=False)
    got = cross_validate(est, X, Y, params={"w_fit": w}, cv=CV)["test_score"]
    np.testing.assert_allclose(
        got, by_hand(LabelRankingTree(random_state=0), X, Y, w, fit_weighted=True, score_weighted=False)
    )


def test_pipeline_and_grid_search_with_a_weighted_lrank_scorer(routing, weighted):
    X, Y, w = weighted
    tree = LabelRankingTree(random_state=0).set_fit_request(sample_weight=True)
    pipe = make_pipeline(StandardScaler().set_fit_request(sample_weight=False), tree)
    scorer = get_scorer("kendall_tau").set_score_request(sample_weight=True)
    search = GridSearchCV(pipe, {"labelrankingtree__max_depth": [1, 3]}, scoring=scorer, cv=CV).fit(
        X, Y, sample_weight=w
    )
    for depth, got in zip([1, 3], search.cv_results_["mean_test_score"]):
        scores = []
        for train, test in CV.split(X):
            fitted = LabelRankingTree(max_depth=depth, random_state=0).fit(
                StandardScaler().fit(X[train]).transform(X[train]), Y[train], sample_weight=w[train]
            )
            pred = fitted.predict(StandardScaler().fit(X[train]).transform(X[test]))
            scores.append(kendall_tau(Y[test], pred, sample_weight=w[test]))
        assert got == pytest.approx(np.mean(scores))
    with pytest.raises(UnsetMetadataPassedError, match=r"get_scorer\('kendall_tau'\)\.set_score_request"):
        GridSearchCV(pipe, {"labelrankingtree__max_depth": [1]}, scoring=get_scorer("kendall_tau"), cv=CV).fit(
            X, Y, sample_weight=w
        )


def test_requests_survive_clone_and_pickle_and_are_reported(routing):
    est = LabelRankingTree(max_depth=2).set_fit_request(sample_weight=True)
    for copy in (clone(est), pickle.loads(pickle.dumps(est))):
        routing_of = copy.get_metadata_routing()
        assert routing_of.fit.requests == {"sample_weight": True}
        assert routing_of.score.requests == {"sample_weight": None}
    # The default: None, which scikit-learn turns into an error when the metadata is passed.
    assert LabelRankingTree().get_metadata_routing().fit.requests == {"sample_weight": None}


def test_requests_need_routing_enabled_and_valid_values(routing):
    with pytest.raises(ValueError, match="alias"):
        LabelRankingTree().set_fit_request(sample_weight="not an identifier")
    with (
        sklearn.config_context(enable_metadata_routing=False),
        pytest.raises(RuntimeError, match="enable_metadata_routing=True"),
    ):
        LabelRankingTree().set_fit_request(sample_weight=True)
