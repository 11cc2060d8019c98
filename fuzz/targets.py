"""What a worker does with one fuzz case, and how the result is classified.

Each target takes the case (a dict) and returns normally ("loaded"), raises an lrank error
("clean error", after checking that its message is one line and names the file it is about), or
anything else. :func:`run` classifies: a Rust panic (Polars' ``PanicException``, lrank's
"internal error") is "panic", ``MemoryError`` is "memory over limit", any other exception, and a
clean-looking error that fails the checks (several lines, no file name, a file written that its
own reader refuses), is "unexpected exception". Crashes, hangs and memory beyond the limit are
seen by the supervising process (:mod:`fuzz.harness`).
"""

from __future__ import annotations

import pickle
import random
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from click.testing import CliRunner
from lrank.errors import LrankError

OUTCOMES = ("loaded", "clean error", "unexpected exception", "panic", "crash", "hang", "memory over limit")


class UnexpectedError(Exception):
    """A result that is no crash but breaks the rule (the message says how)."""


def _clean(exc: BaseException, about: str | None) -> None:
    """Raises UnexpectedError unless ``exc`` is a one-line message naming ``about`` (when given)."""
    text = str(exc)
    if "\n" in text.strip():
        raise UnexpectedError(f"an error of several lines: {text[:200]!r}")
    if about is not None and about not in text:
        raise UnexpectedError(f"an error that does not name {about}: {text[:200]!r}")


def reader(case: dict[str, Any]) -> None:
    """Reads a data file, describes it, converts it to every format and back, and trains a cheap
    learner on it; every error must name the file."""
    from lrank.data import read_dataset, write_dataset
    from lrank.data.summary import summarize
    from lrank.evaluation.workflow import train_and_evaluate

    path = case["path"]
    try:
        ds = read_dataset(path, require_rankings=False)
    except LrankError as exc:
        _clean(exc, path)
        raise
    summarize(ds)
    ds.feature_matrix()
    tmp = Path(case["tmp"])
    for suffix in (".xarff", ".parquet", ".csv"):
        out = tmp / f"converted{suffix}"
        try:
            write_dataset(ds, out)
        except LrankError:
            continue  # the format cannot hold the data set: refused, fine
        try:
            back = read_dataset(out, require_rankings=False)
        except LrankError as exc:
            raise UnexpectedError(f"lrank wrote a {suffix} file it cannot read back: {exc}") from None
        if back.n_rows != ds.n_rows or (suffix != ".csv" and back.labels != ds.labels):
            raise UnexpectedError(f"the {suffix} round trip changed the data set's shape")
    if ds.rankings is None or ds.n_rows > 60:
        return
    rng = random.Random(case["seed"])
    learner, options = rng.choice(
        [("Dummy", []), ("LRT", []), ("IBLR", ["-K", "3"]), ("LRRF", ["-I", "2"]), ("LWDT", []), ("RPC", [])]
    )
    try:
        train_and_evaluate(learner, path, options, folds=2, cross_validation=ds.n_rows >= 2 and rng.random() < 0.5)
    except LrankError as exc:
        _clean(exc, path)
        raise


def model(case: dict[str, Any]) -> None:
    """Loads a model file and predicts with it (rankings, confidences, a pickle round trip)."""
    from lrank.model_file import load_model

    path = case["path"]
    try:
        loaded = load_model(path)
    except LrankError as exc:
        _clean(exc, path)
        raise
    est = loaded.estimator
    rng = np.random.default_rng(case["seed"])
    x = rng.normal(size=(7, est.n_features_in_)) * rng.choice([1.0, 1e300])
    x[rng.random(x.shape) < 0.1] = np.nan
    pred = est.predict(x)
    if pred.shape != (7, len(loaded.labels)):
        raise UnexpectedError(f"a prediction of shape {pred.shape} for 7 rows and {len(loaded.labels)} labels")
    if hasattr(est, "predict_with_confidence"):
        est.predict_with_confidence(x)
    again = pickle.loads(pickle.dumps(est))
    if not np.array_equal(again.predict(x), pred):
        raise UnexpectedError("a pickled and unpickled model predicts otherwise")


