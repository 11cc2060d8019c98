"""One fit + predict of one learner, in a process of its own (run by bench/ensemble_speed.py).

    python bench/speed_worker.py LEARNER IN.npz OUT.npz

IN.npz holds X_tr, Y_tr (1-based positions, 0 = unranked), X_te, seed, n_trees; OUT.npz gets
the predicted positions, fit and predict seconds (perf_counter) and the peak resident set of
this process (VmHWM). Written for Python 3.7 too: scikit-lr 0.2.0, which has the equal-width
and equal-frequency splitters and a bagging ensemble, only installs there.
"""

import re
import sys
import time

import numpy as np
from settle import settle


def peak_mib():
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return float("nan")


def positions_from_scores(scores, ascending):
    """Rank matrix sorting each row by score (ascending: lower first), ties to the lower label."""
    order = np.argsort(scores if ascending else -scores, axis=1, kind="stable")
    ranks = np.empty(order.shape, dtype=np.int32)
    rows = np.arange(scores.shape[0])[:, None]
    ranks[rows, order] = np.arange(1, scores.shape[1] + 1)
    return ranks


class Labelwise:
    """A scikit-learn regressor used labelwise: regress positions / m, rank by prediction."""

    def __init__(self, regressor):
        self.regressor = regressor

    def fit(self, X, Y):
        self.m = Y.shape[1]
        self.regressor.fit(X, Y / float(self.m))
        return self

    def predict(self, X):
        return positions_from_scores(self.regressor.predict(X), ascending=True)


def build(name, seed, n_trees):
    """The estimator for a learner name, and how it wants Y ("int" or "nan")."""
    match = re.search(r"_j(\d+)$", name)
    jobs = int(match.group(1)) if match else 1
    if name.startswith("bag_") and name.endswith(tuple(f"_lrank_j{j}" for j in (1, 2))):
        from lrank import BaggingLabelRanker, LabelRankingTree

        splitter = {"bag_lrt": "best", "bag_wlrt": "equal_width", "bag_flrt": "equal_frequency"}[
            name.split("_lrank")[0].replace("_full", "")
        ]
        base = LabelRankingTree(splitter=splitter, min_samples_split=2 if "_full_" in name else None)
        return BaggingLabelRanker(base, n_estimators=n_trees, random_state=seed, n_jobs=jobs), "int"
    if name == "bag_lrt_sklr03":
        sys.path.insert(0, __file__.rsplit("/", 1)[0])
        from lrrf_speed import BaggedSklrTrees

        return BaggedSklrTrees(n_estimators=n_trees, max_features=None, random_state=seed), "int"
    if name in ("bag_lrt_sklr02", "bag_wlrt_sklr02", "bag_flrt_sklr02"):
        from sklr.ensemble import BaggingLabelRanker
        from sklr.tree import DecisionTreeLabelRanker

        splitter = {"bag_lrt": "binary", "bag_wlrt": "width", "bag_flrt": "frequency"}[name[: -len("_sklr02")]]
        return BaggingLabelRanker(
            DecisionTreeLabelRanker(splitter=splitter), n_estimators=n_trees, random_state=seed
        ), "int"
    if name.startswith("ibpl_lrank"):
        from lrank import InstanceBasedPlackettLuce

        return InstanceBasedPlackettLuce(n_neighbors=5, random_state=seed, n_jobs=jobs), "int"
    if name.startswith("ibpl_sklr03"):
        from sklr.neighbors import KNeighborsLabelRanker

        return KNeighborsLabelRanker(n_neighbors=5, model="plackett_luce"), "nan"
    if name.startswith("lwrf_lrank"):
        from lrank import LabelwiseRandomForest

        return LabelwiseRandomForest(n_estimators=100, random_state=seed, n_jobs=jobs), "int"
    if name.startswith("lwrf_sklearn"):
        from sklearn.ensemble import RandomForestRegressor

        return Labelwise(
            RandomForestRegressor(n_estimators=100, max_features=1 / 3, random_state=seed, n_jobs=jobs)
        ), "int"
    if name.startswith("lwdt_lrank"):
        from lrank import LabelwiseDecisionTree

        return LabelwiseDecisionTree(random_state=seed, n_jobs=jobs), "int"
    if name == "lwdt_sklearn":
        from sklearn.tree import DecisionTreeRegressor

        return Labelwise(DecisionTreeRegressor(random_state=seed)), "int"
    raise SystemExit(f"speed_worker: unknown learner {name!r}")


def main():
    name, src, dst = sys.argv[1:4]
    data = np.load(src)
    est, y_kind = build(name, int(data["seed"]), int(data["n_trees"]))
    X_tr, X_te = np.ascontiguousarray(data["X_tr"]), np.ascontiguousarray(data["X_te"])
    Y_tr = np.asarray(data["Y_tr"])
    if y_kind == "nan":  # scikit-lr 0.3.0 marks unranked labels with NaN
        Y_tr = Y_tr.astype(np.float64)
        Y_tr[Y_tr <= 0] = np.nan
    else:
        Y_tr = np.ascontiguousarray(Y_tr, dtype=np.int32 if "lrank" in name else np.int64)
    limits = None
    if name.endswith("_1t"):
        # scikit-learn's brute-force neighbour search runs on BLAS, which uses every core.
        from threadpoolctl import threadpool_limits

        limits = threadpool_limits(limits=1)
    settle()  # numpy's BLAS threads spin for a while after import: wait for a quiet machine
    t0 = time.perf_counter()
    est.fit(X_tr, Y_tr)
    t1 = time.perf_counter()
    pred = np.asarray(est.predict(X_te), dtype=np.int32)
    t2 = time.perf_counter()
    if limits is not None:
        limits.unregister()
    np.savez(dst, pred=pred, fit_s=t1 - t0, predict_s=t2 - t1, peak_mib=peak_mib())


if __name__ == "__main__":
    main()
