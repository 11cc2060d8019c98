"""The extension module lrank._core: error mapping, panics, aggregation, measures, model files."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest
from lrank import LrankError, ModelFormatError, _core
from lrank.errors import InvalidInputError, InvalidParameterError


def _forest(x, y, *, n_estimators, seed, max_depth=8, n_jobs=None):
    params = {
        "RandomForest": {
            "n_estimators": n_estimators,
            "max_depth": max_depth,
            "max_features": "Log2PlusOne",
            "class_mode": "Ranking",
            "bootstrap": True,
            "seed": seed,
            "entropy_epsilon": 1e-6,
        }
    }
    return _core.Model.fit(json.dumps(params), x, y, n_jobs=n_jobs)


def test_a_rust_panic_arrives_as_lrank_error_not_panic_exception():
    with pytest.raises(LrankError, match="internal error in lrank.*deliberate test panic"):
        _core._panic_for_test()


def test_invalid_rank_matrix_is_a_value_error_naming_the_row():
    with pytest.raises(InvalidInputError, match="row 1 .*positions must be dense.*position 2 is skipped"):
        _core.validate_rank_matrix(np.array([[1, 2, 3], [3, 3, 1]], dtype=np.int32))
    _core.validate_rank_matrix(np.array([[1, 2, 2], [2, 2, 1]], dtype=np.int32))  # ties are rankings
    with pytest.raises(ValueError):  # the hierarchy also satisfies plain ValueError handlers
        _core.validate_rank_matrix(np.array([[1, 3, 0]], dtype=np.int32))


def test_generalized_borda_of_incomplete_rankings():
    y = np.array([[1, 2, 0, 0], [0, 0, 1, 2]], dtype=np.int32)
    scores = _core.borda_scores(y)
    # ranked labels get (3 - r) * 5/3, missing ones 5/2
    np.testing.assert_allclose(scores, [10 / 3 + 2.5, 5 / 3 + 2.5, 2.5 + 10 / 3, 2.5 + 5 / 3])
    np.testing.assert_array_equal(_core.borda(y), [1, 3, 2, 4])  # ties go to the lower index
    # weighted: 10/3 + 3 * 2.5, 5/3 + 3 * 2.5, 2.5 + 3 * 10/3, 2.5 + 3 * 5/3
    np.testing.assert_array_equal(_core.borda(y, np.array([1.0, 3.0])), [2, 3, 1, 4])
    with pytest.raises(InvalidInputError, match="weights"):
        _core.borda(y, np.array([1.0]))


def test_row_measures_and_pairwise_matrix():
    truth = np.array([[1, 2, 3], [1, 2, 3]], dtype=np.int32)
    pred = np.array([[1, 2, 3], [3, 2, 1]], dtype=np.int32)
    m = _core.row_measures(truth, pred)
    np.testing.assert_array_equal(m["kendall_tau"], [1.0, -1.0])
    np.testing.assert_array_equal(m["spearman_rho"], [1.0, -1.0])
    np.testing.assert_array_equal(m["footrule"], [0.0, 4.0])
    np.testing.assert_array_equal(m["top_label_correct"], [1.0, 0.0])
    correct, incorrect = _core.pairwise_matrix(truth, pred)
    assert correct.tolist() == [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    assert incorrect.tolist() == [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    with pytest.raises(InvalidInputError, match="differ in shape"):
        _core.row_measures(truth, pred[:1])


def test_non_contiguous_inputs_are_accepted(problem):
    x, y = problem
    xf = np.asfortranarray(x)
    model = _forest(xf, np.ascontiguousarray(y), n_estimators=3, seed=1)
    np.testing.assert_array_equal(model.predict(xf), model.predict(np.ascontiguousarray(x)))


def test_model_files_round_trip_and_refuse_damage(problem):
    x, y = problem
    model = _forest(x, y, n_estimators=4, seed=5)
    for fmt in ("binary", "json"):
        data = _core.save_model(model, '{"labels": ["a"]}', fmt)
        back, meta = _core.load_model(data)
        assert back == model and '"labels"' in meta
        np.testing.assert_array_equal(back.predict(x), model.predict(x))
    data = bytearray(_core.save_model(model, "{}", "binary"))
    data[-1] ^= 0xFF
    with pytest.raises(ModelFormatError, match="damaged"):
        _core.load_model(bytes(data))
    with pytest.raises(ModelFormatError, match="not an lrank model"):
        _core.load_model(b"\x00\x01garbage")
    current = f'"format_version":{_core.MODEL_FORMAT_VERSION}'.encode()
    newer = _core.MODEL_FORMAT_VERSION + 1
    other_version = _core.save_model(model, "{}", "json").replace(current, f'"format_version":{newer}'.encode())
    with pytest.raises(ModelFormatError, match=f"format version {newer}"):
        _core.load_model(other_version)
    with pytest.raises(InvalidInputError, match="metadata is not valid JSON"):
        _core.save_model(model, "{nope", "binary")


def test_stub_file_matches_the_extension():
    if shutil.which("stubtest") is None and not _has_module("mypy"):
        pytest.skip("mypy is not installed (pip install -e '.[test]')")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "lrank._core", "--ignore-missing-stub"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def test_fit_releases_the_gil():
    """While a forest grows in another thread (one core), this thread keeps running Python code
    at a good share of its normal speed; holding the GIL would stall it for the whole fit."""
    import threading
    import time

    from conftest import make_problem

    x, y = make_problem(n=20000, m=5, d=6, seed=4)
    ticks, start = 0, time.perf_counter()
    while time.perf_counter() - start < 0.2:
        ticks += 1
    rate = ticks / 0.2
    started, done = threading.Event(), threading.Event()
    span: list[float] = []

    def fit() -> None:
        started.set()
        t0 = time.perf_counter()
        _forest(x, y, n_estimators=60, max_depth=None, seed=1, n_jobs=1)
        span.append(time.perf_counter() - t0)
        done.set()

    worker = threading.Thread(target=fit)
    worker.start()
    started.wait()
    ticks = 0
    while not done.is_set():
        ticks += 1
        time.perf_counter()  # same loop body as the calibration
    worker.join()
    assert span[0] > 0.3, "the fit must be long enough to measure"
    assert ticks > 0.2 * rate * span[0], (ticks, rate, span)


def test_every_core_error_variant_has_its_exception(problem):
    x, y = problem
    params = json.loads(_core.Model.fit(json.dumps({"Dummy": {"aggregator": "Borda", "seed": 0}}), x, y).params_json())
    assert params == {"Dummy": {"aggregator": "Borda", "seed": 0}}
    bad = {"RandomForest": {**json.loads(_forest(x, y, n_estimators=2, seed=0).params_json())["RandomForest"]}}
    bad["RandomForest"]["n_estimators"] = 0
    with pytest.raises(InvalidParameterError, match="n_estimators: must be at least 1") as err:
        _core.Model.fit(json.dumps(bad), x, y)
    assert (err.value.parameter, err.value.reason) == ("n_estimators", "must be at least 1")
    with pytest.raises(InvalidInputError, match="invalid learner parameters"):
        _core.Model.fit('{"NoSuchLearner": {}}', x, y)
    with pytest.raises(InvalidInputError, match="row 0 of the rank matrix"):
        _core.Model.fit(json.dumps(params), x[:2], np.array([[1, 1, 3, 4], [1, 2, 3, 4]], dtype=np.int32))
    with pytest.raises(InvalidInputError, match="n_jobs"):
        _core.Model.fit(json.dumps(params), x, y, n_jobs=0)
    with pytest.raises(ModelFormatError):
        _core.load_model(b"LRANKMDL")


def test_one_model_class_for_every_learner(problem):
    x, y = problem
    assert "Dummy" in _core.LEARNER_KINDS and len(set(_core.LEARNER_KINDS)) == len(_core.LEARNER_KINDS)
    model = _core.Model.fit(json.dumps({"Dummy": {"aggregator": "Copeland", "seed": 0}}), x, y)
    assert model.kind == "Dummy" and (model.n_features, model.n_labels) == x.shape[1:] + y.shape[1:]
    ranks, confidence = model.predict_with_confidence(x)
    assert confidence is None and model.predict_scores(x) is None and model.predict_members(x) is None
    assert (ranks == ranks[0]).all()
    forest = _forest(x, y, n_estimators=3, seed=2)
    assert forest.predict_members(x).shape == (3, *y.shape)
    assert json.loads(forest.summary_json())["tree_depths"]


def test_the_exact_forest_steps_refuse_bytes_and_arrays_they_did_not_write():
    x = np.random.default_rng(0).random((20, 3))
    y = np.tile(np.array([[1, 2, 3]], dtype=np.int32), (20, 1))
    summary = _core.exact_part_summary(x, y, 0, 20, 255)
    params = json.dumps({"RandomForest": {**json.loads(_forest_params()), "n_estimators": 2}})
    driver = _core.ExactForest(params, [summary], 3)
    setup = driver.setup()
    codes = _core.exact_part_codes(setup, x)
    plan = driver.plan()
    with pytest.raises(InvalidInputError, match="a part's summary: not the bytes"):
        _core.ExactForest(params, [b"\x07" + bytes(summary)[1:-3]], 3)
    with pytest.raises(InvalidInputError, match="a round's plan: not the bytes"):
        _core.exact_part_sums(setup, b"\xff" * 7, codes, y, 0)
    with pytest.raises(InvalidInputError, match="beyond its"):
        _core.exact_part_sums(setup, plan, np.full_like(codes, 250), y, 0)
    # 20 rows: the root's rows come as records (slot, weight, codes, ...), not sums.
    sums, rows = _core.exact_part_sums(setup, plan, codes, y, 0)
    assert len(sums) == 0 and rows[0] == 0 and rows[1] >= 1
    forged = rows.copy()
    forged[1] = -1.0
    with pytest.raises(InvalidInputError, match="a weight of -1"):
        driver.absorb(sums, forged)
    with pytest.raises(InvalidInputError, match="cut short"):
        driver.absorb(sums, rows[:-1])
    with pytest.raises(InvalidInputError, match="medians are not set"):
        driver.finish()
    # The driver is not spent by a finish that came too early: it goes on.
    bins = driver.median_bins(_core.exact_part_bin_counts(setup, codes))
    driver.set_medians([_core.exact_part_values_in_bins(x, codes, bins)])
    with pytest.raises(InvalidInputError, match="0 of 2 trees are grown"):
        driver.finish()
    while (plan := driver.plan()) is not None:
        driver.absorb(*_core.exact_part_sums(setup, plan, codes, y, 0))
    assert driver.finish().n_labels == 3
    with pytest.raises(InvalidInputError, match="finished"):
        driver.finish()
    with pytest.raises(
        InvalidInputError,
        match="the exact distributed forest grows LR-RF, LWRF, the OVO forest or the PLR forest, not Dummy",
    ):
        _core.ExactForest(json.dumps({"Dummy": {"aggregator": "Borda", "seed": 0}}), [summary], 3)


def _forest_params() -> str:
    return json.dumps(
        {
            "n_estimators": 1,
            "max_depth": 8,
            "max_features": "Log2PlusOne",
            "class_mode": "Auto",
            "bootstrap": True,
            "seed": 0,
            "entropy_epsilon": 1e-6,
        }
    )
