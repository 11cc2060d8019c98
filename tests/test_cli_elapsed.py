"""lrank train counts the seconds of its fit on all training data on a terminal: a line that
appears only once the fit has taken a while, keeps counting while the core works, and is cleared."""

from __future__ import annotations

import io
import time

from lrank.cli.elapsed import elapsed_line
from lrank.evaluation.workflow import train_and_evaluate


class Recording(io.StringIO):
    def wait_for(self, text: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.getvalue():
            assert time.monotonic() < deadline, self.getvalue()
            time.sleep(0.01)


def test_a_long_step_shows_its_seconds_and_clears_the_line():
    stream = Recording()
    with elapsed_line("building LRT", stream, after=0.01, every=0.01):
        stream.wait_for("\rbuilding LRT: 0 s")
        stream.wait_for("\rbuilding LRT: 0 s\rbuilding LRT: 0 s")  # it keeps counting
    written = stream.getvalue()
    width = len("building LRT: 0 s")
    assert written.endswith("\r" + " " * width + "\r")


def test_a_quick_step_prints_nothing():
    stream = io.StringIO()
    with elapsed_line("building LRT", stream, after=60.0):
        pass
    assert stream.getvalue() == ""


def test_the_fit_on_all_training_data_is_the_stage_counted():
    stages: list[str] = []

    def stage(what: str):
        stages.append(what)
        return elapsed_line(what, io.StringIO(), after=60.0)

    train_and_evaluate("LRT", "iris", folds=3, stage=stage)
    assert stages == ["building LRT on 150 rows"]
