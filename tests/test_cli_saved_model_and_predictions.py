"""WEKA's ``-l MODEL -T TEST`` (a saved model evaluated on labelled data) and ``-p RANGE`` (each
evaluated row's true and predicted ranking, with chosen attributes) in ``lrank train``."""

from __future__ import annotations

import json
import math
import os
from importlib import resources

import click
import numpy as np
import pytest
from click.testing import CliRunner
from lrank.cli import main
from lrank.cli.predictions import parse_range


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def json_run(*args: str) -> dict:
    own, learner = (args[: args.index("--")], args[args.index("--") :]) if "--" in args else (args, ())
    result = run(*own, "--format", "json", *learner)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def schema() -> dict:
    return json.loads(resources.files("lrank.cli").joinpath("train_report.schema.json").read_text())


SMALL_XARFF = """@relation small
@attribute id string
@attribute colour {red,green}
@attribute size numeric
@attribute L RANKING {a,b,c}
@data
'r1',red,1.5,a>b>c
'r2',green,?,b>a>c
'r3',red,3,a>c>b
'r4',green,4.25,c>b>a
'r5',red,5,a>b>c
'r6',green,6,b>c>a
"""


def test_a_saved_model_scores_on_test_data_as_the_run_that_trained_it(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    model = str(tmp_path / "m.lrm")
    trained = json_run("train", "-t", "iris", "-T", "iris", "-W", "LWRF", "-d", model, "--", "-I", "5")
    loaded = json_run("train", "-l", model, "-T", "iris")
    jsonschema.validate(loaded, schema())
    assert loaded["evaluations"][0]["measures"] == trained["evaluations"][0]["measures"]
    assert loaded["evaluations"][0]["pairwise"] == trained["evaluations"][0]["pairwise"]
    assert loaded["loaded_model"] == model and loaded["train_file"] is None and loaded["build_time_seconds"] is None
    assert loaded["learner"]["options_in_effect"] == trained["learner"]["options_in_effect"]
    assert loaded["seed"] == 1 and loaded["test_instances"] == 150
    text = run("train", "-l", model, "-T", "iris").output
    assert f"Model loaded from: {model}" in text and "=== Error on test data ===" in text
    assert "Time taken to build model" not in text and "(seed 1)" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-t", "iris"], "-t cannot be given with it"),
        (["-x", "3"], "-x cannot be given with it"),
        (["-W", "IBLR", "-s", "4"], "-s, -W cannot be given with it"),
        (["--no-cv", "--", "-I", "3"], "--no-cv, learner options cannot be given with it"),
        (["--split-percentage", "50"], "--split-percentage cannot be given with it"),
    ],
)
def test_a_saved_models_evaluation_refuses_training_options(tmp_path, args, message):
    model = str(tmp_path / "m.lrm")
    assert run("train", "-t", "iris", "--no-cv", "-d", model, "--", "-I", "3").exit_code == 0
    result = run("train", "-l", model, "-T", "iris", *args)
    assert result.exit_code == 2 and message in result.output, result.output


def test_a_saved_model_needs_test_data_and_training_needs_data(tmp_path):
    model = str(tmp_path / "m.lrm")
    assert run("train", "-t", "iris", "--no-cv", "-d", model, "--", "-I", "3").exit_code == 0
    result = run("train", "-l", model)
    assert result.exit_code == 2 and "-l needs -T" in result.output
    result = run("train", "-T", "iris")
    assert result.exit_code == 2 and "Missing option '-t'" in result.output and "-l MODEL -T TEST" in result.output
    other = run("train", "-l", model, "-T", "wine")
    assert other.exit_code == 1 and other.output.count("\n") == 1 and "wine" in other.output, other.output
    missing = run("train", "-l", str(tmp_path / "none.lrm"), "-T", "iris")
    assert missing.exit_code == 1 and "none.lrm" in missing.output and "Traceback" not in missing.output


