"""PLR trees and forests: the histogram split search against the exact one, in one run.

    .venv/bin/python -m bench.plr_bins [--rows 20000,200000] [--trees 20] [--repeats 3]
        [--sets blocks,vowel,vehicle] [--out bench/results/plr_bins.json]
    .venv/bin/python -m bench.plr_bins --paired BINNED_STORE EXACT_STORE --pairs PLRRF-bins=PLRRF,...

- Synthetic sets of ``--rows`` rows (10 uniform features; 6 labels ranked by a noisy linear
  utility, labels whose utilities fall in the same 0.5-wide band tied, about 4 buckets per row),
  80/20 split (seeded);
- and the shared PLR sets (``../shared/datasets/plr-csv``, skipped when absent), 5 folds of one
  shuffled split, means over the folds.

Each: the PLR tree (fully grown), and a PLR forest, a pairwise PLR forest (``beta`` 0.25, not
chosen out of bag) and MORE-PLR of ``--trees`` trees each, fitted in this process on one thread
with ``max_bins=None`` (exact) and ``max_bins=255`` (histograms), best of ``--repeats`` fits; fit
seconds, exact / histogram ratio, tau_x on the held-out rows of both.

``--paired``: two experiment stores of the same protocol (``lrank experiment run``, same seed and
folds), a learner of the first against one of the second (``--pairs NEW=OLD,...``): per data set
the mean tau_x of both and the mean paired difference over the folds with its standard error.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bench import harness
from bench.plr import PLR_DIR

N_FEATURES, N_LABELS = 10, 6


def synthetic(rows: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Features and bucket orders (dense positions, ties)."""
    rng = np.random.default_rng(seed)
    weights = np.random.default_rng(777).normal(size=(N_FEATURES, N_LABELS))
    x = rng.random((rows, N_FEATURES))
    utility = x @ weights + 0.3 * rng.normal(size=(rows, N_LABELS))
    bands = np.floor(-utility / 0.5)
    # Dense positions of the bands: 1 for the best band of the row, and so on.
    ranks = np.empty((rows, N_LABELS), dtype=np.int32)
    for i in range(rows):
        _, dense = np.unique(bands[i], return_inverse=True)
        ranks[i] = dense + 1
    return x, ranks


def _fit_time(make, x, y, repeats: int):
    best, model = float("inf"), None
    for _ in range(repeats):
        model = make()
        t = time.perf_counter()
        model.fit(x, y)
        best = min(best, time.perf_counter() - t)
    return best, model


def measure(name: str, folds, trees: int, repeats: int) -> list[dict]:
    from lrank.estimators import (
        LabelwisePartialLabelRanker,
        PairwisePartialLabelRanker,
        PartialLabelRankingForest,
        PartialLabelRankingTree,
    )
    from lrank.metrics import tau_x

    out = []
    learners = {
        "PLR tree": lambda b: PartialLabelRankingTree(max_bins=b, random_state=1, n_jobs=1),
        f"PLR forest, {trees} trees": lambda b: PartialLabelRankingForest(
            n_estimators=trees, max_bins=b, random_state=1, n_jobs=1
        ),
        f"pairwise PLR, {trees} trees": lambda b: PairwisePartialLabelRanker(
            n_estimators=trees, beta=0.25, max_bins=b, random_state=1, n_jobs=1
        ),
        f"MORE-PLR, {trees} trees": lambda b: LabelwisePartialLabelRanker(
            n_estimators=trees, max_bins=b, random_state=1, n_jobs=1
        ),
    }
    for learner, make in learners.items():
        row = {"data": name, "learner": learner}
        for label, bins in (("exact", None), ("hist", 255)):
            times, taus = [], []
            for x_tr, y_tr, x_te, y_te in folds:
                t, model = _fit_time(lambda: make(bins), x_tr, y_tr, repeats)
                times.append(t)
                taus.append(tau_x(y_te, model.predict(x_te)))
            row[f"{label}_fit_s"] = float(np.mean(times))
            row[f"{label}_tau_x"] = float(np.mean(taus))
        row["ratio"] = row["exact_fit_s"] / row["hist_fit_s"]
        harness.log(
            f"{name:>16} {learner:<22} fit exact {row['exact_fit_s']:.4f} s, histograms {row['hist_fit_s']:.4f} s: "
            f"{row['ratio']:.2f}x; tau_x {row['exact_tau_x']:.4f} / {row['hist_tau_x']:.4f}"
        )
        out.append(row)
    return out


