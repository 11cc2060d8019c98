"""The command line for users coming from WEKA-LR and for scripts: hints for WEKA habits, the
test file checked before training, bundled data sets by name, the normalised footrule, and the
JSON report against its documented schema."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources

import pytest
from click.testing import CliRunner
from lrank.cli import main


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (["-W", "LRRF", "-I", "100"], "-I is an option of the learner LRRF; learner options go after --"),
        (["-W", "IBLR", "-K", "5"], "lrank train ... -W IBLR -- -K 5"),
        (["-no-cv"], "lrank's own long options take two dashes: --no-cv"),
        (["-repeats", "2"], "two dashes: --repeats"),
        (["-split-percentage", "66"], "two dashes: --split-percentage"),
        # Parsed alone it is -p with the value "reserve-order": the hint must come first.
        (["-preserve-order", "--split-percentage", "66"], "two dashes: --preserve-order"),
        (["-split-percentage=66"], "two dashes: --split-percentage=66"),
        (["-help"], "two dashes: --help"),
        # Learner options that click would read as one of lrank's short options with a value
        # (-depth as -d epth, -tune as -t une, -per-label as -p er-label).
        (["-W", "LRT", "-depth", "3"], "lrank train ... -W LRT -- -depth 3"),
        (["-W", "RPC", "-tune"], "-tune is an option of the learner RPC"),
        (["-W", "GBLR", "-per-label"], "-per-label is an option of the learner GBLR"),
        (["-W", "LRRF", "-leaf-missing", "0.1"], "-W LRRF -- -leaf-missing 0.1"),
        (["-W", "LRRF", "-depth", "--", "-I", "10"], "-depth is an option of the learner LRRF"),
        (["--", "-I", "5", "-x", "5"], "-x is an option of lrank train, not of the learner: put it before --"),
        (["-c", "last"], "WEKA's -c option is not needed: the ranking attribute is found by its type"),
        (["-classifications"], "WEKA's -classifications option is not offered: -p RANGE prints"),
        (["-i"], "WEKA's -i option is not needed"),
    ],
)
def test_weka_habits_get_a_hint(args, hint, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("train", "-t", "iris", *args)
    assert result.exit_code == 2
    assert hint in result.output, result.output
    assert not list(tmp_path.iterdir())  # no model file "epth" from -d epth


def test_an_unknown_option_without_a_guess_keeps_clicks_message():
    result = run("train", "-t", "iris", "-q")
    assert result.exit_code == 2 and "No such option" in result.output


def test_the_test_file_is_read_before_anything_is_fitted_or_saved(tmp_path):
    model = tmp_path / "m.lrm"
    result = run("train", "-t", "iris", "-T", str(tmp_path / "missing.xarff"), "-d", str(model))
    assert result.exit_code == 1 and "missing.xarff: file not found" in result.output
    assert not model.exists()
    wine = run("train", "-t", "iris", "-T", "wine", "-d", str(model))
    assert wine.exit_code == 1 and not model.exists(), wine.output
    # A model file that cannot be written is said before the fit, not after it.
    nowhere = tmp_path / "no" / "m.lrm"
    unwritable = run("train", "-t", "iris", "-W", "BoostLR", "-d", str(nowhere))
    assert unwritable.exit_code == 1 and "cannot be written: no writable directory" in unwritable.output
    assert "Kendall" not in unwritable.output  # nothing was evaluated


def test_bundled_data_sets_by_name(tmp_path):
    result = run("train", "-t", "iris", "-W", "Dummy", "--no-cv")
    assert result.exit_code == 0 and "Relation:     iris" in result.output
    assert run("info", "wine").exit_code == 0
    out = tmp_path / "iris.parquet"
    assert run("convert", "iris", str(out)).exit_code == 0 and out.exists()


def test_the_text_report_shows_the_normalised_footrule_and_the_options_in_effect():
    out = run("train", "-t", "iris", "-W", "LRRF", "-x", "3", "--", "-I", "7").output
    assert "Spearman footrule (normalised)" in out and "Spearman footrule distance" not in out
    assert "Parameters:   -I 7 -depth 8 -K log2+1 -class-mode auto -bins 255 -leaf-missing 0  (seed 1)" in out


def test_the_json_report_follows_its_schema_with_per_fold_values(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(resources.files("lrank.cli").joinpath("train_report.schema.json").read_text())
    cv = json.loads(run("train", "-t", "iris", "-x", "4", "--repeats", "2", "--format", "json").output)
    jsonschema.validate(cv, schema)
    folds = cv["evaluations"][1]["folds"]
    assert len(folds) == 8
    mean = sum(f["kendall_tau"] for f in folds) / 8
    assert abs(mean - cv["evaluations"][1]["measures"]["kendall_tau"]["mean"]) < 1e-6
    assert all(0 <= f["normalized_footrule"] <= 1 for f in folds)
    test = json.loads(run("train", "-t", "iris", "-T", "iris", "--format", "json").output)
    jsonschema.validate(test, schema)
    assert [e["name"] for e in test["evaluations"]] == ["test data"] and test["test_instances"] == 150
    broken = dict(cv, evaluations=[{"name": "cross-validation"}])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_options_in_effect_read_back_as_the_same_parameters():
    """`Parameters:` of the run information is what a user can paste after `--`: parsed again,
    it gives the estimator's parameters (None, such as "beta chosen out of bag", is left out
    rather than written as a 0 that would mean something else)."""
    import shlex

    from lrank.registry import available_learners

    for name, spec in available_learners().items():
        est = spec.build([], seed=1)
        params = est.get_params(deep=False)
        text = spec.describe(params)
        again = spec.build(shlex.split(text), seed=1).get_params(deep=False)
        for key, value in params.items():
            if key in ("estimator", "base_estimator"):
                assert type(again[key]) is type(value), name
                if hasattr(value, "get_params"):  # a member learner, its options after `--`
                    assert again[key].get_params(deep=False) == value.get_params(deep=False), f"{name}: {text!r}"
                else:
                    assert again[key] == value, name
            else:
                assert again[key] == value, f"{name}: {key} {value!r} -> {text!r} -> {again[key]!r}"


def test_a_nested_learners_options_are_in_effect_after_its_name():
    """A member's own options show after `--`, and read back as the same member."""
    import shlex

    from lrank.registry import get_learner

    text = run("train", "-t", "iris", "-x", "2", "-W", "Bagging", "--", "-W", "RPC", "-I", "3", "--", "-C", "10").output
    line = next(l for l in text.splitlines() if l.startswith("Parameters:"))
    options = line.removeprefix("Parameters:").split("  (seed")[0].strip()
    assert options.startswith("-W RPC -I 3 ") and " -- -C 10 " in options, line
    member = get_learner("Bagging").build(shlex.split(options)).get_params(deep=False)["estimator"]
    assert member.get_params(deep=False)["C"] == 10


