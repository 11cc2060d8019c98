"""Model files the CLI writes (``-d``) and reads (``-l``): no pickle, a versioned format.

The Rust core writes the file (binary: checksummed postcard; or JSON when the path ends in
``.json``) and keeps this module's metadata beside the model: the learner and its options, the
estimator's parameters, the label names and the attribute declarations of the training data, so
``lrank predict`` can check and encode a new data file exactly as the training file was.

The metadata is checked against the model when a file is loaded, as the model is checked by the
core: a hand-edited or forged file gets a :class:`~lrank.errors.ModelFormatError` naming the file
and the problem (labels that are not names, fewer or more of them than the model ranks, twice the
same label, attributes that do not give the model's features, a learner that is not the model's,
parameters the learner does not have). The thread count is never taken from a file: a loaded
estimator uses all cores (``n_jobs=None``) until told otherwise.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lrank import __version__, _core
from lrank.data import Attribute
from lrank.errors import LrankError, ModelFormatError
from lrank.estimators._fitted_params import matches_fitted
from lrank.file_bytes import read_file_bytes
from lrank.registry import available_learners, get_learner


@dataclass
class LoadedModel:
    """A model file's estimator, with the learner, labels and attributes it was trained with.

    ``predict`` and ``score`` take a data set (:func:`lrank.data.read_dataset`), ``predict`` also a
    Polars or pandas DataFrame, and read its features as the training file declared them
    (attributes matched by name, nominal values by name, in any order), as ``lrank predict`` does.
    The estimator itself takes arrays in the training encoding (a nominal value as the index of
    its declared value), as the command line fitted it."""

    estimator: Any
    learner: str
    learner_options: list[str]
    labels: list[str]
    attributes: list[Attribute]
    metadata: dict[str, Any]

    def predict(self, data: Any) -> Any:
        """The predicted rank matrix of a data set's rows (columns in the order of ``labels``)."""
        from lrank.data.alignment import aligned_features

        if not _is_data_set(data):
            data = _frame_as_data_set(data, self.attributes)
        return self.estimator.predict(aligned_features(self.attributes, data))

    def score(self, data: Any) -> float:
        """The mean Kendall tau (tau_x when the data's rankings tie labels) on a labelled data
        set, its labels matched to the model's by name."""
        from lrank.data.alignment import aligned_features, aligned_rankings

        data = _data_set(data, "score")
        return float(self.estimator.score(aligned_features(self.attributes, data), aligned_rankings(self.labels, data)))


def _is_data_set(data: Any) -> bool:
    from lrank.data import LabelRankingDataset

    return isinstance(data, LabelRankingDataset)


def _frame_as_data_set(frame: Any, attributes: list[Attribute]) -> Any:
    """A DataFrame's columns as a data set declaring the training attributes: each taken by
    name, a nominal one's values as the names they print as."""
    import numpy as np
    import polars as pl

    from lrank.data import LabelRankingDataset

    module = type(frame).__module__.split(".")[0]
    if module not in ("polars", "pandas") or not hasattr(frame, "columns"):
        raise LrankError(
            "LoadedModel.predict takes a data set (lrank.data.read_dataset(path)) or a Polars or pandas "
            f"DataFrame, got {type(frame).__name__}: for arrays in the training encoding, use loaded.estimator.predict"
        )
    table = frame if module == "polars" else pl.from_pandas(frame.rename(columns=str))
    used = [a for a in attributes if a.kind != "string"]
    absent = [a.name for a in used if a.name not in table.columns]
    if absent:
        raise LrankError(f"the frame has no column {absent[0]!r}; the model reads {[a.name for a in used]}")
    columns, declared = [], []
    for a in used:
        col = table.get_column(a.name)
        if a.kind == "nominal":
            # Coded by the values it holds, declared so: aligned_features maps them to the
            # training codes by name (text columns read as numbers had given "1" the code 1).
            text = col.cast(pl.Utf8)
            values = tuple(sorted(text.drop_nulls().unique().to_list()))
            col = text.cast(pl.Enum(list(values)))
            declared.append(Attribute(a.name, "nominal", values))
        else:
            try:
                col = col.cast(pl.Float64)
            except pl.exceptions.PolarsError:
                raise LrankError(
                    f"the frame's column {a.name!r} must hold numbers (the model's attribute is numeric), "
                    f"got {col.dtype}"
                ) from None
            declared.append(a)
        columns.append(col)
    return LabelRankingDataset(
        relation="",
        attributes=declared,
        features=pl.DataFrame(columns),
        labels=(),
        rankings=None,
        weights=np.ones(table.height),
        source="the frame",
    )


