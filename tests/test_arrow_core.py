"""Arrow data straight into the core (the PyCapsule protocol): every numeric column type, nulls,
slices, tables of many chunks and Polars frames read in place, rankings with ties written as
Arrow columns, and every malformed input refused with one line."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from arrow_c_structs import ArrowArray, ArrowSchema, new_capsule
from conftest import make_problem, make_tied_problem
from lrank import InvalidInputError, LabelRankingRandomForest, PartialLabelRankingTree
from lrank import arrow as lrank_arrow
from lrank.arrow import predict_batch
from lrank.ranking_notation import format_rank_rows

pa = pytest.importorskip("pyarrow")
pl = pytest.importorskip("polars")


@pytest.fixture(autouse=True)
def core_path_only(monkeypatch):
    """Every test here must take the core's way: the Polars way fails loudly."""

    def refuse(*args, **kwargs):
        raise AssertionError("predict_batch went through Polars")

    monkeypatch.setattr(lrank_arrow, "_predict_through_polars", refuse)


def _forest(n=300, d=5, seed=0, trees=8):
    x, y = make_problem(n=n, m=4, d=d, seed=seed)
    return LabelRankingRandomForest(n_estimators=trees, random_state=seed).fit(x, y), x


def _positions(batch, labels):
    return np.column_stack([batch.column(label).to_numpy() for label in labels])


def test_every_numeric_type_is_read_as_numpy_would_convert_it():
    rng = np.random.default_rng(1)
    n = 257  # not a multiple of 8: the last byte of a bitmap is partial
    columns = {
        "f64": pa.array(rng.normal(size=n)),
        "f32": pa.array(rng.normal(size=n).astype(np.float32)),
        "i64": pa.array(rng.integers(-50, 50, n)),
        "i32": pa.array(rng.integers(-50, 50, n).astype(np.int32)),
        "i16": pa.array(rng.integers(-50, 50, n).astype(np.int16)),
        "i8": pa.array(rng.integers(-50, 50, n).astype(np.int8)),
        "u64": pa.array(rng.integers(0, 90, n).astype(np.uint64)),
        "u32": pa.array(rng.integers(0, 90, n).astype(np.uint32)),
        "u16": pa.array(rng.integers(0, 90, n).astype(np.uint16)),
        "u8": pa.array(rng.integers(0, 90, n).astype(np.uint8)),
        "bool": pa.array(rng.random(n) < 0.5),
    }
    batch = pa.record_batch(columns)
    x = np.column_stack([c.to_numpy(zero_copy_only=False).astype(np.float64) for c in columns.values()])
    y = make_problem(n=n, m=3, d=2, seed=1)[1]
    model = LabelRankingRandomForest(n_estimators=6, random_state=0).fit(x, y)
    out = predict_batch(model, batch)
    np.testing.assert_array_equal(_positions(out, model._label_names()), model.predict(x))


def test_nulls_are_missing_values_and_slices_keep_their_offsets():
    model, x = _forest()
    names = [f"x{k}" for k in range(x.shape[1])]
    values = x.copy()
    values[[3, 10, 11, 200], 1] = np.nan
    values[:, 4][::7] = np.nan
    arrays = [pa.array(values[:, k], mask=np.isnan(values[:, k])) for k in range(x.shape[1])]
    batch = pa.RecordBatch.from_arrays(arrays, names=names)
    labels = model._label_names()
    whole = model.predict(values)
    np.testing.assert_array_equal(_positions(predict_batch(model, batch), labels), whole)
    # A slice shares the parent's buffers and starts at an offset.
    part = predict_batch(model, batch.slice(9, 150))
    np.testing.assert_array_equal(_positions(part, labels), whole[9:159])
    # A column that is all null (Arrow's null type) is a feature missing in every row.
    gone = batch.set_column(2, "x2", pa.nulls(batch.num_rows))
    np.testing.assert_array_equal(
        _positions(predict_batch(model, gone), labels), model.predict(np.where(np.arange(5) == 2, np.nan, values))
    )


def test_tables_of_many_chunks_polars_frames_and_empty_batches():
    model, x = _forest()
    table = pa.table({f"x{k}": x[:, k] for k in range(x.shape[1])})
    chunked = pa.concat_tables([table.slice(0, 100), table.slice(100, 1), table.slice(101)])
    assert chunked.column(0).num_chunks == 3
    expected = predict_batch(model, table)
    assert predict_batch(model, chunked).equals(expected)
    assert predict_batch(model, pl.from_arrow(table)).equals(expected)
    empty = predict_batch(model, table.slice(0, 0))
    assert empty.num_rows == 0 and empty.schema == expected.schema


