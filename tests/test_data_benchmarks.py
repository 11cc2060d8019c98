"""The KEBI benchmark files in ../shared/datasets load with the right shapes.

Skipped (whole module) when the shared data directory is absent.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from lrank.data import read_arff, read_dataset, read_kebi_csv

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
if not (DATA / "xarff").is_dir() or not (DATA / "kebi-csv").is_dir():
    pytest.skip(f"shared benchmark data not found at {DATA}", allow_module_level=True)

# name: (xarff file or None, csv file, rows, features, labels)
SETS = {
    "authorship": ("analcatdata-authorship_dense.xarff", "authorship.csv", 841, 70, 4),
    "bodyfat": ("bodyfat_dense.xarff", "bodyfat.csv", 252, 7, 7),
    "calhousing": ("calhousing_dense.xarff", "calhousing.csv", 20640, 4, 4),
    "cpu-small": ("cpu-small_dense.xarff", "cpu.csv", 8192, 6, 5),
    "elevators": ("elevators_dense.xarff", "elevators.csv", 16599, 9, 9),
    "fried": (None, "fried.csv", 40768, 9, 5),
    "glass": ("glass_dense.xarff", "glass.csv", 214, 9, 6),
    "housing": ("housing_dense.xarff", "housing.csv", 506, 6, 6),
    "iris": ("iris_dense.xarff", "iris.csv", 150, 4, 3),
    "pendigits": ("pendigits_dense.xarff", "pendigits.csv", 10992, 16, 10),
    "segment": ("segment_dense.xarff", "segment.csv", 2310, 18, 7),
    "stock": ("stock_dense.xarff", "stock.csv", 950, 5, 5),
    "vehicle": ("vehicle_dense.xarff", "vehicle.csv", 846, 18, 4),
    "vowel": ("vowel_dense.xarff", "vowel.csv", 528, 10, 11),
    "wine": ("wine_dense.xarff", "wine.csv", 178, 13, 3),
    "wisconsin": ("wisconsin_dense.xarff", "wisconsin.csv", 194, 16, 16),
}
XARFF_SETS = [k for k, v in SETS.items() if v[0] is not None]


def _check_shape(ds, rows, feats, labels):
    assert ds.n_rows == rows
    assert ds.n_features == feats
    assert ds.n_labels == labels
    assert ds.labels == tuple(f"L{j + 1}" for j in range(labels))
    assert ds.rankings.shape == (rows, labels)
    X = ds.feature_matrix()
    assert X.shape == (rows, feats)
    assert not np.isnan(X).any()
    # all rankings complete: every row is a permutation of 1..m
    assert (np.sort(ds.rankings, axis=1) == np.arange(1, labels + 1)).all()
    assert ds.partial_orders == {}
    assert (ds.weights == 1.0).all()


def test_file_inventory():
    assert len(list((DATA / "xarff").glob("*.xarff"))) == 15 == len(XARFF_SETS)
    assert len(list((DATA / "kebi-csv").glob("*.csv"))) == 16 == len(SETS)


@pytest.mark.parametrize("name", XARFF_SETS)
def test_xarff_loads(name):
    xfile, _, rows, feats, labels = SETS[name]
    ds = read_arff(DATA / "xarff" / xfile)
    _check_shape(ds, rows, feats, labels)
    assert ds.relation == xfile.removesuffix(".xarff")


@pytest.mark.parametrize("name", list(SETS))
def test_csv_loads(name):
    _, cfile, rows, feats, labels = SETS[name]
    ds = read_dataset(DATA / "kebi-csv" / cfile)
    _check_shape(ds, rows, feats, labels)
    assert ds.relation == cfile.removesuffix(".csv")


@pytest.mark.parametrize("name", XARFF_SETS)
def test_xarff_and_csv_agree(name):
    xfile, cfile, *_ = SETS[name]
    a = read_arff(DATA / "xarff" / xfile)
    b = read_kebi_csv(DATA / "kebi-csv" / cfile)
    np.testing.assert_array_equal(a.rankings, b.rankings)
    np.testing.assert_array_equal(a.feature_matrix(), b.feature_matrix())
    assert a.feature_names() == b.feature_names()
