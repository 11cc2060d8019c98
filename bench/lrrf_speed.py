"""Speed/accuracy benchmark: lrank's LR-RF random forest against scikit-lr 0.3.0.

Usage (after ``bash bench/setup_env.sh``)::

    bench/.venv313/bin/python bench/lrrf_speed.py \
        [--datasets stock,segment,vowel,pendigits,calhousing,fried] [--folds 10] \
        [--max-folds K] [--seed 0] [--trees 50] [--max-depth 8] [--peer-max-depth 0] \
        [--only lrank|peer] [--out bench/results/lrrf_speed.json]

Every learner sees the same shuffled K-fold splits (a permutation drawn from
``numpy.random.default_rng(seed)`` cut into ``--folds`` nearly equal parts, as
``sklearn.model_selection.KFold(shuffle=True)`` does, without needing sklearn
in this process). For each dataset and fold, each learner runs fit + predict in
a fresh ``spawn`` child process, so that its peak memory is not polluted by the
other learners; the child reports fit and predict wall time (``perf_counter``),
its peak resident set (``VmHWM`` from ``/proc/self/status``, which belongs to
the child's own address space after ``exec``; ``ru_maxrss`` is the fallback)
and its resident set just before ``fit`` (after imports and data transfer), and
sends the predicted rankings back. Kendall's tau is computed here, in numpy.

Learners
--------
``lrank_j1`` / ``lrank_j2``
    ``lrank.LabelRankingRandomForest(n_estimators=T, max_depth=D,
    random_state=seed, n_jobs=1 or 2)``; ``fit(X, Y)`` with X float64 (n, d) and
    Y int32 (n, m) holding 1-based label positions (0 = label not ranked);
    ``predict(X)`` returns the int32 position matrix.

``peer``
    scikit-lr 0.3.0 has no ensemble, so :class:`BaggedSklrTrees` bags ``T``
    ``sklr.tree.DecisionTreeLabelRanker(max_features="sqrt", max_depth=P,
    random_state=r_t)`` trees (P = ``--peer-max-depth``, default 0 = None, i.e.
    scikit-lr's default of fully grown trees, which is what the reference
    numbers in the issue -- about 15 s per calhousing fold, tau about .40 --
    correspond to; ``--peer-max-depth 8`` gives a depth-matched comparison), each fitted on a bootstrap sample of n rows
    (rows drawn with replacement and duplicated, not sample weights), with
    its default (and only) criterion ``"mallows"`` and default
    ``splitter="best"``, ``max_iter=100``. Prediction is a Borda count of
    the trees' predicted rankings: the label at position r (1-based) of m gets
    m - r points; labels are ranked by total points, ties going to the lower
    label index.

scikit-lr 0.3.0 conventions (read from its installed sources)
--------------------------------------------------------------
* ``from sklr.tree import DecisionTreeLabelRanker``::

      DecisionTreeLabelRanker(*, criterion="mallows", splitter="best",
          max_depth=None, min_samples_split=2, min_samples_leaf=1,
          min_weight_fraction_leaf=0.0, max_features=None, random_state=None,
          max_leaf_nodes=None, min_impurity_decrease=0.0, ccp_alpha=0.0,
          max_iter=100)

  ``"mallows"`` is the only criterion (Cheng, Huehn & Huellermeier 2009: node
  impurity ``1 / (1 + theta_hat)`` of the node's Mallows model, split chosen to
  minimise the weighted child impurity as in sklearn's trees; leaves predict
  the Mallows centre ranking). It is built on sklearn's ``BaseDecisionTree``;
  X is converted to float32. ``max_features`` accepts int, float, "sqrt",
  "log2" or None (= all features, the default). ``fit(X, y, sample_weight=None)``.
* ``from sklr.neighbors import KNeighborsLabelRanker``::

      KNeighborsLabelRanker(n_neighbors=5, *, model="mallows"|"plackett_luce",
          weights="uniform"|"distance"|"dudani"|callable, algorithm="auto",
          leaf_size=30, p=2, metric="minkowski", metric_params=None, ...)

* Rankings (y and predictions): shape (n_samples, n_labels); ``y[i, j]`` is the
  **1-based position** of label j in ranking i (1 = most preferred), i.e. the
  same layout as the KEBI label columns and lrank's Y. Positions of the ranked
  labels must be dense from 1. A label that is not ranked is **NaN** (so y must
  be float for incomplete rankings); 0 is *rejected* ("Expected the positions
  ... to be dense from 1"), as are 0-based positions. Label rankers reject ties
  (``allow_ties=False``); incomplete rankings are accepted by the tree and kNN.
* ``predict(X)`` returns an ``int64`` (np.intp) array (n_samples, n_labels) of
  1-based positions, complete and without ties.
* ``score(X, y)`` is ``sklr.metrics.kendall_tau_score`` (mean Kendall tau).
* Mallows centre estimation may emit ``ConvergenceWarning``s for incomplete
  rankings; the benchmark counts them (KEBI data are complete, so none occur).

Output: one table per dataset (means over the folds run) on stdout, progress
on stderr, and every raw number plus machine information in the JSON ``--out``
(rewritten after each fold, via ``OUT.tmp`` and an atomic rename).
"""

