"""LRT: the label ranking tree of Cheng, Hühn & Hüllermeier (2009), and its W-LRT / F-LRT
variants with unsupervised thresholds (Aledo, Gámez & Molina)."""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank.estimators import _convert
from lrank.estimators.base import CoreLearnerRanker
from lrank.learner_spec import (
    LearnerOption,
    LearnerSpec,
    max_features_option,
    min_leaf_option,
    min_split_option,
    parse_depth,
)

_SPLITTERS = {"best": "Best", "equal_width": "EqualWidth", "equal_frequency": "EqualFrequency"}
SPLITTERS = tuple(_SPLITTERS)


class LabelRankingTree(CoreLearnerRanker):
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
    min_samples_split : nodes with less total weight become leaves; None: 2m; a value in (0, 1) is
        that share of the training weight (scikit-learn's fraction of the samples).
    max_iter : iteration cap of the EM median in each node.
    splitter : "best" (LRT), "equal_width" (W-LRT) or "equal_frequency" (F-LRT).
    random_state : order in which attributes are scored (ties go to the first, but equal gains
        summed in other orders can differ in the last digit, and that decides), and the features
        drawn per node with ``max_features``. None: random.
    n_jobs : threads (None: all cores, or OMP_NUM_THREADS if set; -1: all cores); the tree does not depend on it.
    categorical_features : None, a boolean mask or column indices of nominal features.
    max_features : features drawn per node: "all" (default, the paper's), "sqrt", "log2+1", an
        int or a share.
    min_samples_leaf : least total weight on each side of a split (default 0: none; a value in
        (0, 1) is that share of the training weight).

    Attributes
    ----------
    depth_ : the tree's depth.
    n_leaves_ : its number of leaves.
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
        max_features: str | int | float = "all",
        min_samples_leaf: float = 0,
    ) -> None:
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.max_iter = max_iter
        self.splitter = splitter
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features
        self.max_features = max_features
        self.min_samples_leaf = min_samples_leaf

    _core_kind = "LabelTree"
    _core_names: ClassVar[dict[str, str]] = {
        "min_weight_split": "min_samples_split",
        "threshold_rule": "splitter",
        "min_weight_leaf": "min_samples_leaf",
    }
    # Pickled before these were parameters: the paper's tree.
    _added_params: ClassVar[dict[str, Any]] = {"max_features": "all", "min_samples_leaf": 0}

    def _core_params(self, seed: int = 0) -> dict[str, Any]:
        """The core learner's parameters (serde form), e.g. for bagging in the core."""
        return {
            "LabelTree": {
                "max_depth": _convert.count("max_depth", self.max_depth, none=True),
                "min_weight_split": _convert.finite("min_samples_split", self.min_samples_split, none=True),
                "max_iter": _convert.count("max_iter", self.max_iter),
                "seed": seed,
                "threshold_rule": _convert.choice("splitter", self.splitter, _SPLITTERS),
                "max_features": _convert.max_features(self.max_features),
                "min_weight_leaf": _convert.finite("min_samples_leaf", self.min_samples_leaf),
            }
        }

    def _read_summary(self, summary: dict[str, Any], *, fitting: bool) -> None:
        self.depth_ = summary["depth"]
        self.n_leaves_ = summary["n_leaves"]

    def predict_with_confidence(self, X: ArrayLike) -> tuple[NDArray[np.int32], NDArray[np.float64]]:
        """Predicted rank matrix and the Mallows spread theta of each row's leaf."""
        return self._confidence(X)


# -- the command line's view of the learners (collected by lrank.registry) -------------------------

_TREE_OPTIONS = (
    LearnerOption("-depth", "max_depth", "maximum depth in splits, 0 = unlimited (default 0)", parse_depth),
    min_split_option("2m"),
    LearnerOption("-max-iter", "max_iter", "iteration cap of the EM median (default 20)"),
    max_features_option("all"),
    min_leaf_option("0"),
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
