"""Speed suite against scikit-lr: LR-RF, LRT, IBLR, bagged trees and IB-PL, on identical folds.

    bench/.venv313/bin/python -m bench.speed_sklr [--groups lrrf,lrt,iblr,bagging,ibpl]
        [--datasets stock,segment,vowel,pendigits,calhousing] [--folds 10] [--max-folds K]
        [--repeats R] [--seed 0] [--trees 50] [--max-depth 8] [--peer-max-depth 0]
        [--n-neighbors 5] [--dudani] [--only TEXT] [--out bench/results/NAME.json]
    bench/.venv313/bin/python -m bench.speed_sklr --report bench/results/NAME.json

Every learner gets the same shuffled K-fold split; each fit and predict runs in a fresh process
(bench/.venv37's Python 3.7 for scikit-lr 0.2.0), which waits until it is quiet, then times fit,
predict and a second predict of the same rows, and reports its peak memory; Kendall tau is
computed here. With ``--repeats R`` every learner runs R times per fold, interleaved, and the
fold counts the median. Per data set: the means over the folds and the peer / lrank time ratios
side by side, with a 95% bootstrap interval over the folds.

Groups (learners in bench/child.py; what each peer is, in bench/README.md):
  lrrf     LabelRankingRandomForest(T trees, depth D) on 1 and 2 threads against T scikit-lr
           0.3.0 trees with max_features="sqrt" on bootstrap samples, Borda-combined.
  lrt      LabelRankingTree (paper's rule: nodes under 2m rows are leaves; ``full``: grown to 2
           rows) against scikit-lr 0.3.0's DecisionTreeLabelRanker.
  iblr     InstanceBasedLabelRanker(k) against KNeighborsLabelRanker(k) (``_1t``: BLAS on one
           thread); ``--dudani`` adds KNeighborsLabelRanker(weights="dudani").
  bagging  BaggingLabelRanker of LRT / W-LRT / F-LRT against T scikit-lr 0.3.0 trees (LRT) and
           scikit-lr 0.2.0's BaggingLabelRanker with the width / frequency splitters.
  ibpl     InstanceBasedPlackettLuce(k) against KNeighborsLabelRanker(k, model="plackett_luce").
Run it with bench/.venv313's Python (``bash bench/setup_env.sh``); elsewhere the peers are
skipped with the reason, and lrank's times are printed alone.
"""

from __future__ import annotations

import argparse
import sys

from bench import harness

BAG = [
    f"bag_{tree}{full}_lrank_j{jobs}" for tree in ("lrt", "wlrt", "flrt") for full in ("", "_full") for jobs in (1, 2)
]
SUITE = harness.SpeedSuite(
    module="bench.speed_sklr",
    title="lrank against scikit-lr 0.3.0 (bagged W-LRT and F-LRT: scikit-lr 0.2.0)",
    groups={
        "lrrf": ["lrrf_sklr", "lrrf_lrank_j1", "lrrf_lrank_j2"],
        "lrt": ["lrt_sklr", "lrt_lrank_j1", "lrt_lrank_j2", "lrt_lrank_full_j1"],
        "iblr": ["iblr_sklr", "iblr_sklr_1t", "iblr_lrank_j1", "iblr_lrank_j2"],
        "bagging": ["bag_lrt_sklr03"] + BAG[0:4] + ["bag_wlrt_sklr02"] + BAG[4:8] + ["bag_flrt_sklr02"] + BAG[8:12],
        "ibpl": ["ibpl_sklr03", "ibpl_sklr03_1t", "ibpl_lrank_j1", "ibpl_lrank_j2"],
    },
    pairs=[
        ("lrrf_sklr", "lrrf_lrank_j1"),
        ("lrrf_sklr", "lrrf_lrank_j2"),
        ("lrt_sklr", "lrt_lrank_j1"),
        ("lrt_sklr", "lrt_lrank_j2"),
        ("lrt_sklr", "lrt_lrank_full_j1"),
        ("iblr_sklr_1t", "iblr_lrank_j1"),
        ("iblr_sklr", "iblr_lrank_j2"),
        ("iblr_sklr_dudani", "iblr_lrank_j1"),
        ("ibpl_sklr03_1t", "ibpl_lrank_j1"),
        ("ibpl_sklr03", "ibpl_lrank_j2"),
    ]
    + [("bag_lrt_sklr03", mine) for mine in BAG[0:4]]
    + [("bag_wlrt_sklr02", mine) for mine in BAG[4:8]]
    + [("bag_flrt_sklr02", mine) for mine in BAG[8:12]],
)


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="python -m bench.speed_sklr",
        description=__doc__.split("\n\n")[0],
        epilog="Details: bench/README.md.",
    )
    ap.add_argument("--groups", default=",".join(SUITE.groups), help="comma-separated (default: all)")
    harness.add_speed_arguments(ap, harness.SPEED_DATASETS)
    ap.add_argument("--trees", type=int, default=50, help="trees of LR-RF and of the bagged ensembles (default: 50)")
    ap.add_argument("--max-depth", type=int, default=8, help="lrank LR-RF's max_depth; <= 0: unlimited (default: 8)")
    ap.add_argument(
        "--peer-max-depth", type=int, default=0, help="max_depth of the LR-RF peer's trees; <= 0: None, fully grown"
    )
    ap.add_argument("--n-neighbors", type=int, default=5, help="k of IBLR and IB-PL (default: 5)")
    ap.add_argument("--dudani", action="store_true", help="also KNeighborsLabelRanker(weights='dudani') in iblr")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.report:
        return harness.report_saved(SUITE, args.report)
    groups = [g.strip() for g in args.groups.split(",") if g.strip()]
    unknown = [g for g in groups if g not in SUITE.groups]
    if unknown:
        raise SystemExit(f"unknown group(s) {unknown}; choose from {list(SUITE.groups)}")
    learners = [learner for g in groups for learner in SUITE.groups[g]]
    if args.dudani and "iblr" in groups:
        learners.append("iblr_sklr_dudani")
    if args.only:
        learners = [learner for learner in learners if args.only in learner]
    params = {
        "seed": args.seed,
        "trees": args.trees,
        "max_depth": args.max_depth if args.max_depth > 0 else None,
        "peer_max_depth": args.peer_max_depth if args.peer_max_depth > 0 else None,
        "n_neighbors": args.n_neighbors,
    }
    return harness.run_speed_suite(SUITE, args, learners, params, {"groups": groups}, argv)


if __name__ == "__main__":
    sys.exit(main())
