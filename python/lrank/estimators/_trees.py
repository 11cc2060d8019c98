"""``apply(X)``: the leaf each row reaches in each tree, as scikit-learn's trees and forests have
it (e.g. for random-forest proximities: the share of trees in which two rows share a leaf), and
the trees' sizes, ``get_depth()`` and ``get_n_leaves()``, as scikit-learn's trees have them."""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank.errors import InvalidInputError


class _TreeMethod:
    """A method that estimators without trees (``_has_trees = False``: the nearest-neighbour,
    linear and dummy learners) do not have, so ``hasattr`` says False, as scikit-learn's
    ``available_if`` hides one; those whose trees depend on their parameters (a pairwise
    learner's classifier, an ensemble's member) have it and refuse when fitted without trees."""

    def __init__(self, method: Callable[..., Any]) -> None:
        self.method = method
        functools.update_wrapper(self, method)  # type: ignore[arg-type]

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        cls = type(obj) if obj is not None else owner
        if cls is not None and not getattr(cls, "_has_trees", True):
            raise AttributeError(f"{cls.__name__} has no trees, so no {self.name}()")
        return self.method if obj is None else types.MethodType(self.method, obj)


class LeafApply:
    """The ``apply`` method of the estimators fitted by the core."""

    model_: Any
    # False for learners that never grow trees: apply, get_depth and get_n_leaves are absent.
    _has_trees = True

    @_TreeMethod
    def apply(self, X: ArrayLike) -> NDArray[np.int64]:
        """The leaf each row of ``X`` reaches in each tree, shape (n, n_trees): the leaf's node
        number within its tree, so rows sharing a number in a column share that tree's leaf.
        The trees in the model's order: a forest's in order, a pairwise learner's pair after
        pair, an ensemble's member after member, GBLR's round after round. Models without trees
        refuse."""
        self._check_fitted()  # type: ignore[attr-defined]
        x = self._validate_x(X, reset=False)  # type: ignore[attr-defined]
        model = self.model_
        nodes = None if model is None else model.apply(x, n_jobs=self._predict_jobs())  # type: ignore[attr-defined]
        if nodes is None:
            raise InvalidInputError(f"{type(self).__name__} with these parameters has no trees to apply")
        return nodes.astype(np.int64)

    def _tree_shapes(self) -> NDArray[np.int64]:
        self._check_fitted()  # type: ignore[attr-defined]
        shapes = [] if self.model_ is None else self.model_.tree_shapes()
        if not shapes:
            raise InvalidInputError(f"{type(self).__name__} with these parameters has no trees")
        return np.asarray(shapes, dtype=np.int64).reshape(-1, 2)

    @_TreeMethod
    def get_depth(self) -> Any:
        """The tree's depth (splits on its longest root-to-leaf path), as scikit-learn's trees
        give it; for a model of several trees (forests, pairwise learners, ensembles) an array
        with each tree's, in ``apply``'s order."""
        depths = self._tree_shapes()[:, 0]
        return int(depths[0]) if depths.size == 1 else depths

    @_TreeMethod
    def get_n_leaves(self) -> Any:
        """The tree's number of leaves; for a model of several trees an array with each tree's,
        in ``apply``'s order."""
        leaves = self._tree_shapes()[:, 1]
        return int(leaves[0]) if leaves.size == 1 else leaves