def test_printed_test_predictions_are_the_models_and_average_to_the_reported_tau(tmp_path):
    model = str(tmp_path / "m.lrm")
    report = json_run("train", "-t", "iris", "-T", "iris", "-W", "IBLR", "-d", model, "-p", "0")
    rows = report["predictions"]
    assert [r["instance"] for r in rows] == list(range(1, 151))
    assert "fold" not in rows[0] and "attributes" not in rows[0]
    mean = report["evaluations"][0]["measures"]["kendall_tau"]["mean"]
    assert math.isclose(np.mean([r["kendall_tau"] for r in rows]), mean, abs_tol=1e-6)
    predicted = run("predict", "-l", model, "-T", "iris").output.splitlines()
    assert [r["predicted"] for r in rows] == predicted
    from lrank.datasets import load

    assert [r["actual"] for r in rows] == load("iris").ranking_strings()
    # The text form, as WEKA prints -p: a title, a header, a line per row; no report.
    text = run("train", "-l", model, "-T", "iris", "-p", "0").output.splitlines()
    assert text[0] == "=== Predictions on test data ===" and text[2].split() == ["inst#", "actual", "predicted", "tau"]
    assert len(text) == 153 and "Ranking measures" not in "\n".join(text)
    assert text[3].split()[:3] == ["1", rows[0]["actual"], rows[0]["predicted"]]


def test_cross_validation_predictions_give_each_row_once_and_each_folds_tau():
    jsonschema = pytest.importorskip("jsonschema")
    report = json_run("train", "-t", "iris", "-x", "4", "--repeats", "2", "-W", "LRT", "-p", "0")
    jsonschema.validate(report, schema())
    rows = report["predictions"]
    assert sorted(r["instance"] for r in rows) == list(range(1, 151))
    folds = np.array([r["fold"] for r in rows])
    taus = np.array([r["kendall_tau"] for r in rows])
    first_repeat = report["evaluations"][1]["folds"][:4]
    for k in range(4):
        assert math.isclose(taus[folds == k + 1].mean(), first_repeat[k]["kendall_tau"], abs_tol=1e-6)
    text = run("train", "-t", "iris", "-x", "4", "-W", "LRT", "-p", "0").output.splitlines()
    assert text[0].startswith("=== Predictions on cross-validation") and text[2].split()[:2] == ["inst#", "fold"]


def test_split_and_training_data_predictions():
    split = json_run("train", "-t", "iris", "--split-percentage", "60", "-W", "LRT", "-p", "0")
    rows = split["predictions"]
    assert split["evaluations"][1]["name"] == "percentage split" and "fold" not in rows[0]
    assert len(rows) == split["evaluations"][1]["n_instances"] == 60
    mean = split["evaluations"][1]["measures"]["kendall_tau"]["mean"]
    assert math.isclose(np.mean([r["kendall_tau"] for r in rows]), mean, abs_tol=1e-6)
    training = json_run("train", "-t", "iris", "--no-cv", "-W", "LRT", "-p", "0")
    assert len(training["predictions"]) == 150 and training["evaluations"][0]["name"] == "training data"


def test_chosen_attributes_are_printed_as_the_file_holds_them(tmp_path):
    data = tmp_path / "small.xarff"
    data.write_text(SMALL_XARFF)
    report = json_run("train", "-t", str(data), "-T", str(data), "-W", "LRT", "-p", "first-last")
    first, second = report["predictions"][:2]
    assert first["attributes"] == {"id": "r1", "colour": "red", "size": 1.5}
    assert second["attributes"] == {"id": "r2", "colour": "green", "size": None}
    text = run("train", "-t", str(data), "-T", str(data), "-W", "LRT", "-p", "3,1").output.splitlines()
    assert text[2].endswith("(size,id)") and text[3].endswith("(1.5,r1)") and text[4].endswith("(?,r2)")


