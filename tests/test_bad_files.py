"""Bad data files and experiment stores (issue 27): each failure the fuzzing found is a one-line
lrank error naming the file (and line, where there is one), never a traceback, an abort or memory
beyond the input's size."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from lrank import parquet_io
from lrank.cli import main
from lrank.data import dataset_from_arrays, read_dataset, write_parquet, write_xarff
from lrank.data.kebi_csv import read_kebi_csv
from lrank.errors import DataFormatError, ExperimentError, InvalidInputError
from lrank.evaluation import Evaluation
from lrank.experiment.store import ResultStore

ROOT = Path(__file__).resolve().parents[1]
DAMAGED = ROOT / "tests" / "fixtures" / "damaged"
IRIS = ROOT / "datasets" / "iris.xarff"


# -- item 5: Parquet files that made Polars panic or abort --------------------------------------


@pytest.mark.parametrize("name", ["data_aborts.parquet", "data_panics.parquet"])
def test_damaged_parquet_data_files_are_an_error_naming_the_file(name):
    # Read in a child: before the fix, data_aborts.parquet killed the process that read it.
    code = (
        "import sys\nfrom lrank.data import read_dataset\nfrom lrank.errors import DataFormatError\n"
        f"try:\n    read_dataset({str(DAMAGED / name)!r})\nexcept DataFormatError as e:\n    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    message = done.stdout.strip()
    assert message.startswith(f"{DAMAGED / name}: not a readable Parquet file: "), message
    assert "\n" not in message
    assert done.stderr == ""  # no panic message from Polars either


def test_a_damaged_store_is_an_experiment_error_naming_it():
    with pytest.raises(ExperimentError, match=r"store_panics\.parquet: not a readable Parquet file: "):
        ResultStore(DAMAGED / "store_panics.parquet").read()
    result = CliRunner().invoke(main, ["experiment", "report", str(DAMAGED / "store_panics.parquet")])
    assert (result.exit_code == 1 and result.exception is None) or isinstance(result.exception, SystemExit)
    assert "store_panics.parquet: not a readable Parquet file" in result.output


def test_a_panic_in_polars_is_caught_even_for_a_checksummed_file(tmp_path, monkeypatch):
    path = tmp_path / "iris.parquet"
    write_parquet(read_dataset(IRIS), path)

    def panics(*args, **kwargs):
        raise pl.exceptions.PanicException("assertion failed: offset + length <= self.length")

    monkeypatch.setattr(pl, "read_parquet", panics)
    with pytest.raises(DataFormatError, match=r"iris\.parquet: not a readable Parquet file \(PanicException: "):
        read_dataset(path)


def test_a_child_that_crashes_or_hangs_is_reported(monkeypatch):
    data = b"PAR1" + b"\0" * 8 + b"PAR1"
    monkeypatch.setattr(parquet_io, "_CHILD", "import os; os.abort()")
    assert parquet_io._decodes_in_a_child(data) == "Polars crashed decoding it (SIGABRT)"
    monkeypatch.setattr(parquet_io, "_CHILD", "import sys; print('ComputeError: bad page'); sys.exit(1)")
    assert parquet_io._decodes_in_a_child(data) == "ComputeError: bad page"


def _store(tmp_path: Path) -> Path:
    store = tmp_path / "store.parquet"
    result = CliRunner().invoke(
        main, ["experiment", "run", str(IRIS), "-W", "Dummy", "-x", "2", "--repeats", "1", "-o", str(store)]
    )
    assert result.exit_code == 0, result.output
    return store


def test_every_single_bit_flip_of_a_store_is_detected(tmp_path):
    # Before the checksum 12% of single bit flips changed stored values without any error.
    data = _store(tmp_path).read_bytes()
    assert parquet_io._checksum_state(data) == "valid"
    changed = bytearray(data)
    for at in range(len(data)):
        changed[at] ^= 1 << (at % 8)
        state = parquet_io._checksum_state(bytes(changed))
        changed[at] ^= 1 << (at % 8)
        # A flip inside the entry's key makes the checksum unfindable: the file is then read as
        # one without it, decoded in a child first (and its values are unchanged anyway).
        assert state != "valid", at
    assert parquet_io._checksum_state(bytes(changed)) == "valid"


def test_a_changed_store_is_refused_and_an_intact_one_reads(tmp_path):
    store = _store(tmp_path)
    assert ResultStore(store).read().height == 2
    data = bytearray(store.read_bytes())
    data[len(data) // 3] ^= 0x10
    store.write_bytes(data)
    with pytest.raises(
        ExperimentError, match=r"store\.parquet: the file is damaged or was changed after lrank wrote it"
    ):
        ResultStore(store).read()


def test_stores_and_data_files_without_a_checksum_still_read(tmp_path):
    # Written as an older lrank (or another writer) did: decoded in a child process first.
    path = tmp_path / "old.parquet"
    frame, metadata = parquet_io.read_verified(_store(tmp_path), AssertionError)
    frame.write_parquet(path)
    assert ResultStore(path).read().height == 2
    assert hashlib.sha256(path.read_bytes()).hexdigest() not in path.read_bytes().decode("latin-1")
    data = tmp_path / "old_data.parquet"
    frame, metadata = parquet_io.read_verified(_converted(tmp_path), AssertionError)
    frame.write_parquet(data, metadata={"lrank": metadata["lrank"]})
    assert read_dataset(data).n_rows == 150


def _converted(tmp_path: Path) -> Path:
    path = tmp_path / "iris.parquet"
    write_parquet(read_dataset(IRIS), path)
    return path


# -- item 7: a KEBI CSV line with a double quote and a bare CR ----------------------------------


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ('A1,L1,L2\n"1",1\r,2\n', 2, "a carriage return (CR) inside a line"),
        ('"A1",L1\r,L2\n1,1,2\n', 1, "a carriage return (CR) inside a line"),
        ("A1,L1,L2\n1\r,1,2\n", 2, "a carriage return (CR) inside a line"),
        ('A1,L1,L2\n"' + "x" * 200_000 + '",1,2\n', 2, "malformed CSV quoting"),
        # An unclosed quote read as one value: "wrong number of values" (an interop audit).
        ('A1,L1,L2\n0.5,1,2\n"1,2,1\n', 3, "malformed CSV quoting (a quoted value is not closed on its line)"),
        ('A1,L1,L2\n0.5,"1" ,2\n', None, ""),  # a blank after a closing quote reads (the diff review)
    ],
)
def test_csv_quoting_and_carriage_returns_give_the_line(tmp_path, text, line, problem):
    path = tmp_path / "q.csv"
    path.write_bytes(text.encode())
    if line is None:
        assert read_kebi_csv(path).rankings.tolist() == [[1, 2]]
        return
    with pytest.raises(DataFormatError) as err:
        read_kebi_csv(path)
    assert (err.value.line, err.value.problem.startswith(problem)) == (line, True), str(err.value)


def test_a_header_of_100000_columns_with_a_late_duplicate_is_quick(tmp_path):
    # The duplicate search counted every name in the whole header: minutes for 100,000 names.
    names = [f"A{i}" for i in range(100_000)] + ["A99999", "L1"]
    path = tmp_path / "wide.csv"
    path.write_text(",".join(names) + "\n")
    with pytest.raises(DataFormatError, match="column 'A99999' appears twice"):
        read_kebi_csv(path)
    arff = tmp_path / "wide.xarff"
    values = ",".join(f"v{i}" for i in range(100_000))
    arff.write_text(f"@relation r\n@attribute a {{{values},v99999}}\n@attribute L RANKING {{x,y}}\n@data\n")
    with pytest.raises(DataFormatError, match="declares value 'v99999' twice"):
        read_dataset(arff)


# -- item 8: a CSV feature column named L; writers refuse what readers refuse -------------------


def test_a_csv_feature_named_l_converts_to_files_that_read_back(tmp_path):
    csv = tmp_path / "l.csv"
    csv.write_text("L,L1,L2\n1,1,2\n2,2,1\n")
    for suffix in ("xarff", "parquet"):
        out = tmp_path / f"l.{suffix}"
        result = CliRunner().invoke(main, ["convert", str(csv), str(out)])
        assert result.exit_code == 0, result.output
        back = read_dataset(out)
        assert [a.name for a in back.attributes] == ["L"] and back.ranking_name != "L"
        np.testing.assert_array_equal(back.rankings, read_kebi_csv(csv).rankings)


@pytest.mark.parametrize("weight", [np.nan, np.inf, -1.0])
@pytest.mark.parametrize("writer", [write_xarff, write_parquet])
def test_writers_refuse_weights_their_readers_refuse(tmp_path, writer, weight):
    ds = dataset_from_arrays(np.zeros((2, 1)), np.array([[1, 2], [2, 1]]))
    ds.weights = np.array([1.0, weight])
    with pytest.raises(InvalidInputError, match="row 2 has weight .*: weights must be finite and non-negative"):
        writer(ds, tmp_path / "w.out")


@pytest.mark.parametrize("writer", [write_xarff, write_parquet])
def test_writers_refuse_infinite_features_and_a_clashing_ranking_name(tmp_path, writer):
    ds = dataset_from_arrays(np.zeros((2, 1)), np.array([[1, 2], [2, 1]]))
    ds.features = pl.DataFrame({"A1": [0.0, float("inf")]})
    with pytest.raises(InvalidInputError, match="attribute 'A1' holds an infinite value in row 2"):
        writer(ds, tmp_path / "w.out")
    ds = dataset_from_arrays(np.zeros((2, 1)), np.array([[1, 2], [2, 1]]))
    ds.ranking_name = "A1"
    with pytest.raises(InvalidInputError, match="ranking name 'A1' clashes with a feature name"):
        writer(ds, tmp_path / "w.out")
    with pytest.raises(InvalidInputError, match="X holds an infinite value in row 0, column 0"):
        dataset_from_arrays(np.array([[np.inf]]), np.array([[1]]))


# -- item 9: infinite feature values are refused where file and line are known -----------------


def test_infinite_features_are_refused_with_file_and_line(tmp_path):
    csv = tmp_path / "i.csv"
    csv.write_text("A,L1,L2\n1,1,2\n-inf,2,1\n")
    with pytest.raises(DataFormatError, match=r"i\.csv:3: infinite value '-inf' in feature column 'A'"):
        read_dataset(csv)
    arff = tmp_path / "i.xarff"
    arff.write_text("@relation r\n@attribute a numeric\n@attribute L RANKING {x,y}\n@data\n1,x>y\n1e999,y>x\n")
    result = CliRunner().invoke(main, ["train", "-t", str(arff), "-x", "2"])
    assert result.exit_code == 1
    assert result.output == f"Error: {arff}:6: infinite value '1e999' for numeric attribute 'a'\n"
    # Parquet: a file of lrank's layout from another writer (the row is named, there are no lines).
    ds = dataset_from_arrays(np.zeros((2, 1)), np.array([[1, 2], [2, 1]]))
    path = tmp_path / "i.parquet"
    write_parquet(ds, path)
    frame, metadata = parquet_io.read_verified(path, AssertionError)
    parquet_io.write_checksummed(
        frame.with_columns(pl.Series("A1", [0.0, -np.inf])), path, {"lrank": metadata["lrank"]}
    )
    with pytest.raises(DataFormatError, match=r"i\.parquet: row 2: infinite value in column 'A1'"):
        read_dataset(path)


# -- item 4: many labels, memory in proportion to the input -------------------------------------


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak from /proc (Linux)")
def test_many_labels_leave_the_pairwise_table_out_and_memory_stays_small(tmp_path):
    m = 10_000  # a 59 KB file; the m x m tables took more than 4 GB
    labels = ",".join(f"l{i}" for i in range(m))
    rows = "\n".join(f"{i}.0," + ">".join(f"l{(7 * j + i) % m}" for j in range(3)) for i in range(4))
    path = tmp_path / "many.xarff"
    path.write_text(f"@relation many\n@attribute a numeric\n@attribute L RANKING {{{labels}}}\n@data\n{rows}\n")
    # The child reports its own peak (VmHWM: its address space's high-water mark). Neither
    # RUSAGE_CHILDREN (it also counts other children reaped meanwhile, e.g. a Dask test's
    # workers) nor the child's ru_maxrss (Linux keeps it across exec: the forked copy of this
    # large pytest process) measure the child alone.
    code = (
        "import runpy, sys\n"
        "sys.argv = ['lrank', 'train', '-t', sys.argv[1], '-x', '2', '-W', 'Dummy']\n"
        "try:\n    runpy.run_module('lrank', run_name='__main__')\n"
        "except SystemExit as exc:\n    status = exc.code\n"
        "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1]\n"
        "print(f'peak_kb={hwm}', file=sys.stderr)\n"
        "sys.exit(status)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "(left out: 10000 labels: the table is kept for at most 100)" in done.stdout
    assert "... and 9980 more" in done.stdout
    assert len(done.stdout) < 20_000
    peak_kb = int(done.stderr.rsplit("peak_kb=", 1)[1])
    assert peak_kb < 400_000, peak_kb  # a Python with numpy and polars: ~100 MB


def test_the_evaluation_keeps_the_table_up_to_its_limit():
    for m, has_table in ((100, True), (101, False)):
        y = np.tile(np.arange(1, m + 1, dtype=np.int32), (2, 1))
        ev = Evaluation("e", [f"l{j}" for j in range(m)])
        ev.add(y, y)
        pairwise = ev.to_dict()["pairwise"]
        assert ("correct" in pairwise) == has_table and ("omitted" in pairwise) != has_table


# -- found by the fuzz campaign ------------------------------------------------------------------


def _edited_store(tmp_path: Path, edit) -> Path:
    frame, _ = parquet_io.read_verified(_store(tmp_path), AssertionError)
    path = tmp_path / "edited.parquet"
    parquet_io.write_checksummed(edit(frame), path, {"lrank": "experiment store"})
    return path


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda f: f.with_columns(pl.lit(None).alias("missing")), "column 'missing' has no value in row 1"),
        (lambda f: f.with_columns(pl.lit(float("inf")).alias("n_labels")), "column 'n_labels' (Float64) cannot be"),
        (lambda f: f.with_columns(pl.lit([[None]]).alias("seed")), "column 'seed' (List(List(Null))) cannot be"),
        (lambda f: f.with_columns(pl.lit(7).alias("fold")), "row 1 has fold = 7, which no run writes"),
        (lambda f: f.with_columns(pl.lit(1.5).alias("missing")), "row 1 has missing = 1.5"),
        (lambda f: f.head(0), "the store holds no results yet"),
    ],
)
def test_stores_with_values_no_run_writes_are_refused_in_one_line(tmp_path, edit, problem):
    path = _edited_store(tmp_path, edit)
    for command in (["report", str(path)], ["plot", "missing", str(path), "-o", str(tmp_path / "p.svg")]):
        result = CliRunner().invoke(main, ["experiment", *command])
        assert result.exit_code == 1, result.output
        assert result.output.startswith(f"Error: {path}: ") and problem in result.output, result.output
        assert result.output.count("\n") == 1


def test_a_parquet_data_set_without_rows_is_refused_like_the_text_formats(tmp_path):
    ds = read_dataset(_converted(tmp_path))
    frame, metadata = parquet_io.read_verified(tmp_path / "iris.parquet", AssertionError)
    path = tmp_path / "empty.parquet"
    parquet_io.write_checksummed(frame.head(0), path, {"lrank": metadata["lrank"]})
    with pytest.raises(DataFormatError, match=r"empty\.parquet: no rows"):
        read_dataset(path)
    ds.weights = ds.weights[:0]
    with pytest.raises(InvalidInputError, match="without rows"):
        write_parquet(ds, tmp_path / "none.parquet")


def test_metadata_and_configs_nested_too_deep_are_refused(tmp_path):
    frame, _ = parquet_io.read_verified(_converted(tmp_path), AssertionError)
    path = tmp_path / "deep.parquet"
    parquet_io.write_checksummed(frame, path, {"lrank": "[" * 100_000 + "]" * 100_000})
    with pytest.raises(DataFormatError, match=r"deep\.parquet: the lrank metadata is not valid JSON"):
        read_dataset(path)
    config = tmp_path / "deep.toml"
    config.write_text("datasets = " + "[" * 100_000 + "]" * 100_000 + "\n")
    result = CliRunner().invoke(main, ["experiment", "run", "--config", str(config)])
    assert result.output == f"Error: {config}: not valid TOML: values nested too deep\n"
    config.write_bytes(b"datasets = '\xff'\n")
    result = CliRunner().invoke(main, ["experiment", "run", "--config", str(config)])
    assert result.output.startswith(f"Error: {config}: not valid TOML: ") and result.output.count("\n") == 1


def test_a_rank_matrix_beyond_the_memory_limit_is_refused_by_name(tmp_path):
    # 100,000 labels declared and 8,000 rows that each name one: an 830 KB file, a 3.2 GB matrix.
    m, n = 100_000, 8_000
    path = tmp_path / "sparse.xarff"
    labels = ",".join(f"l{i}" for i in range(m))
    path.write_text(f"@relation r\n@attribute a numeric\n@attribute L RANKING {{{labels}}}\n@data\n" + "1,l1\n" * n)
    code = (
        "import resource, sys\nresource.setrlimit(resource.RLIMIT_AS, (2_500_000_000, 2_500_000_000))\n"
        "from lrank.data import read_dataset\nfrom lrank.errors import DataFormatError\n"
        "try:\n    read_dataset(sys.argv[1])\nexcept DataFormatError as e:\n    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{path}:5: the rank matrix (8000 x 100000 values) would need 3.2 GB"), done.stdout


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda meta: meta.update(labels=["setosa", "setosa", "virginica"]), "a label is named twice"),
        (lambda meta: meta.update(labels=[1, 2, 3]), "labels and the relation must be names"),
        (lambda meta: meta["attributes"][0].update(kind="nominal", values=[5e-324]), "declared values must be"),
        (lambda meta: meta["attributes"][0].update(name=7), "an attribute name must be a string"),
    ],
)
def test_parquet_metadata_that_disagrees_with_itself_names_the_file(tmp_path, edit, problem):
    # Found by the fuzz campaign: these gave an error without the file's name, or a TypeError.
    import json

    frame, metadata = parquet_io.read_verified(_converted(tmp_path), AssertionError)
    meta = json.loads(metadata["lrank"])
    edit(meta)
    path = tmp_path / "edited.parquet"
    parquet_io.write_checksummed(frame, path, {"lrank": json.dumps(meta)})
    with pytest.raises(
        DataFormatError, match=rf"edited\.parquet: the lrank metadata is incomplete or malformed: .*{problem}"
    ):
        read_dataset(path)


def test_a_parquet_weight_column_of_another_type_names_the_file(tmp_path):
    import json

    ds = read_dataset(IRIS)
    ds.weights = np.full(ds.n_rows, 0.5)
    path = tmp_path / "w.parquet"
    write_parquet(ds, path)
    frame, metadata = parquet_io.read_verified(path, AssertionError)
    weight = json.loads(metadata["lrank"])["weight_column"]
    edited = frame.with_columns(pl.lit([["a"]]).alias(weight))
    parquet_io.write_checksummed(edited, path, {"lrank": metadata["lrank"]})
    with pytest.raises(DataFormatError, match=rf"w\.parquet: weight column '{weight}' has type List"):
        read_dataset(path)


@pytest.mark.parametrize("chunk", [7, 1 << 20])
def test_slices_of_a_parquet_file_are_read_only_from_an_intact_file(tmp_path, monkeypatch, chunk):
    # `lrank predict -T big.parquet` reads slices: the file is verified once, in chunks (the
    # checksum's digits may straddle two), and a changed file is refused before any slice.
    from lrank.data.parquet import read_parquet

    monkeypatch.setattr(parquet_io, "_CHUNK", chunk)
    parquet_io._VERIFIED.clear()
    path = _converted(tmp_path)
    whole = read_dataset(path)
    part = read_parquet(path, rows=(140, 50))
    np.testing.assert_array_equal(part.features, whole.features[140:])
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0x10
    path.write_bytes(bytes(data))
    with pytest.raises(DataFormatError, match=r"\.parquet: the file is damaged or was changed"):
        read_parquet(path, rows=(0, 50))


def test_slices_of_a_parquet_file_without_checksum_are_decoded_in_a_child_first(tmp_path):
    from lrank.data.parquet import read_parquet

    frame, metadata = parquet_io.read_verified(_converted(tmp_path), AssertionError)
    plain = tmp_path / "plain.parquet"
    frame.write_parquet(plain, metadata={k: v for k, v in metadata.items() if k != parquet_io.CHECKSUM_KEY})
    assert read_parquet(plain, rows=(0, 10)).n_rows == 10
    data = plain.read_bytes()
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(data[:40] + b"\0" * 200 + data[240:])
    with pytest.raises(DataFormatError, match=r"cut\.parquet: not a readable Parquet file"):
        read_parquet(cut, rows=(0, 10))


def test_a_huge_bad_cell_is_quoted_in_part(tmp_path):
    """The line names the file, line and problem, and stays short: the middle of a 1 MB cell is
    left out, its two ends kept."""
    from lrank.data import read_dataset
    from lrank.errors import DataFormatError

    path = tmp_path / "long.csv"
    path.write_text("A1,L1,L2\n" + "7" * 1_000_000 + "x,1,2\n")
    with pytest.raises(DataFormatError) as err:
        read_dataset(path)
    message = str(err.value)
    assert message.startswith(f"{path}:2: non-numeric value '777") and message.endswith("7x' in feature column 'A1'")
    assert len(message) < 500 and "characters ...]" in message


@pytest.mark.parametrize("suffix", [".xarff", ".csv"])
@pytest.mark.parametrize(
    ("encode", "line", "problem"),
    [
        (lambda t: t.encode("utf-16"), 1, "file is UTF-16 text: save it as UTF-8"),  # with its BOM
        (lambda t: t.encode("utf-16-le"), 1, "file is UTF-16 text"),  # without: NULs reached the terminal
        (lambda t: t.replace("\n", "\r").encode(), 1, "lines end in a carriage return (CR) alone"),  # classic Mac
    ],
)
def test_utf16_and_cr_line_ends_are_named_as_such(tmp_path, suffix, encode, line, problem):
    """An interop audit: UTF-16 files read as 'unknown header keyword' with NUL bytes printed, or
    as a CR problem; CR-only XARFF as 'unexpected text after the relation name'."""
    text = {
        ".xarff": "@relation r\n@attribute A1 numeric\n@attribute L RANKING {a,b}\n@data\n",
        ".csv": "A1,L1,L2\n0.5,1,2\n0.25,2,1\n",
    }[suffix]
    path = tmp_path / f"data{suffix}"
    path.write_bytes(encode(text))
    with pytest.raises(DataFormatError) as info:
        read_dataset(path)
    assert info.value.line == line
    assert problem in str(info.value) and "\x00" not in str(info.value)


def test_attributes_that_do_not_match_the_training_data_are_told_by_the_first_difference():
    """The message listed both attribute lists, cut to 300 characters, and on segment the one
    difference (a1 for A1) fell in the cut (an interop audit)."""
    from lrank.data.alignment import aligned_features

    x = np.zeros((2, 18))
    train = dataset_from_arrays(x, np.array([[1, 2]] * 2)).attributes
    renamed = dataset_from_arrays(x, None, feature_names=["a1"] + [f"A{i}" for i in range(2, 19)])
    fewer = dataset_from_arrays(x[:, :17], None)
    more = dataset_from_arrays(np.zeros((2, 19)), None)
    cases = [
        (renamed, "the file has a1 (numeric) where the training data has A1 (numeric)"),
        (
            fewer,
            "the training data's A18 (numeric) is missing (17 attributes against the training data's 18)",
        ),
        (
            more,
            "the file's A19 (numeric) is not in the training data (19 attributes against the training data's 18)",
        ),
    ]
    for data, problem in cases:
        with pytest.raises(DataFormatError) as info:
            aligned_features(train, data)
        assert str(info.value).endswith(f"attributes do not match the training data: {problem}")


@pytest.mark.parametrize(("length", "cut"), [(300, False), (320, False), (400, True)])
def test_a_long_problem_is_cut_only_where_that_shortens_it(length, cut):
    problem = "x" * length
    message = DataFormatError("f.csv", 1, problem).problem
    assert ("characters ...]" in message) == cut and len(message) <= length
