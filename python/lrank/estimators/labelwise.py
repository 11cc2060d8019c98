"""Labelwise label ranking (Fotakis, Kalavasis, Kontonis & Tzamos 2022): regression trees and
forests that predict each label's relative position."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank.estimators import _convert
from lrank.estimators.base import CoreLearnerRanker
from lrank.learner_spec import (
    LearnerOption,
    LearnerSpec,
    max_bins_option,
    max_features_option,
    min_leaf_option,
    min_split_option,
    oob_option,
    parse_depth,
)

_DOC_MODEL = """
    A ranking holding k labels gives the label at position r the target (r - 1/2) / k; a label
    missing from a ranking has no target there and is left out of that label's regression. One
    multi-output CART tree (mean squared error summed over labels) predicts all labels' targets;
    a leaf predicts each label's mean target, or its parent's for a label none of its rows ranks.
    The predicted ranking sorts labels by increasing predicted position, ties to the lower label.
    ``tune_depth=True`` chooses ``max_depth`` from {5, 10, 15, unlimited} by inner 5-fold
    cross-validation (mean Kendall tau) before fitting: ``max_depth_`` and ``best_params_`` say
    which, ``depth_scores_`` each candidate's tau. ``max_bins=None`` tries every midpoint
    between consecutive distinct values; ``max_bins=N`` cuts each feature once per fit into at
    most N quantile bins and searches histograms of them (a feature with at most N distinct values
    gets a bin per value: the exact search).
"""


class _Labelwise(CoreLearnerRanker):
    # Pickled before the histogram search (and the missing-label protocol): exact search.
    _added_params: ClassVar[dict[str, Any]] = {"max_bins": None}
    _core_kind = "Labelwise"

    def _params(self) -> dict[str, Any]:  # pragma: no cover - overridden
        raise NotImplementedError

    def _core_params(self, seed: int = 0) -> dict[str, Any]:
        """The core learner's parameters (serde form), e.g. for bagging in the core."""
        p = self._params()
        p.update(
            {
                "max_depth": _convert.count("max_depth", self.max_depth, none=True),  # type: ignore[attr-defined]
                "min_samples_split": _convert.finite("min_samples_split", self.min_samples_split),  # type: ignore[attr-defined]
                "min_samples_leaf": _convert.finite("min_samples_leaf", self.min_samples_leaf),  # type: ignore[attr-defined]
                "tune_depth": _convert.flag("tune_depth", self.tune_depth),  # type: ignore[attr-defined]
                "max_bins": _convert.max_bins(self.max_bins),  # type: ignore[attr-defined]
                "seed": seed,
                # A single tree's nodes already draw per-node seeds; the forest's only when asked.
                "node_seeds": _convert.flag("node_seeds", getattr(self, "node_seeds", False)),
            }
        )
        return {"Labelwise": p}

    def _read_summary(self, summary: dict[str, Any], *, fitting: bool) -> None:
        self.max_depth_ = summary["max_depth"]
        # Inner cross-validation's mean tau per candidate depth (None: unlimited); empty unless tuned.
        self.depth_scores_ = {s["max_depth"]: s["tau"] for s in summary["depth_scores"]}
        self.best_params_ = {"max_depth": self.max_depth_} if summary["depth_scores"] else None

    def predict_scores(self, X: ArrayLike) -> NDArray[np.float64]:
        """Each label's predicted relative position in (0, 1) (lower is preferred), shape (n, m)."""
        return self._scores(X)


class LabelwiseDecisionTree(_Labelwise):
    __doc__ = (
        """Labelwise decision tree (LWDT): one multi-output regression tree.
"""
        + _DOC_MODEL
        + """
    Parameters
    ----------
    max_depth : maximum splits from root to leaf; None: unlimited (a fully grown tree).
    min_samples_split : nodes with less total weight are leaves (default 2); a value in (0, 1) is
        that share of the training weight (scikit-learn's fraction of the samples).
    min_samples_leaf : least total weight on each side of a split (default 1); a value in (0, 1)
        is that share of the training weight.
    tune_depth : choose max_depth by inner cross-validation (see above).
    max_bins : None (default): exact split search; N (2 to 255): histogram search with N bins.
    random_state : order in which features are scored (ties go to the first, but
        equal gains summed in other orders can differ in the last digit, and that decides); None: random.
    n_jobs : threads (None: all cores, or OMP_NUM_THREADS if set; -1: all cores); the tree does not depend on it.
    categorical_features : None, a boolean mask or column indices of nominal features.
    """
    )

    def __init__(
        self,
        max_depth: int | None = None,
        min_samples_split: float = 2,
        min_samples_leaf: float = 1,
        tune_depth: bool = False,
        max_bins: int | None = None,
        random_state: int | None = None,
        n_jobs: int | None = None,
        categorical_features: ArrayLike | None = None,
    ) -> None:
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.tune_depth = tune_depth
        self.max_bins = max_bins
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features

    def _params(self) -> dict[str, Any]:
        return {"n_estimators": 1, "bootstrap": False, "max_features": "All"}


