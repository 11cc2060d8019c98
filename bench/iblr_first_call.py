"""First and second IBLR predict of a fresh process: lrank against scikit-lr.

Usage (after ``bash bench/setup_env.sh``)::

    bench/.venv313/bin/python bench/iblr_first_call.py [--dataset calhousing] [--fold 0] [--processes 10]

``bench/cheng_speed.py`` times one predict per fresh process, the first. This script shows how
much of that is the first call's own cost: for ``--processes`` rounds it starts one fresh process
per learner (alternating lrank and scikit-lr, so both see the same spells of the machine), each of
which waits until it is quiet (``bench/settle.py``), fits on the training part of fold ``--fold``
of cheng_speed's split (``kfold_indices(n, 10, 0)``), as cheng_speed's children do, and times two
predicts of the test part in a row. BLAS runs on one thread and lrank on one thread
(``n_jobs=1``). Prints the medians over the processes and their ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from lrrf_speed import kfold_indices, load_kebi  # noqa: E402


def child(learner: str, dataset: str, fold: int) -> None:
    from settle import settle
    from threadpoolctl import threadpool_limits

    X, Y = load_kebi(dataset)
    tr, te = kfold_indices(len(X), 10, 0)[fold]
    X_tr, X_te = np.ascontiguousarray(X[tr]), np.ascontiguousarray(X[te])
    if learner == "lrank":
        from lrank import InstanceBasedLabelRanker

        est = InstanceBasedLabelRanker(n_neighbors=5, n_jobs=1)
        Y_tr = np.ascontiguousarray(Y[tr], dtype=np.int32)
    else:
        from sklr.neighbors import KNeighborsLabelRanker

        est = KNeighborsLabelRanker(n_neighbors=5)
        Y_tr = np.asarray(Y[tr], dtype=np.float64)
        Y_tr[Y_tr <= 0] = np.nan  # scikit-lr marks a missing label with NaN
    with threadpool_limits(limits=1):
        settle()  # as in cheng_speed: quiet, then fit, then predict
        est.fit(X_tr, Y_tr)
        times = []
        for _ in range(2):
            t0 = time.perf_counter()
            est.predict(X_te)
            times.append(time.perf_counter() - t0)
    print(json.dumps(times))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="calhousing")
    ap.add_argument("--fold", type=int, default=0)
    ap.add_argument("--processes", type=int, default=10)
    ap.add_argument("--child", choices=["lrank", "sklr"], help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child, args.dataset, args.fold)
        return 0
    runs: dict[str, list[list[float]]] = {"lrank": [], "sklr": []}
    for p in range(args.processes):
        for learner in ("lrank", "sklr") if p % 2 == 0 else ("sklr", "lrank"):
            cmd = [sys.executable, __file__, "--child", learner, "--dataset", args.dataset, "--fold", str(args.fold)]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            runs[learner].append(json.loads(out.strip().splitlines()[-1]))
        print(f"process {p + 1}/{args.processes}: lrank {runs['lrank'][-1][0] * 1e3:.2f} ms, "
              f"scikit-lr {runs['sklr'][-1][0] * 1e3:.2f} ms (first predict)", flush=True)
    print(f"\n{args.dataset}, fold {args.fold}, {args.processes} fresh processes each, medians:")
    for call, name in ((0, "first predict"), (1, "second predict")):
        mine = statistics.median(r[call] for r in runs["lrank"])
        peer = statistics.median(r[call] for r in runs["sklr"])
        print(f"  {name:<15} lrank {mine * 1e3:7.2f} ms   scikit-lr {peer * 1e3:7.2f} ms   ratio {peer / mine:.2f}x")
    for name, r in runs.items():
        first = statistics.median(x[0] for x in r)
        second = statistics.median(x[1] for x in r)
        print(f"  {name}: the first call takes {100 * (first / second - 1):+.0f}% over the second")
    return 0


if __name__ == "__main__":
    sys.exit(main())