def test_tied_truth_prints_tau_x(tmp_path):
    data = tmp_path / "ties.csv"
    lines = ["A1,L1,L2,L3"] + [f"{i},{1},{1 + i % 2},{2 + i % 2}" for i in range(12)]
    data.write_text("\n".join(lines) + "\n")
    report = json_run("train", "-t", str(data), "-T", str(data), "-W", "PLRT", "-p", "0")
    rows = report["predictions"]
    assert "tau_x" in rows[0] and "kendall_tau" not in rows[0]
    assert rows[0]["actual"] == "L1=L2>L3"
    mean = report["evaluations"][0]["measures"]["tau_x"]["mean"]
    assert math.isclose(np.mean([r["tau_x"] for r in rows]), mean, abs_tol=1e-6)


def test_a_bad_range_is_refused_before_anything_is_fitted(tmp_path):
    model = tmp_path / "m.lrm"
    result = run("train", "-t", "iris", "-T", "iris", "-d", str(model), "-p", "5")
    assert result.exit_code == 2 and "attribute 5 does not exist (the data has 4 attributes" in result.output
    assert not model.exists()


@pytest.mark.parametrize(
    ("text", "chosen"),
    [("0", []), ("1", [0]), ("1,3-4", [0, 2, 3]), ("first-last", [0, 1, 2, 3]), ("last", [3]), ("4,1-2,2", [3, 0, 1])],
)
def test_attribute_ranges_read_as_weka_reads_them(text, chosen):
    assert parse_range(text, 4) == chosen


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("5", "attribute 5 does not exist"),
        ("0-2", "attribute 0 does not exist"),
        ("3-1", "runs backwards"),
        ("", "an empty range"),
        ("1-", "an attribute on each side"),
        ("a", "'a' is not"),
    ],
)
def test_bad_attribute_ranges_are_named(text, message):
    with pytest.raises(click.BadParameter, match=message):
        parse_range(text, 4)


@pytest.mark.parametrize("name", ["out.parquet", "out.XARFF", "out.arff"])
def test_predict_writes_the_data_with_the_predicted_rankings_in_the_named_format(tmp_path, name):
    from lrank.data import read_dataset
    from lrank.datasets import path as bundled
    from lrank.rankings import rank_matrix_from_strings

    model = str(tmp_path / "m.lrm")
    assert run("train", "-t", "iris", "--no-cv", "-d", model, "--", "-I", "3").exit_code == 0
    result = run("predict", "-l", model, "-T", "iris", "-o", str(tmp_path / name))
    assert result.exit_code == 0, result.output
    written, iris = read_dataset(tmp_path / name), read_dataset(bundled("iris"))
    text = run("predict", "-l", model, "-T", "iris").output.splitlines()
    np.testing.assert_array_equal(written.rankings, rank_matrix_from_strings(text, list(iris.labels))[0])
    assert not np.array_equal(written.rankings, iris.rankings)  # the predictions, not the truth
    np.testing.assert_array_equal(written.feature_matrix(), iris.feature_matrix())
    assert written.labels == iris.labels and written.feature_names() == iris.feature_names()
    assert run("info", str(tmp_path / name)).exit_code == 0
    # KEBI CSV names its labels L1, L2, ...: iris's are renamed, with a note, as convert does.
    result = run("predict", "-l", model, "-T", "iris", "-o", str(tmp_path / "out.csv"))
    assert result.exit_code == 0, result.output
    assert "Note: the KEBI CSV layout names labels L1, L2, ...: setosa = L1, versicolor = L2" in result.output
    as_csv = read_dataset(tmp_path / "out.csv")
    assert as_csv.labels == ("L1", "L2", "L3")
    np.testing.assert_array_equal(as_csv.rankings, written.rankings)