def test_a_tuned_model_reports_what_its_inner_cross_validation_chose():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(resources.files("lrank.cli").joinpath("train_report.schema.json").read_text())
    for learner, option in [("RPC", "-C"), ("LWDT", "-depth"), ("GBLR", "-shrinkage")]:
        extra = ["-I", "8"] if learner == "GBLR" else []
        report = json.loads(
            run("train", "-t", "iris", "-W", learner, "--no-cv", "--format", "json", "--", "-tune", *extra).output
        )
        jsonschema.validate(report, schema)
        tuned = report["learner"]["tuned"]
        assert tuned and option in report["learner"]["tuned_options"].split()
        text = run("train", "-t", "iris", "-W", learner, "--no-cv", "--", "-tune", *extra).output
        assert f"Tuned:        {report['learner']['tuned_options']}  (chosen by inner cross-validation)" in text
    plain = json.loads(run("train", "-t", "iris", "-W", "RPC", "--no-cv", "--format", "json").output)
    jsonschema.validate(plain, schema)
    assert plain["learner"]["tuned"] is None and plain["learner"]["tuned_options"] is None
    assert "Tuned:" not in run("train", "-t", "iris", "-W", "RPC", "--no-cv").output


def test_cross_validation_options_with_a_test_file_are_noted_as_ignored():
    out = CliRunner().invoke(main, ["train", "-t", "iris", "-T", "iris", "-x", "5", "--repeats", "2", "-W", "Dummy"])
    assert out.exit_code == 0 and "Note: -x, --repeats ignored: cross-validation does not run with -T" in out.output
    quiet = CliRunner().invoke(main, ["train", "-t", "iris", "-T", "iris", "-W", "Dummy"])
    assert "Note:" not in quiet.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-j", "0"], "Invalid value for '-j' / '--jobs': 0 threads"),
        (["--repeats", "100000000000"], "Invalid value for '--repeats'"),
        (["-W", "LRRF -I 10"], "a learner's options go after --, as in lrank train ... -W LRRF -- -I 10"),
        (["-W", "LRRF", "--", "-I", "abc"], "Error: LRRF: bad value 'abc' for -I: not a whole number"),
        (["-W", "LRRF", "--", "-I", "0"], "Error: LRRF: bad value for -I: must be at least 1"),
        (["-W", "RPC", "--", "-C", "-1"], "Error: RPC: bad value for -C: must be positive"),
    ],
)
def test_bad_values_are_told_with_the_option_a_user_wrote(args, message):
    out = run("train", "-t", "iris", "--no-cv", *args)
    assert out.exit_code != 0 and message in out.output and "n_estimators" not in out.output


