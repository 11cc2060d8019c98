"""Bagging of label rankers (Breiman 1996), as Aledo, Gámez & Molina bag label ranking trees."""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank.aggregation import AGGREGATORS
from lrank.errors import InvalidInputError, InvalidParameterError, LearnerOutputError
from lrank.estimators import _convert, _inputs, _oob
from lrank.estimators.base import CoreLearnerRanker, _legacy_y, nested_core_params, resolve_seed
from lrank.estimators.base import _clone_param as _clone
from lrank.learner_spec import (
    LearnerOption,
    LearnerSpec,
    oob_option,
    parse_choice,
    parse_learner_name,
    parse_share_percent,
)
from lrank.rankings import as_predictions

# Seeds handed to members bagged in Python: below 2**31, which every seed-taking library accepts
# (numpy's RandomState and scikit-learn's random_state stop at 2**32 - 1), as scikit-learn's
# bagging draws them.
_MEMBER_SEEDS = np.iinfo(np.int32).max


class BaggingLabelRanker(CoreLearnerRanker):
    """Bagging: ``n_estimators`` copies of ``estimator``, each fitted on a bootstrap sample
    of the training rows (``max_samples`` times n rows drawn with replacement; a row drawn c
    times weighs c), predicting the consensus of their rankings.

    With one of lrank's own learners as base (LRT, W-LRT, F-LRT, LR-RF, IBLR, ...), the whole
    ensemble is fitted by the Rust core, members in parallel. Any other label ranker with
    scikit-learn's ``get_params``/``fit(X, y, sample_weight)``/``predict`` works too and is
    bagged in Python (slower). Nested parameters reach the base learner as in scikit-learn
    (``estimator__max_depth``).

    Parameters
    ----------
    estimator : the label ranker to bag; None: ``LabelRankingTree()`` (LRT).
    n_estimators : number of bootstrap members.
    aggregation : how members' rankings are combined: "borda" (default), "copeland",
        "mallows" (the EM median of Cheng et al.) or "kemeny" (exact, at most 16 labels); with ties
        (for partial-label-ranking members, e.g. PLR trees): "bpa" (BPA-LIA-MP2, as Alfaro et al.
        aggregate their PLR ensembles), "borda-ties" or "copeland-ties".
    beta : the tie threshold of "bpa", "borda-ties" and "copeland-ties" (None: their default).
    max_samples : bootstrap sample size as a share of the training rows, in (0, 1].
    warm_start : a refit with more ``n_estimators`` adds members to this ensemble (the same training
        data and other parameters; the ensemble equals a fit with the final count; with lrank's own
        base learners; default False).
    oob_score : estimate the fit's tau out of bag (``oob_score_``, ``oob_prediction_``: each training
        row ranked by the members whose bootstrap sample did not draw it; default False; with
        lrank's own base learners).
    random_state : seed; the same seed gives the same ensemble for any ``n_jobs``. None: random.
    n_jobs : threads (None: all cores, or OMP_NUM_THREADS if set; -1: all cores).
    categorical_features : None, a boolean mask or column indices of nominal features.
    base_estimator : deprecated name of ``estimator`` (as in scikit-learn).

    Attributes
    ----------
    estimators_ : the fitted members when they were bagged in Python (a base learner not of
        lrank's own); None when the core fitted them (``predict_per_member`` gives their rankings).
    """

    def __init__(
        self,
        estimator: Any = None,
        n_estimators: int = 50,
        aggregation: str = "borda",
        beta: float | None = None,
        max_samples: float = 1.0,
        oob_score: bool = False,
        warm_start: bool = False,
        random_state: int | None = None,
        n_jobs: int | None = None,
        categorical_features: ArrayLike | None = None,
        base_estimator: Any = "deprecated",
    ) -> None:
        self.estimator = estimator
        self.base_estimator = base_estimator
        self.n_estimators = n_estimators
        self.aggregation = aggregation
        self.beta = beta
        self.max_samples = max_samples
        self.oob_score = oob_score
        self.warm_start = warm_start
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features

    # Pickles made before ``beta`` existed restore no such attribute: they get this default.
    beta: float | None = None
    oob_score: bool = False
    warm_start: bool = False
    _core_kind = "Bagging"
    _core_names: ClassVar[dict[str, str]] = {"aggregator": "aggregation"}

    def _base(self, warn: bool = False) -> Any:
        """The learner to bag; ``warn``: say that ``base_estimator`` is deprecated (once per fit)."""
        base = self.estimator
        if not (isinstance(self.base_estimator, str) and self.base_estimator == "deprecated"):
            if base is not None:
                raise _convert._bad("base_estimator", "give estimator or its deprecated name base_estimator, not both")
            if warn:
                warnings.warn(
                    "BaggingLabelRanker(base_estimator=...) is deprecated; use estimator=...",
                    FutureWarning,
                    stacklevel=_inputs._user_stacklevel(),
                )
            base = self.base_estimator
        if base is None:
            from lrank.estimators.tree import LabelRankingTree

            return LabelRankingTree()
        if isinstance(base, type):
            raise InvalidInputError(
                f"estimator must be a label ranker, not the class {base.__name__}: pass {base.__name__}()"
            )
        if not all(callable(getattr(base, attr, None)) for attr in ("fit", "predict", "get_params")):
            raise InvalidInputError(f"estimator must be a label ranker with fit, predict and get_params, got {base!r}")
        return base

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Pickles made before the parameter was renamed hold base_estimator only.
        if "estimator" not in state:
            state = {**state, "estimator": state.get("base_estimator"), "base_estimator": "deprecated"}
        super().__setstate__(state)

    def _own_params(self) -> dict[str, Any]:
        return {
            "n_estimators": _convert.count("n_estimators", self.n_estimators),
            "aggregator": _convert.aggregator(self.aggregation, self.beta),
            "max_samples": _convert.finite("max_samples", self.max_samples),
        }

    def _tie_refusal(self) -> str | None:
        if self._core_params(0) is not None:
            return super()._tie_refusal()
        # Bagged in Python: the base's refusal (when it says), or the consensus's.
        refusal = getattr(self._base(), "_tie_refusal", None)
        why = refusal() if callable(refusal) else None
        if why is None and self.aggregation == "mallows":
            why = "the Mallows consensus combines rankings without ties"
        return why

    def _core_params(self, seed: int = 0) -> dict[str, Any] | None:  # type: ignore[override]
        """The core's parameters, or None when the base learner is not one of the core's."""
        # The base's parameters first, so that an error names them as the base calls them.
        inner = nested_core_params(self._base())
        if inner is None:
            return None
        return {"Bagging": {"base": inner, **self._own_params(), "seed": seed}}

    def fit(
        self,
        X: Any,
        y: Any = None,
        sample_weight: ArrayLike | None = None,
        *,
        labels: Any = None,
        **legacy: Any,
    ) -> BaggingLabelRanker:
        """Fits the ensemble on features ``X`` (n, d) and rank matrix ``y`` (n, m)."""
        y = _legacy_y(y, legacy, type(self).__name__)
        self._base(warn=True)
        if self._core_params() is not None:
            super().fit(X, y, sample_weight, labels=labels)
            self.estimators_ = None
            return self
        own = self._own_params()
        if own["n_estimators"] < 1 or not 0 < own["max_samples"] <= 1:
            raise InvalidInputError(
                f"n_estimators must be >= 1 and max_samples in (0, 1], got {self.n_estimators!r}, {self.max_samples!r}"
            )
        if _oob.wanted(self.get_params(deep=False)) or _convert.is_on(self.warm_start):
            raise InvalidParameterError(
                "oob_score=True and warm_start=True need one of lrank's own learners as estimator "
                "(the core draws the samples again)"
            )
        _oob.forget(self)
        x, y, w = self._validate_xy(X, y, sample_weight, labels)
        self.seed_ = resolve_seed(self.random_state)
        self.model_ = None  # type: ignore[assignment]  # members fitted in Python
        self._importance_inputs = self._importance_shares = None
        self.estimators_ = self._fit_in_python(x, y, w)
        return self

    def _fit_in_python(self, x: NDArray[np.float64], y: NDArray[np.int32], w: NDArray[np.float64] | None) -> list[Any]:
        """The same procedure for a base learner the core does not know, one member at a time.
        A learner whose ``fit`` takes no ``sample_weight`` (a ``Pipeline``, say) gets the drawn rows
        repeated as often as drawn, as scikit-learn's bagging does."""
        base = self._base()
        weighted = _inputs.fit_takes_sample_weight(base)
        if w is not None and not weighted:
            raise InvalidInputError(
                "sample_weight needs a base estimator whose fit takes sample_weight; "
                f"{type(base).__name__}.fit does not"
            )
        n = x.shape[0]
        draws = max(1, round(float(self.max_samples) * n))
        seeds = np.random.SeedSequence(self.seed_).spawn(int(self.n_estimators))
        members = []
        for seq in seeds:
            rng = np.random.default_rng(seq)
            counts = np.bincount(rng.integers(0, n, size=draws), minlength=n).astype(np.float64)
            if w is not None:
                counts *= w
            rows = np.flatnonzero(counts > 0)
            member = _clone(base)
            if "random_state" in member.get_params(deep=False):
                member.set_params(random_state=int(rng.integers(_MEMBER_SEEDS)))
            # Seeds of nested learners too (a Pipeline's steps), as scikit-learn's bagging sets them.
            nested = sorted(k for k in member.get_params(deep=True) if k.endswith("__random_state"))
            if nested:
                member.set_params(**{k: int(rng.integers(_MEMBER_SEEDS)) for k in nested})
            if weighted:
                # Every row, the undrawn ones weighing 0, as scikit-learn's bagging passes them: the
                # member's average row weight stays the data's (its node sizes count such rows).
                member.fit(x, y, sample_weight=counts)
            else:
                drawn = np.repeat(rows, counts[rows].astype(np.int64))
                member.fit(x[drawn], y[drawn])
            members.append(member)
        return members

    def predict_per_member(self, X: ArrayLike) -> NDArray[np.int32]:
        """Each member's ranking for each row: shape (n_estimators, n, m)."""
        self._check_fitted()
        if self.model_ is not None:
            return self._members(X)
        x = self._validate_x(X, reset=False)
        assert self.estimators_ is not None  # fitted in Python
        return np.stack([self._member_prediction(m, x) for m in self.estimators_])

    def _member_prediction(self, member: Any, x: NDArray[np.float64]) -> NDArray[np.int32]:
        """A member's predictions, refused in its name unless they rank every label from 1 (a
        plug-in's 0-based positions were read as labels left out, and the consensus ranked
        them otherwise)."""
        predicted = member.predict(x)
        name = type(member).__name__
        shape = np.shape(predicted)
        if shape != (x.shape[0], self.n_labels_):
            raise LearnerOutputError(
                f"bagged {name} predicted an array of shape {shape} for {x.shape[0]} rows of {self.n_labels_} labels"
            )
        try:
            return as_predictions(predicted, name="its predictions")
        except InvalidInputError as exc:
            raise LearnerOutputError(f"bagged {name} predicted no complete ranking: {exc}") from None

    def predict(self, X: ArrayLike) -> NDArray[np.int32]:
        """The consensus of the members' rankings, row by row (complete rank matrix)."""
        self._check_fitted()
        if self.model_ is not None:
            return super().predict(X)
        per = self.predict_per_member(X)
        combine = AGGREGATORS[self.aggregation]
        if self.aggregation in _convert.BUCKET_METHODS:
            return np.stack([combine(per[:, i, :], None, self.beta) for i in range(per.shape[1])]).astype(np.int32)
        return np.stack([combine(per[:, i, :]) for i in range(per.shape[1])]).astype(np.int32)

    def _set_fitted(self, model: Any) -> None:
        super()._set_fitted(model)
        self.estimators_ = None


