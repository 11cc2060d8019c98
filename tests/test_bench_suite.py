"""The benchmark suite in bench/ runs: every suite's CLI, clean skips, the shared harness, a tiny run.

The suites are run as ``python -m bench.SUITE`` from the repository root, as bench/README.md
says; the peers (scikit-lr) are not installed here, so the speed suites must run lrank alone
and say why the peers were skipped.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SUITES = ["accuracy", "speed_sklr", "speed_sklearn", "tau_sklr", "kebi", "plr", "plr_bins", "cli_process", "oob"]


def bench(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=ROOT,
        env=dict(os.environ, **(env or {})),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def harness(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    return importlib.import_module("bench.harness")


@pytest.mark.parametrize("suite", SUITES)
def test_every_suite_answers_help(suite):
    proc = bench(f"bench.{suite}", "--help")
    assert proc.returncode == 0, proc.stderr
    assert "usage: python -m bench." in proc.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["bench.accuracy", "--datasets", "iris"],
        ["bench.speed_sklr", "--datasets", "iris"],
        ["bench.speed_sklearn", "--datasets", "iris"],
        ["bench.tau_sklr", "--datasets", "iris"],
        ["bench.kebi", "run", "--dry-run"],
        ["bench.cli_process", "--datasets", "iris"],
        ["bench.oob", "--datasets", "iris"],
    ],
)
def test_every_suite_skips_cleanly_without_the_data(args, tmp_path):
    proc = bench(*args, env={"LRANK_BENCH_KEBI": str(tmp_path / "absent")})
    assert proc.returncode == 0, proc.stderr
    assert "SKIPPED: KEBI data not found" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_child_module_parses_as_python_3_7():
    """bench/.venv37 (scikit-lr 0.2.0) runs bench.child and imports bench/__init__.py."""
    for name in ("child.py", "__init__.py"):
        ast.parse((ROOT / "bench" / name).read_text(), feature_version=(3, 7))


def test_folds_partition_the_rows_the_same_way_for_every_caller(harness):
    folds = harness.kfold_indices(23, 4, seed=0)
    tests = np.concatenate([te for _, te in folds])
    assert sorted(tests.tolist()) == list(range(23))
    for train, test in folds:
        assert sorted(np.concatenate([train, test]).tolist()) == list(range(23))
    again = harness.kfold_indices(23, 4, seed=0)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(folds, again))


def test_kendall_tau_of_rows(harness):
    true = np.array([[1, 2, 3], [1, 2, 3], [1, 2, 3], [1, 0, 2]])
    pred = np.array([[1, 2, 3], [3, 2, 1], [2, 1, 3], [2, 3, 1]])
    assert harness.kendall_tau_rows(true, pred).tolist() == pytest.approx([1.0, -1.0, 1 / 3, -1.0])


def test_machine_facts_name_the_commit_and_the_machine(harness):
    facts = harness.machine_facts()
    assert facts["cores"] >= 1 and facts["python"] and facts["date"]
    assert len(facts["git"]["commit"] or "") == 40


def test_speed_suites_run_lrank_and_peer_on_the_same_folds(kebi_dir, tmp_path):
    pytest.importorskip("sklearn")
    out = tmp_path / "labelwise.json"
    proc = bench(
        "bench.speed_sklearn",
        *("--groups", "lwdt", "--datasets", "iris", "--folds", "2", "--max-folds", "1", "--out", str(out)),
        env={"LRANK_BENCH_KEBI": str(kebi_dir)},
    )
    assert proc.returncode == 0, proc.stderr
    assert "lwdt_sklearn/lwdt_lrank_j1" in proc.stdout
    result = json.loads(out.read_text())
    runs = result["datasets"]["iris"]["runs"]
    assert [r["n_test"] for r in runs["lwdt_sklearn"]] == [r["n_test"] for r in runs["lwdt_lrank_j1"]] == [75]
    assert all(r["peak_mib"] > 0 and r["fit_s"] >= 0 for rs in runs.values() for r in rs)
    assert result["machine"]["git"]["commit"]


def test_speed_suite_without_the_peer_runs_lrank_alone(kebi_dir):
    proc = bench(
        "bench.speed_sklr",
        *("--groups", "lrt", "--datasets", "iris", "--folds", "2", "--max-folds", "1"),
        env={"LRANK_BENCH_KEBI": str(kebi_dir)},
    )
    assert proc.returncode == 0, proc.stderr
    assert "lrt_lrank_j1" in proc.stdout
    if importlib.util.find_spec("sklr") is None:
        assert "skipping lrt_sklr: scikit-lr is not installed" in proc.stderr


def test_the_cli_process_suite_times_whole_lrank_train_runs_on_the_folds(kebi_dir, tmp_path):
    out = tmp_path / "cli.json"
    proc = bench(
        "bench.cli_process",
        *("--datasets", "iris", "--folds", "3", "--max-folds", "2", "--trees", "3", "--out", str(out)),
        env={"LRANK_BENCH_KEBI": str(kebi_dir)},
    )
    assert proc.returncode == 0, proc.stderr
    runs = json.loads(out.read_text())["datasets"]["iris"]["runs"]
    assert [r["fold"] for r in runs["lrank_process"]] == [0, 1]
    # A whole process takes at least the interpreter's start; the tau is the report's, of a real fit.
    assert all(r["total_s"] > 0.05 and 0.5 < r["tau"] <= 1 for r in runs["lrank_process"])
    assert "iris: lrank train process" in proc.stdout


def test_a_saved_speed_run_reprints_with_its_ratios():
    proc = bench("bench.speed_sklr", "--report", "bench/results/cheng_speed.json")
    assert proc.returncode == 0, proc.stderr
    assert "lrt_sklr/lrt_lrank_j1" in proc.stdout
    assert "59b4fd2985" in proc.stdout  # the commit the run was measured at


def test_the_plr_suite_skips_cleanly_without_its_data(tmp_path):
    for args in (["speed", "--datasets", "iris"], ["run", "--dry-run"]):
        proc = bench("bench.plr", *args, env={"LRANK_BENCH_PLR": str(tmp_path / "absent")})
        assert proc.returncode == 0, proc.stderr
        assert "SKIPPED: partial-label-ranking data not found" in proc.stderr
        assert "Traceback" not in proc.stderr


def test_tau_x_of_rows_is_lranks(harness):
    from lrank.evaluation import tau_x

    rng = np.random.default_rng(0)
    raw = rng.integers(0, 4, size=(200, 5))
    dense = np.array([[0 if v == 0 else sorted(set(r[r > 0])).index(v) + 1 for v in r] for r in raw])
    dense[dense.sum(axis=1) == 0, 0] = 1
    pred = np.array([[sorted(set(r)).index(v) + 1 for v in r] for r in rng.integers(1, 4, size=(200, 5))])
    got = harness.tau_x_rows(dense, pred)
    np.testing.assert_allclose(got, tau_x(dense, pred, per_row=True), equal_nan=True)


def test_the_plr_suite_runs_and_compares_with_the_published_values(tmp_path):
    data = ROOT.parent / "shared" / "datasets" / "plr-csv"
    if not (data / "iris.csv").is_file():
        pytest.skip(f"shared partial-label-ranking data not found at {data}")
    store = tmp_path / "plr.parquet"
    run = bench(
        "bench.plr",
        *("run", "-W", "PLRT", "-x", "2", "--repeats", "1", "--missing", "0", "-o", str(store), str(data / "iris.csv")),
    )
    assert run.returncode == 0, run.stderr
    compared = bench("bench.plr", "compare", str(store))
    assert compared.returncode == 0, compared.stderr
    line = next(row for row in compared.stdout.splitlines() if row.startswith("| iris |"))
    assert "(PLRT)" in line and "0.932" in line and "0.917 / 0.897" in line
    speed = bench("bench.plr", *("speed", "--groups", "plrt", "--datasets", "iris", "--folds", "2", "--max-folds", "1"))
    assert speed.returncode == 0, speed.stderr
    assert "plrt_lrank_j1" in speed.stdout and "tau_x" in speed.stdout


def test_the_plr_bins_suite_times_both_searches_on_a_tiny_synthetic_set():
    proc = bench("bench.plr_bins", "--rows", "600", "--sets", "", "--repeats", "1", "--trees", "2")
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| synthetic 600 |")]
    assert len(rows) == 4, proc.stdout
    for row in rows:
        tau_exact, tau_hist = (float(v) for v in row.rstrip(" |").split("|")[-1].split("/"))
        assert 0.3 < tau_exact <= 1 and 0.3 < tau_hist <= 1, row


def test_the_synthetic_plr_set_has_ties_and_dense_positions():
    from bench.plr_bins import synthetic

    _, y = synthetic(300, seed=1)
    assert (y.max(axis=1) < y.shape[1]).mean() > 0.5  # most rows tie some labels
    for row in y:
        assert sorted(set(row.tolist())) == list(range(1, row.max() + 1))


def test_asking_the_kebi_run_for_help_records_no_machine_facts(tmp_path):
    store = tmp_path / "store.parquet"
    store.write_bytes(b"")  # an existing store: a finished run writes its facts beside it
    proc = bench("bench.kebi", "run", "data.csv", "-o", str(store), "--help")
    assert proc.returncode == 0, proc.stderr
    assert "Usage: lrank experiment run" in proc.stdout
    assert not (tmp_path / "store.machine.json").exists()


def _store(path, learner, tau, seed=1):
    """A store of one learner's 2 x 1 folds on iris (best known .978) at p = 0."""
    import polars as pl

    rows = {"dataset": ["iris", "iris"], "learner": [learner] * 2, "kendall_tau": [tau, tau], "missing": [0.0, 0.0]}
    pl.DataFrame({**rows, "folds": [2, 2], "repeats": [1, 1], "seed": [seed, seed]}).write_parquet(path)
    return str(path)


