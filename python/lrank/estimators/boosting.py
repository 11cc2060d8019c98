"""BoostLR (Dery & Shmueli 2020): AdaBoost.R2 over label rankers, the Kendall distance as error."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank.errors import InvalidInputError
from lrank.estimators import _convert
from lrank.estimators.base import CoreLearnerRanker, nested_core_params
from lrank.learner_spec import LearnerOption, LearnerSpec, parse_choice, parse_learner_name
from lrank.rankings import has_ties

_AGGREGATORS = {"borda": "Borda", "copeland": "Copeland", "mallows": "Mallows", "kemeny": "Kemeny"}
_LOSSES = {"linear": "Linear", "square": "Square", "exponential": "Exponential"}
_SAMPLING = {"resample": "Resample", "reweight": "Reweight"}


class AdaBoostLabelRanker(CoreLearnerRanker):
    """BoostLR: boosting of a label ranker (label ranking trees by default) in the manner of
    AdaBoost.R2, the error of a row being the share of its ranked label pairs a member orders
    the wrong way.

    Each round fits a member on rows drawn with the current row weights (or on all rows
    weighted, ``sampling="reweight"``); rows the member ranked badly gain weight for the next
    round. A row's loss is its Kendall error divided by the round's largest ("linear"; or its
    square, or ``1 - exp(-x)``). Boosting stops early when a member makes no error (it is kept,
    with weight 1: its beta of 0 would give an infinite one) or when a round's mean loss reaches
    1/2 (that member is dropped, unless it is the first, which is then kept alone with weight 1).
    The prediction is the consensus of the members' rankings, each weighted by
    ``learning_rate * ln(1/beta)`` of its round.

    Parameters
    ----------
    estimator : the label ranker to boost, one of lrank's learners; None: ``LabelRankingTree()``.
    n_estimators : most rounds.
    learning_rate : shrinks each member's weight and each update of the row weights (> 0).
    loss : "linear" (default), "square" or "exponential".
    sampling : "resample" (default, Drucker's AdaBoost.R2) or "reweight".
    aggregation : consensus of the weighted members: "borda" (default), "copeland", "mallows"
        or "kemeny".
    random_state : seed; the same seed gives the same ensemble for any ``n_jobs``. None: random.
    n_jobs : threads (None: all cores, or OMP_NUM_THREADS if set; -1: all cores).
    categorical_features : None, a boolean mask or column indices of nominal features.

    Attributes
    ----------
    estimator_weights_ : each member's weight in the consensus.
    estimator_errors_ : each round's weighted mean loss.
    """

    _core_kind = "Boosting"
    _core_names: ClassVar[dict[str, str]] = {"aggregator": "aggregation"}

    def __init__(
        self,
        estimator: Any = None,
        n_estimators: int = 50,
        learning_rate: float = 1.0,
        loss: str = "linear",
        sampling: str = "resample",
        aggregation: str = "borda",
        random_state: int | None = None,
        n_jobs: int | None = None,
        categorical_features: ArrayLike | None = None,
    ) -> None:
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.loss = loss
        self.sampling = sampling
        self.aggregation = aggregation
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features

    def _core_params(self, seed: int = 0) -> dict[str, Any]:
        base = self.estimator
        if base is None:
            from lrank.estimators.tree import LabelRankingTree

            base = LabelRankingTree()
        inner = nested_core_params(base)
        if inner is None:
            raise InvalidInputError(
                f"BoostLR (AdaBoostLabelRanker) boosts lrank's own learners only, not {type(base).__name__} "
                "(a plug-in, or an ensemble of one): bag it with Bagging -W NAME instead"
            )
        return {
            "Boosting": {
                "base": inner,
                "n_estimators": _convert.count("n_estimators", self.n_estimators),
                "learning_rate": _convert.finite("learning_rate", self.learning_rate),
                "loss": _convert.choice("loss", self.loss, _LOSSES),
                "sampling": _convert.choice("sampling", self.sampling, _SAMPLING),
                "aggregator": _convert.choice("aggregation", self.aggregation, _AGGREGATORS),
                "seed": seed,
            }
        }

    def _read_summary(self, summary: dict[str, Any], *, fitting: bool) -> None:
        self.estimator_weights_ = np.asarray(summary["member_weights"], dtype=np.float64)
        self.estimator_errors_ = np.asarray(summary["round_losses"], dtype=np.float64)

    def predict_per_member(self, X: ArrayLike) -> NDArray[np.int32]:
        """Each member's ranking for each row: shape (members, n, m)."""
        return self._members(X)

    def staged_predict(self, X: ArrayLike) -> Iterator[NDArray[np.int32]]:
        """The rank matrix after each boosting round in turn, as scikit-learn's AdaBoost gives it:
        round k's is the members' consensus of the first k by their votes (the last is
        ``predict(X)``). The members predict once; the stages are computed together."""
        self._check_fitted()
        stages = self.model_.staged_members(self._validate_x(X, reset=False), n_jobs=self._predict_jobs())
        for k in range(stages.shape[1]):
            yield np.ascontiguousarray(stages[:, k, :])

    def staged_score(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Iterator[float]:
        """``score(X, y)`` after each boosting round in turn (mean Kendall tau; tau_x with ties)."""
        from lrank.metrics import kendall_tau, tau_x

        truth = self._score_targets(y)
        measure = tau_x if has_ties(truth) else kendall_tau
        for ranks in self.staged_predict(X):
            yield measure(truth, ranks, sample_weight=sample_weight)


# -- the command line's view of the learner (collected by lrank.registry) --------------------------

LEARNER_SPECS = (
    LearnerSpec(
        name="BoostLR",
        factory=AdaBoostLabelRanker,
        summary="BoostLR: AdaBoost.R2 over label ranking trees (or another lrank learner), Kendall error",
        reference="Dery & Shmueli 2020; Drucker 1997 (AdaBoost.R2)",
        options=(
            LearnerOption(
                "-W",
                "estimator",
                "learner to boost (default LRT); its options follow a second --",
                parse_learner_name,
                "NAME",
            ),
            LearnerOption("-I", "n_estimators", "most rounds (default 50)"),
            LearnerOption("-shrinkage", "learning_rate", "learning rate (default 1)", float, "X"),
            LearnerOption(
                "-loss",
                "loss",
                "loss of a row's Kendall error: linear, square or exponential (default linear)",
                parse_choice("linear", "square", "exponential"),
                "LOSS",
            ),
            LearnerOption(
                "-sampling",
                "sampling",
                "members fitted on rows drawn by weight (resample, default) or on weighted rows (reweight)",
                parse_choice("resample", "reweight"),
                "HOW",
            ),
            LearnerOption(
                "-A",
                "aggregation",
                "consensus: borda, copeland, mallows or kemeny (default borda)",
                parse_choice("borda", "copeland", "mallows", "kemeny"),
                "AGG",
            ),
        ),
        nested_param="estimator",
        nested_default="LRT",
    ),
)
