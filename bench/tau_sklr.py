"""Tau suite against scikit-lr: is lrank's LRT and IBLR tau equal to scikit-lr's? 5 x 10-fold CV, paired.

    bench/.venv313/bin/python -m bench.tau_sklr [--datasets stock,segment,vowel,pendigits,calhousing]
        [--repeats 5] [--folds 10] [--jobs 2] [--out bench/results/cheng_tau.json]

The speed suite's tau is one mean over one 10-fold split; it moves with the split and with the
learners' seeds about as much as the implementations differ. This suite answers "equal or better
tau?" with a test: repetition r cuts its folds with ``harness.kfold_indices(n, folds, seed=r)``
(the speed suite's split is r = 0) and seeds every learner with r; the learners are the speed
suite's, on one thread: ``lrt_sklr``, ``lrt_lrank_j1`` (paper's stopping rule),
``lrt_lrank_full_j1`` (grown like scikit-lr's), ``iblr_sklr``, ``iblr_lrank_j1`` (k = 5). For
each lrank learner it takes the per-fold difference of mean Kendall tau to its scikit-lr peer
(same rows) and the 95% interval of the mean difference from Nadeau & Bengio's corrected
resampled t-test (``lrank.stats.corrected_resampled_t_test``: folds share training rows, so the
variance is (1/J + n_test/n_train) s^2, not s^2/J). Verdict: ``better`` (interval above 0),
``equal`` (contains 0), ``worse`` (below 0). Folds run in ``--jobs`` worker processes, one thread
each; nothing is timed. Without scikit-lr in this Python, lrank's mean tau is printed alone.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np

from bench import child, harness

LEARNERS = ("lrt_sklr", "lrt_lrank_j1", "lrt_lrank_full_j1", "iblr_sklr", "iblr_lrank_j1")
PAIRS = (("lrt_sklr", "lrt_lrank_j1"), ("lrt_sklr", "lrt_lrank_full_j1"), ("iblr_sklr", "iblr_lrank_j1"))
N_NEIGHBORS = 5


def run_fold(folder: str, name: str, repeat: int, fold: int, n_folds: int, learners: tuple[str, ...]) -> dict:
    """Every learner on one fold of one repetition (runs in a worker process)."""
    X, Y = harness.load_kebi(name, Path(folder))
    train, test = harness.kfold_indices(len(X), n_folds, repeat)[fold]
    taus = {}
    for learner in learners:
        est, kind = child.build(learner, {"seed": repeat, "n_neighbors": N_NEIGHBORS})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(np.ascontiguousarray(X[train]), child.convert_y(Y[train], kind))
            pred = np.asarray(est.predict(np.ascontiguousarray(X[test])), dtype=np.int32)
        taus[learner] = harness.mean_tau(Y[test], pred)
    return {"repeat": repeat, "fold": fold, "n_train": int(len(train)), "n_test": int(len(test)), "tau": taus}


def summarize(runs: list[dict], learners: tuple[str, ...]) -> dict:
    summary: dict = {"folds": len(runs), "mean_tau": {}, "pairs": {}}
    for learner in learners:
        summary["mean_tau"][learner] = float(np.mean([r["tau"][learner] for r in runs]))
    if len(runs) < 2:
        return summary
    from lrank.stats import corrected_resampled_t_test

    test_over_train = float(np.mean([r["n_test"] / r["n_train"] for r in runs]))
    for peer, mine in PAIRS:
        if peer in learners and mine in learners:
            diffs = np.array([r["tau"][mine] - r["tau"][peer] for r in runs])
            test = corrected_resampled_t_test(diffs, test_over_train)
            summary["pairs"][f"{mine}-{peer}"] = {
                "mean_difference": test.mean_difference,
                "ci95": [test.ci_low, test.ci_high],
                "p_value": test.p_value,
                "verdict": test.verdict,
                "lrank_ahead_in_folds": int(np.sum(diffs > 0)),
                "tied_folds": int(np.sum(diffs == 0)),
            }
    return summary


def print_table(name: str, summary: dict, repeats: int, folds: int) -> None:
    print(f"\n== {name}  ({summary['folds']} folds: {repeats} x {folds}-fold CV) ==")
    for learner, tau in summary["mean_tau"].items():
        print(f"  {learner:<18} mean tau {tau:.4f}")
    for pair, p in summary["pairs"].items():
        low, high = p["ci95"]
        print(
            f"  {pair:<30} diff {p['mean_difference']:+.4f}  95% CI [{low:+.4f}, {high:+.4f}]  "
            f"{p['verdict']:<6} (lrank ahead in {p['lrank_ahead_in_folds']}/{summary['folds']} folds, "
            f"tied in {p['tied_folds']})"
        )
    sys.stdout.flush()


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="python -m bench.tau_sklr", description=__doc__.split("\n\n")[0], epilog="Details: bench/README.md."
    )
    ap.add_argument("--datasets", default=harness.SPEED_DATASETS)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    ap.add_argument("--data-dir", default=None, help="KEBI CSV folder (default: ../shared/datasets/kebi-csv)")
    ap.add_argument("--out", default=None, help="write every fold's tau and the summary to this JSON file")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.folds < 2 or args.repeats < 1:
        raise SystemExit("--folds must be >= 2 and --repeats >= 1")
    folder = harness.kebi_dir(args.data_dir)
    names = harness.dataset_names(args.datasets, folder)
    skipped = {learner: harness.unavailable(learner) for learner in LEARNERS}
    skipped = {learner: reason for learner, reason in skipped.items() if reason}
    for learner, reason in skipped.items():
        harness.log(f"skipping {learner}: {reason}")
    learners = tuple(learner for learner in LEARNERS if learner not in skipped)
    if not any(child.implementation(learner) == "lrank" for learner in learners):
        harness.skip("lrank is not importable in this Python; this suite compares lrank with scikit-lr")
    # One thread per worker, BLAS included (inherited by the spawned workers).
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
        os.environ[var] = "1"
    facts = harness.machine_facts()
    out = Path(args.out) if args.out else None
    payload: dict = {
        "suite": "bench.tau_sklr",
        "command": harness.command_line("bench.tau_sklr", argv),
        "machine": facts,
        "config": {
            "datasets": names,
            "repeats": args.repeats,
            "folds": args.folds,
            "learners": list(learners),
            "n_neighbors": N_NEIGHBORS,
            "data_dir": str(folder),
        },
        "skipped": skipped,
        "datasets": {},
    }
    print(f"lrank's LRT and IBLR tau against scikit-lr 0.3.0's\nmachine: {harness.describe_machine(facts)}")
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs, mp_context=mp.get_context("spawn")) as pool:
        for name in names:
            futures = [
                pool.submit(run_fold, str(folder), name, r, k, args.folds, learners)
                for r in range(args.repeats)
                for k in range(args.folds)
            ]
            runs = []
            for done, fut in enumerate(as_completed(futures), 1):
                runs.append(fut.result())
                harness.log(f"{name}: {done}/{len(futures)} folds done ({time.perf_counter() - started:.0f} s)")
            runs.sort(key=lambda r: (r["repeat"], r["fold"]))
            summary = summarize(runs, learners)
            payload["datasets"][name] = {"runs": runs, "summary": summary}
            if out:
                harness.write_json(out, payload)
            print_table(name, summary, args.repeats, args.folds)
    if out:
        harness.log(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