def test_predicted_data_of_a_file_without_rankings_and_of_parquet_slices(tmp_path, monkeypatch):
    from lrank.cli import predict as predict_module
    from lrank.data import read_dataset

    data = tmp_path / "unlabelled.xarff"
    # No rankings, and a feature called L (the usual name of the rankings).
    rows = "".join(f"{i % 3},{i * 0.5}\n" for i in range(12))
    data.write_text("@relation u\n@attribute L numeric\n@attribute size numeric\n@data\n" + rows)
    train = tmp_path / "train.xarff"
    train.write_text(
        "@relation t\n@attribute L numeric\n@attribute size numeric\n@attribute R RANKING {L1,L2,L3}\n@data\n"
        + "".join(f"{i % 3},{i * 0.5},{'L1>L2>L3' if i < 6 else 'L3>L2>L1'}\n" for i in range(12))
    )
    model = str(tmp_path / "m.lrm")
    assert run("train", "-t", str(train), "--no-cv", "-W", "LRT", "-d", model).exit_code == 0
    assert run("predict", "-l", model, "-T", str(data), "-o", str(tmp_path / "p.parquet")).exit_code == 0
    written = read_dataset(tmp_path / "p.parquet")
    assert written.ranking_name == "_L" and written.labels == ("L1", "L2", "L3")
    whole = written.rankings
    # Read and predicted 5 rows at a time, written as one file.
    monkeypatch.setattr(predict_module, "PARQUET_BATCH_ROWS", 5)
    assert run("predict", "-l", model, "-T", str(tmp_path / "p.parquet"), "-o", str(tmp_path / "q.csv")).exit_code == 0
    np.testing.assert_array_equal(read_dataset(tmp_path / "q.csv").rankings, whole)


def test_info_keeps_a_label_with_a_line_break_on_one_line(tmp_path):
    model = tmp_path / "m.json"
    assert run("train", "-t", "iris", "-W", "LRT", "--no-cv", "-d", str(model)).exit_code == 0
    document = json.loads(model.read_text())
    document["metadata"]["labels"][0] = "seto\nsa"
    model.write_text(json.dumps(document))
    result = run("info", str(model))
    assert result.exit_code == 0 and "Labels:              3 ('seto\\nsa', versicolor, virginica)" in result.output


def test_an_output_name_of_a_format_predict_does_not_write_is_refused(tmp_path):
    model = str(tmp_path / "m.lrm")
    assert run("train", "-t", "iris", "--no-cv", "-W", "LRT", "-d", model).exit_code == 0
    result = run("predict", "-l", model, "-T", "iris", "-o", str(tmp_path / "p.json"))
    assert result.exit_code == 2 and "lrank predict writes no .json file: name it .txt" in result.output
    assert not (tmp_path / "p.json").exists()
    assert run("predict", "-l", model, "-T", "iris", "-o", str(tmp_path / "p.txt")).exit_code == 0


def test_a_data_file_ranking_other_labels_than_the_models_is_said(tmp_path):
    # Its rankings are not read, but other labels mean the wrong model or the wrong file.
    model = str(tmp_path / "m.lrm")
    assert run("train", "-t", "iris", "--no-cv", "-W", "LRT", "-d", model).exit_code == 0
    wine = run("predict", "-l", model, "-T", "wine")
    assert wine.exit_code != 0  # other attributes: refused outright
    other = tmp_path / "other.xarff"
    text = (resources.files("lrank.datasets") / "iris.xarff").read_text()
    other.write_text(text.replace("setosa", "bristly"))
    said = r"its rankings are of labels \['bristly', 'versicolor', 'virginica'\], the model ranks"
    for out in (None, str(tmp_path / "o.csv")):
        with pytest.warns(UserWarning, match=said):
            result = run("predict", "-l", model, "-T", str(other), *(["-o", out] if out else []))
        assert result.exit_code == 0, result.output