def paired(new_store: str, old_store: str, pairs: str) -> int:
    import polars as pl

    new, old = pl.read_parquet(new_store), pl.read_parquet(old_store)
    keys = ["dataset", "missing", "repeat", "fold"]
    print("| learner (against) | data set | folds | tau_x | against | mean difference (s.e.) |")
    print("|---|---|---:|---:|---:|---:|")
    for pair in pairs.split(","):
        mine, _, theirs = pair.partition("=")
        a = new.filter(pl.col("learner") == mine).select(*keys, "tau_x")
        b = old.filter(pl.col("learner") == theirs).select(*keys, pl.col("tau_x").alias("against"))
        joined = a.join(b, on=keys)
        for (name, p), g in joined.group_by("dataset", "missing", maintain_order=True):
            d = (g["tau_x"] - g["against"]).to_numpy()
            se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
            label = name if p == 0 else f"{name}, p = {p}"
            print(
                f"| {mine} ({theirs}) | {label} | {len(d)} | {g['tau_x'].mean():.4f} | {g['against'].mean():.4f} "
                f"| {d.mean():+.4f} ({se:.4f}) |"
            )
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.plr_bins", description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", default="20000,200000", help="sizes of the synthetic sets (comma-separated)")
    ap.add_argument("--sets", default="blocks,vowel,vehicle", help="shared PLR sets ('' for none)")
    ap.add_argument("--trees", type=int, default=20, help="trees of the forest (default 20)")
    ap.add_argument("--repeats", type=int, default=3, help="fits per measurement, the best kept (default 3)")
    ap.add_argument("--out", default=None, help="write the results as JSON here")
    ap.add_argument("--paired", nargs=2, metavar=("STORE", "AGAINST"), help="compare two experiment stores")
    ap.add_argument("--pairs", default="", help="with --paired: NEW=OLD learner names, comma-separated")
    args = ap.parse_args(argv)
    if args.paired:
        return paired(*args.paired, args.pairs)
    rows: list[dict] = []
    for n in [int(r) for r in args.rows.split(",") if r.strip()]:
        x, y = synthetic(n, seed=n)
        cut = int(0.8 * n)
        rows += measure(f"synthetic {n}", [(x[:cut], y[:cut], x[cut:], y[cut:])], args.trees, args.repeats)
    names = [s for s in args.sets.split(",") if s.strip()]
    if names and PLR_DIR.is_dir():
        from lrank.data import read_dataset

        for name in names:
            data = read_dataset(PLR_DIR / f"{name}.csv")
            x, y = data.feature_matrix(), np.asarray(data.rankings)
            folds = [(x[tr], y[tr], x[te], y[te]) for tr, te in harness.kfold_indices(len(x), 5, seed=0)]
            rows += measure(name, folds, args.trees, args.repeats)
    elif names:
        harness.log(f"shared PLR sets not found at {PLR_DIR}: skipped")
    print("\n| data | learner | fit s exact / histograms | ratio | tau_x exact / histograms |")
    print("|---|---|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['data']} | {r['learner']} | {r['exact_fit_s']:.4f} / {r['hist_fit_s']:.4f} | "
            f"{r['ratio']:.2f}x | {r['exact_tau_x']:.4f} / {r['hist_tau_x']:.4f} |"
        )
    if args.out:
        harness.write_json(
            harness.Path(args.out),
            {"machine": harness.machine_facts(), "command": harness.command_line("bench.plr_bins", argv), "rows": rows},
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
