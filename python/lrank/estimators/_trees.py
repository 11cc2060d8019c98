"""``apply(X)``: the leaf each row reaches in each tree, as scikit-learn's trees and forests have
it (e.g. for random-forest proximities: the share of trees in which two rows share a leaf), and
the trees' sizes, ``get_depth()`` and ``get_n_leaves()``, as scikit-learn's trees have them."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank.errors import InvalidInputError


class LeafApply:
    """The ``apply`` method of the estimators fitted by the core."""

    model_: Any

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

    def get_depth(self) -> Any:
        """The tree's depth (splits on its longest root-to-leaf path), as scikit-learn's trees
        give it; for a model of several trees (forests, pairwise learners, ensembles) an array
        with each tree's, in ``apply``'s order."""
        depths = self._tree_shapes()[:, 0]
        return int(depths[0]) if depths.size == 1 else depths

    def get_n_leaves(self) -> Any:
        """The tree's number of leaves; for a model of several trees an array with each tree's,
        in ``apply``'s order."""
        leaves = self._tree_shapes()[:, 1]
        return int(leaves[0]) if leaves.size == 1 else leaves
