"""The learner registry: short names (``-W LRRF``) to estimators and their WEKA-style options.

Third-party learners plug in through the entry-point group ``lrank.learners``: each entry point
names a :class:`LearnerSpec` (or a callable returning one), for example in ``pyproject.toml``::

    [project.entry-points."lrank.learners"]
    MYLR = "my_package.lrank_plugin:SPEC"
"""

from __future__ import annotations

import functools
import importlib.metadata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lrank.errors import LrankError

ENTRY_POINT_GROUP = "lrank.learners"


class LearnerOptionError(LrankError, ValueError):
    """A learner name or learner option given on the command line is wrong."""


def _parse_max_features(text: str) -> str | int | float:
    if text in ("log2+1", "sqrt", "all"):
        return text
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise ValueError("expected 'log2+1', 'sqrt', 'all', an int or a float") from None


def _parse_depth(text: str) -> int | None:
    value = int(text)
    if value < 0:
        raise ValueError("must be >= 0 (0 means unlimited)")
    return None if value == 0 else value


def _parse_optional_count(text: str) -> int | None:
    value = int(text)
    if value < 0:
        raise ValueError("must be >= 0 (0 means choose automatically)")
    return None if value == 0 else value


def _parse_choice(*choices: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}")
        return text

    parse.__name__ = "|".join(choices)
    return parse


@dataclass(frozen=True)
class LearnerOption:
    """One WEKA-style option: ``flag`` (e.g. ``-I``) sets estimator parameter ``param``."""

    flag: str
    param: str
    help: str
    parse: Callable[[str], Any] | None = int  # None: a switch setting ``param`` to ``switch_value``
    metavar: str = "N"
    switch_value: Any = True


@dataclass(frozen=True)
class LearnerSpec:
    """A learner as the CLI sees it."""

    name: str
    factory: Callable[..., Any]
    summary: str
    reference: str = ""
    options: tuple[LearnerOption, ...] = field(default_factory=tuple)
    # Estimator parameters the CLI sets from its own options, when the estimator has them.
    seed_param: str | None = "random_state"
    jobs_param: str | None = "n_jobs"
    # Meta-learners (WEKA's style): the option setting this parameter names a learner, and the
    # tokens after a "--" are that learner's options ("-W LRT -I 100 -- -depth 5").
    nested_param: str | None = None
    nested_default: str | None = None

    def parse_options(self, args: Sequence[str]) -> dict[str, Any]:
        """Estimator parameters from WEKA-style tokens, e.g. ``["-I", "100", "-depth", "0"]``."""
        tokens = list(args)
        nested: list[str] = []
        if self.nested_param is not None and "--" in tokens:
            cut = tokens.index("--")
            tokens, nested = tokens[:cut], tokens[cut + 1 :]
        params = self._parse_own(tokens)
        if self.nested_param is not None:
            name = params.pop(self.nested_param, self.nested_default)
            if name is None:
                raise LearnerOptionError(f"{self.name}: name the learner to use with -W")
            inner = get_learner(str(name))
            params[self.nested_param] = inner.factory(**inner.parse_options(nested))
        return params

    def _parse_own(self, tokens: list[str]) -> dict[str, Any]:
        by_flag = {o.flag: o for o in self.options}
        by_flag.update({"--" + o.param.replace("_", "-"): o for o in self.options})
        params: dict[str, Any] = {}
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            opt = by_flag.get(tok)
            if opt is None:
                known = ", ".join(o.flag for o in self.options) or "none"
                raise LearnerOptionError(f"{self.name}: unknown option {tok!r} (options: {known})")
            if opt.parse is None:
                params[opt.param] = opt.switch_value
                i += 1
                continue
            if i + 1 >= len(tokens):
                raise LearnerOptionError(f"{self.name}: option {tok} needs a value ({opt.metavar})")
            try:
                params[opt.param] = opt.parse(tokens[i + 1])
            except ValueError as exc:
                raise LearnerOptionError(f"{self.name}: bad value {tokens[i + 1]!r} for {tok}: {exc}") from None
            i += 2
        return params

    def build(
        self,
        args: Sequence[str] = (),
        *,
        seed: int | None = None,
        n_jobs: int | None = None,
        categorical_features: Any = None,
    ) -> Any:
        """A fresh estimator with the given options; the seed, the threads and the nominal
        features of the data (a boolean mask) are set when the learner has such parameters."""
        params = self.parse_options(args)
        est = self.factory(**params)
        names = est.get_params() if hasattr(est, "get_params") else {}
        if (
            seed is not None
            and self.seed_param is not None
            and self.seed_param in names
            and self.seed_param not in params
        ):
            est.set_params(**{self.seed_param: seed})
        if (
            n_jobs is not None
            and self.jobs_param is not None
            and self.jobs_param in names
            and self.jobs_param not in params
        ):
            est.set_params(**{self.jobs_param: n_jobs})
        if categorical_features is not None and "categorical_features" in names:
            est.set_params(categorical_features=categorical_features)
        return est

    def usage(self) -> str:
        """How the learner's options are written after ``--`` (for help texts)."""
        if self.nested_param is None:
            return ""
        return f"-W NAME [other options] [-- NAME's options]  (default NAME: {self.nested_default})"


