"""Serving patterns: a model used before fork predicts in the forked child (gunicorn's preload),
and threads started per request do not grow the process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_script(code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    # A deadlock fails the test at the timeout instead of hanging the suite.
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_predicts_with_the_pools_its_parent_used():
    # The child inherited the parent's thread pools without their threads and waited forever.
    done = run_script(
        """
        import os
        from lrank import LabelRankingRandomForest
        from lrank.datasets import load_iris
        data = load_iris()
        x, y = data.features.to_numpy(), data.rankings
        for jobs in (None, 2):
            est = LabelRankingRandomForest(n_estimators=10, random_state=0, n_jobs=jobs).fit(x, y)
            expected = est.predict(x)
            pid = os.fork()
            if pid == 0:
                same = (est.predict(x) == expected).all()
                refit = LabelRankingRandomForest(n_estimators=10, random_state=0, n_jobs=jobs).fit(x, y)
                os._exit(0 if same and (refit.predict(x) == expected).all() else 3)
            print(jobs, os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["None", "0", "2", "0"]


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs /proc")
def test_a_thread_per_request_does_not_grow_the_process():
    # Each thread that predicted with one thread kept about 7.5 KB for good (15 MB per 2000).
    done = run_script(
        """
        import threading
        from lrank import LabelRankingRandomForest
        from lrank.datasets import load_iris
        data = load_iris()
        x, y = data.features.to_numpy(), data.rankings
        est = LabelRankingRandomForest(n_estimators=5, random_state=0, n_jobs=1).fit(x, y)
        def rss():
            return int(open("/proc/self/statm").read().split()[1]) * 4096
        def requests(k):
            for _ in range(k):
                t = threading.Thread(target=est.predict, args=(x[:3],))
                t.start()
                t.join()
        requests(200)
        before = rss()
        requests(2000)
        print(rss() - before)
        """
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) < 4_000_000
