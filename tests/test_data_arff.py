"""Tests of the ARFF / XARFF reader and writer (lrank.data.arff)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from lrank.data import (
    Attribute,
    LabelRankingDataset,
    dataset_from_arrays,
    read_arff,
    read_dataset,
    write_xarff,
)
from lrank.errors import DataFormatError, InvalidInputError

HEADER = """@relation toy
@attribute x numeric
@attribute y numeric
@attribute L RANKING {a,b,c}
@data
"""


def write(tmp_path, text: str, name: str = "t.xarff", newline: str = "\n"):
    p = tmp_path / name
    p.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return p


def expect_error(path, line, *fragments, require_rankings=True):
    with pytest.raises(DataFormatError) as info:
        read_arff(path, require_rankings=require_rankings)
    err = info.value
    msg = str(err)
    where = f"{path}:{line}: " if line is not None else f"{path}: "
    assert msg.startswith(where), msg
    assert err.path == str(path)
    assert err.line == line
    for frag in fragments:
        assert frag in msg, (frag, msg)
    return err


# ---------------------------------------------------------------------------
# basic reading


def test_basic_file(tmp_path):
    p = write(tmp_path, HEADER + "1.5,2,a>b>c\n-3e2,0.25,c>b>a\n")
    ds = read_arff(p)
    assert ds.relation == "toy"
    assert ds.attributes == [Attribute("x", "numeric"), Attribute("y", "numeric")]
    assert ds.labels == ("a", "b", "c")
    assert ds.ranking_name == "L"
    assert ds.n_rows == 2 and ds.n_features == 2 and ds.n_labels == 3
    assert ds.rankings.dtype == np.int32
    assert ds.rankings.tolist() == [[1, 2, 3], [3, 2, 1]]
    assert ds.weights.tolist() == [1.0, 1.0]
    assert ds.partial_orders == {}
    assert ds.source == str(p)
    X = ds.feature_matrix()
    assert X.dtype == np.float64 and X.flags.c_contiguous
    assert X.tolist() == [[1.5, 2.0], [-300.0, 0.25]]
    assert ds.feature_names() == ["x", "y"]
    assert ds.features.schema == pl.Schema({"x": pl.Float64, "y": pl.Float64})
    assert ds.ranking_strings() == ["a>b>c", "c>b>a"]


def test_tabs_and_spaces_as_separators(tmp_path):
    p = write(tmp_path, HEADER + "1.0,\t2.0,\tb>a>c\n3.0 , 4.0 ,c>a>b\n5.0\t6.0\ta>c>b\n7 8 a>b>c\n")
    ds = read_arff(p)
    assert ds.feature_matrix().tolist() == [[1, 2], [3, 4], [5, 6], [7, 8]]
    assert ds.ranking_strings() == ["b>a>c", "c>a>b", "a>c>b", "a>b>c"]


def test_crlf_line_ends(tmp_path):
    p = write(tmp_path, HEADER + "1,2,a>b>c\n3,4,b>c>a\n", newline="\r\n")
    ds = read_arff(p)
    assert ds.rankings.tolist() == [[1, 2, 3], [3, 1, 2]]
    assert ds.feature_matrix().tolist() == [[1, 2], [3, 4]]


def test_comments_and_blank_lines_anywhere(tmp_path):
    text = """% leading comment

@relation toy
% between
@attribute x numeric

   % indented comment
@attribute y numeric % trailing comment
@attribute L RANKING {a,b,c}
% before data
@data
% in data

1,2,a>b>c % trailing comment on a row

3,4,c>b>a
%
"""
    ds = read_arff(write(tmp_path, text))
    assert ds.n_rows == 2
    assert ds.rankings.tolist() == [[1, 2, 3], [3, 2, 1]]


def test_keywords_case_insensitive(tmp_path):
    text = """@RELATION toy
