"""What every learner does with tied training rankings: learn from them in its documented way,
or refuse them with an error naming the row and the learner; never break ties silently."""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import make_tied_problem
from lrank import DummyLabelRanker, InvalidInputError
from lrank.aggregation import bpa, tied_borda, tied_copeland
from lrank.evaluation import Evaluation, tau_x
from lrank.rankings import tied_rows
from lrank.registry import get_learner


def tied_problem() -> tuple[np.ndarray, np.ndarray]:
    x, y = make_tied_problem()
    assert tied_rows(y).mean() > 0.2
    return x, y


REFUSE = {
    "LRT": "label ranking tree",
    "WLRT": "label ranking tree",
    "FLRT": "label ranking tree",
    "IBLR": "instance-based label ranking",
    "IBPL": "instance-based label ranking",
    "OVO": "one-versus-one",
    "RPC": "RPC",
    "GBLR": "Plackett-Luce loss",
    "Linear": "Plackett-Luce loss",
    "Bagging": "label ranking tree",  # its default base is LRT
    "BoostLR": "label ranking tree",
}
LEARN_WITHOUT_TIES = ["LRRF", "LWDT", "LWRF", "Dummy"]


@pytest.mark.parametrize("name", sorted(REFUSE))
def test_learners_without_ties_refuse_tied_rankings(name):
    """Before any work, naming the first tied row of y as given (not of a member's resample)
    and its labels."""
    x, y = tied_problem()
    est = get_learner(name).build([], seed=0)
    with pytest.raises(InvalidInputError) as info:
        est.fit(x, y)
    message = str(info.value)
    first = int(np.flatnonzero(tied_rows(y))[0])
    row = list(y[first])
    a = next(j for j, r in enumerate(row) if r > 0 and row.count(r) > 1)
    b = row.index(row[a], a + 1)
    assert message.startswith(f"row {first} of y: labels {a} and {b} are tied ({tied_rows(y).sum()} of {len(y)} ")
    assert REFUSE[name] in message and "which this estimator cannot learn from" in message
    assert "PairwisePartialLabelRanker" in message


def test_every_learner_says_whether_it_learns_from_ties_as_its_fit_does():
    """The core's own refusal (the estimators ask first) agrees with ``tie_refusal`` for every
    registered learner, ensembles over members that refuse included."""
    import json

    from lrank import _core
    from lrank.registry import available_learners

    x, y = tied_problem()
    for name, spec in available_learners().items():
        est = spec.build(["-loss", "pairwise"] if name == "GBLR" else [], seed=0)
        for variant in (est, spec.build(["-W", "RPC"], seed=0) if spec.nested_param else None):
            if variant is None:
                continue
            refusal = variant._tie_refusal()
            params = json.dumps(variant._core_params(0))
            if refusal is None:
                _core.Model.fit(params, x, y, n_jobs=1)
            else:
                said = re.escape(f"which this learner cannot learn from ({refusal})")
                with pytest.raises(InvalidInputError, match=said):
                    _core.Model.fit(params, x, y, n_jobs=1)


@pytest.mark.parametrize("name", LEARN_WITHOUT_TIES)
def test_learners_that_average_ties_predict_rankings(name):
    """LR-RF's ranking classes and Borda leaves, the labelwise targets (mid-ranks) and the Borda
    baseline use ties as documented and predict rankings without ties."""
    x, y = tied_problem()
    options = ["-I", "10"] if name in ("LRRF", "LWRF") else []
    est = get_learner(name).build(options, seed=0).fit(x, y)
    pred = est.predict(x)
    assert not tied_rows(pred).any()
    assert np.all(np.sort(pred, axis=1) == np.arange(1, 5))
    # a tied truth is scored with tau_x
    assert est.score(x, y) == pytest.approx(tau_x(y, pred))


