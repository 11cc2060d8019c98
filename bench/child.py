"""The child half of the harness: one learner's fit and predict in a process of its own.

    python -m bench.child IN.npz OUT.npz        (started by bench.harness.run_child)

IN.npz holds ``X_tr``, ``Y_tr`` (1-based label positions, 0 = label not ranked), ``X_te`` and
``spec``, a JSON string ``{"learner": NAME, "params": {...}}``. The child builds the learner
(``build``), converts Y to what that library takes, waits until the process is quiet
(``settle``), then times ``fit``, ``predict`` and a second ``predict`` of the same rows with
``time.perf_counter``. OUT.npz gets the first predict's positions (``pred``) and ``result``, a
JSON string with the three times, the peak resident set (VmHWM) and the resident set just
before ``fit`` (after imports and data), the warnings raised, and learner extras.

Every learner of every speed suite is built here, so lrank and its peers go through the same
code. This module runs under Python 3.7 too (scikit-lr 0.2.0, whose equal-width and
equal-frequency splitters and bagging ensemble are peers, installs only there): it imports
nothing but the standard library, numpy and the learner's own library.
"""

import json
import sys
import time
import warnings

import numpy as np

# Learner names: METHOD[_full]_IMPLEMENTATION[_jN | _1t]
#   IMPLEMENTATION: lrank; sklr (scikit-lr 0.3.0, also written sklr03); sklr02 (scikit-lr 0.2.0,
#   Python 3.7); sklearn (scikit-learn used labelwise).
#   _jN: N threads for lrank and scikit-learn. _1t: BLAS limited to one thread (threadpoolctl).
#   _full: trees grown like scikit-lr's, down to nodes of fewer than 2 rows.
LEARNERS = (
    "lrrf_sklr",
    "lrrf_lrank_j1",
    "lrrf_lrank_j2",
    "lrt_sklr",
    "lrt_lrank_j1",
    "lrt_lrank_j2",
    "lrt_lrank_full_j1",
    "iblr_sklr",
    "iblr_sklr_1t",
    "iblr_sklr_dudani",
    "iblr_lrank_j1",
    "iblr_lrank_j2",
    "bag_lrt_sklr03",
    "bag_wlrt_sklr02",
    "bag_flrt_sklr02",
    "ibpl_sklr03",
    "ibpl_sklr03_1t",
    "ibpl_lrank_j1",
    "ibpl_lrank_j2",
    "lwrf_sklearn_j1",
    "lwrf_sklearn_j2",
    "lwrf_lrank_j1",
    "lwrf_lrank_j2",
    "lwdt_sklearn",
    "lwdt_lrank_j1",
    "gblr_sklearn_j1",
    "gblr_sklearn_j2",
    "gblr_lrank_j1",
    "gblr_lrank_j2",
    "gblrpl_lrank_j1",
    "gblrpl_lrank_j2",
    # partial label ranking (rankings with ties): bench.plr
    "plrt_sklr",
    "plrt_lrank_j1",
    "plrt_lrank_j2",
    "plrbag_sklr",
    "plrbag_lrank_j1",
    "plrbag_lrank_j2",
    "plrrf_sklr",
    "plrrf_lrank_j1",
    "plrrf_lrank_j2",
    "ibplr_sklr",
    "ibplr_sklr_1t",
    "ibplr_lrank_j1",
    "ibplr_lrank_j2",
) + tuple(
    f"bag_{tree}{full}_lrank_j{jobs}" for tree in ("lrt", "wlrt", "flrt") for full in ("", "_full") for jobs in (1, 2)
)

DEFAULT_PARAMS = {
    "seed": 0,
    "trees": 50,
    "max_depth": 8,
    "peer_max_depth": None,
    "n_neighbors": 5,
    "lw_trees": 100,
    "gb_rounds": 100,
}


def implementation(learner):
    """The library a learner comes from: lrank, sklr (0.3.0), sklr02 or sklearn."""
    for impl in ("sklr02", "sklr03", "sklearn", "sklr", "lrank"):
        if "_" + impl in learner:
            return "sklr" if impl == "sklr03" else impl
    raise ValueError(f"unknown learner {learner!r}")


def jobs_of(learner):
    tail = learner.rsplit("_", 1)[1]
    return int(tail[1:]) if tail.startswith("j") and tail[1:].isdigit() else 1


# ------------------------------------------------------------------ quiet process, memory


