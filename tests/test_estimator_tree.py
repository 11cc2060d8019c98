"""LabelRankingTree (LRT): conventions, stopping rules, incomplete rankings, persistence."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from lrank import InvalidInputError, InvalidParameterError, LabelRankingTree, _core


def test_fit_predict_and_leaf_confidence(problem):
    x, y = problem
    est = LabelRankingTree(random_state=0)
    assert est.fit(x, y) is est
    pred, theta = est.predict_with_confidence(x)
    assert pred.shape == y.shape and np.all(np.sort(pred, axis=1) == np.arange(1, 5))
    assert theta.shape == (len(x),) and np.all(theta > 0)
    assert est.score(x, y) > 0.8
    # The paper's stopping rule: no node with fewer than 2m = 8 examples is split.
    assert est.n_leaves_ <= len(x) // 4


def test_depth_limit_and_min_samples(problem):
    x, y = problem
    assert LabelRankingTree(max_depth=0).fit(x, y).n_leaves_ == 1
    assert LabelRankingTree(max_depth=2).fit(x, y).depth_ <= 2
    assert LabelRankingTree(min_samples_split=10_000).fit(x, y).n_leaves_ == 1


def test_incomplete_rankings_are_completed(problem):
    x, y = problem
    y = np.where(y > 2, 0, y).astype(np.int32)
    pred = LabelRankingTree().fit(x, y).predict(x)
    assert np.all(np.sort(pred, axis=1) == np.arange(1, 5))


def test_pickle_and_model_file(problem):
    x, y = problem
    est = LabelRankingTree(random_state=1).fit(x, y)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(est)).predict(x), est.predict(x))
    assert _core.load_model(_core.save_model(est.model_, "{}", "binary"))[0] == est.model_


def test_bad_parameters(problem):
    x, y = problem
    with pytest.raises(InvalidInputError, match="max_depth"):
        LabelRankingTree(max_depth=-1).fit(x, y)
    with pytest.raises(InvalidInputError, match="min_samples_split"):
        LabelRankingTree(min_samples_split=-2).fit(x, y)
    with pytest.raises(InvalidInputError, match="splitter"):
        LabelRankingTree(splitter="random").fit(x, y)
    with pytest.raises(InvalidInputError, match="categorical_features"):
        LabelRankingTree(categorical_features=[5]).fit(x, y)
    with pytest.raises(InvalidInputError, match="mask"):
        LabelRankingTree(categorical_features=[True]).fit(x, y)


def test_same_tree_for_any_number_of_threads():
    from conftest import make_problem

    x, y = make_problem(n=5000, m=5, d=4, seed=3)
    models = [LabelRankingTree(random_state=2, n_jobs=j).fit(x, y).model_ for j in (1, 2)]
    assert models[0] == models[1]


_SPLITTERS = {"equal_width": "EqualWidth", "equal_frequency": "EqualFrequency"}


@pytest.mark.parametrize("splitter", ["equal_width", "equal_frequency"])
def test_unsupervised_splitters_learn_and_differ_from_best(problem, splitter):
    x, y = problem
    est = LabelRankingTree(splitter=splitter, random_state=0).fit(x, y)
    assert json.loads(est.model_.params_json())["LabelTree"]["threshold_rule"] == _SPLITTERS[splitter]
    assert est.score(x, y) > 0.6
    assert est.model_ != LabelRankingTree(random_state=0).fit(x, y).model_


def test_categorical_features_change_how_codes_are_split():
    # Code 1 of a nominal column ranks differently from codes 0 and 2: one split as a
    # category, two as numbers.
    codes = np.tile([0.0, 1.0, 2.0], 40)[:, None]
    y = np.where((codes == 1.0), [[1, 2, 3]], [[3, 2, 1]]).astype(np.int32)
    as_category = LabelRankingTree(categorical_features=[0], random_state=0).fit(codes, y)
    as_number = LabelRankingTree().fit(codes, y)
    assert (as_category.depth_, as_number.depth_) == (1, 2)
    mask = LabelRankingTree(categorical_features=np.array([True]), random_state=0).fit(codes, y)
    assert mask.model_ == as_category.model_


def test_matches_the_papers_lrt_on_iris(kebi_dir):
    from lrank.data import read_dataset
    from lrank.evaluation import cross_validate

    data = read_dataset(kebi_dir / "iris.csv")
    ev = cross_validate(
        lambda: LabelRankingTree(random_state=1),
        data.feature_matrix(),
        data.rankings,
        labels=list(data.labels),
        n_folds=10,
        repeats=1,
        seed=1,
    )
    assert ev.mean("kendall_tau") >= 0.947 - 0.03  # Cheng et al. 2009, Table 2, LRT on iris


def test_min_samples_split_below_one_is_a_share_of_the_training_rows_as_in_scikit_learn():
    from conftest import make_problem

    x, y = make_problem(n=200, seed=3)
    share = LabelRankingTree(min_samples_split=0.1, random_state=0).fit(x, y)
    rows = LabelRankingTree(min_samples_split=20, random_state=0).fit(x, y)
    np.testing.assert_array_equal(share.apply(x), rows.apply(x))
    assert share.apply(x).max() < LabelRankingTree(min_samples_split=2, random_state=0).fit(x, y).apply(x).max()


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_a_non_finite_min_samples_split_is_named(value):
    from conftest import make_problem
    from lrank import InvalidParameterError

    x, y = make_problem(n=30, seed=1)
    with pytest.raises(InvalidParameterError, match="min_samples_split: must be finite"):
        LabelRankingTree(min_samples_split=value).fit(x, y)


def test_max_features_and_min_samples_leaf_as_scikit_lrs_tree_takes_them():
    from conftest import make_problem

    x, y = make_problem(n=300, seed=8, d=4)
    paper = LabelRankingTree(min_samples_split=2, random_state=0).fit(x, y)
    leafy = LabelRankingTree(min_samples_split=2, min_samples_leaf=0.05, random_state=0).fit(x, y)
    # Each leaf holds the weight of at least 5% of the rows (15 rows here).
    counts = np.bincount(leafy.apply(x)[:, 0])
    assert counts[counts > 0].min() >= 15 and leafy.get_n_leaves() < paper.get_n_leaves()
    sampled = [LabelRankingTree(max_features=1, random_state=s).fit(x, y).apply(x) for s in (0, 0, 1)]
    np.testing.assert_array_equal(sampled[0], sampled[1])
    assert (sampled[0] != sampled[2]).any()
    with pytest.raises(InvalidParameterError, match="min_samples_leaf"):
        LabelRankingTree(min_samples_leaf=-1).fit(x, y)