def test_options_that_cannot_use_ties_refuse_them():
    x, y = tied_problem()
    y[0] = [1, 1, 2, 3]  # a tied top bucket
    with pytest.raises(InvalidInputError, match="row 0 .*top bucket ties several labels"):
        get_learner("LRRF").build(["-class-mode", "top_label", "-I", "3"], seed=0).fit(x, y)
    # The Mallows consensus refuses ties before any work, of the training rankings or (bagged)
    # of what members that learn from ties predict.
    with pytest.raises(
        InvalidInputError, match=r"row 0 of y: .*\(the Mallows consensus combines rankings without ties\)"
    ):
        DummyLabelRanker(aggregation="mallows").fit(x, y)
    with pytest.raises(InvalidInputError, match=r"\(the Mallows consensus combines rankings without ties\)"):
        get_learner("Bagging").build(["-W", "PLRT", "-I", "3", "-A", "mallows"], seed=0).fit(x, y)
    get_learner("Bagging").build(["-W", "PLRT", "-I", "3", "-A", "bpa"], seed=0).fit(x, y)
    get_learner("LRRF").build(["-class-mode", "pairwise", "-I", "3"], seed=0).fit(x, y)  # tied pairs left out


def test_bagging_learns_from_ties_when_its_base_does():
    x, y = tied_problem()
    est = get_learner("Bagging").build(["-W", "LWDT", "-I", "5", "-A", "bpa"], seed=0).fit(x, y)
    per = est.predict_per_member(x[:5])
    np.testing.assert_array_equal(est.predict(x[:5]), [bpa(per[:, i, :]) for i in range(5)])


@pytest.mark.parametrize(
    ("aggregation", "combine"), [("bpa", bpa), ("borda-ties", tied_borda), ("copeland-ties", tied_copeland)]
)
def test_the_baseline_with_ties_predicts_the_consensus_bucket_order(aggregation, combine):
    x, y = tied_problem()
    est = DummyLabelRanker(aggregation=aggregation).fit(x, y)
    np.testing.assert_array_equal(est.ranking_, combine(y))
    np.testing.assert_array_equal(est.predict(x[:3]), np.tile(combine(y), (3, 1)))
    with pytest.raises(InvalidInputError, match="beta"):
        DummyLabelRanker(aggregation=aggregation, beta=-1.0).fit(x, y)


def test_all_tied_baseline_scores_as_published():
    """Predicting every label tied nets 0 on every strictly ordered pair and 1 on tied pairs."""
    _, y = tied_problem()
    all_tied = np.ones_like(y)
    share = np.mean([(np.sum(r[:, None] == r[None, :]) - 4) / 12 for r in y])
    assert tau_x(y, all_tied) == pytest.approx(share)


def test_reports_show_tau_x_when_the_truth_has_ties():
    x, y = tied_problem()
    ev = Evaluation("cv", ["a", "b", "c", "d"])
    ev.add(y, DummyLabelRanker(aggregation="bpa").fit(x, y).predict(x))
    d = ev.to_dict()
    assert next(iter(d["measures"])) == "tau_x" and d["measures"]["tau_x"]["mean"] is not None
    strict = Evaluation("cv", ["a", "b", "c", "d"])
    strict.add(np.array([[1, 2, 3, 4]]), np.array([[1, 2, 3, 4]]))
    assert "tau_x" not in strict.to_dict()["measures"]


@pytest.mark.parametrize(
    ("base", "options"),
    [("PLRT", []), ("PLRRF", ["-I", "3"]), ("PLRPW", ["-I", "3"]), ("IBPLR", ["-K", "5"]), ("MOREPLR", ["-I", "3"])],
)
def test_every_plr_learner_bags_and_saves(tmp_path, base, options):
    from lrank.data import Attribute
    from lrank.model_file import load_model, save_model

    x, y = tied_problem()
    est = get_learner("Bagging").build(["-W", base, "-I", "3", "-A", "bpa", "--", *options], seed=1).fit(x, y)
    pred = est.predict(x)
    steps = np.diff(np.sort(pred, axis=1), axis=1, prepend=0)
    assert np.all(pred > 0) and np.all((steps == 0) | (steps == 1))
    per = est.predict_per_member(x[:4])
    np.testing.assert_array_equal(pred[:4], [bpa(per[:, i, :]) for i in range(4)])
    path = tmp_path / "bag.lrm"
    attributes = [Attribute(f"A{j}", "numeric") for j in range(x.shape[1])]
    save_model(path, est, learner="Bagging", learner_options=[], labels=["a", "b", "c", "d"], attributes=attributes)
    np.testing.assert_array_equal(load_model(path).estimator.predict(x), pred)
