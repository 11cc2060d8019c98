"""The learner registry: short names (``-W LRRF``) to estimators and their WEKA-style options.

Third-party learners plug in through the entry-point group ``lrank.learners``: each entry point
names a :class:`LearnerSpec` (or a callable returning one), for example in ``pyproject.toml``::

    [project.entry-points."lrank.learners"]
    MYLR = "my_package.lrank_plugin:SPEC"
"""

from __future__ import annotations

import functools
import importlib.metadata

from lrank.errors import LrankError
from lrank.registry.spec import (
    LearnerOption,
    LearnerOptionError,
    LearnerSpec,
    parse_choice,
    parse_depth,
    parse_learner_name,
    parse_max_features,
    parse_optional_count,
    parse_share_percent,
    set_learner_lookup,
)

ENTRY_POINT_GROUP = "lrank.learners"


def _builtin_specs() -> list[LearnerSpec]:
    from lrank.estimators import (
        BaggingLabelRanker,
        InstanceBasedLabelRanker,
        InstanceBasedPlackettLuce,
        LabelRankingRandomForest,
        LabelRankingTree,
        LabelwiseDecisionTree,
        LabelwiseRandomForest,
        OneVsOneLabelRanker,
        RankingByPairwiseComparison,
    )

    return [
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
                    "class for information gain: ranking, top_label or pairwise (default ranking)",
                    parse_choice("ranking", "top_label", "pairwise"),
                    "MODE",
                ),
                LearnerOption(
                    "-no-bootstrap",
                    "bootstrap",
                    "grow every tree on the whole training set",
                    None,
                    "",
                    switch_value=False,
                ),
            ),
        ),
        LearnerSpec(
            name="IBLR",
            factory=InstanceBasedLabelRanker,
            summary="Instance-based label ranking: k nearest neighbours aggregated by a Mallows model",
            reference="Cheng, Huehn & Huellermeier 2009, Decision tree and instance-based learning for label ranking",
            options=(
                LearnerOption(
                    "-K",
                    "n_neighbors",
                    "neighbours, 0 = choose from 5, 10, 15, 20 by leave-one-out (default 0)",
                    parse_optional_count,
                ),
                LearnerOption("-max-iter", "max_iter", "iteration cap of the EM median (default 20)"),
            ),
        ),
        LearnerSpec(
            name="LRT",
            factory=LabelRankingTree,
            summary="Label ranking tree: Mallows-spread splits, Mallows median leaves completed from ancestors",
            reference="Cheng, Huehn & Huellermeier 2009, Decision tree and instance-based learning for label ranking",
            options=_label_tree_options(),
        ),
        LearnerSpec(
            name="WLRT",
            factory=functools.partial(LabelRankingTree, splitter="equal_width"),
            summary="LRT with equal-width thresholds (midpoint of the node's range); bag it with -W Bagging",
            reference="Aledo, Gamez & Molina 2017, Tackling the supervised label ranking problem by bagging weak "
            "learners",
            options=_label_tree_options(),
        ),
        LearnerSpec(
            name="FLRT",
            factory=functools.partial(LabelRankingTree, splitter="equal_frequency"),
            summary="LRT with equal-frequency thresholds (the node's median); bag it with -W Bagging",
            reference="Aledo, Gamez & Molina 2017, Tackling the supervised label ranking problem by bagging weak "
            "learners",
            options=_label_tree_options(),
        ),
        LearnerSpec(
            name="Bagging",
            factory=BaggingLabelRanker,
            summary="Bagging of any learner: bootstrap members combined by a consensus ranking",
            reference="Breiman 1996; Aledo, Gamez & Molina 2017 (bagged LRT, W-LRT, F-LRT)",
            options=(
                LearnerOption(
                    "-W",
                    "base_estimator",
                    "learner to bag (default LRT); its options follow a second --",
                    parse_learner_name,
                    "NAME",
                ),
                LearnerOption("-I", "n_estimators", "number of members (default 50)"),
                LearnerOption(
                    "-P",
                    "max_samples",
                    "bootstrap size as a percentage of the training rows (default 100)",
                    parse_share_percent,
                    "PCT",
                ),
                LearnerOption(
                    "-A",
                    "aggregation",
                    "consensus: borda, copeland, mallows or kemeny (default borda)",
                    parse_choice("borda", "copeland", "mallows", "kemeny"),
                    "AGG",
                ),
            ),
            nested_param="base_estimator",
            nested_default="LRT",
        ),
        LearnerSpec(
            name="LWDT",
            factory=LabelwiseDecisionTree,
            summary="Labelwise decision tree: one multi-output regression tree of the labels' relative positions",
            reference="Fotakis, Kalavasis, Kontonis & Tzamos 2022, Label ranking through nonparametric regression",
            options=_labelwise_options(),
        ),
        LearnerSpec(
            name="LWRF",
            factory=LabelwiseRandomForest,
            summary="Labelwise random forest: regression forest of the labels' relative positions",
            reference="Fotakis, Kalavasis, Kontonis & Tzamos 2022, Label ranking through nonparametric regression",
            options=(
                LearnerOption("-I", "n_estimators", "number of trees (default 100)"),
                LearnerOption(
                    "-K",
                    "max_features",
                    "features drawn per node: a share, N, sqrt, log2+1 or all (default 0.333)",
                    parse_max_features,
                    "K",
                ),
                LearnerOption(
                    "-no-bootstrap",
                    "bootstrap",
                    "grow every tree on the whole training set",
                    None,
                    "",
                    switch_value=False,
                ),
                *_labelwise_options(),
            ),
        ),
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
        LearnerSpec(
            name="RPC",
            factory=RankingByPairwiseComparison,
            summary="Ranking by pairwise comparison: L2-regularised logistic regression per label pair",
            reference="Huellermeier, Fuernkranz, Cheng & Brinker 2008, Label ranking by learning pairwise preferences",
            options=(
                LearnerOption("-C", "C", "inverse regularisation strength (default 1.0)", float, "C"),
                LearnerOption(
                    "-V",
                    "voting",
                    "soft (summed probabilities) or binary (wins) (default soft)",
                    parse_choice("soft", "binary"),
                    "VOTE",
                ),
                LearnerOption("-max-iter", "max_iter", "Newton steps at most per pair (default 100)"),
            ),
            seed_param=None,
        ),
        LearnerSpec(
            name="IBPL",
            factory=InstanceBasedPlackettLuce,
            summary="Instance-based Plackett-Luce: k nearest neighbours' rankings fitted by Hunter's MM",
            reference="Cheng, Dembczynski & Huellermeier 2010, Label ranking methods based on the Plackett-Luce model",
            options=(
                LearnerOption(
                    "-K",
                    "n_neighbors",
                    "neighbours, 0 = choose from 5, 10, 15, 20 by leave-one-out (default 5)",
                    parse_optional_count,
                ),
                LearnerOption(
                    "-weights",
                    "weights",
                    "uniform or dudani (default uniform)",
                    parse_choice("uniform", "dudani"),
                    "W",
                ),
                LearnerOption("-max-iter", "max_iter", "MM iterations at most (default 100)"),
                LearnerOption("-tol", "tol", "MM tolerance, relative to the largest skill (default 1e-6)", float, "T"),
            ),
        ),
    ]


