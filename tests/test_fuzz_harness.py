"""The fuzz harness (fuzz/): it tells each kind of outcome apart, and a short campaign over every
target finds nothing but loaded files and clean errors."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fuzz import campaign  # noqa: E402
from fuzz.harness import Worker  # noqa: E402
from fuzz.mutate import mutate_bytes, mutate_json, mutate_text, random_kebi_csv, random_xarff  # noqa: E402


@pytest.mark.parametrize(
    ("what", "outcome"),
    [
        ("clean", "clean error"),
        ("unexpected", "unexpected exception"),
        ("panic", "panic"),
        ("crash", "crash"),
        ("hang", "hang"),
        ("memory", "memory over limit"),
    ],
)
def test_the_harness_tells_the_outcomes_apart(what, outcome):
    worker = Worker(memory_bytes=3 << 30, timeout=20 if what != "hang" else 3)
    try:
        result = worker.run({"target": "selftest", "what": what})
        assert result.outcome == outcome, result
        # The worker is replaced after a crash, hang or memory blow-up, and goes on.
        assert worker.run({"target": "selftest", "what": "clean"}).outcome == "clean error"
    finally:
        worker.close()


def test_the_mutators_are_reproducible_and_change_their_input():
    data = (ROOT / "datasets" / "iris.xarff").read_bytes()
    for mutate in (mutate_bytes, mutate_text):
        a, b = mutate(data, random.Random(7)), mutate(data, random.Random(7))
        assert a == b
    assert sum(mutate_bytes(data, random.Random(k)) != data for k in range(50)) >= 45
    doc = {"a": [1, 2, {"b": "c"}], "d": {"e": 1.5}}
    texts = {mutate_json(doc, random.Random(k)) for k in range(50)}
    assert len(texts) > 20 and all(isinstance(t, str) for t in texts)
    assert any(len(t) > 100_000 for t in (mutate_json(doc, random.Random(k)) for k in range(400)))  # deep nesting
    assert random_xarff(random.Random(1)).startswith(b"@relation")
    assert b"L1" in random_kebi_csv(random.Random(1)).split(b"\n")[0]


def test_a_short_campaign_over_every_target_finds_nothing(tmp_path):
    out = tmp_path / "counts.json"
    status = campaign.main(
        [
            *("--readers", "60", "--models", "30", "--stores", "8", "--estimators", "40", "--clis", "8"),
            *("--findings", str(tmp_path / "findings"), "--out", str(out), "--seed", "3"),
        ]
    )
    summary = json.loads(out.read_text())
    bad = {k: {o: n for o, n in row.items() if o not in campaign.GOOD and n} for k, row in summary["counts"].items()}
    assert status == 0 and not any(bad.values()), (bad, list((tmp_path / "findings").iterdir()))
    assert sum(summary["counts"]["reader"].values()) == 60
    assert summary["counts"]["reader"]["loaded"] > 0 and summary["counts"]["model"]["loaded"] > 0
