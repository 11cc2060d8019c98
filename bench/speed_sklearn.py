"""Speed suite against scikit-learn: lrank's labelwise forest and tree against its regressors used labelwise.

    bench/.venv313/bin/python -m bench.speed_sklearn [--datasets stock,segment,vowel,pendigits,calhousing]
        [--folds 10] [--max-folds K] [--repeats R] [--seed 0] [--trees 100] [--only TEXT]
        [--out bench/results/NAME.json]
    bench/.venv313/bin/python -m bench.speed_sklearn --report bench/results/NAME.json

The peer regresses each label's position / m with scikit-learn and ranks the labels by predicted
position: ``RandomForestRegressor(n_estimators=T, max_features=1/3, n_jobs=1|2)`` against
lrank's ``LabelwiseRandomForest(n_estimators=T)`` (a third of the features per node, too), and
``DecisionTreeRegressor()`` against ``LabelwiseDecisionTree()``, both fully grown, and
``HistGradientBoostingRegressor`` per label (100 rounds, depth 6, learning rate 0.1, 20 rows per
leaf, L2 1, 255 bins, no early stopping; OpenMP threads limited to n_jobs) against
``GradientBoostingLabelRanker`` with the same settings (one multi-output tree per round, and
``gblrpl``: ``per_label_trees=True``, a tree per label per round as the peer grows). Same folds,
fresh processes and tables as bench.speed_sklr (see bench/harness.py). scikit-learn is in lrank's
test extras, so this suite also runs in the project's own .venv; bench/.venv313 is the
environment the recorded numbers come from.
"""

from __future__ import annotations

import argparse
import sys

from bench import harness

SUITE = harness.SpeedSuite(
    module="bench.speed_sklearn",
    title="lrank's labelwise learners against scikit-learn's regressors used labelwise",
    groups={
        "lwrf": ["lwrf_sklearn_j1", "lwrf_lrank_j1", "lwrf_sklearn_j2", "lwrf_lrank_j2"],
        "lwdt": ["lwdt_sklearn", "lwdt_lrank_j1"],
        "gblr": [
            "gblr_sklearn_j1",
            "gblr_lrank_j1",
            "gblrpl_lrank_j1",
            "gblr_sklearn_j2",
            "gblr_lrank_j2",
            "gblrpl_lrank_j2",
        ],
    },
    pairs=[
        ("lwrf_sklearn_j1", "lwrf_lrank_j1"),
        ("lwrf_sklearn_j2", "lwrf_lrank_j2"),
        ("lwdt_sklearn", "lwdt_lrank_j1"),
        ("gblr_sklearn_j1", "gblr_lrank_j1"),
        ("gblr_sklearn_j2", "gblr_lrank_j2"),
        ("gblr_sklearn_j1", "gblrpl_lrank_j1"),
        ("gblr_sklearn_j2", "gblrpl_lrank_j2"),
    ],
)


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="python -m bench.speed_sklearn", description=__doc__.split("\n\n")[0], epilog="Details: bench/README.md."
    )
    ap.add_argument("--groups", default=",".join(SUITE.groups), help="comma-separated: lwrf, lwdt, gblr (default: all)")
    harness.add_speed_arguments(ap, harness.SPEED_DATASETS)
    ap.add_argument("--trees", type=int, default=100, help="trees of both forests (default: 100)")
    ap.add_argument(
        "--rounds", type=int, default=100, help="boosting rounds of GBLR and of each label's HGB (default: 100)"
    )
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.report:
        return harness.report_saved(SUITE, args.report)
    groups = [g.strip() for g in args.groups.split(",") if g.strip()]
    if any(g not in SUITE.groups for g in groups):
        raise SystemExit(f"unknown group in {groups}; choose from {list(SUITE.groups)}")
    learners = [learner for g in groups for learner in SUITE.groups[g]]
    if args.only:
        learners = [learner for learner in learners if args.only in learner]
    params = {"seed": args.seed, "lw_trees": args.trees, "gb_rounds": args.rounds}
    return harness.run_speed_suite(SUITE, args, learners, params, {"groups": groups}, argv)


if __name__ == "__main__":
    sys.exit(main())
