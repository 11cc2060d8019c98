"""Hand-edited (or damaged) JSON model files: loading and predicting either works or raises a
clear model-format or input error, for every learner; no Rust panic ever reaches Python."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lrank import _core
from lrank.errors import InvalidInputError, ModelFormatError
from lrank.registry import available_learners

SMALL = {
    "LRRF": ["-I", "2"],
    "LWRF": ["-I", "2"],
    "OVO": ["-B", "forest", "-I", "2"],
    "Bagging": ["-I", "2"],
    "BoostLR": ["-I", "2"],
    "GBLR": ["-I", "2"],
}


def _numbers(node, path=()):
    """Paths of every number in a JSON document."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _numbers(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _numbers(v, path + (i,))
    elif isinstance(node, (int, float)) and not isinstance(node, bool):
        yield path


@pytest.fixture(scope="module")
def model_documents():
    from conftest import make_problem

    x, y = make_problem(n=60, m=3, d=2, seed=1)
    docs = {}
    for name, spec in available_learners().items():
        est = spec.build(SMALL.get(name, []), seed=0, n_jobs=1).fit(x, y)
        docs[name] = json.loads(_core.save_model(est.model_, "{}", "json"))
    return x, docs


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_edited_json_models_load_and_predict_or_fail_cleanly(model_documents, data):
    x, docs = model_documents
    name = data.draw(st.sampled_from(sorted(docs)))
    doc = json.loads(json.dumps(docs[name]))
    paths = list(_numbers(doc["model"]))
    path = data.draw(st.sampled_from(paths))
    value = data.draw(st.sampled_from([-1, 0, 1, 2, 3, 7, 10**6, 2**40, 0.5, -2.5]))
    node = doc["model"]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    try:
        model, _ = _core.load_model(json.dumps(doc).encode())
        model.predict(x)
    except (ModelFormatError, InvalidInputError):
        pass  # refused with a message: fine