from __future__ import annotations

import argparse
import csv
import datetime as _dt
import importlib.metadata as _md
import json
import multiprocessing as mp
import os
import platform
import resource
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from settle import settle

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "kebi-csv"
DEFAULT_DATASETS = "stock,segment,vowel,pendigits,calhousing,fried"
LEARNERS_ALL = ("peer", "lrank_j1", "lrank_j2")


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------- data


def load_kebi(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Read ``NAME.csv`` (header A1..Ad, L1..Lk) into X float64 and Y int32."""
    path = DATA_DIR / f"{name}.csv"
    with path.open(newline="") as fh:
        reader = csv.reader(fh)
        header = [h.strip() for h in next(reader)]
        rows = [r for r in reader if r]
    a_cols = [i for i, h in enumerate(header) if h.startswith("A")]
    l_cols = [i for i, h in enumerate(header) if h.startswith("L")]
    if not a_cols or not l_cols or len(a_cols) + len(l_cols) != len(header):
        raise ValueError(f"{path}: unexpected header {header}")
    table = np.array(rows, dtype=object)
    X = table[:, a_cols].astype(np.float64)

    def pos(v: str) -> int:
        v = v.strip()
        return 0 if v in ("", "?", "nan", "NaN", "NA") else int(float(v))

    Y = np.vectorize(pos, otypes=[np.int32])(table[:, l_cols])
    return np.ascontiguousarray(X), np.ascontiguousarray(Y)


def kfold_indices(n: int, n_folds: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Shuffled K-fold: permute with default_rng(seed), cut in n_folds parts."""
    perm = np.random.default_rng(seed).permutation(n)
    parts = np.array_split(perm, n_folds)
    folds = []
    for k in range(n_folds):
        test = np.sort(parts[k])
        train = np.sort(np.concatenate([parts[j] for j in range(n_folds) if j != k]))
        folds.append((train, test))
    return folds


# ------------------------------------------------------------------ metrics


def kendall_tau_rows(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
    """Kendall tau of each row of two position matrices (1-based, 0 = unranked).

    Only label pairs ranked in both rows count; for complete rankings this is
    ``1 - 4 * discordant / (m * (m - 1))``. Rows with no comparable pair are NaN.
    """
    t = np.asarray(y_true, dtype=np.int64)
    p = np.asarray(y_pred, dtype=np.int64)
    m = t.shape[1]
    iu, ju = np.triu_indices(m, k=1)
    st = np.sign(t[:, iu] - t[:, ju])
    sp = np.sign(p[:, iu] - p[:, ju])
    valid = (t[:, iu] > 0) & (t[:, ju] > 0) & (p[:, iu] > 0) & (p[:, ju] > 0)
    n_pairs = valid.sum(axis=1)
    prod = st * sp
    conc = ((prod > 0) & valid).sum(axis=1)
    disc = ((prod < 0) & valid).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n_pairs > 0, (conc - disc) / n_pairs, np.nan)


# --------------------------------------------------------------------- peer


def borda_positions(preds: np.ndarray) -> np.ndarray:
    """Aggregate position matrices ``preds`` (T, n, m), 1-based, by Borda count.

    Label at position r of m gets m - r points; labels are ordered by total
    points (descending), ties to the lower label index. Returns (n, m) int32
    1-based positions.
    """
    _, n, m = preds.shape
    points = (m - preds.astype(np.int64)).sum(axis=0)  # (n, m)
    order = np.argsort(-points, axis=1, kind="stable")  # labels, best first
    out = np.empty((n, m), dtype=np.int32)
    np.put_along_axis(out, order, np.arange(1, m + 1, dtype=np.int32)[None, :].repeat(n, 0), axis=1)
    return out


class BaggedSklrTrees:
    """Bootstrap ensemble of scikit-lr DecisionTreeLabelRanker, Borda aggregated."""

    def __init__(self, n_estimators=50, max_depth=None, max_features="sqrt", random_state=0):
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.max_features = max_features
        self.random_state = random_state

    def fit(self, X, Y):
        from sklr.tree import DecisionTreeLabelRanker

        X = np.asarray(X, dtype=np.float64)
        # lrank convention (0 = unranked) -> scikit-lr convention (NaN)
        Yf = np.asarray(Y, dtype=np.float64)
        Yf[Yf <= 0] = np.nan
        n = X.shape[0]
        rng = np.random.default_rng(self.random_state)
        self.estimators_ = []
        for _ in range(self.n_estimators):
            idx = rng.integers(0, n, size=n)
            tree = DecisionTreeLabelRanker(
                max_features=self.max_features,
                max_depth=self.max_depth,
                random_state=int(rng.integers(0, 2**31 - 1)),
            )
            tree.fit(X[idx], Yf[idx])
            self.estimators_.append(tree)
        return self

    def predict(self, X):
        X = np.asarray(X, dtype=np.float64)
        preds = np.stack([t.predict(X) for t in self.estimators_])
        return borda_positions(preds)


# -------------------------------------------------------------- child side


def _rss_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def run_learner(learner: str, X_tr, Y_tr, X_te, n_trees: int, max_depth, seed: int) -> dict:
    """Fit + predict one learner; meant to run in a fresh spawn child."""
    n_warn = 0
    if learner == "peer":
        import sklr  # noqa: F401  (import cost outside the timings)

        est = BaggedSklrTrees(n_estimators=n_trees, max_depth=max_depth, random_state=seed)
    elif learner.startswith("lrank_j"):
        from lrank import LabelRankingRandomForest

        n_jobs = int(learner[len("lrank_j") :])
        est = LabelRankingRandomForest(n_estimators=n_trees, max_depth=max_depth, random_state=seed, n_jobs=n_jobs)
    else:
        raise ValueError(f"unknown learner {learner!r}")
    X_tr = np.ascontiguousarray(X_tr, dtype=np.float64)
    Y_tr = np.ascontiguousarray(Y_tr, dtype=np.int32)
    X_te = np.ascontiguousarray(X_te, dtype=np.float64)
    rss_before = _rss_kib("VmRSS")
    settle()  # numpy's BLAS threads spin for a while after import: wait for a quiet machine
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        est.fit(X_tr, Y_tr)
        t1 = time.perf_counter()
        pred = est.predict(X_te)
        t2 = time.perf_counter()
        n_warn = len(caught)
    hwm = _rss_kib("VmHWM")
    if hwm is None:  # not Linux /proc: ru_maxrss (KiB on Linux, bytes on macOS)
        hwm = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        if sys.platform == "darwin":
            hwm //= 1024
    return {
        "fit_s": t1 - t0,
        "predict_s": t2 - t1,
        "peak_mib": hwm / 1024.0,
        "rss_before_fit_mib": (rss_before / 1024.0) if rss_before is not None else None,
        "n_warnings": n_warn,
        "pred": np.asarray(pred, dtype=np.int32),
    }


def run_in_child(ctx, *args) -> dict:
    with ProcessPoolExecutor(max_workers=1, mp_context=ctx) as ex:
        return ex.submit(run_learner, *args).result()


# ----------------------------------------------------------------- report


def dist_version(name: str) -> str | None:
    try:
        return _md.version(name)
    except _md.PackageNotFoundError:
        return None


def _module_version(mod: str) -> str | None:
    try:
        return getattr(__import__(mod), "__version__", None)
    except Exception:
        return None


def machine_info() -> dict:
    cpu = None
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_model": cpu or platform.processor(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": usable,
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        "numpy": np.__version__,
        "scikit_lr": dist_version("scikit-lr"),
        "scikit_learn": dist_version("scikit-learn"),
        "lrank": dist_version("lrank") or _module_version("lrank"),
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }


