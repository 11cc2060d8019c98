"""Model files the CLI writes (``-d``) and reads (``-l``): no pickle, a versioned format.

The Rust core writes the file (binary: checksummed postcard; or JSON when the path ends in
``.json``) and keeps this module's metadata beside the model: the learner and its options, the
estimator's parameters, the label names and the attribute declarations of the training data, so
``lrank predict`` can check and encode a new data file exactly as the training file was.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lrank import __version__, _core
from lrank.data import Attribute
from lrank.errors import ModelFormatError
from lrank.registry import available_learners, get_learner


@dataclass
class LoadedModel:
    estimator: Any
    learner: str
    learner_options: list[str]
    labels: list[str]
    attributes: list[Attribute]
    metadata: dict[str, Any]


def save_model(
    path: str | os.PathLike[str],
    estimator: Any,
    *,
    learner: str,
    learner_options: list[str],
    labels: list[str],
    attributes: list[Attribute],
    relation: str = "",
) -> None:
    fmt = "json" if Path(path).suffix.lower() == ".json" else "binary"
    meta = {
        "lrank_version": __version__,
        "learner": learner,
        "learner_options": list(learner_options),
        "params": _json_params(estimator.get_params(deep=False)),
        "labels": list(labels),
        "attributes": [
            {"name": a.name, "kind": a.kind, "values": list(a.values) if a.values else None} for a in attributes
        ],
        "relation": relation,
    }
    data = _core.save_model(estimator.model_, json.dumps(meta), fmt)
    Path(path).write_bytes(data)


def _json_params(params: dict[str, Any]) -> dict[str, Any]:
    """Estimator parameters as JSON values: numpy arrays and scalars become lists and numbers,
    a nested estimator (a meta-learner's base) becomes ``{"learner": NAME, "params": {...}}``
    with NAME a registered learner of its class (only registered learners can be restored)."""

    def plain(v: Any) -> Any:
        if hasattr(v, "get_params") and hasattr(v, "fit"):
            return {"learner": _learner_name_of(v), "params": _json_params(v.get_params(deep=False))}
        if hasattr(v, "tolist"):
            return v.tolist()
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        return v

    return {k: plain(v) for k, v in params.items()}


def _learner_name_of(estimator: Any) -> str:
    for name, spec in available_learners().items():
        factory = getattr(spec.factory, "func", spec.factory)  # functools.partial or a class
        if factory is type(estimator):
            return name
    raise ModelFormatError(
        f"cannot save a model whose parameters hold a {type(estimator).__name__}: it is not a registered lrank learner"
    )


# Estimator parameters renamed since older model files were written: old name -> new name.
_RENAMED_PARAMS = {"base_estimator": "estimator"}


def _restored_params(params: dict[str, Any]) -> dict[str, Any]:
    """The inverse of :func:`_json_params` for nested estimators (old parameter names renamed)."""

    def restore(v: Any) -> Any:
        if isinstance(v, dict) and set(v) == {"learner", "params"}:
            return get_learner(v["learner"]).factory(**_restored_params(v["params"]))
        return v

    renamed = {
        _RENAMED_PARAMS.get(k, k): v for k, v in params.items() if not (k == "base_estimator" and v == "deprecated")
    }
    return {k: restore(v) for k, v in renamed.items()}


def load_model(path: str | os.PathLike[str]) -> LoadedModel:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ModelFormatError(f"{os.fspath(path)}: cannot read model file: {exc.strerror or exc}") from None
    try:
        model, meta_text = _core.load_model(data)
    except ModelFormatError as exc:
        raise ModelFormatError(f"{os.fspath(path)}: {exc}") from None
    try:
        meta = json.loads(meta_text)
        spec = get_learner(meta["learner"])
        estimator = spec.factory(**_restored_params(meta["params"]))
        estimator._set_fitted(model)
        if len(meta["labels"]) == model.n_labels:
            estimator.labels_ = [str(label) for label in meta["labels"]]
        attributes = [
            Attribute(a["name"], a["kind"], tuple(a["values"]) if a["values"] is not None else None)
            for a in meta["attributes"]
        ]
        return LoadedModel(
            estimator, meta["learner"], list(meta["learner_options"]), list(meta["labels"]), attributes, meta
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelFormatError(f"{os.fspath(path)}: model file lacks lrank metadata ({exc})") from None
