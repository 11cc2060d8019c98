"""Model files and pickles written by older lrank versions keep loading and predicting the same
(tests/fixtures/v2: written by lrank with model format version 2, see make.py there)."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest
from lrank.data import read_dataset
from lrank.model_file import load_model

ROOT = Path(__file__).resolve().parents[1]
V2 = ROOT / "tests" / "fixtures" / "v2"
EXPECTED = json.loads((V2 / "expected.json").read_text())
X = read_dataset(ROOT / "datasets" / "iris.xarff").feature_matrix()
NAMES = sorted(EXPECTED)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("suffix", ["lrm", "json"])
def test_v2_model_files_load_and_predict_identically(name: str, suffix: str) -> None:
    loaded = load_model(V2 / f"{name}.{suffix}")
    assert loaded.learner == name
    np.testing.assert_array_equal(loaded.estimator.predict(X), np.asarray(EXPECTED[name]))


@pytest.mark.parametrize("name", NAMES)
def test_v2_pickles_load_and_predict_identically(name: str) -> None:
    est = pickle.loads((V2 / f"{name}.pickle").read_bytes())
    np.testing.assert_array_equal(est.predict(X), np.asarray(EXPECTED[name]))
