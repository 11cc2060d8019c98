"""The golden cases: every learner with several parameter settings on complete rankings,
incomplete rankings and nominal features (shared by the recorder and the test).

A case fits one estimator on one problem with a fixed seed; its fingerprint is the SHA-256 of the
fitted model's binary model-file bytes (so a model that changes by one bit is caught) and of each
prediction output (ranks, confidences, scores) on held-out rows.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def _iris() -> tuple[np.ndarray, np.ndarray]:
    from lrank.data import read_dataset

    ds = read_dataset(ROOT / "datasets" / "iris.xarff")
    return np.ascontiguousarray(ds.feature_matrix(), dtype=np.float64), np.asarray(ds.rankings, dtype=np.int32)


def _delete_labels(y: np.ndarray, p: float, seed: int) -> np.ndarray:
    """Deletes each label with probability p, keeping at least two per ranking, re-ranks densely."""
    rng = np.random.default_rng(seed)
    out = y.copy()
    for i in range(out.shape[0]):
        keep = rng.random(out.shape[1]) >= p
        if keep.sum() < 2:
            keep[rng.choice(out.shape[1], 2, replace=False)] = True
        row = np.where(keep, out[i], 0)
        order = np.argsort(np.where(row > 0, row, 10**6), kind="stable")
        dense = np.zeros_like(row)
        for pos, j in enumerate(order[: keep.sum()]):
            dense[j] = pos + 1
        out[i] = dense
    return out


def problems() -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]]:
    """name -> (X, Y, nominal mask or None); rows 0, 3, 6, ... are held out for prediction."""
    x, y = _iris()
    nominal_x = np.column_stack([x, np.floor(x[:, 2]).astype(np.float64), (x[:, 0] > 5.8).astype(np.float64)])
    nominal_x[::17, 4] = np.nan  # missing values in a nominal feature
    nominal_x[::13, 1] = np.nan  # and in a numeric one
    mask = np.array([False, False, False, False, True, True])
    return {
        "iris": (x, y, None),
        "iris_missing40": (x, _delete_labels(y, 0.4, 7), None),
        "iris_nominal": (nominal_x, y, mask),
        "iris_ties": (x, _tie_labels(y), None),
    }


def _tie_labels(y: np.ndarray) -> np.ndarray:
    """Every other row ties its last two labels, every fifth its first two (bucket orders)."""
    out = y.copy()
    for i in range(out.shape[0]):
        m = out.shape[1]
        if i % 2 == 0:
            out[i][out[i] == m] = m - 1
        elif i % 5 == 0:
            out[i][out[i] == 2] = 1
            out[i][out[i] > 2] -= 1
    return out


def split(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    test = np.arange(x.shape[0]) % 3 == 0
    return x[~test], y[~test], x[test]


def estimators() -> dict[str, Callable[[], Any]]:
    """name -> factory of a fresh estimator (seeded)."""
    import lrank as L  # noqa: N812 - short, the table below is long

    s = 3
    return {
        "LRRF": lambda: L.LabelRankingRandomForest(n_estimators=8, random_state=s),
        "LRRF_top_nodepth": lambda: L.LabelRankingRandomForest(
            n_estimators=5, class_mode="top_label", max_depth=None, random_state=s
        ),
        "LRRF_pairwise_sqrt": lambda: L.LabelRankingRandomForest(
            n_estimators=5, class_mode="pairwise", max_features="sqrt", random_state=s
        ),
        "LRRF_nobootstrap_all": lambda: L.LabelRankingRandomForest(
            n_estimators=3, bootstrap=False, max_features=0.5, random_state=s
        ),
        "IBLR": lambda: L.InstanceBasedLabelRanker(random_state=s),
        "IBLR_k5": lambda: L.InstanceBasedLabelRanker(n_neighbors=5, max_iter=3, random_state=s),
        "IBPL": lambda: L.InstanceBasedPlackettLuce(random_state=s),
        "IBPL_auto_dudani": lambda: L.InstanceBasedPlackettLuce(n_neighbors=None, weights="dudani", random_state=s),
        "IBLR_k5_uniform_none": lambda: L.InstanceBasedLabelRanker(
            n_neighbors=5, weights="uniform", scaling="none", random_state=s
        ),
        "IBPL_standard": lambda: L.InstanceBasedPlackettLuce(scaling="standard", random_state=s),
        "LRT": lambda: L.LabelRankingTree(random_state=s),
        "LRT_depth2": lambda: L.LabelRankingTree(max_depth=2, min_samples_split=4, random_state=s),
        "LRT_sqrt_leaf": lambda: L.LabelRankingTree(max_features="sqrt", min_samples_leaf=0.05, random_state=s),
        "WLRT": lambda: L.LabelRankingTree(splitter="equal_width", random_state=s),
        "FLRT": lambda: L.LabelRankingTree(splitter="equal_frequency", random_state=s),
        "Bagging_LRT": lambda: L.BaggingLabelRanker(n_estimators=5, random_state=s),
        "Bagging_FLRT_copeland": lambda: L.BaggingLabelRanker(
            L.LabelRankingTree(splitter="equal_frequency"),
            n_estimators=4,
            aggregation="copeland",
            max_samples=0.7,
            random_state=s,
        ),
        "Bagging_IBLR_mallows": lambda: L.BaggingLabelRanker(
            L.InstanceBasedLabelRanker(n_neighbors=5), n_estimators=3, aggregation="mallows", random_state=s
        ),
        "Bagging_LRRF_kemeny": lambda: L.BaggingLabelRanker(
            L.LabelRankingRandomForest(n_estimators=3), n_estimators=3, aggregation="kemeny", random_state=s
        ),
        "LWDT": lambda: L.LabelwiseDecisionTree(random_state=s),
        "LWDT_tuned": lambda: L.LabelwiseDecisionTree(tune_depth=True, min_samples_leaf=2, random_state=s),
        "LWRF": lambda: L.LabelwiseRandomForest(n_estimators=6, random_state=s),
        "LWRF_depth3_sqrt": lambda: L.LabelwiseRandomForest(
            n_estimators=4, max_depth=3, max_features="sqrt", bootstrap=False, random_state=s
        ),
        "OVO": lambda: L.OneVsOneLabelRanker(random_state=s),
        "OVO_forest_prob": lambda: L.OneVsOneLabelRanker(
            classifier="forest", n_estimators=4, voting="probability", random_state=s
        ),
        "OVO_depth2": lambda: L.OneVsOneLabelRanker(max_depth=2, min_samples_split=5, random_state=s),
        "RPC": lambda: L.RankingByPairwiseComparison(),
        "RPC_binary_C": lambda: L.RankingByPairwiseComparison(C=0.1, voting="binary", max_iter=5),
        # Added with the registry redesign (recorded then).
        "Dummy_kemeny": lambda: L.DummyLabelRanker(aggregation="kemeny"),
        "Bagging_Dummy": lambda: L.BaggingLabelRanker(L.DummyLabelRanker(), n_estimators=3, random_state=s),
        # Added with GBLR (issue 25).
        "GBLR": lambda: L.GradientBoostingLabelRanker(n_estimators=8, min_samples_leaf=5, random_state=s),
        "GBLR_pairwise_subsample_exact": lambda: L.GradientBoostingLabelRanker(
            loss="pairwise", n_estimators=6, subsample=0.7, max_features=2, max_bins=None, random_state=s
        ),
        "GBLR_per_label": lambda: L.GradientBoostingLabelRanker(
            n_estimators=6, min_samples_leaf=5, per_label_trees=True, random_state=s
        ),
        # Added with BoostLR (issue 25).
        "BoostLR": lambda: L.AdaBoostLabelRanker(L.LabelRankingTree(max_depth=3), n_estimators=5, random_state=s),
        "BoostLR_reweight_square_kemeny": lambda: L.AdaBoostLabelRanker(
            L.LabelRankingTree(max_depth=2),
            n_estimators=4,
            loss="square",
            sampling="reweight",
            aggregation="kemeny",
            learning_rate=0.5,
            random_state=s,
        ),
        # Added with the histogram split search and LR-RF's missing-label protocol (issue 25).
        "LRRF_exact_ranking": lambda: L.LabelRankingRandomForest(
            n_estimators=5, class_mode="ranking", max_bins=None, random_state=s
        ),
        "LRRF_bins8": lambda: L.LabelRankingRandomForest(n_estimators=5, max_bins=8, random_state=s),
        "LRRF_leaf_missing": lambda: L.LabelRankingRandomForest(n_estimators=5, leaf_missing=0.5, random_state=s),
        "LWRF_exact": lambda: L.LabelwiseRandomForest(n_estimators=4, max_bins=None, random_state=s),
        "LWDT_bins16": lambda: L.LabelwiseDecisionTree(max_bins=16, random_state=s),
        "OVO_forest_bins8": lambda: L.OneVsOneLabelRanker(
            classifier="forest", n_estimators=3, max_bins=8, random_state=s
        ),
        # Added with partial label ranking (issue 28; these learn from ties, see TIE_LEARNERS).
        "PLRT": lambda: L.PartialLabelRankingTree(random_state=s),
        "PLRT_distance_depth3": lambda: L.PartialLabelRankingTree(criterion="distance", max_depth=3, random_state=s),
        "PLRRF": lambda: L.PartialLabelRankingForest(n_estimators=5, random_state=s),
        "PLRPW": lambda: L.PairwisePartialLabelRanker(n_estimators=4, random_state=s),
        "PLRPW_tree_borda": lambda: L.PairwisePartialLabelRanker(
            classifier="tree", aggregation="borda-ties", tie_weighting="quarter", random_state=s
        ),
        "PLRPW_logistic": lambda: L.PairwisePartialLabelRanker(classifier="logistic", C=2.0, random_state=s),
        "IBPLR": lambda: L.InstanceBasedPartialLabelRanker(random_state=s),
        "IBPLR_k5_uniform_copeland": lambda: L.InstanceBasedPartialLabelRanker(
            n_neighbors=5, weights="uniform", aggregation="copeland-ties", random_state=s
        ),
        "IBPLR_k5_standard": lambda: L.InstanceBasedPartialLabelRanker(
            n_neighbors=5, scaling="standard", random_state=s
        ),
        "IBPLR_k5_none": lambda: L.InstanceBasedPartialLabelRanker(n_neighbors=5, scaling="none", random_state=s),
        "MOREPLR": lambda: L.LabelwisePartialLabelRanker(n_estimators=5, random_state=s),
        "MOREPLR_interval": lambda: L.LabelwisePartialLabelRanker(n_estimators=5, tie_layer="interval", random_state=s),
        "Dummy_bpa": lambda: L.DummyLabelRanker(aggregation="bpa"),
        "Bagging_PLRT_bpa": lambda: L.BaggingLabelRanker(
            L.PartialLabelRankingTree(), n_estimators=3, aggregation="bpa", random_state=s
        ),
        # Added with RPC's tuned mode (issue 25).
        "RPC_tune": lambda: L.RankingByPairwiseComparison(tune=True),
        # Added with the linear learner.
        "Linear": lambda: L.LinearLabelRanker(),
        "Linear_pairwise_C10": lambda: L.LinearLabelRanker(loss="pairwise", C=10.0),
    }


# The learners that learn from tied rankings; the others refuse them, so only these run on the
# problem with ties.
TIE_LEARNERS = {
    "PLRT",
    "PLRT_distance_depth3",
    "PLRRF",
    "PLRPW",
    "PLRPW_tree_borda",
    "PLRPW_logistic",
    "IBPLR",
    "IBPLR_k5_uniform_copeland",
    "IBPLR_k5_standard",
    "IBPLR_k5_none",
    "MOREPLR",
    "MOREPLR_interval",
    "Dummy_bpa",
    "Bagging_PLRT_bpa",
    "LRRF",
    "LWDT",
    "LWRF",
    "Dummy_kemeny",
    "GBLR_pairwise_subsample_exact",
    "Linear_pairwise_C10",
}


def _digest(a: Any) -> str:
    arr = np.ascontiguousarray(a)
    return hashlib.sha256(str(arr.dtype).encode() + str(arr.shape).encode() + arr.tobytes()).hexdigest()[:20]


def model_bytes(est: Any) -> bytes:
    from lrank import _core

    return bytes(_core.save_model(est.model_, "{}", "binary"))


def fingerprint(est: Any, x_test: np.ndarray) -> dict[str, str]:
    """Digests of the model file and of every prediction output the estimator offers."""
    out = {"model": hashlib.sha256(model_bytes(est)).hexdigest()[:20], "predict": _digest(est.predict(x_test))}
    if hasattr(est, "predict_with_confidence"):
        ranks, conf = est.predict_with_confidence(x_test)
        out["confidence"] = _digest(conf)
        out["confidence_ranks"] = _digest(ranks)
    if hasattr(est, "predict_scores"):
        out["scores"] = _digest(est.predict_scores(x_test))
    if hasattr(est, "predict_per_tree"):
        out["per_tree"] = _digest(est.predict_per_tree(x_test))
    if hasattr(est, "predict_per_member"):
        out["per_member"] = _digest(est.predict_per_member(x_test))
    return out


def run_case(problem: str, learner: str) -> dict[str, str]:
    x, y, mask = problems()[problem]
    xtr, ytr, xte = split(x, y)
    est = estimators()[learner]()
    if mask is not None and "categorical_features" in est.get_params():
        est.set_params(categorical_features=mask)
    est.fit(xtr, ytr)
    return fingerprint(est, xte)


def all_cases() -> list[tuple[str, str]]:
    return [(p, e) for p in problems() for e in estimators() if p != "iris_ties" or e in TIE_LEARNERS]


def pickled(est: Any) -> bytes:
    import pickle

    buf = io.BytesIO()
    pickle.dump(est, buf, protocol=4)
    return buf.getvalue()
