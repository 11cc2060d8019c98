"""The base classes of lrank's estimators: scikit-learn estimators (scikit-learn 1.6 or later).

``__init__`` only stores parameters; ``fit`` validates them, sets fitted attributes ending in
``_`` and returns ``self``. The classes implement scikit-learn's estimator protocol itself:
``get_params``/``set_params`` with nested parameters (``estimator__max_depth``), ``clone``, the
tags (``__sklearn_tags__``: the target is a 2-D rank matrix), ``__sklearn_is_fitted__`` for
``check_is_fitted``, the notebook HTML repr, scikit-learn's input checks and messages. They do
not inherit ``sklearn.base.BaseEstimator``: importing it takes 1.7 s here (it loads
``scipy.stats``), eight times lrank's whole import, and every ``lrank train`` would pay it; so
scikit-learn is imported only where it is used (tags, HTML repr, scorers).
"""

from __future__ import annotations

import copy
import inspect
import json
import os
import sys
import warnings
import weakref
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank import _core
from lrank.errors import InvalidInputError, InvalidParameterError, LrankError
from lrank.estimators import _convert, _importances, _inputs, _oob, _warm
from lrank.estimators._label_names import LabelNamePredictions
from lrank.estimators._trees import LeafApply
from lrank.metadata_routing import MetadataRequests
from lrank.rankings import has_ties, tie_complaint

# What a learner that cannot learn from ties suggests instead (Python names).
_PLR_ESTIMATORS = (
    "a partial label ranking estimator (PairwisePartialLabelRanker, PartialLabelRankingForest, "
    "PartialLabelRankingTree, LabelwisePartialLabelRanker, InstanceBasedPartialLabelRanker)"
)


class NotFittedError(LrankError, ValueError, AttributeError):
    """The estimator is used before ``fit`` (as scikit-learn's ``NotFittedError``, a ValueError
    and an AttributeError; ``sklearn.utils.validation.check_is_fitted`` raises scikit-learn's own)."""


# Each estimator class's parameter names (its __init__'s), read once.
_PARAM_NAMES: weakref.WeakKeyDictionary[type, tuple[str, ...]] = weakref.WeakKeyDictionary()


