"""Experiment configuration: learner strings, sweeps, data set paths, TOML files."""

from __future__ import annotations

from pathlib import Path

import pytest
from lrank.errors import ExperimentError, LrankError
from lrank.experiment import (
    ExperimentConfig,
    LearnerSetting,
    expand_datasets,
    expand_sweep,
    load_config_file,
    parse_learner,
    parse_missing,
)
from lrank.experiment.config import merge_settings

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT / "datasets"


def test_learner_strings_give_name_options_and_label():
    assert parse_learner("LRRF") == LearnerSetting("LRRF", "LRRF", ())
    assert parse_learner("IBLR -K 10") == LearnerSetting("IBLR -K 10", "IBLR", ("-K", "10"))
    assert parse_learner("  lrrf   -I 100 -depth 0 ") == LearnerSetting(
        "lrrf -I 100 -depth 0", "LRRF", ("-I", "100", "-depth", "0")
    )
    assert parse_learner("RF100=LRRF -I 100") == LearnerSetting("RF100", "LRRF", ("-I", "100"))
    assert parse_learner("Random forest=LRRF").label == "Random forest"
    assert parse_learner("LRRF -I 100").options_text == "-I 100"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("XYZ", "unknown learner 'XYZ'"),
        ("LRRF -Q 1", "unknown option '-Q'"),
        ("LRRF -I many", "bad value 'many' for -I"),
        ("LRRF -I", "needs a value"),
        ("", "no learner name"),
        ("A=", "no learner name"),
        ("LRRF 'unclosed", "No closing quotation"),
    ],
)
def test_bad_learner_strings_are_refused_with_the_reason(text, message):
    with pytest.raises(LrankError, match=message):
        parse_learner(text)


def test_an_option_value_holding_equals_is_not_a_label():
    from lrank.experiment.config import _split_label

    assert _split_label("LRRF -K a=b") == (None, "LRRF -K a=b")
    assert _split_label("X=LRRF -K a=b") == ("X", "LRRF -K a=b")


def test_sweeps_expand_to_one_learner_per_value():
    trees = expand_sweep("LRRF -I 10,20,50 -depth 0")
    assert [t.label for t in trees] == ["LRRF -I 10 -depth 0", "LRRF -I 20 -depth 0", "LRRF -I 50 -depth 0"]
    assert trees[1].options == ("-I", "20", "-depth", "0")
    named = expand_sweep("RF=LRRF -depth 2,4")
    assert [(t.label, t.options) for t in named] == [("RF -depth 2", ("-depth", "2")), ("RF -depth 4", ("-depth", "4"))]
    with pytest.raises(ExperimentError, match="exactly one option"):
        expand_sweep("LRRF -I 10")
    with pytest.raises(ExperimentError, match="exactly one option"):
        expand_sweep("LRRF -I 10,20 -depth 1,2")
    with pytest.raises(ExperimentError, match="distinct and non-empty"):
        expand_sweep("LRRF -I 10,,20")
    with pytest.raises(LrankError, match="bad value 'x' for -I"):
        expand_sweep("LRRF -I 10,x")


def test_data_sets_from_files_directories_and_globs(tmp_path):
    iris, wine = str(DATASETS / "iris.xarff"), str(DATASETS / "wine.xarff")
    assert [d.name for d in expand_datasets([str(DATASETS)])] == ["iris", "wine"]
    assert [d.path for d in expand_datasets([wine, iris])] == [wine, iris]
    assert [d.name for d in expand_datasets([str(DATASETS / "*.xarff")])] == ["iris", "wine"]
    assert [d.name for d in expand_datasets([iris, iris])] == ["iris"]  # the same file twice
    assert [d.name for d in expand_datasets(["iris.xarff"], base_dir=DATASETS)] == ["iris"]
    (tmp_path / "iris.csv").write_text("A1,L1,L2\n1,1,2\n")
    with pytest.raises(ExperimentError, match="two data sets are named 'iris'.*name one of them as NAME="):
        expand_datasets([iris, str(tmp_path / "iris.csv")])
    # NAME=FILE names one file (a file whose name holds '=' is still a file).
    named = expand_datasets([iris, f"iris-csv={tmp_path / 'iris.csv'}"])
    assert [(d.name, d.path) for d in named] == [("iris", iris), ("iris-csv", str(tmp_path / "iris.csv"))]
    (tmp_path / "a=b.csv").write_text("A1,L1,L2\n1,1,2\n")
    assert [d.name for d in expand_datasets([str(tmp_path / "a=b.csv")])] == ["a=b"]
    with pytest.raises(ExperimentError, match="NAME= names one data file"):
        expand_datasets([f"all={DATASETS}"])
    with pytest.raises(ExperimentError, match="no such file or directory"):
        expand_datasets([str(tmp_path / "nope.xarff")])
    # A bundled data set by name, as lrank train -t wine takes it (a file of that name comes first).
    from lrank.datasets import path as bundled

    (found,) = expand_datasets(["wine"], base_dir=tmp_path)
    assert found.name == "wine" and Path(found.path).samefile(bundled("wine"))
    with pytest.raises(ExperimentError, match="no data files"):
        expand_datasets([str(tmp_path / "*.arff")])
    (tmp_path / "empty").mkdir()
    with pytest.raises(ExperimentError, match="holds no data files"):
        expand_datasets([str(tmp_path / "empty")])
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(ExperimentError, match="unknown data file suffix '.txt'"):
        expand_datasets([str(tmp_path / "notes.txt")])


