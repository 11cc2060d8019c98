"""Running experiments: the numbers of cross_validate, resuming without recomputing, refusing
stores made otherwise, failures naming their cell, worker processes, and surviving SIGKILL."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import lrank.registry
import polars as pl
import pytest
from experiment_plugin import SPEC as SLOW_SPEC
from experiment_plugin import install_entry_point
from lrank.data import read_dataset
from lrank.errors import ExperimentError
from lrank.evaluation import cross_validate
from lrank.experiment import (
    ExperimentConfig,
    ResultStore,
    expand_datasets,
    parse_learner,
    plan_experiment,
    run_experiment,
)
from lrank.experiment.store import COLUMNS, KEY, MEASURE_COLUMNS, StoreWriter
from lrank.registry import get_learner

ROOT = Path(__file__).resolve().parents[1]
IRIS = str(ROOT / "datasets" / "iris.xarff")
WINE = str(ROOT / "datasets" / "wine.xarff")


def config(*learners: str, data=(IRIS,), store="store.parquet", **kwargs) -> ExperimentConfig:
    kwargs.setdefault("folds", 3)
    kwargs.setdefault("repeats", 2)
    return ExperimentConfig(
        datasets=tuple(expand_datasets(list(data))),
        learners=tuple(parse_learner(s) for s in learners),
        output=str(store),
        **kwargs,
    )


def run(cfg: ExperimentConfig):
    store = ResultStore(cfg.output)
    with store.locked():
        summary = run_experiment(plan_experiment(cfg, store), store)
    return summary, store.read()


@pytest.fixture
def slow_learner(monkeypatch):
    """The test plug-in registered in this process (as an entry point would register it)."""
    monkeypatch.setattr(lrank.registry, "_entry_point_specs", lambda: [SLOW_SPEC])


def test_experiment_numbers_equal_cross_validate(tmp_path):
    learners = ("LRRF -I 10", "IBLR -K 5")
    _, frame = run(config(*learners, missing=(0.0, 0.3), store=tmp_path / "s.parquet"))
    assert frame.height == 2 * 2 * 2 * 3
    data = read_dataset(IRIS)
    for text in learners:
        setting = parse_learner(text)
        for p in (0.0, 0.3):
            ev = cross_validate(
                lambda: get_learner(setting.name).build(list(setting.options), seed=1),
                data.feature_matrix(),
                data.rankings,
                labels=data.labels,
                n_folds=3,
                repeats=2,
                seed=1,
                missing=p,
            )
            cells = frame.filter(pl.col("learner") == text, pl.col("missing") == p).sort("repeat", "fold")
            for measure in MEASURE_COLUMNS:
                assert cells.get_column(measure).to_list() == [f[measure] for f in ev.folds], (text, p, measure)


def test_every_learner_sees_the_same_folds_and_the_store_records_the_protocol(tmp_path):
    _, frame = run(config("LRRF -I 5", "IBLR -K 5", data=(IRIS, WINE), store=tmp_path / "s.parquet", seed=4))
    sizes = frame.group_by("dataset", "repeat", "fold").agg(pl.col("n_train").n_unique(), pl.col("n_test").n_unique())
    assert (sizes["n_train"] == 1).all() and (sizes["n_test"] == 1).all()
    assert set(frame["n_train"] + frame["n_test"]) == {150, 178}
    assert frame.select("seed", "folds", "repeats").unique().rows() == [(4, 3, 2)]
    assert frame.filter(pl.col("learner") == "IBLR -K 5")["learner_options"].unique().to_list() == ["-K 5"]
    assert frame["dataset_sha256"].n_unique() == 2 and (frame["fit_seconds"] >= 0).all()
    assert frame.schema == pl.Schema(COLUMNS)


def test_a_restart_computes_only_the_missing_cells(tmp_path):
    store_path = tmp_path / "s.parquet"
    first, frame1 = run(config("LRRF -I 5", store=store_path, missing=(0.0,)))
    assert (first.computed, first.already_stored) == (6, 0)
    # a second learner and a second p: only their cells run
    second, frame2 = run(config("LRRF -I 5", "IBLR -K 5", store=store_path, missing=(0.0, 0.3)))
    assert (second.computed, second.already_stored, second.cells) == (18, 6, 24)
    old = frame2.filter(pl.col("run_id") == first.run_id)
    assert old.equals(frame1)  # untouched: same rows, same computed_at
    third, frame3 = run(config("LRRF -I 5", "IBLR -K 5", store=store_path, missing=(0.0, 0.3)))
    assert third.computed == 0 and frame3.equals(frame2)
    # the same numbers as a run from scratch
    _, fresh = run(config("LRRF -I 5", "IBLR -K 5", store=tmp_path / "fresh.parquet", missing=(0.0, 0.3)))
    measures = [*KEY, *MEASURE_COLUMNS]
    assert frame3.select(measures).sort(list(KEY)).equals(fresh.select(measures).sort(list(KEY)))


def test_resuming_fold_k_alone_reproduces_its_deleted_labels(tmp_path):
    """Cells stored out of order (here: every other fold dropped) are recomputed identically."""
    store_path = tmp_path / "s.parquet"
    _, full = run(config("LRRF -I 5", store=store_path, missing=(0.5,), folds=4))
    ResultStore(store_path).write(full.filter(pl.col("fold") % 2 == 0))
    summary, again = run(config("LRRF -I 5", store=store_path, missing=(0.5,), folds=4))
    assert summary.computed == 4
    measures = [*KEY, *MEASURE_COLUMNS]
    assert again.select(measures).sort(list(KEY)).equals(full.select(measures).sort(list(KEY)))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"folds": 4}, "made with folds = 3, this run asks for folds = 4"),
        ({"repeats": 1}, "made with repeats = 2, this run asks for repeats = 1"),
        ({"seed": 2}, "made with seed = 1, this run asks for seed = 2"),
    ],
)
def test_a_store_made_with_another_protocol_is_refused(tmp_path, change, message):
    store_path = tmp_path / "s.parquet"
    run(config("LRRF -I 5", store=store_path))
    with pytest.raises(ExperimentError, match=message):
        run(config("LRRF -I 5", store=store_path, **change))


def test_a_store_extends_to_more_repeats_with_the_numbers_of_a_run_of_them_all(tmp_path):
    store_path = tmp_path / "s.parquet"
    learners = ("LRRF -I 5", "IBLR -K 5")
    run(config(*learners, store=store_path, missing=(0.0, 0.3), repeats=1))
    summary, extended = run(config(*learners, store=store_path, missing=(0.0, 0.3), repeats=3))
    assert summary.computed == 2 * 2 * 2 * 3 and summary.already_stored == 2 * 2 * 3
    assert extended["repeats"].unique().to_list() == [3]
    _, whole = run(config(*learners, store=tmp_path / "whole.parquet", missing=(0.0, 0.3), repeats=3))
    measures = [*KEY, *MEASURE_COLUMNS, "n_train", "repeats"]
    assert extended.select(measures).sort(list(KEY)).equals(whole.select(measures).sort(list(KEY)))


def test_a_changed_data_file_or_a_redefined_label_is_refused(tmp_path):
    data = tmp_path / "iris.xarff"
    data.write_bytes(Path(IRIS).read_bytes())
    store_path = tmp_path / "s.parquet"
    run(config("A=LRRF -I 5", data=(str(data),), store=store_path))
    with pytest.raises(ExperimentError, match="learner 'A' as LRRF -I 5, but this run defines it as LRRF -I 6"):
        run(config("A=LRRF -I 6", data=(str(data),), store=store_path))
    data.write_text(data.read_text().replace("% ", "%  ", 1) + "\n")
    with pytest.raises(ExperimentError, match="another file named 'iris'"):
        run(config("A=LRRF -I 5", data=(str(data),), store=store_path))


def test_too_many_folds_and_bad_files_fail_before_any_work(tmp_path):
    bad = tmp_path / "bad.xarff"
    bad.write_text("@relation r\n@attribute a numeric\n@attribute L RANKING {x,y}\n@data\n1,x>z\n")
    with pytest.raises(Exception, match=r"bad\.xarff:5: undeclared label 'z'"):
        run(config("LRRF", data=(str(bad),), store=tmp_path / "s.parquet"))
    with pytest.raises(ExperimentError, match="cannot make 200 folds from 150 instances"):
        run(config("LRRF", store=tmp_path / "s.parquet", folds=200))
    assert not (tmp_path / "s.parquet").exists()


@pytest.mark.parametrize("workers", [1, 2])
def test_a_failing_learner_names_its_cell_and_the_others_are_computed(tmp_path, slow_learner, workers, monkeypatch):
    # Worker processes find the plug-in as an installed entry point on their path.
    install_entry_point(str(tmp_path / "plugins"))
    monkeypatch.syspath_prepend(str(tmp_path / "plugins"))
    store_path = tmp_path / "s.parquet"
    # 3 folds: iris trains on 100 rows, wine on 118 or 119, which the plug-in refuses; wine comes
    # first, and LRRF's cells on both data sets are still computed.
    with pytest.raises(ExperimentError) as caught:
        run(config("SLOW -fail-above 110", "LRRF -I 3", data=(WINE, IRIS), store=store_path, workers=workers))
    message = str(caught.value)
    assert re.fullmatch(r"wine / SLOW -fail-above 110 / p=0 / repeat \d fold \d: refusing 11\d training rows", message)
    stored = ResultStore(store_path).read()
    assert stored.height == 6 + 12
    assert sorted(stored.filter(pl.col("learner") == "SLOW -fail-above 110")["dataset"].unique()) == ["iris"]
    assert stored.filter(pl.col("learner") == "LRRF -I 3").height == 12


def test_several_failures_are_all_named(tmp_path, slow_learner):
    with pytest.raises(ExperimentError) as caught:
        run(config("SLOW -fail-above 110", "SLOW -fail-above 50", data=(IRIS, WINE), store=tmp_path / "s.parquet"))
    lines = str(caught.value).splitlines()
    assert lines[0].startswith(
        "3 learner / data set pair(s) failed; their 18 cells are not stored (the other 6 cells are)"
    )
    assert {line.split(" / p=")[0] for line in lines[1:]} == {
        "wine / SLOW -fail-above 110",
        "iris / SLOW -fail-above 50",
        "wine / SLOW -fail-above 50",
    }


def test_worker_processes_give_the_same_numbers(tmp_path):
    learners = ("LRRF -I 5", "IBLR -K 5")
    _, one = run(config(*learners, store=tmp_path / "one.parquet", missing=(0.0, 0.4), repeats=1))
    _, two = run(config(*learners, store=tmp_path / "two.parquet", missing=(0.0, 0.4), repeats=1, workers=2))
    measures = [*KEY, *MEASURE_COLUMNS]
    assert one.select(measures).sort(list(KEY)).equals(two.select(measures).sort(list(KEY)))


def test_one_writer_per_store(tmp_path):
    store = ResultStore(tmp_path / "s.parquet")
    with (
        store.locked(),
        pytest.raises(ExperimentError, match="another lrank experiment is writing this store"),
        ResultStore(tmp_path / "s.parquet").locked(),
    ):
        pass


def test_store_writes_are_atomic_and_leave_no_temporary_files(tmp_path):
    store = ResultStore(tmp_path / "s.parquet")
    _, frame = run(config("LRRF -I 5", store=store.path))
    writer = StoreWriter(store, frame.head(0), min_interval=3600)
    writer.add_many(frame.head(2).to_dicts())
    assert store.read().height == frame.height  # not written yet: the interval has not passed
    writer.close()
    assert store.read().equals(frame.head(2))
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")) == ["s.parquet"]
    (tmp_path / ".s.parquet.123.tmp").write_bytes(b"left by a killed run")
    store.remove_stale_temporaries()
    assert not (tmp_path / ".s.parquet.123.tmp").exists()


def test_foreign_files_are_not_taken_for_stores(tmp_path):
    other = tmp_path / "other.parquet"
    pl.DataFrame({"a": [1]}).write_parquet(other)
    with pytest.raises(ExperimentError, match="not an lrank experiment store"):
        ResultStore(other).read()
    junk = tmp_path / "junk.parquet"
    junk.write_text("junk")
    with pytest.raises(ExperimentError, match="not a readable Parquet file"):
        ResultStore(junk).read()


def _rows(path: Path) -> int:
    try:
        return pl.read_parquet(path).height if path.exists() else 0
    except Exception as exc:  # a torn file would show up here
        raise AssertionError(f"the store is not readable: {exc}") from None


def test_a_killed_run_resumes_without_recomputing_stored_cells(tmp_path):
    """SIGKILL mid-run, restart: stored cells keep their run and timestamp, only the rest is fit,
    and the final store has the numbers of an uninterrupted run."""
    plugins = tmp_path / "plugins"
    install_entry_point(str(plugins))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(plugins), str(ROOT / "tests"), str(ROOT / "python"), env.get("PYTHONPATH", "")]
    )
    store = tmp_path / "s.parquet"
    args = [
        sys.executable,
        "-m",
        "lrank.cli",
        "experiment",
        "run",
        IRIS,
        "-x",
        "5",
        "--repeats",
        "2",
        "--missing",
        "0,0.3",
        "--no-report",
        "-j",
        "1",
    ]
    total = 5 * 2 * 2

    env["LRANK_TEST_FIT_LOG"] = str(tmp_path / "fits-1.log")
    proc = subprocess.Popen(
        [*args, "-W", "S=SLOW -delay 0.15", "-o", str(store)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while _rows(store) == 0:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert time.monotonic() < deadline, "no cell was stored in time"
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = pl.read_parquet(store)
    assert 0 < before.height < total and before["run_id"].n_unique() == 1

    env["LRANK_TEST_FIT_LOG"] = str(tmp_path / "fits-2.log")
    done = subprocess.run(
        [*args, "-W", "S=SLOW -delay 0.15", "-o", str(store)], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert f"{before.height} stored, {total - before.height} to run" in done.stderr
    after = pl.read_parquet(store)
    assert after.height == total and after.select(KEY).is_unique().all()
    fits = (tmp_path / "fits-2.log").read_text().splitlines()
    assert len(fits) == total - before.height  # nothing stored was fit again
    kept = after.filter(pl.col("run_id") == before["run_id"][0])
    assert kept.equals(before)  # the stored rows, timestamps included, are untouched
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".s.parquet.")) == [".s.parquet.lock"]

    env.pop("LRANK_TEST_FIT_LOG")
    reference = tmp_path / "ref.parquet"
    done = subprocess.run(
        [*args, "-W", "S=SLOW -delay 0.15", "-o", str(reference), "--workers", "2"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    measures = [*KEY, *MEASURE_COLUMNS]
    assert after.select(measures).sort(list(KEY)).equals(pl.read_parquet(reference).select(measures).sort(list(KEY)))


def _running(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status  # a zombie has stopped; only its parent has not reaped it


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc to see the worker processes")
def test_sigterm_stops_the_workers_and_keeps_the_stored_cells(tmp_path):
    """`kill` (SIGTERM) stops a parallel run like Ctrl-C: exit status 143 (128 + SIGTERM, 130 is
    Ctrl-C's), the cells computed so far
    stored, and no worker process left running its cell."""
    plugins = tmp_path / "plugins"
    install_entry_point(str(plugins))
    env = dict(os.environ, LRANK_TEST_FIT_LOG=str(tmp_path / "fits.log"))
    env["PYTHONPATH"] = os.pathsep.join(
        [str(plugins), str(ROOT / "tests"), str(ROOT / "python"), env.get("PYTHONPATH", "")]
    )
    store = tmp_path / "s.parquet"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "lrank.cli",
            "experiment",
            "run",
            IRIS,
            "-x",
            "5",
            "--repeats",
            "2",
            "--no-report",
            "-j",
            "1",
            "--workers",
            "2",
            "-W",
            "S=SLOW -delay 0.5",
            "-o",
            str(store),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while _rows(store) == 0:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert time.monotonic() < deadline, "no cell was stored in time"
        time.sleep(0.02)
    time.sleep(0.1)  # let the workers start their next cells
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err.decode()
    assert "interrupted" in err.decode()
    workers = {int(pid) for pid in (tmp_path / "fits.log").read_text().split()}
    assert workers and proc.pid not in workers
    assert [pid for pid in workers if _running(pid)] == []
    assert 0 < _rows(store) < 10


def test_parquet_and_nominal_data_sets_run_like_cross_validate(tmp_path):
    """A data set with a nominal attribute, given as Parquet: the learners get the nominal mask
    as lrank train gives it, and the numbers are cross_validate's."""
    from lrank.data import write_dataset

    rows = [
        f"{['red', 'green', 'blue'][i % 3]},{(i * 7) % 11 / 10:.2f},"
        f"{'a>b>c' if i % 3 == 1 else 'c>b>a' if i % 2 else 'b>c>a'}"
        for i in range(60)
    ]
    source = tmp_path / "colours.xarff"
    source.write_text(
        "@relation colours\n@attribute colour {red,green,blue}\n@attribute x numeric\n"
        "@attribute L RANKING {a,b,c}\n@data\n" + "\n".join(rows) + "\n"
    )
    data = read_dataset(source)
    write_dataset(data, tmp_path / "colours.parquet")
    _, frame = run(
        config(
            "LRT", "LRRF -I 5", data=(str(tmp_path / "colours.parquet"),), store=tmp_path / "s.parquet", missing=(0.3,)
        )
    )
    for text in ("LRT", "LRRF -I 5"):
        setting = parse_learner(text)
        ev = cross_validate(
            lambda: get_learner(setting.name).build(
                list(setting.options), seed=1, categorical_features=data.nominal_features().tolist()
            ),
            data.feature_matrix(),
            data.rankings,
            labels=data.labels,
            n_folds=3,
            repeats=2,
            seed=1,
            missing=0.3,
        )
        got = frame.filter(pl.col("learner") == text).sort("repeat", "fold")["kendall_tau"].to_list()
        assert got == [f["kendall_tau"] for f in ev.folds]


def test_bench_accuracy_script_gives_the_experiment_numbers(kebi_dir, tmp_path):
    """python -m bench.accuracy (the published-number reproduction) and lrank experiment agree."""
    import json

    out = tmp_path / "acc.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.accuracy",
            "-W",
            "LRRF",
            "--options",
            "-I 5",
            "--datasets",
            "iris,wine",
            "--folds",
            "3",
            "--repeats",
            "2",
            "--missing",
            "0,0.3",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "python")])),
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    bench = {(r["dataset"], r["missing"]): r["kendall_tau"] for r in json.loads(out.read_text())["runs"]}
    _, frame = run(
        config(
            "LRRF -I 5",
            data=(str(kebi_dir / "iris.csv"), str(kebi_dir / "wine.csv")),
            store=tmp_path / "s.parquet",
            missing=(0.0, 0.3),
        )
    )
    means = frame.group_by("dataset", "missing").agg(pl.col("kendall_tau").mean())
    assert {(d, p): t for d, p, t in means.iter_rows()} == pytest.approx(bench, rel=1e-12)


