"""GBLR, gradient-boosted label ranking: a score per label, boosted multi-output regression trees
fitted by Newton steps to the gradients of a ranking loss."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank.estimators import _convert
from lrank.estimators._inputs import _user_stacklevel
from lrank.estimators.base import CoreLearnerRanker
from lrank.learner_spec import (
    LearnerOption,
    LearnerSpec,
    max_bins_option,
    parse_choice,
    parse_depth,
    parse_max_features,
)

_LOSSES = {"plackett-luce": "PlackettLuce", "pairwise": "PairwiseLogistic"}


def _early_stopping(value: Any) -> str:
    if isinstance(value, str) and value == "auto":
        return "Auto"
    if value is True or value is False:
        return "On" if value else "Off"
    raise _convert._bad("early_stopping", f"must be 'auto', True or False, got {value!r}")


class GradientBoostingLabelRanker(CoreLearnerRanker):
    """Gradient-boosted label ranking (GBLR): one score per label, higher ranked first.

    The scores start at the best constant scores for the loss; each round fits one multi-output
    regression tree to the per-label gradients and Hessian diagonals of the loss at the current
    scores (a Newton step per leaf: -G/(H + l2) for each label, times ``learning_rate``; a split
    scores the gain in the sum over labels of G²/(H + l2)) and adds it. Rankings are predicted by
    sorting the scores, ties to the lower label. With ``per_label_trees`` each round fits one
    single-output tree per label instead, to that label's gradients (as multiclass gradient
    boosting does, and as ``HistGradientBoostingRegressor`` fitted per label would): m times the
    trees, more accurate at the same rounds on large data (see BENCHMARKS.md).

    Losses: ``"plackett-luce"`` (default), the Plackett-Luce negative log-likelihood of each
    training ranking, which uses incomplete rankings as they stand: a label left out (position
    0) is missing, so it enters no choice of the likelihood (no ties: tied training rankings are
    refused); ``"pairwise"``, the logistic loss of each label pair the ranking orders (tied pairs
    are left out, so rankings with ties are learned from). A top-k ranking, where the unranked
    labels are known to come after the k, is a bucket order: give those labels position k + 1
    (tied last) and use the pairwise loss, which then learns that they follow; left at 0 they
    read as missing, and neither loss learns where they go.

    Parameters
    ----------
    loss : "plackett-luce" (default) or "pairwise".
    n_estimators : most boosting rounds (default 100).
    learning_rate : shrinkage of each tree's values (default 0.1).
    max_depth : maximum splits from root to leaf (default 6); None: unlimited.
    min_samples_leaf : least total weight on each side of a split (default 20).
    l2_regularization : L2 penalty on leaf values (default 1). With 0, a leaf whose H for a
        label is below a thousandth of an average row's weight (rows the model already ranks
        surely) takes no step for that label: -G/H of rounding noise overflowed the scores.
    subsample : share of the training rows each round's tree sees, drawn without replacement
        (default 1: all).
    max_features : features drawn per node: a share in (0, 1], an int, "sqrt", "log2+1" or
        "all" (default).
    max_bins : histogram search with at most this many bins per feature (default 255; 2 to 255);
        None: exact split search.
    early_stopping : "auto" (default: on for 10,000 training rows or more), True or False. A share
        ``validation_fraction`` of the rows is held out; boosting stops when its loss has not
        improved for ``n_iter_no_change`` rounds, and the rounds up to its best are kept.
    validation_fraction : held-out share for early stopping (default 0.1).
    n_iter_no_change : patience of early stopping in rounds (default 10).
    per_label_trees : fit one single-output tree per label each round, to that label's
        gradients (as multiclass boosting does), instead of one multi-output tree for all labels
        (default False). m times the trees: more capacity per round, at more cost.
    tune : choose ``max_depth`` (3 or 6), ``learning_rate`` (0.05, 0.1 or 0.3) and the number of
        rounds (a quarter, half, three quarters or all of ``n_estimators``) by inner 3-fold
        cross-validation (mean Kendall tau; ties to the simpler), then fit with the choice.
    random_state : seed; the same seed gives the same model for any ``n_jobs``. None: random.
    n_jobs : threads (None: all cores, or OMP_NUM_THREADS if set; -1: all cores).
    categorical_features : None, a boolean mask or column indices of nominal features.

    Attributes
    ----------
    n_estimators_ : rounds kept.
    train_score_ : mean training loss after each round run; with early stopping, also the
        ``n_iter_no_change`` rounds after the best, which the model does not keep (so the
        curve shows where it stopped improving).
    validation_score_ : mean held-out loss after each round run (empty without early stopping,
        and with too few rows to hold any out: then a warning says so and every round is kept).
    init_scores_ : the constant scores boosting starts from.
    best_params_ : with ``tune``, the chosen ``max_depth``, ``learning_rate`` and ``n_estimators``.
    tuning_scores_ : with ``tune``, every candidate's mean inner cross-validation tau.
    feature_importances_ : each feature's share of the splits' gain on the loss.

    ``staged_predict(X)`` and ``staged_predict_scores(X)`` yield the predictions after each
    round, as scikit-learn's gradient boosting does (e.g. held-out tau by round).
    """

    _core_kind = "GradientBoosting"
    _added_params: ClassVar[dict[str, Any]] = {"per_label_trees": False}

    def __init__(
        self,
        loss: str = "plackett-luce",
        n_estimators: int = 100,
        learning_rate: float = 0.1,
        max_depth: int | None = 6,
        min_samples_leaf: float = 20,
        l2_regularization: float = 1.0,
        subsample: float = 1.0,
        max_features: str | int | float | None = "all",
        max_bins: int | None = 255,
        early_stopping: str | bool = "auto",
        validation_fraction: float = 0.1,
        n_iter_no_change: int = 10,
        per_label_trees: bool = False,
        tune: bool = False,
        random_state: int | None = None,
        n_jobs: int | None = None,
        categorical_features: ArrayLike | None = None,
    ) -> None:
        self.loss = loss
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.subsample = subsample
        self.max_features = max_features
        self.max_bins = max_bins
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.per_label_trees = per_label_trees
        self.tune = tune
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features

    def _core_params(self, seed: int = 0) -> dict[str, Any]:
        return {
            "GradientBoosting": {
                "loss": _convert.choice("loss", self.loss, _LOSSES),
                "n_estimators": _convert.count("n_estimators", self.n_estimators),
                "learning_rate": _convert.finite("learning_rate", self.learning_rate),
                "max_depth": _convert.count("max_depth", self.max_depth, none=True),
                "min_samples_leaf": _convert.finite("min_samples_leaf", self.min_samples_leaf),
                "l2_regularization": _convert.finite("l2_regularization", self.l2_regularization),
                "subsample": _convert.finite("subsample", self.subsample),
                "max_features": _convert.max_features(self.max_features),
                "max_bins": _convert.max_bins(self.max_bins),
                "early_stopping": _early_stopping(self.early_stopping),
                "validation_fraction": _convert.finite("validation_fraction", self.validation_fraction),
                "n_iter_no_change": _convert.count("n_iter_no_change", self.n_iter_no_change),
                "per_label_trees": _convert.flag("per_label_trees", self.per_label_trees),
                "tune": _convert.flag("tune", self.tune),
                "seed": seed,
            }
        }

    def _read_summary(self, summary: dict[str, Any], *, fitting: bool) -> None:
        self.n_estimators_ = int(summary["n_rounds"])
        self.train_score_ = np.asarray(summary["train_loss"], dtype=np.float64)
        self.validation_score_ = np.asarray(summary["validation_loss"], dtype=np.float64)
        if fitting and self.early_stopping is True and self.validation_score_.size == 0 and self.n_estimators_:
            # Asked for, and not done: too few rows to hold any out.
            warnings.warn(
                "GradientBoostingLabelRanker: early_stopping=True, but the training data has too few rows "
                "to hold out a validation share: every round is kept",
                UserWarning,
                stacklevel=_user_stacklevel(),
            )
        self.init_scores_ = np.asarray(summary["init_scores"], dtype=np.float64)
        tuned = summary.get("tuned")
        self.best_params_ = (
            None if tuned is None else {k: tuned[k] for k in ("max_depth", "learning_rate", "n_estimators")}
        )
        self.tuning_scores_ = list(summary.get("tuning", []))

    def predict_scores(self, X: ArrayLike) -> NDArray[np.float64]:
        """Each label's score (higher is preferred), shape (n, m)."""
        return self._scores(X)

    def staged_predict(self, X: ArrayLike) -> Iterator[NDArray[np.int32]]:
        """The rank matrix after each boosting round in turn (the last is ``predict(X)``)."""
        for ranks, _ in self._stages(X):
            yield ranks

    def staged_predict_scores(self, X: ArrayLike) -> Iterator[NDArray[np.float64]]:
        """The label scores after each boosting round in turn (the last is ``predict_scores(X)``)."""
        for _, scores in self._stages(X):
            yield scores

    def _stages(self, X: ArrayLike) -> Iterator[tuple[NDArray[np.int32], NDArray[np.float64]]]:
        self._check_fitted()
        x, jobs = self._validate_x(X, reset=False), self._predict_jobs()
        scores = None
        # One round's trees per step: each tree is walked once, whatever the number of rounds.
        for round_ in range(self.n_estimators_):
            ranks, scores = self.model_.staged_round(x, round_, scores, n_jobs=jobs)
            yield ranks, scores  # a new array each round


