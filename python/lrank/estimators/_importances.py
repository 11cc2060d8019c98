"""``feature_importances_``'s inputs: the training arrays kept from fit until the shares are
first read (they cost a fifth to a third of a fit, so only those who read them pay), with a
checksum, since they may be the caller's own arrays: changed in place after fit, they would
give other shares, or fail to be computed when the estimator is pickled."""

from __future__ import annotations

import zlib
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray


class ImportanceInputs(NamedTuple):
    x: NDArray[np.float64]
    y: NDArray[np.int32]
    w: NDArray[np.float64] | None
    checksum: int


def _checksum(*arrays: NDArray[Any] | None) -> int:
    crc = 0
    for a in arrays:
        if a is not None:
            crc = zlib.crc32(np.ascontiguousarray(a).data.cast("B"), crc)
    return crc


def keep(x: NDArray[np.float64], y: NDArray[np.int32], w: NDArray[np.float64] | None) -> ImportanceInputs:
    return ImportanceInputs(x, y, w, _checksum(x, y, w))


def unchanged(inputs: ImportanceInputs) -> bool:
    return _checksum(inputs.x, inputs.y, inputs.w) == inputs.checksum


CHANGED = (
    "the training data (X, y or sample_weight) were changed in place after fit, and "
    "feature_importances_ is computed from them when first read: fit again (or read it before changing them)"
)