def test_columns_are_found_by_name_and_features_chosen_by_the_caller():
    rng = np.random.default_rng(3)
    frame = pl.DataFrame({"b": rng.random(200), "a": rng.random(200), "noise": rng.random(200)})
    y = make_problem(n=200, m=3, d=2, seed=3)[1]
    model = LabelRankingRandomForest(n_estimators=5, random_state=0).fit(frame.select("a", "b"), y)
    out = predict_batch(model, frame.to_arrow())  # reordered, with an extra column
    np.testing.assert_array_equal(_positions(out, model._label_names()), model.predict(frame.select("a", "b")))
    unnamed = LabelRankingRandomForest(n_estimators=5, random_state=0).fit(frame.select("a", "b").to_numpy(), y)
    chosen = predict_batch(unnamed, frame.to_arrow(), feature_columns=["a", "b"])
    np.testing.assert_array_equal(
        _positions(chosen, unnamed._label_names()), unnamed.predict(frame.select("a", "b").to_numpy())
    )


def test_rankings_with_ties_are_written_as_the_python_notation_writes_them():
    x, y = make_tied_problem(n=200)
    tree = PartialLabelRankingTree(random_state=0).fit(x, y, labels=["a", "b=", "c c", "d"])
    out = predict_batch(tree, pa.table({f"f{k}": x[:, k] for k in range(3)}))
    pred = tree.predict(x)
    assert (pred[:, 1] == pred[:, 2]).any()  # ties to write
    assert out.column("ranking").to_pylist() == format_rank_rows(pred, tree._label_names())
    np.testing.assert_array_equal(_positions(out, tree._label_names()), pred)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (pa.record_batch({"x0": ["a", "b"]}), r"column \"x0\" is of Arrow type string \('u'\)"),
        (pa.record_batch({"x0": pa.array([1.0, 2.0], type=pa.float16())}), r"is of Arrow type float16 \('e'\)"),
        (pa.record_batch({"x0": pa.array(["a", "b"]).dictionary_encode()}), "dictionary-encoded"),
        (pa.record_batch({"y": [1.0, 2.0]}), r"column \"x0\" is not in the batch \(its columns: y\)"),
        (np.zeros((2, 5)), "expected Arrow data"),
        (
            pa.StructArray.from_arrays(
                [pa.array([1.0, 2.0])] * 5, names=[f"x{k}" for k in range(5)], mask=pa.array([False, True])
            ),
            "null rows",
        ),
        (pa.array([1.0, 2.0]), r"expected a record batch \(Arrow struct type '\+s'\), got type 'g'"),
    ],
)
def test_malformed_arrow_input_is_one_clear_error(data, message):
    model, _ = _forest()
    if isinstance(data, pa.RecordBatch) and "y" not in data.schema.names:
        data = pa.record_batch({**{f"x{k}": [0.5, 0.5] for k in range(1, 5)}, "x0": data.column(0)})
    with pytest.raises(InvalidInputError, match=message):
        model.model_.predict_arrow(data, model._label_names(), [f"x{k}" for k in range(5)])


def test_a_producer_that_breaks_the_protocol_is_refused():
    model, _ = _forest()

    class NotCapsules:
        def __arrow_c_array__(self, requested_schema=None):
            return ("schema", "array")

    class WrongCapsules:
        def __init__(self, batch):
            self.batch = batch

        def __arrow_c_array__(self, requested_schema=None):
            schema, array = self.batch.__arrow_c_array__()
            return array, schema  # swapped: names do not match

    batch = pa.record_batch({f"x{k}": [0.1, 0.2] for k in range(5)})
    for data in (NotCapsules(), WrongCapsules(batch)):
        with pytest.raises(InvalidInputError, match="Arrow"):
            model.model_.predict_arrow(data, model._label_names())
    with pytest.raises(InvalidInputError, match="2 label names given for a model of 4 labels"):
        model.model_.predict_arrow(batch, ["a", "b"])


def test_the_output_is_a_capsule_batch_any_arrow_library_reads_more_than_once():
    model, x = _forest()
    table = pa.table({f"x{k}": x[:, k] for k in range(x.shape[1])})
    out = model.model_.predict_arrow(table, model._label_names())
    assert len(out) == out.num_rows == x.shape[0]
    assert out.column_names == ["ranking", *model._label_names()]
    first, second = pa.record_batch(out), pa.record_batch(out)
    assert first.equals(second)
    assert pl.DataFrame(out).equals(pl.from_arrow(first))
    del out  # the imported batches keep the shared columns alive
    assert first.column("ranking").to_pylist() == second.column("ranking").to_pylist()