def _mean(vals):
    vals = [v for v in vals if v is not None and not (isinstance(v, float) and np.isnan(v))]
    return float(np.mean(vals)) if vals else None


def _fmt(v, spec):
    if v is None:
        width = "".join(ch for ch in spec.split(".")[0] if ch.isdigit())
        return "-".rjust(int(width or 1))
    return format(v, spec)


def _ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


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
            "rss_before_fit_mib": _mean([r["rss_before_fit_mib"] for r in ok]),
        }
    g = lambda l, k: summ.get(l, {}).get(k)  # noqa: E731
    summ["ratios"] = {
        "fit_peer_over_lrank_j1": _ratio(g("peer", "fit_s"), g("lrank_j1", "fit_s")),
        "predict_peer_over_lrank_j1": _ratio(g("peer", "predict_s"), g("lrank_j1", "predict_s")),
        "fit_peer_over_lrank_j2": _ratio(g("peer", "fit_s"), g("lrank_j2", "fit_s")),
        "predict_peer_over_lrank_j2": _ratio(g("peer", "predict_s"), g("lrank_j2", "predict_s")),
        "lrank_fit_speedup_j1_to_j2": _ratio(g("lrank_j1", "fit_s"), g("lrank_j2", "fit_s")),
        "lrank_predict_speedup_j1_to_j2": _ratio(g("lrank_j1", "predict_s"), g("lrank_j2", "predict_s")),
    }
    return summ


