"""Arrow record batches in and out (the recipe for Ray Data and Spark), and lrank predict
reading a large Parquet file a slice at a time."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from lrank import LabelRankingRandomForest
from lrank.arrow import predict_batch
from lrank.cli import main
from lrank.cli import predict as predict_module
from lrank.datasets import load_iris

pa = pytest.importorskip("pyarrow")


def test_a_record_batch_in_a_record_batch_out():
    data = load_iris()
    model = LabelRankingRandomForest(n_estimators=5, random_state=0).fit(data)
    batch = data.features.to_arrow().to_batches()[0]
    out = predict_batch(model, batch)
    assert isinstance(out, pa.RecordBatch) and out.schema.names == ["ranking", *data.labels]
    assert out.column("ranking").to_pylist() == model.predict_strings(data.features)
    positions = np.column_stack([out.column(lab) for lab in data.labels])
    np.testing.assert_array_equal(positions, model.predict(data.features))
    # A table works as well (Ray Data hands tables), and the columns are found by name.
    reordered = data.features.select(list(reversed(data.features.columns))).to_arrow()
    assert predict_batch(model, reordered).column("ranking").to_pylist() == model.predict_strings(data.features)


def test_a_model_file_on_arrow_batches(tmp_path):
    model = tmp_path / "m.lrm"
    assert CliRunner().invoke(main, ["train", "-t", "iris", "--no-cv", "-d", str(model)]).exit_code == 0
    out = predict_batch(str(model), load_iris().features.to_arrow())
    assert out.num_rows == 150 and out.schema.names[0] == "ranking"


def test_lrank_predict_reads_parquet_a_slice_at_a_time(tmp_path, monkeypatch):
    model, data = tmp_path / "m.lrm", tmp_path / "iris.parquet"
    runner = CliRunner()
    assert runner.invoke(main, ["train", "-t", "iris", "--no-cv", "-d", str(model)]).exit_code == 0
    assert runner.invoke(main, ["convert", "iris", str(data)]).exit_code == 0
    whole = runner.invoke(main, ["predict", "-l", str(model), "-T", "iris"]).output
    monkeypatch.setattr(predict_module, "PARQUET_BATCH_ROWS", 40)  # four slices: 40, 40, 40, 30
    sliced = runner.invoke(main, ["predict", "-l", str(model), "-T", str(data)])
    assert sliced.exit_code == 0 and sliced.output == whole and len(whole.splitlines()) == 150
    # A file of whole slices ends with a full one: there is no empty slice to read after it.
    monkeypatch.setattr(predict_module, "PARQUET_BATCH_ROWS", 50)
    exact = runner.invoke(main, ["predict", "-l", str(model), "-T", str(data)])
    assert exact.exit_code == 0 and exact.output == whole, exact.output[-200:]
    out = tmp_path / "out.parquet"
    assert runner.invoke(main, ["predict", "-l", str(model), "-T", str(data), "-o", str(out)]).exit_code == 0


def test_a_model_file_with_a_nominal_attribute_reads_arrow_values_by_name(tmp_path):
    # It sent the text column to the core, which refused it ("dictionary-encoded"), where a
    # model fitted on a frame of categories reads it.
    import polars as pl
    from lrank.data import Attribute, read_dataset, write_dataset

    data = load_iris()
    colour = np.array(["red", "green", "blue"])[
        (data.features.get_column("petal width (cm)").to_numpy() * 2).astype(int) % 3
    ]
    declared = ("red", "green", "blue")
    codes = pl.Series("colour", colour, dtype=pl.Enum(list(declared)))
    with_colour = data.__class__(
        relation="iris",
        attributes=[*data.attributes, Attribute("colour", "nominal", declared)],
        features=data.features.with_columns(codes),
        labels=data.labels,
        rankings=data.rankings,
        weights=data.weights,
    )
    path, model = tmp_path / "colour.xarff", tmp_path / "m.lrm"
    write_dataset(with_colour, path)
    runner = CliRunner()
    assert runner.invoke(main, ["train", "-t", str(path), "-W", "LRT", "--no-cv", "-d", str(model)]).exit_code == 0
    expected = runner.invoke(main, ["predict", "-l", str(model), "-T", str(path)]).output.splitlines()
    table = read_dataset(path).features.with_columns(pl.Series("colour", colour)).to_arrow()
    assert predict_batch(str(model), table).column("ranking").to_pylist() == expected
    # A dictionary (categorical) column, its values declared in another order, reads alike.
    categorical = pl.Series("colour", colour, dtype=pl.Enum(["blue", "red", "green"]))
    table = read_dataset(path).features.with_columns(categorical).to_arrow()
    assert predict_batch(str(model), table).column("ranking").to_pylist() == expected
