"""Speed/accuracy benchmark: lrank's LRT and IBLR against scikit-lr 0.3.0.

Usage (after ``bash bench/setup_env.sh``)::

    bench/.venv313/bin/python bench/cheng_speed.py \
        [--datasets stock,segment,vowel,pendigits,calhousing] [--folds 10] \
        [--max-folds K] [--repeats R] [--seed 0] [--n-neighbors 5] [--dudani] \
        [--out bench/results/cheng_speed.json]

The two label rankers of Cheng, Huehn & Huellermeier (ICML 2009, "Decision tree
and instance-based learning for label ranking") side by side with scikit-lr's
implementations of the same methods. Folds, child processes, timings and Kendall
tau are exactly those of ``bench/lrrf_speed.py`` (whose helpers are imported):
every learner sees the same shuffled K-fold splits (permutation from
``numpy.random.default_rng(seed)`` cut in ``--folds`` parts), and for each
dataset, fold and learner, fit + predict run in a fresh ``spawn`` child that
reports fit and predict wall time (``perf_counter``; timing starts once the child is
quiet, see ``bench/settle.py``; with ``--repeats R`` every learner runs R times per fold,
interleaved, and the fold's time is the median of the R), its peak resident set
(VmHWM) and its resident set before ``fit``, and returns the predicted
rankings; Kendall tau (mean over the test rows) is computed in the parent.
The predict time that counts is that of the child's first predict. Each child then predicts
the same rows a second time; that time is reported beside it ("again", "second predict") to
show how much of the first was the first call's own cost (caches and branch predictors still
cold, lazy set-up), and the two predictions are checked to be identical.

Learners
--------
``lrt_lrank_j1`` / ``lrt_lrank_j2``
    ``lrank.LabelRankingTree(random_state=seed, n_jobs=1 or 2)``, i.e. ``max_depth=None``,
    ``min_samples_split=None`` (= 2m), ``max_iter=20``. ``lrt_lrank_full_j1`` is the same
    tree grown like scikit-lr's (``min_samples_split=2``) on one thread. ``fit(X, Y)`` with X
    float64 and Y int32 1-based positions (0 = unranked); ``predict`` returns
    int32 positions.
``lrt_sklr``
    ``sklr.tree.DecisionTreeLabelRanker(random_state=seed)``, otherwise its
    defaults: ``criterion="mallows"`` (its only one), ``splitter="best"``,
    ``max_features=None`` (all features), ``max_depth=None``,
    ``min_samples_split=2``, ``min_samples_leaf=1``, ``ccp_alpha=0``,
    ``max_iter=100``. With all features and the best splitter, the seed only
    permutes the order in which features are scored, i.e. which of equally
    good splits wins; it is fixed (as lrank's is) so that its tau is the same
    from run to run (with its default ``random_state=None`` the vowel tau
    moved between .830 and .839 across runs).

    Both are single, unpruned Mallows trees, but **they stop at different
    places**: lrank makes a node a leaf when it holds fewer than 2m examples
    (the paper's rule; m = number of labels) or when its rankings all agree,
    while scikit-lr grows the tree until nodes hold fewer than
    ``min_samples_split=2`` examples (or are pure), so its trees are much
    deeper and its fit does more work. Their split criteria also differ in
    detail: scikit-lr minimises the weighted child impurity ``1/(1+theta)``
    with theta fitted per candidate split; lrank maximises the size-weighted
    Mallows spread from running Borda scores and pairwise counts (see
    ``LabelRankingTree.__doc__``).
``iblr_lrank_j1`` / ``iblr_lrank_j2``
    ``lrank.InstanceBasedLabelRanker(n_neighbors=K, random_state=seed,
    n_jobs=1 or 2)`` (``max_iter=20``). Attributes are min-max normalised on
    the training data; neighbours vote with Dudani's weight
    ``(d_k - d_i)/(d_k - d_1)`` (times the share of labels their ranking
    holds), aggregated by the Mallows EM median (the paper's IB-M).
``iblr_sklr``
    ``sklr.neighbors.KNeighborsLabelRanker(n_neighbors=K)`` with its defaults:
    ``model="mallows"``, ``weights="uniform"`` (all k neighbours weigh 1),
    ``algorithm="auto"``, Minkowski p=2 (Euclidean) on the **raw, unscaled**
    attributes, ``max_iter=None`` (= 100 for Mallows), ``n_jobs=None`` (1
    thread; but scikit-learn's brute-force search runs on BLAS, which uses
    every core: ``iblr_sklr_1t`` limits BLAS to one thread with threadpoolctl). scikit-lr also
    offers ``weights="dudani"`` (the paper's rule,
    same formula as lrank); it is *not* used for the main rows, which keep
    scikit-lr's defaults. ``--dudani`` adds a row ``iblr_sklr_dudani`` with
    ``weights="dudani"`` (still on unscaled attributes).

So the IBLR rows differ in weighting (Dudani vs uniform) and in attribute
scaling (min-max vs none), which shows in tau on datasets whose attributes have
very different ranges; the timings compare a Rust neighbour search + EM median
against scikit-learn's neighbour search + scikit-lr's compiled Mallows
aggregation.

scikit-lr takes Y as float with NaN for unranked labels (0 is rejected); the
KEBI data used here are complete, so the conversion only changes the dtype.
See ``bench/lrrf_speed.py`` for scikit-lr's conventions in full.

Output: one table per dataset (means over the folds run) plus peer/lrank ratios
on stdout, progress on stderr, all raw numbers and machine information in the
JSON ``--out`` (rewritten atomically after each fold).
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing as mp
import subprocess
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lrrf_speed import (
    DATA_DIR,
    REPO,
    _fmt,
    _mean,
    _ratio,
    _rss_kib,
    dist_version,
    kendall_tau_rows,
    kfold_indices,
    load_kebi,
    log,
    machine_info,
    write_json,
)
from settle import settle

DEFAULT_DATASETS = "stock,segment,vowel,pendigits,calhousing"
LEARNERS_MAIN = (
    "lrt_sklr",
    "lrt_lrank_j1",
    "lrt_lrank_j2",
    "lrt_lrank_full_j1",
    "iblr_sklr",
    "iblr_sklr_1t",
    "iblr_lrank_j1",
    "iblr_lrank_j2",
)
DUDANI = "iblr_sklr_dudani"

# (peer, lrank) pairs for which peer/lrank ratios are reported
RATIO_PAIRS = (
    ("lrt_sklr", "lrt_lrank_j1"),
    ("lrt_sklr", "lrt_lrank_j2"),
    ("lrt_sklr", "lrt_lrank_full_j1"),
    ("iblr_sklr_1t", "iblr_lrank_j1"),
    ("iblr_sklr", "iblr_lrank_j2"),
    (DUDANI, "iblr_lrank_j1"),
)


# -------------------------------------------------------------- child side


def make_estimator(learner: str, seed: int, n_neighbors: int):
    if learner.startswith("lrt_lrank"):
        from lrank import LabelRankingTree

        n_jobs = int(learner.rsplit("_j", 1)[1])
        # "full": grown like scikit-lr's tree, down to nodes of fewer than 2 examples.
        min_split = 2 if "_full_" in learner else None
        return LabelRankingTree(random_state=seed, n_jobs=n_jobs, min_samples_split=min_split), "lrank"
    if learner.startswith("iblr_lrank_j"):
        from lrank import InstanceBasedLabelRanker

        n_jobs = int(learner[len("iblr_lrank_j") :])
        return InstanceBasedLabelRanker(n_neighbors=n_neighbors, random_state=seed, n_jobs=n_jobs), "lrank"
    if learner == "lrt_sklr":
        from sklr.tree import DecisionTreeLabelRanker

        return DecisionTreeLabelRanker(random_state=seed), "sklr"
    if learner in ("iblr_sklr", "iblr_sklr_1t"):
        from sklr.neighbors import KNeighborsLabelRanker

        return KNeighborsLabelRanker(n_neighbors=n_neighbors), "sklr"
    if learner == DUDANI:
        from sklr.neighbors import KNeighborsLabelRanker

        return KNeighborsLabelRanker(n_neighbors=n_neighbors, weights="dudani"), "sklr"
    raise ValueError(f"unknown learner {learner!r}")


def run_learner(learner: str, X_tr, Y_tr, X_te, seed: int, n_neighbors: int) -> dict:
    """Fit + predict one learner; meant to run in a fresh spawn child."""
    import resource

    est, kind = make_estimator(learner, seed, n_neighbors)
    X_tr = np.ascontiguousarray(X_tr, dtype=np.float64)
    X_te = np.ascontiguousarray(X_te, dtype=np.float64)
    if kind == "sklr":
        # lrank convention (0 = unranked) -> scikit-lr convention (NaN)
        Y_fit = np.asarray(Y_tr, dtype=np.float64)
        Y_fit[Y_fit <= 0] = np.nan
    else:
        Y_fit = np.ascontiguousarray(Y_tr, dtype=np.int32)
    rss_before = _rss_kib("VmRSS")
    limits = contextlib.nullcontext()
    if learner.endswith("_1t"):
        # scikit-learn's brute-force neighbour search runs on BLAS, which uses every core.
        from threadpoolctl import threadpool_limits

        limits = threadpool_limits(limits=1)
    settle()  # numpy's BLAS threads spin for a while after import: wait for a quiet machine
    with limits, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        est.fit(X_tr, Y_fit)
        t1 = time.perf_counter()
        pred = est.predict(X_te)
        t2 = time.perf_counter()
        # The same rows again: the second call shows what of the first was the first call's own
        # cost (cold caches and branch predictors, lazy set-up). The target is read from the first.
        pred_again = est.predict(X_te)
        t3 = time.perf_counter()
        n_warn = len(caught)
        warn_kinds = sorted({w.category.__name__ for w in caught})
    hwm = _rss_kib("VmHWM")
    if hwm is None:
        hwm = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        if sys.platform == "darwin":
            hwm //= 1024
    extra = {}
    if learner == "lrt_sklr":
        extra = {"tree_depth": int(est.get_depth()), "tree_leaves": int(est.get_n_leaves())}
    return {
        "fit_s": t1 - t0,
        "predict_s": t2 - t1,
        "predict2_s": t3 - t2,
        "second_predict_identical": bool(np.array_equal(np.asarray(pred), np.asarray(pred_again))),
        "peak_mib": hwm / 1024.0,
        "rss_before_fit_mib": (rss_before / 1024.0) if rss_before is not None else None,
        "n_warnings": n_warn,
        "warning_kinds": warn_kinds,
        **extra,
        "pred": np.asarray(pred, dtype=np.int32),
    }


def run_in_child(ctx, *args) -> dict:
    with ProcessPoolExecutor(max_workers=1, mp_context=ctx) as ex:
        return ex.submit(run_learner, *args).result()


# ----------------------------------------------------------------- report


def summarize(ds: dict) -> dict:
    summ = {}
    for learner, runs in ds["runs"].items():
        ok = [r for r in runs if "error" not in r]
        summ[learner] = {
            "folds": len(ok),
            "errors": len(runs) - len(ok),
            "fit_s": _mean([r["fit_s"] for r in ok]),
            "predict_s": _mean([r["predict_s"] for r in ok]),
            "predict2_s": _mean([r["predict2_s"] for r in ok if "predict2_s" in r]),
            "tau": _mean([r["tau"] for r in ok]),
            "peak_mib": _mean([r["peak_mib"] for r in ok]),
            "rss_before_fit_mib": _mean([r["rss_before_fit_mib"] for r in ok]),
        }
        if ok and "tree_depth" in ok[0]:
            summ[learner]["tree_depth"] = _mean([r["tree_depth"] for r in ok])
            summ[learner]["tree_leaves"] = _mean([r["tree_leaves"] for r in ok])
    g = lambda l, k: summ.get(l, {}).get(k)  # noqa: E731
    ratios, intervals = {}, {}
    for peer, mine in RATIO_PAIRS:
        if peer in summ and mine in summ:
            for what in ("fit", "predict", "predict2"):
                key = f"{what}_{peer}_over_{mine}"
                ratios[key] = _ratio(g(peer, f"{what}_s"), g(mine, f"{what}_s"))
                interval = ratio_interval(ds["runs"][peer], ds["runs"][mine], f"{what}_s")
                if interval is not None:
                    intervals[key] = interval
    summ["ratios"] = ratios
    summ["ratio_intervals_95"] = intervals
    return summ


def ratio_interval(peer_runs: list, mine_runs: list, key: str):
    """95% paired bootstrap interval (over folds) of mean(peer) / mean(mine), or None."""
    try:
        from lrank.stats import ratio_of_means_interval
    except ImportError:  # an lrank older than the interval, or a peer-only run without lrank
        return None
    mine_by_fold = {r["fold"]: r[key] for r in mine_runs if "error" not in r}
    pairs = [(r[key], mine_by_fold[r["fold"]]) for r in peer_runs if "error" not in r and r["fold"] in mine_by_fold]
    if len(pairs) < 2 or any(m <= 0 for _, m in pairs):
        return None
    res = ratio_of_means_interval([p for p, _ in pairs], [m for _, m in pairs], level=0.95, seed=0)
    return [res.low, res.high]


def print_table(name: str, ds: dict, summ: dict, cfg: dict) -> None:
    n, d, m = ds["n"], ds["d"], ds["m"]
    print(
        f"\n== {name}  (n={n}, d={d}, m={m}; folds run: {ds['folds_run']}/{ds['n_folds']}, "
        f"median of {cfg['repeats']} run(s) each; "
        f"k={cfg['n_neighbors']}; lrank LRT min_samples_split=2m={2 * m}, scikit-lr 2) =="
    )
    print(
        f"{'learner':<17} {'fit s':>9} {'predict s':>10} {'again s':>10} {'tau':>7} {'peak MiB':>9} "
        f"{'base MiB':>9} {'errors':>6}"
    )
    for learner in cfg["learners"]:
        s = summ.get(learner)
        if not s:
            continue
        print(
            f"{learner:<17} {_fmt(s['fit_s'], '9.3f')} {_fmt(s['predict_s'], '10.4f')} "
            f"{_fmt(s['predict2_s'], '10.4f')} "
            f"{_fmt(s['tau'], '7.4f')} {_fmt(s['peak_mib'], '9.1f')} "
            f"{_fmt(s['rss_before_fit_mib'], '9.1f')} {s['errors']:>6}"
        )
    r = summ["ratios"]
    ci = summ.get("ratio_intervals_95", {})

    def show(value, key):
        if value is None:
            return "-"
        low_high = ci.get(key)
        return f"{value:.2f}x" + (f" [{low_high[0]:.2f}, {low_high[1]:.2f}]" if low_high else "")

    for peer, mine in RATIO_PAIRS:
        f = r.get(f"fit_{peer}_over_{mine}")
        p = r.get(f"predict_{peer}_over_{mine}")
        p2 = r.get(f"predict2_{peer}_over_{mine}")
        if f is None and p is None:
            continue
        print(
            f"ratio {peer}/{mine}: fit {show(f, f'fit_{peer}_over_{mine}')}, "
            f"predict {show(p, f'predict_{peer}_over_{mine}')}, "
            f"second predict {show(p2, f'predict2_{peer}_over_{mine}')}"
        )
    if ci:
        print(
            "([low, high]: 95% paired bootstrap interval over the folds; it does not cover slow or "
            "fast spells of the machine that last a whole run)"
        )
    s = summ.get("lrt_sklr", {})
    if s.get("tree_depth") is not None:
        print(f"(scikit-lr tree: mean depth {s['tree_depth']:.1f}, mean leaves {s['tree_leaves']:.0f})")
    print("(base MiB = child RSS after imports + data, before fit; peak = VmHWM of the child)")
    sys.stdout.flush()


def git_state() -> dict:
    def run(*cmd):
        try:
            return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=10).stdout.strip()
        except Exception:
            return None

    status = run("git", "status", "--porcelain")
    return {"head": run("git", "rev-parse", "HEAD"), "dirty_files": status.splitlines() if status else []}


# -------------------------------------------------------------------- main


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default=DEFAULT_DATASETS)
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--max-folds", type=int, default=None, help="run only the first K folds")
    ap.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="runs of each learner per fold (fresh processes, interleaved); the median time counts",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-neighbors", type=int, default=5)
    ap.add_argument("--dudani", action="store_true", help="also run scikit-lr KNeighborsLabelRanker(weights='dudani')")
    ap.add_argument(
        "--only",
        choices=("lrank", "sklr", "lrt", "iblr"),
        default=None,
        help="run only the learners whose name contains this",
    )
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "cheng_speed.json"))
    ap.add_argument(
        "--report",
        metavar="JSON",
        default=None,
        help="run nothing: print the tables (with ratio intervals) of a saved --out file",
    )
    return ap.parse_args(argv)


def report(path: str) -> int:
    """Prints the tables of a saved run, recomputing its summaries (and ratio intervals)."""
    import json

    try:
        payload = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise SystemExit(f"cannot read {path}: {exc}") from None
    cfg = payload["config"]
    print(f"(saved run of {payload.get('git', {}).get('head', '?')}: {path})")
    for name, ds in payload["datasets"].items():
        print_table(name, ds, summarize(ds), cfg)
    return 0


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.report:
        return report(args.report)
    if args.folds < 2:
        raise SystemExit("--folds must be >= 2")
    if args.repeats < 1:
        raise SystemExit("--repeats must be >= 1")
    learners = list(LEARNERS_MAIN) + ([DUDANI] if args.dudani else [])
    if args.only:
        learners = [l for l in learners if args.only in l]
    if any("lrank" in l for l in learners):
        try:
            import lrank  # noqa: F401
        except ImportError:
            raise SystemExit("lrank is not installed in this Python; run bench/setup_env.sh") from None
    if any("sklr" in l for l in learners) and dist_version("scikit-lr") is None:
        raise SystemExit("scikit-lr is not installed in this Python; run bench/setup_env.sh")

    ctx = mp.get_context("spawn")
    out = Path(args.out)
    cfg = {
        "datasets": args.datasets.split(","),
        "folds": args.folds,
        "max_folds": args.max_folds,
        "repeats": args.repeats,
        "seed": args.seed,
        "n_neighbors": args.n_neighbors,
        "learners": learners,
        "lrt_lrank_j1/j2": "lrank.LabelRankingTree(random_state=seed, n_jobs=1|2)  # max_depth=None, "
        "min_samples_split=2m, max_iter=20",
        "lrt_lrank_full_j1": "lrank.LabelRankingTree(random_state=seed, n_jobs=1, min_samples_split=2)  "
        "# grown like scikit-lr's tree",
        "lrt_sklr": "sklr.tree.DecisionTreeLabelRanker()  # mallows, best splitter, all features, "
        "max_depth=None, min_samples_split=2, max_iter=100, random_state=None",
        "iblr_lrank": "lrank.InstanceBasedLabelRanker(n_neighbors=k, random_state=seed, n_jobs=1|2)  "
        "# min-max scaled X, Dudani weights, max_iter=20",
        "iblr_sklr": "sklr.neighbors.KNeighborsLabelRanker(n_neighbors=k)  # model='mallows', "
        "weights='uniform', unscaled Euclidean, max_iter=100, n_jobs=None",
        "iblr_sklr_1t": "the same with BLAS limited to 1 thread (threadpoolctl)",
        "iblr_sklr_dudani": "KNeighborsLabelRanker(n_neighbors=k, weights='dudani')",
        "process": "each learner x fold in a fresh multiprocessing 'spawn' child",
        "data_dir": str(DATA_DIR),
    }
    payload = {"benchmark": "cheng_speed", "machine": machine_info(), "git": git_state(), "config": cfg, "datasets": {}}
    log(f"learners={learners} datasets={args.datasets} folds={args.folds} max_folds={args.max_folds} -> {out}")

    for name in args.datasets.split(","):
        name = name.strip()
        if not name:
            continue
        X, Y = load_kebi(name)
        n, d = X.shape
        m = Y.shape[1]
        folds = kfold_indices(n, args.folds, args.seed)
        k_run = len(folds) if args.max_folds is None else min(args.max_folds, len(folds))
        ds = {"n": n, "d": d, "m": m, "n_folds": args.folds, "folds_run": 0, "runs": {l: [] for l in learners}}
        payload["datasets"][name] = ds
        for k in range(k_run):
            tr, te = folds[k]
            # Each fit + predict `--repeats` times in fresh processes, the learners interleaved
            # (so a slow spell of the machine hits all of them); the fold's time is the median.
            trials: dict[str, list[dict]] = {learner: [] for learner in learners}
            for rep in range(args.repeats):
                for learner in learners:
                    if trials[learner] and "error" in trials[learner][-1]:
                        continue
                    log(
                        f"{name} fold {k + 1}/{k_run} run {rep + 1}/{args.repeats} {learner}: "
                        f"fit on {len(tr)}, predict {len(te)} ..."
                    )
                    t_wall = time.perf_counter()
                    try:
                        res = run_in_child(ctx, learner, X[tr], Y[tr], X[te], args.seed, args.n_neighbors)
                    except Exception as exc:  # keep going; record the failure
                        log(f"{name} fold {k + 1} {learner}: FAILED: {type(exc).__name__}: {exc}")
                        trials[learner].append({"fold": k, "error": f"{type(exc).__name__}: {exc}"})
                        continue
                    pred = res.pop("pred")
                    if pred.shape != Y[te].shape:
                        msg = f"predict returned shape {pred.shape}, expected {Y[te].shape}"
                        log(f"{name} fold {k + 1} {learner}: FAILED: {msg}")
                        trials[learner].append({"fold": k, "error": msg})
                        continue
                    res["tau"] = float(np.nanmean(kendall_tau_rows(Y[te], pred)))
                    res["child_wall_s"] = time.perf_counter() - t_wall
                    trials[learner].append(res)
                    log(
                        f"{name} fold {k + 1}/{k_run} {learner}: fit {res['fit_s']:.3f}s "
                        f"predict {res['predict_s']:.4f}s (again {res['predict2_s']:.4f}s) tau {res['tau']:.4f} "
                        f"peak {res['peak_mib']:.1f} MiB"
                        + (f" warnings {res['n_warnings']} {res['warning_kinds']}" if res["n_warnings"] else "")
                    )
            for learner in learners:
                runs = trials[learner]
                if not runs or "error" in runs[-1]:
                    ds["runs"][learner].append(runs[-1] if runs else {"fold": k, "error": "not run"})
                    continue
                res = dict(runs[0])
                res["fit_s_runs"] = [r["fit_s"] for r in runs]
                res["predict_s_runs"] = [r["predict_s"] for r in runs]
                res["fit_s"] = float(np.median(res["fit_s_runs"]))
                res["predict_s"] = float(np.median(res["predict_s_runs"]))
                res["predict2_s_runs"] = [r["predict2_s"] for r in runs]
                res["predict2_s"] = float(np.median(res["predict2_s_runs"]))
                if not all(r["second_predict_identical"] for r in runs):
                    log(f"{name} fold {k + 1} {learner}: a second predict of the same rows differed")
                res["tau_runs"] = [r["tau"] for r in runs]
                if len(set(res["tau_runs"])) > 1:
                    log(f"{name} fold {k + 1} {learner}: tau differs between runs: {res['tau_runs']}")
                res["fold"] = k
                res["n_train"] = int(len(tr))
                res["n_test"] = int(len(te))
                ds["runs"][learner].append(res)
            ds["folds_run"] = k + 1
            ds["summary"] = summarize(ds)
            write_json(out, payload)
        ds["summary"] = summarize(ds)
        write_json(out, payload)
        print_table(name, ds, ds["summary"], cfg)
    log(f"wrote {out}")
    n_err = sum(1 for ds in payload["datasets"].values() for runs in ds["runs"].values() for r in runs if "error" in r)
    if n_err:
        log(f"{n_err} learner run(s) failed; see 'error' entries in {out}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
