"""Shared fixtures: small synthetic label-ranking problems and the location of the KEBI data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "datasets"


def make_problem(n: int = 200, m: int = 4, d: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Features uniform in [0, 1]; the ranking sorts labels by a linear utility of the features."""
    rng = np.random.default_rng(seed)
    x = rng.random((n, d))
    w = rng.normal(size=(d, m))
    utility = x @ w
    order = np.argsort(-utility, axis=1, kind="stable")
    y = np.empty((n, m), dtype=np.int32)
    rows = np.arange(n)[:, None]
    y[rows, order] = np.arange(1, m + 1)
    return x, y


@pytest.fixture
def problem() -> tuple[np.ndarray, np.ndarray]:
    return make_problem()


@pytest.fixture
def kebi_dir() -> Path:
    path = SHARED_DATA / "kebi-csv"
    if not path.is_dir():
        pytest.skip(f"shared KEBI data not found at {path}")
    return path
