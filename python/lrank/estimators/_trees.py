"""``apply(X)``: the leaf each row reaches in each tree, as scikit-learn's trees and forests have
it (e.g. for random-forest proximities: the share of trees in which two rows share a leaf)."""

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
        pair, an ensemble's member after member. Models without trees (and GBLR) refuse."""
        self._check_fitted()  # type: ignore[attr-defined]
        x = self._validate_x(X, reset=False)  # type: ignore[attr-defined]
        model = self.model_
        nodes = None if model is None else model.apply(x, n_jobs=self._predict_jobs())  # type: ignore[attr-defined]
        if nodes is None:
            raise InvalidInputError(f"{type(self).__name__} with these parameters has no trees to apply")
        return nodes.astype(np.int64)
