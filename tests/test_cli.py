"""The `lrank` command line, driven through click's CliRunner as a user would type it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from lrank.cli import main
from lrank.data import read_arff

ROOT = Path(__file__).resolve().parents[1]
IRIS = str(ROOT / "datasets" / "iris.xarff")
WINE = str(ROOT / "datasets" / "wine.xarff")


def run(*args: str) -> CliRunner.invoke:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_main_command_prints_weka_style_sections():
    result = run("train", "-t", IRIS, "-W", "LRRF")
    assert result.exit_code == 0, result.output
    out = result.stdout
    for section in (
        "=== Run information ===",
        "Time taken to build model:",
        "=== Error on training data ===",
        "=== Stratified cross-validation ===",
        "=== Ranking measures ===",
        "Kendall's tau",
        "Spearman correlation",
        "Spearman footrule (normalised)",
        "Top-label accuracy",
        "Exact-match rate",
        "=== Pairwise correct | incorrect",
    ):
        assert section in out, section
    assert out.count("=== Ranking measures ===") == 2
    assert "setosa" in out and "10-fold stratified cross-validation" in out


def test_json_output_is_the_same_report():
    result = run("train", "-t", IRIS, "--format", "json", "-x", "5", "--repeats", "2", "-s", "3", "--", "-I", "10")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["learner"]["params"]["n_estimators"] == 10
    assert report["learner"]["params"]["random_state"] == 3
    _train_ev, cv = report["evaluations"]
    assert cv["n_folds"] == 10 and cv["n_instances"] == 300
    tau = cv["measures"]["kendall_tau"]
    assert 0.8 < tau["mean"] <= 1.0 and tau["std"] >= 0
    pw = cv["pairwise"]
    total = sum(map(sum, pw["correct"])) + sum(map(sum, pw["incorrect"]))
    assert total == 300 * 3  # every instance contributes m(m-1)/2 = 3 ordered pairs


def test_same_seed_same_report_and_cv_differs_by_seed():
    a = json.loads(run("train", "-t", IRIS, "--format", "json", "-s", "5").stdout)
    b = json.loads(run("train", "-t", IRIS, "--format", "json", "-s", "5").stdout)
    c = json.loads(run("train", "-t", IRIS, "--format", "json", "-s", "6").stdout)
    assert a["evaluations"] == b["evaluations"]
    assert (
        a["evaluations"][1]["pairwise"] != c["evaluations"][1]["pairwise"]
        or a["evaluations"][1]["measures"] != c["evaluations"][1]["measures"]
    )


def test_train_test_split_save_model_and_predict(tmp_path):
    model = tmp_path / "iris.lrm"
    result = run("train", "-t", IRIS, "-T", IRIS, "-d", str(model), "--", "-I", "5")
    assert result.exit_code == 0, result.output
    assert "=== Error on test data ===" in result.stdout and "cross-validation" not in result.stdout
    assert model.read_bytes()[:8] == b"LRANKMDL"
    out = tmp_path / "pred.txt"
    result = run("predict", "-l", str(model), "-T", IRIS, "-o", str(out))
    assert result.exit_code == 0, result.output
    lines = out.read_text().splitlines()
    assert len(lines) == 150
    assert all(sorted(line.split(">")) == ["setosa", "versicolor", "virginica"] for line in lines)
    # The predictions are good rankings of the training data itself.
    truth = read_arff(IRIS).ranking_strings()
    assert sum(a == b for a, b in zip(lines, truth)) > 140


def test_json_model_and_prediction_on_stdout(tmp_path):
    model = tmp_path / "wine.json"
    assert run("train", "-t", WINE, "--no-cv", "-d", str(model), "--", "-I", "3").exit_code == 0
    assert json.loads(model.read_text())["format"] == "lrank-model"
    result = run("predict", "-l", str(model), "-T", WINE)
    assert result.exit_code == 0 and len(result.stdout.splitlines()) == 178


def test_predict_on_a_plain_arff_feature_table(tmp_path):
    model = tmp_path / "m.lrm"
    run("train", "-t", IRIS, "--no-cv", "-d", str(model), "--", "-I", "3")
    table = tmp_path / "new.arff"
    header = "\n".join(f"@attribute '{a.name}' numeric" for a in read_arff(IRIS).attributes)
    table.write_text(f"@relation new\n{header}\n@data\n5.1,3.5,1.4,0.2\n6.7,3.0,5.2,2.3\n")
    result = run("predict", "-l", str(model), "-T", str(table))
    assert result.exit_code == 0, result.output
    first, second = result.stdout.splitlines()
    assert first.startswith("setosa") and second.startswith("virginica")


def test_missing_labels_option_runs_and_is_reported():
    result = run("train", "-t", IRIS, "--missing", "0.6", "--format", "json", "--", "-I", "10")
    report = json.loads(result.stdout)
    assert report["missing_label_probability"] == 0.6
    assert report["evaluations"][1]["measures"]["kendall_tau"]["mean"] > 0.5


def test_learners_lists_lrrf_and_its_options():
    result = run("learners")
    assert result.exit_code == 0
    assert "LRRF" in result.stdout and "-I N" in result.stdout and "-depth" in result.stdout
    # named learners only, in any case, in the order given
    some = run("learners", "ibplr", "LRRF")
    assert some.exit_code == 0
    heads = [line.split(":")[0] for line in some.stdout.splitlines() if line and not line.startswith(" ")]
    assert heads == ["IBPLR", "LRRF"]
    unknown = run("learners", "NOPE")
    assert unknown.exit_code == 1 and "unknown learner 'NOPE'; available: Bagging" in unknown.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["train", "-t", "nope.xarff"], "nope.xarff"),
        (["train", "-t", IRIS, "-W", "XYZ"], "unknown learner 'XYZ'"),
        (["train", "-t", IRIS, "--", "-Q", "1"], "unknown option '-Q'"),
        (["train", "-t", IRIS, "--", "-I", "many"], "bad value 'many' for -I"),
        (["train", "-t", IRIS, "--", "-I"], "needs a value"),
        # In the command line's terms (the core's message offers None, which -bins cannot take).
        (["train", "-t", IRIS, "-W", "GBLR", "--", "-bins", "1"], "-bins: must be 2 to 255, or 0 for the exact search"),
        (["train", "-t", IRIS, "-x", "500"], "cannot make 500 folds"),
        (["predict", "-l", IRIS, "-T", IRIS], "not an lrank model"),
    ],
)
def test_user_errors_are_one_line_messages_with_non_zero_exit(args, message):
    result = CliRunner().invoke(main, args)
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_bad_data_file_error_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.xarff"
    bad.write_text("@relation r\n@attribute a numeric\n@attribute L RANKING {x,y}\n@data\n1,x>y\n2,x>z\n")
    result = CliRunner().invoke(main, ["train", "-t", str(bad)])
    assert result.exit_code == 1
    assert f"{bad}:6:" in result.output and "z" in result.output


def test_mismatched_test_file_is_refused(tmp_path):
    other = tmp_path / "other.xarff"
    other.write_text("@relation r\n@attribute a numeric\n@attribute L RANKING {x,y}\n@data\n1,x>y\n2,y>x\n")
    result = CliRunner().invoke(main, ["train", "-t", IRIS, "-T", str(other)])
    assert result.exit_code == 1 and "do not match the training data" in result.output


def test_help_texts():
    for cmd in ([], ["train"], ["predict"], ["learners"]):
        result = run(*cmd, "--help")
        assert result.exit_code == 0 and "Usage:" in result.output
    assert "-T" in run("train", "--help").output and "--missing" in run("train", "--help").output


def test_iblr_from_the_command_line_with_confidence(tmp_path):
    model = tmp_path / "iblr.lrm"
    result = run("train", "-t", IRIS, "-W", "IBLR", "-d", str(model), "--format", "json", "--", "-K", "10")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["learner"]["name"] == "IBLR" and report["learner"]["params"]["n_neighbors"] == 10
    assert report["evaluations"][1]["measures"]["kendall_tau"]["mean"] > 0.9
    result = run("predict", "-l", str(model), "-T", IRIS, "--confidence")
    assert result.exit_code == 0, result.output
    ranking, theta = result.stdout.splitlines()[0].split("\t")
    assert ranking.count(">") == 2 and float(theta) > 0


def test_confidence_needs_a_learner_that_gives_it(tmp_path):
    model = tmp_path / "rf.lrm"
    run("train", "-t", IRIS, "--no-cv", "-d", str(model), "--", "-I", "2")
    result = CliRunner().invoke(main, ["predict", "-l", str(model), "-T", IRIS, "--confidence"])
    assert result.exit_code == 1 and "gives no per-row confidence" in result.output


def test_lrt_with_missing_labels_from_the_command_line():
    result = run("train", "-t", WINE, "-W", "LRT", "--missing", "0.3", "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["learner"]["name"] == "LRT"
    assert report["evaluations"][1]["measures"]["kendall_tau"]["mean"] > 0.7


def test_lrt_json_model_with_pure_leaves_round_trips(tmp_path):
    """Pure leaves have an infinite Mallows spread, which JSON cannot hold as a number."""
    model = tmp_path / "lrt.json"
    assert run("train", "-t", IRIS, "-W", "LRT", "--no-cv", "-d", str(model)).exit_code == 0
    assert '"inf"' in model.read_text()
    result = run("predict", "-l", str(model), "-T", IRIS, "--confidence")
    assert result.exit_code == 0, result.output
    assert any(line.endswith("\tinf") for line in result.stdout.splitlines())


def test_info_describes_a_data_file(tmp_path):
    result = run("info", IRIS)
    assert result.exit_code == 0
    assert "Instances:           150" in result.stdout and "Distinct rankings:" in result.stdout
    weather = tmp_path / "w.xarff"
    weather.write_text(
        "@relation w\n@attribute o {s,r}\n@attribute t numeric\n@attribute L RANKING {a,b,c}\n@data\n"
        "s,1,a>b>c\nr,?,c>a\ns,3,a>b|a>c\nr,4,b>a>c {2}\n"
    )
    info = json.loads(run("info", str(weather), "--format", "json").stdout)
    assert info["attributes"] == {"numeric": 1, "nominal": 1, "string": 0}
    assert (info["missing_feature_values"], info["weighted_rows"], info["partial_orders"]) == (1, 1, 1)
    assert info["incomplete_rankings"] == 2 and info["distinct_rankings"] == 4
    assert info["top_label_distribution"] == {"a": 2, "b": 1, "c": 1}


def test_convert_between_xarff_and_kebi_csv(tmp_path):
    from lrank.data import dataset_from_arrays, read_dataset, write_dataset, write_xarff

    rng = np.random.default_rng(0)
    x = rng.normal(size=(30, 3))
    x[2, 1] = np.nan
    y = np.argsort(rng.random((30, 4)), axis=1).argsort(axis=1).astype(np.int32) + 1
    y[5] = [1, 2, 0, 3]  # an incomplete ranking
    src = tmp_path / "a.xarff"
    write_xarff(dataset_from_arrays(x, y), src)
    assert run("convert", str(src), str(tmp_path / "b.csv")).exit_code == 0
    assert run("convert", str(tmp_path / "b.csv"), str(tmp_path / "c.xarff")).exit_code == 0
    back = read_dataset(tmp_path / "c.xarff")
    np.testing.assert_array_equal(back.rankings, y)
    np.testing.assert_array_equal(back.feature_matrix(), x)  # NaN compares equal here
    # Labels the KEBI layout cannot name are named L1, L2, ... by the command (not by the
    # writer, which refuses them), and a note says which is which.
    result = CliRunner().invoke(main, ["convert", IRIS, str(tmp_path / "iris.csv")])
    assert result.exit_code == 0
    assert "Note: the KEBI CSV layout names labels L1, L2, ...: setosa = L1, versicolor = L2" in result.output
    csv_back, original = read_dataset(tmp_path / "iris.csv"), read_dataset(IRIS)
    assert csv_back.labels == ("L1", "L2", "L3")
    np.testing.assert_array_equal(csv_back.rankings, original.rankings)
    with pytest.raises(ValueError, match="not named L<number>"):
        write_dataset(original, tmp_path / "direct.csv")


def test_nominal_attributes_split_one_value_against_the_rest(tmp_path):
    """An ARFF nominal attribute reaches the trees as a category, not as ordered codes."""
    rows = []
    for i in range(60):
        colour = ["red", "green", "blue"][i % 3]
        rows.append(f"{colour},{i / 60:.3f},{'a>b>c' if colour == 'green' else 'c>b>a'}")
    data = tmp_path / "colours.xarff"
    data.write_text(
        "@relation colours\n@attribute colour {red,green,blue}\n@attribute x numeric\n"
        "@attribute L RANKING {a,b,c}\n@data\n" + "\n".join(rows) + "\n"
    )
    model = tmp_path / "lrt.json"
    result = run("train", "-t", str(data), "-W", "LRT", "-d", str(model), "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(model.read_text())
    assert doc["model"]["LabelTree"]["tree"]["nodes"][0] == {
        "Category": {"feature": 0, "value": 1.0, "left": 1, "right": 2}
    }
    assert doc["metadata"]["params"]["categorical_features"] == [True, False]
    assert json.loads(result.stdout)["evaluations"][1]["measures"]["kendall_tau"]["mean"] == 1.0
    predicted = run("predict", "-l", str(model), "-T", str(data))
    assert predicted.stdout.splitlines()[:3] == ["c>b>a", "a>b>c", "c>b>a"]


@pytest.mark.parametrize("learner", ["WLRT", "FLRT"])
def test_unsupervised_threshold_trees_from_the_command_line(learner):
    result = run("train", "-t", IRIS, "-W", learner, "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["learner"]["params"]["splitter"] in ("equal_width", "equal_frequency")
    assert report["evaluations"][1]["measures"]["kendall_tau"]["mean"] > 0.7


def test_bagging_with_nested_learner_options_saves_and_predicts(tmp_path):
    model = tmp_path / "bag.lrm"
    result = run(
        "train",
        "-t",
        IRIS,
        "-W",
        "Bagging",
        "-d",
        str(model),
        "--format",
        "json",
        "--",
        "-W",
        "WLRT",
        "-I",
        "10",
        "-A",
        "copeland",
        "--",
        "-depth",
        "3",
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    params = report["learner"]["params"]
    assert params["n_estimators"] == 10 and params["aggregation"] == "copeland"
    assert "splitter='equal_width'" in params["estimator"] and "max_depth=3" in params["estimator"]
    assert report["evaluations"][1]["measures"]["kendall_tau"]["mean"] > 0.7
    predicted = run("predict", "-l", str(model), "-T", IRIS)
    assert predicted.exit_code == 0, predicted.output
    assert len(predicted.stdout.splitlines()) == 150


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["-W", "NOPE"], "unknown learner 'NOPE'"),
        (["-A", "mean"], "bad value 'mean' for -A"),
        (["--", "-depth", "x"], "LRT: bad value 'x' for -depth"),
        (["-P", "0"], "bad value '0' for -P"),
    ],
)
def test_bagging_option_errors_name_the_learner_and_option(options, message):
    result = run("train", "-t", IRIS, "-W", "Bagging", "--", *options)
    assert result.exit_code != 0 and message in result.output


@pytest.mark.parametrize(("learner", "options"), [("LWDT", ["-tune"]), ("LWRF", ["-I", "20", "-K", "0.5"])])
def test_labelwise_learners_from_the_command_line(tmp_path, learner, options):
    model = tmp_path / "lw.json"
    result = run("train", "-t", WINE, "-W", learner, "-d", str(model), "--format", "json", "--", *options)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["evaluations"][1]["measures"]["kendall_tau"]["mean"] > 0.8
    assert run("predict", "-l", str(model), "-T", WINE).exit_code == 0


def test_ovo_from_the_command_line(tmp_path):
    model = tmp_path / "ovo.lrm"
    result = run(
        "train",
        "-t",
        IRIS,
        "-W",
        "OVO",
        "-d",
        str(model),
        "--format",
        "json",
        "--",
        "-B",
        "forest",
        "-I",
        "10",
        "-V",
        "probability",
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["learner"]["params"]["classifier"] == "forest"
    assert report["evaluations"][1]["measures"]["kendall_tau"]["mean"] > 0.8
    assert run("predict", "-l", str(model), "-T", IRIS).exit_code == 0


def test_rpc_from_the_command_line():
    result = run("train", "-t", IRIS, "-W", "RPC", "--format", "json", "--", "-C", "10", "-V", "binary")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["learner"]["params"]["C"] == 10.0 and report["learner"]["params"]["voting"] == "binary"
    assert report["evaluations"][1]["measures"]["kendall_tau"]["mean"] > 0.7


def test_info_describes_a_model_file(tmp_path):
    model = tmp_path / "bag.lrm"
    trained = run("train", "-t", IRIS, "--no-cv", "-W", "Bagging", "-d", str(model), "--", "-W", "RPC", "-I", "3")
    assert trained.exit_code == 0, trained.output
    text = run("info", str(model))
    assert text.exit_code == 0, text.output
    assert "Learner:             Bagging -W RPC -I 3" in text.output
    assert "Labels:              3 (setosa, versicolor, virginica)" in text.output
    info = json.loads(run("info", str(model), "--format", "json").output)
    assert info["options_in_effect"].startswith("-W RPC -I 3 ") and " -- -C 1 " in info["options_in_effect"]
    assert [a["name"] for a in info["attributes"]][:1] == ["sepal length (cm)"]
    (tmp_path / "junk.lrm").write_bytes(b"junk")
    for bad in ("junk.lrm", "absent.lrm"):
        out = run("info", str(tmp_path / bad))
        assert out.exit_code == 1 and out.output.startswith(f"Error: {tmp_path / bad}: ")
        assert len(out.output.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("learner", "options", "chosen"),
    [
        ("LRRF", [], "-class-mode ranking"),  # auto resolved: complete rankings
        ("IBLR", [], "-K "),  # k chosen by leave-one-out
        ("LWRF", ["-I", "5", "-tune"], "-depth "),
        ("LRRF", ["-class-mode", "pairwise"], None),  # nothing left to the fit
    ],
)
def test_info_of_a_model_says_what_the_fit_chose(tmp_path, learner, options, chosen):
    model = tmp_path / "m.lrm"
    assert run("train", "-t", IRIS, "--no-cv", "-W", learner, "-d", str(model), "--", *options).exit_code == 0
    text = run("info", str(model)).output
    info = json.loads(run("info", str(model), "--format", "json").output)
    if chosen is None:
        assert "Chosen when fitting" not in text and info["chosen_when_fitting"] is None
    else:
        assert f"Chosen when fitting: {chosen}" in text and info["chosen_when_fitting"].startswith(chosen)


def test_a_mismatch_naming_a_line_break_stays_one_line():
    # A forged model file may name an attribute with a line break; the message shows it escaped.
    from lrank.data import Attribute, read_dataset
    from lrank.data.alignment import aligned_features
    from lrank.errors import DataFormatError

    data = read_dataset(IRIS)
    with pytest.raises(DataFormatError) as caught:
        aligned_features([Attribute("a\nb", "numeric")], data)
    assert "\n" not in str(caught.value) and "'a\\nb' (numeric)" in str(caught.value)


def test_info_of_a_model_saved_from_python_without_a_relation_says_so(tmp_path):
    from lrank import LabelRankingTree
    from lrank.datasets import load_iris
    from lrank.model_file import save_model

    path = tmp_path / "m.lrm"
    save_model(path, LabelRankingTree(max_depth=1).fit(load_iris()))
    assert "Trained on:          (not recorded)\n" in run("info", str(path)).output