def test_confidences_are_written_beside_text_only(tmp_path):
    model = str(tmp_path / "m.lrm")
    assert run("train", "-t", "iris", "--no-cv", "-W", "IBLR", "-d", model).exit_code == 0
    result = run("predict", "-l", model, "-T", "iris", "--confidence", "-o", str(tmp_path / "p.csv"))
    assert result.exit_code == 2 and "beside text rankings only" in result.output
    assert not (tmp_path / "p.csv").exists()


QUOTED_XARFF = """@relation quoted
@attribute x numeric
@attribute L RANKING {'a>b','c=d','x y',e}
@data
1,'a>b'>'c=d'>'x y'>e
2,e>'x y'>'c=d'>'a>b'
3,'a>b'>e|'c=d'>'x y'
4,'c=d'>'a>b'>e>'x y'
"""


def test_printed_rankings_read_back_as_the_rankings_evaluated(tmp_path):
    from lrank.data import read_dataset
    from lrank.rankings import rank_matrix_from_strings

    data = tmp_path / "quoted.xarff"
    data.write_text(QUOTED_XARFF)
    report = json_run("train", "-t", str(data), "-T", str(data), "-W", "Dummy", "-p", "0")
    rows = report["predictions"]
    labels = report["labels"]
    truth, _ = rank_matrix_from_strings([r["actual"] for r in rows], labels)
    # A partial order is evaluated as its longest chain, which is what is printed.
    np.testing.assert_array_equal(truth, read_dataset(data).rankings)
    assert rows[2]["actual"] == "'a>b'>e"
    predicted, _ = rank_matrix_from_strings([r["predicted"] for r in rows], labels)
    assert predicted.min() >= 1
    # lrank predict quotes the same names, so its lines read back too.
    model = str(tmp_path / "m.lrm")
    assert run("train", "-t", str(data), "--no-cv", "-W", "Dummy", "-d", model).exit_code == 0
    lines = run("predict", "-l", model, "-T", str(data)).output.splitlines()
    np.testing.assert_array_equal(rank_matrix_from_strings(lines, labels)[0], predicted)


def test_a_nan_feature_value_prints_as_missing_and_the_json_stays_json():
    # The readers store a missing cell as null; a data set built in Python may hold NaN.
    import polars as pl
    from lrank.cli.predictions import prediction_rows, predictions_text
    from lrank.data import Attribute, LabelRankingDataset
    from lrank.evaluation.workflow import RowPredictions

    ranks = np.array([[1, 2, 3], [2, 1, 3]], dtype=np.int32)
    data = LabelRankingDataset(
        relation="nan",
        attributes=[Attribute("A1", "numeric")],
        features=pl.DataFrame({"A1": [1.5, float("nan")]}),
        labels=("a", "b", "c"),
        rankings=ranks,
        weights=np.ones(2),
    )
    rows = prediction_rows(RowPredictions(data, np.arange(2), ranks, ranks), ["a", "b", "c"], [0])
    assert [r["attributes"]["A1"] for r in rows] == [1.5, None]
    assert "NaN" not in json.dumps(rows)
    assert predictions_text(rows, "test data").splitlines()[-1].endswith("(?)")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("name", ["full.xarff", "full.txt"])
def test_a_failed_write_names_the_output_file(tmp_path, name):
    model = str(tmp_path / "m.lrm")
    assert run("train", "-t", "iris", "--no-cv", "-d", model, "--", "-I", "3").exit_code == 0
    out = tmp_path / name
    out.symlink_to("/dev/full")  # every write fails: no space left
    result = run("predict", "-l", model, "-T", "iris", "-o", str(out))
    assert result.exit_code == 1 and result.output.strip() == f"Error: {out}: cannot write: No space left on device"


def test_a_bad_data_file_leaves_the_output_as_it_was(tmp_path):
    model = str(tmp_path / "m.lrm")
    assert run("train", "-t", "iris", "--no-cv", "-d", model, "--", "-I", "3").exit_code == 0
    out = tmp_path / "out.txt"
    out.write_text("earlier predictions\n")
    result = run("predict", "-l", model, "-T", str(tmp_path / "missing.xarff"), "-o", str(out))
    assert result.exit_code == 1 and "file not found" in result.output
    assert out.read_text() == "earlier predictions\n"


