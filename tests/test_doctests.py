"""The examples in the public modules' docstrings run and print what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["lrank.datasets", "lrank.export", "lrank.metrics", "lrank.model_selection"]


@pytest.mark.parametrize("name", MODULES)
def test_the_docstring_examples_run_as_shown(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.attempted > 0, f"{name} holds no example"
    assert result.failed == 0, (
        f"{result.failed} of {result.attempted} examples of {name} fail (run doctest for the diff)"
    )


def test_every_module_with_examples_is_listed():
    import pkgutil

    import lrank

    found = []
    for info in pkgutil.walk_packages(lrank.__path__, "lrank."):
        if info.name.startswith(("lrank._core", "lrank.dask")):
            continue
        spec = importlib.util.find_spec(info.name)
        if spec and spec.origin and spec.origin.endswith(".py"):
            with open(spec.origin, encoding="utf-8") as handle:
                if ">>> " in handle.read():
                    found.append(info.name)
    assert sorted(found) == sorted(MODULES)


def test_every_fitted_attribute_is_documented():
    # What a fit sets (names ending in "_") is either common to every estimator (listed in the
    # reference page) or in the class's own docstring.
    import re
    import warnings
    from pathlib import Path

    import lrank
    from lrank.datasets import load_iris

    page = (Path(__file__).resolve().parents[1] / "docs" / "reference" / "estimators.md").read_text()
    common = set(re.findall(r"`(\w+_)`", page.split("::: ", 1)[0]))
    data = load_iris()
    undocumented = []
    for name in lrank.__all__:
        cls = getattr(lrank, name)
        if not (isinstance(cls, type) and hasattr(cls, "predict") and hasattr(cls, "fit")):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fitted = cls().fit(data)
        own = {k for k in vars(fitted) if k.endswith("_") and not k.startswith("_")} - common
        undocumented += [f"{name}.{k}" for k in sorted(own) if k not in (cls.__doc__ or "")]
    assert {"labels_", "seed_", "model_", "feature_importances_"} <= common
    assert not undocumented, undocumented