class LabelRanker(MetadataRequests, LabelNamePredictions):
    """Base class: scikit-learn's parameter handling, tags and input validation, ``score``, and
    predictions as label names.

    ``fit`` takes ``X`` (see :mod:`lrank.estimators._inputs`: arrays, Polars and pandas frames,
    Arrow tables, categorical columns) and ``y``, a rank matrix or a DataFrame of positions whose
    columns name the labels; or a :class:`lrank.data.LabelRankingDataset` as ``X`` alone, which
    brings its rankings, weights, label names and nominal attributes. Label names, when known,
    are kept in ``labels_``.
    """

    # -- scikit-learn's estimator protocol ----------------------------------------------------

    @classmethod
    def _get_param_names(cls) -> list[str]:
        # Read once per class: inspect.signature costs tens of microseconds, paid by every
        # prediction otherwise (get_params finds n_jobs), as much as a small prediction itself.
        names = _PARAM_NAMES.get(cls)
        if names is None:
            sig = inspect.signature(cls.__init__)
            names = _PARAM_NAMES[cls] = tuple(
                sorted(p.name for p in sig.parameters.values() if p.name != "self" and p.kind != p.VAR_KEYWORD)
            )
        return list(names)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The estimator's parameters; with ``deep``, also those of nested estimators
        (``estimator__max_depth``)."""
        out: dict[str, Any] = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{name}__{k}", v) for k, v in value.get_params().items())
            out[name] = value
        return out

    def set_params(self, **params: Any) -> Any:
        """Sets parameters, nested ones as ``estimator__max_depth``; returns self."""
        valid = self.get_params(deep=True)
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            name, _, sub = key.partition("__")
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {self}. Valid parameters are: "
                    f"{self._get_param_names()!r}."
                )
            if sub:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
                valid[name] = value
        for name, sub_params in nested.items():
            valid[name].set_params(**sub_params)
        return self

    def __repr__(self) -> str:
        defaults = {
            p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values() if p.name != "self"
        }
        changed = []
        for k, v in self.get_params(deep=False).items():
            default = defaults.get(k, inspect.Parameter.empty)
            if default is inspect.Parameter.empty or not _same(default, v):
                changed.append(f"{k}={v!r}")
        return f"{type(self).__name__}({', '.join(changed)})"

    def _repr_html_(self) -> str:
        """The notebook view, scikit-learn's."""
        from sklearn.utils import estimator_html_repr

        return str(estimator_html_repr(self))

    def __sklearn_clone__(self) -> Any:
        new = type(self)(**{k: _clone_param(v) for k, v in self.get_params(deep=False).items()})
        if hasattr(self, "_metadata_requests"):  # set_fit_request's requests survive, as in scikit-learn
            new._metadata_requests = copy.deepcopy(self._metadata_requests)
        return new

    def __sklearn_tags__(self) -> Any:
        from sklearn.utils import InputTags, Tags, TargetTags

        # The target is a 2-D rank matrix: one column per label; NaN features are missing values.
        return Tags(
            estimator_type=None,
            target_tags=TargetTags(required=True, multi_output=True, single_output=False),
            input_tags=InputTags(allow_nan=True, categorical=True),
        )

    # Parameters added after estimators of the class were first pickled, with the values that
    # keep the behaviour of before: a pickle that lacks one gets it when it is loaded.
    _added_params: ClassVar[dict[str, Any]] = {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update({**self._added_params, **state})
        if "model_" in state:
            from lrank.estimators._fitted_params import rename_legacy_bpa

            rename_legacy_bpa(self)

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "model_")

    def _check_fitted(self) -> None:
        if not self.__sklearn_is_fitted__():
            raise _not_fitted_error()(
                f"This {type(self).__name__} instance is not fitted yet. Call 'fit' with appropriate "
                "arguments before using this estimator."
            )

    def _validate_x(self, X: Any, *, reset: bool) -> NDArray[np.float64]:
        """``X`` as the core reads it; at fit (``reset``) its width, column names and categories
        are kept, at predict they are checked (scikit-learn's rules and messages)."""
        known = None if reset else getattr(self, "categories_", None)
        got = _inputs.features(X, known)
        n = got.values.shape[1]
        if reset:
            self.n_features_in_ = n
            self.categories_ = got.categories
            if got.names is not None:
                self.feature_names_in_ = np.asarray(got.names, dtype=object)
            elif hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
            return got.values
        if n != self.n_features_in_:
            raise InvalidInputError(
                f"X has {n} features, but {type(self).__name__} is expecting {self.n_features_in_} features as input."
            )
        _check_feature_names(self, got.names)
        return got.values

    def _validate_xy(
        self, X: Any, y: Any, sample_weight: ArrayLike | None, labels: Sequence[str] | None = None
    ) -> tuple[NDArray[np.float64], NDArray[np.int32], NDArray[np.float64] | None]:
        names: Sequence[str] | None = None
        if type(X).__name__ == "LabelRankingDataset" and y is None:
            if X.rankings is None:
                raise InvalidInputError("the data set has no rankings to fit on")
            y = X.rankings
            names = list(X.labels)
            if sample_weight is None and X.weights is not None and np.any(X.weights != 1.0):
                sample_weight = X.weights
        if y is None:
            raise InvalidInputError(
                f"{type(self).__name__} requires y to be passed, but the target y is None "
                "(y: the rank matrix of the training rows)"
            )
        xa = self._validate_x(X, reset=True)
        ya, frame_names = _inputs.rank_targets(y, labels, by_name=True)
        if ya.shape[0] != xa.shape[0]:
            raise InvalidInputError(f"X has {xa.shape[0]} rows but y has {ya.shape[0]}")
        w = None
        if sample_weight is not None:
            try:
                w = np.asarray(sample_weight, dtype=np.float64)
            except (TypeError, ValueError):
                raise InvalidInputError(f"sample_weight must be numbers, got {sample_weight!r:.80}") from None
            # One number weighs every row alike, as scikit-learn reads it.
            w = np.full(xa.shape[0], w) if w.ndim == 0 else np.ascontiguousarray(w)
            if w.shape != (xa.shape[0],):
                raise InvalidInputError(f"sample_weight must have shape ({xa.shape[0]},), got {w.shape}")
        self.n_labels_ = ya.shape[1]
        self.labels_ = _label_names(labels if labels is not None else frame_names or names, ya.shape[1])
        _inputs.warn_if_nothing_to_learn(ya, self.labels_)
        return xa, ya, w

    def _nominal_mask(self, n_features: int) -> list[bool] | None:
        """The features the core treats as nominal: ``categorical_features`` (when the estimator
        has it) and the categorical columns of ``X``."""
        params = self.get_params(deep=False)
        mask = resolve_categorical(params.get("categorical_features"), n_features)
        from_dtype = [c is not None for c in getattr(self, "categories_", [])]
        if any(from_dtype):
            mask = [a or b for a, b in zip(mask or [False] * n_features, from_dtype)]
        return mask

    def predict(self, X: Any) -> NDArray[np.int32]:  # pragma: no cover - abstract
        raise NotImplementedError

    def score(self, X: Any, y: Any = None, sample_weight: ArrayLike | None = None) -> float:
        """Mean Kendall tau between ``predict(X)`` and ``y`` (on the labels each row of y contains);
        when ``y`` ties labels, the mean tau_x (Emond & Mason), the measure for ties. ``X`` may be
        a data set alone, as for ``fit``: its rankings (by label name) and weights are used."""
        from lrank.metrics import kendall_tau, tau_x

        if type(X).__name__ == "LabelRankingDataset" and y is None:
            if X.rankings is None:
                raise InvalidInputError("the data set has no rankings to score against")
            import polars as pl

            y = pl.DataFrame({label: X.rankings[:, j] for j, label in enumerate(X.labels)})
            if sample_weight is None and X.weights is not None and np.any(X.weights != 1.0):
                sample_weight = X.weights
        if y is None:
            raise InvalidInputError(
                f"{type(self).__name__}.score needs y, the rank matrix of X's rows (or X a data set with rankings)"
            )
        truth = self._score_targets(y)
        measure = tau_x if has_ties(truth) else kendall_tau
        return measure(truth, self.predict(X), sample_weight=sample_weight)

    def _score_targets(self, y: Any) -> NDArray[np.int32]:
        """``y`` for ``score``: rankings as text are read by the fitted labels."""
        labels = getattr(self, "labels_", None)
        if labels is None and _inputs._ranking_texts(y) is not None:
            # Sorted names need not be the fitted columns' order: a silently wrong score.
            raise InvalidInputError(
                "y holds rankings as text, but the model was fitted on a rank matrix without label names: "
                "fit with labels=, or score with the rank matrix"
            )
        try:
            return _inputs.rank_targets(y, labels, by_name=True)[0]
        except InvalidInputError as exc:
            raise _inputs.with_known_labels(exc, labels) from None