def print_table(name: str, ds: dict, summ: dict, cfg: dict) -> None:
    n, d, m = ds["n"], ds["d"], ds["m"]
    print(
        f"\n== {name}  (n={n}, d={d}, m={m}; folds run: {ds['folds_run']}/{ds['n_folds']}; "
        f"trees={cfg['trees']}, lrank max_depth={cfg['max_depth']}, peer max_depth={cfg['peer_max_depth']}) =="
    )
    print(f"{'learner':<10} {'fit s':>9} {'predict s':>10} {'tau':>7} {'peak MiB':>9} {'base MiB':>9} {'errors':>6}")
    for learner in LEARNERS_ALL:
        s = summ.get(learner)
        if not s:
            continue
        print(
            f"{learner:<10} {_fmt(s['fit_s'], '9.3f')} {_fmt(s['predict_s'], '10.4f')} "
            f"{_fmt(s['tau'], '7.4f')} {_fmt(s['peak_mib'], '9.1f')} "
            f"{_fmt(s['rss_before_fit_mib'], '9.1f')} {s['errors']:>6}"
        )
    r = summ["ratios"]
    lines = [
        ("fit  peer/lrank_j1", r["fit_peer_over_lrank_j1"]),
        ("pred peer/lrank_j1", r["predict_peer_over_lrank_j1"]),
        ("fit  peer/lrank_j2", r["fit_peer_over_lrank_j2"]),
        ("pred peer/lrank_j2", r["predict_peer_over_lrank_j2"]),
        ("lrank fit speed-up j1->j2", r["lrank_fit_speedup_j1_to_j2"]),
        ("lrank pred speed-up j1->j2", r["lrank_predict_speedup_j1_to_j2"]),
    ]
    shown = [f"{k} = {v:.2f}x" for k, v in lines if v is not None]
    if shown:
        print("ratios: " + "; ".join(shown))
    print("(base MiB = child RSS after imports + data, before fit; peak = VmHWM of the child)")
    sys.stdout.flush()


def write_json(path: Path, payload: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2) + "\n")
    os.replace(tmp, path)


