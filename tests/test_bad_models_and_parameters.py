"""Forged model files and absurd parameters (issue 27): a one-line lrank error naming the file or
the parameter, never a traceback, an abort or a silent misreading."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from lrank import (
    AdaBoostLabelRanker,
    BaggingLabelRanker,
    InvalidParameterError,
    LabelRankingRandomForest,
    LabelwisePartialLabelRanker,
    LabelwiseRandomForest,
    OneVsOneLabelRanker,
    PairwisePartialLabelRanker,
    PartialLabelRankingForest,
    RankingByPairwiseComparison,
    _core,
)
from lrank.aggregation import bpa, pair_order_matrix, plackett_luce, tied_borda, tied_copeland
from lrank.cli import main
from lrank.errors import InvalidInputError, ModelFormatError
from lrank.model_file import load_model
from lrank.rankings import as_rank_matrix

ROOT = Path(__file__).resolve().parents[1]
IRIS = ROOT / "datasets" / "iris.xarff"


# -- item 3: counts checked before anything is allocated ----------------------------------------

HUGE = [
    LabelRankingRandomForest(n_estimators=10**12),
    LabelwiseRandomForest(n_estimators=10**12),
    OneVsOneLabelRanker(classifier="forest", n_estimators=10**12),
    BaggingLabelRanker(n_estimators=10**12),
    PartialLabelRankingForest(n_estimators=2**63 - 1),
    PairwisePartialLabelRanker(n_estimators=10**12),
    LabelwisePartialLabelRanker(n_estimators=10**12),
    AdaBoostLabelRanker(n_estimators=10**12),
    # Nested counts multiply: 1000 members of 2000 trees each.
    BaggingLabelRanker(LabelRankingRandomForest(n_estimators=2000), n_estimators=1000),
    BaggingLabelRanker(PartialLabelRankingForest(n_estimators=2000), n_estimators=1000),
    AdaBoostLabelRanker(LabelRankingRandomForest(n_estimators=2000), n_estimators=1000),
]


@pytest.mark.parametrize("est", HUGE, ids=lambda e: type(e).__name__)
def test_huge_counts_are_refused_not_an_aborting_allocation(problem, est):
    x, y = problem
    with pytest.raises(InvalidParameterError, match=r"invalid parameter n_estimators: .*at most 1000000 are allowed"):
        est.fit(x, y)


def test_label_pairs_by_the_thousand_are_refused_before_the_fit():
    # A 10-row file may declare hundreds of labels; the pairwise learners' models grow with the
    # square of them (PLRPW's 100 trees for each of 500 labels' 124,750 pairs aborted the process).
    rng = np.random.default_rng(0)
    x = rng.random((10, 2))
    for m, est in [
        (500, PairwisePartialLabelRanker()),
        (1500, OneVsOneLabelRanker()),
        (1500, RankingByPairwiseComparison()),
    ]:
        y = np.argsort(rng.random((10, m)), axis=1).astype(np.int32) + 1
        refusal = rf"{m} labels make \d+ label pairs, .* more than the 1000000 allowed"
        with pytest.raises(InvalidInputError, match=refusal):
            est.fit(x, y)


def test_pair_order_tables_beyond_memory_are_refused():
    one = np.arange(1, 200_001, dtype=np.int32)[None, :]
    for consensus in (pair_order_matrix, bpa, tied_borda, tied_copeland):
        refusal = r"the pair-order tables of the labels \(\d x 200000 x 200000 values\)"
        with pytest.raises(InvalidInputError, match=refusal):
            consensus(one)


def test_huge_iteration_caps_are_refused(problem):
    x, y = problem
    with pytest.raises(InvalidParameterError, match=r"invalid parameter max_iter: must be at most 100000"):
        RankingByPairwiseComparison(max_iter=2**62).fit(x, y)
    with pytest.raises(InvalidParameterError, match="max_iter"):
        plackett_luce(y, max_iter=2**62, tol=0.0)


def test_the_command_line_reports_a_huge_tree_count_in_one_line():
    # In a child process: before the fix this aborted the process that ran it.
    done = subprocess.run(
        [sys.executable, "-m", "lrank", "train", "-t", str(IRIS), "-W", "LRRF", "--", "-I", "1000000000000"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("Error: LRRF: bad value for -I: asks for 1000000000000 trees")
    assert done.stderr.count("\n") == 1


# -- item 9: positions beyond int32 --------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.float64])
def test_positions_beyond_int32_are_refused_not_wrapped(dtype):
    # 2**32 + 2 wrapped to the valid position 2.
    y = np.array([[1, 2**32 + 2]], dtype=dtype)
    with pytest.raises(InvalidInputError, match=r"row 0 of Y is not a ranking: label 1 has position 4294967298"):
        as_rank_matrix(y)
    assert as_rank_matrix(np.array([[2, 1]], dtype=dtype)).tolist() == [[2, 1]]


# -- item 6: model metadata checked against the model --------------------------------------------


@pytest.fixture(scope="module")
def model_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("models") / "iris.json"
    result = CliRunner().invoke(
        main, ["train", "-t", str(IRIS), "-W", "LRRF", "--no-cv", "-d", str(path), "-j", "2", "--", "-I", "3"]
    )
    assert result.exit_code == 0, result.output
    return path


def _edited(model_file: Path, tmp_path: Path, edit) -> Path:
    doc = json.loads(model_file.read_text())
    edit(doc["metadata"])
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))
    return path


EDITS = {
    "label names that are numbers": (lambda m: m.update(labels=[1, 2, 3]), "the labels must be a list of names"),
    "a list in place of a mapping": (lambda m: m.update(params=[1, 2]), "the parameters of LRRF must be a mapping"),
    "fewer names than labels": (lambda m: m["labels"].pop(), "2 label names for a model of 3 labels"),
    "a label named twice": (lambda m: m["labels"].__setitem__(1, m["labels"][0]), "is named twice"),
    "attributes of other features": (lambda m: m["attributes"].pop(), "the attributes give 3 features"),
    "an attribute that is a list": (lambda m: m["attributes"].__setitem__(0, []), "an attribute must be a mapping"),
    "an unknown attribute kind": (lambda m: m["attributes"][0].update(kind="date"), "unknown kind 'date'"),
    "another learner": (lambda m: m.update(learner="IBLR", params={}), "IBLR does not make RandomForest models"),
    "an unknown learner": (lambda m: m.update(learner="NOPE"), "unknown learner"),
    "an unknown parameter": (lambda m: m["params"].update(bogus=1), "LRRF has no parameters bogus"),
    "other parameters": (lambda m: m["params"].update(n_estimators=50), "not those the model was fitted with"),
    "a bad parameter": (lambda m: m["params"].update(n_estimators="many"), "the parameters of LRRF are invalid"),
    "no metadata": (lambda m: m.clear(), "no learner, params, labels, attributes"),
    "options that are no strings": (lambda m: m.update(learner_options=[1]), "learner options must be a list"),
}


@pytest.mark.parametrize("case", sorted(EDITS))
def test_edited_metadata_is_refused_naming_the_file(model_file, tmp_path, case):
    edit, problem = EDITS[case]
    path = _edited(model_file, tmp_path, edit)
    with pytest.raises(ModelFormatError) as err:
        load_model(path)
    message = str(err.value)
    assert message.startswith(f"{path}: model metadata: ") and problem in message, message
    result = CliRunner().invoke(main, ["predict", "-l", str(path), "-T", str(IRIS)])
    assert result.exit_code == 1 and result.output == f"Error: {message}\n"


def test_metadata_that_is_no_mapping_is_refused(model_file, tmp_path):
    doc = json.loads(model_file.read_text())
    doc["metadata"] = ["a", "list"]
    path = tmp_path / "list.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ModelFormatError, match="model metadata: the metadata must be a mapping, got list"):
        load_model(path)


def _fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def _forged_binary(model_file: Path, metadata: bytes) -> bytes:
    """A binary model file with the model of ``model_file`` and ``metadata`` in place of its own,
    the checksum recomputed: postcard writes the metadata as a varint length and the bytes."""
    model, _ = _core.load_model(model_file.read_bytes())
    saved = _core.save_model(model, "{}", "binary")
    header, body = saved[:12], saved[20:]  # magic and format version; the checksum is recomputed
    assert body[0] == 2  # the length of "{}"
    varint, n = b"", len(metadata)
    while True:
        if n < 0x80:
            varint += bytes([n])
            break
        varint += bytes([(n & 0x7F) | 0x80])
        n >>= 7
    new_body = varint + metadata + body[3:]
    return header + _fnv1a64(new_body).to_bytes(8, "little") + new_body


def test_metadata_nested_100000_deep_is_refused_not_a_recursion_error(model_file, tmp_path):
    path = tmp_path / "deep.lrm"
    path.write_bytes(_forged_binary(model_file, b"[" * 100_000 + b"]" * 100_000))
    with pytest.raises(ModelFormatError, match=r"deep\.lrm: model file holds metadata that is not valid JSON"):
        load_model(path)
    ok = tmp_path / "ok.lrm"
    ok.write_bytes(_forged_binary(model_file, json.dumps(json.loads(model_file.read_text())["metadata"]).encode()))
    assert load_model(ok).labels == ["setosa", "versicolor", "virginica"]


def test_the_thread_count_is_never_taken_from_a_model_file(model_file, tmp_path):
    path = _edited(model_file, tmp_path, lambda m: m["params"].update(n_jobs=10**6))
    loaded = load_model(path)
    assert loaded.estimator.n_jobs is None
    assert load_model(model_file).estimator.n_jobs is None  # trained with -j 2


def test_the_pairwise_table_is_refused_past_its_limit_by_the_core():
    y = np.tile(np.arange(1, 102, dtype=np.int32), (2, 1))
    with pytest.raises(InvalidInputError, match="at most 100 labels, got 101"):
        _core.pairwise_matrix(y, y)


def test_thread_counts_beyond_64_bits_mean_all_cores(problem):
    # Found by the fuzz campaign: n_jobs=2**64 raised OverflowError converting to the core.
    x, y = problem
    a = LabelRankingRandomForest(n_estimators=3, random_state=1, n_jobs=2**64).fit(x, y)
    np.testing.assert_array_equal(
        a.predict(x), LabelRankingRandomForest(n_estimators=3, random_state=1).fit(x, y).predict(x)
    )
    with pytest.raises(InvalidInputError, match="n_jobs must be an int or None"):
        _core.Model.fit(a.model_.params_json(), x, y, n_jobs="two")


def test_odd_python_values_name_the_parameter(problem):
    # Each reached the core or numpy as a raw OverflowError, TypeError or ValueError (audit).
    from lrank.aggregation import bucket_order_of_matrix, mallows

    x, y = problem
    r = np.array([[1, 2, 3], [2, 1, 3]])
    for call, message in [
        (lambda: mallows(r, max_iter=-1), "invalid parameter max_iter: must be at least 1, got -1"),
        (lambda: plackett_luce(r, max_iter=2**64), "invalid parameter max_iter: must be below 2"),
        (lambda: plackett_luce(r, tol="small"), "invalid parameter tol: must be a number"),
        (lambda: bpa(r, beta="x"), "invalid parameter beta: must be a number"),
        (lambda: tied_borda(r, weights=["a", "b"]), "weights must be numbers"),
        (lambda: bucket_order_of_matrix(np.ones(3)), r"C must be a 2-D \(m x m\) pair-order matrix, got shape \(3,\)"),
        (lambda: LabelRankingRandomForest(n_jobs=np.array([1, 2])).fit(x, y), "invalid parameter n_jobs"),
        (lambda: LabelwiseRandomForest(max_features=np.array([1, 2])).fit(x, y), "invalid parameter max_features"),
        (lambda: LabelRankingRandomForest().fit(x, y, sample_weight=["a"] * len(x)), "sample_weight must be numbers"),
        (lambda: LabelRankingRandomForest().fit(x, y, sample_weight=object()), "sample_weight must be numbers"),
    ]:
        with pytest.raises((InvalidParameterError, InvalidInputError), match=message):
            call()


def test_a_parameters_type_error_does_not_state_another_range():
    """n_estimators=1.5 said 'must be an int >= 0' and n_estimators=0 'must be at least 1'
    (scikit-learn audit): the type error names the type, the core the range."""
    from lrank import InvalidParameterError, LabelRankingRandomForest

    x, y = [[1.0], [2.0]], [[1, 2], [2, 1]]
    with pytest.raises(InvalidParameterError, match=r"n_estimators: must be an int, got 1\.5$"):
        LabelRankingRandomForest(n_estimators=1.5).fit(x, y)
    with pytest.raises(InvalidParameterError, match="n_estimators: must be at least 1"):
        LabelRankingRandomForest(n_estimators=0).fit(x, y)
    # Nor does the sign check: -1 was told "0 or more", which 0 then was not (boosting audit).
    with pytest.raises(InvalidParameterError, match=r"n_estimators: must not be negative, got -1$"):
        LabelRankingRandomForest(n_estimators=-1).fit(x, y)


def _tree_model(tmp_path: Path) -> dict:
    path = tmp_path / "lrt.json"
    args = ["train", "-t", str(IRIS), "-W", "LRT", "--no-cv", "-d", str(path), "--", "-depth", "3"]
    assert CliRunner().invoke(main, args).exit_code == 0
    return json.loads(path.read_text())


@pytest.mark.parametrize(
    ("case", "problem"),
    [
        # Node 2's right child made node 4, which node 3 already holds: node 6 becomes unreachable.
        ("shared child", "node 4 is a child of nodes 2 and 3"),
        ("negative spread", "a leaf's Mallows spread theta is -5, not >= 0"),
    ],
)
def test_an_edited_tree_is_refused_naming_the_file(tmp_path, case, problem):
    doc = _tree_model(tmp_path)
    tree = doc["model"]["LabelTree"]["tree"]
    assert tree["nodes"][2]["Split"]["right"] == 6 and tree["nodes"][3]["Split"]["left"] == 4  # as trained
    if case == "shared child":
        tree["nodes"][2]["Split"]["right"] = 4
    else:
        tree["leaves"][0]["theta"] = -5.0
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ModelFormatError, match=problem) as err:
        load_model(path)
    assert str(err.value).startswith(f"{path}: ")


def test_one_number_as_sample_weight_weighs_every_row_alike(problem):
    # scikit-learn reads sample_weight=2.0 as every row's weight; lrank said "must have shape (n,), got ()".
    x, y = problem
    scalar = LabelRankingRandomForest(n_estimators=5, random_state=0).fit(x, y, sample_weight=2.0)
    full = LabelRankingRandomForest(n_estimators=5, random_state=0).fit(x, y, sample_weight=np.full(len(x), 2.0))
    np.testing.assert_array_equal(scalar.predict(x), full.predict(x))
    assert scalar.model_ == full.model_
    with pytest.raises(InvalidInputError, match=r"sample_weight must have shape"):
        LabelRankingRandomForest().fit(x, y, sample_weight=[1.0, 2.0])