def test_predicting_a_batch_releases_the_gil():
    """A large batch ranks on one thread while this thread keeps running Python code."""
    model, _ = _forest(n=400, d=5, trees=60)
    rng = np.random.default_rng(0)
    table = pa.table({f"x{k}": rng.random(600_000) for k in range(5)})
    ticks, start = 0, time.perf_counter()
    while time.perf_counter() - start < 0.2:
        ticks += 1
    rate = ticks / 0.2
    done, span = threading.Event(), []

    def rank() -> None:
        t0 = time.perf_counter()
        model.model_.predict_arrow(table, model._label_names(), n_jobs=1)
        span.append(time.perf_counter() - t0)
        done.set()

    worker = threading.Thread(target=rank)
    worker.start()
    ticks = 0
    while not done.is_set():
        ticks += 1
        time.perf_counter()
    worker.join()
    assert span[0] > 0.3, "the prediction must be long enough to measure"
    assert ticks > 0.2 * rate * span[0], (ticks, rate, span)


def test_categorical_models_and_python_learners_still_go_through_polars(monkeypatch):
    monkeypatch.undo()  # this test wants the Polars way
    frame = pl.DataFrame({"colour": ["red", "blue", "red", "green"] * 30, "size": np.arange(120) / 120.0})
    y = make_problem(n=120, m=3, d=2, seed=5)[1]
    model = LabelRankingRandomForest(n_estimators=4, random_state=0).fit(
        frame.with_columns(pl.col("colour").cast(pl.Categorical)), y
    )
    assert not lrank_arrow._ranks_in_core(model)
    out = predict_batch(model, frame.with_columns(pl.col("colour").cast(pl.Categorical)).to_arrow())
    assert out.num_rows == 120 and out.schema.names[0] == "ranking"


def test_the_core_batch_equals_what_the_polars_way_returns(monkeypatch):
    monkeypatch.undo()
    model, x = _forest()
    table = pa.table({f"x{k}": x[:, k] for k in range(x.shape[1])})
    assert lrank_arrow._ranks_in_core(model)
    assert predict_batch(model, table).equals(lrank_arrow._predict_through_polars(model, table, None))


class _HandMadeBatch:
    """A producer whose C structs say what the test wants (ctypes), to check that the core
    refuses lying or oversized batches before reading or allocating anything."""

    def __init__(self, length, n_columns=5, *, array_children=None, offset=0):
        import ctypes as c

        Schema, Array = ArrowSchema, ArrowArray
        release_type = c.CFUNCTYPE(None, c.c_void_p)
        self._release = release_type(lambda _: None)  # nothing to free: Python owns it all
        release = c.cast(self._release, c.c_void_p)
        self._data = (c.c_double * 4)(1.0, 2.0, 3.0, 4.0)
        self._buffers = (c.c_void_p * 2)(None, c.cast(self._data, c.c_void_p))
        names = [f"x{k}".encode() for k in range(n_columns)]
        self._fields = [Schema(b"g", name, None, 2, 0, None, None, release, None) for name in names]
        self._field_ptrs = (c.POINTER(Schema) * n_columns)(*[c.pointer(f) for f in self._fields])
        self._schema = Schema(b"+s", b"", None, 0, n_columns, self._field_ptrs, None, release, None)
        kids = n_columns if array_children is None else array_children
        self._columns = [Array(length, 0, 0, 2, 0, self._buffers, None, None, release, None) for _ in range(kids)]
        self._column_ptrs = (c.POINTER(Array) * max(kids, 1))(*[c.pointer(a) for a in self._columns])
        self._array = Array(length, 0, offset, 1, kids, (c.c_void_p * 1)(None), self._column_ptrs, None, release, None)
        self._capsules = (
            new_capsule(c.addressof(self._schema), b"arrow_schema", None),
            new_capsule(c.addressof(self._array), b"arrow_array", None),
        )

    def __arrow_c_array__(self, requested_schema=None):
        return self._capsules


def test_hand_made_producers_are_read_and_lies_refused():
    model, _ = _forest()
    labels = model._label_names()
    honest = pa.record_batch(model.model_.predict_arrow(_HandMadeBatch(4), labels))
    np.testing.assert_array_equal(_positions(honest, labels), model.predict(np.tile([[1.0], [2.0], [3.0], [4.0]], 5)))
    with pytest.raises(InvalidInputError, match="would need .* of memory"):
        model.model_.predict_arrow(_HandMadeBatch(2**40), labels)
    with pytest.raises(InvalidInputError, match="more memory than any machine has"):
        model.model_.predict_arrow(_HandMadeBatch(2**62), labels)
    with pytest.raises(InvalidInputError, match="negative length"):
        model.model_.predict_arrow(_HandMadeBatch(-3), labels)
    with pytest.raises(InvalidInputError, match="the batch has 3 columns but its schema 5"):
        model.model_.predict_arrow(_HandMadeBatch(4, array_children=3), labels)
    with pytest.raises(InvalidInputError, match='column "x0" is shorter than the batch'):
        model.model_.predict_arrow(_HandMadeBatch(4, offset=2), labels)
