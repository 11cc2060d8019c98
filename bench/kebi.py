"""KEBI suite: every learner of lrank on the 16 KEBI sets, the papers' protocol as one experiment.

    python -m bench.kebi run [LRANK-EXPERIMENT-RUN OPTIONS]   # lrank experiment run --config bench/kebi_experiment.toml
    python -m bench.kebi report [STORE] [--out-dir DIR]       # report, CD diagrams, p-curve into bench/results/
    python -m bench.kebi compare [STORE] [--learners L,...] [--p 0,0.6]   # tables next to the published tau
    python -m bench.kebi frontier [STORE] [--also STORE]       # lrank's best learner against the best known

``bench/kebi_experiment.toml`` holds the protocol (12 learners; the 16 KEBI CSV files; 5 x
10-fold CV stratified by top label; p = 0, 0.3, 0.6; seed 1; 2 worker processes); ``run`` passes
further options to ``lrank experiment run``, which override the file's (e.g. ``-W IBLR -x 2
--repeats 1 -o /tmp/s.parquet ../shared/datasets/kebi-csv/iris.csv`` for a tiny run), and
records the machine facts beside the store (``STORE.machine.json``). The store keeps every
cell, so a run resumes where it stopped. ``compare`` prints, per p, the mean tau over the folds
of every learner and data set with the published value and the difference where the papers
give one (bench/published.py; data sets by KEBI file name, cpu being cpu-small).
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from pathlib import Path

from bench import harness, published

CONFIG = harness.BENCH / "kebi_experiment.toml"
STORE = harness.RESULTS / "kebi_experiment.parquet"
# The column order of the report and the p-curve in BENCHMARKS.md.
ORDER = ["LRRF", "LRRF-pw", "LRT", "LRT-bag", "WLRT-bag", "FLRT-bag", "IBLR", "IBPL", "RPC", "LWDT", "LWRF", "OVO"]
# Store label -> published table.
PUBLISHED: dict[str, dict] = {
    "LRRF": published.LRRF,
    "IBLR": published.IBLR,
    "LRT": published.LRT,
    "RPC": published.RPC,
    "IBPL": published.IBPL,
    "LRT-bag": published.BAGGED_LRT,
    "WLRT-bag": published.BAGGED_WLRT,
    "FLRT-bag": published.BAGGED_FLRT,
}


def lrank_cli(*args: str) -> int:
    return subprocess.run([sys.executable, "-m", "lrank", *args]).returncode


def run(extra: list[str]) -> int:
    """``lrank experiment run --config bench/kebi_experiment.toml EXTRA...``, machine facts beside the store."""
    if importlib.util.find_spec("lrank") is None:
        harness.skip(f"lrank is not importable in {sys.executable}; install it: pip install -e .")
    gives_data = any(not a.startswith("-") and Path(a).suffix in (".csv", ".xarff", ".arff", ".parquet") for a in extra)
    if not gives_data:
        harness.kebi_dir()  # the config reads ../shared/datasets/kebi-csv: skip cleanly without it
    store = STORE
    for i, arg in enumerate(extra):
        if arg in ("-o", "--output") and i + 1 < len(extra):
            store = Path(extra[i + 1])
        elif arg.startswith("--output="):
            store = Path(arg.split("=", 1)[1])
    facts = harness.machine_facts()
    print(f"machine: {harness.describe_machine(facts)}", flush=True)
    status = lrank_cli("experiment", "run", "--config", str(CONFIG), *extra)
    asked_for_help = any(a in ("--help", "-h") for a in extra)
    if status == 0 and store.exists() and not asked_for_help:
        command = harness.command_line("bench.kebi", ["run", *extra])
        sidecar = store.with_name(store.stem + ".machine.json")
        harness.write_json(sidecar, {"suite": "bench.kebi", "command": command, "machine": facts})
        harness.log(f"machine facts in {sidecar}")
    return status


def report(store: Path, out: Path) -> int:
    """The report and figures of BENCHMARKS.md from a finished store, into folder ``out``."""
    if not store.exists():
        harness.skip(f"no store at {store}: `python -m bench.kebi run` makes it")
    import polars as pl

    cells = pl.read_parquet(store, columns=["learner", "missing"])
    labels = set(cells["learner"].to_list())
    p_values = set(cells["missing"].to_list())
    order = [arg for label in ORDER if label in labels for arg in ("-W", label)]
    out.mkdir(parents=True, exist_ok=True)
    status = lrank_cli(
        "experiment", "report", str(store), "--format", "markdown", *order, "-o", str(out / "kebi_experiment_report.md")
    )
    if importlib.util.find_spec("matplotlib") is None:
        harness.log("matplotlib is not installed: no figures (pip install 'lrank[plot]')")
        return status
    for p, name in ((0.0, "kebi_cd_p0.png"), (0.6, "kebi_cd_p06.png")):
        if p in p_values:
            status |= lrank_cli("experiment", "plot", "cd", str(store), "--p", str(p), "-o", str(out / name))
    if len(p_values) > 1:
        status |= lrank_cli(
            "experiment", "plot", "missing", str(store), "--mean", *order, "-o", str(out / "kebi_p_curve.png")
        )
    return status


def compare(store: Path, learners: str | None, ps: str | None) -> int:
    """Markdown tables: mean tau per data set and learner, (published value, difference)."""
    if not store.exists():
        harness.skip(f"no store at {store}: `python -m bench.kebi run` makes it")
    import polars as pl

    df = pl.read_parquet(store)
    folds = int(df["folds"][0]) * int(df["repeats"][0])
    names = learners.split(",") if learners else list(dict.fromkeys(df["learner"].to_list()))
    p_values = [float(p) for p in ps.split(",")] if ps else sorted(set(df["missing"].to_list()))
    means = df.group_by("dataset", "learner", "missing").agg(
        pl.col("kendall_tau").mean().alias("tau"), pl.len().alias("n")
    )
    cell = {(r["dataset"], r["learner"], r["missing"]): (r["tau"], r["n"]) for r in means.iter_rows(named=True)}
    for p in p_values:
        print(f"\n**p = {p}**: Kendall tau, mean over the folds (published value, difference)\n")
        print("| data set | " + " | ".join(names) + " |")
        print("|---|" + "---:|" * len(names))
        for d in sorted(set(df["dataset"].to_list())):
            cells = []
            for learner in names:
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
    return 0


def frontier(store: Path, also: list[Path] | None = None) -> int:
    """Markdown: per data set at p = 0, lrank's best learner (complete folds only) against the best
    known value (bench/published.py BEST_KNOWN), and how many sets it reaches. ``also``: more
    stores run with the same folds (other learners or options), whose learners count too."""
    import polars as pl

    frames = []
    for path in [store, *(also or [])]:
        if not path.exists():
            harness.skip(f"no store at {path}: `python -m bench.kebi run` makes it")
        frame = pl.read_parquet(path).filter(pl.col("missing") == 0.0)
        frames.append(frame.select("dataset", "learner", "kendall_tau", "folds", "repeats", "seed"))
    protocols = {tuple(int(f[c][0]) for c in ("folds", "repeats", "seed")) for f in frames if f.height}
    if len(protocols) > 1:
        raise SystemExit(f"the stores were run with other folds, repeats or seeds: {sorted(protocols)}")
    labels = [set(f["learner"].unique().to_list()) for f in frames]
    shared = set.intersection(*labels) if len(labels) > 1 else set()
    if shared:
        raise SystemExit(f"learner labels in more than one store: {sorted(shared)}")
    df = pl.concat(frames)
    if df.is_empty():
        harness.skip(f"no cells at p = 0 in {store}")
    folds = int(df["folds"][0]) * int(df["repeats"][0])
    means = (
        df.group_by("dataset", "learner")
        .agg(pl.col("kendall_tau").mean().alias("tau"), pl.len().alias("n"))
        .filter(pl.col("n") == folds)
    )
    print("| data set | best known | lrank's best (learner) | difference | runner-up (learner) |")
    print("|---|---:|---:|---:|---:|")
    reached = 0
    for d in sorted(published.BEST_KNOWN):
        rows = means.filter(pl.col("dataset") == d).sort("tau", descending=True).rows(named=True)
        if not rows:
            print(f"| {d} | {published.BEST_KNOWN[d]:.3f} | | | |")
            continue
        best, known = rows[0], published.BEST_KNOWN[d]
        # Means are compared at the published precision (3 decimals).
        met = round(best["tau"], 3) >= known
        reached += met
        second = f"{rows[1]['tau']:.3f} ({rows[1]['learner']})" if len(rows) > 1 else ""
        diff = f"{best['tau'] - known:+.3f}"
        diff = f"**{diff}**" if met else diff
        print(f"| {d} | {known:.3f} | {best['tau']:.3f} ({best['learner']}) | {diff} | {second} |")
    print(f"\nlrank's best at or above the best known value on {reached} of {len(published.BEST_KNOWN)} sets")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["run"]:
        return run(argv[1:])  # everything after `run` goes to lrank experiment run
    ap = argparse.ArgumentParser(prog="python -m bench.kebi", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("run", help="lrank experiment run --config bench/kebi_experiment.toml [OPTIONS]")
    rep = sub.add_parser("report", help="report (Markdown), CD diagrams and p-curve into bench/results/")
    rep.add_argument("store", nargs="?", type=Path, default=STORE)
    rep.add_argument("--out-dir", type=Path, default=harness.RESULTS, help="folder of the report and figures")
    cmp_ = sub.add_parser("compare", help="tables of a store next to the published values")
    cmp_.add_argument("store", nargs="?", type=Path, default=STORE)
    cmp_.add_argument("--learners", default=None, help="comma-separated store labels (default: all, store order)")
    cmp_.add_argument("--p", default=None, help="comma-separated missing-label probabilities (default: all)")
    fro = sub.add_parser("frontier", help="lrank's best learner per set against the best known value (p = 0)")
    fro.add_argument("store", nargs="?", type=Path, default=STORE)
    fro.add_argument(
        "--also", type=Path, action="append", default=[], help="another store with the same folds (repeatable)"
    )
    args = ap.parse_args(argv)
    if args.command == "frontier":
        return frontier(args.store, args.also)
    if args.command == "report":
        return report(args.store, args.out_dir)
    return compare(args.store, args.learners, args.p)


if __name__ == "__main__":
    sys.exit(main())