def _not_fitted_error() -> type[NotFittedError]:
    """lrank's NotFittedError, also scikit-learn's when scikit-learn is loaded: code that catches
    scikit-learn's must have imported it, so only then is it needed (and importing it is slow)."""
    sklearn_exceptions = sys.modules.get("sklearn.exceptions")
    if sklearn_exceptions is None:
        return NotFittedError
    global _BOTH_NOT_FITTED
    if _BOTH_NOT_FITTED is None:
        _BOTH_NOT_FITTED = type("NotFittedError", (NotFittedError, sklearn_exceptions.NotFittedError), {})
    return _BOTH_NOT_FITTED


_BOTH_NOT_FITTED: type[NotFittedError] | None = None


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a is b or a == b)
    except (ValueError, TypeError):  # arrays
        return False


def _clone_param(value: Any) -> Any:
    if hasattr(value, "get_params") and not isinstance(value, type):
        from sklearn.base import clone

        return clone(value)
    return copy.deepcopy(value)


def _label_names(names: Sequence[Any] | None, m: int) -> list[str] | None:
    if names is None:
        return None
    out = [str(n) for n in names]
    if len(out) != m:
        raise InvalidInputError(f"labels has {len(out)} names for {m} labels")
    if len(set(out)) != m:
        raise InvalidInputError(f"labels must be distinct, got {out}")
    return out


