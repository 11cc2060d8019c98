"""A learner plug-in for the experiment tests: a small seeded forest whose fit can sleep (to
interrupt a run mid-way), log each call (to count fits) or fail on large training sets."""

from __future__ import annotations

import os
import time
from typing import Any

from lrank import InvalidInputError, LabelRankingRandomForest
from lrank.registry import LearnerOption, LearnerSpec


class SlowRanker:
    def __init__(
        self, delay: float = 0.0, fail_above: int = 0, random_state: int | None = None, n_jobs: int | None = None
    ) -> None:
        self.delay = delay
        self.fail_above = fail_above
        self.random_state = random_state
        self.n_jobs = n_jobs

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {
            "delay": self.delay,
            "fail_above": self.fail_above,
            "random_state": self.random_state,
            "n_jobs": self.n_jobs,
        }

    def set_params(self, **params: Any) -> SlowRanker:
        for key, value in params.items():
            setattr(self, key, value)
        return self

    def fit(self, x, y, sample_weight=None):
        log = os.environ.get("LRANK_TEST_FIT_LOG")
        if log:
            with open(log, "a") as fh:
                fh.write(f"{os.getpid()}\n")
        if self.fail_above and x.shape[0] > self.fail_above:
            raise InvalidInputError(f"refusing {x.shape[0]} training rows")
        time.sleep(self.delay)
        self.forest_ = LabelRankingRandomForest(n_estimators=5, random_state=self.random_state, n_jobs=1)
        self.forest_.fit(x, y, sample_weight=sample_weight)
        return self

    def predict(self, x):
        return self.forest_.predict(x)


SPEC = LearnerSpec(
    name="SLOW",
    factory=SlowRanker,
    summary="test learner: a 5-tree forest whose fit sleeps, logs and can fail",
    options=(
        LearnerOption("-delay", "delay", "seconds to sleep in fit", float, "S"),
        LearnerOption("-fail-above", "fail_above", "fail when fitting more rows than this"),
    ),
)


def install_entry_point(directory: str) -> None:
    """Make SPEC an ``lrank.learners`` entry point for processes with ``directory`` on their path."""
    info = os.path.join(directory, "lrank_test_plugin-0.0.dist-info")
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w") as fh:
        fh.write("Metadata-Version: 2.1\nName: lrank-test-plugin\nVersion: 0.0\n")
    with open(os.path.join(info, "entry_points.txt"), "w") as fh:
        fh.write("[lrank.learners]\nSLOW = experiment_plugin:SPEC\n")
