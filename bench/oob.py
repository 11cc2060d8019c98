"""Out-of-bag estimates against cross-validation, and forests grown in steps with warm_start.

    python -m bench.oob [--datasets iris,glass,vowel] [--folds 10] [--seed 0] [--out FILE.json]

For each KEBI set and each bootstrap ensemble at its default size (LR-RF: 50 trees, LWRF: 100,
bagged LRT: 50, the pairwise forest ``OVO -B forest``: 100 per pair), ``oob_score_`` of a fit
on all rows beside the mean tau of a K-fold CV on ``harness.kfold_indices`` (the same seed for
the ensemble and the folds); the same for pairwise PLR (100 trees per pair, tau_x) on the PLR
sets of ``--plr-datasets`` (skipped when ../shared/datasets/plr-csv is absent). Then LWRF on the last
set grown 25 -> 50 -> 100 -> 200 trees with ``warm_start=True`` (out-of-bag tau at each step)
against 200 trees at once, one thread, wall time. Needs lrank only (the project's .venv).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from bench import harness
from bench.plr import PLR_DIR


def learners(seed: int) -> dict:
    from lrank import BaggingLabelRanker, LabelRankingRandomForest, LabelwiseRandomForest, OneVsOneLabelRanker

    return {
        "LRRF": lambda **kw: LabelRankingRandomForest(random_state=seed, n_jobs=1, **kw),
        "LWRF": lambda **kw: LabelwiseRandomForest(random_state=seed, n_jobs=1, **kw),
        "Bagging-LRT": lambda **kw: BaggingLabelRanker(random_state=seed, n_jobs=1, **kw),
        "OVO-forest": lambda **kw: OneVsOneLabelRanker(classifier="forest", random_state=seed, n_jobs=1, **kw),
    }


def plr_learners(seed: int) -> dict:
    from lrank import PairwisePartialLabelRanker

    return {"PLRPW": lambda **kw: PairwisePartialLabelRanker(random_state=seed, n_jobs=1, **kw)}


def oob_against_cv(x: np.ndarray, y: np.ndarray, make, folds: int, seed: int) -> tuple[float, float]:
    oob = make(oob_score=True).fit(x, y).oob_score_
    taus = [make().fit(x[tr], y[tr]).score(x[te], y[te]) for tr, te in harness.kfold_indices(len(x), folds, seed)]
    return float(oob), float(np.mean(taus))


def warm_steps(x: np.ndarray, y: np.ndarray, seed: int) -> dict:
    from lrank import LabelwiseRandomForest

    forest = LabelwiseRandomForest(n_estimators=25, warm_start=True, oob_score=True, random_state=seed, n_jobs=1)
    t0 = time.perf_counter()
    steps = {n: round(float(forest.set_params(n_estimators=n).fit(x, y).oob_score_), 4) for n in (25, 50, 100, 200)}
    stepped = time.perf_counter() - t0
    t0 = time.perf_counter()
    LabelwiseRandomForest(n_estimators=200, oob_score=True, random_state=seed, n_jobs=1).fit(x, y)
    return {"oob_by_trees": steps, "stepped_s": round(stepped, 3), "at_once_s": round(time.perf_counter() - t0, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.oob", description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="iris,glass,vowel")
    parser.add_argument("--plr-datasets", default="iris,glass,vowel", help="PLR sets for pairwise PLR ('' for none)")
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--out", default=None, help="also write the results as JSON here")
    args = parser.parse_args()
    folder = harness.kebi_dir(args.data_dir)
    names = harness.dataset_names(args.datasets, folder)
    rows = []
    print(f"| data set | learner | out-of-bag tau | {args.folds}-fold CV tau | difference |")
    print("|---|---|---:|---:|---:|")
    for name in names:
        x, y = harness.load_kebi(name, folder)
        for learner, make in learners(args.seed).items():
            oob, cv = oob_against_cv(x, y, make, args.folds, args.seed)
            rows.append({"dataset": name, "learner": learner, "oob": oob, "cv": cv})
            print(f"| {name} | {learner} | {oob:.4f} | {cv:.4f} | {oob - cv:+.4f} |", flush=True)
    if args.plr_datasets and PLR_DIR.is_dir():
        for name in harness.dataset_names(args.plr_datasets, PLR_DIR):
            x, y = harness.load_kebi(name, PLR_DIR)
            for learner, make in plr_learners(args.seed).items():
                oob, cv = oob_against_cv(x, y, make, args.folds, args.seed)
                rows.append({"dataset": f"plr/{name}", "learner": learner, "oob": oob, "cv": cv})
                print(f"| plr/{name} | {learner} | {oob:.4f} | {cv:.4f} | {oob - cv:+.4f} |", flush=True)
    warm = warm_steps(*harness.load_kebi(names[-1], folder), args.seed)
    print(f"\nLWRF on {names[-1]}, warm_start 25 -> 200 trees: {warm}")
    if args.out:
        result = {"machine": harness.machine_facts(), "oob_vs_cv": rows, "warm_start": {"dataset": names[-1], **warm}}
        with open(args.out, "w") as fh:
            json.dump(result, fh, indent=2)


if __name__ == "__main__":
    main()