def test_a_note_when_the_store_was_made_by_another_lrank_version(tmp_path):
    store_path = tmp_path / "s.parquet"
    _, frame = run(config("LRRF -I 5", store=store_path))
    ResultStore(store_path).write(frame.with_columns(pl.lit("0.0.1").alias("lrank_version")))
    plan = plan_experiment(config("LRRF -I 5", store=store_path), ResultStore(store_path))
    assert plan.other_versions == ["0.0.1"] and plan.pending == ()


def test_the_store_records_plugin_versions_and_a_resume_after_an_upgrade_says_so(tmp_path, monkeypatch):
    # The test plug-in installed as a distribution (lrank-test-plugin 0.0) on the path.
    install_entry_point(str(tmp_path / "plugins"))
    monkeypatch.syspath_prepend(str(tmp_path / "plugins"))
    lrank.registry._forget_plugins()
    monkeypatch.setattr(lrank.registry, "_plugin_sources", {})
    try:
        assert lrank.registry.plugin_versions("SLOW") == "lrank-test-plugin 0.0"
        assert lrank.registry.plugin_versions("Bagging", ["-I", "2", "-W", "SLOW"]) == "lrank-test-plugin 0.0"
        assert lrank.registry.plugin_versions("LRRF", ["-I", "5"]) == ""
        store_path = tmp_path / "s.parquet"
        _, frame = run(config("SLOW", "LRRF -I 3", store=store_path))
        versions = dict(frame.select("learner", "plugin_versions").unique().iter_rows())
        assert versions == {"SLOW": "lrank-test-plugin 0.0", "LRRF -I 3": ""}
        plan = plan_experiment(config("SLOW", "LRRF -I 3", store=store_path), ResultStore(store_path))
        assert plan.other_plugin_versions == []
        older = pl.when(pl.col("learner") == "SLOW").then(pl.lit("lrank-test-plugin -0.1"))
        ResultStore(store_path).write(
            frame.with_columns(older.otherwise(pl.col("plugin_versions")).alias("plugin_versions"))
        )
        plan = plan_experiment(config("SLOW", "LRRF -I 3", store=store_path), ResultStore(store_path))
        assert plan.other_plugin_versions == [("SLOW", "lrank-test-plugin -0.1", "lrank-test-plugin 0.0")]
        # Stores from before the column record no versions, and say nothing.
        ResultStore(store_path).write(frame.drop("plugin_versions"))
        plan = plan_experiment(config("SLOW", "LRRF -I 3", store=store_path), ResultStore(store_path))
        assert (
            plan.other_plugin_versions == [] and plan.stored.get_column("plugin_versions").null_count() == frame.height
        )
    finally:
        lrank.registry._forget_plugins()


