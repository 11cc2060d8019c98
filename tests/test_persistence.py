"""Every registered learner saves, loads and pickles: the model file the CLI writes (binary and
JSON) and a pickled estimator predict exactly as the fitted estimator does, from Python and from
`lrank train -d` / `lrank predict -l`."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from lrank.cli import main
from lrank.data import read_dataset
from lrank.model_file import load_model, save_model
from lrank.registry import available_learners

ROOT = Path(__file__).resolve().parents[1]
IRIS = ROOT / "datasets" / "iris.xarff"
# Small models: the point is the round trip, not the fit.
OPTIONS = {
    "LRRF": ["-I", "5"],
    "Bagging": ["-I", "3", "--", "-depth", "2"],
    "BoostLR": ["-I", "3", "--", "-depth", "2"],
    "GBLR": ["-I", "5", "-L", "5"],
    "LWRF": ["-I", "5"],
    "OVO": ["-depth", "3"],
    "PLRRF": ["-I", "5"],
    "PLRPW": ["-I", "3"],
    "MOREPLR": ["-I", "3"],
}
LEARNERS = sorted(available_learners())


def test_every_built_in_learner_is_covered():
    assert {
        "LRRF",
        "IBLR",
        "IBPL",
        "LRT",
        "WLRT",
        "FLRT",
        "Bagging",
        "LWDT",
        "LWRF",
        "OVO",
        "RPC",
        "Dummy",
        "BoostLR",
        "GBLR",
        "Linear",
    } <= set(LEARNERS)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", LEARNERS)
def test_model_files_and_pickles_predict_like_the_estimator(tmp_path, name):
    data = read_dataset(IRIS)
    x, y = data.feature_matrix(), data.rankings
    spec = available_learners()[name]
    options = OPTIONS.get(name, [])
    est = spec.build(options, seed=4, n_jobs=1).fit(x, y)
    expected = est.predict(x)
    for suffix in ("lrm", "json"):
        path = tmp_path / f"model.{suffix}"
        save_model(
            path, est, learner=name, learner_options=options, labels=list(data.labels), attributes=data.attributes
        )
        loaded = load_model(path)
        assert loaded.learner == name and type(loaded.estimator) is type(est)
        np.testing.assert_array_equal(loaded.estimator.predict(x), expected)
        assert loaded.estimator.model_ == est.model_
    back = pickle.loads(pickle.dumps(est))
    assert type(back.model_) is type(est.model_)
    np.testing.assert_array_equal(back.predict(x), expected)
    if hasattr(est, "predict_with_confidence"):
        for a, b in zip(back.predict_with_confidence(x), est.predict_with_confidence(x)):
            np.testing.assert_array_equal(a, b)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", LEARNERS)
def test_train_save_then_predict_from_the_command_line(tmp_path, name):
    model = tmp_path / "m.lrm"
    args = ["train", "-t", str(IRIS), "-W", name, "--no-cv", "-d", str(model), "-s", "2"]
    if name in OPTIONS:
        args += ["--", *OPTIONS[name]]
    trained = CliRunner().invoke(main, args)
    assert trained.exit_code == 0, trained.output
    out = tmp_path / "pred.txt"
    predicted = CliRunner().invoke(main, ["predict", "-l", str(model), "-T", str(IRIS), "-o", str(out)])
    assert predicted.exit_code == 0, predicted.output
    rows = out.read_text().splitlines()
    # three labels, separated by '>' or, for learners that predict ties, '='
    assert len(rows) == 150 and all(row.count(">") + row.count("=") == 2 for row in rows)


@pytest.mark.parametrize("name", sorted(available_learners()))
def test_json_model_files_of_degenerate_data_read_back(tmp_path, name):
    """Every ranking holds one label (no tau can be scored: NaN tuning scores) and one feature
    spans 1e200 (its square overflows): both formats save, load and predict alike, or the fit
    refuses the data; a JSON file that would not read back is never written."""
    import warnings

    from lrank.errors import LrankError

    rng = np.random.default_rng(0)
    x = np.column_stack([rng.normal(size=12) * 1e200, rng.normal(size=12)])
    y = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]] * 4, dtype=np.int32)
    spec = available_learners()[name]
    options = OPTIONS.get(name, [])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = spec.build(options, seed=4, n_jobs=1).fit(x, y)
    except LrankError:
        return  # refused with a message (e.g. a learner that needs two labels per ranking)
    for suffix in ("lrm", "json"):
        path = tmp_path / f"model.{suffix}"
        save_model(path, est, learner=name, learner_options=options, labels=["a", "b", "c"], attributes=_attrs(2))
        np.testing.assert_array_equal(load_model(path).estimator.predict(x), est.predict(x))


def _attrs(d):
    from lrank.data import Attribute

    return [Attribute(f"A{j + 1}", "numeric") for j in range(d)]


@pytest.mark.parametrize("name", ["RPC", "PLRPW", "Linear"])
def test_logistic_models_do_not_depend_on_the_features_magnitude(name):
    """Standardised inputs: features multiplied by 1e200 or 1e-200 (whose squares overflow or
    underflow) give the predictions of the features as they are."""
    data = read_dataset(IRIS)
    x, y = data.feature_matrix(), data.rankings
    options = ["-B", "logistic"] if name == "PLRPW" else []
    expected = available_learners()[name].build(options, seed=1).fit(x, y).predict(x)
    for factor in (1e200, 1e-200):
        scaled = available_learners()[name].build(options, seed=1).fit(x * factor, y).predict(x * factor)
        np.testing.assert_array_equal(scaled, expected, err_msg=str(factor))


def test_model_files_do_not_depend_on_the_thread_count(tmp_path):
    """The parameters in a model file held n_jobs, so its bytes (and checksum) changed with -j
    though the model did not (determinism audit)."""
    from click.testing import CliRunner
    from lrank.cli import main

    digests = set()
    for jobs in ("1", "2"):
        path = tmp_path / f"j{jobs}.lrm"
        result = CliRunner().invoke(main, ["train", "-t", "iris", "--no-cv", "-s", "1", "-j", jobs, "-d", str(path)])
        assert result.exit_code == 0, result.output
        digests.add(path.read_bytes())
    assert len(digests) == 1
    reports = {
        CliRunner().invoke(main, ["train", "-t", "iris", "-x", "3", "-s", "1", "-j", jobs, "--format", "json"]).output
        for jobs in ("1", "2")
    }
    untimed = {"\n".join(line for line in r.splitlines() if "seconds" not in line) for r in reports}
    assert len(untimed) == 1 and '"n_jobs": null' in untimed.pop()