def _data_set(data: Any, method: str) -> Any:
    """``data`` if it is a data set; arrays and frames are refused, naming the estimator's method."""
    from lrank.data import LabelRankingDataset

    if not isinstance(data, LabelRankingDataset):
        raise LrankError(
            f"LoadedModel.{method} takes a data set (lrank.data.read_dataset(path)), got {type(data).__name__}: "
            f"for arrays, use the fitted estimator, loaded.estimator.{method}"
        )
    return data


def unsaveable(estimator: Any, learner: str) -> str | None:
    """Why ``estimator`` (built, not yet fitted) cannot go into a model file, or None when it can:
    model files hold lrank's core models, which a plug-in's estimator, or an ensemble of one
    bagged in Python, is not; nor is a plug-in's subclass of an lrank estimator, whose own
    attributes and methods a model file would lose."""
    if _foreign_class(estimator):
        return (
            f"{learner}: a model file holds lrank's own models, and this learner's is a subclass of "
            f"{_foreign_class(estimator)} made outside lrank (the file would lose what the subclass adds); pickle "
            "the fitted estimator from Python instead"
        )
    core_params = getattr(estimator, "_core_params", None)
    try:
        core = callable(core_params) and core_params(0) is not None
    except Exception:  # a plug-in subclass without core parameters
        core = False
    if core:
        return None
    return (
        f"{learner}: a model file holds lrank's own models, and this learner's is not one "
        "(a plug-in, or an ensemble of one); pickle the fitted estimator from Python instead"
    )


def _foreign_class(estimator: Any, depth: int = 0) -> str | None:
    """The lrank class a plug-in subclassed, in ``estimator`` or an estimator it holds; None
    when every one is lrank's own (or no lrank class at all: :func:`unsaveable` tells that)."""
    cls = type(estimator)
    if not cls.__module__.startswith("lrank."):
        own = next((base for base in cls.__mro__[1:] if base.__module__.startswith("lrank.")), None)
        if own is not None and hasattr(estimator, "_core_params"):
            return own.__name__
    get_params = getattr(estimator, "get_params", None)
    if depth > 8 or not callable(get_params) or isinstance(estimator, type):
        return None
    for value in get_params(deep=False).values():
        if hasattr(value, "get_params") and not isinstance(value, type):
            found = _foreign_class(value, depth + 1)
            if found is not None:
                return found
    return None


def save_model(
    path: str | os.PathLike[str],
    estimator: Any,
    *,
    learner: str | None = None,
    learner_options: list[str] | None = None,
    labels: list[str] | None = None,
    attributes: list[Attribute] | None = None,
    relation: str = "",
) -> None:
    """Write a fitted estimator of lrank's own learners to ``path`` as ``lrank train -d`` does
    (``.json``: JSON; else the checksummed binary format), for ``lrank predict -l`` and
    :func:`load_model`.

    ``learner`` (default: the registered name of the estimator's class) and ``learner_options``
    are what ``lrank info`` shows. ``labels`` default to the estimator's ``labels_`` (else L1..Lm)
    and ``attributes`` to its features: ``feature_names_in_`` (else x1..xd), nominal with the
    values of ``categories_`` where it has them, else numeric. Given ones must agree with what the
    estimator was fitted with, or a file that predicts other labels or reads other columns would
    be written."""
    if not isinstance(getattr(estimator, "model_", None), _core.Model):
        name = learner or type(estimator).__name__
        raise LrankError(unsaveable(estimator, name) or f"{name}: the estimator holds no lrank model to save")
    learner = _learner_name_of(estimator) if learner is None else learner
    fitted_labels = _fitted_labels(estimator)
    if labels is None:
        labels = fitted_labels
    elif [str(v) for v in labels] != fitted_labels and getattr(estimator, "labels_", None) is not None:
        raise LrankError(f"{os.fspath(path)}: labels {list(labels)} are not the estimator's labels_ {fitted_labels}")
    fitted_attributes = _fitted_attributes(estimator)
    if attributes is None:
        attributes = fitted_attributes
    else:
        _check_attributes(os.fspath(path), estimator, attributes, fitted_attributes)
    fmt = "json" if Path(path).suffix.lower() == ".json" else "binary"
    meta = {
        "lrank_version": __version__,
        "learner": learner,
        "learner_options": list(learner_options or []),
        "params": _json_params(estimator.get_params(deep=False)),
        "labels": list(labels),
        "attributes": [
            {"name": a.name, "kind": a.kind, "values": list(a.values) if a.values else None} for a in attributes
        ],
        "relation": relation,
    }
    data = _core.save_model(estimator.model_, json.dumps(meta), fmt)
    Path(path).write_bytes(data)