def _cli(args: list[str]) -> None:
    """Runs the command line; exit status 1 or 2 with ``Error: ...`` is a clean error."""
    from lrank.cli import main

    result = CliRunner().invoke(main, args, catch_exceptions=True)
    if result.exit_code == 0:
        return
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    last = result.output.strip().splitlines()[-1] if result.output.strip() else ""
    if result.exit_code == 1:
        # lrank's errors: one line of output, "Error: ..."
        if not result.output.startswith("Error: ") or result.output.count("\n") != 1:
            raise UnexpectedError(f"exit status 1 with output {result.output[:300]!r}")
    elif result.exit_code != 2 or not last.startswith("Error: "):  # 2: click's usage errors
        raise UnexpectedError(f"exit status {result.exit_code} with output {result.output[:300]!r}")
    raise _CliError(last)


class _CliError(LrankError):
    """A command that ended with a clean one-line error."""


def store(case: dict[str, Any]) -> None:
    """Reports an experiment store (read, tables, statistics, text); errors must name it."""
    try:
        _cli(["experiment", "report", case["path"]])
    except _CliError as exc:
        _clean(exc, case["path"])
        raise


# -- estimators on arbitrary parameters and arrays -------------------------------------------------

PARAM_VALUES: list[Any] = [
    None, 0, 1, 2, 3, -1, 2**31, 2**63, 2**64, 10**12, 0.0, 0.5, 1.0, 1.5, -0.5, float("nan"), float("inf"),
    True, False, "", "x", "sqrt", "log2+1", "all", "borda", "kemeny", "copeland", "mallows", "forest", "tree",
    "uniform", "dudani", "ranking", "pairwise", "top_label", "probability", "binary", "soft", "equal_width",
    [0], [True, False], np.int64(2), np.float32(0.5), np.bool_(True),
]  # fmt: skip

# Parameters whose values would only make a valid fit slow (the counts' upper limits are tested).
SLOW = {"n_estimators": 200, "max_iter": 500}


def _array(rng: np.random.Generator, n: int, d: int) -> Any:
    x = rng.normal(size=(n, d)) * rng.choice([1.0, 1.0, 1e-300, 1e300])
    if rng.random() < 0.4:  # missing and edge values in some arrays only, so that most fits run
        special = rng.random(x.shape)
        x[special < 0.05] = np.nan
        x[(special > 0.05) & (special < 0.06)] = rng.choice([np.inf, -np.inf, 5e-324, 1.7e308, -0.0])
    kind = rng.integers(6)
    if kind == 0:
        return x.tolist()
    if kind == 1:
        with np.errstate(over="ignore"):  # 1e300 as float32 is infinite: one more edge value
            return x.astype(np.float32)
    if kind == 2:
        return np.asfortranarray(x)
    if kind == 3 and n:
        return x[::-1]
    return x


def _rankings(rng: np.random.Generator, n: int, m: int) -> Any:
    y = np.zeros((n, m), dtype=np.int64)
    for i in range(n):
        k = int(rng.integers(1, m + 1)) if m else 0
        y[i, rng.permutation(m)[:k]] = np.arange(1, k + 1)
    if n and m and rng.random() < 0.1:
        y[rng.integers(n), rng.integers(m)] = rng.choice([-1, 0, m + 1, 2**32 + 1, 2**31])
    kind = rng.integers(5)
    if kind == 0:
        return y.astype(np.float64)
    if kind == 1:
        return y.astype(np.int32)
    if kind == 2:
        return np.where(y == 0, np.nan, y.astype(np.float64))
    return y