def settle(max_wait_s=2.0):
    """Return once this process uses under 10% of a core over 50 ms of sleep (at most max_wait_s).

    numpy's OpenBLAS starts worker threads on import that busy-wait for about 0.1 s before they
    sleep; on 2 cores a learner timed straight away shares the machine with them (lrank's
    2-thread IBLR predict on pendigits was slower than its 1-thread one until children waited).
    Every learner, lrank or peer, waits here for the same condition before its timed section.
    """
    deadline = time.perf_counter() + max_wait_s
    while time.perf_counter() < deadline:
        cpu0 = time.process_time()
        time.sleep(0.05)
        if time.process_time() - cpu0 < 0.005:
            return


def memory_mib(field):
    """``VmHWM`` (peak) or ``VmRSS`` (now) of this process in MiB, from /proc/self/status."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    if field == "VmHWM":  # not Linux: ru_maxrss (KiB on Linux, bytes on macOS)
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / (1024.0 * 1024.0) if sys.platform == "darwin" else peak / 1024.0
    return None


# ------------------------------------------------------------------ peers' wrappers


def positions_from_scores(scores, ascending):
    """Positions (1-based) sorting each row by score (ascending: lowest first), ties to the lower label."""
    order = np.argsort(scores if ascending else -scores, axis=1, kind="stable")
    ranks = np.empty(order.shape, dtype=np.int32)
    rows = np.arange(scores.shape[0])[:, None]
    ranks[rows, order] = np.arange(1, scores.shape[1] + 1)
    return ranks


def borda_positions(preds):
    """Borda count of position matrices ``preds`` (T, n, m): the label at position r gets m - r points."""
    m = preds.shape[2]
    points = (m - preds.astype(np.int64)).sum(axis=0)
    return positions_from_scores(points, ascending=False)


class BaggedSklrTrees:
    """T scikit-lr 0.3.0 ``DecisionTreeLabelRanker`` on bootstrap samples of n rows, Borda-combined.

    scikit-lr 0.3.0 has no ensemble; this is the peer of lrank's LR-RF (``max_features="sqrt"``)
    and bagged LRT (``max_features=None``). Rows are drawn with replacement and duplicated (not
    weighted); each tree keeps scikit-lr's defaults otherwise (Mallows criterion, best splitter,
    grown to nodes of fewer than 2 rows unless ``max_depth`` is set).
    """

    def __init__(self, n_estimators=50, max_depth=None, max_features="sqrt", random_state=0):
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.max_features = max_features
        self.random_state = random_state

    def fit(self, X, Y):
        from sklr.tree import DecisionTreeLabelRanker

        rng = np.random.default_rng(self.random_state)
        n = X.shape[0]
        self.estimators_ = []
        for _ in range(self.n_estimators):
            rows = rng.integers(0, n, size=n)
            tree = DecisionTreeLabelRanker(
                max_features=self.max_features,
                max_depth=self.max_depth,
                random_state=int(rng.integers(0, 2**31 - 1)),
            )
            self.estimators_.append(tree.fit(X[rows], Y[rows]))
        return self

    def predict(self, X):
        return borda_positions(np.stack([tree.predict(X) for tree in self.estimators_]))


class BaggedSklrPlrTrees:
    """T scikit-lr 0.3.0 ``DecisionTreePartialLabelRanker`` on bootstrap samples of n rows, their
    bucket orders combined by scikit-lr's own bucket pivot algorithm (unweighted), as Alfaro et al.
    bag PLR trees. The peer of lrank's bagged PLR trees and PLR forest."""

    def __init__(self, n_estimators=50, max_features=None, random_state=0):
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.random_state = random_state

    def fit(self, X, Y):
        from sklr.tree import DecisionTreePartialLabelRanker

        rng = np.random.default_rng(self.random_state)
        n = X.shape[0]
        self.estimators_ = []
        for _ in range(self.n_estimators):
            rows = rng.integers(0, n, size=n)
            tree = DecisionTreePartialLabelRanker(
                max_features=self.max_features, random_state=int(rng.integers(0, 2**31 - 1))
            )
            self.estimators_.append(tree.fit(X[rows], Y[rows]))
        return self

    def predict(self, X):
        from sklr._aggregation.bucket_pivot import aggregate_batch

        per_row = np.stack([tree.predict(X) for tree in self.estimators_], axis=1)  # (n, T, m)
        return aggregate_batch(per_row, np.ones(per_row.shape[:2]))


class Labelwise:
    """A scikit-learn regressor used labelwise: regress positions / m, rank labels by prediction."""

    def __init__(self, regressor):
        self.regressor = regressor

    def fit(self, X, Y):
        self.m_ = Y.shape[1]
        self.regressor.fit(X, Y / float(self.m_))
        return self

    def predict(self, X):
        return positions_from_scores(self.regressor.predict(X), ascending=True)