def _check_feature_names(est: Any, names: list[str] | None) -> None:
    """scikit-learn's check of the columns at predict: the same names in the same order."""
    fitted = getattr(est, "feature_names_in_", None)
    if names is None and fitted is None:
        return
    if names is None:
        warnings.warn(
            f"X does not have valid feature names, but {type(est).__name__} was fitted with feature names",
            UserWarning,
            stacklevel=_inputs._user_stacklevel(),
        )
        return
    if fitted is None:
        warnings.warn(
            f"X has feature names, but {type(est).__name__} was fitted without feature names",
            UserWarning,
            stacklevel=_inputs._user_stacklevel(),
        )
        return
    if list(fitted) == list(names):
        return
    message = "The feature names should match those that were passed during fit.\n"
    unexpected = sorted(set(names) - set(fitted))
    missing = sorted(set(fitted) - set(names))
    if unexpected:
        message += "Feature names unseen at fit time:\n" + "".join(f"- {n}\n" for n in unexpected)
    if missing:
        message += "Feature names seen at fit time, yet now missing:\n" + "".join(f"- {n}\n" for n in missing)
    if not unexpected and not missing:
        message += "Feature names must be in the same order as they were in fit.\n"
    raise InvalidInputError(message)


class CoreLearnerRanker(LeafApply, LabelRanker):
    """An estimator fitted by the Rust core (``_core.Model``): the one fit path of lrank.

    Subclasses give ``_core_kind`` (the core learner's name) and ``_core_params(seed)`` (its
    parameters in serde form, ``{kind: {...}}``, converted by :mod:`lrank.estimators._convert`;
    the core checks their domains), and name the core parameters they call otherwise in
    ``_core_names``. ``random_state``, ``n_jobs`` and ``categorical_features`` are used when the
    subclass has them. ``_read_summary`` sets fitted attributes from what the model reports of
    itself, on fit and when a model is loaded.
    """

    _core_kind: str = ""
    # The training arrays until feature_importances_ is first read, and then the shares.
    _importance_inputs: _importances.ImportanceInputs | None = None
    _importance_shares: NDArray[np.float64] | None = None
    # Core parameter name -> this estimator's name, where they differ.
    _core_names: ClassVar[dict[str, str]] = {}

    def _core_params(self, seed: int = 0) -> dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _read_summary(self, summary: dict[str, Any], *, fitting: bool) -> None:
        """Fitted attributes from the model's summary (on fit, and when a model is loaded)."""

    def _tie_refusal(self) -> str | None:
        """Why these parameters cannot learn from tied labels, or None when they can."""
        return _core.tie_refusal(self._params_json(0))

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

    def fit(
        self,
        X: Any,
        y: Any = None,
        sample_weight: ArrayLike | None = None,
        *,
        labels: Sequence[str] | None = None,
        **legacy: Any,
    ) -> Any:
        """Fits on features ``X`` (n, d) and rank matrix ``y`` (n, m); returns self.

        ``labels`` names the labels (else the columns of a DataFrame ``y`` or of a data set's
        rankings do); ``X`` may also be a :class:`lrank.data.LabelRankingDataset` alone.
        """
        y = _legacy_y(y, legacy, type(self).__name__)
        names = self.get_params(deep=False)
        warm = _warm.Previous.of(self, names)  # warm_start: the fit to add trees to
        seed = warm.seed if warm else resolve_seed(names["random_state"]) if "random_state" in names else 0
        params = self._params_json(seed)
        oob = _oob.wanted(names)
        x, y, w = self._validate_xy(X, y, sample_weight, labels)
        refusal = _core.tie_refusal(params)
        # Refused here, naming the row of y as given: the core's refusal may name a row of a
        # resample (a bagged or boosted member's).
        complaint = tie_complaint(y, refusal, instead=_PLR_ESTIMATORS) if refusal is not None else None
        if complaint is not None:
            raise InvalidInputError(complaint)
        jobs, nominal = resolve_n_jobs(names.get("n_jobs")), self._nominal_mask(x.shape[1])
        try:
            if warm:
                self.model_ = warm.add_trees(int(names["n_estimators"]), x, y, w, n_jobs=jobs, nominal=nominal)
            else:
                self.model_ = _core.Model.fit(params, x, y, w, n_jobs=jobs, nominal=nominal)
        except InvalidParameterError as err:
            raise self._renamed(err) from None
        _warm.remember(self, names, x, y, w, nominal)
        if "random_state" in names:
            self.seed_ = seed
        self._read_summary(json.loads(self.model_.summary_json()), fitting=True)
        if oob:
            _oob.estimate(self, x, y, w, jobs)
        else:
            _oob.forget(self)
        # Split importances are computed from the training data when first read (see _importances).
        self._importance_inputs = _importances.keep(x, y, w) if self.model_.has_trees else None
        self._importance_shares = None
        return self

    @property
    def feature_importances_(self) -> NDArray[np.float64]:
        """Each feature's share (summing to 1) of the decrease in disagreement among the training
        rankings over all splits of the model's trees: scikit-learn's mean decrease in impurity,
        with one impurity for every learner (the Gini impurity of each label pair's order), on the
        whole training set (GradientBoostingLabelRanker: each split's gain on the loss's
        derivatives). Only models with trees have it; computed when first read."""
        cached = self.__dict__.get("_importance_shares")
        if cached is not None:
            return cached
        inputs = self.__dict__.get("_importance_inputs")
        if inputs is None:
            raise AttributeError(self._no_importances())
        if not _importances.unchanged(inputs):
            raise AttributeError(_importances.CHANGED)
        shares = self.model_.split_importances(inputs.x, inputs.y, inputs.w, n_jobs=self._predict_jobs())
        if shares is None:  # pragma: no cover - only models with trees keep their inputs
            raise AttributeError(self._no_importances())
        self._importance_shares, self._importance_inputs = shares, None
        return shares

    def split_importances(self, X: Any, y: Any, sample_weight: ArrayLike | None = None) -> NDArray[np.float64]:
        """``feature_importances_`` measured on the labelled rows ``X``, ``y``: for a model loaded
        from a file or fitted on a cluster (which kept no training data), or on held-out rows."""
        self._check_fitted()
        if self.model_ is None or not self.model_.has_trees:
            raise InvalidInputError(
                f"{type(self).__name__} with these parameters has no trees, so no split importances"
            )
        x, truth = self._validate_x(X, reset=False), np.ascontiguousarray(self._score_targets(y), dtype=np.int32)
        w = None if sample_weight is None else np.ascontiguousarray(sample_weight, dtype=np.float64)
        shares = self.model_.split_importances(x, truth, w, n_jobs=self._predict_jobs())
        assert shares is not None  # a model with trees has them
        return shares

    def _no_importances(self) -> str:
        name = type(self).__name__
        if not self.__sklearn_is_fitted__():
            return f"This {name} instance is not fitted yet: feature_importances_ comes from fitting."
        model = self.model_
        if model is None or not model.has_trees:  # None: a Python ensemble's members
            return f"{name} with these parameters has no trees, so no feature_importances_"
        return (
            f"this {name} was not fitted in this process (loaded from a model file or merged): "
            "feature_importances_ is computed from the training data at fit; split_importances(X, y) "
            "computes them on data you give"
        )

    def __getstate__(self) -> dict[str, Any]:
        # A pickle carries the importances, not the training data they are computed from (none
        # when those data were changed since fit).
        inputs = self.__dict__.get("_importance_inputs")
        if inputs is not None and _importances.unchanged(inputs):
            self.feature_importances_  # noqa: B018 - computes and caches them
        return {k: v for k, v in self.__dict__.items() if k != "_importance_inputs"}

    def _predict_jobs(self) -> int | None:
        return resolve_n_jobs(self.get_params(deep=False).get("n_jobs"))

    def predict(self, X: ArrayLike) -> NDArray[np.int32]:
        """Predicted complete rank matrix (n, m)."""
        self._check_fitted()
        return self.model_.predict(self._validate_x(X, reset=False), n_jobs=self._predict_jobs())

    def _confidence(self, X: ArrayLike) -> tuple[NDArray[np.int32], NDArray[np.float64]]:
        self._check_fitted()
        ranks, conf = self.model_.predict_with_confidence(self._validate_x(X, reset=False), n_jobs=self._predict_jobs())
        if conf is None:  # pragma: no cover - only called by learners that have one
            raise InvalidInputError(f"{type(self).__name__} gives no confidence")
        return ranks, conf

    def _scores(self, X: ArrayLike) -> NDArray[np.float64]:
        self._check_fitted()
        scores = self.model_.predict_scores(self._validate_x(X, reset=False), n_jobs=self._predict_jobs())
        if scores is None:  # pragma: no cover - only called by learners that have scores
            raise InvalidInputError(f"{type(self).__name__} has no label scores")
        return scores

    def _members(self, X: ArrayLike) -> NDArray[np.int32]:
        """An ensemble's members' rankings, shape (members, n, m)."""
        self._check_fitted()
        members = self.model_.predict_members(self._validate_x(X, reset=False), n_jobs=self._predict_jobs())
        if members is None:  # pragma: no cover - only called by ensembles
            raise InvalidInputError(f"{type(self).__name__} has no members")
        return members

    def _set_fitted(self, model: _core.Model) -> None:
        """Restores fitted state from a loaded core model."""
        self.model_ = model
        self._importance_inputs = self._importance_shares = None
        self.n_features_in_ = model.n_features
        self.n_labels_ = model.n_labels
        if "random_state" in self.get_params(deep=False):
            self.seed_ = int(json.loads(model.params_json())[model.kind]["seed"])
        self._read_summary(json.loads(model.summary_json()), fitting=False)


