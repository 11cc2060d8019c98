"""Cross-validation splitters for scikit-learn's ``cv=``, with the folds of ``lrank train``.

scikit-learn's default ``cv=5`` folds rows in file order: on a data set sorted by class (iris)
whole top labels end up in one test fold and the scores are meaningless. These splitters
stratify by top label (the most preferred label present in each ranking), exactly as ``lrank
train -x K -s SEED`` and ``lrank experiment`` do, so ``cross_val_score(est, X, y,
cv=StratifiedRankingKFold(10, random_state=1))`` scores the folds the CLI reports.

```pycon
>>> import numpy as np
>>> from lrank.model_selection import StratifiedRankingKFold
>>> y = np.array([[1, 2], [2, 1]] * 5, dtype=np.int32)
>>> [len(test) for _, test in StratifiedRankingKFold(5, random_state=1).split(np.zeros((10, 1)), y)]
[2, 2, 2, 2, 2]

```
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lrank.errors import InvalidInputError

__all__ = ["RepeatedStratifiedRankingKFold", "StratifiedRankingKFold"]


def _rankings(y: Any) -> NDArray[np.int32]:
    from lrank.estimators._inputs import rank_targets

    if y is None:
        raise InvalidInputError("the stratified splitters need y, the rank matrix, to stratify by top label")
    return rank_targets(y)[0]


def _splits(y: NDArray[np.int32], n_splits: int, seed: int) -> Iterator[tuple[NDArray[np.int64], NDArray[np.int64]]]:
    from lrank.evaluation.cross_validation import stratified_folds

    n = y.shape[0]
    for test in stratified_folds(y, n_splits, seed):
        mask = np.ones(n, dtype=bool)
        mask[test] = False
        yield np.flatnonzero(mask), test


def _check(n_splits: Any, name: str = "n_splits") -> int:
    if isinstance(n_splits, bool) or not isinstance(n_splits, (int, np.integer)) or n_splits < 2:
        raise InvalidInputError(f"{name} must be an int >= 2, got {n_splits!r}")
    return int(n_splits)


class StratifiedRankingKFold:
    """K folds stratified by top label: rows shuffled with ``random_state``, grouped by top
    label, dealt to the folds in turn (``lrank train``'s folds for ``-x n_splits -s
    random_state``).

    Parameters
    ----------
    n_splits : number of folds, at least 2 (default 10, as ``lrank train``).
    random_state : seed of the shuffle (default 1, as ``lrank train``).
    """

    def __init__(self, n_splits: int = 10, *, random_state: int = 1) -> None:
        self.n_splits = _check(n_splits)
        self.random_state = random_state

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        return self.n_splits

    def split(self, X: Any, y: Any = None, groups: Any = None) -> Iterator[tuple[NDArray[np.int64], NDArray[np.int64]]]:
        """(train indices, test indices) of each fold."""
        yield from _splits(_rankings(y), self.n_splits, int(self.random_state))

    def __repr__(self) -> str:
        return f"StratifiedRankingKFold(n_splits={self.n_splits}, random_state={self.random_state})"


class RepeatedStratifiedRankingKFold:
    """:class:`StratifiedRankingKFold` repeated ``n_repeats`` times with seeds ``random_state``,
    ``random_state + 1``, ... (``lrank train -x n_splits --repeats n_repeats -s random_state``)."""

    def __init__(self, n_splits: int = 10, n_repeats: int = 5, *, random_state: int = 1) -> None:
        self.n_splits = _check(n_splits)
        if isinstance(n_repeats, bool) or not isinstance(n_repeats, (int, np.integer)) or n_repeats < 1:
            raise InvalidInputError(f"n_repeats must be an int >= 1, got {n_repeats!r}")
        self.n_repeats = int(n_repeats)
        self.random_state = random_state

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        return self.n_splits * self.n_repeats

    def split(self, X: Any, y: Any = None, groups: Any = None) -> Iterator[tuple[NDArray[np.int64], NDArray[np.int64]]]:
        """(train indices, test indices) of each fold of each repeat."""
        ranks = _rankings(y)
        for r in range(self.n_repeats):
            yield from _splits(ranks, self.n_splits, int(self.random_state) + r)

    def __repr__(self) -> str:
        return (
            f"RepeatedStratifiedRankingKFold(n_splits={self.n_splits}, n_repeats={self.n_repeats}, "
            f"random_state={self.random_state})"
        )