class LabelwiseEach:
    """A single-output regressor per label (HistGradientBoostingRegressor has no multi-output
    mode): each fitted to its label's position / m; labels ranked by prediction."""

    def __init__(self, make):
        self.make = make

    def fit(self, X, Y):
        self.m_ = Y.shape[1]
        self.models_ = [self.make().fit(X, Y[:, j] / float(self.m_)) for j in range(self.m_)]
        return self

    def predict(self, X):
        return positions_from_scores(np.column_stack([r.predict(X) for r in self.models_]), ascending=True)


# ------------------------------------------------------------------ the learners


def build(learner, params):
    """The estimator of a learner name, and the form of Y it takes ("lrank", "nan" or "int64")."""
    if learner not in LEARNERS:
        raise ValueError(f"unknown learner {learner!r}")
    p = dict(DEFAULT_PARAMS, **params)
    seed, jobs, impl = p["seed"], jobs_of(learner), implementation(learner)
    method = learner.split("_", 1)[0]
    full = "_full_" in learner
    if impl == "lrank":
        import lrank

        if method == "lrrf":
            est = lrank.LabelRankingRandomForest(
                n_estimators=p["trees"], max_depth=p["max_depth"], random_state=seed, n_jobs=jobs
            )
        elif method == "lrt":
            est = lrank.LabelRankingTree(random_state=seed, n_jobs=jobs, min_samples_split=2 if full else None)
        elif method == "iblr":
            est = lrank.InstanceBasedLabelRanker(n_neighbors=p["n_neighbors"], random_state=seed, n_jobs=jobs)
        elif method == "bag":
            splitter = {"lrt": "best", "wlrt": "equal_width", "flrt": "equal_frequency"}[learner.split("_")[1]]
            tree = lrank.LabelRankingTree(splitter=splitter, min_samples_split=2 if full else None)
            est = lrank.BaggingLabelRanker(tree, n_estimators=p["trees"], random_state=seed, n_jobs=jobs)
        elif method == "ibpl":
            est = lrank.InstanceBasedPlackettLuce(n_neighbors=p["n_neighbors"], random_state=seed, n_jobs=jobs)
        elif method == "lwrf":
            est = lrank.LabelwiseRandomForest(n_estimators=p["lw_trees"], random_state=seed, n_jobs=jobs)
        elif method in ("gblr", "gblrpl"):
            # GBLR's defaults (depth 6, 20 per leaf, L2 1, 255 bins), every round kept; gblrpl
            # grows a tree per label per round, as the peer does.
            est = lrank.GradientBoostingLabelRanker(
                n_estimators=p["gb_rounds"],
                early_stopping=False,
                per_label_trees=method == "gblrpl",
                random_state=seed,
                n_jobs=jobs,
            )
        elif method == "plrt":
            est = lrank.PartialLabelRankingTree(random_state=seed, n_jobs=jobs)
        elif method == "plrbag":
            tree = lrank.PartialLabelRankingTree()
            est = lrank.BaggingLabelRanker(
                tree, n_estimators=p["trees"], aggregation="bpa", random_state=seed, n_jobs=jobs
            )
        elif method == "plrrf":
            est = lrank.PartialLabelRankingForest(n_estimators=p["trees"], random_state=seed, n_jobs=jobs)
        elif method == "ibplr":
            # Raw attributes, as scikit-lr's kNN measures distance: the same neighbours.
            est = lrank.InstanceBasedPartialLabelRanker(
                n_neighbors=p["n_neighbors"], weights="uniform", scaling="none", random_state=seed, n_jobs=jobs
            )
        else:  # lwdt
            est = lrank.LabelwiseDecisionTree(random_state=seed, n_jobs=jobs)
        return est, "lrank"
    if impl == "sklr":
        # Imported here, outside the timed fit (importing sklr.tree takes about 0.9 s).
        import sklr.tree

        if method == "plrt":
            from sklr.tree import DecisionTreePartialLabelRanker

            return DecisionTreePartialLabelRanker(random_state=seed), "nan"
        if method == "plrbag":
            import sklr._aggregation.bucket_pivot

            return BaggedSklrPlrTrees(p["trees"], None, seed), "nan"
        if method == "plrrf":
            import sklr._aggregation.bucket_pivot  # noqa: F401 - its predict's import, outside the timing

            return BaggedSklrPlrTrees(p["trees"], "sqrt", seed), "nan"
        if method == "ibplr":
            from sklr.neighbors import KNeighborsPartialLabelRanker

            return KNeighborsPartialLabelRanker(n_neighbors=p["n_neighbors"]), "nan"
        if method == "lrrf":
            return BaggedSklrTrees(p["trees"], p["peer_max_depth"], "sqrt", seed), "nan"
        if method == "bag":
            return BaggedSklrTrees(p["trees"], None, None, seed), "nan"
        if method == "lrt":
            from sklr.tree import DecisionTreeLabelRanker

            # The seed only decides between equally good splits; fixed so that tau repeats.
            return DecisionTreeLabelRanker(random_state=seed), "nan"
        from sklr.neighbors import KNeighborsLabelRanker

        if method == "ibpl":
            return KNeighborsLabelRanker(n_neighbors=p["n_neighbors"], model="plackett_luce"), "nan"
        weights = "dudani" if learner.endswith("_dudani") else "uniform"
        return KNeighborsLabelRanker(n_neighbors=p["n_neighbors"], weights=weights), "nan"
    if impl == "sklr02":
        from sklr.ensemble import BaggingLabelRanker
        from sklr.tree import DecisionTreeLabelRanker

        splitter = {"wlrt": "width", "flrt": "frequency"}[learner.split("_")[1]]
        tree = DecisionTreeLabelRanker(splitter=splitter)
        return BaggingLabelRanker(tree, n_estimators=p["trees"], random_state=seed), "int64"
    # scikit-learn used labelwise
    if method == "gblr":
        from sklearn.ensemble import HistGradientBoostingRegressor

        return LabelwiseEach(
            lambda: HistGradientBoostingRegressor(
                max_iter=p["gb_rounds"],
                learning_rate=0.1,
                max_depth=6,
                max_leaf_nodes=None,
                min_samples_leaf=20,
                l2_regularization=1.0,
                max_bins=255,
                early_stopping=False,
                random_state=seed,
            )
        ), "int64"
    if method == "lwrf":
        from sklearn.ensemble import RandomForestRegressor

        forest = RandomForestRegressor(n_estimators=p["lw_trees"], max_features=1 / 3, random_state=seed, n_jobs=jobs)
        return Labelwise(forest), "int64"
    from sklearn.tree import DecisionTreeRegressor

    return Labelwise(DecisionTreeRegressor(random_state=seed)), "int64"


