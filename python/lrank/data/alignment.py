"""Encoding a new data file the way a model's training file was encoded."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from lrank.data.dataset import Attribute, LabelRankingDataset
from lrank.errors import DataFormatError


def _shown(name: str) -> str:
    # A name from a model file or a data file may hold a line break: the message stays one line.
    return name if name.isprintable() else repr(name)


def _first_difference(train: Sequence[Attribute], used: Sequence[Attribute]) -> str:
    """Where two attribute lists first differ (the whole lists, cut to fit a message, hid a
    difference in the middle of a long one)."""
    counts = f" ({len(used)} attributes against the training data's {len(train)})" if len(used) != len(train) else ""

    def shown(a: Attribute) -> str:
        return f"{_shown(a.name)} ({a.kind})"

    # By name, not number: string attributes are not counted, so a number could mislead.
    for want, have in zip(train, used):
        if (want.name, want.kind) != (have.name, have.kind):
            return f"the file has {shown(have)} where the training data has {shown(want)}{counts}"
    if len(used) > len(train):
        return f"the file's {shown(used[len(train)])} is not in the training data{counts}"
    return f"the training data's {shown(train[len(used)])} is missing{counts}"


def aligned_features(train_attributes: Sequence[Attribute], data: LabelRankingDataset) -> np.ndarray:
    """``data``'s feature matrix in the training encoding.

    The used (non-string) attributes must match the training ones by name, kind and order;
    nominal values are re-coded by value name, so a file that declares the values in another
    order still gets the training codes.
    """
    used_train = [a for a in train_attributes if a.kind != "string"]
    used = [a for a in data.attributes if a.kind != "string"]
    if [(a.name, a.kind) for a in used] != [(a.name, a.kind) for a in used_train]:
        raise DataFormatError(
            data.source, None, f"attributes do not match the training data: {_first_difference(used_train, used)}"
        )
    out = np.empty((data.n_rows, len(used)), dtype=np.float64)
    for j, (a_train, a) in enumerate(zip(used_train, used)):
        col = data.features.get_column(a.name)
        if a.kind == "nominal" and a.values != a_train.values:
            codes = {v: float(k) for k, v in enumerate(a_train.values or ())}
            values = col.cast(pl.Utf8).to_list()
            unknown = sorted({v for v in values if v is not None and v not in codes})
            if unknown:
                problem = f"attribute {_shown(a.name)}: value(s) {unknown} not seen in the training declaration"
                raise DataFormatError(data.source, None, problem)
            out[:, j] = [np.nan if v is None else codes[v] for v in values]
        elif a.kind == "nominal":
            out[:, j] = col.to_physical().cast(pl.Float64).to_numpy(allow_copy=True)
        else:
            out[:, j] = col.cast(pl.Float64).to_numpy(allow_copy=True)
    return out


def aligned_rankings(train_labels: Sequence[str], data: LabelRankingDataset) -> np.ndarray:
    """``data``'s rank matrix with columns in the training label order (same label set required)."""
    if data.rankings is None:
        raise DataFormatError(data.source, None, "the file has no RANKING attribute")
    if set(data.labels) != set(train_labels) or len(data.labels) != len(train_labels):
        raise DataFormatError(
            data.source, None, f"labels {list(data.labels)} differ from the training labels {list(train_labels)}"
        )
    index = [data.labels.index(lab) for lab in train_labels]
    return np.ascontiguousarray(data.rankings[:, index])