def _fitted_labels(estimator: Any) -> list[str]:
    names = getattr(estimator, "labels_", None)
    m = int(estimator.model_.n_labels)
    return [str(v) for v in names] if names is not None else [f"L{k + 1}" for k in range(m)]


def _fitted_attributes(estimator: Any) -> list[Attribute]:
    """The attributes an estimator was fitted on: its feature names, nominal where it coded
    categories (their values as names), numeric elsewhere."""
    d = int(estimator.model_.n_features)
    names = getattr(estimator, "feature_names_in_", None)
    names = [str(v) for v in names] if names is not None else [f"x{j + 1}" for j in range(d)]
    categories = list(getattr(estimator, "categories_", None) or [None] * d)
    return [
        Attribute(name, "numeric") if cats is None else Attribute(name, "nominal", tuple(str(c) for c in cats))
        for name, cats in zip(names, categories)
    ]


def _check_attributes(path: str, estimator: Any, given: list[Attribute], fitted: list[Attribute]) -> None:
    used = [a for a in given if a.kind != "string"]
    if len(used) != len(fitted):
        raise LrankError(f"{path}: the attributes give {len(used)} features, the estimator takes {len(fitted)}")
    named = getattr(estimator, "feature_names_in_", None) is not None
    coded = getattr(estimator, "categories_", None) or [None] * len(fitted)
    for a, f, cats in zip(used, fitted, coded):
        if named and a.name != f.name:
            raise LrankError(f"{path}: attribute {a.name!r} stands where the estimator was fitted on {f.name!r}")
        if cats is not None and (a.kind, a.values) != (f.kind, f.values):
            raise LrankError(
                f"{path}: attribute {a.name!r} must be nominal with the categories the estimator coded, "
                f"in their order: {list(f.values or ())}"
            )


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

    # No thread count is written (the loader never takes one): a model's bytes are the same
    # whatever n_jobs fitted it.
    return {k: None if k == "n_jobs" else plain(v) for k, v in params.items()}


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


class _BadMetadataError(Exception):
    """A problem of a model file's metadata (the message says which)."""


def _restored(learner: Any, params: Any, depth: int = 0) -> Any:
    """The estimator a model file's metadata describes: learner ``learner`` with ``params`` (the
    inverse of :func:`_json_params`, nested estimators included), its threads left to all cores."""
    if not isinstance(learner, str):
        raise _BadMetadataError(f"the learner must be a name, got {learner!r:.60}")
    if not isinstance(params, dict):
        raise _BadMetadataError(f"the parameters of {learner} must be a mapping, got {type(params).__name__}")
    params = {
        _RENAMED_PARAMS.get(k, k): v for k, v in params.items() if not (k == "base_estimator" and v == "deprecated")
    }
    if depth > 16:
        raise _BadMetadataError("learners nested more than 16 deep")
    try:
        spec = get_learner(learner)
    except LrankError as exc:
        raise _BadMetadataError(str(exc)) from None
    try:
        probe = spec.factory()
        known = set(probe.get_params())
    except Exception as exc:  # a plug-in's factory may need arguments
        raise _BadMetadataError(f"cannot make a {learner} to restore ({type(exc).__name__}: {exc})") from None
    unknown = sorted(str(k) for k in params if k not in known)
    if unknown:
        raise _BadMetadataError(f"{learner} has no parameters {', '.join(unknown)}")
    # A file written before a parameter existed means the value that behaves as lrank did then.
    added = getattr(probe, "_added_params", {})
    params = {**{k: v for k, v in added.items() if k not in params}, **params}

    def restore(value: Any) -> Any:
        if isinstance(value, dict) and set(value) == {"learner", "params"}:
            return _restored(value["learner"], value["params"], depth + 1)
        return value

    restored = {k: restore(v) for k, v in params.items()}
    if "n_jobs" in known:
        restored["n_jobs"] = None  # never a thread count from a file
    try:
        return spec.factory(**restored)
    except (TypeError, ValueError) as exc:
        raise _BadMetadataError(f"cannot build {learner} from its parameters ({exc})") from None