# -- the command line's view of the learner (collected by lrank.registry) --------------------------


def _parse_early(text: str) -> str | bool:
    word = parse_choice("auto", "on", "off")(text)
    return "auto" if word == "auto" else word == "on"


LEARNER_SPECS = (
    LearnerSpec(
        name="GBLR",
        factory=GradientBoostingLabelRanker,
        summary="Gradient-boosted label ranking: boosted multi-output trees on a ranking loss's gradients",
        reference="lrank; second-order gradient boosting (Friedman 2001; Chen & Guestrin 2016) of label scores",
        options=(
            LearnerOption(
                "-loss",
                "loss",
                "plackett-luce (default) or pairwise (logistic over ordered label pairs; learns from ties)",
                parse_choice("plackett-luce", "pairwise"),
                "LOSS",
            ),
            LearnerOption("-I", "n_estimators", "most boosting rounds (default 100)"),
            LearnerOption("-shrinkage", "learning_rate", "learning rate (default 0.1)", float, "X"),
            LearnerOption("-depth", "max_depth", "maximum depth in splits, 0 = unlimited (default 6)", parse_depth),
            LearnerOption("-L", "min_samples_leaf", "least weight on each side of a split (default 20)", float, "W"),
            LearnerOption("-l2", "l2_regularization", "L2 penalty on leaf values (default 1)", float, "X"),
            LearnerOption("-subsample", "subsample", "share of rows per round (default 1)", float, "X"),
            LearnerOption(
                "-K",
                "max_features",
                "features drawn per node: a share, N, sqrt, log2+1 or all (default all)",
                parse_max_features,
                "K",
            ),
            max_bins_option(255),
            LearnerOption(
                "-early",
                "early_stopping",
                "early stopping on a held-out share: auto (from 10,000 rows), on or off (default auto)",
                _parse_early,
                "WHEN",
            ),
            LearnerOption("-validation", "validation_fraction", "held-out share (default 0.1)", float, "X"),
            LearnerOption("-patience", "n_iter_no_change", "rounds without improvement before stopping (default 10)"),
            LearnerOption(
                "-per-label",
                "per_label_trees",
                "one tree per label per round, on that label's gradients (default: one tree for all labels)",
                None,
                "",
            ),
            LearnerOption(
                "-tune",
                "tune",
                "choose depth (3, 6), learning rate (0.05, 0.1, 0.3) and rounds by inner 3-fold CV",
                None,
                "",
            ),
        ),
    ),
)