def convert_y(Y, kind):
    """lrank's Y (int, 0 = unranked) in the form a library takes: scikit-lr 0.3.0 wants NaN there."""
    if kind == "nan":
        Y = np.asarray(Y, dtype=np.float64).copy()
        Y[Y <= 0] = np.nan
        return Y
    return np.ascontiguousarray(Y, dtype=np.int32 if kind == "lrank" else np.int64)


def fit_predict(learner, params, X_tr, Y_tr, X_te):
    """Build, settle, fit, predict twice; the first predict's positions and the measurements."""
    est, kind = build(learner, params)
    X_tr = np.ascontiguousarray(X_tr, dtype=np.float64)
    X_te = np.ascontiguousarray(X_te, dtype=np.float64)
    Y_fit = convert_y(Y_tr, kind)
    base_mib = memory_mib("VmRSS")
    limits = None
    if learner.startswith("gblr_sklearn"):
        # HistGradientBoosting runs on OpenMP threads: as many as the lrank side's n_jobs.
        from threadpoolctl import threadpool_limits

        limits = threadpool_limits(limits=jobs_of(learner))
    elif learner.endswith("_1t"):
        # scikit-learn's brute-force neighbour search runs on BLAS, which uses every core.
        from threadpoolctl import threadpool_limits

        limits = threadpool_limits(limits=1)
    settle()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        est.fit(X_tr, Y_fit)
        t1 = time.perf_counter()
        pred = est.predict(X_te)
        t2 = time.perf_counter()
        # The same rows again: shows how much of the first predict was the first call's own cost
        # (cold caches and branch predictors, lazy set-up). The one that counts is the first.
        pred_again = est.predict(X_te)
        t3 = time.perf_counter()
    if limits is not None:
        limits.unregister()
    result = {
        "fit_s": t1 - t0,
        "predict_s": t2 - t1,
        "predict2_s": t3 - t2,
        "second_predict_identical": bool(np.array_equal(np.asarray(pred), np.asarray(pred_again))),
        "peak_mib": memory_mib("VmHWM"),
        "base_mib": base_mib,
        "n_warnings": len(caught),
        "warning_kinds": sorted({w.category.__name__ for w in caught}),
    }
    if learner == "lrt_sklr":
        result["tree_depth"] = int(est.get_depth())
        result["tree_leaves"] = int(est.get_n_leaves())
    return np.asarray(pred, dtype=np.int32), result


def main(argv=None):
    src, dst = sys.argv[1:3] if argv is None else argv
    with np.load(src) as data:
        spec = json.loads(str(data["spec"]))
        X_tr, Y_tr, X_te = data["X_tr"], data["Y_tr"], data["X_te"]
    pred, result = fit_predict(spec["learner"], spec["params"], X_tr, Y_tr, X_te)
    np.savez(dst, pred=pred, result=np.array(json.dumps(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
