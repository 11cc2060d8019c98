"""``kneighbors``: the training rows an instance-based learner's prediction comes from, as
scikit-learn's neighbour estimators give them."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from lrank.estimators import _convert
from lrank.estimators._inputs import _user_stacklevel


class KNeighbors:
    """The ``kneighbors`` method of the instance-based learners."""

    model_: Any

    def _warn_if_k_capped(self, k_used: int, fitting: bool) -> None:
        # The core takes every training row when k exceeds them; scikit-learn refuses such a k.
        # Said, so a k tuned on larger data is not silently another learner.
        asked = getattr(self, "n_neighbors", None)
        if fitting and isinstance(asked, int) and asked > k_used:
            warnings.warn(
                f"{type(self).__name__}: n_neighbors={asked} is more than the {k_used} training rows: "
                f"all {k_used} are every row's neighbours",
                UserWarning,
                stacklevel=_user_stacklevel(),
            )

    def kneighbors(
        self, X: ArrayLike | None = None, n_neighbors: int | None = None, return_distance: bool = True
    ) -> Any:
        """The ``n_neighbors`` nearest training rows of each row of ``X`` (None: the fitted k,
        ``n_neighbors_``), nearest first: their distances, measured in the feature space the
        learner scales to (``scaling``; a nominal mismatch counts 1), and their indices among the
        training rows, each (n, k); only the indices without ``return_distance``. Without ``X``,
        the neighbours of each training row, which is not counted as its own neighbour (as in
        scikit-learn; a duplicate of it is)."""
        self._check_fitted()  # type: ignore[attr-defined]
        x = None if X is None else self._validate_x(X, reset=False)  # type: ignore[attr-defined]
        k = None if n_neighbors is None else _convert.count("n_neighbors", n_neighbors)
        found = self.model_.kneighbors(x, k, n_jobs=self._predict_jobs())  # type: ignore[attr-defined]
        assert found is not None  # the instance-based models always have neighbours
        distances, rows = found
        indices = rows.astype(np.int64)
        return (distances, indices) if _convert.flag("return_distance", return_distance) else indices
