"""Model files and pickles written by older lrank versions keep loading and predicting the same
(tests/fixtures/v2, v3, v4, v10, v12 and v13: written by lrank with model format versions 2, 3,
4, 10, 12 and 13, see make.py there; v10's ``*_ties`` models use the consensus with ties where the rounding
tolerance of format 11 would move their predictions; v12's ``*_unobserved`` models hold a label no
training ranking holds, which format 13's consensus sets aside and format 12's ties with all)."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest
from lrank.data import read_dataset
from lrank.model_file import load_model

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
X = read_dataset(ROOT / "datasets" / "iris.xarff").feature_matrix()


def _cases() -> list[tuple[str, str, str, list]]:
    """(format directory, fixture, learner name, expected predictions) of every fixture."""
    cases = []
    for version in ("v2", "v3", "v4", "v10", "v12", "v13"):
        for fixture, entry in json.loads((FIXTURES / version / "expected.json").read_text()).items():
            # v2 stores the predictions under the learner's name; v3 names the learner.
            learner, predict = (fixture, entry) if isinstance(entry, list) else (entry["learner"], entry["predict"])
            cases.append((version, fixture, learner, predict))
    return cases


CASES = _cases()
IDS = [f"{v}-{f}" for v, f, _, _ in CASES]


# Learners newer than a format have no fixture of it: the format version each came with.
ADDED_IN = {"Linear": 13}


@pytest.mark.parametrize("version", ["v3", "v4", "v10", "v12", "v13"])
def test_every_learner_has_a_fixture_of_formats_3_4_10_12_and_13(version) -> None:
    from lrank.registry import available_learners

    existing = {name for name in available_learners() if ADDED_IN.get(name, 0) <= int(version[1:])}
    assert {learner for v, _, learner, _ in CASES if v == version} == existing


@pytest.mark.parametrize(("version", "fixture", "learner", "expected"), CASES, ids=IDS)
@pytest.mark.parametrize("suffix", ["lrm", "json"])
def test_old_model_files_load_and_predict_identically(version, fixture, learner, expected, suffix) -> None:
    loaded = load_model(FIXTURES / version / f"{fixture}.{suffix}")
    assert loaded.learner == learner
    np.testing.assert_array_equal(loaded.estimator.predict(X), np.asarray(expected))


@pytest.mark.parametrize(("version", "fixture", "learner", "expected"), CASES, ids=IDS)
def test_old_pickles_load_and_predict_identically(version, fixture, learner, expected) -> None:
    est = pickle.loads((FIXTURES / version / f"{fixture}.pickle").read_bytes())
    np.testing.assert_array_equal(est.predict(X), np.asarray(expected))


@pytest.mark.parametrize(("version", "fixture", "learner", "expected"), CASES, ids=IDS)
def test_old_pickles_have_every_parameter_of_today(version, fixture, learner, expected) -> None:
    """A parameter added since the pickle was written takes the value that behaves as before."""
    est = pickle.loads((FIXTURES / version / f"{fixture}.pickle").read_bytes())
    fresh = type(est)().get_params(deep=False)
    assert set(est.get_params(deep=False)) == set(fresh)
    clone = type(est)(**est.get_params(deep=False))
    assert clone.get_params(deep=False) == est.get_params(deep=False)


@pytest.mark.parametrize("fixture", ["Dummy_bpa", "PLRT_bpa", "Bagging_PLRT_bpa", "IBPLR", "PLRRF_ties"])
def test_format_10_bpa_says_bpa_local_whether_loaded_or_unpickled(fixture) -> None:
    """Format 10's "bpa" recomputed the DANI in each call, today's "bpa-local": a model file and a
    pickle both give the estimator that name, so that a clone refits what was fitted."""
    from sklearn.base import clone

    loaded = load_model(FIXTURES / "v10" / f"{fixture}.lrm").estimator
    unpickled = pickle.loads((FIXTURES / "v10" / f"{fixture}.pickle").read_bytes())
    for est in (loaded, unpickled):
        values = set(est.get_params(deep=True).values())
        assert "bpa-local" in values and "bpa" not in values, fixture
        assert json.loads(clone(est)._params_json(0)) == json.loads(clone(loaded)._params_json(0))
