"""train_and_evaluate: lrank train's workflow as a library function (also the experiment's cells)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np
import pytest
from lrank.data import read_dataset
from lrank.errors import InvalidInputError
from lrank.evaluation import cross_validate, fold_plan
from lrank.evaluation.workflow import TrainingData, load_training_data, train_and_evaluate
from lrank.model_file import load_model
from lrank.registry import LearnerOptionError, get_learner

ROOT = Path(__file__).resolve().parents[1]
IRIS = ROOT / "datasets" / "iris.xarff"


def test_cross_validation_is_cross_validate_and_the_final_model_is_measured_on_the_training_data():
    data = read_dataset(IRIS)
    result = train_and_evaluate("LRRF", data, ["-I", "5"], folds=3, repeats=2, seed=3, missing=0.3)
    assert [e.name for e in result.evaluations] == ["training data", "cross-validation"]
    expected = cross_validate(
        lambda: get_learner("LRRF").build(["-I", "5"], seed=3),
        data.feature_matrix(),
        data.rankings,
        labels=data.labels,
        n_folds=3,
        repeats=2,
        seed=3,
        missing=0.3,
    )
    assert result.evaluations[1].folds == expected.folds
    assert [(f.repeat, f.fold) for f in result.folds] == [(r, k) for r in range(2) for k in range(3)]
    assert all(f.n_train + f.n_test == 150 and f.fit_seconds >= 0 for f in result.folds)
    assert result.spec.name == "LRRF" and result.estimator.n_estimators == 5 and result.estimator.random_state == 3
    assert result.build_seconds is not None and result.test_rows is None


def test_a_test_set_replaces_the_training_evaluation_and_cross_validation(tmp_path):
    out = tmp_path / "m.lrm"
    result = train_and_evaluate("IBLR", str(IRIS), ["-K", "5"], test=str(IRIS), model_out=out)
    assert [e.name for e in result.evaluations] == ["test data"] and result.folds == []
    assert result.test_rows == 150 and result.test_seconds is not None
    loaded = load_model(out)
    assert loaded.learner == "IBLR" and loaded.learner_options == ["-K", "5"]
    np.testing.assert_array_equal(loaded.estimator.predict(result.data.x), result.estimator.predict(result.data.x))


def test_given_fold_plans_without_a_final_model_make_one_experiment_cell():
    data = load_training_data(IRIS)
    plan = fold_plan(data.y, n_folds=4, seed=1, missing=0.5, repeat=1, fold=2)
    result = train_and_evaluate("LRT", data, plans=[plan], final_model=False)
    assert result.estimator is None and result.build_seconds is None
    assert [e.name for e in result.evaluations] == ["cross-validation"]
    (fold,) = result.folds
    assert (fold.repeat, fold.fold, fold.n_test) == (1, 2, plan.test.size)


def test_mistakes_are_reported_before_any_work():
    with pytest.raises(LearnerOptionError, match="unknown option '-Z'"):
        train_and_evaluate("LRRF", "no/such/file.xarff", ["-Z"])  # before reading the file
    with pytest.raises(InvalidInputError, match="cannot make 200 folds from 150 instances"):
        train_and_evaluate("LRRF", IRIS, folds=200)
    train_and_evaluate(get_learner("LRRF"), IRIS, ["-I", "2"], folds=200, cross_validation=False)
    with pytest.raises(InvalidInputError, match="needs the final model"):
        train_and_evaluate("LRRF", IRIS, test=IRIS, final_model=False)


def test_progress_is_told_the_number_of_folds_and_each_fold():
    seen: list[object] = []

    @contextlib.contextmanager
    def progress(total):
        seen.append(total)
        yield seen.append
        seen.append("closed")

    data = TrainingData.from_dataset(read_dataset(IRIS))
    result = train_and_evaluate("IBLR", data, ["-K", "5"], folds=3, repeats=2, progress=progress)
    assert seen == [6, *result.folds, "closed"]
