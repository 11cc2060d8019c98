"""The learner registry: WEKA-style options and third-party learners through entry points."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import re
import sys
import types
import warnings

import lrank.estimators.tree
import lrank.registry
import pytest
from click.testing import CliRunner
from lrank import LabelRankingRandomForest
from lrank.cli import main
from lrank.registry import (
    ENTRY_POINT_GROUP,
    LearnerOption,
    LearnerOptionError,
    LearnerPluginWarning,
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


def _install_fake_entry_points(monkeypatch, *points: tuple[str, str]) -> list[int]:
    """Entry points ``(name, value)`` of the group, over a fake plug-in module; returns a list
    that counts the reads of the group."""
    module = types.ModuleType("fake_lrank_plugin")
    module.SPEC = PLUGIN
    module.make_spec = lambda: PLUGIN
    module.NOT_A_SPEC = 42
    module.IMPOSTOR = LearnerSpec("LRRF", _Majority, "impostor")
    module.impostor_lowercase = LearnerSpec("lrrf", _Majority, "impostor")
    module.nameless = LearnerSpec("", _Majority, "no name")
    module.string_option = LearnerSpec("STR", _Majority, "an option that is a string", options=("-k",))
    module.no_factory = LearnerSpec("NOFAC", None, "no factory")
    module.unknown_param = LearnerSpec("UNK", _Majority, "x", options=(LearnerOption("-z", "zzz", "unknown"),))
    module.spaced = LearnerSpec("MY SPACE", _Majority, "a name with a space")
    # options=(LearnerOption(...)) without its comma: crashed every command that lists learners.
    module.one_option = LearnerSpec("ONE", _Majority, "x", options=(LearnerOption("-F", "flip", "flip it", None, "")))
    module.labelled = LearnerSpec("A=B", _Majority, "a name -W reads as a label")
    module.twice = LearnerSpec(
        "TWICE", _Majority, "x", options=(LearnerOption("-F", "flip", "a"), LearnerOption("-F", "flip", "b"))
    )
    module.seedless = LearnerSpec("SEEDLESS", _Majority, "x", seed_param="seed")

    def failing_factory():
        raise RuntimeError("plug-in bug")

    module.failing = failing_factory
    monkeypatch.setitem(sys.modules, "fake_lrank_plugin", module)
    eps = importlib.metadata.EntryPoints(
        [importlib.metadata.EntryPoint(name=n, value=v, group=ENTRY_POINT_GROUP) for n, v in points]
    )
    reads = []
    real = importlib.metadata.entry_points

    def fake(**kw):
        if kw.get("group") == ENTRY_POINT_GROUP:
            reads.append(1)
            return eps
        return real(**kw)

    monkeypatch.setattr(importlib.metadata, "entry_points", fake)
    return reads


def _install_fake_entry_point(monkeypatch, value: str, name: str = "MAJ") -> list[int]:
    return _install_fake_entry_points(monkeypatch, (name, value))


@pytest.fixture(autouse=True)
def _fresh_plugins():
    """The registry reads the entry points once per process: each test starts and ends afresh."""
    lrank.registry._forget_plugins()
    yield
    lrank.registry._forget_plugins()


@pytest.mark.parametrize("value", ["fake_lrank_plugin:SPEC", "fake_lrank_plugin:make_spec"])
def test_third_party_learners_plug_in_through_entry_points(monkeypatch, value):
    _install_fake_entry_point(monkeypatch, value)
    learners = available_learners()
    assert "MAJ" in learners and "LRRF" in learners
    est = get_learner("MAJ").build(["-F"], seed=4)
    assert isinstance(est, _Majority) and est.flip is True and est.random_state == 4


def test_entry_points_are_read_once(monkeypatch):
    reads = _install_fake_entry_point(monkeypatch, "fake_lrank_plugin:SPEC")
    for _ in range(3):
        assert get_learner("MAJ") is PLUGIN
        assert "MAJ" in available_learners()
    get_learner("Bagging").parse_options(["-W", "LRT"])  # a nested learner is looked up too
    assert len(reads) == 1
    lrank.registry._forget_plugins()
    assert get_learner("maj") is PLUGIN and len(reads) == 2


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("fake_lrank_plugin:MISSING", "failed to load: AttributeError"),
        ("no_such_lrank_plugin_module:SPEC", "failed to load: ModuleNotFoundError"),
        ("fake_lrank_plugin:failing", "failed to load: RuntimeError: plug-in bug"),
        # TOML's quotes copied into entry_points.txt, where values go unquoted.
        ('"fake_lrank_plugin:SPEC"', "failed to load: its value must read module:attribute, unquoted"),
        ("fake_lrank_plugin:NOT_A_SPEC", "is not an lrank.registry.LearnerSpec but a int"),
        ("fake_lrank_plugin:nameless", "has no learner name"),
        ("fake_lrank_plugin:IMPOSTOR", "its learner 'LRRF' clashes with a built-in learner of that name"),
        ("fake_lrank_plugin:impostor_lowercase", "its learner 'lrrf' clashes with a built-in learner of that name"),
        ("fake_lrank_plugin:string_option", "its options must be lrank.registry.LearnerOption values, not a str"),
        ("fake_lrank_plugin:no_factory", "its factory is a NoneType, not a callable"),
        ("fake_lrank_plugin:unknown_param", "its option -z sets 'zzz', which _Majority does not take"),
        ("fake_lrank_plugin:spaced", "its learner name 'MY SPACE' holds a space"),
        ("fake_lrank_plugin:one_option", "one option needs a trailing comma: options=(LearnerOption(...),)"),
        ("fake_lrank_plugin:labelled", "its learner name 'A=B' holds '=' or starts with '-'"),
        ("fake_lrank_plugin:twice", "its option flag -F is given twice"),
        ("fake_lrank_plugin:seedless", "its seed_param 'seed' is no parameter of _Majority"),
    ],
)
def test_a_broken_plugin_is_skipped_with_a_warning_naming_it(monkeypatch, value, problem):
    reads = _install_fake_entry_points(monkeypatch, ("BROKEN", value), ("MAJ", "fake_lrank_plugin:SPEC"))
    message = re.escape(f"learner plug-in 'BROKEN' ({value})") + ".*" + re.escape(problem) + ".*skipping it"
    with pytest.warns(LearnerPluginWarning, match=message):
        learners = available_learners()
    # the other plug-in and the built-in learners are all there, and LRRF is lrank's own
    assert "MAJ" in learners and learners["LRRF"].factory is LabelRankingRandomForest
    assert get_learner("lrrf").factory is LabelRankingRandomForest
    assert "BROKEN" not in learners and "lrrf" not in learners
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once: later calls reuse what was read
        assert get_learner("MAJ") is PLUGIN
    assert len(reads) == 1


def test_a_broken_plugin_does_not_break_the_cli(monkeypatch):
    _install_fake_entry_points(monkeypatch, ("BROKEN", "fake_lrank_plugin:failing"), ("MAJ", "fake_lrank_plugin:SPEC"))
    with pytest.warns(LearnerPluginWarning, match="'BROKEN'"):
        result = CliRunner().invoke(main, ["learners"])
    assert result.exit_code == 0, result.output
    assert "LRRF: Label ranking random forest" in result.output
    assert "MAJ: always the Borda consensus" in result.output and "BROKEN" not in result.output
    # a plug-in says where it comes from; lrank's own learners do not
    assert "MAJ: always the Borda consensus\n    a plug-in, from MAJ (unknown version)" in result.output
    assert result.output.count("a plug-in, from") == 1


def test_a_plugin_cannot_take_another_plugins_name(monkeypatch):
    _install_fake_entry_points(monkeypatch, ("MAJ", "fake_lrank_plugin:SPEC"), ("MAJ2", "fake_lrank_plugin:make_spec"))
    with pytest.warns(
        LearnerPluginWarning, match=r"'MAJ2'.*clashes with learner plug-in 'MAJ' \(fake_lrank_plugin:SPEC\)"
    ):
        assert get_learner("MAJ") is PLUGIN


def test_unreadable_entry_points_leave_the_built_in_learners(monkeypatch):
    def broken(**kw):
        raise OSError("bad metadata")

    monkeypatch.setattr(importlib.metadata, "entry_points", broken)
    with pytest.warns(LearnerPluginWarning, match="cannot read the 'lrank.learners' entry points: OSError"):
        assert get_learner("LRRF").factory is LabelRankingRandomForest


def test_a_plugin_may_look_up_learners_while_it_loads(monkeypatch):
    """A plug-in built from a built-in spec at import time sees the built-in learners."""

    def derived():
        return dataclasses.replace(get_learner("LRT"), name="MYLRT", summary="a renamed LRT")

    reads = _install_fake_entry_point(monkeypatch, "fake_lrank_plugin:derived", name="MYLRT")
    sys.modules["fake_lrank_plugin"].derived = derived
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert get_learner("MYLRT").summary == "a renamed LRT"
    assert len(reads) == 1


def test_builtin_learners_come_from_their_estimator_modules():
    """Each learner is defined in one place: its estimator module's LEARNER_SPECS."""
    specs = [s for m in lrank.registry.BUILTIN_MODULES for s in m.LEARNER_SPECS]
    assert [s.name for s in specs] == list(available_learners())
    assert all(available_learners()[s.name] is s for s in specs)
    assert len({s.name.lower() for s in specs}) == len(specs)
    assert {s.name for s in lrank.estimators.tree.LEARNER_SPECS} == {"LRT", "WLRT", "FLRT"}


def test_the_parameters_line_gives_back_what_was_set():
    # -P 33.33333 was dropped from the line once %g's 6 digits no longer read back, and a float
    # max_features of 1.0 (all features) was shown as -K 1 (one feature).
    bagging = get_learner("Bagging")
    est = bagging.build(["-I", "3", "-P", "33.33333"])
    assert "-P 33.33333" in bagging.describe(est.get_params(deep=False))
    lrrf = get_learner("LRRF")
    words = lrrf.describe(lrrf.build(["-K", "1.0"]).get_params(deep=False)).split()
    assert words[words.index("-K") + 1] == "1.0"
    assert lrrf.build(["-K", "1.0"]).get_params()["max_features"] == 1.0