def test_importances_are_the_final_models_largest_first():
    jsonschema = pytest.importorskip("jsonschema")
    from lrank.data import read_dataset
    from lrank.datasets import path as bundled
    from lrank.registry import get_learner

    report = json_run("train", "-t", "wine", "--no-cv", "--importances", "-W", "LWRF", "--", "-I", "10")
    jsonschema.validate(report, schema())
    shares = report["feature_importances"]
    wine = read_dataset(bundled("wine"))
    assert sorted(s["feature"] for s in shares) == sorted(wine.feature_names())
    values = [s["share"] for s in shares]
    assert values == sorted(values, reverse=True) and sum(values) == pytest.approx(1, abs=1e-5)
    # The model fitted on all training data, with the run's seed.
    estimator = get_learner("LWRF").build(["-I", "10"], seed=1).fit(wine.feature_matrix(), wine.rankings)
    expected = dict(zip(wine.feature_names(), estimator.feature_importances_))
    assert all(s["share"] == pytest.approx(expected[s["feature"]], abs=1e-6) for s in shares)
    text = run("train", "-t", "wine", "--no-cv", "--importances", "-W", "LWRF", "--", "-I", "10").output
    section = text.split("=== Attribute importance")[1].split("===", 2)[1].strip().splitlines()
    assert section[0].split() == [f"{values[0]:.4f}", shares[0]["feature"]]


def test_importances_of_a_model_without_trees_and_of_a_saved_model(tmp_path):
    report = json_run("train", "-t", "iris", "--no-cv", "--importances", "-W", "IBLR")
    assert report["feature_importances"] is None
    text = run("train", "-t", "iris", "--no-cv", "--importances", "-W", "IBLR").output
    assert "(none: the model has no trees)" in text
    model = str(tmp_path / "m.lrm")
    assert run("train", "-t", "iris", "--no-cv", "-d", model, "--", "-I", "3").exit_code == 0
    result = run("train", "-l", model, "-T", "iris", "--importances")
    assert result.exit_code == 2 and "--importances cannot be given with it" in result.output


def test_importances_of_boosting_are_its_gains():
    from lrank.data import read_dataset
    from lrank.datasets import path as bundled
    from lrank.registry import get_learner

    report = json_run("train", "-t", "iris", "--no-cv", "--importances", "-W", "GBLR", "--", "-I", "20")
    iris = read_dataset(bundled("iris"))
    estimator = get_learner("GBLR").build(["-I", "20"], seed=1).fit(iris.feature_matrix(), iris.rankings)
    expected = dict(zip(iris.feature_names(), estimator.feature_importances_))
    shares = report["feature_importances"]
    assert len(shares) == 4 and all(s["share"] == pytest.approx(expected[s["feature"]], abs=1e-6) for s in shares)
    text = run("train", "-t", "iris", "--no-cv", "--importances", "-W", "GBLR", "--", "-I", "20").output
    assert "=== Attribute importance (share of the splits' gain on the loss) ===" in text