def estimator(case: dict[str, Any]) -> None:
    """A learner of the registry with one to three parameters set to edge values, fitted on
    random arrays (edge values, odd dtypes and layouts, invalid rankings, bad weights), then
    used: predict, score, pickle, a model file and back."""
    from lrank.model_file import load_model, save_model
    from lrank.registry import available_learners

    rng = np.random.default_rng(case["seed"])
    specs = available_learners()
    name = sorted(specs)[int(rng.integers(len(specs)))]
    est = specs[name].factory()
    params = est.get_params()
    edits = int(rng.choice([0, 0, 1, 1, 2, 3]))
    for key in rng.choice(sorted(params), size=min(len(params), edits), replace=False):
        value = PARAM_VALUES[int(rng.integers(len(PARAM_VALUES)))]
        if key in SLOW and isinstance(value, (int, np.integer)) and SLOW[key] < value < 2**62:
            value = SLOW[key]
        est.set_params(**{str(key): value})
    n, d = int(rng.choice([0, 1, 2, 5, 20, 60, 60])), int(rng.choice([0, 1, 2, 3, 3, 6]))
    m = int(rng.choice([1, 2, 3, 5, 9]))
    x, y = _array(rng, n, d), _rankings(rng, n, m)
    w = None if rng.random() < 0.6 else rng.choice([np.ones(n), rng.random(n), np.full(n, 1e200), -np.ones(n)])
    est.fit(x, y, sample_weight=w)
    pred = est.predict(_array(rng, 4, d))
    if pred.shape != (4, m):
        raise UnexpectedError(f"{name}: a prediction of shape {pred.shape} for 4 rows and {m} labels")
    est.score(x, y)
    again = pickle.loads(pickle.dumps(est))
    again.predict(np.zeros((1, d)))
    path = Path(case["tmp"]) / "model.lrm"
    attributes = [__import__("lrank.data", fromlist=["Attribute"]).Attribute(f"a{j}", "numeric") for j in range(d)]
    save_model(path, est, learner=name, learner_options=[], labels=[f"l{j}" for j in range(m)], attributes=attributes)
    load_model(path).estimator.predict(np.zeros((1, d)))


def cli(case: dict[str, Any]) -> None:
    """The command line with arguments drawn from its options, edge values among them."""
    rng = random.Random(case["seed"])
    data = case["data"]
    learner = rng.choice(["LRRF", "IBLR", "LRT", "WLRT", "Bagging", "LWDT", "LWRF", "OVO", "RPC", "Dummy", "IBPL"])
    values = ["0", "1", "2", "-1", "1000000000000", "0.5", "1.5", "nan", "inf", "x", "", "all", "sqrt", "kemeny"]
    flags = ["-I", "-depth", "-K", "-M", "-A", "-W", "-P", "-B", "-V", "-C", "-max-iter", "-tol", "-class-mode"]
    options = [t for _ in range(rng.randint(0, 3)) for t in (rng.choice(flags), rng.choice(values))]
    command = rng.choice(["train", "train", "train", "info", "convert", "predict"])
    if command == "train":
        args = ["train", "-t", rng.choice(data), "-W", learner, "-x", rng.choice(["2", "3", "1", "0", "100"])]
        args += rng.sample(["--no-cv", "--missing", "0.3", "-s", "7", "-j", "1", "--format", "json"], rng.randint(0, 3))
        args += ["--", *options]
    elif command == "info":
        args = ["info", rng.choice(data), "--format", rng.choice(["text", "json"])]
    elif command == "convert":
        args = ["convert", rng.choice(data), str(Path(case["tmp"]) / f"out.{rng.choice(['xarff', 'csv', 'parquet'])}")]
    else:
        args = ["predict", "-l", rng.choice(case["models"]), "-T", rng.choice(data)]
    _cli(args)


# -- self tests of the harness (never part of a campaign) -------------------------------------------


def _selftest(case: dict[str, Any]) -> None:
    import os
    import time

    what = case["what"]
    if what == "crash":
        os.abort()
    if what == "hang":
        time.sleep(3600)
    if what == "memory":
        blocks = [bytearray(1 << 26) for _ in range(1 << 10)]  # 64 GB, touched
        raise AssertionError(len(blocks))
    if what == "panic":
        from lrank import _core

        _core._panic_for_test()
    if what == "unexpected":
        raise KeyError("boom")
    if what == "clean":
        raise LrankError("a clean error")


TARGETS: dict[str, Callable[[dict[str, Any]], None]] = {
    "reader": reader,
    "model": model,
    "store": store,
    "estimator": estimator,
    "cli": cli,
    "selftest": _selftest,
}


def run(case: dict[str, Any]) -> tuple[str, str]:
    """(outcome, detail) of one case."""
    try:
        TARGETS[case["target"]](case)
        return "loaded", ""
    except UnexpectedError as exc:
        return "unexpected exception", str(exc)
    except MemoryError:
        return "memory over limit", "MemoryError"
    except LrankError as exc:
        if "internal error in lrank" in str(exc):
            return "panic", str(exc)[:300]
        return "clean error", str(exc)[:300]
    except BaseException as exc:
        if type(exc).__name__ == "PanicException":
            return "panic", str(exc)[:300]
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        where = traceback.extract_tb(exc.__traceback__)[-1]
        return "unexpected exception", f"{type(exc).__name__}: {str(exc)[:200]} ({where.filename}:{where.lineno})"
