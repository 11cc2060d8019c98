"""Bit-identical models and predictions: every learner, several settings, complete and incomplete
rankings and nominal features, fingerprinted against tests/golden/golden.json (recorded before the
registry redesign; re-record only for an intended change, with tests/golden/record.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

from cases import all_cases, run_case

GOLDEN = json.loads((Path(__file__).resolve().parent / "golden" / "golden.json").read_text())


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(("problem", "learner"), all_cases(), ids=[f"{p}/{e}" for p, e in all_cases()])
def test_model_and_predictions_are_unchanged(problem: str, learner: str) -> None:
    key = f"{problem}/{learner}"
    expected = GOLDEN.get(key)
    assert expected is not None, f"no golden fingerprint for {key}: record it with tests/golden/record.py"
    assert run_case(problem, learner) == expected


def test_every_golden_case_is_still_run() -> None:
    assert sorted(GOLDEN) == sorted(f"{p}/{e}" for p, e in all_cases())
