"""mypy keeps the experiment workflow's modules type-clean (imports are followed silently, so
only these modules' own errors count)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECKED = [
    "python/lrank/experiment",
    "python/lrank/stats",
    "python/lrank/cli/experiment.py",
    "python/lrank/data/parquet.py",
    "python/lrank/evaluation/cross_validation.py",
]


def test_experiment_modules_are_type_clean(tmp_path):
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e '.[test]')")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--follow-imports=silent", "--cache-dir", str(tmp_path / "cache"),
         *[str(ROOT / p) for p in CHECKED]],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
