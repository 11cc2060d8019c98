"""Tests of the KEBI CSV reader (lrank.data.kebi_csv)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from lrank.data import read_dataset, read_kebi_csv
from lrank.errors import DataFormatError


def write(tmp_path, text: str, name: str = "toy.csv", newline: str = "\n"):
    p = tmp_path / name
    p.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return p


def expect_error(path, line, *fragments):
    with pytest.raises(DataFormatError) as info:
        read_kebi_csv(path)
    msg = str(info.value)
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    assert msg.startswith(where), msg
    assert info.value.line == line
    for frag in fragments:
        assert frag in msg, (frag, msg)


def test_basic(tmp_path):
    p = write(tmp_path, "A1,A2,L1,L2,L3\n0.5,-1,1,2,3\n2,3e1,3,1,2\n", newline="\r\n")
    ds = read_kebi_csv(p)
    assert ds.relation == "toy"
    assert ds.labels == ("L1", "L2", "L3")
    assert ds.feature_names() == ["A1", "A2"]
    assert ds.feature_matrix().tolist() == [[0.5, -1.0], [2.0, 30.0]]
    assert ds.rankings.dtype == np.int32
    assert ds.rankings.tolist() == [[1, 2, 3], [3, 1, 2]]
    assert ds.ranking_strings() == ["L1>L2>L3", "L2>L3>L1"]
    assert ds.weights.tolist() == [1.0, 1.0]
    assert ds.source == str(p)
    assert read_dataset(p).rankings.tolist() == ds.rankings.tolist()


def test_label_columns_are_trailing_L_number_columns(tmp_path):
    # "L9" in the middle is a feature, "Lx" is a feature; only the trailing L<n> run are labels
    p = write(tmp_path, "L9,Lx,A,L2,L1\n1,2,3,2,1\n")
    ds = read_kebi_csv(p)
    assert ds.feature_names() == ["L9", "Lx", "A"]
    assert ds.labels == ("L2", "L1")
    assert ds.rankings.tolist() == [[2, 1]]


def test_incomplete_rankings_zero_or_empty(tmp_path):
    p = write(tmp_path, "A1,L1,L2,L3\n1,0,1,2\n2,,,1\n\n3,1,0,\n")
    ds = read_kebi_csv(p)
    assert ds.rankings.tolist() == [[0, 1, 2], [0, 0, 1], [1, 0, 0]]
    assert ds.ranking_strings() == ["L2>L3", "L3", "L1"]


def test_missing_feature_values(tmp_path):
    p = write(tmp_path, "A1,A2,L1\n,1,1\n?,2,1\n")
    ds = read_kebi_csv(p)
    assert ds.features.get_column("A1").to_list() == [None, None]
    assert math.isnan(ds.feature_matrix()[0, 0])


def test_ties_are_equal_positions(tmp_path):
    p = write(tmp_path, "A1,L1,L2,L3,L4\n1,1,2,2,3\n2,2,0,1,1\n")
    ds = read_kebi_csv(p)
    assert ds.rankings.tolist() == [[1, 2, 2, 3], [2, 0, 1, 1]]
    assert ds.ranking_strings() == ["L1>L2=L3>L4", "L3=L4>L1"]


def test_error_tie_that_skips_a_position(tmp_path):
    p = write(tmp_path, "A1,L1,L2,L3\n1,1,2,3\n1,1,1,3\n")
    expect_error(p, 3, "label positions 1,1,3 are not dense: the 2 distinct positions must be 1..2")


def test_error_gap_in_positions(tmp_path):
    p = write(tmp_path, "A1,L1,L2,L3\n1,1,3,0\n")
    expect_error(p, 2, "not dense: the 2 distinct positions must be 1..2")


def test_error_position_out_of_range(tmp_path):
    p = write(tmp_path, "A1,L1,L2\n1,1,2\n1,1,5\n")
    expect_error(p, 3, "position 5 of label 'L2' is outside 0..2")
    p = write(tmp_path, "A1,L1,L2\n1,-1,1\n")
    expect_error(p, 2, "position -1 of label 'L1' is outside 0..2")
    # it said "the 2 distinct positions must be 1..2" of 1,2,4: three distinct, and 4 the fault
    p = write(tmp_path, "A1,L1,L2,L3\n1,1,2,4\n")
    expect_error(p, 2, "position 4 of label 'L3' is outside 0..3")


def test_error_empty_ranking(tmp_path):
    p = write(tmp_path, "A1,L1,L2\n1,1,2\n\n1,0,0\n")
    expect_error(p, 4, "empty ranking")


def test_error_non_integer_position(tmp_path):
    p = write(tmp_path, "A1,L1,L2\n1,1.5,2\n")
    expect_error(p, 2, "position '1.5' of label 'L1' is not an integer")
    p = write(tmp_path, "A1,L1,L2\n1,first,2\n")
    expect_error(p, 2, "position 'first' of label 'L1' is not a number")


def test_error_non_numeric_feature(tmp_path):
    p = write(tmp_path, "A1,A2,L1\n1,2,1\n1,red,1\n")
    expect_error(p, 3, "non-numeric value 'red'", "'A2'")


def test_error_wrong_number_of_values(tmp_path):
    p = write(tmp_path, "A1,L1,L2\n1,1,2\n1,2\n")
    expect_error(p, 3, "wrong number of values: expected 3, got 2")


def test_error_no_label_columns(tmp_path):
    p = write(tmp_path, "A1,A2\n1,2\n")
    expect_error(p, 1, "no label columns")


def test_error_no_rows(tmp_path):
    p = write(tmp_path, "A1,L1,L2\n\n")
    expect_error(p, 1, "no data rows")


def test_error_empty_file(tmp_path):
    p = write(tmp_path, "")
    expect_error(p, None, "empty file")


def test_error_duplicate_column(tmp_path):
    p = write(tmp_path, "A1,A1,L1\n1,2,1\n")
    expect_error(p, 1, "column 'A1' appears twice")


def test_error_file_not_found(tmp_path):
    expect_error(tmp_path / "missing.csv", None, "file not found")


def test_error_not_utf8(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_bytes(b"A1,L1\n1,1\n\xff\xfe,1\n")
    expect_error(p, 3, "not valid UTF-8")


def test_spaces_and_quotes_in_cells(tmp_path):
    p = write(tmp_path, 'A1, "A 2",L1,L2\n 1.5 ,"2",2, 1\n')
    ds = read_kebi_csv(p)
    assert ds.feature_names() == ["A1", "A 2"]
    assert ds.feature_matrix().tolist() == [[1.5, 2.0]]
    assert ds.rankings.tolist() == [[2, 1]]


def test_a_file_of_features_only_is_data_to_predict(tmp_path):
    """Without label columns: refused as training data, read as a feature table where rankings
    are optional, and ranked by lrank predict."""
    from click.testing import CliRunner
    from lrank.cli import main

    path = tmp_path / "new.csv"
    path.write_text("A1,A2\n0.5,1\n\n2.5,?\n")
    with pytest.raises(DataFormatError, match="no label columns"):
        read_kebi_csv(path)
    data = read_dataset(path, require_rankings=False)
    assert data.rankings is None and data.labels == () and data.n_rows == 2
    np.testing.assert_array_equal(data.feature_matrix(), [[0.5, 1.0], [2.5, np.nan]])
    train, model = tmp_path / "train.csv", tmp_path / "m.lrm"
    train.write_text("A1,A2,L1,L2\n" + "".join(f"{i},{i % 3},{1 + i % 2},{2 - i % 2}\n" for i in range(20)))
    fitted = CliRunner().invoke(main, ["train", "-t", str(train), "-W", "LRT", "--no-cv", "-d", str(model)])
    assert fitted.exit_code == 0
    out = CliRunner().invoke(main, ["predict", "-l", str(model), "-T", str(path)])
    assert out.exit_code == 0, out.output
    assert [set(line.split(">")) for line in out.output.split()] == [{"L1", "L2"}] * 2


def test_the_first_bad_feature_column_is_reported_at_its_first_bad_row(tmp_path):
    """Columns are checked left to right (all cells are cast at once, the order is kept)."""
    path = tmp_path / "bad.csv"
    path.write_text("A1,A2,L1,L2\n1,x,1,2\n2,3,2,1\n\nz,inf,1,2\n")
    with pytest.raises(DataFormatError, match=r"bad.csv:5: non-numeric value 'z' in feature column 'A1'"):
        read_kebi_csv(path)
    path.write_text("A1,A2,L1,L2\n1,inf,1,2\n2,?,2,1\nnan,,1,2\n")
    with pytest.raises(DataFormatError, match=r"bad.csv:2: infinite value 'inf' in feature column 'A2'"):
        read_kebi_csv(path)
    path.write_text("A1,A2,L1,L2\n1,5,1,2\n2,?,2,1\nnan,,1,2\n")
    data = read_kebi_csv(path)
    assert data.features["A1"].null_count() == 1 and data.features["A2"].null_count() == 2
    np.testing.assert_array_equal(data.feature_matrix(), [[1, 5], [2, np.nan], [np.nan, np.nan]])


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("A1;A2;L1;L2\n1;2;1;2\n", "the header is one column holding semicolons; fields must be separated by commas"),
        ("A1\tA2\tL1\tL2\n1\t2\t1\t2\n", "the header is one column holding tabs"),
        ("a,b,ranking\n1,2,x>y>z\n", "column 'ranking' looks like rankings as text (a>b>c)"),
        ("a,b,x,y\n1,2,1,2\n", "each label's position goes in a column of its own, named L1, L2, ... and placed last"),
    ],
)
def test_files_in_another_layout_say_what_the_layout_needs(tmp_path, text, hint):
    expect_error(write(tmp_path, text), 1, hint)


def test_common_missing_value_spellings_are_missing(tmp_path):
    p = write(tmp_path, "A1,A2,L1,L2,L3\nNA,1,1,2,3\nnan,N/A,NA,1,2\nNULL,None,2,,1\n")
    ds = read_kebi_csv(p)
    assert np.isnan(ds.feature_matrix()[:, 0]).all() and np.isnan(ds.feature_matrix()[1:, 1]).all()
    assert ds.rankings.tolist() == [[1, 2, 3], [0, 1, 2], [2, 0, 1]]


@pytest.mark.parametrize(
    ("names", "problem"),
    [
        (["A1", "L4"], "'L4' is named like a label column"),  # read back as a fourth label
        (["A1", "new\nline"], "line break"),  # split the header line
        (["A1", " padded "], "blanks"),  # read back as 'padded'
    ],
)
def test_the_writer_refuses_names_that_would_read_back_otherwise(tmp_path, names, problem):
    """convert wrote them without a word (an interop audit): the feature L4 came back as a
    label, changing every ranking; the line break made a file lrank could not read."""
    from lrank.data import dataset_from_arrays, write_kebi_csv

    data = dataset_from_arrays(np.eye(3, 2), np.array([[1, 2, 3]] * 3), feature_names=names)
    with pytest.raises(DataFormatError, match=problem):
        write_kebi_csv(data, tmp_path / "out.csv")
    assert not (tmp_path / "out.csv").exists()
    ok = dataset_from_arrays(np.eye(3, 2), np.array([[1, 2, 3]] * 3), feature_names=["L4", "A1"])
    write_kebi_csv(ok, tmp_path / "ok.csv")
    assert read_kebi_csv(tmp_path / "ok.csv").labels == ("L1", "L2", "L3")


def test_a_file_name_that_is_not_utf8_names_the_data_in_valid_utf8(tmp_path):
    """An old archive's Latin-1 name: the relation came from the name with a lone surrogate, so
    convert to XARFF gave a traceback and saving a model failed blaming the data (an audit)."""
    import os

    from click.testing import CliRunner
    from lrank.cli import main

    name = os.fsdecode(b"caf\xe9.csv")
    path = write(tmp_path, "A1,L1,L2\n0.1,1,2\n0.2,2,1\n0.3,1,2\n0.4,2,1\n", name=name)
    assert read_kebi_csv(path).relation == "caf\ufffd"
    runner = CliRunner()
    out = runner.invoke(main, ["convert", str(path), str(tmp_path / "out.xarff")])
    assert out.exit_code == 0, out.output
    trained = runner.invoke(main, ["train", "-t", str(path), "--no-cv", "-W", "LRT", "-d", str(tmp_path / "m.lrm")])
    assert trained.exit_code == 0, trained.output


@pytest.mark.parametrize("first", ["@relation iris", "% made by WEKA"])
def test_an_arff_file_saved_as_csv_is_told_as_such(tmp_path, first):
    """lrank info read it as a feature table: 'wrong number of values' on line 2 (an audit)."""
    path = write(tmp_path, f"{first}\n@attribute A1 numeric\n@attribute L RANKING {{a,b}}\n@data\n1,a>b\n")
    for require_rankings in (True, False):
        with pytest.raises(DataFormatError, match=r"toy\.csv:1: this is an ARFF/XARFF file"):
            read_kebi_csv(path, require_rankings=require_rankings)
    # A first column named with % or @relation... is a CSV header (the diff review).
    for name in ("%GC", "@relationship"):
        csv_path = write(tmp_path, f"{name},L1,L2\n0.5,1,2\n", name="named.csv")
        assert read_kebi_csv(csv_path).feature_names() == [name]
