"""Ctrl-C during a long fit stops it in moments (the core polls a stop request that lrank's
SIGINT handler makes before Python's own runs), raises KeyboardInterrupt as Python always does,
and leaves the process able to fit again. Before, Ctrl-C waited for the fit to end."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the SIGINT handler is Linux-only")

SETUP = """
import os, signal, threading
{polars}import numpy as np
from lrank import {learner}

rng = np.random.default_rng(0)
x = rng.random((20000, 3))
y = np.where(x[:, :1] < 0.5, [1, 2, 3], [3, 1, 2]).astype(np.int32)
"""

# A fit of 100 000 trees on 20 000 rows takes many minutes; SIGINT comes after half a second.
INTERRUPTED_FIT = """
estimator = {learner}(n_estimators=100000, random_state=0, n_jobs={n_jobs})
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    estimator.fit(x, y)
    print("fitted")
except KeyboardInterrupt:
    print("interrupted", hasattr(estimator, "model_"))
"""

# After it the request is withdrawn: the next fit is whole, the same as in a fresh process.
SMALL_FIT = """
small = {learner}(n_estimators=3, random_state=0, n_jobs={n_jobs}).fit(x[:300], y[:300])
print(small.predict(x[:5]).tolist())
"""


def run(code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


# polars puts a SIGINT handler of its own (with SA_SIGINFO) in front of Python's when imported.
@pytest.mark.parametrize(
    ("learner", "n_jobs", "polars"),
    [
        ("LabelwiseRandomForest", 1, ""),
        ("LabelRankingRandomForest", 2, ""),
        ("LabelwiseRandomForest", 1, "import polars\n"),
    ],
)
def test_ctrl_c_stops_a_long_fit(learner, n_jobs, polars):
    names = {"learner": learner, "n_jobs": n_jobs, "polars": polars}
    lines = run((SETUP + INTERRUPTED_FIT + SMALL_FIT).format(**names))
    assert lines[0] == "interrupted False"
    assert lines[1:] == run((SETUP + SMALL_FIT).format(**names))
