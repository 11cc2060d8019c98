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


def make_tied_problem(n: int = 120, seed: int = 0, gap: float = 0.8) -> tuple[np.ndarray, np.ndarray]:
    """Four labels ranked by linear utilities; labels 1 and 2 tie whenever their utilities are
    closer than ``gap`` (a bucket order then)."""
    rng = np.random.default_rng(seed)
    x = rng.random((n, 3))
    utility = x @ rng.normal(size=(3, 4))
    utility[:, 2] = np.where(np.abs(utility[:, 1] - utility[:, 2]) < gap, utility[:, 1], utility[:, 2])
    y = np.zeros((n, 4), dtype=np.int32)
    for i in range(n):
        distinct = sorted(set(utility[i].tolist()), reverse=True)
        y[i] = [distinct.index(u) + 1 for u in utility[i]]
    return x, y


def plr_data(name: str) -> tuple[np.ndarray, np.ndarray]:
    """A shared partial-label-ranking set (features, rank matrix with ties); skips when absent."""
    from lrank.data import read_kebi_csv

    path = SHARED_DATA / "plr-csv" / f"{name}.csv"
    if not path.is_file():
        pytest.skip(f"shared partial-label-ranking data not found at {path}")
    ds = read_kebi_csv(path)
    return ds.feature_matrix(), ds.rankings


@pytest.fixture
def problem() -> tuple[np.ndarray, np.ndarray]:
    return make_problem()


@pytest.fixture
def kebi_dir() -> Path:
    path = SHARED_DATA / "kebi-csv"
    if not path.is_dir():
        pytest.skip(f"shared KEBI data not found at {path}")
    return path
