"""LR-RF: the label ranking random forest of Zhou & Qiu (2018)."""

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
    oob_option,
    parse_choice,
    parse_depth,
    parse_max_features,
    parse_probability,
)

_CLASS_MODES = {"ranking": "Ranking", "top_label": "TopLabel", "pairwise": "Pairwise", "auto": "Auto"}


class LabelRankingRandomForest(CoreLearnerRanker):
    """Label ranking random forest (LR-RF, Zhou & Qiu 2018, "Random forest for label ranking").

    Each tree grows on a bootstrap sample of size n. At every node ``max_features`` features are
    drawn at random (``"log2+1"``: floor(log2 d) + 1, the paper's choice) and the threshold that
    maximises the information gain of a class derived from the rankings is chosen: each distinct
    ranking is a class (``class_mode="ranking"``, as in the authors' code) or the top label of
    each ranking is (``"top_label"``, as the paper's text describes; the top observed label for an
    incomplete ranking). Ranking classes are what reproduces the paper's published Kendall tau
    values (see BENCHMARKS.md: top-label classes stop splitting once a node agrees on the top
    label and score far lower, e.g. .78 instead of .97 on iris). ``"pairwise"`` (beyond the paper)
    makes each label pair a ranking contains a binary class and sums the gain over pairs: with
    incomplete training rankings, nearly every ranking is distinct and per-ranking classes carry
    no information, while pairwise classes keep working (iris with 60% of the labels deleted:
    .92 instead of .75); on complete rankings it scores like ``"ranking"``. ``"auto"`` (the
    default) is ``"pairwise"`` when a training ranking is incomplete and ``"ranking"`` otherwise.

    Thresholds: with ``max_bins=None`` every midpoint between consecutive distinct values is
    tried (the paper's search); with ``max_bins`` (default 255) each feature is cut once per fit
    into at most that many quantile bins and nodes search histograms of the bins (a feature with
    at most ``max_bins`` distinct values gets a bin per value, which is the exact search). The
    histogram search fits several times faster on large data at the same accuracy (BENCHMARKS.md).
    ``x <= threshold`` goes left both when growing and when predicting. A node becomes a leaf at
    ``max_depth`` splits, when its class entropy is (almost) zero, or when no feature separates it.
    A leaf predicts the generalized Borda consensus of the training rankings that reach it (with
    bootstrap multiplicity); the forest predicts the Borda consensus of its trees. Ties go to the
    lower label index.

    ``leaf_missing=p`` applies the authors' missing-label protocol (their Tables 5 and 6): the
    trees grow on the training rankings as given, and at prediction each label of each leaf
    neighbour's ranking is deleted with probability p before the leaf's generalized Borda count
    (deterministic for the seed; the model then keeps the training rankings). As in the authors'
    code, a leaf whose thinned neighbours leave labels tied ranks them in label order, and the
    forest adds up those orders: with few neighbours per leaf and a large p, predictions lean
    towards the order the labels are declared in (an audit's synthetic data: at p = 0.8 the first
    declared label came top in 71% of rows, whichever label that was).

    Missing feature values (NaN) are replaced by the training lower median of the feature.
    Categorical features (``categorical_features``) are split one value against the rest.

    ``node_seeds=True`` draws each node's features from a seed of its own (derived from its
    parent's) instead of one random stream per tree: an equally good forest, and the one
    ``lrank.dask.fit(..., exact=True)`` grows on a cluster, bit for bit.

    Parameters
    ----------
    n_estimators : number of trees (paper: 50).
    max_depth : maximum number of splits from root to leaf (paper: 8); None for unlimited.
    max_features : features drawn per node: "log2+1", "sqrt", "all", an int, or a float share.
    class_mode : "auto" (default), "ranking", "top_label" or "pairwise".
    bootstrap : grow each tree on a bootstrap sample (else on the whole training set).
    max_bins : histogram split search with at most this many bins per feature (2 to 255; default
        255); None: exact search.
    leaf_missing : probability in [0, 1) that a leaf neighbour's label is deleted at prediction
        (default 0: the leaf's consensus).
    node_seeds : a random seed per node rather than a stream per tree (default False).
    warm_start : a refit with more ``n_estimators`` adds trees to this forest (the same training data
        and other parameters; the forest equals a fit with the final count; default False).
    oob_score : estimate the fit's tau out of bag (``oob_score_``, ``oob_prediction_``: each training
        row ranked by the trees whose bootstrap sample did not draw it; default False).
    random_state : seed; the same seed gives the same forest for any ``n_jobs``. None: random.
    n_jobs : threads for fit and predict (None: all cores, or OMP_NUM_THREADS if set; -1: all cores).
    categorical_features : None, a boolean mask or column indices of nominal features (coded
        as numbers; only equality matters for them).

    Attributes
    ----------
    class_mode_ : the class mode the trees used ("ranking" or "pairwise"; ``"auto"`` resolved).
    fill_values_ : each feature's replacement for a missing value (its training lower median).
    tree_depths_ : each tree's depth.
    """

    def __init__(
        self,
        n_estimators: int = 50,
        max_depth: int | None = 8,
        max_features: str | int | float = "log2+1",
        class_mode: str = "auto",
        bootstrap: bool = True,
        max_bins: int | None = 255,
        leaf_missing: float = 0.0,
        node_seeds: bool = False,
        oob_score: bool = False,
        warm_start: bool = False,
        random_state: int | None = None,
        n_jobs: int | None = None,
        categorical_features: ArrayLike | None = None,
    ) -> None:
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.max_features = max_features
        self.class_mode = class_mode
        self.bootstrap = bootstrap
        self.max_bins = max_bins
        self.leaf_missing = leaf_missing
        self.node_seeds = node_seeds
        self.oob_score = oob_score
        self.warm_start = warm_start
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features

    # Pickled before the histogram search (and the missing-label protocol): exact search.
    _added_params: ClassVar[dict[str, Any]] = {
        "max_bins": None,
        "leaf_missing": 0.0,
        "node_seeds": False,
        "oob_score": False,
        "warm_start": False,
    }
    _core_kind = "RandomForest"

    def _core_params(self, seed: int = 0) -> dict[str, Any]:
        """The core learner's parameters (serde form), e.g. for bagging in the core."""
        return {
            "RandomForest": {
                "n_estimators": _convert.count("n_estimators", self.n_estimators),
                "max_depth": _convert.count("max_depth", self.max_depth, none=True),
                "max_features": _convert.max_features(self.max_features),
                "class_mode": _convert.choice("class_mode", self.class_mode, _CLASS_MODES),
                "bootstrap": _convert.flag("bootstrap", self.bootstrap),
                "seed": seed,
                "entropy_epsilon": 1e-6,
                "max_bins": _convert.max_bins(self.max_bins),
                "leaf_missing": _convert.finite("leaf_missing", self.leaf_missing),
                "node_seeds": _convert.flag("node_seeds", self.node_seeds),
            }
        }

    def _read_summary(self, summary: dict[str, Any], *, fitting: bool) -> None:
        # Splits on the longest root-to-leaf path of each tree.
        self.tree_depths_ = list(summary["tree_depths"])
        # Training lower medians, used in place of missing feature values.
        self.fill_values_ = np.asarray(summary["fill_values"], dtype=np.float64)
        # The class mode the trees were grown with ("auto" resolved).
        self.class_mode_ = {v: k for k, v in _CLASS_MODES.items()}[summary["class_mode"]]

    def predict_per_tree(self, X: ArrayLike) -> NDArray[np.int32]:
        """Each tree's ranking for each row: shape (n, n_estimators, m)."""
        return np.ascontiguousarray(self._members(X).transpose(1, 0, 2))