def _parse_learner_name(text: str) -> str:
    return get_learner(text).name


def _parse_share_percent(text: str) -> float:
    value = float(text)
    if not 0 < value <= 100:
        raise ValueError("must lie in (0, 100]")
    return value / 100.0


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
                LearnerOption(
                    "-depth", "max_depth", "maximum depth in splits, 0 = unlimited (default 8)", _parse_depth
                ),
                LearnerOption(
                    "-K",
                    "max_features",
                    "features drawn per node: log2+1, sqrt, all, N or a share (default log2+1)",
                    _parse_max_features,
                    "K",
                ),
                LearnerOption(
                    "-class-mode",
                    "class_mode",
                    "class for information gain: ranking, top_label or pairwise (default ranking)",
                    _parse_choice("ranking", "top_label", "pairwise"),
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
                    _parse_optional_count,
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
                    _parse_learner_name,
                    "NAME",
                ),
                LearnerOption("-I", "n_estimators", "number of members (default 50)"),
                LearnerOption(
                    "-P",
                    "max_samples",
                    "bootstrap size as a percentage of the training rows (default 100)",
                    _parse_share_percent,
                    "PCT",
                ),
                LearnerOption(
                    "-A",
                    "aggregation",
                    "consensus: borda, copeland, mallows or kemeny (default borda)",
                    _parse_choice("borda", "copeland", "mallows", "kemeny"),
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
                    _parse_max_features,
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
                    _parse_choice("tree", "forest"),
                    "BASE",
                ),
                LearnerOption("-I", "n_estimators", "trees per pair of a forest (default 100)"),
                LearnerOption(
                    "-K",
                    "max_features",
                    "features per node of a forest: sqrt, log2+1, all, N or a share (default sqrt)",
                    _parse_max_features,
                    "K",
                ),
                LearnerOption(
                    "-depth", "max_depth", "maximum depth in splits, 0 = unlimited (default 0)", _parse_depth
                ),
                LearnerOption("-M", "min_samples_split", "smallest node that is split (default 2)", float, "W"),
                LearnerOption(
                    "-V",
                    "voting",
                    "copeland or probability (default copeland)",
                    _parse_choice("copeland", "probability"),
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
                    _parse_choice("soft", "binary"),
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
                    _parse_optional_count,
                ),
                LearnerOption(
                    "-weights",
                    "weights",
                    "uniform or dudani (default uniform)",
                    _parse_choice("uniform", "dudani"),
                    "W",
                ),
                LearnerOption("-max-iter", "max_iter", "MM iterations at most (default 100)"),
                LearnerOption("-tol", "tol", "MM tolerance, relative to the largest skill (default 1e-6)", float, "T"),
            ),
        ),
    ]


def _labelwise_options() -> tuple[LearnerOption, ...]:
    return (
        LearnerOption("-depth", "max_depth", "maximum depth in splits, 0 = unlimited (default 0)", _parse_depth),
        LearnerOption("-M", "min_samples_split", "smallest node that is split (default 2)", float, "W"),
        LearnerOption("-L", "min_samples_leaf", "least weight on each side of a split (default 1)", float, "W"),
        LearnerOption("-tune", "tune_depth", "choose the depth from 5, 10, 15, unlimited by inner 5-fold CV", None, ""),
    )


def _label_tree_options() -> tuple[LearnerOption, ...]:
    return (
        LearnerOption("-depth", "max_depth", "maximum depth in splits, 0 = unlimited (default 0)", _parse_depth),
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


__all__ = [
    "ENTRY_POINT_GROUP",
    "LearnerOption",
    "LearnerOptionError",
    "LearnerSpec",
    "available_learners",
    "get_learner",
]