def test_the_kebi_directory_gives_the_sixteen_sets(kebi_dir):
    names = [d.name for d in expand_datasets([str(kebi_dir)])]
    assert len(names) == 16 and names == sorted(names) and "fried" in names


def test_missing_probabilities():
    assert parse_missing("0,0.3, 0.6") == (0.0, 0.3, 0.6)
    assert parse_missing(0) == (0.0,)
    assert parse_missing([0.3, 0.3]) == (0.3,)
    for bad, message in (
        ("1", "must lie in"),
        ("-0.1", "must lie in"),
        ("x", "not a number"),
        ("", "not a number"),
        ([True], "must lie in"),
        ([], "at least one"),
    ):
        with pytest.raises(ExperimentError, match=message):
            parse_missing(bad)


def test_config_checks_itself():
    data = tuple(expand_datasets([str(DATASETS / "iris.xarff")]))
    learners = (parse_learner("LRRF"),)
    config = ExperimentConfig(datasets=data, learners=learners, folds=3, repeats=2, missing=(0.0, 0.3))
    assert config.n_cells == 1 * 1 * 2 * 2 * 3
    with pytest.raises(
        ExperimentError, match="given twice; name them apart, e.g. -W 'LRRF \\(a\\)=LRRF' -W 'LRRF \\(b\\)=LRRF'"
    ):
        ExperimentConfig(datasets=data, learners=learners * 2)
    # The Python API checks the probabilities as the command line does, before any cell runs.
    for missing in ((1.0,), (1.5,), (-0.1,)):
        with pytest.raises(ExperimentError, match=r"must lie in \[0, 1\)"):
            ExperimentConfig(datasets=data, learners=learners, missing=missing)
    with pytest.raises(ExperimentError, match="no learners"):
        ExperimentConfig(datasets=data, learners=())
    with pytest.raises(ExperimentError, match="no data sets"):
        ExperimentConfig(datasets=(), learners=learners)
    with pytest.raises(ExperimentError, match="folds must be at least 2"):
        ExperimentConfig(datasets=data, learners=learners, folds=1)
    for repeats in (0, 10**11):  # a number of repeats that would fill memory with cells is refused
        with pytest.raises(ExperimentError, match="repeats must lie in 1..10000"):
            ExperimentConfig(datasets=data, learners=learners, repeats=repeats)
    with pytest.raises(ExperimentError, match="workers"):
        ExperimentConfig(datasets=data, learners=learners, workers=0)
    with pytest.raises(ExperimentError, match="seed must be at least 0"):
        ExperimentConfig(datasets=data, learners=learners, seed=-1)
    with pytest.raises(ExperimentError, match="jobs must not be 0"):
        ExperimentConfig(datasets=data, learners=learners, jobs=0)
    # jobs as scikit-learn's n_jobs: -1 all cores, -2 all but one (refused before as "at least 1")
    assert ExperimentConfig(datasets=data, learners=learners, jobs=-1).jobs == -1


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("folds = 1", "folds must be at least 2, got 1"),
        ("repeats = 0", "repeats must lie in 1..10000, got 0"),
        ("seed = -3", "seed must be at least 0, got -3"),
        ("workers = 0", "workers must be at least 1, got 0"),
        ("jobs = 0", "jobs must not be 0: give a positive number of threads, or -1 for all cores"),
    ],
)
def test_a_config_files_out_of_range_number_names_the_file(tmp_path, setting, message):
    # The message named no file: a reader could not tell the file's value from the options'.
    config = tmp_path / "exp.toml"
    config.write_text(f'datasets = ["{DATASETS}/iris.xarff"]\nlearners = ["LRRF"]\n{setting}\n')
    with pytest.raises(ExperimentError) as err:
        load_config_file(config)
    assert str(err.value) == f"{config}: {message}"


