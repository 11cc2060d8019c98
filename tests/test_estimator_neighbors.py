"""InstanceBasedLabelRanker (IBLR): conventions, confidence, k selection, persistence."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from lrank import InstanceBasedLabelRanker, InvalidInputError, InvalidParameterError, _core


def test_fit_predict_and_confidence(problem):
    x, y = problem
    est = InstanceBasedLabelRanker(n_neighbors=5, random_state=0)
    assert est.fit(x, y) is est and est.n_neighbors_ == 5
    pred, theta = est.predict_with_confidence(x)
    assert pred.shape == y.shape and np.all(np.sort(pred, axis=1) == np.arange(1, 5))
    np.testing.assert_array_equal(pred, est.predict(x))
    assert theta.shape == (len(x),) and np.all(theta >= 0)
    # Rows far from the decision boundaries get unanimous neighbourhoods: infinite spread.
    assert np.isinf(theta).any() and np.isfinite(theta).any()
    assert est.score(x, y) > 0.8


def test_one_neighbour_reproduces_the_training_rankings(problem):
    x, y = problem
    np.testing.assert_array_equal(InstanceBasedLabelRanker(n_neighbors=1).fit(x, y).predict(x), y)


def test_k_is_chosen_from_the_papers_candidates(problem):
    x, y = problem
    est = InstanceBasedLabelRanker(random_state=0).fit(x, y)
    scores = est.k_scores_
    assert list(scores) == [5, 10, 15, 20]
    assert est.n_neighbors_ == max(scores, key=lambda k: scores[k])


def test_deterministic_for_any_thread_count_and_pickles(problem):
    x, y = problem
    a = InstanceBasedLabelRanker(random_state=3, n_jobs=1).fit(x, y)
    b = InstanceBasedLabelRanker(random_state=3, n_jobs=2).fit(x, y)
    assert a.model_ == b.model_
    np.testing.assert_array_equal(a.predict(x), b.predict(x))
    back = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(back.predict(x), a.predict(x))
    data = _core.save_model(a.model_, "{}", "json")
    assert _core.load_model(data)[0] == a.model_


def test_incomplete_rankings(problem):
    x, y = problem
    y = np.where(y > 2, 0, y).astype(np.int32)  # keep only each row's top two labels
    pred = InstanceBasedLabelRanker(n_neighbors=10).fit(x, y).predict(x)
    assert np.all(np.sort(pred, axis=1) == np.arange(1, 5))


@pytest.mark.parametrize(("kwargs", "message"), [({"n_neighbors": 0}, "n_neighbors"), ({"max_iter": -1}, "max_iter")])
def test_bad_parameters(problem, kwargs, message):
    x, y = problem
    with pytest.raises(InvalidInputError, match=message):
        InstanceBasedLabelRanker(**kwargs).fit(x, y)


def test_matches_the_papers_iblr_on_iris(kebi_dir):
    from lrank.data import read_dataset
    from lrank.evaluation import cross_validate

    data = read_dataset(kebi_dir / "iris.csv")
    ev = cross_validate(
        lambda: InstanceBasedLabelRanker(random_state=1),
        data.feature_matrix(),
        data.rankings,
        labels=list(data.labels),
        n_folds=10,
        repeats=1,
        seed=1,
    )
    assert ev.mean("kendall_tau") >= 0.966 - 0.03  # Cheng et al. 2009, Table 2, IB-M on iris


def test_infinite_query_values_are_refused_with_their_position(problem):
    x, y = problem
    est = InstanceBasedLabelRanker(n_neighbors=3).fit(x, y)
    bad = x[:6].copy()
    bad[4, 1] = np.inf
    with pytest.raises(InvalidInputError, match="infinite value at row 4, column 1"):
        est.predict(bad)


def test_iblr_weights_uniform_as_scikit_lrs_knn_or_dudani_as_the_paper():
    from conftest import make_problem

    x, y = make_problem(n=300, seed=4)
    dudani = InstanceBasedLabelRanker(n_neighbors=15, random_state=0).fit(x, y)
    uniform = InstanceBasedLabelRanker(n_neighbors=15, weights="uniform", random_state=0).fit(x, y)
    assert json.loads(uniform.model_.params_json())["InstanceBased"]["weighting"] == "Uniform"
    assert (dudani.predict(x) != uniform.predict(x)).any(axis=1).sum() > 0
    # One neighbour: its ranking, whatever the weights.
    one = [InstanceBasedLabelRanker(n_neighbors=1, weights=w).fit(x, y).predict(x[:50]) for w in ("uniform", "dudani")]
    np.testing.assert_array_equal(one[0], one[1])
    with pytest.raises(InvalidParameterError, match="weights"):
        InstanceBasedLabelRanker(weights="inverse").fit(x, y)


def test_scaling_as_scikit_lrs_knn_takes_features_or_standardised():
    from conftest import make_problem
    from lrank import InstanceBasedPlackettLuce

    x, y = make_problem(n=200, seed=6)
    x = x * np.array([1.0, 100.0, 0.01])  # scales apart: the scaling decides the neighbours
    hand = (x - x.min(axis=0)) / (x.max(axis=0) - x.min(axis=0))
    for cls in (InstanceBasedLabelRanker, InstanceBasedPlackettLuce):
        minmax = cls(n_neighbors=5, random_state=0).fit(x, y).predict(x)
        raw = cls(n_neighbors=5, scaling="none", random_state=0).fit(x, y).predict(x)
        np.testing.assert_array_equal(
            minmax, cls(n_neighbors=5, scaling="none", random_state=0).fit(hand, y).predict(hand)
        )
        assert (minmax != raw).any()
        standard = cls(n_neighbors=5, scaling="standard", random_state=0).fit(x, y)
        assert json.loads(standard.model_.params_json())["InstanceBased"]["scaling"] == "Standard"
        # Positional arguments keep their places: the new ones came last.
        assert cls(5).get_params()["n_neighbors"] == 5
    assert InstanceBasedLabelRanker(5, 30).max_iter == 30