# -- the command line's view of the learner (collected by lrank.registry) --------------------------

LEARNER_SPECS = (
    LearnerSpec(
        name="Bagging",
        factory=BaggingLabelRanker,
        summary="Bagging of any learner: bootstrap members combined by a consensus ranking",
        reference="Breiman 1996; Aledo, Gamez & Molina 2017 (bagged LRT, W-LRT, F-LRT)",
        options=(
            LearnerOption(
                "-W",
                "estimator",
                "learner to bag (default LRT); its options follow a second --",
                parse_learner_name,
                "NAME",
            ),
            LearnerOption("-I", "n_estimators", "number of members (default 50)"),
            LearnerOption(
                "-P",
                "max_samples",
                "bootstrap size as a percentage of the training rows (default 100)",
                parse_share_percent,
                "PCT",
            ),
            LearnerOption(
                "-A",
                "aggregation",
                "consensus: borda, copeland, mallows, kemeny, or with ties bpa, borda-ties, copeland-ties, bpa-local "
                "(default borda)",
                parse_choice(*_convert.AGGREGATIONS),
                "AGG",
            ),
            LearnerOption(
                "-beta", "beta", "tie threshold of bpa, borda-ties, copeland-ties (their default)", float, "BETA"
            ),
            oob_option("members"),
        ),
        nested_param="estimator",
        nested_default="LRT",
    ),
)
