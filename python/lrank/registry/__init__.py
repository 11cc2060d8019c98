"""The learner registry: short names (``-W LRRF``) to estimators and their WEKA-style options.

Third-party learners plug in through the entry-point group ``lrank.learners``: each entry point
names a :class:`LearnerSpec` (or a callable returning one), for example in ``pyproject.toml``::

    [project.entry-points."lrank.learners"]
    mylr = "my_package.lrank_plugin:SPEC"

The learner is called by its spec's ``name``, not by the entry point's. The estimator's contract
(complete 1-based predictions, ``sample_weight``, seeds) is in the guide's "Writing a learner
plug-in" page.
"""

from __future__ import annotations

import importlib.metadata
import inspect
import re
import threading
import warnings
from collections.abc import Sequence

from lrank.estimators import (
    boosting,
    dummy,
    ensemble,
    forest,
    gradient_boosting,
    labelwise,
    labelwise_plr,
    linear,
    neighbors,
    neighbors_plr,
    pairwise,
    pairwise_plr,
    plr_tree,
    rpc,
    tree,
)
from lrank.learner_spec import LearnerOption, LearnerOptionError, LearnerSpec, set_learner_lookup

ENTRY_POINT_GROUP = "lrank.learners"


# lrank's own learners, module by module in the order ``lrank learners`` lists them. Each module
# defines its estimator classes and, next to them, their specs as ``LEARNER_SPECS``.
BUILTIN_MODULES = (
    forest,
    neighbors,
    tree,
    ensemble,
    boosting,
    gradient_boosting,
    labelwise,
    pairwise,
    rpc,
    linear,
    dummy,
    plr_tree,
    pairwise_plr,
    neighbors_plr,
    labelwise_plr,
)
_BUILTIN_SPECS: tuple[LearnerSpec, ...] = tuple(spec for module in BUILTIN_MODULES for spec in module.LEARNER_SPECS)


class LearnerPluginWarning(UserWarning):
    """A learner plug-in could not be used and was skipped (the message names its entry point)."""


# The plug-ins' specs once the entry points are read (None before), and a guard for a plug-in
# that asks for learners while it loads (it sees the built-in ones and the plug-ins before it).
_plugins: tuple[LearnerSpec, ...] | None = None
_plugins_loading: list[LearnerSpec] | None = None
# Which installed distribution gave each loaded plug-in spec ("name version"), by spec identity.
_plugin_sources: dict[int, str] = {}
_plugins_lock = threading.RLock()


def _entry_point_specs() -> list[LearnerSpec]:
    """The plug-ins' specs, read from the entry points once per process."""
    global _plugins, _plugins_loading
    with _plugins_lock:
        if _plugins is None:
            if _plugins_loading is not None:
                return list(_plugins_loading)
            _plugins_loading = []
            try:
                _load_plugins(_plugins_loading)
                _plugins = tuple(_plugins_loading)
            finally:
                _plugins_loading = None
        return list(_plugins)


def _forget_plugins() -> None:
    """Read the entry points again on the next call (for tests)."""
    global _plugins
    with _plugins_lock:
        _plugins = None


def _spec_problem(spec: LearnerSpec) -> str | None:
    """What makes a plug-in's spec unusable (checked when it is loaded, so that one broken spec
    cannot break `lrank learners` for every learner), or None."""
    if any(c.isspace() for c in spec.name):
        return f"its learner name {spec.name!r} holds a space, which -W NAME OPTIONS cannot name"
    if "=" in spec.name or spec.name.startswith("-"):
        return f"its learner name {spec.name!r} holds '=' or starts with '-', which -W reads as a label or an option"
    if not callable(spec.factory):
        return f"its factory is a {type(spec.factory).__name__}, not a callable that builds the estimator"
    if not isinstance(spec.options, (tuple, list)):
        # options=(LearnerOption(...)) without the comma is the option itself, not a tuple of one.
        return (
            f"its options must be a tuple of lrank.registry.LearnerOption values, not a {type(spec.options).__name__} "
            "(one option needs a trailing comma: options=(LearnerOption(...),))"
        )
    for opt in spec.options:
        if not isinstance(opt, LearnerOption):
            return f"its options must be lrank.registry.LearnerOption values, not a {type(opt).__name__} ({opt!r})"
        if not (isinstance(opt.flag, str) and opt.flag.startswith("-") and isinstance(opt.param, str)):
            return f"its option {opt.flag!r} needs a flag starting with '-' and a parameter name"
    flags = [opt.flag for opt in spec.options]
    twice = next((flag for flag in flags if flags.count(flag) > 1), None)
    if twice is not None:
        return f"its option flag {twice} is given twice"
    try:
        takes = inspect.signature(spec.factory).parameters
    except (TypeError, ValueError):  # no signature to read: building tells
        return None
    if not any(p.kind == p.VAR_KEYWORD for p in takes.values()):
        factory = getattr(spec.factory, "__name__", "its factory")
        for opt in spec.options:
            if "__" not in opt.param and opt.param not in takes:
                return f"its option {opt.flag} sets {opt.param!r}, which {factory} does not take"
        # A name given (not the defaults, set only where the factory takes them) that the
        # factory lacks: -s and -j set nothing, and a run said "seed 7" that no seed reached.
        for what, param, default in (
            ("seed_param", spec.seed_param, "random_state"),
            ("jobs_param", spec.jobs_param, "n_jobs"),
        ):
            if param is not None and param != default and param not in takes:
                return f"its {what} {param!r} is no parameter of {factory} (None when it has none)"
    return None


