"""Speed and accuracy of issue 4's learners against their peers, side by side, same folds.

Usage (after ``bash bench/setup_env.sh``, which also makes bench/.venv37 with scikit-lr 0.2.0)::

    bench/.venv313/bin/python bench/ensemble_speed.py [--groups bagging,ibpl,labelwise] \
        [--datasets stock,segment,vowel,pendigits,calhousing] [--folds 10] [--max-folds K] \
        [--trees 50] [--seed 0] [--out bench/results/ensemble_speed.json]

Every learner sees the same shuffled K-fold splits as bench/lrrf_speed.py and
bench/cheng_speed.py (a permutation from ``numpy.random.default_rng(seed)`` cut in K parts).
Each (data set, fold, learner) runs in a fresh process, ``bench/speed_worker.py``, under the
Python that has the learner: bench/.venv313 (lrank, scikit-lr 0.3.0, scikit-learn) or
bench/.venv37 (scikit-lr 0.2.0). The worker reports fit and predict wall time and its peak
resident set; Kendall tau is computed here.

Groups and learners
-------------------
bagging
    ``bag_{lrt,wlrt,flrt}_lrank_j{1,2}``: ``BaggingLabelRanker(LabelRankingTree(splitter=best |
    equal_width | equal_frequency), n_estimators=T)`` on 1 or 2 threads (LRT's paper stopping
    rule: nodes of fewer than 2m rows are leaves); ``bag_{lrt,wlrt,flrt}_full_lrank_j{1,2}``: the
    same with trees grown like scikit-lr's (``min_samples_split=2``).
    ``bag_lrt_sklr03``: T scikit-lr 0.3.0 ``DecisionTreeLabelRanker()`` (Mallows criterion, all
    features, grown to 2 rows) on bootstrap samples, combined by Borda (the wrapper of
    bench/lrrf_speed.py with ``max_features=None``).
    ``bag_{wlrt,flrt}_sklr02``: scikit-lr 0.2.0 ``BaggingLabelRanker(DecisionTreeLabelRanker(
    splitter="width" | "frequency"), n_estimators=T)`` (its own bagging and aggregation).
    scikit-lr 0.2.0's ``splitter="binary"`` is not run: one of its trees takes 45 s on segment
    (1.6 s on stock), so 50 of them per fold is out of reach.
ibpl
    ``ibpl_lrank_j{1,2}``: ``InstanceBasedPlackettLuce(n_neighbors=5)``; ``ibpl_sklr03``:
    scikit-lr 0.3.0 ``KNeighborsLabelRanker(n_neighbors=5, model="plackett_luce")``, and
    ``ibpl_sklr03_1t`` the same with BLAS on one thread. (lrank min-max scales the attributes,
    scikit-lr does not.)
labelwise
    ``lwrf_lrank_j{1,2}``: ``LabelwiseRandomForest(n_estimators=100)`` (a third of the features
    per node); ``lwrf_sklearn_j{1,2}``: scikit-learn's ``RandomForestRegressor(n_estimators=100,
    max_features=1/3, n_jobs=1|2)`` on positions / m, labels ranked by predicted position.
    ``lwdt_lrank_j1`` / ``lwdt_sklearn``: the fully grown single trees
    (``DecisionTreeRegressor()``).

Output: one table per data set (means over the folds run), peer/lrank ratios, progress on
stderr, every number and the machine in the JSON ``--out``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lrrf_speed import _fmt, _mean, _ratio, kendall_tau_rows, kfold_indices, load_kebi, log, machine_info, write_json

BENCH = Path(__file__).resolve().parent
PY313 = BENCH / ".venv313" / "bin" / "python"
PY37 = BENCH / ".venv37" / "bin" / "python"

GROUPS = {
    "bagging": [
        "bag_lrt_sklr03",
        "bag_lrt_lrank_j1",
        "bag_lrt_lrank_j2",
        "bag_lrt_full_lrank_j1",
        "bag_lrt_full_lrank_j2",
        "bag_wlrt_sklr02",
        "bag_wlrt_lrank_j1",
        "bag_wlrt_lrank_j2",
        "bag_wlrt_full_lrank_j1",
        "bag_wlrt_full_lrank_j2",
        "bag_flrt_sklr02",
        "bag_flrt_lrank_j1",
        "bag_flrt_lrank_j2",
        "bag_flrt_full_lrank_j1",
        "bag_flrt_full_lrank_j2",
    ],
    "ibpl": ["ibpl_sklr03", "ibpl_sklr03_1t", "ibpl_lrank_j1", "ibpl_lrank_j2"],
    "labelwise": [
        "lwrf_sklearn_j1",
        "lwrf_lrank_j1",
        "lwrf_sklearn_j2",
        "lwrf_lrank_j2",
        "lwdt_sklearn",
        "lwdt_lrank_j1",
    ],
}
RATIO_PAIRS = [
    ("bag_lrt_sklr03", "bag_lrt_lrank_j1"),
    ("bag_lrt_sklr03", "bag_lrt_lrank_j2"),
    ("bag_lrt_sklr03", "bag_lrt_full_lrank_j1"),
    ("bag_lrt_sklr03", "bag_lrt_full_lrank_j2"),
    ("bag_wlrt_sklr02", "bag_wlrt_lrank_j1"),
    ("bag_wlrt_sklr02", "bag_wlrt_lrank_j2"),
    ("bag_wlrt_sklr02", "bag_wlrt_full_lrank_j1"),
    ("bag_wlrt_sklr02", "bag_wlrt_full_lrank_j2"),
    ("bag_flrt_sklr02", "bag_flrt_lrank_j1"),
    ("bag_flrt_sklr02", "bag_flrt_lrank_j2"),
    ("bag_flrt_sklr02", "bag_flrt_full_lrank_j1"),
    ("bag_flrt_sklr02", "bag_flrt_full_lrank_j2"),
    ("ibpl_sklr03_1t", "ibpl_lrank_j1"),
    ("ibpl_sklr03", "ibpl_lrank_j2"),
    ("lwrf_sklearn_j1", "lwrf_lrank_j1"),
    ("lwrf_sklearn_j2", "lwrf_lrank_j2"),
    ("lwdt_sklearn", "lwdt_lrank_j1"),
]


def python_for(learner: str) -> Path:
    return PY37 if learner.endswith("_sklr02") else PY313


def run_worker(learner: str, X_tr, Y_tr, X_te, seed: int, n_trees: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "in.npz", Path(tmp) / "out.npz"
        np.savez(src, X_tr=X_tr, Y_tr=Y_tr, X_te=X_te, seed=seed, n_trees=n_trees)
        proc = subprocess.run(
            [str(python_for(learner)), str(BENCH / "speed_worker.py"), learner, str(src), str(dst)],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise RuntimeError(
                proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"
            )
        out = np.load(dst)
        return {
            "pred": out["pred"],
            "fit_s": float(out["fit_s"]),
            "predict_s": float(out["predict_s"]),
            "peak_mib": float(out["peak_mib"]),
        }


def summarize(ds: dict) -> dict:
    summ = {}
    for learner, runs in ds["runs"].items():
        ok = [r for r in runs if "error" not in r]
        summ[learner] = {
            "folds": len(ok),
            "errors": len(runs) - len(ok),
            "fit_s": _mean([r["fit_s"] for r in ok]),
            "predict_s": _mean([r["predict_s"] for r in ok]),
            "tau": _mean([r["tau"] for r in ok]),
            "peak_mib": _mean([r["peak_mib"] for r in ok]),
        }
    ratios = {}
    for peer, mine in RATIO_PAIRS:
        if peer in summ and mine in summ:
            ratios[f"fit_{peer}_over_{mine}"] = _ratio(summ[peer]["fit_s"], summ[mine]["fit_s"])
            ratios[f"predict_{peer}_over_{mine}"] = _ratio(summ[peer]["predict_s"], summ[mine]["predict_s"])
    summ["ratios"] = ratios
    return summ


def print_table(name: str, ds: dict, summ: dict, learners: list[str]) -> None:
    print(f"\n== {name}  (n={ds['n']}, d={ds['d']}, m={ds['m']}; folds run: {ds['folds_run']}/{ds['n_folds']}) ==")
    print(f"{'learner':<22} {'fit s':>9} {'predict s':>10} {'tau':>7} {'peak MiB':>9} {'errors':>6}")
    for learner in learners:
        s = summ.get(learner)
        if s:
            print(
                f"{learner:<22} {_fmt(s['fit_s'], '9.3f')} {_fmt(s['predict_s'], '10.4f')} {_fmt(s['tau'], '7.4f')} "
                f"{_fmt(s['peak_mib'], '9.1f')} {s['errors']:>6}"
            )
    for peer, mine in RATIO_PAIRS:
        f, p = summ["ratios"].get(f"fit_{peer}_over_{mine}"), summ["ratios"].get(f"predict_{peer}_over_{mine}")
        if f is not None or p is not None:
            fs = "-" if f is None else f"{f:.2f}x"
            ps = "-" if p is None else f"{p:.2f}x"
            print(f"ratio {peer}/{mine}: fit {fs}, predict {ps}")
    sys.stdout.flush()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--groups", default="bagging,ibpl,labelwise")
    ap.add_argument("--datasets", default="stock,segment,vowel,pendigits,calhousing")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--max-folds", type=int, default=None)
    ap.add_argument("--trees", type=int, default=50, help="members of the bagged ensembles")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default=None, help="run only learners whose name contains this")
    ap.add_argument("--out", default=str(BENCH / "results" / "ensemble_speed.json"))
    args = ap.parse_args(argv)
    learners = [l for g in args.groups.split(",") for l in GROUPS[g]]
    if args.only:
        learners = [l for l in learners if args.only in l]
    for py in {python_for(l) for l in learners}:
        if not py.exists():
            raise SystemExit(f"{py} not found: run bench/setup_env.sh")
    out = Path(args.out)
    payload = {
        "benchmark": "ensemble_speed",
        "machine": machine_info(),
        "config": {
            "groups": args.groups,
            "folds": args.folds,
            "max_folds": args.max_folds,
            "trees": args.trees,
            "seed": args.seed,
            "learners": learners,
        },
        "datasets": {},
    }
    for name in args.datasets.split(","):
        X, Y = load_kebi(name)
        folds = kfold_indices(len(X), args.folds, args.seed)
        k_run = len(folds) if args.max_folds is None else min(args.max_folds, len(folds))
        ds = {
            "n": len(X),
            "d": X.shape[1],
            "m": Y.shape[1],
            "n_folds": args.folds,
            "folds_run": 0,
            "runs": {l: [] for l in learners},
        }
        payload["datasets"][name] = ds
        for k in range(k_run):
            tr, te = folds[k]
            for learner in learners:
                t0 = time.perf_counter()
                try:
                    res = run_worker(learner, X[tr], Y[tr], X[te], args.seed, args.trees)
                except Exception as exc:  # keep going; record the failure
                    log(f"{name} fold {k + 1} {learner}: FAILED: {exc}")
                    ds["runs"][learner].append({"fold": k, "error": str(exc)})
                    continue
                pred = res.pop("pred")
                res.update(
                    tau=float(np.nanmean(kendall_tau_rows(Y[te], pred))), fold=k, wall_s=time.perf_counter() - t0
                )
                ds["runs"][learner].append(res)
                log(
                    f"{name} fold {k + 1}/{k_run} {learner}: fit {res['fit_s']:.3f}s predict {res['predict_s']:.4f}s "
                    f"tau {res['tau']:.4f}"
                )
            ds["folds_run"] = k + 1
            ds["summary"] = summarize(ds)
            write_json(out, payload)
        print_table(name, ds, ds["summary"], learners)
    log(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
