"""Experiments on a real Dask cluster (a LocalCluster of two worker processes): the same numbers
as in one process, resuming, a worker killed mid-run, and clear errors."""

from __future__ import annotations

import os
import re
import signal

import polars as pl
import pytest
from click.testing import CliRunner
from lrank.cli import main
from lrank.datasets import path
from lrank.errors import LrankError
from lrank.experiment.config import ExperimentConfig, expand_datasets, parse_learner
from lrank.experiment.runner import plan_experiment, run_experiment
from lrank.experiment.store import KEY, ResultStore

pytest.importorskip("distributed")

DATA = [str(path("iris")), str(path("wine"))]
MEASURES = ["kendall_tau", "spearman_rho", "footrule", "top_label_accuracy", "exact_match"]


def cells(store: str) -> pl.DataFrame:
    return pl.read_parquet(store).select([*KEY, *MEASURES]).sort(list(KEY))


def run(*args: str) -> object:
    return CliRunner().invoke(main, ["experiment", "run", *DATA, "--no-report", *args])


def test_the_cells_on_a_cluster_are_those_of_one_process_and_runs_resume(tmp_path):
    one, cluster = str(tmp_path / "one.parquet"), str(tmp_path / "cluster.parquet")
    learners = ["-W", "LRRF -I 5", "-W", "Dummy", "-x", "3", "--repeats", "2"]
    assert run(*learners, "-o", one).exit_code == 0
    # Half the learners first, then all of them: only the missing cells are computed.
    first = run("-W", "LRRF -I 5", "-x", "3", "--repeats", "2", "-o", cluster, "--dask", "local:2")
    assert first.exit_code == 0, first.output
    second = run(*learners, "-o", cluster, "--dask", "local:2")
    assert second.exit_code == 0, second.output
    assert "12 cells computed" in second.output and "12 were already stored" in second.output
    assert "dask: 2 workers" in second.output
    assert cells(one).equals(cells(cluster))


def test_a_worker_killed_mid_run_has_its_cells_recomputed(tmp_path):
    store = ResultStore(tmp_path / "killed.parquet")
    config = ExperimentConfig(
        datasets=tuple(expand_datasets(DATA)),
        learners=(parse_learner("LRRF -I 30"), parse_learner("IBLR")),
        folds=5,
        repeats=2,
        dask="local:2",
    )
    clients: list = []
    killed: list[str] = []

    def kill_one_worker(row: dict) -> None:
        if not killed:
            (address, *_) = sorted(clients[0].scheduler_info()["workers"])
            pid = clients[0].run(os.getpid, workers=[address])[address]
            killed.append(address)
            os.kill(pid, signal.SIGKILL)  # as the out-of-memory killer would

    with store.locked():
        summary = run_experiment(
            plan_experiment(config, store), store, on_cell=kill_one_worker, on_cluster=clients.append
        )
    assert killed and summary.computed == config.n_cells
    reference = ResultStore(tmp_path / "reference.parquet")
    plain = ExperimentConfig(datasets=config.datasets, learners=config.learners, folds=5, repeats=2)
    with reference.locked():
        run_experiment(plan_experiment(plain, reference), reference)
    assert cells(str(store.path)).equals(cells(str(reference.path)))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--dask", "local:0"], "needs at least one worker"),
        (["--dask", "local:99999999999999999999"], "may start at most"),
        (["--dask", "my-scheduler"], "give a scheduler address"),
        (["--dask", "local:2", "--workers", "2"], "not both"),
        (["--dask", "127.0.0.1:1"], "cannot reach the Dask scheduler at 127.0.0.1:1"),
    ],
)
def test_bad_cluster_settings_are_one_line_errors(tmp_path, args, message):
    result = run("-W", "Dummy", "-x", "3", "--repeats", "1", "-o", str(tmp_path / "s.parquet"), *args)
    assert result.exit_code == 1 and message in result.output, result.output


def test_the_store_is_a_plain_experiment_store(tmp_path):
    out = tmp_path / "s.parquet"
    assert run("-W", "Dummy", "-x", "3", "--repeats", "1", "-o", str(out), "--dask", "local:1").exit_code == 0
    report = CliRunner().invoke(main, ["experiment", "report", str(out)])
    assert report.exit_code == 0 and "Dummy" in report.output
    assert LrankError  # the errors above are lrank errors, printed on one line


def test_a_cell_the_cluster_cancels_is_submitted_again_then_refused_by_name(monkeypatch, tmp_path):
    # A worker dying at the wrong moment can make the scheduler forget a cell (CI saw
    # "lrank-cell-37 cancelled for reason: already forgotten"): the cell is shipped again.
    import contextlib
    from concurrent.futures import CancelledError

    import distributed
    from lrank.dask import experiment as dask_experiment

    cancels = {"left": 2}

    class Future:
        def __init__(self, value):
            self.value = value

        def result(self):
            if self.value == "cell-0" and cancels["left"] > 0:
                cancels["left"] -= 1
                raise CancelledError("already forgotten")
            return self.value

    class AsCompleted:
        def __init__(self, futures):
            self.queue = list(futures)

        def add(self, future):
            self.queue.append(future)

        def __iter__(self):
            while self.queue:
                yield self.queue.pop(0)

    class Client:
        scattered = 0

        def scatter(self, data, **_):
            Client.scattered += 1
            return dict(data) if isinstance(data, dict) else data

        def submit(self, fn, task, data, **_):
            return Future(f"cell-{task}")

        def cancel(self, futures):
            pass

    monkeypatch.setattr(dask_experiment, "open_client", lambda spec: contextlib.nullcontext(Client()))
    monkeypatch.setattr(distributed, "as_completed", AsCompleted)
    monkeypatch.setattr("lrank.evaluation.workflow.load_training_data", lambda p: "data")
    source = type("Source", (), {"path": "iris.xarff"})()

    class Cell(int):  # a task as cell_results reads it: its data set's path
        dataset = type("Dataset", (), {"source": source})()

    tasks = tuple(Cell(i) for i in range(3))
    rows = list(dask_experiment.cell_results(tasks, "local:1"))
    assert sorted(rows) == ["cell-0", "cell-1", "cell-2"] and Client.scattered == 3  # once, then per retry
    cancels["left"] = 10
    with pytest.raises(LrankError, match=r"cell 1 \(iris\.xarff\) was cancelled by the Dask cluster 4 times"):
        list(dask_experiment.cell_results(tasks, "local:1"))


def test_without_dask_installed_every_entry_says_how_to_install_it(monkeypatch, tmp_path):
    # lrank.dask.fit and predict raised a bare ModuleNotFoundError, experiment run --dask printed
    # a 42-line traceback; only open_client said what to install.
    import sys

    import lrank.dask
    from lrank import LabelRankingRandomForest
    from lrank.dask import DaskError

    for module in ("dask", "distributed"):
        monkeypatch.setitem(sys.modules, module, None)  # import raises ImportError
    install = "Dask is not installed: pip install 'lrank[dask]'"
    with pytest.raises(DaskError, match=re.escape(install)):
        lrank.dask.fit(LabelRankingRandomForest(), str(tmp_path))
    with pytest.raises(DaskError, match=re.escape(install)):
        lrank.dask.predict("m.lrm", str(tmp_path), str(tmp_path / "out"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["experiment", "run", "iris", "-W", "Dummy", "--dask", "local:2"])
    assert result.exit_code == 1 and result.output.strip() == f"Error: {install}", result.output
    assert not (tmp_path / "experiment.parquet").exists()
