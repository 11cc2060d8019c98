"""Distribution functions the comparison tests need, in plain Python and numpy (no scipy).

* the standard normal: :func:`norm_cdf`, :func:`norm_sf`, :func:`norm_ppf`;
* chi-square and F upper tails: :func:`chi2_sf`, :func:`f_sf` (through the regularized
  incomplete gamma and beta functions, evaluated by series and continued fractions);
* Student's t: :func:`t_sf`, :func:`t_ppf` (the corrected resampled t-test's interval);
* the studentized range with infinite degrees of freedom: :func:`studentized_range_cdf`,
  :func:`studentized_range_ppf` (Nemenyi's critical values);
* the exact null distribution of the Wilcoxon signed-rank sum: :func:`signed_rank_sum_pmf`.

Accuracy is about 1e-10 or better in the ranges a comparison of learners meets (the test suite
checks every function against scipy over grids).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "chi2_sf",
    "f_sf",
    "norm_cdf",
    "norm_ppf",
    "norm_sf",
    "regularized_beta",
    "regularized_gamma_q",
    "signed_rank_sum_pmf",
    "studentized_range_cdf",
    "studentized_range_ppf",
    "t_ppf",
    "t_sf",
]

_SQRT2 = math.sqrt(2.0)
_EPS = 1e-16
_TINY = 1e-300
_MAX_ITER = 10_000


# -- the normal distribution -------------------------------------------------------------------


def norm_cdf(x: float) -> float:
    """P(Z <= x) for a standard normal Z."""
    return 0.5 * math.erfc(-x / _SQRT2)


def norm_sf(x: float) -> float:
    """P(Z > x), accurate far into the upper tail (no 1 - cdf cancellation)."""
    return 0.5 * math.erfc(x / _SQRT2)


def _norm_pdf(x: float) -> float:
    return math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def norm_ppf(p: float) -> float:
    """The x with P(Z <= x) = p (the normal quantile); -inf and inf at p = 0 and 1."""
    if math.isnan(p) or not 0.0 <= p <= 1.0:
        raise ValueError(f"a probability must lie in [0, 1], got {p}")
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    if p > 0.5:
        return -norm_ppf(1.0 - p) if 1.0 - p > 0.0 else math.inf
    # Solve norm_sf(x) = q for x >= 0 in the upper tail, where the tail probability is exact.
    q = p
    t = math.sqrt(-2.0 * math.log(q))
    # Starting point: the rational approximation of Abramowitz & Stegun 26.2.23 (error < 5e-4).
    x = t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t**3)
    for _ in range(50):
        # Halley's method on f(x) = norm_sf(x) - q, with f' = -pdf(x) and f'' = x pdf(x).
        pdf = _norm_pdf(x)
        if pdf == 0.0:
            break
        f = norm_sf(x) - q
        step = -f / pdf  # Newton step f / f'
        x_new = x - step / (1.0 + 0.5 * x * step)
        if abs(x_new - x) <= 1e-15 * max(1.0, abs(x_new)):
            x = x_new
            break
        x = x_new
    return -x


# -- incomplete gamma and beta -----------------------------------------------------------------


def regularized_gamma_q(a: float, x: float) -> float:
    """Q(a, x) = Gamma(a, x) / Gamma(a), the upper regularized incomplete gamma function."""
    if a <= 0:
        raise ValueError(f"the shape a must be positive, got {a}")
    if x <= 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    log_prefactor = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1.0:
        # The power series of the lower function P converges fast here; Q = 1 - P.
        term = 1.0 / a
        total = term
        ap = a
        for _ in range(_MAX_ITER):
            ap += 1.0
            term *= x / ap
            total += term
            if abs(term) < abs(total) * _EPS:
                break
        return max(0.0, 1.0 - total * math.exp(log_prefactor))
    # Legendre's continued fraction for Q, evaluated by the modified Lentz method.
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, _MAX_ITER):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = d if abs(d) > _TINY else _TINY
        c = b + an / c
        c = c if abs(c) > _TINY else _TINY
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return math.exp(log_prefactor) * h


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (modified Lentz), converging for x < (a+1)/(a+b+2)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_ITER):
        m2 = 2 * m
        # even step: d_{2m} = m (b - m) x / ((a + 2m - 1)(a + 2m))
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        h *= d * c
        # odd step: d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return h


def regularized_beta(x: float, a: float, b: float) -> float:
    """I_x(a, b), the regularized incomplete beta function."""
    if a <= 0 or b <= 0:
        raise ValueError(f"the shapes a and b must be positive, got {a} and {b}")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_continued_fraction(a, b, x) / a
    # Symmetry I_x(a, b) = 1 - I_{1-x}(b, a) keeps the fraction in its fast region.
    return 1.0 - math.exp(log_front) * _beta_continued_fraction(b, a, 1.0 - x) / b


def chi2_sf(x: float, df: float) -> float:
    """P(X > x) for X chi-square distributed with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    return regularized_gamma_q(df / 2.0, x / 2.0) if x > 0 else 1.0


