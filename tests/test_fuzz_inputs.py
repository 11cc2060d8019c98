"""The short fuzz run of the test suite (the long one is ``python -m fuzz.campaign``): hypothesis
edits real files and draws estimator calls and command lines, and every outcome must be a loaded
file or a clean one-line lrank error naming the file, as the fuzz targets check it."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fuzz.corpus import Corpus, build  # noqa: E402
from fuzz.mutate import mutate_bytes, mutate_json, mutate_text, random_kebi_csv, random_xarff  # noqa: E402
from fuzz.targets import run  # noqa: E402

GOOD = ("loaded", "clean error")
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Corpus:
    return build(tmp_path_factory.mktemp("fuzz"), seed=5)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("scratch")


def _check(case: dict) -> None:
    outcome, detail = run(case)
    assert outcome in GOOD, (outcome, detail, case.get("how"))


@SETTINGS
@given(pick=st.integers(0, 10**6), seed=st.integers(0, 2**32 - 1), how=st.sampled_from(["text", "bytes", "grammar"]))
def test_edited_data_files_load_or_fail_cleanly(corpus, scratch, pick, seed, how):
    rng = random.Random(seed)
    text_seeds = [p for p in corpus.data if p.suffix != ".parquet"]
    src = text_seeds[pick % len(text_seeds)]
    if how == "grammar":
        suffix = rng.choice([".xarff", ".csv"])
        data = (random_xarff if suffix == ".xarff" else random_kebi_csv)(rng)
    else:
        suffix, data = src.suffix, src.read_bytes()
        data = mutate_text(data, rng) if how == "text" else mutate_bytes(data, rng)
    path = scratch / f"input{suffix}"
    path.write_bytes(data)
    _check({"target": "reader", "path": str(path), "seed": seed, "tmp": str(scratch), "how": how})


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pick=st.integers(0, 10**6), seed=st.integers(0, 2**32 - 1))
def test_damaged_parquet_files_are_refused_cleanly(corpus, scratch, pick, seed):
    sources = [p for p in corpus.data if p.suffix == ".parquet"]
    path = scratch / "input.parquet"
    path.write_bytes(mutate_bytes(sources[pick % len(sources)].read_bytes(), random.Random(seed)))
    _check({"target": "reader", "path": str(path), "seed": seed, "tmp": str(scratch)})


@SETTINGS
@given(pick=st.integers(0, 10**6), seed=st.integers(0, 2**32 - 1), part=st.sampled_from(["model", "metadata", ""]))
def test_edited_model_files_load_or_fail_cleanly(corpus, scratch, pick, seed, part):
    import json

    sources = [p for p in corpus.models if p.suffix == ".json"]
    doc = json.loads(sources[pick % len(sources)].read_text())
    path = scratch / "model.json"
    path.write_text(mutate_json(doc, random.Random(seed), (part,) if part else ()))
    _check({"target": "model", "path": str(path), "seed": seed, "tmp": str(scratch)})


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_estimators_on_arbitrary_parameters_and_arrays_fit_or_refuse(scratch, seed):
    _check({"target": "estimator", "seed": seed, "tmp": str(scratch)})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_command_lines_run_or_give_one_line_errors(corpus, scratch, seed):
    case = {"target": "cli", "seed": seed, "tmp": str(scratch), "data": list(map(str, corpus.data[:8]))}
    _check({**case, "models": list(map(str, corpus.models))})