# -------------------------------------------------------------------- main


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default=DEFAULT_DATASETS)
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--max-folds", type=int, default=None, help="run only the first K folds")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--trees", type=int, default=50)
    ap.add_argument("--max-depth", type=int, default=8, help="lrank max_depth; <=0 means unlimited")
    ap.add_argument(
        "--peer-max-depth",
        type=int,
        default=0,
        help="scikit-lr trees' max_depth; <=0 means None (scikit-lr default, fully grown)",
    )
    ap.add_argument("--only", choices=("lrank", "peer"), default=None)
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "lrrf_speed.json"))
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.folds < 2:
        raise SystemExit("--folds must be >= 2")
    max_depth = args.max_depth if args.max_depth > 0 else None
    peer_max_depth = args.peer_max_depth if args.peer_max_depth > 0 else None
    learners = [l for l in LEARNERS_ALL if args.only is None or l.startswith(args.only)]
    if any(l.startswith("lrank") for l in learners) and dist_version("lrank") is None:
        try:
            import lrank  # noqa: F401
        except ImportError:
            raise SystemExit(
                "lrank is not installed in this Python; run bench/setup_env.sh or use --only peer"
            ) from None
    if "peer" in learners and dist_version("scikit-lr") is None:
        raise SystemExit("scikit-lr is not installed in this Python; run bench/setup_env.sh or use --only lrank")

    ctx = mp.get_context("spawn")
    out = Path(args.out)
    payload = {
        "benchmark": "lrrf_speed",
        "machine": machine_info(),
        "config": {
            "datasets": args.datasets.split(","),
            "folds": args.folds,
            "max_folds": args.max_folds,
            "seed": args.seed,
            "trees": args.trees,
            "max_depth": max_depth,
            "peer_max_depth": peer_max_depth,
            "learners": learners,
            "peer": "BaggedSklrTrees: bootstrap(n) x DecisionTreeLabelRanker(criterion='mallows', "
            "max_features='sqrt', max_depth=peer_max_depth) + Borda aggregation",
            "lrank": "LabelRankingRandomForest(n_estimators, max_depth, random_state=seed, n_jobs)",
            "process": "each learner x fold in a fresh multiprocessing 'spawn' child",
            "data_dir": str(DATA_DIR),
        },
        "datasets": {},
    }
    log(
        f"learners={learners} datasets={args.datasets} folds={args.folds} max_folds={args.max_folds} "
        f"trees={args.trees} max_depth={max_depth} peer_max_depth={peer_max_depth} -> {out}"
    )

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
            for learner in learners:
                log(f"{name} fold {k + 1}/{k_run} {learner}: fit on {len(tr)}, predict {len(te)} ...")
                t_wall = time.perf_counter()
                try:
                    depth = peer_max_depth if learner == "peer" else max_depth
                    res = run_in_child(ctx, learner, X[tr], Y[tr], X[te], args.trees, depth, args.seed)
                except Exception as exc:  # keep going; record the failure
                    log(f"{name} fold {k + 1} {learner}: FAILED: {type(exc).__name__}: {exc}")
                    ds["runs"][learner].append({"fold": k, "error": f"{type(exc).__name__}: {exc}"})
                    continue
                pred = res.pop("pred")
                if pred.shape != Y[te].shape:
                    msg = f"predict returned shape {pred.shape}, expected {Y[te].shape}"
                    log(f"{name} fold {k + 1} {learner}: FAILED: {msg}")
                    ds["runs"][learner].append({"fold": k, "error": msg})
                    continue
                res["tau"] = float(np.nanmean(kendall_tau_rows(Y[te], pred)))
                res["fold"] = k
                res["n_train"] = int(len(tr))
                res["n_test"] = int(len(te))
                res["child_wall_s"] = time.perf_counter() - t_wall
                ds["runs"][learner].append(res)
                log(
                    f"{name} fold {k + 1}/{k_run} {learner}: fit {res['fit_s']:.3f}s "
                    f"predict {res['predict_s']:.4f}s tau {res['tau']:.4f} peak {res['peak_mib']:.1f} MiB"
                    + (f" warnings {res['n_warnings']}" if res["n_warnings"] else "")
                )
            ds["folds_run"] = k + 1
            ds["summary"] = summarize(ds)
            write_json(out, payload)
        ds["summary"] = summarize(ds)
        write_json(out, payload)
        print_table(name, ds, ds["summary"], payload["config"])
    log(f"wrote {out}")
    n_err = sum(1 for ds in payload["datasets"].values() for runs in ds["runs"].values() for r in runs if "error" in r)
    if n_err:
        log(f"{n_err} learner run(s) failed; see 'error' entries in {out}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
