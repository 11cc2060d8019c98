"""The bundled data sets datasets/iris.xarff and datasets/wine.xarff."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from lrank.data import read_arff

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT / "datasets"


@pytest.mark.parametrize(
    ("name", "rows", "features", "labels"),
    [
        ("iris", 150, 4, ("setosa", "versicolor", "virginica")),
        ("wine", 178, 13, ("class_0", "class_1", "class_2")),
    ],
)
def test_bundled_dataset_loads(name, rows, features, labels):
    ds = read_arff(DATASETS / f"{name}.xarff")
    assert ds.relation == name
    assert ds.n_rows == rows
    assert ds.n_features == features
    assert ds.labels == labels
    X = ds.feature_matrix()
    assert X.shape == (rows, features)
    assert not np.isnan(X).any()
    # complete rankings: every row a permutation of 1..3
    assert (np.sort(ds.rankings, axis=1) == np.arange(1, 4)).all()
    assert ds.partial_orders == {}
    assert (ds.weights == 1.0).all()


def test_bundled_iris_matches_sklearn_features():
    sk = pytest.importorskip("sklearn.datasets")
    bunch = sk.load_iris()
    ds = read_arff(DATASETS / "iris.xarff")
    assert ds.feature_names() == list(bunch.feature_names)
    np.testing.assert_array_equal(ds.feature_matrix(), bunch.data)
    # the top-ranked label is the naive Bayes prediction, which is mostly the true class
    top = np.argmin(np.where(ds.rankings > 0, ds.rankings, 99), axis=1)
    assert (top == bunch.target).mean() > 0.9


def test_regeneration_is_byte_identical(tmp_path):
    pytest.importorskip("sklearn")
    # run the generator in this process, so it uses the lrank.data under test
    spec = importlib.util.spec_from_file_location("_lrank_make_datasets", DATASETS / "make_datasets.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(["make_datasets.py", str(tmp_path)])
    for name in ("iris", "wine"):
        assert (tmp_path / f"{name}.xarff").read_bytes() == (DATASETS / f"{name}.xarff").read_bytes(), name


def test_a_data_sets_repr_is_one_short_line():
    """It printed every attribute and the whole feature table: 6,941 characters for wine, in a
    notebook and inside scikit-learn's error messages (a teaching-notebook audit)."""
    from lrank.datasets import load_wine

    text = repr(load_wine())
    assert text.startswith("LabelRankingDataset('wine': 178 rows, 13 attributes, 3 labels (class_0, class_1, class_2)")
    assert len(text) < 200 and "\n" not in text