def test_toml_files(tmp_path):
    config = tmp_path / "exp.toml"
    config.write_text(
        f'datasets = ["{DATASETS}/iris.xarff", "wine.xarff"]\n'
        'learners = ["LRRF -I 10", "K5=IBLR -K 5"]\nsweep = "LRRF -depth 1,2"\n'
        'folds = 4\nrepeats = 2\nmissing = [0, 0.3]\nseed = 7\noutput = "out/res.parquet"\njobs = 1\n'
    )
    (tmp_path / "wine.xarff").write_bytes((DATASETS / "wine.xarff").read_bytes())
    s = load_config_file(config)
    assert [d.name for d in s["datasets"]] == ["iris", "wine"]
    assert s["datasets"][1].path == str(tmp_path / "wine.xarff")  # relative to the file
    assert [lr.label for lr in s["learners"]] == ["LRRF -I 10", "K5"]
    assert s["sweep"] == ["LRRF -depth 1,2"]
    assert (s["folds"], s["repeats"], s["missing"], s["seed"], s["jobs"]) == (4, 2, (0.0, 0.3), 7, 1)
    assert s["output"] == str(tmp_path / "out" / "res.parquet")
    assert merge_settings(s, {"folds": 10, "repeats": None, "learners": None})["folds"] == 10
    assert merge_settings(s, {"folds": 10, "repeats": None})["repeats"] == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("fold = 3\n", "unknown setting 'fold'"),
        ("folds = 'ten'\n", "folds must be an integer"),
        ("learners = [1]\n", "learners must be a string or a list of strings"),
        ("learners = ['NOPE']\n", "unknown learner 'NOPE'"),
        ("datasets = ['nowhere']\n", "nowhere: no such file"),
        ("missing = [2]\n", "must lie in"),
        ("folds = [\n", "not valid TOML"),
    ],
)
def test_bad_toml_files_name_the_file_and_the_problem(tmp_path, text, message):
    config = tmp_path / "bad.toml"
    config.write_text(text)
    with pytest.raises(ExperimentError, match=message) as info:
        load_config_file(config)
    assert str(config) in str(info.value)
    with pytest.raises(ExperimentError, match="config file not found"):
        load_config_file(tmp_path / "absent.toml")


def test_learners_given_in_the_wrong_form_are_told_how_to_write_them():
    """An estimator, estimator parameters and a class name gave an AttributeError, "unknown
    learner '3'" and the list of names (a teaching-notebook audit)."""
    import lrank
    from lrank.experiment import ExperimentConfig, expand_datasets, parse_learner

    with pytest.raises(ExperimentError, match=r"a learner is given as text, as -W takes it \('LRT -depth 3'\)"):
        parse_learner(lrank.LabelRankingTree())
    with pytest.raises(LrankError, match=r"unknown learner '3'.*options are written as -W takes them"):
        parse_learner("LRT max_depth=3")
    with pytest.raises(LrankError, match="unknown learner 'LabelRankingTree': the learner of that estimator is LRT"):
        parse_learner("LabelRankingTree")
    with pytest.raises(ExperimentError, match="learners are parse_learner's LearnerSettings, not LabelRankingTree"):
        ExperimentConfig(
            datasets=tuple(expand_datasets(["iris"])), learners=(lrank.LabelRankingTree(),), output="x.parquet"
        )
    assert parse_learner("My tree=LRT -depth 1").label == "My tree"
    with pytest.raises(LrankError) as bad_option:  # a labelled learner's own error, no hint
        parse_learner("My tree=LRT -depth x")
    assert "options are written" not in str(bad_option.value)