def _labelwise_options() -> tuple[LearnerOption, ...]:
    return (
        LearnerOption("-depth", "max_depth", "maximum depth in splits, 0 = unlimited (default 0)", parse_depth),
        LearnerOption("-M", "min_samples_split", "smallest node that is split (default 2)", float, "W"),
        LearnerOption("-L", "min_samples_leaf", "least weight on each side of a split (default 1)", float, "W"),
        LearnerOption("-tune", "tune_depth", "choose the depth from 5, 10, 15, unlimited by inner 5-fold CV", None, ""),
    )


def _label_tree_options() -> tuple[LearnerOption, ...]:
    return (
        LearnerOption("-depth", "max_depth", "maximum depth in splits, 0 = unlimited (default 0)", parse_depth),
        LearnerOption("-M", "min_samples_split", "smallest node that is split (default 2m)", float, "W"),
        LearnerOption("-max-iter", "max_iter", "iteration cap of the EM median (default 20)"),
    )


def _entry_point_specs() -> list[LearnerSpec]:
    specs = []
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = ep.load()
            spec = obj() if callable(obj) and not isinstance(obj, LearnerSpec) else obj
        except Exception as exc:  # a broken plug-in must not break lrank itself
            raise LrankError(f"learner plug-in {ep.name!r} ({ep.value}) failed to load: {exc}") from exc
        if not isinstance(spec, LearnerSpec):
            raise LrankError(f"learner plug-in {ep.name!r} ({ep.value}) is not an lrank.registry.LearnerSpec")
        specs.append(spec)
    return specs


def available_learners() -> dict[str, LearnerSpec]:
    """All learners by name: the built-in ones, then the plug-ins (which cannot shadow them)."""
    learners = {s.name: s for s in _builtin_specs()}
    for spec in _entry_point_specs():
        if spec.name in learners:
            raise LrankError(f"learner plug-in {spec.name!r} clashes with a built-in learner of that name")
        learners[spec.name] = spec
    return learners


def get_learner(name: str) -> LearnerSpec:
    learners = available_learners()
    found = learners.get(name) or {k.lower(): v for k, v in learners.items()}.get(name.lower())
    if found is None:
        raise LearnerOptionError(f"unknown learner {name!r}; available: {', '.join(sorted(learners))}")
    return found


set_learner_lookup(get_learner)

__all__ = [
    "ENTRY_POINT_GROUP",
    "LearnerOption",
    "LearnerOptionError",
    "LearnerSpec",
    "available_learners",
    "get_learner",
]