@Attribute x NUMERIC
@ATTRIBUTE y Real
@attribute z INTEGER
@attribute s String
@attribute L ranking {a,b}
@DATA
1,2,3,hello,a>b
"""
    ds = read_arff(write(tmp_path, text))
    assert [a.kind for a in ds.attributes] == ["numeric", "numeric", "numeric", "string"]
    assert ds.rankings.tolist() == [[1, 2]]


def test_quoted_names_and_values(tmp_path):
    text = """@relation 'my relation'
@attribute "first attr" numeric
@attribute 'colour name' {'dark red', "light, blue", plain}
@attribute s string
@attribute 'the labels' RANKING {'label one', "l,2", l3}
@data
1,'dark red','hello world',"l,2">'label one'>l3
2,"light, blue",'it\\'s',l3
3,plain,'?','label one'
"""
    ds = read_arff(write(tmp_path, text))
    assert ds.relation == "my relation"
    assert [a.name for a in ds.attributes] == ["first attr", "colour name", "s"]
    assert ds.attributes[1].values == ("dark red", "light, blue", "plain")
    assert ds.ranking_name == "the labels"
    assert ds.labels == ("label one", "l,2", "l3")
    assert ds.features.get_column("colour name").to_list() == ["dark red", "light, blue", "plain"]
    # a quoted '?' is the text ?, not a missing value
    assert ds.features.get_column("s").to_list() == ["hello world", "it's", "?"]
    assert ds.rankings.tolist() == [[2, 1, 3], [0, 0, 1], [1, 0, 0]]


def test_missing_values(tmp_path):
    text = """@relation toy
@attribute x numeric
@attribute c {u,v}
@attribute s string
@attribute L RANKING {a,b}
@data
?,u,?,a>b
2.5,?,x,b>a
"""
    ds = read_arff(write(tmp_path, text))
    assert ds.features.get_column("x").to_list() == [None, 2.5]
    assert ds.features.get_column("c").to_list() == ["u", None]
    assert ds.features.get_column("s").to_list() == [None, "x"]
    X = ds.feature_matrix()
    assert math.isnan(X[0, 0]) and X[0, 1] == 0.0
    assert X[1, 0] == 2.5 and math.isnan(X[1, 1])


def test_nan_value_is_missing_and_an_infinite_one_is_refused_by_line(tmp_path):
    ds = read_arff(write(tmp_path, HEADER + "NaN,1,a>b>c\n"))
    assert ds.features.get_column("x").to_list() == [None]
    # No learner takes an infinite value: refused here, where the file and line are known.
    for text in ("inf", "-Infinity", "1e999"):
        with pytest.raises(DataFormatError, match=rf"t\.xarff:\d+: infinite value '{text}' for numeric attribute 'y'"):
            read_arff(write(tmp_path, HEADER + f"NaN,{text},a>b>c\n"))


def test_nominal_codes_and_enum_dtype(tmp_path):
    text = """@relation toy
@attribute c {zeta,alpha,mid}
@attribute x numeric
@attribute L RANKING {a,b}
@data
mid,1,a>b
zeta,2,b>a
alpha,3,a
"""
    ds = read_arff(write(tmp_path, text))
    col = ds.features.get_column("c")
    assert col.dtype == pl.Enum(["zeta", "alpha", "mid"])
    assert col.to_list() == ["mid", "zeta", "alpha"]
    X = ds.feature_matrix()
    assert X[:, 0].tolist() == [2.0, 0.0, 1.0]  # index in the declared order, not sorted
    assert X[:, 1].tolist() == [1.0, 2.0, 3.0]


def test_string_attribute_excluded_from_feature_matrix(tmp_path):
    text = """@relation toy
