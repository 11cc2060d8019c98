"""What every benchmark suite shares: data, fold splits, child processes, machine facts, results.

- Data: the KEBI sets in ``../shared/datasets/kebi-csv`` beside the repository (``kebi_dir``,
  ``load_kebi``); a suite whose data is missing stops with a ``SKIPPED:`` message and status 0.
- Folds: ``kfold_indices`` is the one split that lrank and its peer both get in the speed and
  tau suites (a permutation from ``numpy.random.default_rng(seed)`` cut in K nearly equal parts,
  as ``KFold(shuffle=True)`` does, without needing scikit-learn).
- Child processes: ``run_child`` runs one learner's fit and predict in a fresh interpreter
  (``python -m bench.child``) with a timeout; the child reports its times and peak memory.
  Learners whose library is missing from the interpreter that would run them are skipped
  with the reason (``unavailable``).
- Machine facts: ``machine_facts`` (CPU model, cores, memory, OS, Python, rustc, package
  versions, git commit and uncommitted files, date), recorded in every JSON result.
- The speed-suite loop shared by ``bench.speed_sklr`` and ``bench.speed_sklearn``
  (``add_speed_arguments``, ``run_speed_suite``, ``report_saved``): every learner on the same
  folds, repeats interleaved, peer/lrank time ratios with a bootstrap interval, side by side.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import importlib.metadata as md
import importlib.util
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import numpy as np

from bench import child

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
RESULTS = BENCH / "results"
KEBI_DIR = REPO.parent / "shared" / "datasets" / "kebi-csv"
PEER_PYTHON = BENCH / ".venv313" / "bin" / "python"
PY37 = BENCH / ".venv37" / "bin" / "python"
SETUP_HINT = "run `bash bench/setup_env.sh` and start the suite with bench/.venv313/bin/python"
SPEED_DATASETS = "stock,segment,vowel,pendigits,calhousing"


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def skip(reason: str) -> NoReturn:
    """Stop a suite that cannot run here, cleanly: a message and exit status 0."""
    print(f"SKIPPED: {reason}", file=sys.stderr, flush=True)
    raise SystemExit(0)


# ------------------------------------------------------------------------------ data


def kebi_dir(path: str | None = None) -> Path:
    """The KEBI CSV folder: ``path``, else $LRANK_BENCH_KEBI, else ../shared/datasets/kebi-csv."""
    folder = Path(path or os.environ.get("LRANK_BENCH_KEBI") or KEBI_DIR)
    if not folder.is_dir():
        skip(
            f"KEBI data not found at {folder} (the suites read ../shared/datasets/kebi-csv beside the "
            "repository; --data-dir or LRANK_BENCH_KEBI point elsewhere)"
        )
    return folder


def dataset_names(text: str, folder: Path) -> list[str]:
    names = [s.strip() for s in text.split(",") if s.strip()]
    missing = [n for n in names if not (folder / f"{n}.csv").is_file()]
    if missing:
        raise SystemExit(f"no such data set in {folder}: {', '.join(missing)}")
    return names


def load_kebi(name: str, folder: Path) -> tuple[np.ndarray, np.ndarray]:
    """``NAME.csv`` (header A1..Ad, L1..Lk; L = the label's 1-based position) as X float64, Y int32."""
    path = folder / f"{name}.csv"
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

    def position(v: str) -> int:
        v = v.strip()
        return 0 if v in ("", "?", "nan", "NaN", "NA") else int(float(v))

    Y = np.vectorize(position, otypes=[np.int32])(table[:, l_cols])
    return np.ascontiguousarray(X), np.ascontiguousarray(Y)


def kfold_indices(n: int, n_folds: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Shuffled K-fold: (train, test) row indices, both sorted; the permutation is default_rng(seed)'s."""
    parts = np.array_split(np.random.default_rng(seed).permutation(n), n_folds)
    return [
        (np.sort(np.concatenate([parts[j] for j in range(n_folds) if j != k])), np.sort(parts[k]))
        for k in range(n_folds)
    ]


def kendall_tau_rows(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
    """Kendall tau of each row of two position matrices (1-based, 0 = unranked).

    Only label pairs ranked in both rows count; for complete rankings this is
    1 - 4 * discordant / (m * (m - 1)). Rows without a comparable pair are NaN.
    """
    t = np.asarray(y_true, dtype=np.int64)
    p = np.asarray(y_pred, dtype=np.int64)
    iu, ju = np.triu_indices(t.shape[1], k=1)
    agree = np.sign(t[:, iu] - t[:, ju]) * np.sign(p[:, iu] - p[:, ju])
    valid = (t[:, iu] > 0) & (t[:, ju] > 0) & (p[:, iu] > 0) & (p[:, ju] > 0)
    n_pairs = valid.sum(axis=1)
    diff = ((agree > 0) & valid).sum(axis=1) - ((agree < 0) & valid).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n_pairs > 0, diff / n_pairs, np.nan)


def mean_tau(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    return float(np.nanmean(kendall_tau_rows(y_true, y_pred)))


def tau_x_rows(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
    """Kendall's tau_x (Emond & Mason 2002) of each row of two position matrices, ties allowed:
    over ordered pairs (u, v) of labels ranked in both, a_uv = 1 if u is before or tied with v,
    else -1; tau_x = sum a_uv b_uv / (k (k - 1)). Rows with fewer than two common labels are NaN."""
    t = np.asarray(y_true, dtype=np.int64)
    p = np.asarray(y_pred, dtype=np.int64)
    iu, ju = np.triu_indices(t.shape[1], k=1)
    valid = (t[:, iu] > 0) & (t[:, ju] > 0) & (p[:, iu] > 0) & (p[:, ju] > 0)

    def score(r: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.where(r[:, a] <= r[:, b], 1, -1)

    both_ways = score(t, iu, ju) * score(p, iu, ju) + score(t, ju, iu) * score(p, ju, iu)
    total = np.where(valid, both_ways, 0).sum(axis=1)
    common = ((t > 0) & (p > 0)).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(common > 1, total / (common * (common - 1.0)), np.nan)


def mean_tau_x(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    return float(np.nanmean(tau_x_rows(y_true, y_pred)))


# ------------------------------------------------------------------------- machine facts


def _output(*cmd: str, cwd: Path | None = None) -> str | None:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def _first_line_starting(path: str, prefix: str) -> str | None:
    try:
        with open(path) as fh:
            for line in fh:
                if line.startswith(prefix):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def dist_version(name: str) -> str | None:
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return None


def interpreter_facts(python: Path) -> dict | None:
    """Python and scikit-lr/numpy versions of another interpreter (bench/.venv37)."""
    code = (
        "import json, platform\nfrom importlib import import_module\nv = {'python': platform.python_version()}\n"
        "for m in ('numpy', 'sklr'):\n    try: v[m] = import_module(m).__version__\n    except Exception: v[m] = None\n"
        "print(json.dumps(v))"
    )
    out = _output(str(python), "-c", code)
    return json.loads(out) if out else None


def machine_facts() -> dict:
    """CPU model, cores, memory, OS, Python, rustc, package versions, git commit, date."""
    usable: int | None
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    mem_kib = _first_line_starting("/proc/meminfo", "MemTotal")
    status = _output("git", "status", "--porcelain", "--untracked-files=no", cwd=REPO)
    return {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "cpu_model": _first_line_starting("/proc/cpuinfo", "model name") or platform.processor() or None,
        "cores": os.cpu_count(),
        "cores_usable": usable,
        "memory_gib": round(int(mem_kib.split()[0]) / 2**20, 1) if mem_kib else None,
        "os": platform.platform(),
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "rustc": _output("rustc", "--version"),
        "packages": {
            name: dist_version(name)
            for name in ("lrank", "numpy", "scikit-lr", "scikit-learn", "threadpoolctl", "polars")
        },
        "git": {
            "commit": _output("git", "rev-parse", "HEAD", cwd=REPO),
            "uncommitted": status.splitlines() if status else [],
        },
    }


def describe_machine(facts: dict) -> str:
    """One line for a table's header; reads new and old (pre-suite) JSON files alike."""
    git = facts.get("git") or {}
    commit = (git.get("commit") or git.get("head") or "?")[:10]
    if git.get("uncommitted") or git.get("dirty_files"):
        commit += " + uncommitted changes"
    packages = facts.get("packages") or {}
    lrank = packages.get("lrank") or facts.get("lrank") or "?"
    cpu = facts.get("cpu_model") or facts.get("cpu") or "?"
    cores = facts.get("cores") or facts.get("cpu_count") or "?"
    rustc = f", {facts['rustc']}" if facts.get("rustc") else ""
    return (
        f"{facts.get('date', '?')}; {cpu}, {cores} cores; {facts.get('os') or facts.get('platform', '?')}; "
        f"Python {facts.get('python', '?')}{rustc}; lrank {lrank} at {commit}"
    )


def write_json(path: Path, payload: dict) -> None:
    """Write atomically (OUT.tmp, then rename), so an interrupted run leaves the last whole file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2) + "\n")
    os.replace(tmp, path)


def command_line(module: str, argv: list[str] | None) -> str:
    return f"python -m {module} {shlex.join(sys.argv[1:] if argv is None else argv)}".strip()


# ------------------------------------------------------------------------- child processes


class ChildError(RuntimeError):
    """A learner's child process failed, timed out or returned nothing usable."""


_interpreter_checks: dict[str, str | None] = {}


def python_for(learner: str) -> str:
    """scikit-lr 0.2.0 runs in bench/.venv37; every other learner in this suite's interpreter."""
    return str(PY37) if child.implementation(learner) == "sklr02" else sys.executable


def unavailable(learner: str) -> str | None:
    """Why ``learner`` cannot run here, or None when its library is installed."""
    impl = child.implementation(learner)
    if impl == "sklr02":
        if "py37" not in _interpreter_checks:
            facts = interpreter_facts(PY37) if PY37.exists() else None
            ok = facts is not None and str(facts.get("sklr")).startswith("0.2.")
            _interpreter_checks["py37"] = (
                None if ok else f"{PY37} with scikit-lr 0.2.0 not found: run `bash bench/setup_env.sh`"
            )
        return _interpreter_checks["py37"]
    module, dist = {"lrank": ("lrank", "lrank"), "sklr": ("sklr", "scikit-lr"), "sklearn": ("sklearn", "scikit-learn")}[
        impl
    ]
    if importlib.util.find_spec(module) is None:
        return f"{dist} is not installed in {sys.executable}; {SETUP_HINT}"
    if impl == "sklr" and not (dist_version("scikit-lr") or "").startswith("0.3."):
        return f"the peer is scikit-lr 0.3.0, this Python has {dist_version('scikit-lr')}; {SETUP_HINT}"
    if learner.endswith("_1t") and importlib.util.find_spec("threadpoolctl") is None:
        return f"threadpoolctl is not installed in {sys.executable}; {SETUP_HINT}"
    return None


def run_child(
    learner: str, params: dict, X_tr: np.ndarray, Y_tr: np.ndarray, X_te: np.ndarray, timeout: float
) -> tuple[np.ndarray, dict]:
    """Fit and predict ``learner`` in a fresh process; its predicted positions and measurements.

    The child (``python -m bench.child``) runs in an empty temporary folder with the repository
    root on PYTHONPATH, under ``python_for(learner)``; it is killed after ``timeout`` seconds.
    """
    with tempfile.TemporaryDirectory(prefix="lrank-bench-") as tmp:
        src, dst = Path(tmp) / "in.npz", Path(tmp) / "out.npz"
        spec = json.dumps({"learner": learner, "params": params})
        np.savez(src, X_tr=X_tr, Y_tr=Y_tr, X_te=X_te, spec=np.array(spec))
        path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
        try:
            proc = subprocess.run(
                [python_for(learner), "-m", "bench.child", str(src), str(dst)],
                cwd=tmp,
                env=dict(os.environ, PYTHONPATH=path),
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            raise ChildError(f"timed out after {timeout:g} s") from None
        if proc.returncode != 0 or not dst.exists():
            lines = proc.stderr.strip().splitlines()
            raise ChildError(lines[-1] if lines else f"exit status {proc.returncode}")
        with np.load(dst) as out:
            return out["pred"], json.loads(str(out["result"]))


# ------------------------------------------------------------------------- speed suites


@dataclass
class SpeedSuite:
    """A speed suite: its learners in groups, and the (peer, lrank) pairs whose time ratios it prints."""

    module: str
    title: str
    groups: dict[str, list[str]]
    pairs: list[tuple[str, str]]


# Learner names of the scripts before the suite (bench/lrrf_speed.py), for --report of old files.
OLD_NAMES = {"peer": "lrrf_sklr", "lrank_j1": "lrrf_lrank_j1", "lrank_j2": "lrrf_lrank_j2"}


def add_speed_arguments(ap: argparse.ArgumentParser, datasets: str) -> None:
    ap.add_argument("--datasets", default=datasets, help=f"KEBI file names (default: {datasets})")
    ap.add_argument("--folds", type=int, default=10, help="K of the shuffled K-fold split (default: 10)")
    ap.add_argument("--max-folds", type=int, default=None, help="run only the first K folds of the split")
    ap.add_argument(
        "--repeats", type=int, default=1, help="fresh processes per learner and fold, interleaved; the median counts"
    )
    ap.add_argument("--seed", type=int, default=0, help="seed of the split and of every learner (default: 0)")
    ap.add_argument("--only", default=None, help="run only the learners whose name contains this")
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds before a child is killed (default: 3600)")
    ap.add_argument("--data-dir", default=None, help="KEBI CSV folder (default: ../shared/datasets/kebi-csv)")
    ap.add_argument("--out", default=None, help="write every number to this JSON file (e.g. bench/results/NAME.json)")
    ap.add_argument("--report", metavar="JSON", default=None, help="run nothing: print the tables of a saved --out")


def _mean(values: list) -> float | None:
    values = [v for v in values if v is not None and not (isinstance(v, float) and np.isnan(v))]
    return float(np.mean(values)) if values else None


def _fmt(value: float | None, spec: str) -> str:
    if value is None:
        return "-".rjust(int(spec.split(".")[0] or 1))
    return format(value, spec)


def ratio_interval(peer_runs: list[dict], mine_runs: list[dict], key: str) -> list[float] | None:
    """95% paired bootstrap interval (over folds) of mean(peer) / mean(lrank), when lrank.stats is here."""
    try:
        from lrank.stats import ratio_of_means_interval
    except ImportError:
        return None
    mine = {r["fold"]: float(r[key]) for r in mine_runs if "error" not in r and r.get(key) is not None}
    peer = {r["fold"]: float(r[key]) for r in peer_runs if "error" not in r and r.get(key) is not None}
    folds = [k for k in peer if k in mine]
    if len(folds) < 2 or any(mine[k] <= 0 for k in folds):
        return None
    res = ratio_of_means_interval([peer[k] for k in folds], [mine[k] for k in folds], level=0.95, seed=0)
    return [res.low, res.high]


def summarize(ds: dict, pairs: list[tuple[str, str]]) -> dict:
    """Means over the folds per learner, and time ratios (with intervals) per (peer, lrank) pair."""
    summary: dict = {"learners": {}, "ratios": {}}
    for learner, runs in ds["runs"].items():
        ok = [r for r in runs if "error" not in r]
        s: dict = {"folds": len(ok), "errors": len(runs) - len(ok)}
        for key in ("fit_s", "predict_s", "predict2_s", "tau", "tau_x", "peak_mib", "tree_depth", "tree_leaves"):
            s[key] = _mean([r.get(key) for r in ok])
        s["base_mib"] = _mean([r.get("base_mib", r.get("rss_before_fit_mib")) for r in ok])
        summary["learners"][learner] = s
    stats = summary["learners"]
    for peer, mine in pairs:
        if peer not in stats or mine not in stats:
            continue
        entry = {}
        for what in ("fit", "predict", "predict2"):
            a, b = stats[peer][f"{what}_s"], stats[mine][f"{what}_s"]
            if a is None or not b:
                continue
            entry[what] = a / b
            interval = ratio_interval(ds["runs"][peer], ds["runs"][mine], f"{what}_s")
            if interval is not None:
                entry[f"{what}_interval_95"] = interval
        summary["ratios"][f"{peer}/{mine}"] = entry
    return summary


def print_table(name: str, ds: dict, summary: dict, repeats: int | None) -> None:
    median = f", median of {repeats} runs each" if repeats and repeats > 1 else ""
    print(
        f"\n== {name}  (n={ds['n']}, d={ds['d']}, m={ds['m']}; folds run: {ds['folds_run']}/{ds['n_folds']}{median}) =="
    )
    print(
        f"{'learner':<24} {'fit s':>9} {'predict s':>10} {'again s':>10} {'tau':>7} {'tau_x':>7} {'peak MiB':>9} "
        f"{'base MiB':>9} {'errors':>6}"
    )
    for learner, s in summary["learners"].items():
        print(
            f"{learner:<24} {_fmt(s['fit_s'], '9.3f')} {_fmt(s['predict_s'], '10.4f')} "
            f"{_fmt(s['predict2_s'], '10.4f')} {_fmt(s['tau'], '7.4f')} {_fmt(s.get('tau_x'), '7.4f')} "
            f"{_fmt(s['peak_mib'], '9.1f')} "
            f"{_fmt(s['base_mib'], '9.1f')} {s['errors']:>6}"
        )
    tree = summary["learners"].get("lrt_sklr", {})
    if tree.get("tree_depth") is not None:
        print(f"(scikit-lr tree: mean depth {tree['tree_depth']:.1f}, mean leaves {tree['tree_leaves']:.0f})")
    if summary["ratios"]:
        print("time ratios, peer / lrank (above 1: lrank is faster); [95% bootstrap interval over the folds]:")

    def show(entry: dict, what: str) -> str:
        if what not in entry:
            return "-"
        low_high = entry.get(f"{what}_interval_95")
        return f"{entry[what]:.2f}x" + (f" [{low_high[0]:.2f}, {low_high[1]:.2f}]" if low_high else "")

    for pair, entry in summary["ratios"].items():
        print(
            f"  {pair:<40} fit {show(entry, 'fit'):<22} predict {show(entry, 'predict'):<22} "
            f"second predict {show(entry, 'predict2')}"
        )
    print("(again = a second predict of the same rows; base MiB = child's RSS before fit; peak = its VmHWM)")
    sys.stdout.flush()


def _run_fold(
    name: str, k: int, k_run: int, X, Y, tr, te, learners: list[str], params: dict, args: argparse.Namespace
) -> dict[str, dict]:
    """Every learner on fold k, ``args.repeats`` times interleaved; each learner's fold record."""
    trials: dict[str, list[dict]] = {learner: [] for learner in learners}
    for rep in range(args.repeats):
        for learner in learners:
            if trials[learner] and "error" in trials[learner][-1]:
                continue
            log(f"{name} fold {k + 1}/{k_run} run {rep + 1}/{args.repeats} {learner}: fit {len(tr)}, predict {len(te)}")
            t_wall = time.perf_counter()
            try:
                pred, res = run_child(learner, params, X[tr], Y[tr], X[te], args.timeout)
                if pred.shape != Y[te].shape:
                    raise ChildError(f"predict returned shape {pred.shape}, expected {Y[te].shape}")
            except ChildError as exc:
                log(f"{name} fold {k + 1} {learner}: FAILED: {exc}")
                trials[learner].append({"fold": k, "error": str(exc)})
                continue
            res["tau"] = mean_tau(Y[te], pred)
            res["tau_x"] = mean_tau_x(Y[te], pred)
            res["child_wall_s"] = time.perf_counter() - t_wall
            trials[learner].append(res)
            warned = f" warnings {res['n_warnings']} {res['warning_kinds']}" if res["n_warnings"] else ""
            log(
                f"{name} fold {k + 1}/{k_run} {learner}: fit {res['fit_s']:.3f}s predict {res['predict_s']:.4f}s "
                f"(again {res['predict2_s']:.4f}s) tau {res['tau']:.4f} peak {res['peak_mib']:.1f} MiB{warned}"
            )
    records = {}
    for learner, runs in trials.items():
        if not runs or "error" in runs[-1]:
            records[learner] = runs[-1] if runs else {"fold": k, "error": "not run"}
            continue
        rec = dict(runs[0])
        for key in ("fit_s", "predict_s", "predict2_s"):
            rec[f"{key}_runs"] = [r[key] for r in runs]
            rec[key] = float(np.median(rec[f"{key}_runs"]))
        rec["tau_runs"] = [r["tau"] for r in runs]
        if len(set(rec["tau_runs"])) > 1:
            log(f"{name} fold {k + 1} {learner}: tau differs between runs: {rec['tau_runs']}")
        if not all(r["second_predict_identical"] for r in runs):
            log(f"{name} fold {k + 1} {learner}: a second predict of the same rows differed")
        rec.update(fold=k, n_train=int(len(tr)), n_test=int(len(te)))
        records[learner] = rec
    return records


def run_speed_suite(
    suite: SpeedSuite, args: argparse.Namespace, learners: list[str], params: dict, config: dict, argv=None
) -> int:
    """Run ``learners`` on every fold of every data set; print the tables; write ``args.out``."""
    if args.folds < 2 or args.repeats < 1:
        raise SystemExit("--folds must be >= 2 and --repeats >= 1")
    folder = kebi_dir(args.data_dir)
    names = dataset_names(args.datasets, folder)
    skipped = {}
    for learner in learners:
        reason = unavailable(learner)
        if reason is not None:
            skipped[learner] = reason
            log(f"skipping {learner}: {reason}")
    learners = [learner for learner in learners if learner not in skipped]
    if not learners:
        skip("no learner of this suite can run in this Python (see the reasons above)")
    facts = machine_facts()
    if any(child.implementation(learner) == "sklr02" for learner in learners):
        facts["python37"] = interpreter_facts(PY37)
    if not any(peer in learners and mine in learners for peer, mine in suite.pairs):
        log("no peer and lrank pair left to compare: times only, no ratios")
    out = Path(args.out) if args.out else None
    payload: dict = {
        "suite": suite.module,
        "command": command_line(suite.module, argv),
        "machine": facts,
        "config": dict(
            config,
            datasets=names,
            folds=args.folds,
            max_folds=args.max_folds,
            repeats=args.repeats,
            seed=args.seed,
            learners=learners,
            params=params,
            data_dir=str(folder),
            process="each learner x fold x repeat in a fresh `python -m bench.child` process",
        ),
        "skipped": skipped,
        "datasets": {},
    }
    print(f"{suite.title}\nmachine: {describe_machine(facts)}")
    for name in names:
        X, Y = load_kebi(name, folder)
        folds = kfold_indices(len(X), args.folds, args.seed)
        k_run = len(folds) if args.max_folds is None else min(args.max_folds, len(folds))
        ds = {
            "n": int(X.shape[0]),
            "d": int(X.shape[1]),
            "m": int(Y.shape[1]),
            "n_folds": args.folds,
            "folds_run": 0,
            "runs": {learner: [] for learner in learners},
        }
        payload["datasets"][name] = ds
        for k in range(k_run):
            tr, te = folds[k]
            for learner, record in _run_fold(name, k, k_run, X, Y, tr, te, learners, params, args).items():
                ds["runs"][learner].append(record)
            ds["folds_run"] = k + 1
            if out:
                ds["summary"] = summarize(ds, suite.pairs)
                write_json(out, payload)
        ds["summary"] = summarize(ds, suite.pairs)
        if out:
            write_json(out, payload)
        print_table(name, ds, ds["summary"], args.repeats)
    if out:
        log(f"wrote {out}")
    failed = sum("error" in r for ds in payload["datasets"].values() for runs in ds["runs"].values() for r in runs)
    if failed:
        log(f"{failed} learner run(s) failed; see the 'error' entries" + (f" in {out}" if out else " above"))
        return 1
    return 0


def report_saved(suite: SpeedSuite, path: str) -> int:
    """Print the tables of a saved run (this suite's or a pre-suite script's JSON), recomputing ratios."""
    try:
        payload = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise SystemExit(f"cannot read {path}: {exc}") from None
    facts = dict(payload.get("machine", {}))
    facts.setdefault("git", payload.get("git", {}))
    print(f"saved run {path}\nmachine: {describe_machine(facts)}")
    if payload.get("command"):
        print(f"command: {payload['command']}")
    repeats = payload.get("config", {}).get("repeats")
    for name, ds in payload["datasets"].items():
        ds = dict(ds, runs={OLD_NAMES.get(learner, learner): runs for learner, runs in ds["runs"].items()})
        print_table(name, ds, summarize(ds, suite.pairs), repeats)
    return 0
