"""Accuracy reproduction: the papers' protocol (5 x 10-fold CV, Kendall tau) on the KEBI sets.

    .venv/bin/python bench/accuracy.py [-W LRRF] [--options "-I 50"] [--missing 0,0.3,0.6]
        [--datasets iris,glass,...] [--folds 10] [--repeats 5] [--seed 1]
        [--out bench/results/accuracy_LRRF.json]

Runs lrank's own cross-validation (stratified by top label; repeat r uses seed s + r for its
folds and its label deletion; test rankings stay complete) on ``../shared/datasets/kebi-csv``,
prints tau (mean +- std over the 50 folds) next to the published value, and writes every
number to JSON. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from datetime import date
from pathlib import Path

from lrank import __version__
from lrank.data import read_dataset
from lrank.evaluation import cross_validate
from lrank.registry import get_learner

sys.path.insert(0, str(Path(__file__).resolve().parent))
from published import BAGGED_FLRT, BAGGED_LRT, BAGGED_WLRT, DATASETS, IBLR, IBPL, LRRF, LRT, RPC

PUBLISHED = {
    "LRRF": LRRF,
    "IBLR": IBLR,
    "LRT": LRT,
    "RPC": RPC,
    "IBPL": IBPL,
    "Bagging-LRT": BAGGED_LRT,
    "Bagging-WLRT": BAGGED_WLRT,
    "Bagging-FLRT": BAGGED_FLRT,
}
DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "kebi-csv"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-W", "--learner", default="LRRF")
    ap.add_argument("--options", default="", help="learner options, e.g. '-I 50 -depth 8'")
    ap.add_argument("--missing", default="0,0.3,0.6")
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None)
    ap.add_argument(
        "--published",
        default=None,
        help="key of the published values to compare with (default: the learner's name; "
        "Bagging-LRT, Bagging-WLRT, Bagging-FLRT for the bagged trees)",
    )
    args = ap.parse_args()

    spec = get_learner(args.learner)
    options = args.options.split()
    published = PUBLISHED.get(args.published or spec.name, {})
    out = Path(args.out or f"bench/results/accuracy_{args.published or spec.name}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    results: dict = {
        "learner": spec.name,
        "options": options,
        "folds": args.folds,
        "repeats": args.repeats,
        "seed": args.seed,
        "lrank_version": __version__,
        "date": date.today().isoformat(),
        "machine": {"cpu": cpu_model(), "cores": __import__("os").cpu_count(), "python": platform.python_version()},
        "runs": [],
    }
    ps = [float(p) for p in args.missing.split(",")]
    print(f"{'dataset':<12}{'p':>5}{'tau':>9}{'std':>8}{'paper':>8}{'diff':>8}{'fit+pred s':>12}")
    for name in args.datasets.split(","):
        data = read_dataset(DATA_DIR / f"{name}.csv")
        x, y = data.feature_matrix(), data.rankings
        for p in ps:
            t0 = time.perf_counter()
            done = [0]

            def on_fold(r: int, k: int, m: dict, _n=name, _p=p) -> None:
                done[0] += 1
                print(f"\r{_n} p={_p}: fold {done[0]}/{args.folds * args.repeats}", end="", file=sys.stderr, flush=True)

            ev = cross_validate(
                lambda: spec.build(options, seed=args.seed),
                x,
                y,
                labels=list(data.labels),
                n_folds=args.folds,
                repeats=args.repeats,
                seed=args.seed,
                missing=p,
                on_fold=on_fold,
            )
            print(file=sys.stderr)
            secs = time.perf_counter() - t0
            tau, std = ev.mean("kendall_tau"), ev.std("kendall_tau")
            paper = published.get(p, {}).get(name)
            diff = "" if paper is None else f"{tau - paper:+.3f}"
            print(
                f"{name:<12}{p:>5.1f}{tau:>9.3f}{std:>8.3f}"
                f"{'' if paper is None else f'{paper:.3f}':>8}{diff:>8}{secs:>12.1f}",
                flush=True,
            )
            results["runs"].append(
                {
                    "dataset": name,
                    "missing": p,
                    "kendall_tau": tau,
                    "kendall_tau_std": std,
                    "spearman_rho": ev.mean("spearman_rho"),
                    "top_label_accuracy": ev.mean("top_label_accuracy"),
                    "published": paper,
                    "seconds": secs,
                }
            )
            out.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
