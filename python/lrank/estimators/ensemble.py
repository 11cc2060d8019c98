"""Bagging of label rankers (Breiman 1996), as Aledo, Gámez & Molina bag label ranking trees."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank import _core
from lrank.aggregation import AGGREGATORS
from lrank.errors import InvalidInputError
from lrank.estimators.base import LabelRanker, resolve_categorical, resolve_n_jobs, resolve_seed
from lrank.learner_spec import LearnerOption, LearnerSpec, parse_choice, parse_learner_name, parse_share_percent

# Core names of the aggregators.
_CORE_AGGREGATORS = {"borda": "Borda", "copeland": "Copeland", "mallows": "Mallows", "kemeny": "Kemeny"}


class BaggingLabelRanker(LabelRanker):
    """Bagging: ``n_estimators`` copies of ``base_estimator``, each fitted on a bootstrap sample
    of the training rows (``max_samples`` times n rows drawn with replacement; a row drawn c
    times weighs c), predicting the consensus of their rankings.

    With one of lrank's own learners as base (LRT, W-LRT, F-LRT, LR-RF, IBLR, ...), the whole
    ensemble is fitted by the Rust core, members in parallel. Any other label ranker with
    scikit-learn's ``get_params``/``fit(X, Y, sample_weight)``/``predict`` works too and is
    bagged in Python (slower).

    Parameters
    ----------
    base_estimator : the label ranker to bag; None: ``LabelRankingTree()`` (LRT).
    n_estimators : number of bootstrap members.
    aggregation : how members' rankings are combined: "borda" (default), "copeland",
        "mallows" (the EM median of Cheng et al.) or "kemeny" (exact, at most 16 labels).
    max_samples : bootstrap sample size as a share of the training rows, in (0, 1].
    random_state : seed; the same seed gives the same ensemble for any ``n_jobs``. None: random.
    n_jobs : threads (None or -1: all cores).
    categorical_features : None, a boolean mask or column indices of nominal features.
    """

    def __init__(
        self,
        base_estimator: Any = None,
        n_estimators: int = 50,
        aggregation: str = "borda",
        max_samples: float = 1.0,
        random_state: int | None = None,
        n_jobs: int | None = None,
        categorical_features: ArrayLike | None = None,
    ) -> None:
        self.base_estimator = base_estimator
        self.n_estimators = n_estimators
        self.aggregation = aggregation
        self.max_samples = max_samples
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features

    def _base(self) -> Any:
        if self.base_estimator is None:
            from lrank.estimators.tree import LabelRankingTree

            return LabelRankingTree()
        return self.base_estimator

    def _validate_params(self) -> None:
        n = self.n_estimators
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise InvalidInputError(f"n_estimators must be a positive int, got {n!r}")
        if self.aggregation not in AGGREGATORS:
            raise InvalidInputError(f"aggregation must be one of {', '.join(AGGREGATORS)}, got {self.aggregation!r}")
        if not isinstance(self.max_samples, (int, float, np.number)) or not 0 < self.max_samples <= 1:
            raise InvalidInputError(f"max_samples must lie in (0, 1], got {self.max_samples!r}")

    def _core_params(self, seed: int = 0) -> dict[str, Any] | None:
        base = self._base()
        if not hasattr(base, "_core_params"):
            return None
        inner = base._core_params()
        if inner is None:
            return None
        return {
            "Bagging": {
                "base": inner,
                "n_estimators": int(self.n_estimators),
                "aggregator": _CORE_AGGREGATORS[self.aggregation],
                "max_samples": float(self.max_samples),
                "seed": seed,
            }
        }

    def fit(self, X: ArrayLike, Y: ArrayLike, sample_weight: ArrayLike | None = None) -> BaggingLabelRanker:
        """Fits the ensemble on features ``X`` (n, d) and rank matrix ``Y`` (n, m)."""
        self._validate_params()
        x, y, w = self._check_xy(X, Y, sample_weight)
        self.seed_ = resolve_seed(self.random_state)
        params = self._core_params(self.seed_)
        self.model_: _core.LearnerModel | None
        if params is not None:
            self.model_ = _core.LearnerModel.fit(
                json.dumps(params),
                x,
                y,
                w,
                n_jobs=resolve_n_jobs(self.n_jobs),
                nominal=resolve_categorical(self.categorical_features, x.shape[1]),
            )
            self.estimators_ = None
            return self
        self.model_ = None
        self.estimators_ = self._fit_in_python(x, y, w)
        return self

    def _fit_in_python(self, x: NDArray[np.float64], y: NDArray[np.int32], w: NDArray[np.float64] | None) -> list[Any]:
        """The same procedure for a base learner the core does not know, one member at a time."""
        base = self._base()
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
            member = type(base)(**base.get_params())
            if "random_state" in member.get_params():
                member.set_params(random_state=int(rng.integers(2**63)))
            member.fit(x[rows], y[rows], sample_weight=counts[rows])
            members.append(member)
        return members

    def predict_per_member(self, X: ArrayLike) -> NDArray[np.int32]:
        """Each member's ranking for each row: shape (n_estimators, n, m)."""
        self._check_fitted()
        x = self._check_x(X, fitting=False)
        if self.model_ is not None:
            return self.model_.predict_per_member(x, n_jobs=resolve_n_jobs(self.n_jobs))
        assert self.estimators_ is not None  # fitted in Python
        return np.stack([m.predict(x) for m in self.estimators_])

    def predict(self, X: ArrayLike) -> NDArray[np.int32]:
        """The consensus of the members' rankings, row by row (complete rank matrix)."""
        self._check_fitted()
        x = self._check_x(X, fitting=False)
        if self.model_ is not None:
            return self.model_.predict(x, n_jobs=resolve_n_jobs(self.n_jobs))
        per = self.predict_per_member(x)
        combine = AGGREGATORS[self.aggregation]
        return np.stack([combine(per[:, i, :]) for i in range(per.shape[1])]).astype(np.int32)

    def _set_fitted(self, model: _core.LearnerModel) -> None:
        self.model_ = model
        self.estimators_ = None
        self.n_features_in_ = model.n_features
        self.n_labels_ = model.n_labels
        self.seed_ = int(json.loads(model.params_json())["Bagging"]["seed"])


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
                "base_estimator",
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
                "consensus: borda, copeland, mallows or kemeny (default borda)",
                parse_choice("borda", "copeland", "mallows", "kemeny"),
                "AGG",
            ),
        ),
        nested_param="base_estimator",
        nested_default="LRT",
    ),
)