def test_the_frontier_counts_the_learners_of_every_store_run_on_the_same_folds(tmp_path):
    pytest.importorskip("polars")
    main, tuned = _store(tmp_path / "a.parquet", "LWRF", 0.970), _store(tmp_path / "b.parquet", "GBLR-tune", 0.980)
    alone = bench("bench.kebi", "frontier", main)
    assert alone.returncode == 0, alone.stderr
    assert "| iris | 0.978 | 0.970 (LWRF) | -0.008 |" in alone.stdout
    both = bench("bench.kebi", "frontier", main, "--also", tuned)
    assert both.returncode == 0, both.stderr
    assert "| iris | 0.978 | 0.980 (GBLR-tune) | **+0.002** | 0.970 (LWRF) |" in both.stdout
    assert "on 1 of 16 sets" in both.stdout
    # Other folds, or one label in two stores, would mix cells that do not belong together.
    other = bench("bench.kebi", "frontier", main, "--also", _store(tmp_path / "c.parquet", "X", 0.99, seed=2))
    assert other.returncode != 0 and "other folds, repeats or seeds" in other.stderr
    twice = bench("bench.kebi", "frontier", main, "--also", _store(tmp_path / "d.parquet", "LWRF", 0.99))
    assert twice.returncode != 0 and "in more than one store: ['LWRF']" in twice.stderr
