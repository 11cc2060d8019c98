"""Accuracy suite: the papers' protocol on the KEBI sets, next to the published Kendall tau.

    python -m bench.accuracy [-W LRRF] [--options "-class-mode pairwise"] [--missing 0,0.3,0.6]
        [--datasets iris,glass,...] [--folds 10] [--repeats 5] [--seed 1] [--published KEY]
        [--out bench/results/accuracy_NAME.json]
    python -m bench.accuracy --report bench/results/accuracy_A.json [B.json ...]

Runs lrank's own cross-validation (the protocol of ``lrank train`` and ``lrank experiment``:
folds stratified by top label; repeat r uses seed s + r for its folds and its label deletion;
each training label deleted with probability p, at least two kept; test rankings complete) on
``../shared/datasets/kebi-csv`` and prints tau (mean and std over the R x K folds) beside the
published value and the difference (bench/published.py: Zhou & Qiu 2018 for LR-RF, RPC, IB-PL and
the bagged trees; Cheng et al. 2009 for IBLR and LRT). ``--report`` prints Markdown tables (one
per p) of saved runs, files of the same learner and options merged into one column. The peer of
this suite is the published value; it needs lrank only (the project's .venv is enough).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from bench import harness
from bench.published import BAGGED_FLRT, BAGGED_LRT, BAGGED_WLRT, DATASETS, IBLR, IBPL, LRRF, LRT, RPC

PUBLISHED: dict[str, dict] = {
    "LRRF": LRRF,
    "IBLR": IBLR,
    "LRT": LRT,
    "RPC": RPC,
    "IBPL": IBPL,
    "Bagging-LRT": BAGGED_LRT,
    "Bagging-WLRT": BAGGED_WLRT,
    "Bagging-FLRT": BAGGED_FLRT,
}


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="python -m bench.accuracy",
        description=__doc__.split("\n\n")[0],
        epilog="Details: bench/README.md.",
    )
    ap.add_argument("-W", "--learner", default="LRRF", help="a learner of lrank's registry (default: LRRF)")
    ap.add_argument("--options", default="", help="learner options as after `lrank train ... --`, e.g. '-I 50'")
    ap.add_argument("--missing", default="0,0.3,0.6", help="probabilities of deleting a training label")
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument(
        "--published-p",
        type=float,
        default=None,
        help="compare with the published values of this p whatever the run's p (e.g. 0.6 for LR-RF's "
        "-leaf-missing 0.6, which deletes labels at prediction and trains on complete rankings)",
    )
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--published",
        default=None,
        help="key of the published values (default: the learner's name; Bagging-LRT, Bagging-WLRT, "
        "Bagging-FLRT for the bagged trees)",
    )
    ap.add_argument("--data-dir", default=None, help="KEBI CSV folder (default: ../shared/datasets/kebi-csv)")
    ap.add_argument("--out", default=None, help="write every number to this JSON file")
    ap.add_argument("--report", nargs="+", metavar="JSON", default=None, help="run nothing: tables of saved runs")
    return ap.parse_args(argv)


def report(paths: list[str]) -> int:
    """Markdown tables, one per p: each saved run's tau (published value, difference)."""
    merged: dict[str, dict] = {}
    for path in paths:
        doc = json.loads(Path(path).read_text())
        label = f"{doc['learner']} {' '.join(doc['options'])}".strip()
        merged.setdefault(label, {}).update({(r["dataset"], r["missing"]): r for r in doc["runs"]})
    runs = list(merged.items())
    datasets = list(dict.fromkeys(d for _, rows in runs for d, _ in rows))
    for p in sorted({p for _, rows in runs for _, p in rows}):
        print(f"\n**p = {p}** (Kendall tau, mean over folds; published value and difference in parentheses)\n")
        print("| data set | " + " | ".join(label for label, _ in runs) + " |")
        print("|---|" + "---:|" * len(runs))
        for d in datasets:
            cells = []
            for _, rows in runs:
                r = rows.get((d, p))
                if r is None:
                    cells.append("")
                elif r["published"] is None:
                    cells.append(f"{r['kendall_tau']:.3f}")
                else:
                    paper = r["published"]
                    cells.append(f"{r['kendall_tau']:.3f} ({paper:.3f}, {r['kendall_tau'] - paper:+.3f})")
            print(f"| {d} | " + " | ".join(cells) + " |")
    return 0


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.report:
        return report(args.report)
    folder = harness.kebi_dir(args.data_dir)
    names = harness.dataset_names(args.datasets, folder)
    try:
        from lrank.data import read_dataset
        from lrank.evaluation import cross_validate
        from lrank.registry import get_learner
    except ImportError as exc:
        harness.skip(f"lrank is not importable in {sys.executable} ({exc}); install it: pip install -e .")
    spec = get_learner(args.learner)
    options = args.options.split()
    key = args.published or spec.name
    published = PUBLISHED.get(key, {})
    out = Path(args.out) if args.out else None
    facts = harness.machine_facts()
    results: dict = {
        "suite": "bench.accuracy",
        "command": harness.command_line("bench.accuracy", argv),
        "learner": spec.name,
        "options": options,
        "published_key": key if published else None,
        "published_p": args.published_p,
        "folds": args.folds,
        "repeats": args.repeats,
        "seed": args.seed,
        "date": facts["date"][:10],
        "machine": facts,
        "runs": [],
    }
    print(f"{spec.name} {' '.join(options)}: {args.repeats} x {args.folds}-fold CV, published values: {key}")
    print(f"machine: {harness.describe_machine(facts)}")
    print(f"{'dataset':<12}{'p':>5}{'tau':>9}{'std':>8}{'paper':>8}{'diff':>8}{'fit+pred s':>12}")
    for name in names:
        data = read_dataset(folder / f"{name}.csv")
        x, y = data.feature_matrix(), data.rankings
        for p in [float(v) for v in args.missing.split(",")]:
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
            paper = published.get(p if args.published_p is None else args.published_p, {}).get(name)
            paper_text = "" if paper is None else f"{paper:.3f}"
            diff = "" if paper is None else f"{tau - paper:+.3f}"
            print(f"{name:<12}{p:>5.1f}{tau:>9.3f}{std:>8.3f}{paper_text:>8}{diff:>8}{secs:>12.1f}", flush=True)
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
            if out:
                harness.write_json(out, results)
    if out:
        harness.log(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
