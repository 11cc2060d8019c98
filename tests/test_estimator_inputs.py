"""What the estimators take: arrays, Polars and pandas frames, Arrow tables and record batches,
categorical columns as nominal features, lrank's own data sets; label names in and out; clear
errors for sparse and complex input."""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl
import pytest
from conftest import ROOT, make_problem
from lrank import DummyLabelRanker, InvalidInputError, LabelRankingRandomForest, LabelRankingTree
from lrank.data import read_dataset


@pytest.fixture
def problem_frame():
    x, y = make_problem(n=90, m=3, d=3, seed=2)
    return x, y, pl.DataFrame(x, schema=["a", "b", "c"])


def test_arrow_tables_and_record_batches_give_the_model_of_the_array(problem_frame):
    pa = pytest.importorskip("pyarrow")
    x, y, frame = problem_frame
    ref = LabelRankingRandomForest(n_estimators=5, random_state=1).fit(x, y)
    table = frame.to_arrow()
    for data in (table, table.to_batches()[0]):
        est = LabelRankingRandomForest(n_estimators=5, random_state=1).fit(data, y)
        assert est.model_ == ref.model_ and list(est.feature_names_in_) == ["a", "b", "c"]
        np.testing.assert_array_equal(est.predict(data), ref.predict(x))
    assert isinstance(table, pa.Table)


def test_pandas_frames_and_series_weights(problem_frame):
    pd = pytest.importorskip("pandas")
    x, y, _ = problem_frame
    frame = pd.DataFrame(x, columns=["a", "b", "c"])
    labels = pd.DataFrame(y, columns=["red", "green", "blue"])
    est = LabelRankingRandomForest(n_estimators=5, random_state=1)
    est.fit(frame, labels, sample_weight=pd.Series(np.ones(90)))
    assert est.labels_ == ["red", "green", "blue"]
    assert est.model_ == LabelRankingRandomForest(n_estimators=5, random_state=1).fit(x, y).model_


def test_categorical_columns_are_nominal_features_coded_by_their_fit_categories():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    colour = rng.choice(["red", "green", "blue"], size=120)
    y = np.array([[1, 2] if c == "green" else [2, 1] for c in colour], dtype=np.int32)
    frame = pd.DataFrame({"colour": pd.Categorical(colour), "noise": rng.random(120)})
    est = LabelRankingTree(random_state=0).fit(frame, y)
    assert est.categories_[0] == ["blue", "green", "red"] and est.categories_[1] is None
    # "green" against the rest: one split on the nominal feature separates the classes.
    assert est.score(frame, y) == 1.0
    # Predict-time categories coded by the fit's, whatever the frame's own category order.
    test = pd.DataFrame({"colour": pd.Categorical(["green", "red"], categories=["red", "green"]), "noise": [0.5, 0.5]})
    np.testing.assert_array_equal(est.predict(test), [[1, 2], [2, 1]])
    # The same as Polars Enum and Categorical columns.
    for dtype in (pl.Enum(["blue", "green", "red"]), pl.Categorical):
        polars_frame = pl.DataFrame({"colour": pl.Series(colour).cast(dtype), "noise": frame["noise"].to_numpy()})
        assert LabelRankingTree(random_state=0).fit(polars_frame, y).score(polars_frame, y) == 1.0
    with pytest.warns(UserWarning, match="categories not seen at fit"):
        est.predict(pd.DataFrame({"colour": pd.Categorical(["purple"]), "noise": [0.1]}))


def test_a_data_set_with_nominal_attributes_fits_as_it_is(tmp_path):
    path = tmp_path / "nominal.xarff"
    rows = "\n".join(f"{v},{'a>b' if v == 'x' else 'b>a'}" for v in ["x", "y", "z"] * 10)
    path.write_text(f"@relation r\n@attribute v {{x,y,z}}\n@attribute L RANKING {{a,b}}\n@data\n{rows}\n")
    data = read_dataset(path)
    est = LabelRankingTree(random_state=0).fit(data)
    assert est.labels_ == ["a", "b"] and est.score(data, data.rankings) == 1.0
    assert est.score(data) == 1.0  # a data set alone scores on its own rankings, as fit takes it
    # its rankings are matched by label name, and its weights used
    swapped_text = path.read_text().replace("{a,b}", "{b,a}")
    (tmp_path / "swapped.xarff").write_text(swapped_text)
    swapped = read_dataset(tmp_path / "swapped.xarff")
    assert swapped.labels == ("b", "a") and est.score(swapped) == 1.0
    weighted = dataclasses.replace(data, weights=np.where(data.features["v"].to_numpy() == "x", 1.0, 0.0))
    assert est.score(weighted) == est.score(data.features, data.rankings, sample_weight=weighted.weights)
    with pytest.raises(InvalidInputError, match=r"LabelRankingTree.score needs y"):
        est.score(data.features)
    # fit(X=dataset.features, y) too: the Enum column is a nominal feature.
    assert LabelRankingTree(random_state=0).fit(data.features, data.rankings).score(data.features, data.rankings) == 1.0