def nested_core_params(base: Any) -> dict[str, Any] | None:
    """A meta-learner's base learner's core parameters (checked, errors named as the base calls
    its parameters), or None when the base is not one of the core's learners, nor a subclass
    made outside lrank (the core would grow the parent's model and drop what it adds)."""
    own = isinstance(base, CoreLearnerRanker) and type(base).__module__.startswith("lrank.")
    inner = base._core_params() if own else None
    if inner is None:
        return None
    try:
        _core.validate_params(json.dumps(inner))
    except InvalidParameterError as err:
        raise base._renamed(err) from None
    return inner


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


def resolve_seed(random_state: int | np.random.RandomState | None) -> int:
    """A 64-bit seed: the given one, one drawn from a ``RandomState`` (which advances it, as in
    scikit-learn), or a fresh random one for ``None``."""
    # numpy.random is not touched for an int or None: importing it costs a fresh process 8 to 11 ms,
    # more than a whole small fit. A RandomState can only exist once it has been imported.
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, (bool, np.bool_)):
        if not 0 <= random_state < 2**64:
            # Not folded into 64 bits: 2**64 would silently give the model of seed 0.
            raise _convert._bad("random_state", f"must lie in [0, 2**64), got {random_state}")
        return int(random_state)
    if random_state is None:
        return int.from_bytes(os.urandom(8), "little")
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None and isinstance(random_state, numpy_random.RandomState):
        return int(random_state.randint(0, 2**64, dtype=np.uint64))
    raise _convert._bad("random_state", f"must be an int, a numpy RandomState or None, got {random_state!r}")