@attribute x numeric
@attribute s string
@attribute y numeric
@attribute L RANKING {a,b}
@data
1,foo,2,a>b
3,bar,4,b>a
"""
    ds = read_arff(write(tmp_path, text))
    assert ds.n_features == 3
    assert ds.feature_names() == ["x", "y"]
    assert ds.feature_matrix().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert ds.features.get_column("s").dtype == pl.Utf8


def test_weights(tmp_path):
    ds = read_arff(write(tmp_path, HEADER + "1,2,a>b>c,{0.5}\n3,4,b>a>c\n5,6,c>b>a, {2}\n7,8,a>c>b,\t{ 0 }\n"))
    assert ds.weights.dtype == np.float64
    assert ds.weights.tolist() == [0.5, 1.0, 2.0, 0.0]
    assert ds.rankings.tolist()[0] == [1, 2, 3]


def test_incomplete_rankings(tmp_path):
    ds = read_arff(write(tmp_path, HEADER + "1,2,c>a\n3,4,b\n5,6,a>b>c\n"))
    assert ds.rankings.tolist() == [[2, 0, 1], [0, 1, 0], [1, 2, 3]]
    assert ds.partial_orders == {}
    assert ds.ranking_strings() == ["c>a", "b", "a>b>c"]


def test_partial_orders(tmp_path):
    text = """@relation toy
@attribute x numeric
@attribute L RANKING {a,b,c,d,e}
@data
1,a>b|c>d>e
2,a>b|c>d
3,a>b|b>c
4,a|b
5,d>e
"""
    ds = read_arff(write(tmp_path, text))
    assert ds.partial_orders == {
        0: ((0, 1), (2, 3, 4)),
        1: ((0, 1), (2, 3)),
        2: ((0, 1), (1, 2)),
        3: ((0,), (1,)),
    }
    # rank-matrix row = first longest chain
    assert ds.rankings.tolist() == [
        [0, 0, 1, 2, 3],
        [1, 2, 0, 0, 0],
        [1, 2, 0, 0, 0],
        [1, 0, 0, 0, 0],
        [0, 0, 0, 1, 2],
    ]
    assert ds.ranking_strings() == ["a>b|c>d>e", "a>b|c>d", "a>b|b>c", "a|b", "d>e"]


def test_ranking_attribute_not_last(tmp_path):
    text = """@relation toy
