"""What lrank does with a learner plug-in that breaks the estimator contract (found by an audit
acting as a plug-in author): predictions that are no complete rankings are refused in the
learner's name instead of scored (0-based positions had scored tau 1), a fit without
sample_weight runs on unweighted data, a plug-in's own exception is one line, Bagging over a
plug-in works from the command line with seeds every library takes, and a plug-in's model is
refused before the fit when a model file is asked for."""

from __future__ import annotations

from pathlib import Path

import lrank.registry
import numpy as np
import pytest
from click.testing import CliRunner
from lrank import BaggingLabelRanker, InvalidInputError, LabelRankingTree
from lrank.cli import main
from lrank.metrics import kendall_tau, tau_x
from lrank.registry import LearnerOption, LearnerSpec

IRIS = "datasets/iris.xarff"


class MeanRanker:
    """A small plug-in: every row gets the training rankings' mean positions, ranked; ``mode``
    breaks the contract on purpose."""

    def __init__(self, mode: str = "ok", random_state: int | None = None) -> None:
        self.mode = mode
        self.random_state = random_state

    def get_params(self, deep: bool = True) -> dict:
        return {"mode": self.mode, "random_state": self.random_state}

    def set_params(self, **params):
        self.__dict__.update(params)
        return self

    def fit(self, X, y, sample_weight=None):
        if self.mode == "raise":
            raise RuntimeError("boom")
        # numpy's legacy seeding, which stops at 2**32 - 1, as many plug-ins seed
        np.random.RandomState(self.random_state)
        y = np.asarray(y, dtype=float)
        self.order_ = np.argsort(np.argsort(np.nanmean(np.where(y > 0, y, np.nan), axis=0))) + 1
        return self

    def predict(self, X):
        ranks = np.tile(self.order_, (len(X), 1))
        return ranks - 1 if self.mode == "zero-based" else ranks


class Picky(MeanRanker):
    """Refuses its own parameters in __init__, as many estimators do."""

    def __init__(self, mode: str = "ok", k: int = 1, random_state: int | None = None) -> None:
        if k < 1:
            raise ValueError("k must be >= 1")
        super().__init__(mode, random_state)
        self.k = k

    def get_params(self, deep: bool = True) -> dict:
        return {**super().get_params(deep), "k": self.k}


class NoParams:
    """No get_params: the report came after the whole fit, and crashed."""

    def fit(self, X, y, sample_weight=None):
        self.first_ = np.asarray(y)[0]
        return self

    def predict(self, X):
        return np.tile(self.first_, (len(X), 1))


class ScaledTree(LabelRankingTree):
    """A plug-in's subclass of an lrank estimator, with state of its own."""

    def fit(self, X, y, sample_weight=None):
        self.mu_ = np.mean(X, axis=0)
        return super().fit(np.asarray(X) - self.mu_, y, sample_weight)

    def predict(self, X):
        return super().predict(np.asarray(X) - self.mu_)


MODES = {"ok": "ok", "zero": "zero-based"}


class Unweighted(MeanRanker):
    def fit(self, X, y):  # takes no sample_weight
        return super().fit(X, y)