# -- the command line's view of the learner (collected by lrank.registry) --------------------------

LEARNER_SPECS = (
    LearnerSpec(
        name="LRRF",
        factory=LabelRankingRandomForest,
        summary="Label ranking random forest (information gain of ranking classes, generalized Borda leaves)",
        reference="Zhou & Qiu 2018, Random forest for label ranking",
        options=(
            LearnerOption("-I", "n_estimators", "number of trees (default 50)"),
            LearnerOption("-depth", "max_depth", "maximum depth in splits, 0 = unlimited (default 8)", parse_depth),
            LearnerOption(
                "-K",
                "max_features",
                "features drawn per node: log2+1, sqrt, all, N or a share (default log2+1)",
                parse_max_features,
                "K",
            ),
            LearnerOption(
                "-class-mode",
                "class_mode",
                "class for information gain: auto, ranking, top_label or pairwise (default auto: pairwise when a "
                "training ranking is incomplete, else ranking)",
                parse_choice("auto", "ranking", "top_label", "pairwise"),
                "MODE",
            ),
            max_bins_option(255),
            LearnerOption(
                "-leaf-missing",
                "leaf_missing",
                "delete each leaf neighbour's label with probability P < 1 when predicting (Zhou & Qiu), default 0",
                parse_probability,
                "P",
            ),
            LearnerOption(
                "-no-bootstrap",
                "bootstrap",
                "grow every tree on the whole training set",
                None,
                "",
                switch_value=False,
            ),
            oob_option(),
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
