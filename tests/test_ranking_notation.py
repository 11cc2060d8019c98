"""Tests of the ranking notation (lrank.ranking_notation): ``b>a>c``, incomplete rankings and
``a>b|c>d`` partial orders, formatted and parsed in one place."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lrank.data import dataset_from_arrays, read_arff, read_parquet, write_parquet
from lrank.data.dataset import rank_row_from_chains
from lrank.errors import DataFormatError, InvalidInputError
from lrank.parquet_io import write_checksummed
from lrank.quoting import MalformedTextError, quote, read_quoted
from lrank.ranking_notation import (
    check_acyclic,
    format_chains,
    format_rank_row,
    format_rank_rows,
    label_indices,
    parse_ranking,
    preference_chains,
    split_ranking,
)
from lrank.rankings import format_ranking

LABELS = ("a", "b", "c", "d", "e")

# ---------------------------------------------------------------------------
# formatting


def test_format_chains():
    assert format_chains([(1, 0, 2)], LABELS) == "b>a>c"
    assert format_chains(((0, 1), (2, 3)), LABELS) == "a>b|c>d"
    assert format_chains([(4,)], LABELS) == "e"


def test_format_rank_row_leaves_missing_labels_out():
    assert format_rank_row([2, 1, 3, 0, 0], LABELS) == "b>a>c"
    assert format_rank_row(np.array([0, 0, 0, 0, 1], dtype=np.int32), LABELS) == "e"
    assert format_ranking([2, 0, 1], ["a", "b", "c"]) == format_rank_row([2, 0, 1], ["a", "b", "c"]) == "c>a"


def test_format_rank_rows_with_partial_orders():
    rankings = np.array([[1, 2, 0, 0, 0], [3, 2, 1, 0, 0], [1, 2, 0, 0, 0]], dtype=np.int32)
    partial = {2: ((0, 1), (2, 3))}
    assert format_rank_rows(rankings, LABELS, partial) == ["a>b", "c>b>a", "a>b|c>d"]
    assert format_rank_rows(rankings, LABELS) == ["a>b", "c>b>a", "a>b"]
    assert preference_chains(rankings, partial) == [((0, 1),), ((2, 1, 0),), ((0, 1), (2, 3))]
    assert format_rank_rows(np.zeros((0, 5), dtype=np.int32), LABELS) == []


@pytest.mark.parametrize("m", [1, 3, 6, 15, 16, 40])
def test_format_rank_rows_equals_formatting_each_row_alone(m):
    """Rows are formatted once per distinct ranking (packed into int64 keys up to 63 bits, else
    one by one): the same text as each row alone, with ties, missing labels and repeats."""
    rng = np.random.default_rng(m)
    labels = [f"L{j}" for j in range(m)]
    rows = []
    for _ in range(300):
        raw = np.where(rng.random(m) < 0.2, 0, rng.integers(1, m + 1, size=m))
        present = np.unique(raw[raw > 0])
        rows.append(np.where(raw > 0, np.searchsorted(present, raw) + 1, 0))  # dense, ties kept
    r = np.asarray(rows + rows[:50], dtype=np.int32)  # repeated rows
    expected = [format_rank_row(row, labels) for row in r]
    assert format_rank_rows(r, labels) == expected
    assert format_rank_rows(r.astype(np.int64), labels) == expected
    assert format_rank_rows(r, labels, {3: ((0,),)})[3] == "L0"


def test_quoting_only_where_needed():
    labels = ("plain", "x y", "a>b", "c|d", "it's", "", "?")
    chains = [(0, 1, 2), (3, 4, 5, 6)]
    assert format_chains(chains, labels) == "plain>x y>a>b|c|d>it's>>?"  # display form, as given
    assert format_chains(chains, labels, quoted=True) == "plain>'x y'>'a>b'|'c|d'>'it\\'s'>''>'?'"
    assert format_rank_row([1, 2, 0, 0, 0, 0, 0], labels, quoted=True) == "plain>'x y'"


# ---------------------------------------------------------------------------
# parsing


def test_parse_rankings_incomplete_rankings_and_partial_orders():
    assert parse_ranking("b>a>c", LABELS) == ((1, 0, 2),)
    assert parse_ranking("e", LABELS) == ((4,),)
    assert parse_ranking("a>b|c>d>e", LABELS) == ((0, 1), (2, 3, 4))
    assert parse_ranking("a>b|a>c", LABELS) == ((0, 1), (0, 2))  # a label in several chains
    assert parse_ranking("a|b", {"a": 0, "b": 1}) == ((0,), (1,))  # a ready name -> index map


def test_split_ranking_removes_quotes():
    assert split_ranking("a>'x y'|c") == [["a", "x y"], ["c"]]
    assert split_ranking("'a>b'>\"c|d\"") == [["a>b", "c|d"]]
    assert split_ranking("x'y z'w") == [["xy zw"]]  # any part of a name may be quoted
    assert split_ranking("'it\\'s'>'tab\\there'") == [["it's", "tab\there"]]
    assert split_ranking("''>a") == [["", "a"]]


def test_empty_label_only_when_declared():
    assert parse_ranking("''>a", ("", "a")) == ((0, 1),)
    assert parse_ranking("''", ("", "a")) == ((0,),)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty ranking (a ranking needs at least one label)"),
        ("''", "empty ranking (a ranking needs at least one label)"),
        ("a>>b", "no label between '>' and '>' in ranking 'a>>b'"),
        ("a>=b", "no label between '>' and '=' in ranking 'a>=b': write a>b (before) or a=b (tied)"),
        ("a>b|", "ranking 'a>b|' ends with '|': a label name must follow it"),
        ("|a", "ranking '|a' starts with '|': a label name must come first"),
        ("a>", "ranking 'a>' ends with '>': a label name must follow it"),
        ("a>z>c", "undeclared label 'z' in ranking 'a>z>c'"),
        ("'a '>b", "undeclared label 'a ' in ranking \"'a '>b\""),
        ("a>b>a", "label 'a' occurs twice in ranking 'a>b>a'"),
        ("a>b|c>c", "label 'c' occurs twice in ranking 'a>b|c>c'"),
        ("a>b|b>a", "ranking 'a>b|b>a' contradicts itself (its chains form a preference cycle)"),
        ("a>b|b>c|c>a", "ranking 'a>b|b>c|c>a' contradicts itself (its chains form a preference cycle)"),
        ("'a>b", "unterminated quoted string starting with '"),
        ('a>"b', 'unterminated quoted string starting with "'),
    ],
)
def test_malformed_rankings(text, message):
    with pytest.raises(MalformedTextError) as info:
        parse_ranking(text, LABELS)
    assert str(info.value) == message
    assert isinstance(info.value, InvalidInputError)


def test_label_indices_of_chains_that_never_were_text():
    index = {name: j for j, name in enumerate(LABELS)}
    assert label_indices([["b", "a"], ["c"]], index) == ((1, 0), (2,))
    with pytest.raises(MalformedTextError, match=r"^undeclared label 'z'$"):
        label_indices([["a", "z"]], index)
    with pytest.raises(MalformedTextError, match=r"^label 'a' occurs twice in one chain$"):
        label_indices([["a", "a"]], index)


def test_check_acyclic():
    check_acyclic([(0, 1), (1, 2), (0, 2)], "a>b|b>c|a>c")
    with pytest.raises(MalformedTextError, match="'shown' contradicts itself"):
        check_acyclic([(0, 1), (1, 2), (2, 0)], "shown")


# ---------------------------------------------------------------------------
# the file readers add the file and the line to the notation's messages

HEADER = "@relation r\n@attribute x numeric\n@attribute L RANKING {a,b,c,d,e}\n@data\n1,a>b\n"


@pytest.mark.parametrize("text", ["''", "a>>b", "a>b|", "a>z>c", "a>b>a", "a>b|c>c", "a>b|b>a", "'a>b"])
def test_xarff_reader_reports_the_notation_error_with_file_and_line(tmp_path, text):
    with pytest.raises(MalformedTextError) as expected:
        parse_ranking(text, LABELS)
    path = tmp_path / "bad.xarff"
    path.write_text(HEADER + "2,b>a\n3," + text + "\n", encoding="utf-8")
    with pytest.raises(DataFormatError) as info:
        read_arff(path)
    assert (info.value.path, info.value.line, info.value.problem) == (str(path), 7, str(expected.value))
    assert str(info.value) == f"{path}:7: {expected.value}"


@pytest.mark.parametrize(
    "chains", [[["a", "z"]], [["a", "b", "a"]], [["a", "b"], ["b", "a"]], [["a", "b"], ["b", "c"], ["c", "a"]]]
)
def test_parquet_reader_reports_the_notation_error_with_file_and_row(tmp_path, chains):
    index = {name: j for j, name in enumerate(LABELS)}
    with pytest.raises(MalformedTextError) as expected:
        check_acyclic(label_indices(chains, index), format_chains(label_indices(chains, index), LABELS))
    ds = dataset_from_arrays(np.zeros((2, 1)), np.array([[1, 2, 0, 0, 0], [2, 1, 0, 0, 0]]), labels=LABELS)
    path = tmp_path / "bad.parquet"
    write_parquet(ds, path)
    metadata = {"lrank": pl.read_parquet_metadata(path)["lrank"]}
    column = pl.Series("L", [[["a", "b"]], chains], dtype=pl.List(pl.List(pl.String)))
    # Rewritten with a checksum of its own: a file another writer made in lrank's layout.
    write_checksummed(pl.read_parquet(path).with_columns(column), path, metadata)
    with pytest.raises(DataFormatError) as info:
        read_parquet(path)
    assert str(info.value) == f"{path}: row 2: {expected.value}"


# ---------------------------------------------------------------------------
# round trips over random rankings

# names that need quoting or escaping, and plain ones
AWKWARD = list("abcXYZ019 _-.") + list(",'\"%{}>|=\\?@\t\n\r") + ["é", "\u2028"]
label_sets = st.lists(st.text(alphabet=st.sampled_from(AWKWARD), max_size=5), min_size=1, max_size=7, unique=True)


@st.composite
def labels_and_chains(draw):
    labels = tuple(draw(label_sets))
    m = len(labels)
    order = draw(st.permutations(range(m)))
    # every chain follows one total order, so the chains never form a cycle, but they may share labels
    positions = st.sets(st.integers(0, m - 1), min_size=1)
    chains = tuple(tuple(order[p] for p in sorted(draw(positions))) for _ in range(draw(st.integers(1, 3))))
    return labels, chains


@settings(max_examples=300, deadline=None)
@given(labels_and_chains())
def test_format_parse_round_trip_of_chains(case):
    labels, chains = case
    text = format_chains(chains, labels, quoted=True)
    assert parse_ranking(text, labels) == chains
    assert split_ranking(text) == [[labels[j] for j in c] for c in chains]


@settings(max_examples=300, deadline=None)
@given(labels_and_chains())
def test_format_parse_round_trip_of_rank_rows(case):
    labels, chains = case
    row = rank_row_from_chains(chains[:1], len(labels))  # one chain: an (incomplete) ranking
    text = format_rank_row(row, labels, quoted=True)
    parsed = parse_ranking(text, labels)
    assert len(parsed) == 1
    np.testing.assert_array_equal(rank_row_from_chains(parsed, len(labels)), row)
    as_partial_order = format_rank_rows(row[None, :], labels, {0: chains}, quoted=True)
    assert as_partial_order == [format_chains(chains, labels, quoted=True)]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(AWKWARD), max_size=8))
def test_quote_reads_back(name):
    q = quote(name)
    if q[:1] in "'\"" and q != name:
        assert read_quoted(q, 0) == (name, len(q))
    else:
        assert q == name


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab>|'\"\\ ")), max_size=10))
def test_arbitrary_text_parses_or_raises_malformed_text_error(text):
    try:
        chains = parse_ranking(text, ("a", "b", " ", "", "a b"))
    except MalformedTextError:
        return
    assert chains and all(chains)
