"""Rankings with ties from the command line: lrank train reports tau_x first, predict writes ties
with "=", refusing learners name the line and labels, and lrank experiment reports tau_x for data with ties."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
from click.testing import CliRunner
from conftest import make_tied_problem
from lrank.cli import main
from lrank.data import dataset_from_arrays, read_dataset, write_dataset
from lrank.rankings import tied_rows


def _tied_file(tmp_path, suffix=".xarff"):
    x, y = make_tied_problem(n=90)
    path = tmp_path / f"ties{suffix}"
    labels = ["L1", "L2", "L3", "L4"] if suffix == ".csv" else ["a", "b", "c", "d"]
    write_dataset(dataset_from_arrays(x, y, labels=labels), path)
    return path


def test_train_reports_tau_x_first_when_the_truth_has_ties(tmp_path):
    path = _tied_file(tmp_path)
    out = CliRunner().invoke(main, ["train", "-t", str(path), "-W", "PLRT", "-x", "3", "--format", "json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    for ev in report["evaluations"]:
        assert next(iter(ev["measures"])) == "tau_x"
        assert 0.5 < ev["measures"]["tau_x"]["mean"] <= 1.0
    text = CliRunner().invoke(main, ["train", "-t", str(path), "-W", "PLRT", "-x", "3"])
    assert text.exit_code == 0 and "Kendall's tau_x" in text.output


def test_predict_writes_ties_with_equals_signs(tmp_path):
    path, model, pred = _tied_file(tmp_path), tmp_path / "m.lrm", tmp_path / "p.txt"
    assert (
        CliRunner().invoke(main, ["train", "-t", str(path), "-W", "PLRT", "--no-cv", "-d", str(model)]).exit_code == 0
    )
    out = CliRunner().invoke(main, ["predict", "-l", str(model), "-T", str(path), "-o", str(pred)])
    assert out.exit_code == 0, out.output
    rows = pred.read_text().splitlines()
    assert len(rows) == 90 and any("=" in r for r in rows)


def _first_tie(path):
    """Where the file's first tied ranking is (FILE:LINE) and its first two tied labels."""
    data = read_dataset(path)
    first = int(np.flatnonzero(tied_rows(data.rankings))[0])
    row = list(data.rankings[first])
    a = next(j for j, r in enumerate(row) if row.count(r) > 1)
    return data.where(first), data.labels[a], data.labels[row.index(row[a], a + 1)]


def test_a_learner_without_ties_refuses_them_in_one_line(tmp_path):
    """Before any fit, naming the file's line and the tied labels."""
    path = _tied_file(tmp_path)
    out = CliRunner().invoke(main, ["train", "-t", str(path), "-W", "IBLR", "--no-cv"])
    assert out.exit_code != 0
    where, a, b = _first_tie(path)
    assert out.output.startswith(f"Error: {where}: labels {a!r} and {b!r} are tied (")
    assert "which IBLR cannot learn from (instance-based" in out.output and "-W PLRPW" in out.output
    assert where.split(":")[-1].isdigit() and "Traceback" not in out.output
    assert len(out.output.strip().splitlines()) == 1


def test_an_experiment_refuses_a_learner_without_ties_before_any_work(tmp_path):
    path, store = _tied_file(tmp_path, ".csv"), tmp_path / "s.parquet"
    out = CliRunner().invoke(main, ["experiment", "run", str(path), "-W", "PLRT", "-W", "RPC", "-o", str(store)])
    assert out.exit_code != 0 and "Traceback" not in out.output
    where, a, b = _first_tie(path)
    assert f"{where}: labels {a!r} and {b!r} are tied" in out.output and "which RPC cannot learn from" in out.output
    assert not store.exists()


def test_experiment_report_defaults_to_tau_x_for_data_with_ties(tmp_path):
    path = _tied_file(tmp_path, ".csv")
    store = tmp_path / "s.parquet"
    run = CliRunner().invoke(
        main,
        [
            "experiment",
            "run",
            str(path),
            "-W",
            "PLRT",
            "-W",
            "Dummy -A bpa",
            "-x",
            "3",
            "--repeats",
            "1",
            "-o",
            str(store),
        ],
    )
    assert run.exit_code == 0, run.output
    frame = pl.read_parquet(store)
    assert frame["ties"].all() and frame["tau_x"].is_not_null().all()
    report = CliRunner().invoke(main, ["experiment", "report", str(store)])
    assert report.exit_code == 0, report.output
    assert "tau_x" in report.output
    strict = dataset_from_arrays(np.zeros((9, 1)), np.tile([[1, 2, 3]], (9, 1)))
    write_dataset(strict, tmp_path / "strict.csv")
    store2 = tmp_path / "s2.parquet"
    args = [
        "experiment",
        "run",
        str(tmp_path / "strict.csv"),
        "-W",
        "Dummy",
        "-x",
        "3",
        "--repeats",
        "1",
        "-o",
        str(store2),
    ]
    assert CliRunner().invoke(main, args).exit_code == 0
    assert "Kendall's tau " in CliRunner().invoke(main, ["experiment", "report", str(store2)]).output
