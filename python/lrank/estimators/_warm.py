"""``warm_start=True``: a refit with more ``n_estimators`` adds trees to the forest fitted before,
as scikit-learn's forests do.

Each tree grows from a stream that depends on its index alone, so adding trees 50..99 to a forest
of 50 gives the forest a fit of 100 grows, tree for tree. That holds only on the same training
data and parameters: a refit checks both (a digest of the arrays, the parameters but
``n_estimators``, ``n_jobs``, ``oob_score`` and ``warm_start``) and refuses a change instead of
mixing forests. ``random_state=None`` or a ``RandomState`` keeps the seed drawn at the first fit.
"""

from __future__ import annotations

import hashlib
import sys
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lrank import _core
from lrank.errors import InvalidInputError, InvalidParameterError
from lrank.estimators import _convert
from lrank.estimators._inputs import _user_stacklevel

# Parameters a warm refit may change.
_FREE = ("n_estimators", "n_jobs", "oob_score", "warm_start")


def _digest(x: NDArray[np.float64], y: NDArray[np.int32], w: NDArray[np.float64] | None, nominal: Any) -> str:
    h = hashlib.blake2b(digest_size=16)
    for part in (x, y, np.zeros(0) if w is None else w):
        h.update(repr(part.shape).encode())
        h.update(np.ascontiguousarray(part).tobytes())
    h.update(repr(nominal).encode())
    return h.hexdigest()


def _same_param(a: Any, b: Any) -> bool:
    """Equal parameter values; estimators (bagging's base) by their type and parameters."""
    if hasattr(a, "get_params") and hasattr(b, "get_params") and not isinstance(a, type):
        pa, pb = a.get_params(deep=False), b.get_params(deep=False)
        return type(a) is type(b) and pa.keys() == pb.keys() and all(_same_param(pa[k], pb[k]) for k in pa)
    from lrank.estimators.base import _same

    return _same(a, b)


@dataclass
class Previous:
    """The fit a warm refit adds trees to."""

    est: Any
    seed: int

    @staticmethod
    def of(est: Any, names: dict[str, Any]) -> Previous | None:
        """The estimator's earlier fit when ``warm_start`` asks to add to it, else None."""
        if not _convert.flag("warm_start", names.get("warm_start", False)):
            return None
        before = est.__dict__.get("_warm_params")
        if before is None or est.__dict__.get("model_") is None:
            return None
        changed = [k for k, v in names.items() if k not in _FREE and not _same_param(v, before.get(k))]
        if changed:
            raise InvalidParameterError(
                f"warm_start adds trees to the forest fitted before, but {', '.join(changed)} changed since: "
                "set warm_start=False to fit anew"
            )
        return Previous(est, est.seed_)

    def add_trees(
        self,
        n_estimators: int,
        x: NDArray[np.float64],
        y: NDArray[np.int32],
        w: NDArray[np.float64] | None,
        *,
        n_jobs: int | None,
        nominal: Any,
    ) -> _core.Model:
        """The earlier model with trees added up to ``n_estimators``, grown on the same data."""
        if _digest(x, y, w, nominal) != self.est._warm_digest:
            raise InvalidInputError(
                "warm_start adds trees grown on the training data of the fit before, but X, y or sample_weight "
                "differ: set warm_start=False to fit anew"
            )
        model: _core.Model = self.est.model_
        if n_estimators == self.est._warm_trees:
            warnings.warn(
                "warm_start with n_estimators unchanged fits no new trees", UserWarning, stacklevel=_user_stacklevel()
            )
            return model
        return model.add_trees(n_estimators, x, y, w, n_jobs=n_jobs, nominal=nominal)


def remember(est: Any, names: dict[str, Any], x: NDArray[np.float64], y: Any, w: Any, nominal: Any) -> None:
    """After a fit: what a warm refit checks (only with ``warm_start=True``)."""
    if _convert.is_on(names.get("warm_start")):
        from lrank.estimators.base import _clone_param

        # A RandomState is kept itself, not a copy: the fit advanced it, and the refit compares
        # it by identity (the trees' streams come from the seed drawn at the first fit, as for
        # None); a copy never compared equal, so warm_start refused every second fit.
        # (numpy.random is looked up, not imported: an int seed must not cost its import.)
        numpy_random = sys.modules.get("numpy.random")
        generator = numpy_random.RandomState if numpy_random is not None else ()
        est._warm_params = {
            k: v if isinstance(v, generator) else _clone_param(v) for k, v in names.items() if k not in _FREE
        }
        est._warm_digest = _digest(x, y, w, nominal)
        est._warm_trees = int(names["n_estimators"])
    else:
        for name in ("_warm_params", "_warm_digest", "_warm_trees"):
            est.__dict__.pop(name, None)