def test_label_names_in_predictions():
    iris = read_dataset(ROOT / "datasets" / "iris.xarff")
    est = LabelRankingRandomForest(n_estimators=10, random_state=0).fit(iris)
    assert est.labels_ == list(iris.labels)
    x = iris.features[:3]  # a frame, as at fit (an array would warn: no feature names)
    orderings = est.predict_orderings(x)
    strings = est.predict_strings(x)
    frame = est.predict_frame(x)
    assert all(sorted(o) == sorted(iris.labels) for o in orderings)
    assert strings == [">".join(o) for o in orderings]
    assert frame.columns == ["ranking", *iris.labels] and frame["ranking"].to_list() == strings
    np.testing.assert_array_equal(frame.select(list(iris.labels)).to_numpy(), est.predict(x))
    x = iris.feature_matrix()[:3]
    unnamed = DummyLabelRanker().fit(x, iris.rankings[:3])
    assert unnamed.labels_ is None and unnamed.predict_strings(x[:1])[0].count("L") == 3
    named = DummyLabelRanker().fit(x, iris.rankings[:3], labels=["p", "q", "r"])
    assert sorted(named.predict_orderings(x[:1])[0]) == ["p", "q", "r"]
    with pytest.raises(InvalidInputError, match="labels has 2 names for 3 labels"):
        DummyLabelRanker().fit(x, iris.rankings[:3], labels=["p", "q"])


def test_sparse_and_complex_inputs_get_clear_errors(problem_frame):
    sparse = pytest.importorskip("scipy.sparse")
    x, y, _ = problem_frame
    with pytest.raises(TypeError, match="Sparse data was passed for X, but dense data is required"):
        DummyLabelRanker().fit(sparse.csr_matrix(x), y)
    with pytest.raises(ValueError, match="Complex data not supported"):
        DummyLabelRanker().fit(x + 1j, y)
    with pytest.raises(InvalidInputError, match="column 's' has dtype String"):
        DummyLabelRanker().fit(pl.DataFrame({"s": ["a"] * 90}), y)


def test_pandas_pyarrow_backed_categories_are_nominal_as_a_pandas_categorical(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame(
        {
            "colour": pd.Categorical(["red", "green", "blue"] * 20, categories=["red", "green", "blue"]),
            "x": np.arange(60.0),
        }
    )
    frame.loc[3, "colour"] = None
    frame.to_parquet(tmp_path / "c.parquet")
    arrow_backed = pd.read_parquet(tmp_path / "c.parquet", dtype_backend="pyarrow")
    assert "dictionary" in str(arrow_backed.dtypes.iloc[0])
    y = np.array([[1, 2], [2, 1], [1, 2]] * 20)
    from_arrow = LabelRankingTree(random_state=0).fit(arrow_backed, y)
    from_pandas = LabelRankingTree(random_state=0).fit(frame, y)
    assert from_arrow.categories_ == from_pandas.categories_ == [["red", "green", "blue"], None]
    np.testing.assert_array_equal(from_arrow.predict(frame), from_pandas.predict(arrow_backed))
    assert from_arrow.model_ == from_pandas.model_


def test_rankings_that_teach_no_order_are_warned_about():
    # Learners fitted on rankings of one label each ranked every row in label order, and put a
    # label no row ranks anywhere, with nothing said (an audit as a user of incomplete data).
    import warnings

    import numpy as np
    from lrank import LabelRankingRandomForest, LabelRankingTree

    x = np.random.default_rng(0).random((30, 2))
    single = np.zeros((30, 3), dtype=int)
    single[np.arange(30), np.arange(30) % 3] = 1
    with pytest.warns(UserWarning, match="no training ranking orders two labels"):
        LabelRankingTree().fit(x, single)
    unranked = np.tile([1, 2, 0], (30, 1))
    unranked[::2] = [2, 1, 0]
    with pytest.warns(UserWarning, match="no training ranking holds c: its predicted position comes from no data"):
        LabelRankingRandomForest(n_estimators=3).fit(x, unranked, labels=["a", "b", "c"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        LabelRankingTree().fit(x, np.tile([1, 2, 3], (30, 1)))
