"""Whether an estimator's parameters are those its core model was fitted with, for estimators
rebuilt from a model file or restored from a pickle.

Two differences are the file's format rather than the estimator's: a consensus with ties holds
``tolerant`` (exact thresholds in files before model format 11) and ``unobserved_last`` (labels
no ranking observes set aside, from format 13 on), and files before format 11
said ``"bpa"`` for the BPA whose DANI is recomputed in each recursive call, today's
``"bpa-local"``. The estimator takes that name where its model holds that method, so that a
clone refits what was fitted.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from lrank.errors import LrankError

_FILE_FLAGS = ("tolerant", "unobserved_last")


def without_file_flags(params: Any) -> Any:
    """Core parameters without what the file's format decides (``tolerant``, ``unobserved_last``)."""
    if isinstance(params, dict):
        return {k: without_file_flags(v) for k, v in params.items() if k not in _FILE_FLAGS}
    if isinstance(params, list):
        return [without_file_flags(v) for v in params]
    return params


def matches_fitted(estimator: Any, model: Any) -> bool:
    """Whether ``estimator`` asks the core for the parameters ``model`` was fitted with (its seed
    aside); renames a pre-format-11 ``"bpa"`` to ``"bpa-local"`` where that makes them match.
    Raises what ``_core_params`` raises for invalid parameters."""
    fitted = without_file_flags(json.loads(model.params_json()))
    seed = int(fitted.get(model.kind, {}).get("seed", 0))

    def described() -> Any:
        return json.loads(json.dumps(estimator._core_params(seed)))

    if described() == fitted:
        return True
    local = {k: "bpa-local" for k, v in estimator.get_params(deep=True).items() if isinstance(v, str) and v == "bpa"}
    if not local or '"Bpa"' not in model.params_json():
        return False
    before = dict.fromkeys(local, "bpa")
    estimator.set_params(**local)
    if described() == fitted:
        return True
    estimator.set_params(**before)
    return False


def rename_legacy_bpa(estimator: Any) -> None:
    """After unpickling: a fitted estimator from before format 11 takes ``"bpa-local"`` where its
    model holds that method (its predictions never change: the model is kept as it is)."""
    model = estimator.__dict__.get("model_")
    if model is None or not hasattr(estimator, "_core_params") or '"Bpa"' not in model.params_json():
        return
    # Parameters that no longer validate are left as they are.
    with contextlib.suppress(LrankError, TypeError, ValueError):
        matches_fitted(estimator, model)
