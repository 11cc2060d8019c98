"""Markdown tables of an experiment store's results next to the published values.

    .venv/bin/python bench/compare_published.py bench/results/kebi_experiment.parquet \
        [--learners IBLR,LRT] [--p 0,0.6]

For each missing-label probability p: the mean Kendall tau over the 50 folds of every learner
and data set, with the published value and the difference in parentheses where the papers give
one (bench/published.py: Cheng et al. 2009 Table 2 for IBLR and LRT; Zhou & Qiu 2018 Tables 3
to 6 for LR-RF, RPC, IB-PL and the bagged trees; data sets by their KEBI file name, cpu being
cpu-small). A cell with fewer than all folds shows how many it has.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
import published

# Store label -> published table.
PUBLISHED = {
    "LRRF": published.LRRF,
    "IBLR": published.IBLR,
    "LRT": published.LRT,
    "RPC": published.RPC,
    "IBPL": published.IBPL,
    "LRT-bag": published.BAGGED_LRT,
    "WLRT-bag": published.BAGGED_WLRT,
    "FLRT-bag": published.BAGGED_FLRT,
}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store")
    ap.add_argument("--learners", default=None, help="comma-separated store labels (default: all, store order)")
    ap.add_argument("--p", default=None, help="comma-separated missing-label probabilities (default: all)")
    args = ap.parse_args(argv)
    df = pl.read_parquet(args.store)
    folds = int(df["folds"][0]) * int(df["repeats"][0])
    learners = args.learners.split(",") if args.learners else list(dict.fromkeys(df["learner"].to_list()))
    ps = [float(p) for p in args.p.split(",")] if args.p else sorted(set(df["missing"].to_list()))
    means = df.group_by("dataset", "learner", "missing").agg(
        pl.col("kendall_tau").mean().alias("tau"), pl.len().alias("n")
    )
    cell = {(r["dataset"], r["learner"], r["missing"]): (r["tau"], r["n"]) for r in means.iter_rows(named=True)}
    datasets = sorted(set(df["dataset"].to_list()))
    for p in ps:
        print(f"\n**p = {p}**: Kendall tau, mean over the folds (published value, difference)\n")
        print("| data set | " + " | ".join(learners) + " |")
        print("|---|" + "---:|" * len(learners))
        for d in datasets:
            cells = []
            for learner in learners:
                got = cell.get((d, learner, p))
                if got is None:
                    cells.append("")
                    continue
                tau, n = got
                text = f"{tau:.3f}" + ("" if n == folds else f" [{n}/{folds}]")
                paper = PUBLISHED.get(learner, {}).get(p, {}).get(d)
                if paper is not None:
                    text += f" ({paper:.3f}, {tau - paper:+.3f})"
                cells.append(text)
            print(f"| {d} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
