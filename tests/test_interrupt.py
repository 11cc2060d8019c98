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
estimator = {learner}(n_estimators=100000, random_state=0, n_jobs={n_jobs}{extra})
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
    ("learner", "n_jobs", "polars", "extra"),
    [
        ("LabelwiseRandomForest", 1, "", ""),
        ("LabelRankingRandomForest", 2, "", ""),
        ("LabelwiseRandomForest", 1, "import polars\n", ""),
        # Boosting rounds and bagged members are skipped too, not only trees cut short.
        ("GradientBoostingLabelRanker", 1, "", ", early_stopping=False"),
        ("BaggingLabelRanker", 2, "", ", estimator=__import__('lrank').PartialLabelRankingTree()"),
    ],
)
def test_ctrl_c_stops_a_long_fit(learner, n_jobs, polars, extra):
    names = {"learner": learner, "n_jobs": n_jobs, "polars": polars, "extra": extra}
    lines = run((SETUP + INTERRUPTED_FIT + SMALL_FIT).format(**names))
    assert lines[0] == "interrupted False"
    assert lines[1:] == run((SETUP + SMALL_FIT).format(**names))


# Another thread's fit running when Ctrl-C comes is not cut short: it ends whole, the same as in
# a fresh process, and the main thread's fit is interrupted once it runs alone.
OTHER_THREAD = """
import os, signal, threading
import numpy as np
from lrank import LabelRankingRandomForest, LabelwiseRandomForest

rng = np.random.default_rng(0)
x = rng.random((20000, 3))
y = np.where(x[:, :1] < x[:, 1:2], [1, 2, 3], [3, 1, 2]).astype(np.int32)
done = dict()

def background():
    forest = LabelRankingRandomForest(n_estimators=400, max_depth=None, random_state=3, n_jobs=1).fit(x, y)
    done["ranks"] = forest.predict(x[:200]).tolist()

if {interrupt}:
    worker = threading.Thread(target=background)
    worker.start()
    threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
    try:
        LabelwiseRandomForest(n_estimators=100000, n_jobs=1).fit(x, y)
        print("fitted")
    except KeyboardInterrupt:
        print("interrupted", worker.is_alive())
    worker.join()
else:
    background()
print(done["ranks"])
"""


def test_ctrl_c_leaves_another_threads_fit_whole():
    lines = run(OTHER_THREAD.format(interrupt=True))
    assert lines[0] == "interrupted False"
    assert lines[1:] == run(OTHER_THREAD.format(interrupt=False))


# A handler of the user's own decides what Ctrl-C does: the fit is not cut short.
OWN_HANDLER = (
    SETUP
    + """
hits = []
signal.signal(signal.SIGINT, lambda number, frame: hits.append(number))
threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
estimator = {learner}(n_estimators=300, random_state=0, n_jobs=1).fit(x, y)
print(hits, len(estimator.model_.summary_json()) > 0)
"""
    + SMALL_FIT
)


def test_a_users_own_sigint_handler_is_left_to_decide():
    names = {"learner": "LabelwiseRandomForest", "n_jobs": 1, "polars": "", "extra": ""}
    lines = run(OWN_HANDLER.format(**names))
    assert lines[0] == "[2] True"


def test_ctrl_c_stops_an_experiment_run_with_worker_processes(tmp_path):
    import signal
    import time

    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.random((20000, 3))
    head = "@relation big\n@attribute a numeric\n@attribute b numeric\n@attribute c numeric\n"
    rows = "".join(f"{a:.5f},{b:.5f},{c:.5f},{'x>y>z' if a < b else 'z>x>y'}\n" for a, b, c in x)
    data = tmp_path / "big.xarff"
    data.write_text(head + "@attribute L RANKING {x,y,z}\n@data\n" + rows)
    # Each cell (100 000 trees) takes many minutes; the workers ignore SIGINT, and the parent,
    # waiting for their results, must still raise it and stop them.
    args = ["experiment", "run", str(data), "-W", "LWRF -I 100000", "-x", "3", "--repeats", "1", "-j", "1"]
    args += ["--workers", "2", "-o", str(tmp_path / "store.parquet"), "--no-report"]
    process = subprocess.Popen([sys.executable, "-m", "lrank", *args], stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(5)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)
    finally:
        process.kill()  # a run that did not stop leaves no processes behind
    assert process.returncode == 130 and "interrupted: 0 cells are stored" in err


# A prediction of 2M rows takes 15 s or more; SIGINT comes after half a second. IBLR heard it
# only after its last row, LWRF (one block of every row on one thread) and AdaBoost (member
# after member) likewise (a concurrency audit): they look between chunks, trees and members.
INTERRUPTED_PREDICT = """
import os, signal, threading, time
import numpy as np
import lrank

rng = np.random.default_rng(0)
x = rng.random((2000, 3))
y = np.where(x[:, :1] < x[:, 1:2], [1, 2, 3], [3, 1, 2]).astype(np.int32)
estimator = {make}.fit(x, y)
many = rng.random((2_000_000, 3))
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
start = time.monotonic()
try:
    estimator.predict(many)
    print("predicted")
except KeyboardInterrupt:
    print("interrupted", time.monotonic() - start < 4.0)
print(estimator.predict(x[:3]).tolist())
"""


@pytest.mark.parametrize(
    "make",
    [
        "lrank.InstanceBasedLabelRanker(n_neighbors=50, n_jobs=1)",
        "lrank.LabelwiseRandomForest(n_estimators=300, random_state=0, n_jobs=1)",
        "lrank.AdaBoostLabelRanker(lrank.LabelRankingTree(), n_estimators=100, random_state=0, n_jobs=1)",
    ],
)
def test_ctrl_c_stops_a_long_prediction(make):
    lines = run(INTERRUPTED_PREDICT.format(make=make))
    assert lines[0] == "interrupted True", lines
    assert len(lines) == 2  # and the estimator predicts again
