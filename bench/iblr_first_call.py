"""First and second IBLR predict of a fresh process: lrank against scikit-lr.

Usage (after ``bash bench/setup_env.sh``)::

    bench/.venv313/bin/python bench/iblr_first_call.py [--dataset calhousing] [--fold 0] [--processes 10]
        [--same-process]

``bench/cheng_speed.py`` times one predict per fresh process, the first. This script shows how
much of that is the first call's own cost: for ``--processes`` rounds it starts one fresh process
per learner (alternating lrank and scikit-lr, so both see the same spells of the machine), each of
which waits until it is quiet (``bench/settle.py``), fits on the training part of fold ``--fold``
of cheng_speed's split (``kfold_indices(n, 10, 0)``), as cheng_speed's children do, and times two
predicts of the test part in a row. BLAS runs on one thread and lrank on one thread
(``n_jobs=1``). Prints the medians over the processes and their ratios.

``--same-process`` pairs the two learners in one process instead: each process waits until it
is quiet, then fits and predicts once with each learner in turn (lrank first in odd processes,
scikit-lr first in even ones), and reports the two first predicts and their ratio. The machine's
slow and fast spells last seconds, so both predicts of a process usually fall in the same one:
the per-process ratios vary far less than the times, which shows what part of the speed benches'
spread is the machine's.
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
    est, Y_tr = make(learner, Y[tr])
    with threadpool_limits(limits=1):
        settle()  # as in cheng_speed: quiet, then fit, then predict
        est.fit(X_tr, Y_tr)
        times = []
        for _ in range(2):
            t0 = time.perf_counter()
            est.predict(X_te)
            times.append(time.perf_counter() - t0)
    print(json.dumps(times))


def make(learner: str, Y_tr: np.ndarray):
    """The estimator and training rankings of one learner, as cheng_speed's children make them."""
    if learner == "lrank":
        from lrank import InstanceBasedLabelRanker

        return InstanceBasedLabelRanker(n_neighbors=5, n_jobs=1), np.ascontiguousarray(Y_tr, dtype=np.int32)
    from sklr.neighbors import KNeighborsLabelRanker

    Y_fit = np.asarray(Y_tr, dtype=np.float64)
    Y_fit[Y_fit <= 0] = np.nan  # scikit-lr marks a missing label with NaN
    return KNeighborsLabelRanker(n_neighbors=5), Y_fit


def paired_child(order: str, dataset: str, fold: int) -> None:
    """Both learners in this one process, in the given order (comma-separated): first predicts."""
    from settle import settle
    from threadpoolctl import threadpool_limits

    X, Y = load_kebi(dataset)
    tr, te = kfold_indices(len(X), 10, 0)[fold]
    X_tr, X_te = np.ascontiguousarray(X[tr]), np.ascontiguousarray(X[te])
    learners = {name: make(name, Y[tr]) for name in order.split(",")}
    times = {}
    with threadpool_limits(limits=1):
        settle()
        for name, (est, Y_fit) in learners.items():
            est.fit(X_tr, Y_fit)
            t0 = time.perf_counter()
            est.predict(X_te)
            times[name] = time.perf_counter() - t0
    print(json.dumps(times))


def same_process(args) -> int:
    rows = []
    for p in range(args.processes):
        order = "lrank,sklr" if p % 2 == 0 else "sklr,lrank"
        cmd = [sys.executable, __file__, "--paired-child", order, "--dataset", args.dataset, "--fold", str(args.fold)]
        t = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])
        rows.append((order, t["lrank"], t["sklr"]))
        print(
            f"process {p + 1}/{args.processes} ({order}): lrank {t['lrank'] * 1e3:.2f} ms, "
            f"scikit-lr {t['sklr'] * 1e3:.2f} ms, ratio {t['sklr'] / t['lrank']:.2f}x",
            flush=True,
        )
    print(f"\n{args.dataset}, fold {args.fold}, {args.processes} processes, both learners in each, first predicts:")
    ratios = [s / m for _, m, s in rows]
    q1, q3 = np.percentile(ratios, [25, 75])
    print(
        f"  lrank median {statistics.median(m for _, m, _ in rows) * 1e3:.2f} ms, scikit-lr median "
        f"{statistics.median(s for _, _, s in rows) * 1e3:.2f} ms"
    )
    print(
        f"  per-process ratio: median {statistics.median(ratios):.2f}x, quartiles {q1:.2f}x to {q3:.2f}x, "
        f"range {min(ratios):.2f}x to {max(ratios):.2f}x"
    )
    for order in ("lrank,sklr", "sklr,lrank"):
        r = [s / m for o, m, s in rows if o == order]
        if r:
            print(f"  {order.replace(',', ' first, then ')}: median ratio {statistics.median(r):.2f}x over {len(r)}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="calhousing")
    ap.add_argument("--fold", type=int, default=0)
    ap.add_argument("--processes", type=int, default=10)
    ap.add_argument("--same-process", action="store_true", help="both learners in each process (see above)")
    ap.add_argument("--child", choices=["lrank", "sklr"], help=argparse.SUPPRESS)
    ap.add_argument("--paired-child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child, args.dataset, args.fold)
        return 0
    if args.paired_child:
        paired_child(args.paired_child, args.dataset, args.fold)
        return 0
    if args.same_process:
        return same_process(args)
    runs: dict[str, list[list[float]]] = {"lrank": [], "sklr": []}
    for p in range(args.processes):
        for learner in ("lrank", "sklr") if p % 2 == 0 else ("sklr", "lrank"):
            cmd = [sys.executable, __file__, "--child", learner, "--dataset", args.dataset, "--fold", str(args.fold)]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            runs[learner].append(json.loads(out.strip().splitlines()[-1]))
        print(
            f"process {p + 1}/{args.processes}: lrank {runs['lrank'][-1][0] * 1e3:.2f} ms, "
            f"scikit-lr {runs['sklr'][-1][0] * 1e3:.2f} ms (first predict)",
            flush=True,
        )
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
