"""OneVsOneLabelRanker (OVO): pairwise votes, classifiers, persistence, CLI."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from lrank import InvalidInputError, OneVsOneLabelRanker


def _ranking_of(scores: np.ndarray) -> np.ndarray:
    order = np.argsort(-scores, axis=1, kind="stable")
    ranks = np.empty_like(order)
    ranks[np.arange(len(scores))[:, None], order] = np.arange(1, scores.shape[1] + 1)
    return ranks


@pytest.mark.parametrize("voting", ["copeland", "probability"])
@pytest.mark.parametrize("classifier", ["tree", "forest"])
def test_rankings_sort_the_votes(problem, classifier, voting):
    x, y = problem
    est = OneVsOneLabelRanker(classifier=classifier, voting=voting, n_estimators=15, random_state=0).fit(x, y)
    scores = est.predict_scores(x[:40])
    m = y.shape[1]
    # Every pair hands out one vote in total.
    np.testing.assert_allclose(scores.sum(axis=1), m * (m - 1) / 2)
    np.testing.assert_array_equal(est.predict(x[:40]), _ranking_of(scores))
    if voting == "copeland":
        assert np.all(np.isin(scores * 2, np.arange(0, 2 * m)))
    assert est.score(x, y) > 0.8


def test_incomplete_rankings_train_only_the_pairs_they_hold(problem):
    x, y = problem
    y = np.where(y == 4, 0, y).astype(np.int32)
    est = OneVsOneLabelRanker(random_state=1).fit(x, y)
    # Grown trees fit each pair; only Copeland ties (e.g. a 3-cycle) keep it below 1.
    assert est.score(x, y) > 0.9
    assert np.all(np.sort(est.predict(x), axis=1) == np.arange(1, 5))


def test_determinism_pickle_and_errors(problem):
    x, y = problem
    a = OneVsOneLabelRanker(classifier="forest", n_estimators=8, random_state=3, n_jobs=1).fit(x, y)
    b = OneVsOneLabelRanker(classifier="forest", n_estimators=8, random_state=3, n_jobs=2).fit(x, y)
    assert a.model_ == b.model_
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(a)).predict(x), a.predict(x))
    for kwargs, match in [
        ({"classifier": "svm"}, "classifier"),
        ({"voting": "borda"}, "voting"),
        ({"classifier": "forest", "n_estimators": 0}, "n_estimators"),
        ({"max_depth": -2}, "max_depth"),
    ]:
        with pytest.raises(InvalidInputError, match=match):
            OneVsOneLabelRanker(**kwargs).fit(x, y)


def test_node_seeds_grow_another_forest_as_good_and_the_same_for_any_thread_count(problem):
    x, y = problem
    kwargs = {"classifier": "forest", "n_estimators": 8, "random_state": 3}
    streams = OneVsOneLabelRanker(**kwargs).fit(x, y)
    nodes = [OneVsOneLabelRanker(**kwargs, node_seeds=True, n_jobs=j).fit(x, y) for j in (1, 2)]
    assert nodes[0].model_ == nodes[1].model_ and nodes[0].model_ != streams.model_
    assert nodes[0].score(x, y) > streams.score(x, y) - 0.05
    again = pickle.loads(pickle.dumps(nodes[0]))
    assert again.node_seeds and again.model_ == nodes[0].model_