@attribute x numeric
@attribute L RANKING {a,b}
@attribute y numeric
@data
1,b>a,2
"""
    ds = read_arff(write(tmp_path, text))
    assert [a.name for a in ds.attributes] == ["x", "y"]
    assert ds.feature_matrix().tolist() == [[1.0, 2.0]]
    assert ds.rankings.tolist() == [[2, 1]]


def test_require_rankings_false_plain_table(tmp_path):
    text = "@relation plain\n@attribute x numeric\n@attribute c {p,q}\n@data\n1,p\n2,q\n"
    p = write(tmp_path, text, name="plain.arff")
    ds = read_arff(p, require_rankings=False)
    assert ds.rankings is None
    assert ds.labels == ()
    assert ds.feature_matrix().tolist() == [[1.0, 0.0], [2.0, 1.0]]
    with pytest.raises(InvalidInputError):
        ds.ranking_strings()
    ds2 = read_dataset(p, require_rankings=False)
    assert ds2.n_rows == 2


def test_require_rankings_false_still_parses_rankings(tmp_path):
    ds = read_arff(write(tmp_path, HEADER + "1,2,b>a\n"), require_rankings=False)
    assert ds.rankings.tolist() == [[2, 1, 0]]


def test_utf8_bom_and_unicode(tmp_path):
    p = tmp_path / "u.xarff"
    p.write_bytes("\ufeff@relation ünï\n@attribute größe numeric\n@attribute L RANKING {α,β}\n@data\n1,β>α\n".encode())
    ds = read_arff(p)
    assert ds.relation == "ünï"
    assert ds.labels == ("α", "β")
    assert ds.rankings.tolist() == [[2, 1]]


def test_read_dataset_dispatch(tmp_path):
    p = write(tmp_path, HEADER + "1,2,a>b>c\n", name="x.arff")
    assert read_dataset(p).n_rows == 1
    p2 = write(tmp_path, HEADER + "1,2,a>b>c\n", name="x.XARFF")
    assert read_dataset(p2).n_rows == 1
    p3 = write(tmp_path, HEADER + "1,2,a>b>c\n", name="x.txt")
    with pytest.raises(DataFormatError, match=r"x\.txt: unknown data file suffix '\.txt'"):
        read_dataset(p3)


# ---------------------------------------------------------------------------
# errors: one per bad-input case, checking file, line and problem


def test_error_undeclared_label(tmp_path):
    p = write(tmp_path, HEADER + "1,2,a>b>c\n3,4,a>z>c\n")
    expect_error(p, 7, "undeclared label 'z'")


def test_error_label_twice(tmp_path):
    p = write(tmp_path, HEADER + "1,2,a>b>a\n")
    expect_error(p, 6, "label 'a' occurs twice")


def test_error_label_twice_within_one_chain_of_partial_order(tmp_path):
    p = write(tmp_path, HEADER + "1,2,a>b\n1,2,a>b|c>c\n")
    expect_error(p, 7, "label 'c' occurs twice")


def test_error_contradictory_chains(tmp_path):
    p = write(tmp_path, HEADER + "1,2,a>b|b>a\n")
    expect_error(p, 6, "contradicts itself", "cycle")


def test_error_longer_cycle_across_chains(tmp_path):
    p = write(tmp_path, HEADER + "1,2,c\n1,2,a>b|b>c|c>a\n")
    expect_error(p, 7, "contradicts itself")


def test_error_empty_ranking(tmp_path):
    p = write(tmp_path, HEADER + "1,2,a>b>c\n1,2,''\n")
    expect_error(p, 7, "empty ranking")
    p = write(tmp_path, HEADER + "1,2,a>b>c\n1,2,\n")
    expect_error(p, 7, "empty ranking")


def test_empty_string_label_when_declared(tmp_path):
    p = write(tmp_path, "@relation r\n@attribute L RANKING {'',a}\n@data\n''>a\n''\n")
    assert read_arff(p).rankings.tolist() == [[1, 2], [1, 0]]


def test_error_missing_ranking(tmp_path):
    p = write(tmp_path, HEADER + "1,2,?\n")
    expect_error(p, 6, "missing ranking")


def test_error_empty_label_in_ranking(tmp_path):
    p = write(tmp_path, HEADER + "1,2,a>>b\n")
    expect_error(p, 6, "no label between '>' and '>' in ranking")
    p = write(tmp_path, HEADER + "1,2,a>b|\n")
    expect_error(p, 6, "ends with '|'")


def test_error_wrong_number_of_values(tmp_path):
    p = write(tmp_path, HEADER + "1,2,a>b>c\n\n% c\n1,a>b>c\n")
    expect_error(p, 9, "wrong number of values", "expected 3, got 2")
    p = write(tmp_path, HEADER + "1,2,3,a>b>c\n")
    expect_error(p, 6, "wrong number of values", "expected 3, got 4")
    p = write(tmp_path, HEADER + "1,'x',3,a>b>c\n")  # slow (quoted) path too
    expect_error(p, 6, "wrong number of values", "expected 3, got 4")


def test_error_empty_value_between_commas(tmp_path):
    p = write(tmp_path, HEADER + "1,,2,a>b>c\n")
    expect_error(p, 6, "empty value")


def test_error_unknown_attribute_type(tmp_path):
    p = write(
        tmp_path, "@relation r\n@attribute x numeric\n@attribute y floaty\n@attribute L RANKING {a}\n@data\n1,2,a\n"
    )
    expect_error(p, 3, "unknown attribute type 'floaty'")


def test_error_date_value_against_its_format(tmp_path):
    p = write(tmp_path, "@relation r\n@attribute d date\n@attribute L RANKING {a}\n@data\n1,a\n")
    expect_error(p, 5, "attribute 'd'", "date '1' does not match", "yyyy-MM-dd'T'HH:mm:ss")


def test_error_non_numeric_value(tmp_path):
    p = write(tmp_path, HEADER + "1,2,a>b>c\n1,2,b>a\n1,abc,c>a\n")
    expect_error(p, 8, "non-numeric value 'abc'", "'y'")


def test_error_non_numeric_value_with_underscore(tmp_path):
    p = write(tmp_path, HEADER + "1_000,2,a>b>c\n")
    expect_error(p, 6, "non-numeric value '1_000'")


def test_error_undeclared_nominal_value(tmp_path):
    text = "@relation r\n@attribute c {u,v}\n@attribute L RANKING {a,b}\n@data\nu,a>b\nw,b>a\n"
    p = write(tmp_path, text)
    expect_error(p, 6, "value 'w' is not among the declared values", "'c'")


def test_error_no_ranking_attribute(tmp_path):
    p = write(tmp_path, "@relation r\n@attribute x numeric\n\n@data\n1\n")
    expect_error(p, 4, "no RANKING attribute")


def test_error_two_ranking_attributes(tmp_path):
    text = "@relation r\n@attribute L RANKING {a,b}\n@attribute M RANKING {c,d}\n@data\na>b,c>d\n"
    p = write(tmp_path, text)
    expect_error(p, 3, "more than one RANKING attribute")


def test_error_empty_data(tmp_path):
    p = write(tmp_path, HEADER + "% only a comment\n\n")
    expect_error(p, 5, "no data rows")


def test_error_missing_data_section(tmp_path):
    p = write(tmp_path, "@relation r\n@attribute x numeric\n@attribute L RANKING {a}\n")
    expect_error(p, 3, "missing @data")


def test_error_file_not_found(tmp_path):
    p = tmp_path / "nope.xarff"
    expect_error(p, None, "file not found")
    with pytest.raises(DataFormatError, match="file not found"):
        read_dataset(p)


def test_error_not_utf8(tmp_path):
    p = tmp_path / "latin1.xarff"
    p.write_bytes(HEADER.encode() + b"1,2,a>b>c\n1,2,a>b>c % caf\xe9\n")
    expect_error(p, 7, "not valid UTF-8")


def test_error_sparse_rows(tmp_path):
    p = write(tmp_path, HEADER + "{0 1.0, 2 a>b>c}\n")
    expect_error(p, 6, "sparse rows", "not supported")


def test_error_bad_weight(tmp_path):
    p = write(tmp_path, HEADER + "1,2,a>b>c,{heavy}\n")
    expect_error(p, 6, "instance weight {heavy}")
    p = write(tmp_path, HEADER + "1,2,a>b>c,{-1}\n")
    expect_error(p, 6, "instance weight {-1}")


def test_error_weight_not_last(tmp_path):
    p = write(tmp_path, HEADER + "1,2,{2},a>b>c\n")
    expect_error(p, 6, "must be the last value")


def test_error_unterminated_quote(tmp_path):
    p = write(tmp_path, HEADER + "1,'2,a>b>c\n")
    expect_error(p, 6, "unterminated quoted string")


def test_error_header_problems(tmp_path):
    p = write(tmp_path, "@attribute x numeric\n@relation r\n@data\n")
    expect_error(p, 1, "@attribute before @relation")
    p = write(
        tmp_path, "@relation r\n@attribute x numeric\n@attribute x numeric\n@attribute L RANKING {a}\n@data\n1,2,a\n"
    )
    expect_error(p, 3, "attribute 'x' declared twice")
    p = write(tmp_path, "@relation r\n@attribute L RANKING {a,b,a}\n@data\na\n")
    expect_error(p, 2, "declares label 'a' twice")
    p = write(tmp_path, "@relation r\n@attribute c {u,v\n@attribute L RANKING {a}\n@data\nu,a\n")
    expect_error(p, 2, "missing closing '}'")
    p = write(tmp_path, "@relation r\n@attribute L RANKING\n@data\na\n")
    expect_error(p, 2, "needs a label list")
    p = write(tmp_path, "@relation r\n@frobnicate\n@data\n")
    expect_error(p, 2, "unknown header keyword '@frobnicate'")
    p = write(tmp_path, "@relation r\nhello\n")
    expect_error(p, 2, "expected a header line")


def test_error_header_line_in_data(tmp_path):
    p = write(tmp_path, HEADER + "1,2,a>b>c\n@attribute z numeric\n")
    expect_error(p, 7, "after @data")


def test_no_hang_on_binary_garbage(tmp_path):
    p = tmp_path / "garbage.xarff"
    p.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(DataFormatError):
        read_arff(p)


# ---------------------------------------------------------------------------
# writer


def _assert_same(a: LabelRankingDataset, b: LabelRankingDataset) -> None:
    assert a.relation == b.relation
    assert a.attributes == b.attributes
    assert a.features.columns == b.features.columns
    assert a.features.schema == b.features.schema
    assert a.features.equals(b.features, null_equal=True)
    assert a.labels == b.labels
    assert a.ranking_name == b.ranking_name
    if a.rankings is None:
        assert b.rankings is None
    else:
        np.testing.assert_array_equal(a.rankings, b.rankings)
    np.testing.assert_array_equal(a.weights, b.weights)
    assert a.partial_orders == b.partial_orders


def test_write_read_round_trip_with_everything(tmp_path):
    text = """@relation 'odd, relation %'
