"""Conventions shared by lrank estimators (scikit-learn's, without depending on scikit-learn).

``__init__`` only stores parameters; ``fit`` validates them, sets fitted attributes ending in
``_`` and returns ``self``; ``get_params``/``set_params`` read the ``__init__`` signature, so
``sklearn.base.clone`` and grid searches work on lrank estimators.
"""

from __future__ import annotations

import inspect
import json
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank import _core
from lrank.errors import InvalidInputError, InvalidParameterError, LrankError
from lrank.rankings import as_rank_matrix, has_ties


class NotFittedError(LrankError, AttributeError):
    """The estimator is used before ``fit``."""


class LabelRanker:
    """Base class: parameter handling, input checks, ``score``."""

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [p.name for p in sig.parameters.values() if p.name != "self" and p.kind != p.VAR_KEYWORD]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> LabelRanker:
        valid = self._param_names()
        for key, value in params.items():
            if key not in valid:
                raise InvalidInputError(
                    f"invalid parameter {key!r} for {type(self).__name__}; valid parameters: {', '.join(valid)}"
                )
            setattr(self, key, value)
        return self

    def __repr__(self) -> str:
        defaults = {
            p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values() if p.name != "self"
        }
        changed = [f"{k}={v!r}" for k, v in self.get_params().items() if defaults.get(k, object()) != v]
        return f"{type(self).__name__}({', '.join(changed)})"

    def _check_fitted(self) -> None:
        if not hasattr(self, "model_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit(X, Y) first")

    def _check_x(self, x: ArrayLike, *, fitting: bool) -> NDArray[np.float64]:
        names = None
        frame: Any = x
        if hasattr(frame, "columns") and not isinstance(frame, np.ndarray):
            names = [str(c) for c in frame.columns]
            x = frame.to_numpy()  # polars and pandas frames
        try:
            arr = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"X must be numeric: {exc}") from None
        if arr.ndim != 2:
            raise InvalidInputError(f"X must be 2-D (n_rows, n_features), got shape {arr.shape}")
        # Infinite values are refused by the core, which names the row and column.
        if fitting:
            self.n_features_in_ = arr.shape[1]
            if names is not None:
                self.feature_names_in_ = np.asarray(names, dtype=object)
            elif hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
        elif arr.shape[1] != self.n_features_in_:
            raise InvalidInputError(
                f"X has {arr.shape[1]} features, but {type(self).__name__} was fitted with {self.n_features_in_}"
            )
        return np.ascontiguousarray(arr)

    def _check_xy(
        self, x: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None
    ) -> tuple[NDArray[np.float64], NDArray[np.int32], NDArray[np.float64] | None]:
        xa = self._check_x(x, fitting=True)
        ya = as_rank_matrix(y)
        if ya.shape[0] != xa.shape[0]:
            raise InvalidInputError(f"X has {xa.shape[0]} rows but Y has {ya.shape[0]}")
        w = None
        if sample_weight is not None:
            w = np.ascontiguousarray(sample_weight, dtype=np.float64)
            if w.shape != (xa.shape[0],):
                raise InvalidInputError(f"sample_weight must have shape ({xa.shape[0]},), got {w.shape}")
        self.n_labels_ = ya.shape[1]
        return xa, ya, w

    def predict(self, X: ArrayLike) -> NDArray[np.int32]:  # pragma: no cover - abstract
        raise NotImplementedError

    def score(self, X: ArrayLike, Y: ArrayLike) -> float:
        """Mean Kendall tau between ``predict(X)`` and ``Y`` (on the labels each row of Y contains);
        when ``Y`` ties labels, the mean tau_x (Emond & Mason), the measure for ties."""
        truth = as_rank_matrix(Y)
        taus = _core.row_measures(truth, self.predict(X))["tau_x" if has_ties(truth) else "kendall_tau"]
        return float(np.nanmean(taus)) if np.isfinite(taus).any() else float("nan")


