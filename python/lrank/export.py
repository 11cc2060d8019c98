"""A fitted tree as text, as scikit-learn's ``export_text`` and WEKA-LR's model output show one:
each split on its line, indented by depth, and each leaf's ranking in lrank's notation.

    >>> from lrank import LabelRankingTree
    >>> from lrank.datasets import load_iris
    >>> data = load_iris()
    >>> print(export_text(LabelRankingTree(max_depth=2, random_state=0).fit(data), feature_names=data.feature_names()))
    |--- petal length (cm) <= 2.450
    |   |--- ranking: setosa>versicolor>virginica
    |--- petal length (cm) >  2.450
    |   |--- petal width (cm) <= 1.750
    |   |   |--- ranking: versicolor>virginica>setosa
    |   |--- petal width (cm) >  1.750
    |   |   |--- ranking: virginica>versicolor>setosa
    <BLANKLINE>
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from lrank.errors import InvalidInputError

__all__ = ["export_text"]


def export_text(
    estimator: Any,
    *,
    tree: int = 0,
    feature_names: Sequence[str] | None = None,
    max_depth: int | None = 10,
    decimals: int = 3,
    category_names: Sequence[Sequence[str] | None] | None = None,
) -> str:
    """Tree ``tree`` (counted from 0, in ``apply``'s order) of a fitted estimator as text.

    Splits read ``name <= threshold`` (the rows going left) and ``name >  threshold``; a nominal
    feature's split reads ``name == value`` and ``name != value``; rows with a missing value go
    where the training median sends them. Leaves give their ranking (LRT, LR-RF, LWRF and the PLR
    trees; ``b>a=c`` ties labels) or, for learners whose leaves hold class shares (the pairwise
    learners' trees), their number. Branches deeper than ``max_depth`` are summarised.
    ``feature_names`` default to the names seen at fit, else ``feature_0``, ``feature_1``, ...;
    a nominal feature's values print as their names: ``category_names`` (per feature, its values
    in code order, or None), else the categories of a categorical column seen at fit.
    ``max_depth=None`` prints every level.
    """
    from lrank.estimators import _convert
    from lrank.ranking_notation import format_rank_rows

    if not hasattr(estimator, "_check_fitted") or not hasattr(estimator, "n_features_in_"):
        raise InvalidInputError(f"export_text prints a fitted lrank estimator's tree, got {type(estimator).__name__}")
    estimator._check_fitted()
    index = int(_convert.count("tree", tree) or 0)
    depth_limit = _convert.count("max_depth", max_depth, none=True)
    places = int(_convert.count("decimals", decimals) or 0)
    model = getattr(estimator, "model_", None)
    if model is None or not model.has_trees:
        raise InvalidInputError(f"{type(estimator).__name__} with these parameters has no trees to print")
    nodes, leaves = model.tree_nodes(index)
    n_features = int(estimator.n_features_in_)
    if feature_names is None:
        known = getattr(estimator, "feature_names_in_", None)
        feature_names = list(known) if known is not None else [f"feature_{j}" for j in range(n_features)]
    names = [str(n) for n in feature_names]
    if len(names) != n_features:
        raise InvalidInputError(f"feature_names has {len(names)} names, the model takes {n_features} features")
    labels = estimator._label_names()
    categories = list(category_names) if category_names is not None else getattr(estimator, "categories_", None)
    lines: list[str] = []
    # Depth-first, left before right, without recursion (a tree may be thousands of nodes deep):
    # the stack holds nodes to print (node, depth) and lines to print as they are (-1, text).
    stack: list[tuple[int, Any]] = [(0, 0)]
    while stack:
        node, item = stack.pop()
        if node < 0:
            lines.append(item)
            continue
        depth = item
        kind, a, value, left, right = nodes[node]
        indent = "|   " * depth + "|--- "
        if kind == "leaf":
            lines.append(
                f"{indent}leaf {a}"
                if leaves is None
                else f"{indent}ranking: {format_rank_rows([leaves[a]], labels)[0]}"
            )
        elif depth_limit is not None and depth >= depth_limit:
            lines.append(f"{indent}truncated branch of depth {_depth(nodes, node)}")
        else:
            shown = _shown(value, places, categories[a] if kind == "category" and categories else None)
            name = names[a]
            go_left, go_right = (
                (f"{name} <= {shown}", f"{name} >  {shown}")
                if kind == "split"
                else (f"{name} == {shown}", f"{name} != {shown}")
            )
            stack.extend([(right, depth + 1), (-1, indent + go_right), (left, depth + 1), (-1, indent + go_left)])
    return "\n".join(lines) + "\n"


def _shown(value: float, decimals: int, names: Sequence[str] | None) -> str:
    """A threshold with ``decimals`` places, or a nominal code as its value's name."""
    if names is not None and float(value).is_integer() and 0 <= int(value) < len(names):
        return str(names[int(value)])
    return f"{value:.{decimals}f}" if math.isfinite(value) else str(value)


def _depth(nodes: list[tuple[str, int, float, int, int]], root: int) -> int:
    """Splits on the longest path below ``root``."""
    deepest, stack = 0, [(root, 0)]
    while stack:
        node, depth = stack.pop()
        kind, _, _, left, right = nodes[node]
        if kind == "leaf":
            deepest = max(deepest, depth)
        else:
            stack.extend([(left, depth + 1), (right, depth + 1)])
    return deepest
