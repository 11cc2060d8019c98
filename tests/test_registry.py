"""The learner registry: WEKA-style options and third-party learners through entry points."""

from __future__ import annotations

import importlib.metadata
import sys
import types

import pytest
from lrank import LabelRankingRandomForest, LrankError
from lrank.registry import (
    ENTRY_POINT_GROUP,
    LearnerOption,
    LearnerOptionError,
    LearnerSpec,
    available_learners,
    get_learner,
)


def test_lrrf_options_map_to_estimator_parameters():
    spec = get_learner("LRRF")
    params = spec.parse_options(["-I", "100", "-depth", "0", "-K", "sqrt", "-class-mode", "ranking", "-no-bootstrap"])
    assert params == {
        "n_estimators": 100,
        "max_depth": None,
        "max_features": "sqrt",
        "class_mode": "ranking",
        "bootstrap": False,
    }
    assert spec.parse_options(["--n-estimators", "7", "-K", "0.5"]) == {"n_estimators": 7, "max_features": 0.5}
    est = spec.build(["-I", "3"], seed=11, n_jobs=1)
    assert isinstance(est, LabelRankingRandomForest)
    assert (est.n_estimators, est.random_state, est.n_jobs) == (3, 11, 1)


def test_names_are_case_insensitive_and_errors_are_clear():
    assert get_learner("lrrf").name == "LRRF"
    with pytest.raises(LearnerOptionError, match="unknown learner 'nope'; available: .*LRRF"):
        get_learner("nope")
    with pytest.raises(LearnerOptionError, match="bad value 'x' for -class-mode"):
        get_learner("LRRF").parse_options(["-class-mode", "x"])
    with pytest.raises(LearnerOptionError, match="must be >= 0"):
        get_learner("LRRF").parse_options(["-depth", "-2"])


class _Majority:
    """A toy third-party learner."""

    def __init__(self, random_state=None, flip=False):
        self.random_state = random_state
        self.flip = flip

    def get_params(self, deep=True):
        return {"random_state": self.random_state, "flip": self.flip}

    def set_params(self, **p):
        self.__dict__.update(p)
        return self


PLUGIN = LearnerSpec(
    "MAJ", _Majority, "always the Borda consensus", options=(LearnerOption("-F", "flip", "flip it", None, ""),)
)


def _install_fake_entry_point(monkeypatch, value: str, name: str = "MAJ"):
    module = types.ModuleType("fake_lrank_plugin")
    module.SPEC = PLUGIN
    module.make_spec = lambda: PLUGIN
    module.NOT_A_SPEC = 42
    monkeypatch.setitem(sys.modules, "fake_lrank_plugin", module)
    ep = importlib.metadata.EntryPoint(name=name, value=value, group=ENTRY_POINT_GROUP)
    real = importlib.metadata.entry_points

    def fake(**kw):
        if kw.get("group") == ENTRY_POINT_GROUP:
            return importlib.metadata.EntryPoints([ep])
        return real(**kw)

    monkeypatch.setattr(importlib.metadata, "entry_points", fake)


@pytest.mark.parametrize("value", ["fake_lrank_plugin:SPEC", "fake_lrank_plugin:make_spec"])
def test_third_party_learners_plug_in_through_entry_points(monkeypatch, value):
    _install_fake_entry_point(monkeypatch, value)
    learners = available_learners()
    assert "MAJ" in learners and "LRRF" in learners
    est = get_learner("MAJ").build(["-F"], seed=4)
    assert isinstance(est, _Majority) and est.flip is True and est.random_state == 4


def test_broken_plugins_are_reported(monkeypatch):
    _install_fake_entry_point(monkeypatch, "fake_lrank_plugin:NOT_A_SPEC")
    with pytest.raises(LrankError, match="is not an lrank.registry.LearnerSpec"):
        available_learners()
    _install_fake_entry_point(monkeypatch, "fake_lrank_plugin:MISSING")
    with pytest.raises(LrankError, match="failed to load"):
        available_learners()


def test_plugins_cannot_shadow_builtins(monkeypatch):
    clash = LearnerSpec("LRRF", _Majority, "impostor")
    module = types.ModuleType("fake_clash")
    module.SPEC = clash
    monkeypatch.setitem(sys.modules, "fake_clash", module)
    ep = importlib.metadata.EntryPoint(name="LRRF", value="fake_clash:SPEC", group=ENTRY_POINT_GROUP)
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **kw: importlib.metadata.EntryPoints([ep]))
    with pytest.raises(LrankError, match="clashes with a built-in"):
        available_learners()