def test_a_skipped_plugin_is_told_once_not_once_per_worker(tmp_path):
    plugins = tmp_path / "plugins"
    install_entry_point(str(plugins))
    points = next(plugins.glob("*.dist-info")) / "entry_points.txt"
    points.write_text(points.read_text() + "BROKEN = no_such_lrank_module:SPEC\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(plugins), str(ROOT / "tests"), str(ROOT / "python")]))
    args = ["experiment", "run", IRIS, "-W", "LRRF -I 2", "-x", "2", "--repeats", "2", "--workers", "2"]
    out = subprocess.run(
        [sys.executable, "-m", "lrank.cli", *args, "--no-report", "-o", str(tmp_path / "s.parquet")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr.count("learner plug-in 'BROKEN'") == 1, out.stderr


def test_a_script_without_a_main_guard_runs_an_experiment_on_workers_once(tmp_path):
    """ "spawn" re-ran the caller's script in every worker: without `if __name__ == "__main__":`
    each worker started the experiment again, failed on the store's lock and was replaced,
    forever (a teaching-notebook audit). The workers no longer run it."""
    script = tmp_path / "unguarded.py"
    script.write_text(
        "print('script body', flush=True)\n"
        "from lrank.experiment import ExperimentConfig, ResultStore, expand_datasets, parse_learner\n"
        "from lrank.experiment import plan_experiment, run_experiment\n"
        f"store = ResultStore({str(tmp_path / 'store.parquet')!r})\n"
        "config = ExperimentConfig(datasets=tuple(expand_datasets([" + repr(IRIS) + "])),\n"
        "    learners=(parse_learner('LRT'), parse_learner('IBLR')), folds=2, repeats=1,\n"
        f"    output={str(tmp_path / 'store.parquet')!r}, workers=2)\n"
        "with store.locked():\n"
        "    print(run_experiment(plan_experiment(config, store), store).computed, flush=True)\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["script body", "4"]
