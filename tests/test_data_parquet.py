"""Parquet data files: exact round trips (incomplete rankings, partial orders, nominal and string
attributes, weights) and clear errors for files lrank cannot read."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from lrank.cli import main
from lrank.data import Attribute, LabelRankingDataset, read_dataset, write_dataset, write_parquet
from lrank.errors import DataFormatError
from test_data_roundtrip import datasets

ROOT = Path(__file__).resolve().parents[1]
IRIS = ROOT / "datasets" / "iris.xarff"


def assert_same_dataset(back, ds):
    assert back.relation == ds.relation
    assert back.ranking_name == ds.ranking_name
    assert back.attributes == ds.attributes
    assert back.features.schema == ds.features.schema
    assert back.features.equals(ds.features, null_equal=True)
    assert back.labels == ds.labels
    np.testing.assert_array_equal(back.rankings, ds.rankings)
    assert back.weights.tobytes() == ds.weights.tobytes()
    assert back.partial_orders == ds.partial_orders
    assert back.ranking_strings() == ds.ranking_strings()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(datasets())
def test_parquet_round_trip_is_exact(ds):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rt.parquet"
        write_parquet(ds, path)
        back = read_dataset(path)
    assert_same_dataset(back, ds)


def test_layout_is_plain_polars_columns_with_metadata(tmp_path):
    weather = tmp_path / "w.xarff"
    weather.write_text(
        "@relation weather\n@attribute o {sun,rain}\n@attribute t numeric\n@attribute s string\n"
        "@attribute L RANKING {a,b,c}\n@data\n"
        "sun,1,x,a>b>c\nrain,?,y,c>a\nsun,3,z,a>b|a>c\nrain,4,w,b>a>c,{2}\n"
    )
    out = tmp_path / "w.parquet"
    result = CliRunner().invoke(main, ["convert", str(weather), str(out)])
    assert result.exit_code == 0, result.output
    frame = pl.read_parquet(out)
    assert frame.schema == pl.Schema(
        {
            "o": pl.Enum(["sun", "rain"]),
            "t": pl.Float64,
            "s": pl.String,
            "L": pl.List(pl.List(pl.String)),
            "weight": pl.Float64,
        }
    )
    assert frame["L"].to_list() == [[["a", "b", "c"]], [["c", "a"]], [["a", "b"], ["a", "c"]], [["b", "a", "c"]]]
    assert frame["t"].to_list() == [1.0, None, 3.0, 4.0] and frame["weight"].to_list() == [1.0, 1.0, 1.0, 2.0]
    meta = json.loads(pl.read_parquet_metadata(out)["lrank"])
    assert meta["relation"] == "weather" and meta["labels"] == ["a", "b", "c"]
    assert_same_dataset(read_dataset(out), read_dataset(weather))
    # and back to XARFF through the command line
    again = tmp_path / "again.xarff"
    assert CliRunner().invoke(main, ["convert", str(out), str(again)]).exit_code == 0
    assert_same_dataset(read_dataset(again), read_dataset(weather))


def test_bundled_iris_converts_and_trains_from_parquet(tmp_path):
    out = tmp_path / "iris.parquet"
    assert CliRunner().invoke(main, ["convert", str(IRIS), str(out)]).exit_code == 0
    assert_same_dataset(read_dataset(out), read_dataset(IRIS))
    result = CliRunner().invoke(main, ["info", str(out)])
    assert result.exit_code == 0 and "Instances:           150" in result.output


def test_kebi_csv_converts_to_parquet_and_back(kebi_dir, tmp_path):
    source = read_dataset(kebi_dir / "stock.csv")
    write_dataset(source, tmp_path / "stock.parquet")
    write_dataset(read_dataset(tmp_path / "stock.parquet"), tmp_path / "stock.csv")
    back = read_dataset(tmp_path / "stock.csv")
    np.testing.assert_array_equal(back.rankings, source.rankings)
    np.testing.assert_array_equal(back.feature_matrix(), source.feature_matrix())


def test_foreign_and_damaged_parquet_files_are_refused(tmp_path):
    foreign = tmp_path / "foreign.parquet"
    pl.DataFrame({"a": [1.0]}).write_parquet(foreign)
    with pytest.raises(
        DataFormatError, match=r"foreign\.parquet: Parquet file without lrank metadata and without label"
    ):
        read_dataset(foreign)
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"not parquet at all")
    with pytest.raises(DataFormatError, match=r"junk\.parquet: not a readable Parquet file"):
        read_dataset(junk)
    with pytest.raises(DataFormatError, match="file not found"):
        read_dataset(tmp_path / "missing.parquet")


def _with_rankings(tmp_path, rankings):
    ds = read_dataset(IRIS)
    path = tmp_path / "edited.parquet"
    write_parquet(ds, path)
    frame = pl.read_parquet(path)
    meta = pl.read_parquet_metadata(path)
    frame = frame.with_columns(
        pl.Series("L", rankings + frame["L"].to_list()[len(rankings) :], dtype=pl.List(pl.List(pl.String)))
    )
    frame.write_parquet(path, metadata={"lrank": meta["lrank"]})
    return path


@pytest.mark.parametrize(
    ("rankings", "message"),
    [
        ([[["setosa", "nope"]]], "row 1: undeclared label 'nope'"),
        ([[["setosa"]], [[]]], "row 2: empty ranking"),
        ([[["setosa", "setosa"]]], "row 1: label 'setosa' occurs twice"),
        ([[["setosa", "virginica"], ["virginica", "setosa"]]], "row 1: .*preference cycle"),
    ],
)
def test_bad_rankings_name_the_row(tmp_path, rankings, message):
    with pytest.raises(DataFormatError, match=message):
        read_dataset(_with_rankings(tmp_path, rankings))


def test_metadata_and_columns_must_agree(tmp_path):
    path = tmp_path / "x.parquet"
    write_parquet(read_dataset(IRIS), path)
    meta = json.loads(pl.read_parquet_metadata(path)["lrank"])
    pl.read_parquet(path).drop("L").write_parquet(path, metadata={"lrank": json.dumps(meta)})
    with pytest.raises(DataFormatError, match="do not match the metadata"):
        read_dataset(path)
    meta["version"] = 99
    pl.DataFrame({"a": [1.0]}).write_parquet(path, metadata={"lrank": json.dumps(meta)})
    with pytest.raises(DataFormatError, match="format version 99"):
        read_dataset(path)


def _rows_by_hand(rankings, labels):
    """The reference: each row's buckets in position order, labels in index order in a bucket."""
    out = []
    for row in rankings:
        positions = sorted({int(p) for p in row if p > 0})
        out.append([[labels[j] for j in range(len(row)) if row[j] == p] for p in positions])
    return out


