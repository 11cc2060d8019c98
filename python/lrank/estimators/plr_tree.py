"""Partial label ranking trees and forests (Alfaro, Aledo & Gámez 2021, 2023): trees that learn
from rankings with ties and predict bucket orders."""

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
    parse_choice,
    parse_depth,
)

_CRITERIA = {"entropy": "Entropy", "disagreements": "Disagreements", "distance": "Distance"}

_DOC_MODEL = """
    Training rankings may tie labels (and leave labels out). A node is summarised by its
    pair-order counts: for every label pair, the weight of the rows with one label before the
    other, or both tied. A split minimises the children's weighted impurity: per pair, the entropy
    of (before, tied, after) ("entropy", the default), the share of rows disagreeing with the
    node's consensus ("disagreements"), or that share with a reversed pair counting twice
    ("distance"). A leaf predicts the consensus bucket order of its rows (``aggregation``:
    "bpa", BPA-LIA-MP2, by default; "borda-ties" or "copeland-ties"); predictions may tie labels.
    A label pair that none of a node's rows order (labels left out) takes the relation of the
    parent node's consensus (at the root: 1/2 each way, no evidence); with very sparse rankings
    BPA then predicts whole leaves as one bucket, where "borda-ties" does not (see the guide's
    "Rankings with ties").

    Thresholds: with ``max_bins=None`` every midpoint between consecutive distinct values is
    tried (the paper's search); with ``max_bins=N`` each feature is cut once per fit into at
    most N quantile bins and large nodes search histograms of the bins' pair-order counts (a
    feature with at most N distinct values gets a bin per value: the same split as the exact
    search).
"""


class _PlrTrees(CoreLearnerRanker):
    _core_kind = "PlrTree"
    _core_names: ClassVar[dict[str, str]] = {"consensus": "aggregation"}
    # Pickled before the histogram search: exact search; before min_samples_leaf: none.
    _added_params: ClassVar[dict[str, Any]] = {"max_bins": None, "min_samples_leaf": 0}

    def _ensemble(self) -> dict[str, Any]:  # pragma: no cover - overridden
        raise NotImplementedError

    def _core_params(self, seed: int = 0) -> dict[str, Any]:
        """The core learner's parameters (serde form), e.g. for bagging in the core."""
        return {
            "PlrTree": {
                "criterion": _convert.choice("criterion", self.criterion, _CRITERIA),  # type: ignore[attr-defined]
                "consensus": _convert.bucket_consensus(self.aggregation, self.beta),  # type: ignore[attr-defined]
                **self._ensemble(),
                "max_depth": _convert.count("max_depth", self.max_depth, none=True),  # type: ignore[attr-defined]
                "min_samples_split": _convert.finite("min_samples_split", self.min_samples_split),  # type: ignore[attr-defined]
                "min_samples_leaf": _convert.finite("min_samples_leaf", self.min_samples_leaf),  # type: ignore[attr-defined]
                "seed": seed,
                "max_bins": _convert.max_bins(self.max_bins),  # type: ignore[attr-defined]
                # A single tree's nodes already draw per-node seeds; the forest's only when asked.
                "node_seeds": _convert.flag("node_seeds", getattr(self, "node_seeds", False)),
            }
        }

    def _read_summary(self, summary: dict[str, Any], *, fitting: bool) -> None:
        self.tree_depths_ = list(summary["tree_depths"])
        self.tree_n_leaves_ = list(summary["tree_n_leaves"])


class PartialLabelRankingTree(_PlrTrees):
    __doc__ = (
        """Partial label ranking tree (Alfaro, Aledo & Gámez 2021).

    Attributes
    ----------
    tree_depths_ : the tree's depth, in a list of one.
    tree_n_leaves_ : its number of leaves, in a list of one.
    """
        + _DOC_MODEL
        + """
    Parameters
    ----------
    criterion : "entropy" (default), "disagreements" or "distance".
    aggregation : consensus of a leaf: "bpa" (default), "borda-ties" or "copeland-ties".
    beta : its tie threshold (None: the method's default, 0.25 for BPA).
    max_depth : maximum splits from root to leaf; None: unlimited (a fully grown tree).
    min_samples_split : nodes with less total weight are leaves (default 2); a value in (0, 1) is
        that share of the training weight (scikit-learn's fraction of the samples).
    min_samples_leaf : least total weight on each side of a split (default 0: none; a value in
        (0, 1) is that share of the training weight).
    max_bins : None (default): exact split search; N (2 to 255): histogram search, N bins.
    random_state : order in which features are scored (ties go to the first, but equal gains
        summed in other orders can differ in the last digit, and that decides), and the features
        drawn per node with ``max_features``; None: random.
    n_jobs : threads (None: all cores, or OMP_NUM_THREADS if set; -1: all cores); the tree does not depend on it.
    categorical_features : None, a boolean mask or column indices of nominal features.
    max_features : features drawn per node: "all" (default, the paper's tree), "sqrt", "log2+1",
        an int or a share.
    """
    )

    # Pickled before max_features was a parameter of the tree: all features.
    _added_params: ClassVar[dict[str, Any]] = {**_PlrTrees._added_params, "max_features": "all"}

    def __init__(
        self,
        criterion: str = "entropy",
        aggregation: str = "bpa",
        beta: float | None = None,
        max_depth: int | None = None,
        min_samples_split: float = 2,
        max_bins: int | None = None,
        random_state: int | None = None,
        n_jobs: int | None = None,
        categorical_features: ArrayLike | None = None,
        max_features: str | int | float = "all",
        min_samples_leaf: float = 0,
    ) -> None:
        self.criterion = criterion
        self.aggregation = aggregation
        self.beta = beta
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.max_bins = max_bins
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features
        self.max_features = max_features
        self.min_samples_leaf = min_samples_leaf

    def _ensemble(self) -> dict[str, Any]:
        return {"n_estimators": 1, "bootstrap": False, "max_features": _convert.max_features(self.max_features)}