def _load_plugins(specs: list[LearnerSpec]) -> None:
    # A broken plug-in must break neither lrank nor the other learners: it is skipped, with a
    # warning naming its entry point. Names are compared as get_learner finds them, ignoring case.
    owners = {spec.name.lower(): "a built-in learner" for spec in _BUILTIN_SPECS}
    try:
        entry_points = list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))
    except Exception as exc:  # unreadable package metadata
        _skip(f"cannot read the {ENTRY_POINT_GROUP!r} entry points: {type(exc).__name__}: {exc}", "them")
        return
    for ep in entry_points:
        where = f"learner plug-in {ep.name!r} ({ep.value})"
        if not re.fullmatch(r"[\w.]+\s*(:\s*[\w.]+\s*)?(\[[^\]]*\]\s*)?", ep.value):
            # importlib's own complaint is "'NoneType' object has no attribute 'group'".
            _skip(f"{where} failed to load: its value must read module:attribute, unquoted")
            continue
        try:
            obj = ep.load()
            spec = obj() if callable(obj) and not isinstance(obj, LearnerSpec) else obj
        except Exception as exc:
            _skip(f"{where} failed to load: {type(exc).__name__}: {exc}")
            continue
        if not isinstance(spec, LearnerSpec):
            _skip(f"{where} is not an lrank.registry.LearnerSpec but a {type(spec).__name__}")
            continue
        if not isinstance(spec.name, str) or not spec.name:
            _skip(f"{where} has no learner name")
            continue
        problem = _spec_problem(spec)
        if problem is not None:
            _skip(f"{where}: {problem}")
            continue
        owner = owners.get(spec.name.lower())
        if owner is not None:
            _skip(f"{where}: its learner {spec.name!r} clashes with {owner} of that name")
            continue
        owners[spec.name.lower()] = where
        specs.append(spec)
        dist = getattr(ep, "dist", None)
        if dist is not None:
            _plugin_sources[id(spec)] = f"{dist.name} {dist.version}"


def _skip(message: str, what: str = "it") -> None:
    warnings.warn(f"{message}; skipping {what}", LearnerPluginWarning, stacklevel=2)


def is_builtin(spec: LearnerSpec) -> bool:
    """Whether ``spec`` is one of lrank's own learners (not a plug-in's)."""
    return any(spec is own for own in _BUILTIN_SPECS)


def plugin_source(spec: LearnerSpec) -> str:
    """The installed distribution that gave a plug-in's spec, as "name version"."""
    return _plugin_sources.get(id(spec), f"{spec.name} (unknown version)")


def plugin_versions(name: str, options: Sequence[str] = ()) -> str:
    """The plug-ins a learner setting uses (itself, or learners nested in it), each as its
    distribution's "name version" ("name (unknown version)" when no installed distribution
    gave it), joined by "; "; empty for lrank's own learners. Experiments record it, so that a
    store resumed after a plug-in upgrade says it mixes versions."""
    found: list[str] = []
    for spec in get_learner(name).learners_used(options):
        if not is_builtin(spec):
            source = plugin_source(spec)
            if source not in found:
                found.append(source)
    return "; ".join(found)


def available_learners() -> dict[str, LearnerSpec]:
    """All learners by name: the built-in ones, then the plug-ins (which cannot shadow them).

    The plug-ins' entry points are read on the first call only; a plug-in that fails to load,
    is no :class:`LearnerSpec` or takes a name already taken is skipped with a
    :class:`LearnerPluginWarning`.
    """
    learners = {s.name: s for s in _BUILTIN_SPECS}
    for spec in _entry_point_specs():
        learners.setdefault(spec.name, spec)
    return learners


def get_learner(name: str) -> LearnerSpec:
    learners = available_learners()
    found = learners.get(name) or {k.lower(): v for k, v in learners.items()}.get(name.lower())
    if found is None:
        first, _, rest = name.strip().partition(" ")
        if rest and (first in learners or first.lower() in {k.lower() for k in learners}):
            # The experiment's -W "LRRF -I 10" given to lrank train, which takes options after --.
            raise LearnerOptionError(
                f"unknown learner {name!r}: a learner's options go after --, as in lrank train ... -W {first} -- {rest}"
            )
        by_class = sorted(k for k, v in learners.items() if getattr(v.factory, "__name__", None) == name.strip())
        if by_class:  # an estimator's class name, where the registry's learner name is asked for
            raise LearnerOptionError(
                f"unknown learner {name!r}: the learner of that estimator is {' or '.join(by_class)}"
            )
        raise LearnerOptionError(f"unknown learner {name!r}; available: {', '.join(sorted(learners))}")
    return found


set_learner_lookup(get_learner)

__all__ = [
    "ENTRY_POINT_GROUP",
    "LearnerOption",
    "LearnerOptionError",
    "LearnerPluginWarning",
    "LearnerSpec",
    "available_learners",
    "get_learner",
    "is_builtin",
    "plugin_source",
    "plugin_versions",
]