@pytest.mark.parametrize("seed", range(6))
def test_the_ranking_column_is_built_as_row_by_row_code_builds_it(seed):
    # The column is built by Polars (a million rows in a second); Python's lists are the reference.
    from lrank.data.parquet import _buckets_of, _chains_of

    rng = np.random.default_rng(seed)
    n, m = 40, 2 + seed % 4
    ties = seed % 2 == 1
    rows = []
    for _ in range(n):
        keep = rng.random(m) < 0.8
        keep[rng.integers(m)] = True
        raw = rng.integers(1, m + 1, size=m) if ties else rng.permutation(m) + 1
        values = np.where(keep, raw, 0)
        dense = np.zeros(m, dtype=np.int32)
        for k, p in enumerate(sorted(set(values[values > 0]))):
            dense[values == p] = k + 1
        rows.append(dense)
    rankings = np.array(rows, dtype=np.int32)
    labels = tuple(f"l{j}" for j in range(m))
    data = LabelRankingDataset(
        relation="r",
        attributes=[Attribute("x", "numeric")],
        features=pl.DataFrame({"x": np.arange(n, dtype=np.float64)}),
        labels=labels,
        rankings=rankings,
        weights=np.ones(n),
    )
    expected = _rows_by_hand(rankings, labels)
    assert _buckets_of(data).to_list() == [[buckets] for buckets in expected]
    if not ties:
        assert _chains_of(data).to_list() == [[[b[0] for b in buckets]] for buckets in expected]
