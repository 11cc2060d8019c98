"""One-versus-one pairwise label ranking with tree or forest classifiers per label pair."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank.errors import InvalidInputError
from lrank.estimators.base import CoreLearnerRanker
from lrank.estimators.forest import core_max_features
from lrank.learner_spec import LearnerOption, LearnerSpec, parse_choice, parse_depth, parse_max_features

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

    Parameters
    ----------
    classifier : "tree" or "forest".
    n_estimators, max_features, bootstrap : the forest's trees, features per node ("sqrt",
        "log2+1", "all", an int or a share) and bootstrap; ignored for a tree.
    max_depth : maximum splits from root to leaf; None: unlimited.
    min_samples_split : nodes with less total weight are leaves (default 2).
    voting : "copeland" (default) or "probability".
    random_state : seed; the same seed gives the same model for any ``n_jobs``. None: random.
    n_jobs : threads (None or -1: all cores).
    categorical_features : None, a boolean mask or column indices of nominal features.
    """

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
        random_state: int | None = None,
        n_jobs: int | None = None,
        categorical_features: ArrayLike | None = None,
    ) -> None:
        self.classifier = classifier
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.bootstrap = bootstrap
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.voting = voting
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features

    def _core_params(self, seed: int = 0) -> dict[str, Any]:
        """The core learner's parameters (serde form), e.g. for bagging in the core."""
        if self.classifier not in ("tree", "forest"):
            raise InvalidInputError(f"classifier must be 'tree' or 'forest', got {self.classifier!r}")
        if self.voting not in _VOTING:
            raise InvalidInputError(f"voting must be 'copeland' or 'probability', got {self.voting!r}")
        md = self.max_depth
        if md is not None and (isinstance(md, bool) or not isinstance(md, (int, np.integer)) or md < 0):
            raise InvalidInputError(f"max_depth must be a non-negative int or None, got {md!r}")
        mss = self.min_samples_split
        if isinstance(mss, bool) or not isinstance(mss, (int, float, np.number)) or mss < 0:
            raise InvalidInputError(f"min_samples_split must be a number >= 0, got {mss!r}")
        if self.classifier == "forest":
            n = self.n_estimators
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
                raise InvalidInputError(f"n_estimators must be a positive int, got {n!r}")
            trees: dict[str, Any] = {
                "n_estimators": int(n),
                "bootstrap": bool(self.bootstrap),
                "max_features": core_max_features(self.max_features),
            }
        else:
            trees = {"n_estimators": 1, "bootstrap": False, "max_features": "All"}
        return {
            "Pairwise": {
                **trees,
                "max_depth": None if md is None else int(md),
                "min_samples_split": float(mss),
                "voting": _VOTING[self.voting],
                "seed": seed,
            }
        }

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
            LearnerOption(
                "-K",
                "max_features",
                "features per node of a forest: sqrt, log2+1, all, N or a share (default sqrt)",
                parse_max_features,
                "K",
            ),
            LearnerOption("-depth", "max_depth", "maximum depth in splits, 0 = unlimited (default 0)", parse_depth),
            LearnerOption("-M", "min_samples_split", "smallest node that is split (default 2)", float, "W"),
            LearnerOption(
                "-V",
                "voting",
                "copeland or probability (default copeland)",
                parse_choice("copeland", "probability"),
                "VOTE",
            ),
        ),
    ),
)