def _attributes(value: Any, n_features: int) -> list[Attribute]:
    if not isinstance(value, list):
        raise _BadMetadataError(f"the attributes must be a list, got {type(value).__name__}")
    out = []
    for a in value:
        if not isinstance(a, dict) or not isinstance(a.get("name"), str):
            raise _BadMetadataError(f"an attribute must be a mapping with a name, got {a!r:.60}")
        values, kind = a.get("values"), a.get("kind")
        if values is not None and not (isinstance(values, list) and all(isinstance(v, str) for v in values)):
            raise _BadMetadataError(f"attribute {a['name']!r}: its values must be a list of names")
        if kind not in ("numeric", "nominal", "string"):
            raise _BadMetadataError(f"attribute {a['name']!r}: unknown kind {kind!r:.40}")
        try:
            out.append(Attribute(a["name"], kind, tuple(values) if values is not None else None))
        except LrankError as exc:
            raise _BadMetadataError(str(exc)) from None
    names = [a.name for a in out]
    if len(set(names)) != len(names):
        raise _BadMetadataError("an attribute name appears twice")
    used = sum(a.kind != "string" for a in out)
    if used != n_features:
        raise _BadMetadataError(f"the attributes give {used} features, the model takes {n_features}")
    return out


def _labels(value: Any, n_labels: int) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _BadMetadataError("the labels must be a list of names")
    if len(value) != n_labels:
        raise _BadMetadataError(f"{len(value)} label names for a model of {n_labels} labels")
    if len(set(value)) != len(value):
        dup = next(v for i, v in enumerate(value) if v in value[:i])
        raise _BadMetadataError(f"label {dup!r} is named twice")
    return list(value)


def _loaded(model: Any, meta_text: str) -> LoadedModel:
    try:
        meta = json.loads(meta_text)
    except (ValueError, RecursionError) as exc:
        raise _BadMetadataError(f"the metadata is not JSON ({exc})") from None
    if not isinstance(meta, dict):
        raise _BadMetadataError(f"the metadata must be a mapping, got {type(meta).__name__}")
    missing = [k for k in ("learner", "params", "labels", "attributes") if k not in meta]
    if missing:
        raise _BadMetadataError(f"no {', '.join(missing)} (not a model file of lrank train)")
    estimator = _restored(meta["learner"], meta["params"])
    kind = _core_kind_of(estimator)
    if kind != model.kind:
        raise _BadMetadataError(f"learner {meta['learner']} does not make {model.kind} models")
    options = meta.get("learner_options", [])
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise _BadMetadataError("the learner options must be a list of strings")
    if not isinstance(meta.get("relation", ""), str):
        raise _BadMetadataError("the relation must be a name")
    _check_same_params(estimator, model, meta["learner"])
    labels = _labels(meta["labels"], model.n_labels)
    attributes = _attributes(meta["attributes"], model.n_features)
    try:
        estimator._set_fitted(model)
    except (KeyError, TypeError, ValueError) as exc:
        raise _BadMetadataError(f"the model does not fit learner {meta['learner']} ({exc})") from None
    estimator.labels_ = list(labels)
    return LoadedModel(estimator, meta["learner"], list(options), labels, attributes, meta)


def _core_kind_of(estimator: Any) -> str | None:
    """The core learner an estimator fits: the key of its core parameters (one estimator may
    choose between core learners by a parameter), else its class's ``_core_kind``."""
    try:
        params = estimator._core_params(0)
    except (AttributeError, LrankError, TypeError, ValueError):
        params = None
    if isinstance(params, dict) and len(params) == 1:
        return str(next(iter(params)))
    return getattr(type(estimator), "_core_kind", None)


def _check_same_params(estimator: Any, model: Any, learner: str) -> None:
    """The estimator rebuilt from the metadata must ask the core for the parameters the model was
    fitted with (its seed aside, which a ``random_state`` of None leaves to chance)."""
    try:
        same = matches_fitted(estimator, model)
    except (LrankError, TypeError, ValueError) as exc:
        raise _BadMetadataError(f"the parameters of {learner} are invalid ({exc})") from None
    if not same:
        raise _BadMetadataError(f"the parameters of {learner} are not those the model was fitted with")


def load_model(path: str | os.PathLike[str]) -> LoadedModel:
    try:
        data = read_file_bytes(path, expansion=2)
    except OSError as exc:
        raise ModelFormatError(f"{os.fspath(path)}: cannot read model file: {exc.strerror or exc}") from None
    try:
        model, meta_text = _core.load_model(data)
    except ModelFormatError as exc:
        raise ModelFormatError(f"{os.fspath(path)}: {exc}") from None
    try:
        return _loaded(model, meta_text)
    except _BadMetadataError as exc:
        raise ModelFormatError(f"{os.fspath(path)}: model metadata: {exc}") from None
