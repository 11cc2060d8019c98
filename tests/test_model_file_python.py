"""Model files written from Python (``save_model``) and read back (``load_model``): what the
estimator was fitted with goes into the file by default, contradictions are refused, and the
loaded model reads a DataFrame by column and category names."""

from __future__ import annotations

import numpy as np
import pytest
from lrank import InstanceBasedLabelRanker, LabelRankingTree
from lrank.data import Attribute
from lrank.datasets import load_iris
from lrank.errors import LrankError
from lrank.model_file import load_model, save_model

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")


@pytest.fixture
def frame():
    data = load_iris()
    x = data.features.to_pandas()
    x.columns = ["sl", "sw", "pl", "pw"]
    x["colour"] = pd.Categorical(
        np.array(["red", "green", "blue"])[np.arange(150) % 3], categories=["red", "green", "blue"]
    )
    # The colour decides between the second and third labels, so its coding matters.
    y = data.rankings.copy()
    swap = (x["colour"] == "blue").to_numpy()
    y[swap] = np.where(y[swap] == 2, 3, np.where(y[swap] == 3, 2, y[swap]))
    return x, y, list(data.labels)


def test_the_file_holds_what_the_estimator_was_fitted_with(frame, tmp_path):
    x, y, labels = frame
    est = InstanceBasedLabelRanker(n_neighbors=5).fit(x, y, labels=labels)
    path = tmp_path / "m.lrm"
    save_model(path, est)
    loaded = load_model(path)
    assert loaded.learner == "IBLR" and loaded.labels == labels
    assert [a.name for a in loaded.attributes] == ["sl", "sw", "pl", "pw", "colour"]
    assert loaded.attributes[-1] == Attribute("colour", "nominal", ("red", "green", "blue"))
    # A frame with its columns and categories in another order reads as the training frame did.
    moved = x[["colour", "pw", "pl", "sw", "sl"]].copy()
    moved["colour"] = moved["colour"].cat.reorder_categories(["blue", "green", "red"])
    np.testing.assert_array_equal(loaded.predict(moved), est.predict(x))
    np.testing.assert_array_equal(loaded.predict(pl.from_pandas(x)), est.predict(x))
    with pytest.raises(LrankError, match="the frame has no column 'pl'"):
        loaded.predict(x.drop(columns=["pl"]))
    with pytest.raises(LrankError, match="or a Polars or pandas DataFrame, got ndarray"):
        loaded.predict(x.to_numpy())


def test_labels_and_attributes_that_contradict_the_estimator_are_refused(frame, tmp_path):
    x, y, labels = frame
    est = LabelRankingTree(max_depth=3, random_state=0).fit(x, y, labels=labels)
    numeric = [Attribute(c, "numeric") for c in ["sl", "sw", "pl", "pw"]]
    path = tmp_path / "bad.lrm"
    with pytest.raises(LrankError, match="must be nominal with the categories the estimator coded"):
        save_model(path, est, attributes=[*numeric, Attribute("colour", "nominal", ("blue", "green", "red"))])
    with pytest.raises(LrankError, match="attribute 'pl' stands where the estimator was fitted on 'sl'"):
        save_model(
            path, est, attributes=[numeric[2], numeric[1], numeric[0], numeric[3], Attribute("colour", "numeric")]
        )
    with pytest.raises(LrankError, match="are not the estimator's labels_"):
        save_model(path, est, labels=labels[::-1])
    assert not path.exists()
    # Arrays: names and labels default to x1.. and L1..
    plain = LabelRankingTree(max_depth=2).fit(x[["sl", "sw"]].to_numpy(), y)
    save_model(path, plain)
    loaded = load_model(path)
    assert loaded.labels == ["L1", "L2", "L3"] and [a.name for a in loaded.attributes] == ["x1", "x2"]


def test_a_frame_whose_categories_are_declared_in_sorted_order_is_coded_by_name(frame, tmp_path):
    # When a frame's categories, sorted, equalled the training declaration, they were read as
    # numbers ("1" as code 1, "a" refused by Polars) and a row's ranking hung on its batch.
    x, y, labels = frame
    for names in (["a", "b", "c"], ["1", "2", "3"]):
        sorted_x = x.copy()
        sorted_x["colour"] = pd.Categorical(np.array(names)[np.arange(150) % 3], categories=names)
        est = LabelRankingTree(max_depth=4, random_state=0).fit(sorted_x, y, labels=labels)
        save_model(tmp_path / "m.lrm", est)
        loaded = load_model(tmp_path / "m.lrm")
        np.testing.assert_array_equal(loaded.predict(sorted_x), est.predict(sorted_x))
        np.testing.assert_array_equal(loaded.predict(pl.from_pandas(sorted_x)), est.predict(sorted_x))
        np.testing.assert_array_equal(loaded.predict(sorted_x.iloc[::3]), est.predict(sorted_x)[::3])
    text = x.astype({"sl": str})
    text.loc[0, "sl"] = "n/a"
    with pytest.raises(LrankError, match="the frame's column 'sl' must hold numbers"):
        load_model(tmp_path / "m.lrm").predict(text)