class LabelwiseRandomForest(_Labelwise):
    __doc__ = (
        """Labelwise random forest (LWRF): multi-output regression trees on bootstrap samples
    with a random share of the features per node; the forest averages the trees' predicted
    positions.

    ``node_seeds=True`` draws each node's features from a seed of its own (derived from its
    parent's) instead of one random stream per tree: an equally good forest, and the one
    ``lrank.dask.fit(..., exact=True)`` grows on a cluster, bit for bit.
"""
        + _DOC_MODEL
        + """
    Parameters
    ----------
    n_estimators : number of trees (default 100).
    max_features : features drawn per node: a share in (0, 1] (default 1/3, Breiman's choice for
        regression), an int, "sqrt", "log2+1" or "all".
    bootstrap : grow each tree on a bootstrap sample (else on the whole training set).
    max_bins : histogram search with at most this many bins per feature (default 255; 2 to 255);
        None: exact split search.
    max_depth, min_samples_split, min_samples_leaf, tune_depth : as for LabelwiseDecisionTree.
    node_seeds : a random seed per node rather than a stream per tree (default False).
    warm_start : a refit with more ``n_estimators`` adds trees to this forest (the same training data
        and other parameters; the forest equals a fit with the final count; default False).
    oob_score : estimate the fit's tau out of bag (``oob_score_``, ``oob_prediction_``: each training
        row ranked by the trees whose bootstrap sample did not draw it; default False).
    random_state : seed; the same seed gives the same forest for any ``n_jobs``. None: random.
    n_jobs : threads (None: all cores, or OMP_NUM_THREADS if set; -1: all cores).
    categorical_features : None, a boolean mask or column indices of nominal features.
    """
    )

    def __init__(
        self,
        n_estimators: int = 100,
        max_features: str | int | float = 1 / 3,
        bootstrap: bool = True,
        max_depth: int | None = None,
        min_samples_split: float = 2,
        min_samples_leaf: float = 1,
        tune_depth: bool = False,
        max_bins: int | None = 255,
        node_seeds: bool = False,
        oob_score: bool = False,
        warm_start: bool = False,
        random_state: int | None = None,
        n_jobs: int | None = None,
        categorical_features: ArrayLike | None = None,
    ) -> None:
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.bootstrap = bootstrap
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.tune_depth = tune_depth
        self.max_bins = max_bins
        self.node_seeds = node_seeds
        self.oob_score = oob_score
        self.warm_start = warm_start
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features

    # Pickled before per-node seeds: a stream per tree; before out-of-bag estimates: none.
    _added_params: ClassVar[dict[str, Any]] = {
        "max_bins": None,
        "node_seeds": False,
        "oob_score": False,
        "warm_start": False,
    }

    def _params(self) -> dict[str, Any]:
        return {
            "n_estimators": _convert.count("n_estimators", self.n_estimators),
            "bootstrap": _convert.flag("bootstrap", self.bootstrap),
            "max_features": _convert.max_features(self.max_features),
        }


# -- the command line's view of the learners (collected by lrank.registry) -------------------------


_TREE_OPTIONS = (
    LearnerOption("-depth", "max_depth", "maximum depth in splits, 0 = unlimited (default 0)", parse_depth),
    min_split_option(),
    min_leaf_option(),
    LearnerOption("-tune", "tune_depth", "choose the depth from 5, 10, 15, unlimited by inner 5-fold CV", None, ""),
)

LEARNER_SPECS = (
    LearnerSpec(
        name="LWDT",
        factory=LabelwiseDecisionTree,
        summary="Labelwise decision tree: one multi-output regression tree of the labels' relative positions",
        reference="Fotakis, Kalavasis, Kontonis & Tzamos 2022, Label ranking through nonparametric regression",
        options=(*_TREE_OPTIONS, max_bins_option(None)),
    ),
    LearnerSpec(
        name="LWRF",
        factory=LabelwiseRandomForest,
        summary="Labelwise random forest: regression forest of the labels' relative positions",
        reference="Fotakis, Kalavasis, Kontonis & Tzamos 2022, Label ranking through nonparametric regression",
        options=(
            LearnerOption("-I", "n_estimators", "number of trees (default 100)"),
            max_features_option("0.333", drawn=True),
            LearnerOption(
                "-no-bootstrap",
                "bootstrap",
                "grow every tree on the whole training set",
                None,
                "",
                switch_value=False,
            ),
            oob_option(),
            *_TREE_OPTIONS,
            max_bins_option(255),
            LearnerOption(
                "-node-seeds",
                "node_seeds",
                "a random seed per node, not a stream per tree (the forest lrank.dask grows exactly)",
                None,
                "",
                switch_value=True,
            ),
        ),
    ),
)
