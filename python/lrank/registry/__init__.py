"""The learner registry: short names (``-W LRRF``) to estimators and their WEKA-style options.

Third-party learners plug in through the entry-point group ``lrank.learners``: each entry point
names a :class:`LearnerSpec` (or a callable returning one), for example in ``pyproject.toml``::

    [project.entry-points."lrank.learners"]
    MYLR = "my_package.lrank_plugin:SPEC"
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata

from lrank.errors import LrankError
from lrank.registry.spec import LearnerOption, LearnerOptionError, LearnerSpec, set_learner_lookup

ENTRY_POINT_GROUP = "lrank.learners"


# The modules of lrank's own learners, in the order ``lrank learners`` lists them. Each defines
# its estimator classes and, next to them, their specs as ``LEARNER_SPECS``. They are imported
# when the specs are first asked for, not with this package: they import lrank.registry.spec,
# and so this package, themselves.
BUILTIN_MODULES = (
    "lrank.estimators.forest",
    "lrank.estimators.neighbors",
    "lrank.estimators.tree",
    "lrank.estimators.ensemble",
    "lrank.estimators.labelwise",
    "lrank.estimators.pairwise",
    "lrank.estimators.rpc",
)


@functools.cache
def _builtin_specs() -> tuple[LearnerSpec, ...]:
    specs: list[LearnerSpec] = []
    for module_name in BUILTIN_MODULES:
        specs.extend(importlib.import_module(module_name).LEARNER_SPECS)
    return tuple(specs)


def _entry_point_specs() -> list[LearnerSpec]:
    specs = []
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = ep.load()
            spec = obj() if callable(obj) and not isinstance(obj, LearnerSpec) else obj
        except Exception as exc:  # a broken plug-in must not break lrank itself
            raise LrankError(f"learner plug-in {ep.name!r} ({ep.value}) failed to load: {exc}") from exc
        if not isinstance(spec, LearnerSpec):
            raise LrankError(f"learner plug-in {ep.name!r} ({ep.value}) is not an lrank.registry.LearnerSpec")
        specs.append(spec)
    return specs


def available_learners() -> dict[str, LearnerSpec]:
    """All learners by name: the built-in ones, then the plug-ins (which cannot shadow them)."""
    learners = {s.name: s for s in _builtin_specs()}
    for spec in _entry_point_specs():
        if spec.name in learners:
            raise LrankError(f"learner plug-in {spec.name!r} clashes with a built-in learner of that name")
        learners[spec.name] = spec
    return learners


def get_learner(name: str) -> LearnerSpec:
    learners = available_learners()
    found = learners.get(name) or {k.lower(): v for k, v in learners.items()}.get(name.lower())
    if found is None:
        raise LearnerOptionError(f"unknown learner {name!r}; available: {', '.join(sorted(learners))}")
    return found


set_learner_lookup(get_learner)

__all__ = [
    "ENTRY_POINT_GROUP",
    "LearnerOption",
    "LearnerOptionError",
    "LearnerSpec",
    "available_learners",
    "get_learner",
]
