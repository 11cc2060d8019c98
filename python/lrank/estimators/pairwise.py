"""One-versus-one pairwise label ranking with tree or forest classifiers per label pair."""

from __future__ import annotations

import json
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank import _core
from lrank.estimators import _convert
from lrank.estimators.base import CoreLearnerRanker
from lrank.learner_spec import (
    LearnerOption,
    LearnerSpec,
    max_bins_option,
    max_features_option,
    min_split_option,
    oob_option,
    parse_choice,
    parse_depth,
)

_VOTING = {"copeland": "Copeland", "probability": "Probability"}


class OneVsOneLabelRanker(CoreLearnerRanker):
    """One-versus-one (OVO) label ranking: a binary classifier for every label pair {a, b},
    trained on the rows whose ranking holds both labels (class: a before b), as in Fotakis,
    Kalavasis, Kontonis & Tzamos (2022).

    The classifier is a decision tree (``classifier="tree"``: information gain, grown until its
    leaves are pure or smaller than ``min_samples_split``) or a random forest of them
    (``"forest"``: ``n_estimators`` trees on bootstrap samples of the pair's rows, ``max_features``
    per node); a leaf predicts its share of rows with a before b, a forest the mean share. A pair
    that no training ranking holds predicts 1/2. ``voting="copeland"`` ranks labels by their
    number of predicted pairwise wins (a probability of exactly 1/2 is half a win),
    ``"probability"`` by their summed probabilities of winning; ties go to the lower label.
    ``node_seeds=True`` (a forest) draws each node's features from a seed of its own instead of
    one random stream per tree: the model ``lrank.dask.fit(..., exact=True)`` grows, bit for bit.

    Parameters
    ----------
    classifier : "tree" or "forest".
    n_estimators, max_features, bootstrap : the forest's trees, features per node ("sqrt",
        "log2+1", "all", an int or a share) and bootstrap; ignored for a tree.
    max_depth : maximum splits from root to leaf; None: unlimited.
    min_samples_split : nodes with less total weight are leaves (default 2); a value in (0, 1) is
        that share of the training weight (scikit-learn's fraction of the samples; of all training
        rows, not only those that rank a pair).
    voting : "copeland" (default) or "probability".
    max_bins : None (default): exact split search; N (2 to 255): each feature cut once per fit
        into at most N quantile bins, nodes searching histograms of them.
    node_seeds : a random seed per node rather than a stream per tree (default False).
    oob_score : estimate the fit's tau out of bag (a forest on bootstrap samples: ``oob_score_``,
        ``oob_prediction_``; each pair's probability for a training row from the trees whose sample
        did not draw it; default False).
    random_state : seed; the same seed gives the same model for any ``n_jobs``. None: random.
    n_jobs : threads (None: all cores, or OMP_NUM_THREADS if set; -1: all cores).
    categorical_features : None, a boolean mask or column indices of nominal features.
    """

    # Pickled before the histogram search (and the missing-label protocol): exact search.
    _added_params: ClassVar[dict[str, Any]] = {"max_bins": None, "node_seeds": False, "oob_score": False}
    _core_kind = "Pairwise"

    def __init__(
        self,
        classifier: str = "tree",
        n_estimators: int = 100,
        max_features: str | int | float = "sqrt",
        bootstrap: bool = True,
        max_depth: int | None = None,
        min_samples_split: float = 2,
        voting: str = "copeland",
        max_bins: int | None = None,
        node_seeds: bool = False,
        random_state: int | None = None,
        n_jobs: int | None = None,
        categorical_features: ArrayLike | None = None,
        oob_score: bool = False,
    ) -> None:
        self.classifier = classifier
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.bootstrap = bootstrap
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.voting = voting
        self.max_bins = max_bins
        self.node_seeds = node_seeds
        self.oob_score = oob_score
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features

    def _core_params(self, seed: int = 0) -> dict[str, Any]:
        """The core learner's parameters (serde form), e.g. for bagging in the core."""
        classifier = _convert.choice("classifier", self.classifier, {"tree": "tree", "forest": "forest"})
        forest = {
            "n_estimators": _convert.count("n_estimators", self.n_estimators),
            "bootstrap": _convert.flag("bootstrap", self.bootstrap),
            "max_features": _convert.max_features(self.max_features),
        }
        common = {
            "max_depth": _convert.count("max_depth", self.max_depth, none=True),
            "min_samples_split": _convert.finite("min_samples_split", self.min_samples_split),
            "voting": _convert.choice("voting", self.voting, _VOTING),
            "max_bins": _convert.max_bins(self.max_bins),
            "seed": seed,
            "node_seeds": _convert.flag("node_seeds", self.node_seeds),
        }
        if classifier == "tree":
            # The forest's parameters are unused by a tree, but a wrong one is still an error.
            _core.validate_params(json.dumps({"Pairwise": {**forest, **common}}))
            return {"Pairwise": {"n_estimators": 1, "bootstrap": False, "max_features": "All", **common}}
        return {"Pairwise": {**forest, **common}}

    def predict_scores(self, X: ArrayLike) -> NDArray[np.float64]:
        """Each label's votes (Copeland wins or summed probabilities; higher preferred), (n, m)."""
        return self._scores(X)


# -- the command line's view of the learner (collected by lrank.registry) --------------------------

LEARNER_SPECS = (
    LearnerSpec(
        name="OVO",
        factory=OneVsOneLabelRanker,
        summary="One-versus-one: a tree or forest classifier per label pair, combined by Copeland or probabilities",
        reference="Fotakis, Kalavasis, Kontonis & Tzamos 2022, Label ranking through nonparametric regression",
        options=(
            LearnerOption(
                "-B",
                "classifier",
                "classifier per pair: tree or forest (default tree)",
                parse_choice("tree", "forest"),
                "BASE",
            ),
            LearnerOption("-I", "n_estimators", "trees per pair of a forest (default 100)"),
            max_features_option("sqrt", of=" of a forest"),
            LearnerOption("-depth", "max_depth", "maximum depth in splits, 0 = unlimited (default 0)", parse_depth),
            min_split_option(),
            LearnerOption(
                "-V",
                "voting",
                "copeland or probability (default copeland)",
                parse_choice("copeland", "probability"),
                "VOTE",
            ),
            max_bins_option(None),
            LearnerOption(
                "-node-seeds",
                "node_seeds",
                "a random seed per node of a forest (the model lrank.dask grows exactly)",
                None,
                "",
                switch_value=True,
            ),
            oob_option("pair trees"),
        ),
    ),
)
