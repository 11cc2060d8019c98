"""kneighbors on the instance-based learners: the training rows a prediction comes from."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import make_problem, make_tied_problem
from lrank import (
    InstanceBasedLabelRanker,
    InstanceBasedPartialLabelRanker,
    InstanceBasedPlackettLuce,
    InvalidInputError,
)


def _brute(train: np.ndarray, queries: np.ndarray) -> np.ndarray:
    return np.sqrt(((queries[:, None, :] - train[None, :, :]) ** 2).sum(axis=-1))


@pytest.mark.parametrize("cls", [InstanceBasedLabelRanker, InstanceBasedPlackettLuce, InstanceBasedPartialLabelRanker])
@pytest.mark.parametrize("scaling", ["none", "minmax"])
def test_the_nearest_rows_and_distances_are_those_of_a_brute_force_search(cls, scaling):
    x, y = (make_tied_problem if cls is InstanceBasedPartialLabelRanker else make_problem)(n=120, seed=2)
    x = x * np.arange(1, x.shape[1] + 1) * 10.0  # the scaling matters
    queries = np.random.default_rng(3).random((15, x.shape[1])) * 10.0
    est = cls(n_neighbors=7, scaling=scaling, random_state=0).fit(x, y)
    distances, indices = est.kneighbors(queries)
    assert distances.shape == indices.shape == (15, 7) and indices.dtype == np.int64
    np.testing.assert_array_equal(est.kneighbors(queries, 3, return_distance=False), indices[:, :3])
    if scaling == "minmax":
        low, span = x.min(axis=0), x.max(axis=0) - x.min(axis=0)
        x, queries = (x - low) / span, (queries - low) / span
    brute = _brute(x, queries)
    np.testing.assert_allclose(distances, np.sort(brute, axis=1)[:, :7], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(np.take_along_axis(brute, indices, axis=1), distances, rtol=1e-9, atol=1e-12)


def test_one_neighbour_predicts_its_ranking_and_mistakes_are_one_line():
    x, y = make_problem(n=80, seed=4)
    est = InstanceBasedLabelRanker(n_neighbors=1, random_state=0).fit(x, y)
    queries = x[:10] + 0.001
    np.testing.assert_array_equal(est.predict(queries), y[est.kneighbors(queries, return_distance=False)[:, 0]])
    with pytest.raises(InvalidInputError, match="n_neighbors must be 1 to 80"):
        est.kneighbors(queries, 81)
    with pytest.raises(InvalidInputError, match="expecting 3 features"):
        est.kneighbors(queries[:, :2])


@pytest.mark.parametrize("cls", [InstanceBasedLabelRanker, InstanceBasedPlackettLuce, InstanceBasedPartialLabelRanker])
@pytest.mark.parametrize("scaling", ["none", "minmax"])
def test_without_x_each_training_row_finds_its_neighbours_but_itself(cls, scaling):
    x, y = (make_tied_problem if cls is InstanceBasedPartialLabelRanker else make_problem)(n=90, seed=5)
    x = x * np.arange(1, x.shape[1] + 1) * 10.0
    x[7] = x[3]  # a duplicate of a row is its neighbour at distance 0; the row itself is not
    est = cls(n_neighbors=5, scaling=scaling, random_state=0).fit(x, y)
    distances, indices = est.kneighbors()
    assert distances.shape == indices.shape == (90, 5)
    if scaling == "minmax":
        x = (x - x.min(axis=0)) / (x.max(axis=0) - x.min(axis=0))
    brute = _brute(x, x)
    np.fill_diagonal(brute, np.inf)
    np.testing.assert_allclose(distances, np.sort(brute, axis=1)[:, :5], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(np.take_along_axis(brute, indices, axis=1), distances, rtol=1e-9, atol=1e-12)
    assert not (indices == np.arange(90)[:, None]).any()
    assert indices[3, 0] == 7 and indices[7, 0] == 3 and distances[3, 0] == 0.0
    np.testing.assert_array_equal(est.kneighbors(None, 2, return_distance=False), indices[:, :2])
    with pytest.raises(
        InvalidInputError, match="n_neighbors must be 1 to 89 \\(the training rows but the row itself\\)"
    ):
        est.kneighbors(n_neighbors=90)
