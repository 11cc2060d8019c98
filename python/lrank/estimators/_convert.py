"""Estimator parameters to the core's serde form.

The core checks every parameter's domain once (``lrank._core`` raises
:class:`~lrank.errors.InvalidParameterError` naming it); here values are only converted to the
types the core reads, with a message naming the parameter where a wrong type would otherwise
reach the core as an unreadable serde error (a string where a number belongs, a bool where an
int belongs, a negative count, a word that is no choice).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from lrank.errors import InvalidParameterError


def _bad(name: str, reason: str) -> InvalidParameterError:
    err = InvalidParameterError(f"invalid parameter {name}: {reason}")
    err.parameter, err.reason = name, reason
    return err


def count(name: str, value: Any, *, none: bool = False) -> int | None:
    """A whole number >= 0 (a bool is not one); None where ``none`` allows it."""
    if value is None and none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        # The type alone: the range is the parameter's own (n_estimators from 1, max_depth from
        # 0), checked where it is known; "an int >= 0" here contradicted "at least 1" there.
        allowed = "an int or None" if none else "an int"
        raise _bad(name, f"must be {allowed}, got {value!r}")
    # No lower bound stated but 0: the parameter's own (at least 1, say) is the core's to state.
    if value < 0:
        raise _bad(name, f"must not be negative, got {value!r}")
    if value >= 2**63:
        raise _bad(name, f"must be below 2**63, got {value!r}")
    return int(value)


def number(name: str, value: Any, *, none: bool = False) -> float | None:
    """A real number (finite or not: the core checks its range); None where ``none`` allows it."""
    if value is None and none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise _bad(name, f"must be a number{' or None' if none else ''}, got {value!r}")
    return float(value)


def finite(name: str, value: Any, *, none: bool = False) -> Any:
    """A finite real number (JSON has no infinity or NaN); None where ``none`` allows it."""
    x = number(name, value, none=none)
    if x is None:
        return None
    if not math.isfinite(x):
        raise _bad(name, f"must be finite, got {value!r}")
    return x


def flag(name: str, value: Any) -> bool:
    """True or False (not a string or a number that Python would call true)."""
    if not isinstance(value, (bool, np.bool_)):
        raise _bad(name, f"must be True or False, got {value!r}")
    return bool(value)


def is_on(value: Any) -> bool:
    """Whether a flag parameter is on: True or numpy's True (``flag`` refuses other values)."""
    return isinstance(value, (bool, np.bool_)) and bool(value)


def choice(name: str, value: Any, choices: Mapping[str, Any]) -> Any:
    """The core's form of one of ``choices``' keys."""
    if not isinstance(value, str) or value not in choices:
        raise _bad(name, f"must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return choices[value]


def max_features(value: Any, name: str = "max_features") -> Any:
    """ "log2+1", "sqrt", "log2" (scikit-learn's), "all" or None, a count >= 1, or a share in (0, 1]."""
    if value is None:
        return "All"
    if isinstance(value, str):
        return choice(name, value, {"log2+1": "Log2PlusOne", "sqrt": "Sqrt", "log2": "Log2", "all": "All"})
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return {"Count": count(name, value)}
    if isinstance(value, (float, np.floating)):
        return {"Fraction": finite(name, value)}
    raise _bad(name, f"must be 'log2+1', 'sqrt', 'log2', 'all', None, an int or a float in (0, 1], got {value!r}")


def max_bins(value: Any, name: str = "max_bins") -> int | None:
    """None (exact split search) or a number of bins (the core checks 2 to 255)."""
    return count(name, value, none=True)


# Feature scalings of the instance-based learners (the core's names).
SCALINGS = {"minmax": "MinMax", "standard": "Standard", "none": "None"}

# The consensus methods that learners offer as ``aggregation`` (the ``-A`` choices): the core's
# aggregators without ties, then the partial-label-ranking ones with their threshold ``beta``.
_PLAIN_AGGREGATORS = {"borda": "Borda", "copeland": "Copeland", "mallows": "Mallows", "kemeny": "Kemeny"}
# "bpa" is BPA-LIA-MP2 with the global DANI (scikit-lr's and the authors'); "bpa-local" the
# variant lrank used before, with the DANI of each recursive call.
BUCKET_METHODS = {"bpa": "BpaGlobal", "borda-ties": "Borda", "copeland-ties": "Copeland", "bpa-local": "Bpa"}
AGGREGATIONS = (*_PLAIN_AGGREGATORS, *BUCKET_METHODS)


def bucket_consensus(value: Any, beta: Any, name: str = "aggregation") -> dict[str, Any]:
    """The core's consensus with ties (``{"method": "Bpa", "beta": 0.25}``) of one of
    :data:`BUCKET_METHODS`; ``beta`` None takes the method's default (the core checks its range)."""
    from lrank.aggregation import DEFAULT_BETA

    method = choice(name, value, BUCKET_METHODS)
    key = {"BpaGlobal": "bpa", "Bpa": "bpa", "Borda": "borda", "Copeland": "copeland"}[method]
    b = DEFAULT_BETA[key] if beta is None else finite("beta", beta)
    return {"method": method, "beta": b}


def aggregator(value: Any, beta: Any, name: str = "aggregation") -> Any:
    """The core's ``Aggregator`` of one of :data:`AGGREGATIONS` (``beta`` used by the ones with
    ties)."""
    if isinstance(value, str) and value in BUCKET_METHODS:
        return {"Buckets": bucket_consensus(value, beta, name)}
    chosen = choice(name, value, {**_PLAIN_AGGREGATORS, **dict.fromkeys(BUCKET_METHODS)})
    if beta is not None:  # it would be ignored: the consensus without ties has no threshold
        raise _bad("beta", f"is the tie threshold of bpa, borda-ties and copeland-ties, not of {value}")
    return chosen
