"""Pairwise partial label ranking (Alfaro, Aledo & Gámez 2023): a three-class classifier per
label pair (before / tied / after) and a consensus bucket order of their probabilities."""

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

_TIE_WEIGHTING = {"half": "Half", "quarter": "Quarter"}


class PairwisePartialLabelRanker(CoreLearnerRanker):
    """Pairwise partial label ranking (Alfaro, Aledo & Gámez 2023, Pattern Recognition 140).

    For every label pair {a, b} a three-class classifier (a before b, tied, b before a) is
    trained on the rows whose ranking holds both labels: a random forest (``classifier="forest"``,
    the default: ``n_estimators`` trees on bootstrap samples, ``max_features`` per node), one
    decision tree (``"tree"``) or a multinomial logistic regression (``"logistic"``: numeric
    features standardised, nominal ones one-hot, L2 penalty with strength ``1/C``, the tied
    relation the reference class; relations a pair never shows get probability 0). For a new
    row the predicted probabilities make the pair-order matrix ``C_ab = p(before) + p(tied) / 2``
    (``tie_weighting="half"``, the paper's; "quarter" is ``(p_b + p_t/4) / (p_b + p_t/2 + p_a)``,
    as one public implementation computes it), and the prediction is its consensus bucket order
    (``aggregation``: "bpa", BPA-LIA-MP2, by default; "borda-ties" or "copeland-ties").
    A pair no training ranking holds gets C = 1/2.

    With BPA, a forest and ``beta=None`` (the defaults), beta is chosen from 0.25, 0.2, 0.15, 0.1
    and 0.05 by out-of-bag tau_x on the training data (each row's pair-order matrix from the trees
    that did not draw it; ties to the larger beta); with the logistic regression, by the training
    rows' own tau_x (a linear model per pair hardly overfits); a given beta is used as it is.

    Parameters
    ----------
    classifier : "forest" (default), "tree" or "logistic".
    n_estimators, max_features, bootstrap : the forest's trees (100), features per node ("sqrt",
        "log2+1", "all", an int or a share) and bootstrap; ignored for a tree.
    max_depth : maximum splits from root to leaf; None: unlimited (trees and forests).
    C : inverse regularisation strength of the logistic regression (default 1.0).
    min_samples_split : nodes with less total weight are leaves (default 2; trees and forests); a
        value in (0, 1) is that share of the training weight (scikit-learn's fraction of the samples; of all training
        rows, not only those that rank a pair).
    max_bins : None (default): exact split search; N (2 to 255): histogram search with at most N
        quantile bins per feature, cut once per fit (trees and forests).
    tie_weighting : "half" (default) or "quarter".
    aggregation : "bpa" (default), "borda-ties" or "copeland-ties".
    beta : its tie threshold (None: chosen out of bag for BPA with a forest, else the method's
        default, 0.25 for BPA).
    oob_score : estimate the fit's tau out of bag (a forest on bootstrap samples: ``oob_score_``,
        ``oob_prediction_``; each pair's probability for a training row from the trees whose sample
        did not draw it; default False). With beta chosen out of bag, the same predictions chose it,
        but ``oob_score_`` leaves out rows that every tree drew, which the choice scores as
        predicted all-tied (the same for every beta), so ``beta_scores_[beta_]`` may be lower.
    random_state : seed; the same seed gives the same model for any ``n_jobs``. None: random.
    n_jobs : threads (None: all cores, or OMP_NUM_THREADS if set; -1: all cores).
    categorical_features : None, a boolean mask or column indices of nominal features.

    Attributes
    ----------
    beta_ : the tie threshold in effect (chosen out of bag when ``beta=None``).
    beta_scores_ : the out-of-bag mean tau_x of each candidate beta (empty unless chosen out of bag).
    """

    _core_kind = "PairwisePlr"
    _added_params: ClassVar[dict[str, Any]] = {"C": 1.0, "max_bins": None, "oob_score": False}
    _core_names: ClassVar[dict[str, str]] = {"consensus": "aggregation", "c": "C"}

    def __init__(
        self,
        classifier: str = "forest",
        n_estimators: int = 100,
        max_features: str | int | float = "sqrt",
        bootstrap: bool = True,
        max_depth: int | None = None,
        min_samples_split: float = 2,
        max_bins: int | None = None,
        C: float = 1.0,
        tie_weighting: str = "half",
        aggregation: str = "bpa",
        beta: float | None = None,
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
        self.max_bins = max_bins
        self.C = C
        self.tie_weighting = tie_weighting
        self.aggregation = aggregation
        self.beta = beta
        self.oob_score = oob_score
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features

    def _core_params(self, seed: int = 0) -> dict[str, Any]:
        """The core learner's parameters (serde form), e.g. for bagging in the core."""
        classifier = _convert.choice(
            "classifier", self.classifier, {"tree": "tree", "forest": "forest", "logistic": "logistic"}
        )
        forest = {
            "n_estimators": _convert.count("n_estimators", self.n_estimators),
            "bootstrap": _convert.flag("bootstrap", self.bootstrap),
            "max_features": _convert.max_features(self.max_features),
        }
        trees = {
            "max_depth": _convert.count("max_depth", self.max_depth, none=True),
            "min_samples_split": _convert.finite("min_samples_split", self.min_samples_split),
            "max_bins": _convert.max_bins(self.max_bins),
        }
        common = {
            "tie_weighting": _convert.choice("tie_weighting", self.tie_weighting, _TIE_WEIGHTING),
            "consensus": _convert.bucket_consensus(self.aggregation, self.beta),
            "tune_beta": self.beta is None and self.aggregation in ("bpa", "bpa-local"),
            "seed": seed,
        }
        logistic = {"c": _convert.finite("C", self.C), "max_iter": 100, "tol": 1e-8}
        # The parameters a classifier does not use are still checked: a wrong one is an error.
        if classifier != "logistic":
            _core.validate_params(json.dumps({"PairwisePlrLogistic": {**logistic, **common}}))
        if classifier != "forest":
            _core.validate_params(json.dumps({"PairwisePlr": {**forest, **trees, **common}}))
        if classifier == "logistic":
            return {"PairwisePlrLogistic": {**logistic, **common}}
        if classifier == "tree":
            return {"PairwisePlr": {"n_estimators": 1, "bootstrap": False, "max_features": "All", **trees, **common}}
        return {"PairwisePlr": {**forest, **trees, **common}}

    def _read_summary(self, summary: dict[str, Any], *, fitting: bool) -> None:
        self.beta_ = float(summary["beta"])
        # Out-of-bag mean tau_x of each candidate beta (empty unless chosen out of bag).
        self.beta_scores_ = {float(b): float("nan") if t is None else float(t) for b, t in summary["beta_scores"]}

    def predict_scores(self, X: ArrayLike) -> NDArray[np.float64]:
        """Each label's summed row of the predicted pair-order matrix (higher preferred), (n, m)."""
        return self._scores(X)


# -- the command line's view of the learner (collected by lrank.registry) --------------------------

LEARNER_SPECS = (
    LearnerSpec(
        name="PLRPW",
        factory=PairwisePartialLabelRanker,
        summary="Pairwise partial label ranking: before/tied/after classifiers per label pair, BPA consensus (ties)",
        reference="Alfaro, Aledo & Gamez 2023, Pairwise learning for the partial label ranking problem",
        options=(
            LearnerOption(
                "-B",
                "classifier",
                "classifier per pair: forest, tree or logistic (default forest)",
                parse_choice("forest", "tree", "logistic"),
                "BASE",
            ),
            LearnerOption("-I", "n_estimators", "trees per pair of a forest (default 100)"),
            max_features_option("sqrt", of=" of a forest"),
            LearnerOption("-depth", "max_depth", "maximum depth in splits, 0 = unlimited (default 0)", parse_depth),
            min_split_option(),
            max_bins_option(None, " of trees and forests"),
            LearnerOption(
                "-C", "C", "inverse regularisation strength of the logistic regression (default 1)", float, "C"
            ),
            LearnerOption(
                "-T",
                "tie_weighting",
                "C from the probabilities: half (p_b + p_t/2) or quarter (default half)",
                parse_choice(*_TIE_WEIGHTING),
                "W",
            ),
            LearnerOption(
                "-A",
                "aggregation",
                "consensus: bpa, borda-ties, copeland-ties or bpa-local (default bpa)",
                parse_choice(*_convert.BUCKET_METHODS),
                "AGG",
            ),
            LearnerOption(
                "-beta",
                "beta",
                "its tie threshold (default: chosen out of bag for bpa; 0.5 borda-ties, 0.1 copeland-ties)",
                float,
                "BETA",
            ),
            oob_option("pair trees"),
        ),
    ),
)
