"""PLR suite: lrank's partial label ranking learners on the 8 shared PLR sets (rankings with ties).

    python -m bench.plr run [LRANK-EXPERIMENT-RUN OPTIONS]   # lrank experiment run --config bench/plr_experiment.toml
    python -m bench.plr compare [STORE] [--p 0,0.3,0.6]      # tau_x next to the published values
    bench/.venv313/bin/python -m bench.plr speed [SPEED OPTIONS] [--groups plrt,forest,ibplr]

``run``: ``bench/plr_experiment.toml`` holds the protocol (the PLR learners; the 8 CSV files of
``../shared/datasets/plr-csv``; 5 x 10-fold CV stratified by top label; p = 0, 0.3, 0.6; seed 1; 2
worker processes); further options go to ``lrank experiment run`` and override the file's. The
store keeps every cell (tau_x among the measures), so a run resumes where it stopped.

``compare``: per p, the mean tau_x over the folds of every learner and data set, the best lrank
learner, the best published value (issue 28: Alfaro et al.'s pairwise method as re-run by Thies et
al. 2024, and its labelwise variants) and the difference, with scikit-lr 0.3.0's tree and kNN as
measured on the same files for scale.

``speed``: the shared speed harness (``bench.harness``: the same shuffled folds for every learner,
a fresh process per fit, peer / lrank time ratios with bootstrap intervals) on the PLR sets:
``plrt`` PartialLabelRankingTree against scikit-lr's DecisionTreePartialLabelRanker; ``forest``
T bagged scikit-lr PLR trees (all features; combined by scikit-lr's bucket pivot) against lrank's
bagged PLR trees and PLR forest of T trees, and T bagged scikit-lr trees with sqrt(d) features
per split (a forest of scikit-lr trees) against lrank's forest; ``ibplr``
InstanceBasedPartialLabelRanker(k, uniform weights, raw attributes) against KNeighborsPartialLabelRanker(k)
(``_1t``: BLAS on one thread). lrank on 1 and 2 threads.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from bench import harness, published

CONFIG = harness.BENCH / "plr_experiment.toml"
STORE = harness.RESULTS / "plr_experiment.parquet"
PLR_DIR = harness.REPO.parent / "shared" / "datasets" / "plr-csv"
PLR_SETS = "blocks,breast,ecoli,glass,iris,vehicle,vowel,wine"

SUITE = harness.SpeedSuite(
    module="bench.plr speed",
    title="lrank's partial label ranking against scikit-lr 0.3.0",
    groups={
        "plrt": ["plrt_sklr", "plrt_lrank_j1", "plrt_lrank_j2"],
        "forest": [
            "plrbag_sklr",
            "plrbag_lrank_j1",
            "plrbag_lrank_j2",
            "plrrf_sklr",
            "plrrf_lrank_j1",
            "plrrf_lrank_j2",
        ],
        "ibplr": ["ibplr_sklr", "ibplr_sklr_1t", "ibplr_lrank_j1", "ibplr_lrank_j2"],
    },
    pairs=[
        ("plrt_sklr", "plrt_lrank_j1"),
        ("plrt_sklr", "plrt_lrank_j2"),
        ("plrbag_sklr", "plrbag_lrank_j1"),
        ("plrbag_sklr", "plrbag_lrank_j2"),
        ("plrbag_sklr", "plrrf_lrank_j1"),
        ("plrbag_sklr", "plrrf_lrank_j2"),
        ("plrrf_sklr", "plrrf_lrank_j1"),
        ("plrrf_sklr", "plrrf_lrank_j2"),
        ("ibplr_sklr_1t", "ibplr_lrank_j1"),
        ("ibplr_sklr", "ibplr_lrank_j2"),
        # lrank's 1 -> 2 thread speed-up (the "peer" is lrank on one thread)
        ("plrt_lrank_j1", "plrt_lrank_j2"),
        ("plrbag_lrank_j1", "plrbag_lrank_j2"),
        ("plrrf_lrank_j1", "plrrf_lrank_j2"),
        ("ibplr_lrank_j1", "ibplr_lrank_j2"),
    ],
)


def plr_dir(path: str | None = None) -> Path:
    """The PLR CSV folder: ``path``, else $LRANK_BENCH_PLR, else ../shared/datasets/plr-csv."""
    folder = Path(path or os.environ.get("LRANK_BENCH_PLR") or PLR_DIR)
    if not folder.is_dir():
        harness.skip(
            f"partial-label-ranking data not found at {folder} (../shared/datasets/plr-csv beside the repository)"
        )
    return folder


def run(extra: list[str]) -> int:
    """``lrank experiment run --config bench/plr_experiment.toml EXTRA...``, machine facts beside the store."""
    if importlib.util.find_spec("lrank") is None:
        harness.skip(f"lrank is not importable in {sys.executable}; install it: pip install -e .")
    gives_data = any(not a.startswith("-") and Path(a).suffix in (".csv", ".xarff", ".arff", ".parquet") for a in extra)
    if not gives_data:
        plr_dir()
    store = STORE
    for i, arg in enumerate(extra):
        if arg in ("-o", "--output") and i + 1 < len(extra):
            store = Path(extra[i + 1])
    facts = harness.machine_facts()
    print(f"machine: {harness.describe_machine(facts)}", flush=True)
    status = subprocess.run(
        [sys.executable, "-m", "lrank", "experiment", "run", "--config", str(CONFIG), *extra]
    ).returncode
    if status == 0 and store.exists():
        sidecar = store.with_name(store.stem + ".machine.json")
        command = harness.command_line("bench.plr", ["run", *extra])
        harness.write_json(sidecar, {"suite": "bench.plr", "command": command, "machine": facts})
        harness.log(f"machine facts in {sidecar}")
    return status


def compare(store: Path, ps: str | None) -> int:
    """Markdown tables: mean tau_x per data set and learner, the best lrank learner against the target."""
    if not store.exists():
        harness.skip(f"no store at {store}: `python -m bench.plr run` makes it")
    import polars as pl

    df = pl.read_parquet(store)
    folds = int(df["folds"][0]) * int(df["repeats"][0])
    names = list(dict.fromkeys(df["learner"].to_list()))
    p_values = [float(p) for p in ps.split(",")] if ps else sorted(set(df["missing"].to_list()))
    means = df.group_by("dataset", "learner", "missing").agg(pl.col("tau_x").mean().alias("tau_x"), pl.len().alias("n"))
    cell = {(r["dataset"], r["learner"], r["missing"]): (r["tau_x"], r["n"]) for r in means.iter_rows(named=True)}
    for p in p_values:
        print(f"\n**p = {p}**: tau_x, mean over the folds ([folds] where fewer than {folds})\n")
        print("| data set | " + " | ".join(names) + " | best lrank | target | diff | scikit-lr tree / kNN |")
        print("|---|" + "---:|" * (len(names) + 4))
        for d in sorted(set(df["dataset"].to_list())):
            cells, best = [], (None, "")
            for learner in names:
                got = cell.get((d, learner, p))
                if got is None:
                    cells.append("")
                    continue
                tau, n = got
                cells.append(f"{tau:.3f}" + ("" if n == folds else f" [{n}]"))
                if n == folds and (best[0] is None or tau > best[0]):
                    best = (tau, learner)
            target = published.PLR_BEST.get(d) if p == 0.0 else None
            sklr = published.PLR_SKLR.get(d) if p == 0.0 else None
            best_text = f"{best[0]:.3f} ({best[1]})" if best[0] is not None else ""
            diff = f"{best[0] - target:+.3f}" if best[0] is not None and target is not None else ""
            print(
                f"| {d} | " + " | ".join(cells) + f" | {best_text} | {'' if target is None else f'{target:.3f}'} | "
                f"{diff} | {'' if sklr is None else f'{sklr[0]:.3f} / {sklr[1]:.3f}'} |"
            )
    return 0


def speed(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.plr speed", description="speed against scikit-lr on the PLR sets"
    )
    ap.add_argument("--groups", default=",".join(SUITE.groups), help="comma-separated (default: all)")
    harness.add_speed_arguments(ap, PLR_SETS)
    ap.add_argument("--trees", type=int, default=50, help="trees of the bagged ensembles and the forest (default: 50)")
    ap.add_argument("--n-neighbors", type=int, default=5, help="k of the instance-based learners (default: 5)")
    args = ap.parse_args(argv)
    if args.report:
        return harness.report_saved(SUITE, args.report)
    args.data_dir = str(plr_dir(args.data_dir))
    groups = [g.strip() for g in args.groups.split(",") if g.strip()]
    unknown = [g for g in groups if g not in SUITE.groups]
    if unknown:
        raise SystemExit(f"unknown group(s) {unknown}; choose from {list(SUITE.groups)}")
    learners = [learner for g in groups for learner in SUITE.groups[g]]
    if args.only:
        learners = [learner for learner in learners if args.only in learner]
    params = {"seed": args.seed, "trees": args.trees, "n_neighbors": args.n_neighbors}
    return harness.run_speed_suite(SUITE, args, learners, params, {"groups": groups}, argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["run"]:
        return run(argv[1:])  # everything after `run` goes to lrank experiment run
    if argv[:1] == ["speed"]:
        return speed(argv[1:])
    ap = argparse.ArgumentParser(prog="python -m bench.plr", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("run", help="lrank experiment run --config bench/plr_experiment.toml [OPTIONS]")
    sub.add_parser("speed", help="speed against scikit-lr (see --help after speed)")
    cmp_ = sub.add_parser("compare", help="tau_x of a store next to the published values")
    cmp_.add_argument("store", nargs="?", type=Path, default=STORE)
    cmp_.add_argument("--p", default=None, help="comma-separated missing-label probabilities (default: all)")
    args = ap.parse_args(argv)
    return compare(args.store, args.p)


if __name__ == "__main__":
    sys.exit(main())
