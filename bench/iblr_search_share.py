"""How much of scikit-lr's IBLR prediction is scikit-learn's neighbour search?

Usage (after ``bash bench/setup_env.sh``)::

    bench/.venv313/bin/python bench/iblr_search_share.py [--datasets calhousing] [--folds 10] [--reps 5]

On each fold of ``bench/cheng_speed.py``'s split (same ``kfold_indices(n, folds, 0)``), with BLAS
limited to one thread, times on the test rows:

* ``search``: ``sklearn.neighbors.NearestNeighbors(n_neighbors=5).kneighbors`` (algorithm
  "auto", raw attributes), the search that ``KNeighborsLabelRanker`` runs inside ``predict``;
* ``sklr``: ``sklr.neighbors.KNeighborsLabelRanker(n_neighbors=5).predict``;
* ``lrank``: ``lrank.InstanceBasedLabelRanker(n_neighbors=5, n_jobs=1).predict`` (search and
  aggregation).

Each time is the minimum of ``--reps`` calls in this one warm process (unlike the speed bench's
fresh processes), so it bounds what any implementation of the aggregation could gain: if the
search alone takes most of scikit-lr's time, lrank can be at most (sklr / lrank) faster while
scikit-learn's search sets the peer's pace. Prints the per-dataset sums over the folds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lrrf_speed import kfold_indices, load_kebi


def best_time(call, reps: int) -> float:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default="calhousing")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args(argv)

    from lrank import InstanceBasedLabelRanker
    from sklearn.neighbors import NearestNeighbors
    from sklr.neighbors import KNeighborsLabelRanker
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        for name in [s.strip() for s in args.datasets.split(",") if s.strip()]:
            X, Y = load_kebi(name)
            totals = {"search": 0.0, "sklr": 0.0, "lrank": 0.0}
            method = None
            for train, test in kfold_indices(len(X), args.folds, 0):
                X_tr, X_te = np.ascontiguousarray(X[train]), np.ascontiguousarray(X[test])
                Y_float = Y[train].astype(np.float64)
                Y_float[Y_float <= 0] = np.nan
                search = NearestNeighbors(n_neighbors=5).fit(X_tr)
                method = search._fit_method
                sklr = KNeighborsLabelRanker(n_neighbors=5).fit(X_tr, Y_float)
                mine = InstanceBasedLabelRanker(n_neighbors=5, n_jobs=1).fit(X_tr, Y[train].astype(np.int32))
                totals["search"] += best_time(lambda: search.kneighbors(X_te), args.reps)
                totals["sklr"] += best_time(lambda: sklr.predict(X_te), args.reps)
                totals["lrank"] += best_time(lambda: mine.predict(X_te), args.reps)
            t = {k: v / args.folds * 1e3 for k, v in totals.items()}
            print(
                f"{name} ({args.folds} folds, mean ms per fold, min of {args.reps} calls, 1 thread; "
                f"scikit-learn search: {method}): search {t['search']:.2f}, scikit-lr predict {t['sklr']:.2f} "
                f"(search = {t['search'] / t['sklr']:.0%} of it), lrank predict {t['lrank']:.2f}; "
                f"scikit-lr / lrank {t['sklr'] / t['lrank']:.2f}x, search alone / lrank {t['search'] / t['lrank']:.2f}x"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
