"""Parquet files written by other tools (pandas, pyarrow, Polars) without lrank's metadata: read by
the KEBI column layout (trailing L<number> columns are label positions), or refused naming the
file, row and column."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from lrank.cli import main
from lrank.data import read_dataset, read_kebi_csv
from lrank.errors import DataFormatError

ROOT = Path(__file__).resolve().parents[1]


def _frame() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "size": [1.5, None, 3.0, float("nan")],
            "count": [1, 2, 3, 4],
            "flag": [True, False, True, None],
            "colour": ["red", "blue", None, "red"],
            "L1": [1, 2, 0, 1],
            "L2": [2, 1, 1, None],
            "L3": [2, 3, 2, 2],
        }
    )


def test_a_polars_file_reads_by_the_kebi_layout(tmp_path):
    path = tmp_path / "mine.parquet"
    _frame().write_parquet(path)
    ds = read_dataset(path)
    assert ds.relation == "mine" and ds.labels == ("L1", "L2", "L3")
    # 0 and null both mean "label missing"; equal positions tie
    np.testing.assert_array_equal(ds.rankings, [[1, 2, 2], [2, 1, 3], [0, 1, 2], [1, 0, 2]])
    kinds = [(a.name, a.kind, a.values) for a in ds.attributes]
    assert kinds == [
        ("size", "numeric", None),
        ("count", "numeric", None),
        ("flag", "numeric", None),
        ("colour", "nominal", ("blue", "red")),
    ]
    x = ds.feature_matrix()
    np.testing.assert_array_equal(np.isnan(x[:, 0]), [False, True, False, True])  # NaN and null missing
    np.testing.assert_array_equal(x[:, 2][:3], [1.0, 0.0, 1.0])
    assert np.isnan(x[3, 2])
    assert ds.features.get_column("colour").to_list() == ["red", "blue", None, "red"]


def test_pandas_and_pyarrow_files_read_like_the_csv_they_came_from(tmp_path):
    pd = pytest.importorskip("pandas")
    csv = tmp_path / "small.csv"
    csv.write_text("A1,A2,L1,L2,L3\n0.5,1,1,2,3\n0.25,2,3,1,2\n0.75,3,2,2,1\n")
    frame = pd.read_csv(csv)
    frame.index = [f"row{i}" for i in range(len(frame))]  # not a range: pandas writes it as a column
    frame.to_parquet(tmp_path / "pandas.parquet")
    assert "__index_level_0__" in pl.read_parquet(tmp_path / "pandas.parquet").columns
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp_path / "arrow.parquet")
    # A named index is written as the last column, after the labels: it hid them (an audit).
    frame.rename_axis("sample").to_parquet(tmp_path / "named.parquet")
    assert pl.read_parquet(tmp_path / "named.parquet").columns[-1] == "sample"
    expected = read_kebi_csv(csv)
    for name in ("pandas.parquet", "arrow.parquet", "named.parquet"):
        ds = read_dataset(tmp_path / name)
        assert ds.feature_names() == expected.feature_names()
        np.testing.assert_array_equal(ds.rankings, expected.rankings)
        np.testing.assert_array_equal(ds.feature_matrix(), expected.feature_matrix())


def test_categories_keep_their_order_and_the_cli_trains_on_the_file(tmp_path):
    rng = np.random.default_rng(0)
    n = 60
    size = rng.random(n)
    first = size > 0.5
    frame = pl.DataFrame(
        {
            "size": size,
            "grade": pl.Series(["low", "high"] * (n // 2), dtype=pl.Enum(["low", "high"])),
            "L1": np.where(first, 1, 2),
            "L2": np.where(first, 2, 1),
        }
    )
    path = tmp_path / "graded.parquet"
    frame.write_parquet(path)
    ds = read_dataset(path)
    assert ds.attributes[1].values == ("low", "high")
    result = CliRunner().invoke(main, ["train", "-t", str(path), "-W", "LRT", "-x", "3", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert '"kendall_tau"' in result.output


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        ({"a": [1.0, 2.0]}, "without lrank metadata and without label columns: name the label columns L1, L2"),
        (
            {"a": [1.0, 2.0], "L1": [1, 2], "L2": [2, 2]},
            "row 2: label positions 2,2 are not dense: the 1 distinct positions must be 1..1",
        ),
        ({"a": [1.0, 2.0], "L1": [1, 0], "L2": [2, None]}, "row 2: empty ranking"),
        ({"a": [1.0, 2.0], "L1": [1.5, 1.0], "L2": [2, 2]}, "row 1: position 1.5 of label 'L1' is not a whole number"),
        ({"a": [1.0, 2.0], "L1": [1, -1], "L2": [2, 1]}, "row 2: position -1 of label 'L1'"),
        ({"a": [1.0, 2.0], "L1": ["1", "2"], "L2": [2, 1]}, "label column 'L1' has type String"),
        ({"a": [1.0, float("inf")], "L1": [1, 2], "L2": [2, 1]}, "row 2: infinite value in column 'a'"),
        ({"when": [[1], [2]], "L1": [1, 2], "L2": [2, 1]}, "column 'when' has type List"),
    ],
)
def test_malformed_files_are_refused_naming_row_and_column(tmp_path, columns, message):
    path = tmp_path / "bad.parquet"
    pl.DataFrame(columns).write_parquet(path)
    with pytest.raises(DataFormatError) as info:
        read_dataset(path)
    assert str(info.value).startswith(f"{path}: ") and message in str(info.value), str(info.value)
    result = CliRunner().invoke(main, ["train", "-t", str(path), "-W", "Dummy"])
    assert result.exit_code == 1 and message in result.output and "Traceback" not in result.output


def test_data_to_predict_needs_no_label_columns(tmp_path):
    path = tmp_path / "new.parquet"
    pl.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]}).write_parquet(path)
    ds = read_dataset(path, require_rankings=False)
    assert ds.rankings is None and ds.feature_names() == ["a", "b"]


def test_dates_and_times_are_milliseconds_since_1970_as_arff_dates(tmp_path):
    from datetime import date, datetime, timedelta, timezone

    frame = pl.DataFrame(
        {
            "day": [date(1970, 1, 2), None],
            "naive": [datetime(1970, 1, 1, 0, 0, 1, 500_000), datetime(1969, 12, 31, 23)],
            "aware": pl.Series([datetime(1970, 1, 1, 1), datetime(2020, 1, 15, 10, 30)]).dt.replace_time_zone(
                "Europe/Paris"
            ),
            "L1": [1, 2],
            "L2": [2, 1],
        }
    )
    path = tmp_path / "dates.parquet"
    frame.write_parquet(path)
    ds = read_dataset(path)
    assert [a.kind for a in ds.attributes] == ["numeric"] * 3
    noon = datetime(2020, 1, 15, 9, 30, tzinfo=timezone.utc)  # 10:30 in Paris
    millis = (noon - datetime(1970, 1, 1, tzinfo=timezone.utc)) // timedelta(milliseconds=1)
    np.testing.assert_array_equal(ds.feature_matrix(), [[86_400_000, 1500, 0], [np.nan, -3_600_000, millis]])