def f_sf(x: float, df1: float, df2: float) -> float:
    """P(F > x) for F with (``df1``, ``df2``) degrees of freedom."""
    if df1 <= 0 or df2 <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df1} and {df2}")
    if x <= 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    # P(F > x) = I_{df2 / (df2 + df1 x)}(df2 / 2, df1 / 2)
    return regularized_beta(df2 / (df2 + df1 * x), df2 / 2.0, df1 / 2.0)


def t_sf(x: float, df: float) -> float:
    """P(T > x) for T Student-t distributed with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if math.isinf(x):
        return 0.0 if x > 0 else 1.0
    # P(|T| > |x|) = I_{df / (df + x^2)}(df / 2, 1 / 2)
    two_sided = regularized_beta(df / (df + x * x), df / 2.0, 0.5)
    return two_sided / 2.0 if x >= 0 else 1.0 - two_sided / 2.0


def t_ppf(p: float, df: float) -> float:
    """The p-quantile of Student's t with ``df`` degrees of freedom (inverse of 1 - t_sf)."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must lie in [0, 1], got {p}")
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    # Bisection on the tail beyond the quantile (the lower tail by symmetry, which keeps small
    # p exact): t_sf is monotone, and 200 halvings of [0, hi] reach the float resolution.
    tail = min(p, 1.0 - p)
    lo, hi = 0.0, 1.0
    while t_sf(hi, df) > tail:
        lo, hi = hi, 2.0 * hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if t_sf(mid, df) > tail:
            lo = mid
        else:
            hi = mid
    x = 0.5 * (lo + hi)
    return -x if p < 0.5 else x


# -- the studentized range ---------------------------------------------------------------------

# Integration grid for the range of k standard normals: phi(z) < 1e-19 beyond |z| = 9.5.
_Z = np.linspace(-9.5, 9.5, 3801)
_H = float(_Z[1] - _Z[0])
_SIMPSON = np.ones_like(_Z)
_SIMPSON[1:-1:2] = 4.0
_SIMPSON[2:-1:2] = 2.0
_SIMPSON *= _H / 3.0
_ERFC = np.frompyfunc(math.erfc, 1, 1)


def _phi_cdf(z: NDArray[np.float64]) -> NDArray[np.float64]:
    return 0.5 * np.asarray(_ERFC(-z / _SQRT2), dtype=np.float64)


_PDF_Z = np.exp(-0.5 * _Z * _Z) / math.sqrt(2.0 * math.pi)
_CDF_Z = _phi_cdf(_Z)


def studentized_range_cdf(q: float, k: int) -> float:
    """P(R <= q) for the range R of ``k`` independent standard normals (the studentized range
    with infinite degrees of freedom): k * integral of phi(z) (Phi(z + q) - Phi(z))^(k-1) dz."""
    if k < 2:
        raise ValueError(f"the studentized range needs k >= 2 groups, got {k}")
    if q <= 0:
        return 0.0
    if math.isinf(q):
        return 1.0
    inner = np.clip(_phi_cdf(_Z + q) - _CDF_Z, 0.0, 1.0)
    value = k * float(np.sum(_SIMPSON * _PDF_Z * inner ** (k - 1)))
    return min(1.0, max(0.0, value))


@functools.lru_cache(maxsize=256)
def studentized_range_ppf(p: float, k: int) -> float:
    """The q with P(R <= q) = p for the studentized range of ``k`` groups, infinite df."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"a probability must lie in (0, 1), got {p}")
    lo, hi = 0.0, 1.0
    while studentized_range_cdf(hi, k) < p:
        lo, hi = hi, 2.0 * hi
        if hi > 1e3:
            raise ValueError(f"the studentized range quantile for p = {p} is out of reach")
    for _ in range(200):  # bisection: the cdf is monotone and cheap enough
        mid = 0.5 * (lo + hi)
        if studentized_range_cdf(mid, k) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return 0.5 * (lo + hi)


# -- the Wilcoxon signed-rank sum --------------------------------------------------------------


def signed_rank_sum_pmf(doubled_ranks: Sequence[int]) -> NDArray[np.float64]:
    """Null distribution of S = sum of the ranks that get a positive sign, each sign a fair coin.

    The ranks are passed doubled (so that average ranks of ties, which end in .5, are integers);
    entry s of the result is P(2 S = s). Exact for any ties, by counting sign patterns.
    """
    ranks = [int(r) for r in doubled_ranks]
    if any(r < 0 for r in ranks):
        raise ValueError("ranks must be non-negative")
    counts = np.zeros(sum(ranks) + 1, dtype=np.float64)
    counts[0] = 1.0
    for r in ranks:  # each rank either joins the positive sum or not
        if r:
            counts[r:] = counts[r:] + counts[:-r].copy()
        else:
            counts *= 2.0
    return counts / counts.sum()