def test_a_loaded_model_predicts_and_scores_a_data_set_as_the_command_line_does(tmp_path):
    import warnings

    from lrank.data import read_dataset, write_dataset
    from lrank.datasets import resolve
    from lrank.errors import DataFormatError
    from lrank.model_file import load_model

    model = tmp_path / "m.lrm"
    assert run("train", "-t", "iris", "-W", "LRT", "--no-cv", "-d", str(model)).exit_code == 0
    loaded = load_model(model)
    data = read_dataset(resolve("iris"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the data set's column names are no surprise to it
        score = loaded.score(data)
        predicted = loaded.predict(data)
    expected = loaded.estimator.predict(data.feature_matrix())
    np.testing.assert_array_equal(predicted, expected)
    report = json.loads(run("train", "-l", str(model), "-T", "iris", "--format", "json").output)
    assert score == pytest.approx(report["evaluations"][0]["measures"]["kendall_tau"]["mean"])
    other = tmp_path / "other.xarff"
    write_dataset(read_dataset(resolve("wine")), other)
    with pytest.raises(DataFormatError, match="attributes do not match the training data"):
        loaded.score(read_dataset(other))


def test_a_loaded_models_own_methods_take_data_sets_not_arrays(tmp_path):
    from lrank.errors import LrankError
    from lrank.model_file import load_model

    model = tmp_path / "m.lrm"
    assert run("train", "-t", "iris", "-W", "LRT", "--no-cv", "-d", str(model)).exit_code == 0
    loaded = load_model(model)
    for method in ("predict", "score"):
        with pytest.raises(LrankError, match=rf"LoadedModel.{method} takes a data set .*loaded.estimator.{method}"):
            getattr(loaded, method)(np.zeros((2, 4)))
    assert run("info", str(model), "--tree", "0", "--format", "json").exit_code == 2
    neighbours = tmp_path / "iblr.lrm"
    assert run("train", "-t", "iris", "-W", "IBLR", "--no-cv", "-d", str(neighbours)).exit_code == 0
    treeless = run("info", str(neighbours), "--tree", "0")
    assert treeless.exit_code == 1 and f"{neighbours}: the IBLR model has no trees to print" in treeless.output
    assert run("info", str(model), "--tree", str(2**70)).exit_code == 2


def test_unknown_rankings_in_the_training_layout_are_predicted(tmp_path):
    """Data to predict may keep the training file's layout with the rankings unknown: '?' in the
    XARFF ranking column (WEKA's unknown class), empty or '?' KEBI CSV label cells."""
    iris = os.fspath(resources.files("lrank.datasets") / "iris.xarff")
    model = tmp_path / "m.lrm"
    assert run("train", "-t", iris, "--no-cv", "-W", "LRT", "-d", str(model)).exit_code == 0
    with open(iris) as fh:
        text = fh.read()
    head, _, rows = text.partition("@data")
    rows = [r for r in rows.splitlines() if r.strip()][:4]
    unknown = tmp_path / "unknown.xarff"
    unknown.write_text(head + "@data\n" + "\n".join(r.rsplit(",", 1)[0] + ",?" for r in rows) + "\n")
    plain = tmp_path / "plain.xarff"
    plain.write_text(head.replace("@attribute", "@ATTRIBUTE").rsplit("@ATTRIBUTE", 1)[0] + "@data\n")
    plain.write_text(plain.read_text() + "\n".join(r.rsplit(",", 1)[0] for r in rows) + "\n")
    predicted = run("predict", "-l", str(model), "-T", str(unknown))
    assert predicted.exit_code == 0, predicted.output
    assert predicted.output == run("predict", "-l", str(model), "-T", str(plain)).output
    assert len(predicted.output.splitlines()) == 4
    # where rankings are needed, '?' is still refused by line
    scored = run("train", "-l", str(model), "-T", str(unknown))
    assert scored.exit_code == 1 and "unknown.xarff:" in scored.output and "missing ranking '?'" in scored.output

    from lrank.data import read_dataset
    from lrank.errors import DataFormatError

    csv = tmp_path / "unknown.csv"
    csv.write_text("A1,L1,L2,L3\n0.5,,,\n0.7,?,?,?\n")
    data = read_dataset(csv, require_rankings=False)
    assert data.rankings is None and data.labels == ("L1", "L2", "L3") and data.n_rows == 2
    csv.write_text("A1,L1,L2,L3\n0.5,,,\n0.7,1,2,3\n")  # some rankings known: all must be
    with pytest.raises(DataFormatError, match="unknown.csv:2: empty ranking"):
        read_dataset(csv, require_rankings=False)
