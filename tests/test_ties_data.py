"""Rankings with ties (bucket orders) in every format: notation, readers, writers, info, label
deletion. The shared partial-label-ranking sets are read when present (skipped otherwise)."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from conftest import SHARED_DATA
from hypothesis import given, settings
from hypothesis import strategies as st
from lrank import parquet_io
from lrank.cli import main
from lrank.data import (
    dataset_from_arrays,
    read_arff,
    read_dataset,
    read_kebi_csv,
    read_parquet,
    write_dataset,
    write_parquet,
)
from lrank.data.parquet import TIES_FORMAT_VERSION
from lrank.data.summary import summarize
from lrank.errors import DataFormatError, InvalidInputError
from lrank.quoting import MalformedTextError
from lrank.ranking_notation import (
    format_buckets,
    format_rank_rows,
    parse_bucket_order,
    parse_rank_row,
    parse_ranking,
    split_bucket_chains,
)
from lrank.rankings import as_rank_matrix, delete_labels, has_ties, tied_rows

LABELS = ("a", "b", "c", "d", "e")
PLR = SHARED_DATA / "plr-csv"


# ---------------------------------------------------------------------------
# notation


def test_ties_are_written_with_equals_signs():
    assert parse_bucket_order("a>c=b>d", LABELS) == ((0,), (1, 2), (3,))
    row, chains = parse_rank_row("a>c=b>d", LABELS, 5)
    assert row.tolist() == [1, 2, 2, 3, 0] and chains is None
    assert format_rank_rows([[1, 2, 2, 3, 0], [1, 1, 1, 1, 1]], LABELS) == ["a>b=c>d", "a=b=c=d=e"]
    assert format_buckets(((0,), (1, 2)), LABELS) == "a>b=c"
    assert split_bucket_chains("a>'x=y'=b|c") == [[["a"], ["x=y", "b"]], [["c"]]]


def test_partial_orders_keep_their_weka_meaning():
    row, chains = parse_rank_row("a>b|c>d", LABELS, 5)
    assert chains == ((0, 1), (2, 3)) and row.tolist() == [1, 2, 0, 0, 0]
    assert parse_ranking("a>b|c>d", LABELS) == ((0, 1), (2, 3))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a=b|c", "combines a tie ('=') with a partial order ('|')"),
        ("a=a>b", "label 'a' occurs twice in ranking 'a=a>b'"),
        ("a=", "ranking 'a=' ends with '='"),
        ("=a", "ranking '=a' starts with '='"),
        ("a==b", "no label between '=' and '=' in ranking 'a==b'"),
        ("a=>b", "no label between '=' and '>' in ranking 'a=>b': write a>b (before) or a=b (tied)"),
        ("a=z", "undeclared label 'z'"),
    ],
)
def test_malformed_ties(text, message):
    with pytest.raises(MalformedTextError, match=message.replace("(", r"\(").replace(")", r"\)").replace("|", r"\|")):
        parse_rank_row(text, LABELS, 5)


def test_chains_api_refuses_ties_with_a_clear_message():
    with pytest.raises(MalformedTextError, match="ties labels"):
        parse_ranking("a=b", LABELS)
    with pytest.raises(MalformedTextError, match="partial order"):
        parse_bucket_order("a>b|c", LABELS)


@st.composite
def bucket_rows(draw):
    m = draw(st.integers(1, 7))
    raw = draw(st.lists(st.integers(0, m), min_size=m, max_size=m).filter(lambda r: any(r)))
    distinct = sorted({v for v in raw if v})
    return np.array([distinct.index(v) + 1 if v else 0 for v in raw], dtype=np.int32)


@settings(max_examples=300, deadline=None)
@given(bucket_rows())
def test_any_bucket_order_formats_and_parses_back(row):
    labels = [f"x={j}" if j % 2 else f"L{j}" for j in range(row.size)]  # some names need quotes
    (text,) = format_rank_rows(row[None, :], labels, quoted=True)
    back, chains = parse_rank_row(text, labels, row.size)
    assert chains is None
    np.testing.assert_array_equal(back, row)


# ---------------------------------------------------------------------------
# rank matrices


def test_rank_matrices_accept_dense_ties_only():
    y = as_rank_matrix([[1, 2, 2, 3], [2, 0, 1, 1], [1, 2, 3, 4]])
    assert tied_rows(y).tolist() == [True, True, False] and has_ties(y)
    for bad in ([[1, 1, 3, 0]], [[2, 2, 0, 0]], [[0, 0, 0, 0]]):
        with pytest.raises(InvalidInputError):
            dataset_from_arrays(np.zeros((1, 1)), np.array(bad))
    with pytest.raises(InvalidInputError, match="dense"):
        as_rank_matrix([[1, 1, 3]])


def test_label_deletion_keeps_ties_and_renumbers_densely():
    y = np.array([[1, 2, 2, 3, 3, 4]] * 200, dtype=np.int32)
    out = delete_labels(y, 0.5, np.random.default_rng(0))
    for row, full in zip(out, y):
        kept = row > 0
        assert kept.sum() >= 2
        positions = sorted(set(row[kept].tolist()))
        assert positions == list(range(1, len(positions) + 1)), row
        # two kept labels are tied now exactly when they were tied before, ordered as before
        idx = np.flatnonzero(kept)
        for a in idx:
            for b in idx:
                assert np.sign(row[a] - row[b]) == np.sign(full[a] - full[b])
    # without ties the old renumbering 1..k is unchanged
    strict = np.array([[3, 1, 2, 4]] * 50, dtype=np.int32)
    out = delete_labels(strict, 0.5, np.random.default_rng(1))
    for row in out:
        assert sorted(row[row > 0].tolist()) == list(range(1, int((row > 0).sum()) + 1))


# ---------------------------------------------------------------------------
# files


def _tied_dataset():
    x = np.array([[0.5, 1.0], [2.0, np.nan], [3.0, 4.0]])
    y = np.array([[1, 2, 2, 3], [1, 1, 1, 1], [2, 0, 1, 3]])
    return dataset_from_arrays(x, y, labels=["L1", "L2", "L3", "L4"])


@pytest.mark.parametrize("suffix", [".xarff", ".csv", ".parquet"])
def test_every_format_round_trips_ties(tmp_path, suffix):
    ds = _tied_dataset()
    path = tmp_path / f"ties{suffix}"
    write_dataset(ds, path)
    back = read_dataset(path)
    np.testing.assert_array_equal(back.rankings, ds.rankings)
    assert back.ranking_strings() == ["L1>L2=L3>L4", "L1=L2=L3=L4", "L3>L1>L4"]
    np.testing.assert_array_equal(back.feature_matrix(), ds.feature_matrix())


def test_xarff_file_with_ties(tmp_path):
    path = tmp_path / "t.xarff"
    path.write_text(
        "@relation t\n@attribute x numeric\n@attribute L RANKING {a,b,c}\n@data\n1,a>b=c\n2,'c'='a'\n3,c>b\n"
    )
    assert read_arff(path).rankings.tolist() == [[1, 2, 2], [1, 0, 1], [0, 2, 1]]


def test_a_malformed_tie_names_file_and_line(tmp_path):
    path = tmp_path / "bad.xarff"
    path.write_text("@relation t\n@attribute x numeric\n@attribute L RANKING {a,b,c}\n@data\n1,a>b\n2,a=b|c\n")
    with pytest.raises(DataFormatError) as info:
        read_arff(path)
    assert info.value.line == 6 and "partial order" in info.value.problem
    csv = tmp_path / "bad.csv"
    csv.write_text("A1,L1,L2,L3\n1,1,2,2\n1,2,2,3\n")
    with pytest.raises(DataFormatError) as info:
        read_kebi_csv(csv)
    assert info.value.line == 3 and "not dense" in info.value.problem


def test_parquet_writes_the_tie_layout_only_for_ties(tmp_path):
    ds = _tied_dataset()
    write_parquet(ds, tmp_path / "t.parquet")
    meta = json.loads(pl.read_parquet_metadata(tmp_path / "t.parquet")["lrank"])
    assert meta["version"] == TIES_FORMAT_VERSION
    assert pl.read_parquet(tmp_path / "t.parquet").get_column("L").to_list()[0] == [[["L1"], ["L2", "L3"], ["L4"]]]
    strict = dataset_from_arrays(np.zeros((1, 1)), np.array([[2, 1, 3]]))
    write_parquet(strict, tmp_path / "s.parquet")
    assert json.loads(pl.read_parquet_metadata(tmp_path / "s.parquet")["lrank"])["version"] == 1


def test_malformed_tie_layout_names_the_row(tmp_path):
    path = tmp_path / "t.parquet"
    write_parquet(_tied_dataset(), path)
    metadata = {k: v for k, v in pl.read_parquet_metadata(path).items() if k != parquet_io.CHECKSUM_KEY}
    column = pl.Series(
        "L", [[[["L1"]]], [[["L1", "L2"]], [["L3"]]], [[["L1"], ["L1"]]]], dtype=pl.List(pl.List(pl.List(pl.String)))
    )
    # Rewritten as lrank writes (with the checksum), so the layout, not the checksum, is refused.
    parquet_io.write_checksummed(pl.read_parquet(path).with_columns(column), path, metadata)
    with pytest.raises(DataFormatError, match=r"row 2: a tie cannot be part of a partial order"):
        read_parquet(path)


def test_info_reports_ties(tmp_path):
    path = tmp_path / "t.csv"
    write_dataset(_tied_dataset(), path)
    s = summarize(read_dataset(path))
    assert s["rankings_with_ties"] == 2
    assert s["mean_buckets_per_ranking"] == pytest.approx((3 + 1 + 3) / 3)
    out = CliRunner().invoke(main, ["info", str(path)])
    assert out.exit_code == 0, out.output
    assert "Rankings with ties:  2 (66.7%), 2.33 buckets per ranking on average" in out.output


# the published statistics of the shared partial-label-ranking sets (their README)
PLR_SETS = {
    "blocks": (5472, 10, 5, 2.34, 0.99),
    "breast": (106, 9, 6, 3.92, 0.98),
    "ecoli": (336, 7, 8, 4.14, 1.00),
    "glass": (214, 9, 6, 4.09, 0.98),
    "iris": (150, 4, 3, 2.38, 0.62),
    "vehicle": (846, 18, 4, 3.12, 0.71),
    "vowel": (528, 10, 11, 5.74, 1.00),
    "wine": (178, 13, 3, 2.68, 0.32),
}


@pytest.mark.parametrize("name", sorted(PLR_SETS))
def test_shared_partial_label_ranking_sets(name, tmp_path):
    path = PLR / f"{name}.csv"
    if not path.is_file():
        pytest.skip(f"shared partial-label-ranking data not found at {PLR}")
    rows, features, labels, buckets, tied = PLR_SETS[name]
    ds = read_kebi_csv(path)
    assert (ds.n_rows, ds.feature_matrix().shape[1], ds.n_labels) == (rows, features, labels)
    s = summarize(ds)
    assert s["mean_buckets_per_ranking"] == pytest.approx(buckets, abs=0.005)
    assert s["rankings_with_ties"] / rows == pytest.approx(tied, abs=0.005)
    # and the set survives a trip through XARFF and Parquet
    for suffix in (".xarff", ".parquet"):
        write_dataset(ds, tmp_path / f"{name}{suffix}")
        np.testing.assert_array_equal(read_dataset(tmp_path / f"{name}{suffix}").rankings, ds.rankings)


def test_a_row_is_named_by_its_file_line_where_the_file_has_lines(tmp_path):
    """Blank lines and comments skipped: a row's line is where it is in the file; Parquet and
    data built in memory name the 1-based instance."""
    from lrank.data import dataset_from_arrays, read_dataset, write_dataset

    csv = tmp_path / "d.csv"
    csv.write_text("A1,L1,L2\n0.5,1,2\n\n1.5,2,1\n\n\n2.5,1,1\n")
    assert [read_dataset(csv).where(i) for i in range(3)] == [f"{csv}:2", f"{csv}:4", f"{csv}:7"]
    arff = tmp_path / "d.xarff"
    header = "@relation r\n@attribute A1 numeric\n@attribute L RANKING {a,b}\n@data\n"
    arff.write_text(header + "% a comment\n0.5,a>b\n\n1,b>a\n")
    assert [read_dataset(arff).where(i) for i in range(2)] == [f"{arff}:6", f"{arff}:8"]
    parquet = tmp_path / "d.parquet"
    write_dataset(read_dataset(csv), parquet)
    assert read_dataset(parquet).where(2) == f"{parquet}, instance 3"
    assert dataset_from_arrays([[0.0]], [[1, 2]]).where(0) == "instance 1"


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 7).flatmap(lambda m: st.tuples(*[st.lists(st.integers(1, m), min_size=m, max_size=m)] * 2)))
def test_spearman_rho_on_ties_is_scipys(pair):
    """With ties, rho is Pearson's correlation of mid-ranks (scipy.stats.spearmanr), where that is
    defined; 0 against a ranking tying every label, 1 between two such."""
    scipy_stats = pytest.importorskip("scipy.stats")
    from lrank.metrics import spearman_rho

    a, b = (as_rank_matrix([_dense(row)]) for row in pair)
    rho = spearman_rho(a, b)
    constant = [len(set(row)) == 1 for row in pair]
    if all(constant):
        assert rho == 1.0
    elif any(constant):
        assert rho == 0.0
    else:
        assert rho == pytest.approx(scipy_stats.spearmanr(a[0], b[0]).statistic, abs=1e-12)


def _dense(row: list[int]) -> list[int]:
    levels = sorted(set(row))
    return [levels.index(v) + 1 for v in row]