def resolve_n_jobs(n_jobs: int | None) -> int | None:
    """n_jobs as lrank's estimators read it: k > 0 = k threads, -1 = all cores, -2 = all but one,
    ...; None = all cores, unless ``OMP_NUM_THREADS`` is set: then that many, as scikit-learn's
    OpenMP estimators do, and as joblib's worker processes set it (a GridSearchCV(n_jobs=2)
    otherwise ran a pool of every core in each worker)."""
    if n_jobs is None:
        limit = os.environ.get("OMP_NUM_THREADS", "").strip()
        return int(limit) if limit.isdigit() and int(limit) > 0 else None
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise _convert._bad("n_jobs", f"must be a non-zero int or None, got {n_jobs!r}")
    if n_jobs == -1:
        return None
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + int(n_jobs))
    return int(n_jobs)


def _legacy_y(y: Any, legacy: dict[str, Any], who: str) -> Any:
    """``fit(X, Y=...)``, the spelling before lrank followed scikit-learn's ``y``."""
    if "Y" in legacy:
        warnings.warn(f"{who}.fit(Y=...) is deprecated; use y=...", FutureWarning, stacklevel=3)
        if y is not None:
            raise TypeError(f"{who}.fit got both y and Y")
        y = legacy.pop("Y")
    if legacy:
        raise TypeError(f"{who}.fit got unexpected keyword arguments {sorted(legacy)}")
    return y