class PartialLabelRankingForest(_PlrTrees):
    __doc__ = (
        """Random forest of partial label ranking trees (Alfaro, Aledo & Gámez 2023): trees on
    bootstrap samples with a random share of the features per node; the forest predicts the
    consensus (``aggregation``, unweighted) of its trees' bucket orders.

    ``node_seeds=True`` draws each node's features from a seed of its own (derived from its
    parent's) instead of one random stream per tree: an equally good forest, and the one
    ``lrank.dask.fit(..., exact=True)`` grows on a cluster, bit for bit.

    Attributes
    ----------
    tree_depths_ : each tree's depth.
    tree_n_leaves_ : each tree's number of leaves.
    """
        + _DOC_MODEL
        + """
    Parameters
    ----------
    n_estimators : number of trees (default 100).
    max_features : features drawn per node: "sqrt" (default), "log2+1", "all", an int or a share.
    bootstrap : grow each tree on a bootstrap sample (else on the whole training set).
    criterion, aggregation, beta, max_depth, min_samples_split, min_samples_leaf : as for
        PartialLabelRankingTree.
    max_bins : histogram search with at most this many bins per feature (2 to 255; default 255);
        None: exact search.
    node_seeds : a random seed per node rather than a stream per tree (default False).
    warm_start : a refit with more ``n_estimators`` adds trees to this forest (the same training data
        and other parameters; the forest equals a fit with the final count; default False).
    oob_score : estimate the fit's tau_x out of bag (``oob_score_``, ``oob_prediction_``: each training
        row ranked by the trees whose bootstrap sample did not draw it; default False).
    random_state : seed; the same seed gives the same forest for any ``n_jobs``. None: random.
    n_jobs : threads (None: all cores, or OMP_NUM_THREADS if set; -1: all cores).
    categorical_features : None, a boolean mask or column indices of nominal features.
    """
    )

    def __init__(
        self,
        n_estimators: int = 100,
        max_features: str | int | float = "sqrt",
        bootstrap: bool = True,
        criterion: str = "entropy",
        aggregation: str = "bpa",
        beta: float | None = None,
        max_depth: int | None = None,
        min_samples_split: float = 2,
        max_bins: int | None = 255,
        node_seeds: bool = False,
        oob_score: bool = False,
        warm_start: bool = False,
        random_state: int | None = None,
        n_jobs: int | None = None,
        categorical_features: ArrayLike | None = None,
        min_samples_leaf: float = 0,
    ) -> None:
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.bootstrap = bootstrap
        self.criterion = criterion
        self.aggregation = aggregation
        self.beta = beta
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
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
        "min_samples_leaf": 0,
        "node_seeds": False,
        "oob_score": False,
        "warm_start": False,
    }

    def _ensemble(self) -> dict[str, Any]:
        return {
            "n_estimators": _convert.count("n_estimators", self.n_estimators),
            "bootstrap": _convert.flag("bootstrap", self.bootstrap),
            "max_features": _convert.max_features(self.max_features),
        }

    def predict_per_tree(self, X: ArrayLike) -> NDArray[np.int32]:
        """Each tree's bucket order for each row: shape (n_estimators, n, m)."""
        return self._members(X)


# -- the command line's view of the learners (collected by lrank.registry) -------------------------

_OPTIONS = (
    LearnerOption(
        "-C",
        "criterion",
        "impurity: entropy, disagreements or distance (default entropy)",
        parse_choice(*_CRITERIA),
        "CRIT",
    ),
    LearnerOption(
        "-A",
        "aggregation",
        "consensus of leaves (and trees): bpa, borda-ties, copeland-ties or bpa-local (default bpa)",
        parse_choice(*_convert.BUCKET_METHODS),
        "AGG",
    ),
    LearnerOption(
        "-beta", "beta", "its tie threshold (default: 0.25 bpa, 0.5 borda-ties, 0.1 copeland-ties)", float, "BETA"
    ),
    LearnerOption("-depth", "max_depth", "maximum depth in splits, 0 = unlimited (default 0)", parse_depth),
    min_split_option(),
    min_leaf_option("0"),
)

LEARNER_SPECS = (
    LearnerSpec(
        name="PLRT",
        factory=PartialLabelRankingTree,
        summary="Partial label ranking tree: pair-order impurity, leaves predict a bucket order (ties)",
        reference="Alfaro, Aledo & Gamez 2021, Learning decision trees for the partial label ranking problem",
        options=(
            *_OPTIONS,
            max_bins_option(None),
            max_features_option("all"),
        ),
    ),
    LearnerSpec(
        name="PLRRF",
        factory=PartialLabelRankingForest,
        summary="Random forest of partial label ranking trees, combined by BPA (ties)",
        reference="Alfaro, Aledo & Gamez 2023, Ensemble learning for the partial label ranking problem",
        options=(
            LearnerOption("-I", "n_estimators", "number of trees (default 100)"),
            max_features_option("sqrt", drawn=True),
            LearnerOption(
                "-no-bootstrap", "bootstrap", "grow every tree on the whole training set", None, "", switch_value=False
            ),
            oob_option(),
            *_OPTIONS,
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