@attribute 'x y' numeric
@attribute c {'a b',"c,d",'e>f','g|h','%',?x,'{}'}
@attribute s string
@attribute 'rank ing' RANKING {'l 1','l>2','l|3',"l'4"}
@data
0.1,'a b','multi word','l|3',{0.25}
?,?,?,'l 1'>'l>2'>'l|3'>"l'4"
1e-300,'{}','tab\\there',"l'4">'l 1'|'l>2'>'l|3'
-1e308,'%','back\\\\slash','l>2'
"""
    p = write(tmp_path, text)
    ds = read_arff(p)
    assert ds.attributes[1].values == ("a b", "c,d", "e>f", "g|h", "%", "?x", "{}")
    assert ds.features.get_column("s").to_list() == ["multi word", None, "tab\there", "back\\slash"]
    assert ds.partial_orders == {2: ((3, 0), (1, 2))}
    out = tmp_path / "out.xarff"
    write_xarff(ds, out)
    back = read_arff(out)
    _assert_same(ds, back)
    # writing again gives the same bytes
    out2 = tmp_path / "out2.xarff"
    write_xarff(back, out2)
    assert out.read_bytes() == out2.read_bytes()


def test_writer_weight_only_when_not_one(tmp_path):
    ds = dataset_from_arrays(np.array([[1.0], [2.0]]), np.array([[1, 2], [2, 1]]), weights=np.array([1.0, 0.5]))
    out = tmp_path / "w.xarff"
    write_xarff(ds, out)
    rows = out.read_text().splitlines()[-2:]
    assert rows == ["1.0,L1>L2", "2.0,L2>L1,{0.5}"]
    assert read_arff(out).weights.tolist() == [1.0, 0.5]


def test_writer_floats_exact(tmp_path):
    vals = np.array([[0.1 + 0.2], [1 / 3], [5e-324], [1.7976931348623157e308], [-0.0], [123456789.123456789]])
    ds = dataset_from_arrays(vals, np.ones((len(vals), 1), dtype=int))
    out = tmp_path / "f.xarff"
    write_xarff(ds, out)
    back = read_arff(out).feature_matrix()
    assert back[:, 0].tobytes() == vals[:, 0].tobytes()


def test_writer_plain_table(tmp_path):
    ds = dataset_from_arrays(np.array([[1.0, np.nan]]), None)
    out = tmp_path / "plain.arff"
    write_xarff(ds, out)
    assert "RANKING" not in out.read_text()
    back = read_arff(out, require_rankings=False)
    assert back.rankings is None
    assert back.features.get_column("A2").to_list() == [None]


def test_writer_rejects_invalid_rank_matrix(tmp_path):
    ds = dataset_from_arrays(np.zeros((1, 1)), np.array([[1, 2]]))
    ds.rankings[0] = [2, 2]  # not dense: the tied labels would be at position 1
    with pytest.raises(InvalidInputError):
        write_xarff(ds, tmp_path / "bad.xarff")


# ---------------------------------------------------------------------------
# dataset_from_arrays


def test_dataset_from_arrays_defaults():
    X = np.array([[1.0, np.nan], [3.0, 4.0]])
    Y = np.array([[2, 1, 0], [1, 2, 3]])
    ds = dataset_from_arrays(X, Y)
    assert ds.feature_names() == ["A1", "A2"]
    assert ds.labels == ("L1", "L2", "L3")
    assert ds.relation == "data"
    assert ds.features.get_column("A2").to_list() == [None, 4.0]
    assert ds.ranking_strings() == ["L2>L1", "L1>L2>L3"]
    assert ds.rankings.dtype == np.int32


@pytest.mark.parametrize(
    "Y",
    [
        [[1, 1, 3]],  # a tie that skips position 2
        [[2, 2, 0]],  # tied labels not at position 1
        [[1, 3, 0]],  # gap
        [[0, 0, 0]],  # empty ranking
        [[1, 2, 4]],  # out of range
        [[-1, 1, 2]],  # negative
    ],
)
def test_dataset_from_arrays_rejects_bad_rankings(Y):
    with pytest.raises(InvalidInputError):
        dataset_from_arrays(np.zeros((1, 1)), np.array(Y))


def test_dataset_from_arrays_shape_errors():
    with pytest.raises(InvalidInputError):
        dataset_from_arrays(np.zeros((2, 1)), np.array([[1, 2]]))
    with pytest.raises(InvalidInputError):
        dataset_from_arrays(np.zeros((1, 2)), np.array([[1, 2]]), feature_names=["a"])
    with pytest.raises(InvalidInputError):
        dataset_from_arrays(np.zeros((1, 1)), np.array([[1, 2]]), labels=["a"])


# ---------------------------------------------------------------------------
# robustness: arbitrary input gives a dataset or a DataFormatError, nothing else

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_FRAGMENTS = [
    "@relation r",
    "@RELATION 'q r'",
    "@attribute x numeric",
    "@attribute c {u,v}",
    "@attribute s string",
    "@attribute L RANKING {a,b,c}",
    "@attribute M ranking {a}",
    "@attribute",
    "@attribute y",
    "@data",
    "% c",
    "",
    "1,2,a>b>c",
    "1,u,a>b",
    "?,?,c>a",
    "1,'x y',b|a",
    "{0 1}",
    "1,2,a>b,{0.5}",
    "1,2,a>b,{",
    "'",
    '"a',
    ",,,",
    "a>b|b>a",
    "\t",
    "1\t2\ta",
    "}",
    "{}",
    "@data extra",
    "x,y,z,w",
]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.one_of(st.sampled_from(_FRAGMENTS), st.text(alphabet=",'\"{}%>|?@ \tab1.", max_size=12)),
        max_size=10,
    ),
    st.booleans(),
)
def test_fuzz_only_data_format_errors(tmp_path, lines, require):
    p = tmp_path / "fuzz.arff"
    p.write_text("\n".join(lines), encoding="utf-8")
    try:
        ds = read_arff(p, require_rankings=require)
    except DataFormatError as err:
        message = str(err)
        assert message.startswith(str(p)), message
    else:
        assert ds.n_rows >= 1


def test_the_first_bad_column_in_declaration_order_is_reported(tmp_path):
    """Numeric columns are cast all at once, but a bad nominal column declared before the first
    bad numeric one is still the one reported, and the other way round."""
    header = (
        "@relation r\n@attribute c {a,b}\n@attribute x numeric\n@attribute y numeric\n"
        "@attribute L RANKING {p,q}\n@data\n"
    )
    path = tmp_path / "d.xarff"
    path.write_text(header + "a,1,oops,p>q\nz,2,3,q>p\n")
    with pytest.raises(DataFormatError, match=r"d.xarff:8: value 'z' is not among the declared values"):
        read_arff(path)
    path.write_text(
        header.replace("@attribute c {a,b}\n", "").replace("@attribute L", "@attribute c {a,b}\n@attribute L")
        + "1,oops,z,p>q\n"
    )
    with pytest.raises(DataFormatError, match=r"d.xarff:7: non-numeric value 'oops' for numeric attribute 'y'"):
        read_arff(path)
