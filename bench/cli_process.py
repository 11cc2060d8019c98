"""The whole `lrank train -t TRAIN -T TEST` process against scikit-lr's fit plus predict (issue 25).

    bench/.venv313/bin/python -m bench.cli_process [--datasets calhousing] [--folds 10]
        [--max-folds 2] [--seed 0] [--trees 50] [--max-depth 8] [--out bench/results/NAME.json]

For each fold of the shuffled K-fold split every speed suite uses, the fold's training and test
rows are written as KEBI CSV files, and ``python -m lrank train -t TRAIN -T TEST -W LRRF -j 1 --
-I T -depth D`` runs as a fresh process, timed from its start to its exit: interpreter start,
imports, reading both files, the fit, the predict and the report all count. The peer is
scikit-lr 0.3.0's T bagged trees (``lrrf_sklr`` of ``bench.speed_sklr``), fit plus predict in a
fresh process (its start-up and imports not counted). Printed per data set: the means over the
folds, the ratio of the means with a 95% bootstrap interval over the folds, and lrank's tau on
each test fold (read from the command's JSON report) beside the peer's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench import harness


def fold_files(source: Path, train: np.ndarray, test: np.ndarray, folder: Path) -> tuple[Path, Path]:
    """The rows ``train`` and ``test`` of a KEBI CSV file (in the order ``harness.load_kebi``
    reads them), each written with the header as a file of its own."""
    lines = [line for line in source.read_text().splitlines() if line.strip()]
    header, rows = lines[0], lines[1:]
    paths = []
    for name, index in (("train", train), ("test", test)):
        path = folder / f"{name}.csv"
        path.write_text("\n".join([header, *(rows[i] for i in index)]) + "\n")
        paths.append(path)
    return paths[0], paths[1]


def lrank_process(train: Path, test: Path, trees: int, depth: int, seed: int) -> tuple[float, float]:
    """Wall seconds of the whole ``lrank train`` process, and the test tau it reports."""
    command = [sys.executable, "-m", "lrank", "train", "-t", str(train), "-T", str(test), "-W", "LRRF", "-j", "1"]
    command += ["-s", str(seed), "--format", "json", "--", "-I", str(trees), "-depth", str(depth)]
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise harness.ChildError(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "lrank train failed")
    report = json.loads(proc.stdout)
    return seconds, float(report["evaluations"][0]["measures"]["kendall_tau"]["mean"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.cli_process", description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default="calhousing", help="KEBI file names (default: calhousing)")
    ap.add_argument("--folds", type=int, default=10, help="K of the shuffled K-fold split (default: 10)")
    ap.add_argument("--max-folds", type=int, default=2, help="run only the first K folds (default: 2)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the split and of both learners (default: 0)")
    ap.add_argument("--trees", type=int, default=50, help="trees of both forests (default: 50)")
    ap.add_argument("--max-depth", type=int, default=8, help="lrank's tree depth (default: 8; the peer's grow fully)")
    ap.add_argument("--data-dir", default=None, help="KEBI CSV folder (default: ../shared/datasets/kebi-csv)")
    ap.add_argument("--out", default=None, help="write every number to this JSON file")
    args = ap.parse_args(argv)
    folder = harness.kebi_dir(args.data_dir)
    facts = harness.machine_facts()
    print(f"machine: {harness.describe_machine(facts)}", flush=True)
    peer_missing = harness.unavailable("lrrf_sklr")
    if peer_missing:
        harness.log(f"peer skipped: {peer_missing}")
    params = dict(harness.child.DEFAULT_PARAMS, seed=args.seed, trees=args.trees)
    results: dict = {}
    for name in harness.dataset_names(args.datasets, folder):
        X, Y = harness.load_kebi(name, folder)
        runs: dict[str, list[dict]] = {"lrrf_sklr": [], "lrank_process": []}
        for k, (train, test) in enumerate(harness.kfold_indices(len(X), args.folds, args.seed)[: args.max_folds]):
            with tempfile.TemporaryDirectory(prefix="lrank-cli-") as tmp:
                tr, te = fold_files(folder / f"{name}.csv", train, test, Path(tmp))
                seconds, tau = lrank_process(tr, te, args.trees, args.max_depth, args.seed)
            runs["lrank_process"].append({"fold": k, "total_s": seconds, "tau": tau})
            harness.log(f"{name} fold {k + 1}: lrank train process {seconds:.3f} s, tau {tau:.4f}")
            if not peer_missing:
                pred, out = harness.run_child("lrrf_sklr", params, X[train], Y[train], X[test], timeout=3600)
                total = out["fit_s"] + out["predict_s"]
                tau_peer = harness.mean_tau(Y[test], pred)
                runs["lrrf_sklr"].append({"fold": k, "total_s": total, "tau": tau_peer})
                harness.log(f"{name} fold {k + 1}: scikit-lr fit + predict {total:.3f} s, tau {tau_peer:.4f}")
        mean = {key: float(np.mean([r["total_s"] for r in rs])) for key, rs in runs.items() if rs}
        line = f"{name}: lrank train process {mean['lrank_process']:.3f} s"
        if runs["lrrf_sklr"]:
            interval = harness.ratio_interval(runs["lrrf_sklr"], runs["lrank_process"], "total_s")
            ratio = mean["lrrf_sklr"] / mean["lrank_process"]
            shown = f" [{interval[0]:.1f}, {interval[1]:.1f}]" if interval else ""
            line += f"; scikit-lr fit + predict {mean['lrrf_sklr']:.3f} s; ratio {ratio:.1f}x{shown}"
        print(line, flush=True)
        results[name] = {"runs": runs, "mean_s": mean}
    if args.out:
        command = harness.command_line("bench.cli_process", argv if argv is not None else sys.argv[1:])
        harness.write_json(Path(args.out), {"command": command, "machine": facts, "datasets": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