SPECS = [
    LearnerSpec("MEAN", MeanRanker, "mean positions", options=(LearnerOption("-mode", "mode", "how", str, "M"),)),
    LearnerSpec("UNWEIGHTED", Unweighted, "mean positions, no weights"),
    LearnerSpec(
        "PICKY",
        Picky,
        "mean positions",
        options=(LearnerOption("-k", "k", "k", int, "K"), LearnerOption("-m", "mode", "how", MODES.__getitem__, "M")),
    ),
    LearnerSpec("NOPARAMS", NoParams, "first ranking", seed_param=None, jobs_param=None),
    # A parser that changes the value: no text of -k gives the 3 that "-k 300" sets.
    LearnerSpec("PCT", Picky, "mean positions", options=(LearnerOption("-k", "k", "k", lambda t: int(t) // 100, "K"),)),
    LearnerSpec("SCALED", ScaledTree, "a tree on centred features"),
]


@pytest.fixture(autouse=True)
def plugins(monkeypatch):
    monkeypatch.setattr(lrank.registry, "_entry_point_specs", lambda: list(SPECS))


def train(*args: str):
    return CliRunner().invoke(main, ["train", "-t", IRIS, "-x", "3", *args])


def test_a_plugin_works_and_zero_based_predictions_are_refused_in_its_name():
    assert train("-W", "MEAN").exit_code == 0
    result = train("-W", "MEAN", "--", "-mode", "zero-based")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "MEAN predicted no complete ranking" in result.output
    assert "if its positions are 0-based, add 1" in result.output


def test_metrics_refuse_predictions_that_leave_labels_out():
    with pytest.raises(InvalidInputError, match="row 0 of y_pred leaves label 2 unranked"):
        tau_x([[1, 2, 3, 4]], [[1, 2, 0, 3]])
    with pytest.raises(InvalidInputError, match="0-based, add 1"):
        kendall_tau([[1, 2, 3]], [[0, 1, 2]])
    with pytest.raises(InvalidInputError, match=r"leaves label 1 unranked \(NaN\)"):
        kendall_tau([[1, 2, 3]], [[1.0, np.nan, 2.0]])
    # the truth may still lack labels: scored on those it holds
    assert kendall_tau([[1, 0, 2], [1, 2, 3]], [[1, 3, 2], [1, 2, 3]]) == 1.0


def test_a_fit_without_sample_weight_runs_on_unweighted_data_only(tmp_path):
    assert train("-W", "UNWEIGHTED").exit_code == 0
    weighted = tmp_path / "w.xarff"
    text = Path(IRIS).read_text().splitlines()
    data_at = text.index(next(line for line in text if line.strip().lower() == "@data")) + 1
    rows = [f"{line}, {{2}}" if line.strip() and not line.startswith("%") else line for line in text[data_at:]]
    weighted.write_text("\n".join(text[:data_at] + rows) + "\n")
    result = CliRunner().invoke(main, ["train", "-t", str(weighted), "-x", "3", "-W", "UNWEIGHTED"])
    assert result.exit_code == 1, result.output
    assert "UNWEIGHTED cannot use the data's instance weights: its fit takes no sample_weight" in result.output


def test_a_plugins_own_exception_is_one_line_naming_it():
    result = train("-W", "MEAN", "--", "-mode", "raise")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "MEAN (a learner plug-in) failed: RuntimeError: boom" in result.output


def test_bagging_a_plugin_from_the_command_line_and_in_python():
    result = train("-W", "Bagging", "--", "-W", "MEAN", "-I", "3")
    assert result.exit_code == 0, result.output
    x = np.random.default_rng(0).random((40, 3))
    y = np.tile([1, 2, 3], (40, 1))
    bag = BaggingLabelRanker(MeanRanker(), n_estimators=6, random_state=0).fit(x, y)
    assert all(0 <= m.random_state < 2**31 for m in bag.estimators_)


def test_a_plugins_model_file_is_refused_before_the_fit(tmp_path):
    model = tmp_path / "m.lrm"
    result = CliRunner().invoke(main, ["train", "-t", IRIS, "--no-cv", "-W", "MEAN", "-d", str(model)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "MEAN: a model file holds lrank's own models" in result.output
    assert not model.exists()


def test_zero_based_predictions_of_a_bagged_plugin_are_refused_not_reranked():
    # Bagging read position 0 as a label left out and ranked it anew: tau 0.11, no error.
    result = train("-W", "Bagging", "--", "-I", "3", "-W", "MEAN", "--", "-mode", "zero-based")
    assert result.exit_code == 1 and "Traceback" not in result.output
    line = result.output.strip()
    assert line.startswith("Error: bagged MeanRanker predicted no complete ranking"), line
    assert "if its positions are 0-based, add 1" in line and "iris" not in line  # not the data file's fault


@pytest.mark.parametrize(
    ("args", "message"),
    [
        # a plug-in's __init__ refusing a value
        (["-W", "PICKY", "--", "-k", "0"], "PICKY (a learner plug-in) failed: ValueError: k must be >= 1"),
        # a parser raising another kind than ValueError
        (["-W", "PICKY", "--", "-m", "c"], "PICKY: bad value 'c' for -m: KeyError: 'c'"),
        # a plug-in failing inside Bagging
        (["-W", "Bagging", "--", "-I", "2", "-W", "MEAN", "--", "-mode", "raise"], "MEAN (a learner plug-in) failed"),
    ],
)
def test_a_plugins_mistakes_are_one_line_naming_it(args, message):
    result = train(*args)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and message in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


def test_a_plugin_without_get_params_gets_its_report():
    result = train("-W", "NOPARAMS")
    assert result.exit_code == 0, result.output
    assert "Learner:      NOPARAMS" in result.output


def test_a_plugins_subclass_of_an_lrank_estimator_gets_no_model_file(tmp_path):
    # The file held the tree without the subclass's mu_: lrank predict crashed on it.
    model = tmp_path / "m.lrm"
    result = CliRunner().invoke(main, ["train", "-t", IRIS, "--no-cv", "-W", "SCALED", "-d", str(model)])
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert "a subclass of LabelRankingTree made outside lrank" in result.output
    assert not model.exists()
    result = CliRunner().invoke(main, ["train", "-t", IRIS, "-x", "3", "-W", "SCALED"])
    assert result.exit_code == 0, result.output


def test_the_parameters_line_leaves_out_what_no_option_text_gives():
    # "Parameters: -k 3" was printed for "-k 300": copied into a command, it set k to 0.
    result = train("-W", "PCT", "--no-cv", "--", "-k", "300")
    assert result.exit_code == 0, result.output
    assert "Learner:      PCT -k 300" in result.output
    parameters = next(line for line in result.output.splitlines() if line.startswith("Parameters:"))
    assert "-k" not in parameters


class ReversedTree(LabelRankingTree):
    """A subclass whose predict differs from its parent's."""

    def predict(self, X):
        ranks = super().predict(X)
        return ranks.max(axis=1, keepdims=True) + 1 - ranks


def test_bagging_a_subclass_of_an_lrank_estimator_runs_the_subclass():
    # The core grew the parent's trees instead: a reversing plug-in scored tau -0.97 alone and
    # +0.97 bagged. BoostLR, which boosts in the core only, refuses it.
    from lrank import AdaBoostLabelRanker
    from lrank.datasets import load_iris

    data = load_iris()
    x, y = data.feature_matrix(), data.rankings
    alone = ReversedTree(max_depth=3).fit(x, y).score(x, y)
    bagged = BaggingLabelRanker(ReversedTree(max_depth=3), n_estimators=3, random_state=0).fit(x, y)
    assert alone < -0.5 and bagged.score(x, y) < -0.5
    with pytest.raises(InvalidInputError, match="boosts lrank's own learners only"):
        AdaBoostLabelRanker(ReversedTree(), n_estimators=2).fit(x, y)