def test_a_percentage_split_evaluates_the_held_out_rows_as_a_fit_on_the_rest_does():
    """WEKA's -split-percentage: the report's measures are those of the learner fitted on the
    split's training rows and scored on the rest; each top label is split in proportion."""
    import numpy as np
    from lrank.data import read_dataset
    from lrank.datasets import resolve
    from lrank.evaluation.cross_validation import percentage_split
    from lrank.metrics import kendall_tau
    from lrank.registry import get_learner

    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(resources.files("lrank.cli").joinpath("train_report.schema.json").read_text())
    out = run("train", "-t", "iris", "-W", "LRRF", "-s", "3", "--split-percentage", "66", "--format", "json")
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    jsonschema.validate(report, schema)
    assert [e["name"] for e in report["evaluations"]] == ["training data", "percentage split"]
    data = read_dataset(resolve("iris"))
    plan = percentage_split(data.rankings, 66, seed=3)
    assert sorted(np.bincount(np.argmax(data.rankings[plan.train] == 1, axis=1))) == [33, 33, 33]
    assert np.intersect1d(plan.train, plan.test).size == 0 and plan.train.size + plan.test.size == 150
    est = get_learner("LRRF").build([], seed=3).fit(data.feature_matrix()[plan.train], plan.y_train)
    expected = kendall_tau(data.rankings[plan.test], est.predict(data.feature_matrix()[plan.test]))
    assert report["evaluations"][1]["measures"]["kendall_tau"]["mean"] == pytest.approx(expected, abs=1e-6)
    assert "=== Percentage split ===" in run("train", "-t", "iris", "-W", "Dummy", "--split-percentage", "50").output
    noted = run("train", "-t", "iris", "-T", "iris", "-W", "Dummy", "--split-percentage", "50").output
    assert "Note: --split-percentage ignored" in noted


def test_preserve_order_trains_on_the_first_rows_in_file_order():
    import numpy as np
    from lrank.data import read_dataset
    from lrank.datasets import resolve
    from lrank.metrics import kendall_tau
    from lrank.registry import get_learner

    out = run("train", "-t", "iris", "-W", "LRT", "--split-percentage", "66", "--preserve-order", "--format", "json")
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["test_mode"].startswith("split 66% train (the first rows, in file order)")
    data = read_dataset(resolve("iris"))
    x, y = data.feature_matrix(), data.rankings
    est = get_learner("LRT").build([], seed=1).fit(x[:99], y[:99])
    expected = kendall_tau(y[99:], est.predict(x[99:]))
    assert report["evaluations"][1]["measures"]["kendall_tau"]["mean"] == pytest.approx(expected, abs=1e-6)
    # iris's rows are sorted by class: its last third is unlike the first two (a shuffled,
    # stratified split scores above .95), and its top labels are mostly one.
    assert expected < 0.9 and np.mean(np.argmax(y[99:] == 1, axis=1) == 2) > 0.9
    refused = run("train", "-t", "iris", "--preserve-order")
    assert refused.exit_code == 2 and "--preserve-order goes with --split-percentage" in refused.output
    with_test = run("train", "-t", "iris", "-T", "iris", "--split-percentage", "66", "--preserve-order")
    assert with_test.exit_code == 2 and "Note:" not in with_test.output


def test_switch_like_values_are_shown_as_the_words_the_option_takes():
    import shlex

    from lrank import GradientBoostingLabelRanker
    from lrank.registry import get_learner

    spec = get_learner("GBLR")
    for value, word in ((True, "on"), (False, "off"), ("auto", "auto")):
        text = spec.describe(GradientBoostingLabelRanker(early_stopping=value).get_params(deep=False))
        assert f"-early {word}" in text
        assert spec.build(shlex.split(text)).get_params(deep=False)["early_stopping"] == value


def test_a_learners_warning_is_one_line_on_the_command_line():
    """In a process of its own: pytest would catch the warning before the command prints it."""
    import subprocess
    import sys

    args = ["train", "-t", "iris", "--no-cv", "-W", "RPC", "--", "-C", "1e300", "-max-iter", "2"]
    done = subprocess.run([sys.executable, "-m", "lrank", *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    warned = [line for line in done.stderr.splitlines() if "did not converge" in line]
    assert warned and all(line.startswith("Warning: RPC: ") for line in warned), done.stderr
    assert ".py:" not in done.stderr


def test_files_the_learners_cannot_use_are_named_in_the_message(tmp_path):
    no_features, two_rows = tmp_path / "labels_only.csv", tmp_path / "two.csv"
    no_features.write_text("L1,L2\n1,2\n2,1\n1,2\n")
    two_rows.write_text("A1,L1,L2\n1,1,2\n2,2,1\n")
    out = run("train", "-t", str(no_features), "-x", "2")
    assert out.exit_code == 1 and f"Error: {no_features}: no features to learn from" in out.output
    out = run("train", "-t", str(two_rows), "-x", "3")
    assert out.exit_code == 1 and f"Error: {two_rows}: cannot make 3 folds from 2 instances" in out.output


def test_a_command_imports_only_what_it_runs():
    # Every command paid for importing the experiment commands (pyarrow, the statistics) before
    # the subcommands were imported on first use.
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from lrank.cli import main\n"
        "result = CliRunner().invoke(main, ['train', '-t', 'iris', '--no-cv', '-W', 'Dummy'])\n"
        "print(result.exit_code, 'lrank.cli.experiment' in sys.modules, 'lrank.experiment' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["0", "False", "False"]
    help_text = run("--help").output
    assert all(name in help_text for name in ("train", "predict", "learners", "info", "convert", "experiment"))