class CoreLearnerRanker(LabelRanker):
    """An estimator fitted by the Rust core (``_core.Model``): the one fit path of lrank.

    Subclasses give ``_core_kind`` (the core learner's name) and ``_core_params(seed)`` (its
    parameters in serde form, ``{kind: {...}}``, converted by :mod:`lrank.estimators._convert`;
    the core checks their domains), and name the core parameters they call otherwise in
    ``_core_names``. ``random_state``, ``n_jobs`` and ``categorical_features`` are used when the
    subclass has them. ``_read_summary`` sets fitted attributes from what the model reports of
    itself, on fit and when a model is loaded.
    """

    _core_kind: str = ""
    # Core parameter name -> this estimator's name, where they differ.
    _core_names: ClassVar[dict[str, str]] = {}

    def _core_params(self, seed: int = 0) -> dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _read_summary(self, summary: dict[str, Any], *, fitting: bool) -> None:
        """Fitted attributes from the model's summary (on fit, and when a model is loaded)."""

    def _params_json(self, seed: int) -> str:
        """The core parameters with ``seed``, as JSON, errors naming this estimator's parameters."""
        try:
            return json.dumps(self._core_params(seed))
        except InvalidParameterError as err:
            raise self._renamed(err) from None

    def _renamed(self, err: InvalidParameterError) -> InvalidParameterError:
        name = getattr(err, "parameter", None)
        own = self._core_names.get(name, name) if isinstance(name, str) else None
        if own is None or own == name:
            return err
        renamed = InvalidParameterError(f"invalid parameter {own}: {err.reason}")
        renamed.parameter, renamed.reason = own, err.reason
        return renamed

    def fit(self, X: ArrayLike, Y: ArrayLike, sample_weight: ArrayLike | None = None) -> Any:
        """Fits on features ``X`` (n, d) and rank matrix ``Y`` (n, m); returns self."""
        names = self.get_params()
        seed = resolve_seed(names["random_state"]) if "random_state" in names else 0
        params = self._params_json(seed)
        x, y, w = self._check_xy(X, Y, sample_weight)
        try:
            self.model_ = _core.Model.fit(
                params,
                x,
                y,
                w,
                n_jobs=resolve_n_jobs(names.get("n_jobs")),
                nominal=resolve_categorical(names.get("categorical_features"), x.shape[1]),
            )
        except InvalidParameterError as err:
            raise self._renamed(err) from None
        if "random_state" in names:
            self.seed_ = seed
        self._read_summary(json.loads(self.model_.summary_json()), fitting=True)
        return self

    def _predict_jobs(self) -> int | None:
        return resolve_n_jobs(self.get_params().get("n_jobs"))

    def predict(self, X: ArrayLike) -> NDArray[np.int32]:
        """Predicted complete rank matrix (n, m)."""
        self._check_fitted()
        return self.model_.predict(self._check_x(X, fitting=False), n_jobs=self._predict_jobs())

    def _confidence(self, X: ArrayLike) -> tuple[NDArray[np.int32], NDArray[np.float64]]:
        self._check_fitted()
        ranks, conf = self.model_.predict_with_confidence(self._check_x(X, fitting=False), n_jobs=self._predict_jobs())
        if conf is None:  # pragma: no cover - only called by learners that have one
            raise InvalidInputError(f"{type(self).__name__} gives no confidence")
        return ranks, conf

    def _scores(self, X: ArrayLike) -> NDArray[np.float64]:
        self._check_fitted()
        scores = self.model_.predict_scores(self._check_x(X, fitting=False), n_jobs=self._predict_jobs())
        if scores is None:  # pragma: no cover - only called by learners that have scores
            raise InvalidInputError(f"{type(self).__name__} has no label scores")
        return scores

    def _members(self, X: ArrayLike) -> NDArray[np.int32]:
        """An ensemble's members' rankings, shape (members, n, m)."""
        self._check_fitted()
        members = self.model_.predict_members(self._check_x(X, fitting=False), n_jobs=self._predict_jobs())
        if members is None:  # pragma: no cover - only called by ensembles
            raise InvalidInputError(f"{type(self).__name__} has no members")
        return members

    def _set_fitted(self, model: _core.Model) -> None:
        """Restores fitted state from a loaded core model."""
        self.model_ = model
        self.n_features_in_ = model.n_features
        self.n_labels_ = model.n_labels
        if "random_state" in self.get_params():
            self.seed_ = int(json.loads(model.params_json())[model.kind]["seed"])
        self._read_summary(json.loads(model.summary_json()), fitting=False)


def resolve_categorical(categorical_features: ArrayLike | None, n_features: int) -> list[bool] | None:
    """``categorical_features`` (None, a boolean mask or column indices, as in scikit-learn's
    HistGradientBoosting) as one bool per feature, or None when no feature is categorical."""
    if categorical_features is None:
        return None
    arr = np.asarray(categorical_features)
    if arr.ndim != 1:
        raise InvalidInputError(f"categorical_features must be 1-D (a mask or indices), got shape {arr.shape}")
    if arr.dtype == bool:
        if arr.shape[0] != n_features:
            raise InvalidInputError(f"categorical_features mask has {arr.shape[0]} entries for {n_features} features")
        mask = arr
    elif arr.size == 0 or np.issubdtype(arr.dtype, np.integer):
        idx = arr.astype(np.int64)
        if np.any(idx < 0) or np.any(idx >= n_features):
            raise InvalidInputError(f"categorical_features indices must lie in 0..{n_features - 1}, got {idx.tolist()}")
        mask = np.zeros(n_features, dtype=bool)
        mask[idx] = True
    else:
        raise InvalidInputError("categorical_features must be None, a boolean mask or integer column indices")
    return [bool(b) for b in mask] if mask.any() else None


def resolve_seed(random_state: int | None) -> int:
    """A 64-bit seed: the given one, or a fresh random one for ``None`` (as in scikit-learn)."""
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0])
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(random_state, (int, np.integer)):
        raise InvalidInputError(f"random_state must be an int or None, got {random_state!r}")
    if not 0 <= random_state < 2**64:
        # Not folded into 64 bits: 2**64 would silently give the model of seed 0.
        raise InvalidInputError(f"random_state must lie in [0, 2**64), got {random_state}")
    return int(random_state)


def resolve_n_jobs(n_jobs: int | None) -> int | None:
    """scikit-learn's n_jobs: None or -1 = all cores, k > 0 = k threads, -2 = all but one, ..."""
    if n_jobs is None or n_jobs == -1:
        return None
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise InvalidInputError(f"n_jobs must be a non-zero int or None, got {n_jobs!r}")
    if n_jobs < 0:
        import os

        return max(1, (os.cpu_count() or 1) + 1 + int(n_jobs))
    return int(n_jobs)
