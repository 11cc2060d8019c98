"""Dask suite: experiments, training and batch prediction on a LocalCluster of worker processes.

    .venv/bin/python -m bench.dask_scale experiment [--datasets segment,pendigits,calhousing,elevators] [--folds 10]
    .venv/bin/python -m bench.dask_scale train [--rows 10000000] [--partitions 40] [--memory-limit 1GB]
    .venv/bin/python -m bench.dask_scale predict [--rows 10000000] [--partitions 40]
    .venv/bin/python -m bench.dask_scale exact [--rows 1000000] [--partitions 8] [--trees 50] [--class-mode auto]
        [--learner LRRF|LWRF|OVO|PLRRF] [--max-depth N]
    ... [--work-dir DIR] [--out bench/results/NAME.json]

- experiment: 4 KEBI sets x 3 learners (LRRF, IBLR, LWRF) x 10 folds, once with ``--workers 1``
  and once with ``--dask local:2``: wall times, and whether the two stores hold bit-identical
  numbers.
- train: a synthetic set (20 uniform features, 6 labels ranked by a noisy linear utility) written
  as Parquet partitions; LR-RF (50 trees, depth 8) fitted with ``lrank.dask.fit`` on a
  LocalCluster of 2 workers whose memory limit each is below the data's in-memory size; the peak
  resident memory of each worker; Kendall tau on held-out rows against a forest fitted on one
  machine on a 1-million-row sample.
- predict: the same partitions ranked by ``lrank.dask.predict`` on 1 and on 2 workers.
- exact: the same kind of synthetic set; LR-RF (depth 8), LWRF, the OVO forest (``--learner
  OVO``: trees per label pair) or the PLR forest (``--learner PLRRF``), the last three of depth
  ``--max-depth`` (default unlimited), grown by ``lrank.dask.fit(..., exact=True)`` on 2 workers
  and with ``node_seeds=True`` on one machine from all the rows (both on the machine's cores):
  wall times, peak worker memory, and whether the two models are identical.

Needs ``pip install 'lrank[dask]'`` (and the KEBI data for ``experiment``).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench import harness

N_FEATURES, N_LABELS = 20, 6


def _client(n_workers: int, memory_limit: str | None):
    from distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=":0", memory_limit=memory_limit
    )
    return cluster, Client(cluster)


def synthetic(rows: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    weights = np.random.default_rng(12345).normal(size=(N_FEATURES, N_LABELS))
    x = rng.random((rows, N_FEATURES))
    utility = x @ weights + 0.3 * rng.normal(size=(rows, N_LABELS))
    order = np.argsort(-utility, axis=1, kind="stable")
    ranks = np.empty((rows, N_LABELS), dtype=np.int32)
    ranks[np.arange(rows)[:, None], order] = np.arange(1, N_LABELS + 1)
    return x, ranks


def write_partitions(folder: Path, rows: int, partitions: int, seed: int) -> list[Path]:
    import polars as pl

    folder.mkdir(parents=True, exist_ok=True)
    files = []
    per = rows // partitions
    for p in range(partitions):
        x, y = synthetic(per, seed + p)
        frame = pl.DataFrame(x, schema=[f"A{j + 1}" for j in range(N_FEATURES)]).with_columns(
            [pl.Series(f"L{j + 1}", y[:, j]) for j in range(N_LABELS)]
        )
        path = folder / f"part-{p:05d}.parquet"
        frame.write_parquet(path)
        files.append(path)
    return files


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_experiment_suite(args: argparse.Namespace) -> dict:
    folder = harness.kebi_dir(args.data_dir)
    names = harness.dataset_names(args.datasets, folder)
    work = Path(tempfile.mkdtemp(prefix="lrank-dask-"))
    base = [sys.executable, "-m", "lrank", "experiment", "run", *[str(folder / f"{n}.csv") for n in names]]
    base += ["-W", "LRRF", "-W", "IBLR", "-W", "LWRF", "-x", str(args.folds), "--repeats", "1", "--no-report"]
    times = {}
    for label, extra in (("workers_1", ["--workers", "1", "-j", "1"]), ("dask_local_2", ["--dask", "local:2"])):
        start = time.perf_counter()
        subprocess.run([*base, *extra, "-o", str(work / f"{label}.parquet")], check=True)
        times[label] = time.perf_counter() - start
        harness.log(f"{label}: {times[label]:.1f} s")
    import polars as pl

    keys = ["dataset", "learner", "missing", "repeat", "fold"]
    measures = ["kendall_tau", "spearman_rho", "footrule", "top_label_accuracy", "exact_match"]
    a, b = (pl.read_parquet(work / f"{k}.parquet").select(keys + measures).sort(keys) for k in times)
    identical = a.equals(b)
    shutil.rmtree(work)
    out = {
        "datasets": names,
        "cells": a.height,
        "seconds": times,
        "speedup": times["workers_1"] / times["dask_local_2"],
    }
    out["bit_identical"] = identical
    print(
        f"experiment: {a.height} cells, 1 process {times['workers_1']:.1f} s, dask local:2 "
        f"{times['dask_local_2']:.1f} s, speed-up {out['speedup']:.2f}x, identical: {identical}"
    )
    return out


def run_train_suite(args: argparse.Namespace) -> dict:
    import lrank
    import lrank.dask

    folder = Path(args.work_dir) / f"train-{args.rows}"
    files = sorted(folder.glob("*.parquet")) or write_partitions(folder, args.rows, args.partitions, seed=1)
    held_out = files[-1]  # the last partition is kept out of training
    train_dir = folder / "train"
    train_dir.mkdir(exist_ok=True)
    for f in files[:-1]:
        link = train_dir / f.name
        if not link.exists():
            link.symlink_to(f)
    in_memory = args.rows * (N_FEATURES * 8 + N_LABELS * 4)
    harness.log(
        f"data: {args.rows:,} rows in {len(files)} partitions, {in_memory / 2**30:.2f} GiB in memory; "
        f"worker memory limit {args.memory_limit}"
    )
    cluster, client = _client(2, args.memory_limit)
    try:
        start = time.perf_counter()
        forest = lrank.dask.fit(
            lrank.LabelRankingRandomForest(n_estimators=50, random_state=0), train_dir, client=client
        )
        fit_seconds = time.perf_counter() - start
        peaks = client.run(_peak_rss_mib)
    finally:
        client.close()
        cluster.close()
    import polars as pl

    test = pl.read_parquet(held_out)[: args.test_rows]
    labels = [f"L{j + 1}" for j in range(N_LABELS)]
    x_test, y_test = test.drop(labels).to_numpy(), test.select(labels).to_numpy()
    tau_dask = harness.mean_tau(y_test, forest.predict(test.drop(labels)))  # fitted on named columns
    x_sample, y_sample = synthetic(args.sample_rows, seed=99)
    start = time.perf_counter()
    single = lrank.LabelRankingRandomForest(n_estimators=50, random_state=0).fit(x_sample, y_sample)
    single_seconds = time.perf_counter() - start
    tau_single = harness.mean_tau(y_test, single.predict(x_test))
    out = {
        "rows": args.rows,
        "partitions": len(files),
        "in_memory_gib": in_memory / 2**30,
        "memory_limit": args.memory_limit,
        "fit_seconds": fit_seconds,
        "worker_peak_mib": sorted(peaks.values()),
        "tau_distributed": tau_dask,
        "tau_single_machine_sample": tau_single,
        "single_machine_sample_rows": args.sample_rows,
        "single_machine_fit_seconds": single_seconds,
    }
    print(
        f"train: {args.rows:,} rows, fit {fit_seconds:.1f} s on 2 workers (limit {args.memory_limit} each, data "
        f"{in_memory / 2**30:.2f} GiB), peak per worker {', '.join(f'{p:.0f}' for p in sorted(peaks.values()))} MiB; "
        f"held-out tau {tau_dask:.4f} vs {tau_single:.4f} on one machine from {args.sample_rows:,} rows"
    )
    return out


def run_predict_suite(args: argparse.Namespace) -> dict:
    import lrank
    import lrank.dask

    folder = Path(args.work_dir) / f"train-{args.rows}"
    files = sorted(folder.glob("*.parquet")) or write_partitions(folder, args.rows, args.partitions, seed=1)
    x, y = synthetic(200_000, seed=7)
    model = lrank.LabelRankingRandomForest(n_estimators=50, random_state=0).fit(x, y)
    feature_columns = [f"A{j + 1}" for j in range(N_FEATURES)]
    times = {}
    for workers in (1, 2):
        out_dir = Path(args.work_dir) / f"predicted-{workers}"
        shutil.rmtree(out_dir, ignore_errors=True)
        cluster, client = _client(workers, None)
        try:
            client.run(lambda: None)  # workers up before the clock starts
            start = time.perf_counter()
            lrank.dask.predict(model, folder, out_dir, feature_columns=feature_columns, client=client)
            times[f"workers_{workers}"] = time.perf_counter() - start
        finally:
            client.close()
            cluster.close()
        harness.log(f"predict on {workers} worker(s): {times[f'workers_{workers}']:.1f} s")
    speedup = times["workers_1"] / times["workers_2"]
    print(
        f"predict: {args.rows:,} rows in {len(files)} files, 1 worker {times['workers_1']:.1f} s, "
        f"2 workers {times['workers_2']:.1f} s, speed-up {speedup:.2f}x"
    )
    return {"rows": args.rows, "seconds": times, "speedup": speedup}


def run_exact_suite(args: argparse.Namespace) -> dict:
    import lrank
    import lrank.dask
    import polars as pl

    folder = Path(args.work_dir) / f"exact-{args.rows}-{args.partitions}"
    files = sorted(folder.glob("*.parquet")) or write_partitions(folder, args.rows, args.partitions, seed=3)
    params: dict = {"n_estimators": args.trees, "random_state": 0}
    if args.learner == "LRRF":
        learner, params["class_mode"] = lrank.LabelRankingRandomForest, args.class_mode
    else:
        params["max_depth"] = args.max_depth
        learner = {
            "LWRF": lrank.LabelwiseRandomForest,
            "OVO": lrank.OneVsOneLabelRanker,
            "PLRRF": lrank.PartialLabelRankingForest,
        }[args.learner]
        if args.learner == "OVO":
            params.update(classifier="forest", max_bins=255)
    cluster, client = _client(2, None)
    try:
        client.run(lambda: None)  # workers up before the clock starts
        start = time.perf_counter()
        forest = lrank.dask.fit(learner(**params), folder, client=client, exact=True)
        exact_seconds = time.perf_counter() - start
        peaks = client.run(_peak_rss_mib)
    finally:
        client.close()
        cluster.close()
    frame = pl.concat([pl.read_parquet(f) for f in files])
    labels = [f"L{j + 1}" for j in range(N_LABELS)]
    start = time.perf_counter()
    single = learner(node_seeds=True, **params).fit(frame.drop(labels), frame.select(labels))
    single_seconds = time.perf_counter() - start
    identical = forest.model_ == single.model_
    what = f"{forest.class_mode_} classes" if args.learner == "LRRF" else f"{args.learner}, max_depth {args.max_depth}"
    print(
        f"exact: {args.rows:,} rows in {len(files)} partitions, {args.trees} trees ({what}): "
        f"2 workers {exact_seconds:.1f} s, one machine {single_seconds:.1f} s; peak per worker "
        f"{', '.join(f'{p:.0f}' for p in sorted(peaks.values()))} MiB; identical models: {identical}"
    )
    return {
        "rows": args.rows,
        "partitions": len(files),
        "trees": args.trees,
        "learner": args.learner,
        "params": params,
        "class_mode": getattr(forest, "class_mode_", None),
        "exact_seconds": exact_seconds,
        "single_machine_seconds": single_seconds,
        "worker_peak_mib": sorted(peaks.values()),
        "identical": identical,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.dask_scale", description=__doc__.splitlines()[0])
    ap.add_argument("suite", choices=["experiment", "train", "predict", "exact"])
    # Sets with work to share: on iris, glass, vehicle and stock a grid is 2 s in one process,
    # less than starting the cluster.
    ap.add_argument("--datasets", default="segment,pendigits,calhousing,elevators")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--rows", type=int, default=None, help="default 10,000,000 (exact: 1,000,000)")
    ap.add_argument("--partitions", type=int, default=None, help="default 40 (exact: 8)")
    ap.add_argument("--memory-limit", default="1GB")
    ap.add_argument("--test-rows", type=int, default=100_000)
    ap.add_argument("--sample-rows", type=int, default=1_000_000)
    ap.add_argument("--work-dir", default=str(Path(tempfile.gettempdir()) / "lrank-dask-bench"))
    ap.add_argument("--trees", type=int, default=50, help="exact: trees of the forest")
    ap.add_argument("--class-mode", default="auto", help="exact: LR-RF's class mode")
    ap.add_argument("--learner", choices=["LRRF", "LWRF", "OVO", "PLRRF"], default="LRRF", help="exact: the forest")
    ap.add_argument("--max-depth", type=int, default=None, help="exact: LWRF's max_depth (default unlimited)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    exact = args.suite == "exact"
    args.rows = args.rows or (1_000_000 if exact else 10_000_000)
    args.partitions = args.partitions or (8 if exact else 40)
    try:
        import distributed  # noqa: F401
    except ImportError:
        harness.skip("Dask is not installed: pip install 'lrank[dask]'")
    suites = {"experiment": run_experiment_suite, "train": run_train_suite, "predict": run_predict_suite}
    run = {**suites, "exact": run_exact_suite}[args.suite]
    result = run(args)
    if args.out:
        harness.write_json(
            Path(args.out),
            {
                "suite": f"dask_scale {args.suite}",
                "command": harness.command_line("bench.dask_scale", argv),
                "machine": harness.machine_facts(),
                "result": result,
            },
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
