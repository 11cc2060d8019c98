"""LRT: the label ranking tree of Cheng, Hühn & Hüllermeier (2009), and its W-LRT / F-LRT
variants with unsupervised thresholds (Aledo, Gámez & Molina)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank import _core
from lrank.errors import InvalidInputError
from lrank.estimators.base import LabelRanker, resolve_categorical, resolve_n_jobs, resolve_seed
from lrank.learner_spec import LearnerOption, LearnerSpec, parse_depth

SPLITTERS = ("best", "equal_width", "equal_frequency")


class LabelRankingTree(LabelRanker):
    """LRT: a decision tree whose splits maximise the size-weighted Mallows spread of the two
    sides, (|T+| theta+ + |T-| theta-) / |T|, and whose leaves predict the Mallows EM median of
    their rankings, completed from their ancestors when they lack labels (optimal insertion).

    A node is a leaf when its rankings are all consistent, when it holds fewer than
    ``min_samples_split`` examples (default 2m, the paper's rule) or at ``max_depth``. The split
    search scores each threshold in O(m^2) from running Borda scores and pairwise counts (Borda
    centre, pooled discordance of the observed pairs, one half-discordant pseudo-pair; see the
    Rust module ``label_tree`` for the exact definition). (WEKA-LR's class called LRT uses a
    different, pairwise-consistency criterion; this one follows the paper.)

    ``splitter`` chooses how a numeric attribute's threshold is found: ``"best"`` tries every
    threshold (LRT); ``"equal_width"`` fixes it at the midpoint of the node's smallest and
    largest value (W-LRT) and ``"equal_frequency"`` at the node's median (F-LRT), the
    unsupervised thresholds of Aledo, Gámez & Molina; the attribute is then still chosen by the
    Mallows criterion. Categorical features split one value against the rest.

    Parameters
    ----------
    max_depth : maximum splits from root to leaf; None: unlimited.
    min_samples_split : nodes with less total weight become leaves; None: 2m.
    max_iter : iteration cap of the EM median in each node.
    splitter : "best" (LRT), "equal_width" (W-LRT) or "equal_frequency" (F-LRT).
    random_state : order in which attributes are scored (ties go to the first). None: random.
    n_jobs : threads (None or -1: all cores); the tree does not depend on it.
    categorical_features : None, a boolean mask or column indices of nominal features.
    """

    def __init__(
        self,
        max_depth: int | None = None,
        min_samples_split: float | None = None,
        max_iter: int = 20,
        splitter: str = "best",
        random_state: int | None = None,
        n_jobs: int | None = None,
        categorical_features: ArrayLike | None = None,
    ) -> None:
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.max_iter = max_iter
        self.splitter = splitter
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features

    def _validate_params(self) -> None:
        if self.max_depth is not None and (
            isinstance(self.max_depth, bool) or not isinstance(self.max_depth, (int, np.integer)) or self.max_depth < 0
        ):
            raise InvalidInputError(f"max_depth must be a non-negative int or None, got {self.max_depth!r}")
        if self.min_samples_split is not None and not (
            isinstance(self.min_samples_split, (int, float, np.number)) and self.min_samples_split >= 0
        ):
            raise InvalidInputError(f"min_samples_split must be >= 0 or None, got {self.min_samples_split!r}")
        if isinstance(self.max_iter, bool) or not isinstance(self.max_iter, (int, np.integer)) or self.max_iter < 0:
            raise InvalidInputError(f"max_iter must be a non-negative int, got {self.max_iter!r}")
        if self.splitter not in SPLITTERS:
            raise InvalidInputError(f"splitter must be one of {', '.join(SPLITTERS)}, got {self.splitter!r}")

    def _core_params(self, seed: int = 0) -> dict[str, Any]:
        """The core learner's parameters (serde form), e.g. for bagging in the core."""
        self._validate_params()
        return {
            "LabelTree": {
                "max_depth": None if self.max_depth is None else int(self.max_depth),
                "min_weight_split": None if self.min_samples_split is None else float(self.min_samples_split),
                "max_iter": int(self.max_iter),
                "seed": seed,
                "threshold_rule": {"best": "Best", "equal_width": "EqualWidth", "equal_frequency": "EqualFrequency"}[
                    self.splitter
                ],
            }
        }

    def fit(self, X: ArrayLike, Y: ArrayLike, sample_weight: ArrayLike | None = None) -> LabelRankingTree:
        self._validate_params()
        x, y, w = self._check_xy(X, Y, sample_weight)
        self.seed_ = resolve_seed(self.random_state)
        self.model_ = _core.LabelTreeModel.fit(
            x,
            y,
            w,
            max_depth=None if self.max_depth is None else int(self.max_depth),
            min_weight_split=None if self.min_samples_split is None else float(self.min_samples_split),
            max_iter=int(self.max_iter),
            seed=self.seed_,
            threshold_rule=self.splitter,
            n_jobs=resolve_n_jobs(self.n_jobs),
            nominal=resolve_categorical(self.categorical_features, x.shape[1]),
        )
        return self

    def predict_with_confidence(self, X: ArrayLike) -> tuple[NDArray[np.int32], NDArray[np.float64]]:
        """Predicted rank matrix and the Mallows spread theta of each row's leaf."""
        self._check_fitted()
        return self.model_.predict(self._check_x(X, fitting=False), n_jobs=resolve_n_jobs(self.n_jobs))

    def predict(self, X: ArrayLike) -> NDArray[np.int32]:
        return self.predict_with_confidence(X)[0]

    def _set_fitted(self, model: _core.LabelTreeModel) -> None:
        self.model_ = model
        self.n_features_in_ = model.n_features
        self.n_labels_ = model.n_labels
        self.seed_ = int(model.params()["seed"])


# -- the command line's view of the learners (collected by lrank.registry) -------------------------

_TREE_OPTIONS = (
    LearnerOption("-depth", "max_depth", "maximum depth in splits, 0 = unlimited (default 0)", parse_depth),
    LearnerOption("-M", "min_samples_split", "smallest node that is split (default 2m)", float, "W"),
    LearnerOption("-max-iter", "max_iter", "iteration cap of the EM median (default 20)"),
)

LEARNER_SPECS = (
    LearnerSpec(
        name="LRT",
        factory=LabelRankingTree,
        summary="Label ranking tree: Mallows-spread splits, Mallows median leaves completed from ancestors",
        reference="Cheng, Huehn & Huellermeier 2009, Decision tree and instance-based learning for label ranking",
        options=_TREE_OPTIONS,
    ),
    LearnerSpec(
        name="WLRT",
        factory=functools.partial(LabelRankingTree, splitter="equal_width"),
        summary="LRT with equal-width thresholds (midpoint of the node's range); bag it with -W Bagging",
        reference="Aledo, Gamez & Molina 2017, Tackling the supervised label ranking problem by bagging weak learners",
        options=_TREE_OPTIONS,
    ),
    LearnerSpec(
        name="FLRT",
        factory=functools.partial(LabelRankingTree, splitter="equal_frequency"),
        summary="LRT with equal-frequency thresholds (the node's median); bag it with -W Bagging",
        reference="Aledo, Gamez & Molina 2017, Tackling the supervised label ranking problem by bagging weak learners",
        options=_TREE_OPTIONS,
    ),
)
