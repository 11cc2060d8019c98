"""Properties of the Arrow way in (``model_.predict_arrow``, ``lrank.arrow.predict_batch``), drawn
by hypothesis: for random Arrow data -- every supported column type, random nulls, slices of
record batches and of struct arrays (struct and column offsets), tables in random chunks, record
batch readers and Polars frames -- the positions equal ``model.predict`` on the same values as a
float64 matrix (nulls as NaN) and ``ranking`` equals ``format_rank_rows``; C structs rewritten
as another producer may hand them over are read or refused; garbage predicts or raises
``InvalidInputError``, nothing else. The tests at the end keep minimal examples of bugs these
properties found (fixed)."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np
import pytest
from arrow_c_structs import ArrowArray, capsule_pointer
from conftest import make_problem, make_tied_problem
from hypothesis import event, given, settings
from hypothesis import strategies as st
from lrank import InvalidInputError, LabelRankingRandomForest, PartialLabelRankingTree
from lrank import arrow as lrank_arrow
from lrank.arrow import predict_batch
from lrank.ranking_notation import format_rank_rows

pa = pytest.importorskip("pyarrow")
pl = pytest.importorskip("polars")


def _spread(x: np.ndarray) -> np.ndarray:
    """The problems' features in [0, 1] spread by a monotone map onto [0, 1) and [1, 101]: the
    models then split both between 0 and 1 (so a boolean column's values rank differently) and
    among the values the integer columns draw, so a value read wrong shows in the rankings."""
    return np.where(x < 0.5, 2 * x, 1 + 200 * (x - 0.5))


def _settings(n: int) -> settings:
    return settings(max_examples=n, deadline=None)


@functools.cache
def _models() -> dict[str, Any]:
    x, y = make_problem(n=200, m=4, d=4, seed=0)
    forest = LabelRankingRandomForest(n_estimators=5, random_state=0).fit(_spread(x), y)
    xt, yt = make_tied_problem(n=120, seed=0)
    tied = PartialLabelRankingTree(random_state=0).fit(_spread(xt), yt, labels=["a", "b=", "c c", "d"])
    return {"forest": forest, "tied": tied}


def _names(model: Any) -> list[str]:
    return [f"x{k}" for k in range(model.n_features_in_)]


def _schema(labels: list[str]) -> Any:
    """The output's schema: ``ranking`` (large string), then one int32 column per label (a NUL in
    a label name is dropped from its column name)."""
    fields = [pa.field("ranking", pa.large_string())]
    return pa.schema(fields + [pa.field(label.replace("\0", ""), pa.int32()) for label in labels])


# ---------------------------------------------------------------------------------------------
# random columns of every supported type


@dataclass
class Column:
    kind: str
    array: Any  # a pyarrow Array
    values: list[Any]  # the Python values, None where null

    def as_float(self) -> np.ndarray:
        return np.array([math.nan if v is None else float(v) for v in self.values], dtype=np.float64)


INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
KINDS = ["float64", "float32", *INTS, "bool", "null"]
POLARS_TYPES = {
    "float64": pl.Float64,
    "float32": pl.Float32,
    "int8": pl.Int8,
    "int16": pl.Int16,
    "int32": pl.Int32,
    "int64": pl.Int64,
    "uint8": pl.UInt8,
    "uint16": pl.UInt16,
    "uint32": pl.UInt32,
    "uint64": pl.UInt64,
    "bool": pl.Boolean,
}


def _ints(kind: str) -> st.SearchStrategy[int]:
    info = np.iinfo(kind)
    lo, hi = int(info.min), int(info.max)
    # Mostly values among the thresholds, sometimes anywhere in the type's range (extremes too).
    return st.one_of(st.integers(max(lo, -10), min(hi, 110)), st.integers(lo, hi))


VALUES: dict[str, st.SearchStrategy[Any]] = {
    "float64": st.one_of(st.floats(-10, 110), st.floats(allow_infinity=False)),
    "float32": st.one_of(st.floats(-10, 110, width=32), st.floats(width=32, allow_infinity=False)),
    **{kind: _ints(kind) for kind in INTS},
    "bool": st.booleans(),
}


def _column(data: st.DataObject, kind: str, n: int) -> Column:
    """A column of ``n`` random values of ``kind`` with random nulls (none, all or some). A null
    slot keeps a drawn value in the data buffer, so a reader ignoring validity would see it."""
    if kind == "null":
        return Column(kind, pa.nulls(n), [None] * n)
    raw = data.draw(st.lists(VALUES[kind], min_size=n, max_size=n))
    nulls = data.draw(st.sampled_from(["none", "all", "some"]))
    mask = [nulls == "all"] * n
    if nulls == "some":
        mask = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    np_type = np.bool_ if kind == "bool" else np.dtype(kind)
    array = pa.array(np.array(raw, dtype=np_type), mask=np.array(mask, dtype=bool))
    assert array.null_count == sum(mask)
    return Column(kind, array, [None if m else v for v, m in zip(raw, mask)])


def _columns(data: st.DataObject, model: Any, n: int, kinds: list[str] = KINDS) -> list[Column]:
    chosen = data.draw(st.lists(st.sampled_from(kinds), min_size=model.n_features_in_, max_size=model.n_features_in_))
    return [_column(data, kind, n) for kind in chosen]


def _matrix(columns: list[Column]) -> np.ndarray:
    return np.column_stack([c.as_float() for c in columns]).reshape(len(columns[0].values), len(columns))


def _model(data: st.DataObject) -> Any:
    return _models()[data.draw(st.sampled_from(sorted(_models())), label="model")]


def _span(data: st.DataObject, n: int) -> tuple[int, int]:
    start = data.draw(st.integers(0, n), label="start")
    return start, data.draw(st.integers(0, n - start), label="length")


# ---------------------------------------------------------------------------------------------
# the check: the Arrow way against numpy


def _rank(model: Any, data: Any, columns: list[str] | None, how: str = "core", n_jobs: int | None = None) -> Any:
    if how == "core":
        return pa.record_batch(model.model_.predict_arrow(data, model._label_names(), columns, n_jobs=n_jobs))
    return predict_batch(model, data, feature_columns=columns)


def _positions(out: Any) -> np.ndarray:
    return np.column_stack([out.column(j).to_numpy() for j in range(1, out.num_columns)])


def _assert_ranks_as_numpy(model: Any, rank: Any, matrix: np.ndarray) -> None:
    """``rank()`` (the Arrow way) gives what ``model.predict(matrix)`` gives, row by row, with the
    ranking text of ``format_rank_rows``; both refuse the same matrices. numpy refuses zero rows,
    the Arrow way answers them with a zero-row batch of the same schema."""
    labels = model._label_names()
    if matrix.shape[0] == 0:
        out = rank()
        assert out.num_rows == 0
        assert out.schema == _schema(labels)
        return
    try:
        expected = model.predict(matrix)
    except InvalidInputError:
        with pytest.raises(InvalidInputError):
            rank()
        return
    out = rank()
    assert out.schema == _schema(labels)
    assert out.num_rows == matrix.shape[0]
    np.testing.assert_array_equal(_positions(out), expected)
    assert out.column("ranking").to_pylist() == format_rank_rows(expected, labels)


# ---------------------------------------------------------------------------------------------
# the models and the way taken


def test_the_models_take_the_core_way_see_every_feature_and_the_tied_one_predicts_ties():
    """Every property below is about the core's reader: both models must take it, each feature
    (even a boolean's 0 against 1) must change some rankings, or a column read wrong could go
    unnoticed, and the tied model must tie labels, or the text of ties would go untested."""
    for model in _models().values():
        assert lrank_arrow._ranks_in_core(model)
        x = _spread(np.random.default_rng(5).random((300, model.n_features_in_)))
        for k in range(model.n_features_in_):
            low, high = x.copy(), x.copy()
            low[:, k], high[:, k] = 0.0, 1.0
            assert (model.predict(low) != model.predict(high)).any(), k
    tied = _models()["tied"]
    pred = tied.predict(_spread(np.random.default_rng(0).random((60, 3))))
    assert any(len(set(row)) < len(row) for row in pred.tolist())


# ---------------------------------------------------------------------------------------------
# record batches, slices, struct arrays

NOISE = {
    "noise_text": lambda n: pa.array([f"s{i}" for i in range(n)]),
    "noise_code": lambda n: pa.array([f"c{i % 3}" for i in range(n)]).dictionary_encode(),
    "noise_time": lambda n: pa.array(range(n), pa.timestamp("us")),
    "noise_number": lambda n: pa.array(np.linspace(-1e9, 1e9, n)),
}


@_settings(200)
@given(data=st.data())
def test_record_batches_and_their_slices_rank_as_numpy(data):
    model = _model(data)
    n = data.draw(st.integers(1, 45), label="rows")
    columns = _columns(data, model, n)
    names = _names(model)
    arrays = {name: c.array for name, c in zip(names, columns)}
    for name in data.draw(st.lists(st.sampled_from(sorted(NOISE)), max_size=2, unique=True)):
        arrays[name] = NOISE[name](n)  # columns the model does not read, of types it cannot read
    order = data.draw(st.permutations(list(arrays)))
    batch = pa.record_batch({name: arrays[name] for name in order})
    matrix = _matrix(columns)
    if data.draw(st.booleans(), label="slice"):
        start, length = _span(data, n)
        batch, matrix = batch.slice(start, length), matrix[start : start + length]
    selected = names if list(order) != names else data.draw(st.sampled_from([None, names]))
    how = data.draw(st.sampled_from(["core", "predict_batch"]))
    n_jobs = data.draw(st.sampled_from([None, 1, 2, -1]))
    _assert_ranks_as_numpy(model, lambda: _rank(model, batch, selected, how, n_jobs), matrix)


@_settings(150)
@given(data=st.data())
def test_struct_arrays_with_struct_and_column_offsets_rank_as_numpy(data):
    """A struct array whose columns start at their own offsets in their buffers, itself sliced
    (a struct offset); rows null at the struct level are refused only when in the slice."""
    model = _model(data)
    n = data.draw(st.integers(1, 40), label="rows")
    columns = _columns(data, model, n)
    children = []
    for c in columns:
        before = _column(data, c.kind, data.draw(st.integers(0, 11)))  # other values ahead of it
        children.append(pa.concat_arrays([before.array, c.array]).slice(len(before.values)))
    kind = data.draw(st.sampled_from(["no bitmap", "no nulls", "some nulls"]))
    mask = None if kind == "no bitmap" else [False] * n
    if kind == "some nulls":
        mask = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    struct = pa.StructArray.from_arrays(
        children, names=_names(model), mask=None if mask is None else pa.array(mask, pa.bool_())
    )
    start, length = _span(data, n)
    part = struct.slice(start, length)
    if mask is not None and any(mask[start : start + length]):
        with pytest.raises(InvalidInputError, match="null rows"):
            _rank(model, part, None)
        return
    _assert_ranks_as_numpy(model, lambda: _rank(model, part, None), _matrix(columns)[start : start + length])


# ---------------------------------------------------------------------------------------------
# tables of many chunks, readers, Polars frames


def _cuts(data: st.DataObject, n: int) -> list[tuple[int, int]]:
    """``0..n`` cut at random places (empty pieces included)."""
    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=5), label="cuts"))
    return list(zip([0, *cuts], [*cuts, n]))


@_settings(120)
@given(data=st.data())
def test_tables_in_random_chunks_and_readers_rank_as_numpy(data):
    model = _model(data)
    n = data.draw(st.integers(1, 45), label="rows")
    columns = _columns(data, model, n)
    batch = pa.record_batch(dict(zip(_names(model), (c.array for c in columns))))
    pieces = _cuts(data, n)
    if data.draw(st.booleans(), label="concat_tables"):
        table = pa.concat_tables([pa.table(batch.slice(a, b - a)) for a, b in pieces])
        assert table.column(0).num_chunks == sum(b > a for a, b in pieces)  # it drops empty tables
    else:
        table = pa.Table.from_batches([batch.slice(a, b - a) for a, b in pieces])  # empty chunks kept
        assert table.column(0).num_chunks == len(pieces)
    matrix = _matrix(columns)
    if data.draw(st.booleans(), label="slice"):
        start, length = _span(data, n)
        table, matrix = table.slice(start, length), matrix[start : start + length]
    source = table.to_reader() if data.draw(st.booleans(), label="reader") else table
    how = data.draw(st.sampled_from(["core", "predict_batch"]))
    _assert_ranks_as_numpy(model, lambda: _rank(model, source, _names(model), how), matrix)


# Polars' Null dtype is left out here: see test_a_polars_null_column_is_a_missing_feature below.
POLARS_KINDS = [kind for kind in KINDS if kind != "null"]


@_settings(120)
@given(data=st.data())
def test_polars_frames_rank_as_numpy(data):
    model = _model(data)
    n = data.draw(st.integers(1, 45), label="rows")
    columns = _columns(data, model, n, POLARS_KINDS)
    names = _names(model)
    if data.draw(st.booleans(), label="from arrow"):
        frame = pl.from_arrow(pa.table(dict(zip(names, (c.array for c in columns)))), rechunk=False)
    else:
        frame = pl.DataFrame([pl.Series(name, c.values, dtype=POLARS_TYPES[c.kind]) for name, c in zip(names, columns)])
    assert frame.schema == pl.Schema({name: POLARS_TYPES[c.kind] for name, c in zip(names, columns)})
    frame = pl.concat([frame.slice(a, b - a) for a, b in _cuts(data, n)], rechunk=False)
    matrix = _matrix(columns)
    if data.draw(st.booleans(), label="slice"):
        start, length = _span(data, n)
        frame, matrix = frame.slice(start, length), matrix[start : start + length]
    how = data.draw(st.sampled_from(["core", "predict_batch"]))
    _assert_ranks_as_numpy(model, lambda: _rank(model, frame, None, how), matrix)


@_settings(60)
@given(data=st.data())
def test_zero_rows_give_zero_rows_of_the_same_schema(data):
    model = _model(data)
    names = _names(model)
    n = data.draw(st.integers(0, 20), label="rows")
    columns = _columns(data, model, n, POLARS_KINDS)
    batch = pa.record_batch(dict(zip(names, (c.array for c in columns))))
    at = data.draw(st.integers(0, n), label="at")
    empty = {
        "batch slice": lambda: batch.slice(at, 0),
        "struct slice": lambda: pa.StructArray.from_arrays(batch.columns, names=names).slice(at, 0),
        "table of no chunks": lambda: pa.Table.from_batches([], schema=batch.schema),
        "table of empty chunks": lambda: pa.concat_tables([pa.table(batch.slice(at, 0))] * 2),
        "polars": lambda: pl.from_arrow(pa.table(batch)).slice(at, 0),
    }[
        data.draw(
            st.sampled_from(["batch slice", "struct slice", "table of no chunks", "table of empty chunks", "polars"])
        )
    ]
    one_row = _rank(model, pa.record_batch({name: [0.5] for name in names}), None)
    out = _rank(model, empty(), None, data.draw(st.sampled_from(["core", "predict_batch"])))
    assert out.num_rows == 0
    assert out.schema == one_row.schema == _schema(model._label_names())


# ---------------------------------------------------------------------------------------------
# label names, non-finite values


@_settings(80)
@given(data=st.data())
def test_any_label_names_are_written_as_the_notation_writes_them(data):
    model = _model(data)
    labels = data.draw(st.lists(st.text(max_size=4), min_size=4, max_size=4), label="labels")
    x = _spread(np.random.default_rng(data.draw(st.integers(0, 2**16))).random((30, model.n_features_in_)))
    x[np.random.default_rng(1).random(x.shape) < 0.1] = math.nan
    table = pa.table({name: pa.array(x[:, k], from_pandas=True) for k, name in enumerate(_names(model))})
    out = pa.record_batch(model.model_.predict_arrow(table, labels))
    expected = model.predict(x)
    assert out.schema == _schema(labels)
    np.testing.assert_array_equal(_positions(out), expected)
    assert out.column(0).to_pylist() == format_rank_rows(expected, labels)


@_settings(60)
@given(data=st.data())
def test_infinite_values_are_refused_as_numpy_refuses_them(data):
    model = _model(data)
    n = data.draw(st.integers(1, 20), label="rows")
    columns = _columns(data, model, n, ["float64", "float32", "int8", "bool", "null"])
    spots = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, len(columns) - 1)), max_size=3))
    for i, k in spots:
        if columns[k].kind.startswith("float"):
            values = list(columns[k].values)
            values[i] = data.draw(st.sampled_from([math.inf, -math.inf]))  # a value, not a null
            mask = [v is None for v in values]
            raw = [0.0 if v is None else v for v in values]
            array = pa.array(np.array(raw, dtype=columns[k].kind), mask=np.array(mask, dtype=bool))
            columns[k] = Column(columns[k].kind, array, values)
    batch = pa.record_batch(dict(zip(_names(model), (c.array for c in columns))))
    _assert_ranks_as_numpy(model, lambda: _rank(model, batch, None), _matrix(columns))


# ---------------------------------------------------------------------------------------------
# C structs as another producer may hand them over


class _Edited:
    """A producer handing over pyarrow's export of ``batch`` after ``edit`` rewrote scalar fields
    of its C struct (lengths, offsets, null counts; never pointers, which pyarrow frees)."""

    def __init__(self, batch: Any, edit: Any) -> None:
        self.batch, self.edit = batch, edit

    def __arrow_c_array__(self, requested_schema: Any = None) -> tuple[Any, Any]:
        schema, array = self.batch.__arrow_c_array__()
        self.edit(ArrowArray.from_address(capsule_pointer(array, b"arrow_array")))
        return schema, array


@_settings(150)
@given(data=st.data())
def test_rewritten_lengths_offsets_and_null_counts_are_read_or_refused(data):
    """Legal rewrites (a null count of -1: not computed; a shorter batch; a later start) rank the
    rows they describe; illegal ones (past the columns' ends, negative, overflowing) are refused."""
    model = _model(data)
    n = data.draw(st.integers(1, 30), label="rows")
    columns = _columns(data, model, n)
    batch = pa.record_batch(dict(zip(_names(model), (c.array for c in columns))))
    matrix = _matrix(columns)
    edit_kind = data.draw(
        st.sampled_from(
            [
                "unknown column null counts",
                "unknown batch null count",
                "shorter",
                "later start",
                "longer",
                "negative length",
                "negative offset",
                "huge offset",
                "short column",
                "negative column offset",
            ]
        )
    )
    k, j = data.draw(st.integers(0, n), label="k"), data.draw(st.integers(0, len(columns) - 1), label="column")
    big = data.draw(st.integers(2**31, 2**63 - 1), label="big")
    legal = {
        "unknown column null counts": matrix,
        "unknown batch null count": matrix,
        "shorter": matrix[:k],
        "later start": matrix[k:],
    }

    def edit(a: ArrowArray) -> None:
        assert (a.length, a.offset, a.n_children) == (n, 0, len(columns))
        child = a.children[j].contents
        if edit_kind == "unknown column null counts":
            for i in range(a.n_children):
                a.children[i].contents.null_count = -1
        elif edit_kind == "unknown batch null count":
            assert a.n_buffers == 1 and not a.buffers[0]  # no struct-level bitmap to count
            a.null_count = -1
        elif edit_kind == "shorter":
            a.length = k
        elif edit_kind == "later start":
            a.offset, a.length = k, n - k
        elif edit_kind == "longer":
            a.length = n + 1 + k
        elif edit_kind == "negative length":
            a.length = -1 - k
        elif edit_kind == "negative offset":
            a.offset = -1 - k
        elif edit_kind == "huge offset":
            a.offset = big
        elif edit_kind == "short column":
            child.length = child.length - 1 - min(k, child.length - 1)
        else:
            child.offset = -1 - k

    source = _Edited(batch, edit)
    if edit_kind in legal:
        _assert_ranks_as_numpy(model, lambda: _rank(model, source, None), legal[edit_kind])
    else:
        with pytest.raises(InvalidInputError):
            _rank(model, source, None)


# ---------------------------------------------------------------------------------------------
# garbage: predicts or raises InvalidInputError


def _garbage_columns() -> dict[str, Any]:
    """Columns of every other kind (n rows), plus a few readable ones to mix in."""

    def union(n: int) -> Any:
        types, offsets = pa.array([0] * n, pa.int8()), pa.array(range(n), pa.int32())
        return pa.UnionArray.from_dense(types, offsets, [pa.array(np.arange(n, dtype=float))])

    def run_ends(n: int) -> Any:
        ends, values = ([n], [1.0]) if n else ([], [])
        return pa.RunEndEncodedArray.from_arrays(pa.array(ends, pa.int32()), pa.array(values, pa.float64()))

    return {
        "string": lambda n: pa.array([f"s{i}" for i in range(n)]),
        "large_string": lambda n: pa.array(["1.5"] * n, pa.large_string()),
        "string_view": lambda n: pa.array(["2"] * n, pa.string_view()),
        "binary": lambda n: pa.array([b"\x00\x01"] * n),
        "fixed_size_binary": lambda n: pa.array([b"abcdefgh"] * n, pa.binary(8)),
        "list": lambda n: pa.array([[1.0, 2.0]] * n, pa.list_(pa.float64())),
        "large_list": lambda n: pa.array([[1.0]] * n, pa.large_list(pa.float64())),
        "fixed_size_list": lambda n: pa.array([[1.0, 2.0]] * n, pa.list_(pa.float64(), 2)),
        "struct": lambda n: pa.array([{"a": 1.0, "b": {"c": 2}}] * n),
        "empty_struct": lambda n: pa.StructArray.from_arrays([], names=[]) if n == 0 else pa.array([{}] * n),
        "map": lambda n: pa.array([[("k", 1.0)]] * n, pa.map_(pa.string(), pa.float64())),
        "timestamp": lambda n: pa.array(range(n), pa.timestamp("us")),
        "timestamp_tz": lambda n: pa.array(range(n), pa.timestamp("ns", tz="UTC")),
        "date32": lambda n: pa.array(range(n), pa.date32()),
        "date64": lambda n: pa.array([86_400_000 * i for i in range(n)], pa.date64()),
        "time64": lambda n: pa.array(range(n), pa.time64("us")),
        "duration": lambda n: pa.array(range(n), pa.duration("s")),
        "interval": lambda n: pa.array([(1, 2, 3)] * n, pa.month_day_nano_interval()),
        "decimal128": lambda n: pa.array([Decimal("1.25")] * n, pa.decimal128(10, 2)),
        "decimal256": lambda n: pa.array([Decimal("-7.5")] * n, pa.decimal256(40, 1)),
        "float16": lambda n: pa.array(np.full(n, 0.5, np.float16)),
        "dictionary_string": lambda n: pa.array([f"c{i % 2}" for i in range(n)]).dictionary_encode(),
        "dictionary_float": lambda n: pa.array(np.arange(n, dtype=float) % 3).dictionary_encode(),
        "dense_union": union,
        "run_end_encoded": run_ends,
        "bool8_extension": lambda n: pa.ExtensionArray.from_storage(pa.bool8(), pa.array(np.ones(n, np.int8))),
        "uuid_extension": lambda n: pa.ExtensionArray.from_storage(pa.uuid(), pa.array([b"0" * 16] * n, pa.binary(16))),
        "null": lambda n: pa.nulls(n),
        "float64": lambda n: pa.array(np.linspace(0, 100, n)),
        "int8": lambda n: pa.array(np.arange(n, dtype=np.int8)),
        "bool": lambda n: pa.array(np.arange(n) % 2 == 0),
    }


GARBAGE_COLUMNS = _garbage_columns()
COLUMN_NAMES = ["x0", "x1", "x2", "x3", "y", "", "x0 ", "X1", "é"]


@st.composite
def _garbage_arrow(draw: Any) -> tuple[Any, int | None]:
    """Wrongly shaped Arrow data: random columns (types, names, count), in a random container.
    Returns it and its number of rows (None: not a record batch)."""
    n = draw(st.integers(0, 12))
    cols = draw(
        st.lists(st.tuples(st.sampled_from(COLUMN_NAMES), st.sampled_from(sorted(GARBAGE_COLUMNS))), max_size=6)
    )
    arrays = [GARBAGE_COLUMNS[kind](n) for _, kind in cols]
    schema = pa.schema([pa.field(name, a.type) for (name, _), a in zip(cols, arrays)])
    batch = pa.RecordBatch.from_arrays(arrays, schema=schema)
    container = draw(st.sampled_from(["batch", "slice", "struct", "table", "reader", "polars", "column"]))
    if container == "slice":
        start = draw(st.integers(0, batch.num_rows))
        batch = batch.slice(start, draw(st.integers(0, batch.num_rows - start)))
    if container in ("batch", "slice"):
        return batch, batch.num_rows
    if container == "struct" and cols:
        return pa.StructArray.from_arrays(batch.columns, fields=list(batch.schema)), n
    if container == "table":
        return pa.concat_tables([pa.table(batch.slice(0, n // 2)), pa.table(batch.slice(n // 2))]), batch.num_rows
    if container == "reader":
        return pa.table(batch).to_reader(), batch.num_rows
    if container == "polars":
        try:
            return pl.from_arrow(pa.table(batch)), batch.num_rows
        # Polars reads fewer types than Arrow: keep the table then (for some, such as 256-bit
        # decimals, Polars panics, which is a BaseException).
        except (Exception, pl.exceptions.PanicException):
            return pa.table(batch), batch.num_rows
    if container == "column" and cols:
        return batch.column(0), None  # an array, not a record batch
    return batch, batch.num_rows


PYTHON_GARBAGE = st.one_of(
    st.none(),
    st.integers(),
    st.floats(),
    st.text(max_size=5),
    st.binary(max_size=5),
    st.lists(st.floats(), max_size=4),
    st.dictionaries(st.sampled_from(COLUMN_NAMES), st.lists(st.floats(0, 1), max_size=3), max_size=4),
    st.integers(0, 5).map(lambda n: np.zeros((n, 4))),
    st.sampled_from(
        [
            pa.scalar(1.0),
            pa.array([1.0, 2.0]),
            pa.chunked_array([[1.0], [2.0]]),
            pa.chunked_array([pa.array([{"x0": 1.0}])]),
            pa.schema([("x0", pa.float64())]),
            pa.field("x0", pa.float64()),
            pa.py_buffer(b"\x00" * 64),
            pl.Series("x0", [1.0, 2.0]),
            pl.DataFrame({"x0": [1.0]}).lazy(),
            object(),
            object,
        ]
    ),
)


@_settings(400)
@given(data=st.data())
def test_garbage_predicts_or_raises_invalid_input_error(data):
    model = _model(data)
    source, n = data.draw(st.one_of(_garbage_arrow(), PYTHON_GARBAGE.map(lambda o: (o, None))), label="data")
    columns = data.draw(
        st.one_of(st.none(), st.just(_names(model)), st.lists(st.sampled_from(COLUMN_NAMES), max_size=5)),
        label="columns",
    )
    try:
        out = _rank(model, source, columns, data.draw(st.sampled_from(["core", "predict_batch"])))
    except InvalidInputError:
        event("refused")
        return
    event("predicted")
    assert out.schema == _schema(model._label_names())
    if n is not None:
        assert out.num_rows == n


class _Returns:
    """A producer whose ``__arrow_c_array__`` returns ``value``."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __arrow_c_array__(self, requested_schema: Any = None) -> Any:
        return self.value


class _Streams:
    """A producer whose ``__arrow_c_stream__`` returns ``value``."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self.value


def _failing_reader() -> Any:
    schema = pa.schema([(f"x{k}", pa.float64()) for k in range(4)])

    def batches() -> Any:
        yield pa.record_batch({f"x{k}": [0.5] for k in range(4)})
        raise RuntimeError("the producer broke down")

    return pa.RecordBatchReader.from_batches(schema, batches())


def _good_batch() -> Any:
    return pa.record_batch({f"x{k}": [0.25, 0.75] for k in range(4)})


def _not_callable() -> Any:
    class NotCallable:
        __arrow_c_array__ = 5

    return NotCallable()


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: _Returns(("schema", "array")), id="strings"),
        pytest.param(lambda: _Returns(tuple(reversed(_good_batch().__arrow_c_array__()))), id="swapped"),
        pytest.param(lambda: _Returns((pa.table(_good_batch()).__arrow_c_stream__(),) * 2), id="stream capsules"),
        pytest.param(lambda: _Streams(_good_batch().__arrow_c_array__()[1]), id="array capsule as stream"),
        pytest.param(lambda: _Streams(_good_batch().__arrow_c_array__()), id="tuple as stream"),
        pytest.param(lambda: pa.chunked_array([[1.0]]), id="stream of arrays"),
        pytest.param(_failing_reader, id="stream breaking down"),
        pytest.param(lambda: _Returns(None), id="None"),
        pytest.param(lambda: _Returns([*_good_batch().__arrow_c_array__()]), id="list"),
        pytest.param(lambda: _Returns((*_good_batch().__arrow_c_array__(), None)), id="3-tuple"),
        pytest.param(_not_callable, id="not callable"),
    ],
)
def test_a_producer_breaking_the_protocol_raises_invalid_input_error(make):
    model = _models()["forest"]
    with pytest.raises(InvalidInputError):
        model.model_.predict_arrow(make(), model._label_names())


def test_capsules_handed_over_twice_are_refused_the_second_time():
    """The first reader moves the struct out of the capsule; a producer handing the same capsule
    again gives a released struct, which must be refused, not read."""
    model = _models()["forest"]
    x = np.array([[0.25, 80.0, 3.0, 40.0], [0.75, 5.0, 60.0, 0.1]])
    batch = pa.record_batch({f"x{k}": x[:, k] for k in range(4)})
    for source in (_Returns(batch.__arrow_c_array__()), _Streams(pa.table(batch).__arrow_c_stream__())):
        first = _rank(model, source, None)
        np.testing.assert_array_equal(_positions(first), model.predict(x))
        with pytest.raises(InvalidInputError):
            _rank(model, source, None)


# ---------------------------------------------------------------------------------------------
# minimal examples of bugs found


# Polars exports a column of its Null dtype with one buffer (an unused validity pointer); pyarrow
# imports the null type with 0 or 1 buffers, and so must lrank.
def test_a_polars_null_column_is_a_missing_feature():
    model = _models()["forest"]
    frame = pl.DataFrame({"x0": [None, None], "x1": [10.0, 90.0], "x2": [50.0, 5.0], "x3": [1, 99]})
    assert frame.schema["x0"] == pl.Null
    expected = model.predict(np.array([[math.nan, 10.0, 50.0, 1.0], [math.nan, 90.0, 5.0, 99.0]]))
    # pyarrow's import of the same frame reads the null column: the data are fine.
    np.testing.assert_array_equal(_positions(_rank(model, pa.table(frame), None)), expected)
    np.testing.assert_array_equal(_positions(_rank(model, frame, None)), expected)


# The number of features is checked also when a batch has no rows: an engine sending an empty
# partition first must not hide a wrong width.
def test_a_zero_row_batch_of_the_wrong_width_is_refused():
    model = _models()["forest"]
    two = {"x0": pa.array([], pa.float64()), "x1": pa.array([], pa.float64())}
    with pytest.raises(InvalidInputError, match="features"):
        _rank(model, pa.record_batch({name: [0.5] for name in two}), None)  # one row: refused
    with pytest.raises(InvalidInputError, match="features"):
        _rank(model, pa.record_batch(two), None)
