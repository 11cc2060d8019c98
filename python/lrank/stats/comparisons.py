"""Comparing learners over several data sets, after Demšar (2006), "Statistical comparisons of
classifiers over multiple data sets", JMLR 7:1-30.

* :func:`rank_scores`: each data set ranks the learners (1 = best, ties share the average rank);
* :func:`friedman_test`: Friedman's chi-square and the Iman-Davenport F_F with their p-values;
* :func:`critical_difference` with :func:`nemenyi_q` (all pairs) or :func:`bonferroni_dunn_q`
  (against a control): CD = q_alpha sqrt(k (k + 1) / (6 N));
* :func:`holm_test`: Holm's step-down procedure against a control learner;
* :func:`wilcoxon_signed_rank`: two learners, with Demšar's handling of zero differences;
* :func:`nemenyi_groups`: the groups a critical-difference diagram joins with a bar;
* :func:`corrected_resampled_t_test`: two learners on one data set, over the folds of repeated
  cross-validation (Nadeau & Bengio 2003, "Inference for the generalization error", Machine
  Learning 52:239-281);
* :func:`ratio_of_means_interval`: how many times one quantity (e.g. a peer's fit time) is
  another's, with a paired bootstrap interval over the folds.

Everything takes average ranks where the papers do, so published numbers can be checked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank.errors import InvalidInputError
from lrank.stats.distributions import (
    chi2_sf,
    f_sf,
    norm_ppf,
    norm_sf,
    signed_rank_sum_pmf,
    studentized_range_ppf,
    t_ppf,
    t_sf,
)

__all__ = [
    "CorrectedTTestResult",
    "FriedmanResult",
    "HolmStep",
    "RatioInterval",
    "WilcoxonResult",
    "average_ranks",
    "bonferroni_dunn_q",
    "corrected_resampled_t_test",
    "critical_difference",
    "friedman_test",
    "holm_test",
    "nemenyi_groups",
    "nemenyi_q",
    "rank_scores",
    "ratio_of_means_interval",
    "wilcoxon_signed_rank",
]

# Scores are compared after rounding to this many decimals, so that two learners whose means
# differ only by floating-point noise (e.g. sums taken in another order) tie.
SCORE_DECIMALS = 12


def _average_rank_of_sorted(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """1-based ranks of ``values`` (ascending), ties getting the mean of the ranks they span."""
    order = np.argsort(values, kind="stable")
    ranks = np.empty(values.size, dtype=np.float64)
    sorted_vals = values[order]
    i = 0
    while i < values.size:
        j = i
        while j + 1 < values.size and sorted_vals[j + 1] == sorted_vals[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def rank_scores(scores: ArrayLike, *, higher_is_better: bool = True) -> NDArray[np.float64]:
    """Rank the learners (columns) on each data set (row): 1 = best, ties share the average rank.

    Scores equal after rounding to ``SCORE_DECIMALS`` decimals count as ties. NaN is refused:
    a data set without a score for every learner cannot be ranked.
    """
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 2:
        raise InvalidInputError(f"scores must be a (data sets, learners) matrix, got shape {s.shape}")
    if np.isnan(s).any():
        raise InvalidInputError("scores hold NaN: every learner needs a score on every data set")
    key = np.round(-s if higher_is_better else s, SCORE_DECIMALS)
    return np.array([_average_rank_of_sorted(row) for row in key]).reshape(s.shape)


def average_ranks(scores: ArrayLike, *, higher_is_better: bool = True) -> NDArray[np.float64]:
    """Mean rank of each learner over the data sets (see :func:`rank_scores`)."""
    return rank_scores(scores, higher_is_better=higher_is_better).mean(axis=0)  # type: ignore[no-any-return]


def _check_ranks(avg_ranks: Sequence[float] | NDArray[np.float64], n: int) -> NDArray[np.float64]:
    r = np.asarray(avg_ranks, dtype=np.float64)
    if r.ndim != 1 or r.size < 2:
        raise InvalidInputError("a comparison needs the average ranks of at least two learners")
    if n < 2:
        raise InvalidInputError(f"a comparison needs at least two data sets, got {n}")
    if np.isnan(r).any() or (r < 1).any() or (r > r.size).any():
        raise InvalidInputError(f"average ranks must lie in [1, {r.size}], got {r.tolist()}")
    return r


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman's test on N data sets and k learners, and Iman and Davenport's F version."""

    n: int
    k: int
    chi2: float
    chi2_df: int
    chi2_p: float
    ff: float
    ff_df: tuple[int, int]
    ff_p: float


def friedman_test(avg_ranks: Sequence[float] | NDArray[np.float64], n: int) -> FriedmanResult:
    """chi2_F = 12N / (k(k+1)) [sum R_j^2 - k(k+1)^2 / 4] with k - 1 degrees of freedom, and
    F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F) with (k - 1, (k - 1)(N - 1)) degrees of freedom.

    Like Demšar's formulas, no correction for ties is made.

    When every data set ranks the learners the same way, the denominator vanishes and F_F is
    infinite, where its F distribution no longer approximates anything; its p-value is then the
    exact one, (k!)^(1 - N): under the null hypothesis each of the k! rankings is equally likely
    on each data set, and no outcome is more extreme than all N agreeing (with two data sets
    and three learners 1/6, not 0).
    """
    r = _check_ranks(avg_ranks, n)
    k = r.size
    chi2 = 12.0 * n / (k * (k + 1)) * (float(np.sum(r * r)) - k * (k + 1) ** 2 / 4.0)
    chi2 = max(chi2, 0.0)  # rounding can push a zero statistic just below 0
    df1, df2 = k - 1, (k - 1) * (n - 1)
    denominator = n * (k - 1) - chi2
    # The denominator vanishes when every data set ranks the learners the same way.
    agree = denominator <= 1e-12
    ff = math.inf if agree else (n - 1) * chi2 / denominator
    ff_p = math.exp((1 - n) * math.lgamma(k + 1)) if agree else f_sf(ff, df1, df2)
    return FriedmanResult(
        n=n,
        k=k,
        chi2=chi2,
        chi2_df=df1,
        chi2_p=chi2_sf(chi2, df1),
        ff=ff,
        ff_df=(df1, df2),
        ff_p=ff_p,
    )


def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical value: the studentized range quantile (infinite df) over sqrt(2)."""
    _check_alpha(alpha)
    if k < 2:
        raise InvalidInputError(f"Nemenyi's test needs at least two learners, got {k}")
    return studentized_range_ppf(1.0 - alpha, k) / math.sqrt(2.0)


def bonferroni_dunn_q(k: int, alpha: float = 0.05) -> float:
    """The Bonferroni-Dunn critical value for k - 1 comparisons with a control:
    the two-sided normal quantile at alpha / (k - 1)."""
    _check_alpha(alpha)
    if k < 2:
        raise InvalidInputError(f"the Bonferroni-Dunn test needs at least two learners, got {k}")
    return norm_ppf(1.0 - alpha / (2.0 * (k - 1)))


def critical_difference(
    k: int, n: int, alpha: float = 0.05, *, method: str = "nemenyi", q: float | None = None
) -> float:
    """CD = q_alpha sqrt(k (k + 1) / (6 N)) for ``k`` learners on ``n`` data sets.

    ``method`` is ``"nemenyi"`` (all pairs) or ``"bonferroni-dunn"`` (each against a control);
    ``q`` overrides the critical value, to check a published CD. Published values are not always
    the standard ones: Zhou & Qiu's 7 learners use q = 2.638, the Bonferroni-Dunn value, but a
    comparison of 12 learners over 15 data sets in the label-ranking literature uses q = 2.871,
    which is neither the Bonferroni-Dunn value for k = 12 (2.838) nor Nemenyi's (3.268).
    """
    if n < 1:
        raise InvalidInputError(f"the number of data sets must be positive, got {n}")
    if q is None:
        if method == "nemenyi":
            q = nemenyi_q(k, alpha)
        elif method == "bonferroni-dunn":
            q = bonferroni_dunn_q(k, alpha)
        else:
            raise InvalidInputError(f"unknown post-hoc method {method!r}: use nemenyi or bonferroni-dunn")
    return q * math.sqrt(k * (k + 1) / (6.0 * n))


@dataclass(frozen=True)
class HolmStep:
    """One hypothesis of Holm's procedure: learner ``learner`` against the control."""

    learner: int
    rank_difference: float
    z: float
    p: float
    threshold: float
    rejected: bool


def holm_test(
    avg_ranks: Sequence[float] | NDArray[np.float64], n: int, *, control: int | None = None, alpha: float = 0.05
) -> list[HolmStep]:
    """Holm's step-down procedure comparing each learner with ``control`` (default: the best
    average rank). z = (R_i - R_control) / sqrt(k (k + 1) / (6 N)), two-sided p-values sorted
    ascending; the i-th (1-based) is compared with alpha / (k - i), and once one hypothesis is
    retained all later ones are too. Returns the steps in that order."""
    r = _check_ranks(avg_ranks, n)
    _check_alpha(alpha)
    k = r.size
    c = int(np.argmin(r)) if control is None else control
    if not 0 <= c < k:
        raise InvalidInputError(f"control {control} is not one of the {k} learners")
    se = math.sqrt(k * (k + 1) / (6.0 * n))
    others = [j for j in range(k) if j != c]
    zs = {j: (r[j] - r[c]) / se for j in others}
    ps = {j: min(1.0, 2.0 * norm_sf(abs(zs[j]))) for j in others}
    steps: list[HolmStep] = []
    still_rejecting = True
    for i, j in enumerate(sorted(others, key=lambda j: (ps[j], j)), start=1):
        threshold = alpha / (k - i)
        still_rejecting = still_rejecting and ps[j] < threshold
        steps.append(
            HolmStep(
                learner=j,
                rank_difference=float(r[j] - r[c]),
                z=float(zs[j]),
                p=ps[j],
                threshold=threshold,
                rejected=still_rejecting,
            )
        )
    return steps


def nemenyi_groups(avg_ranks: Sequence[float] | NDArray[np.float64], cd: float) -> list[tuple[int, ...]]:
    """Maximal groups of learners whose average ranks lie closer than ``cd`` (no pair in a group
    differs significantly), as index tuples sorted by rank; groups of one are left out.
    These are the bars of a critical-difference diagram."""
    r = np.asarray(avg_ranks, dtype=np.float64)
    order = [int(j) for j in np.argsort(r, kind="stable")]
    groups: list[tuple[int, ...]] = []
    for a in range(len(order)):
        b = a
        while b + 1 < len(order) and r[order[b + 1]] - r[order[a]] < cd:
            b += 1
        group = tuple(order[a : b + 1])
        if len(group) > 1 and not any(set(group) <= set(g) for g in groups):
            groups.append(group)
    return groups


@dataclass(frozen=True)
class WilcoxonResult:
    """Wilcoxon's signed-rank test of two learners over ``n`` data sets."""

    n: int
    r_plus: float
    r_minus: float
    t: float
    z: float
    p_normal: float
    p_exact: float | None
    zero_differences: int = 0  # data sets where the two score alike (``n`` counts one fewer if odd)


def wilcoxon_signed_rank(
    a: ArrayLike, b: ArrayLike, *, tie_correction: bool = False, exact_up_to: int = 50
) -> WilcoxonResult:
    """Wilcoxon's signed-rank test on paired scores ``a`` and ``b`` (one pair per data set).

    As in Demšar (2006): d_i = a_i - b_i; the |d_i| are ranked (ties averaged); R+ sums the ranks
    of the positive differences and R- of the negative ones, and the ranks of zero differences
    are split evenly between the two (one zero is dropped first if there is an odd number of
    them). T = min(R+, R-); z = (T - N(N+1)/4) / sqrt(N(N+1)(2N+1)/24), optionally with the usual
    variance correction for tied ranks. ``p_exact`` counts the 2^N' sign patterns of the non-zero
    differences (None when more than ``exact_up_to`` data sets remain).
    """
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise InvalidInputError("the two learners need one score each per data set")
    if np.isnan(x).any() or np.isnan(y).any():
        raise InvalidInputError("scores hold NaN")
    d = np.round(x - y, SCORE_DECIMALS)
    zeros = np.flatnonzero(d == 0)
    if zeros.size % 2 == 1:
        d = np.delete(d, zeros[0])
    n = d.size
    if n == 0:
        raise InvalidInputError("the Wilcoxon test needs at least one data set")
    ranks = _average_rank_of_sorted(np.abs(d))
    zero_half = float(ranks[d == 0].sum()) / 2.0
    r_plus = float(ranks[d > 0].sum()) + zero_half
    r_minus = float(ranks[d < 0].sum()) + zero_half
    t = min(r_plus, r_minus)
    mean = n * (n + 1) / 4.0
    var = n * (n + 1) * (2 * n + 1) / 24.0
    if tie_correction:
        _, counts = np.unique(ranks, return_counts=True)
        var -= float(np.sum(counts**3 - counts)) / 48.0
    z = (t - mean) / math.sqrt(var) if var > 0 else 0.0
    p_normal = min(1.0, 2.0 * norm_sf(abs(z)))
    p_exact: float | None = None
    signed = ranks[d != 0]
    if n <= exact_up_to:
        pmf = signed_rank_sum_pmf([round(2 * v) for v in signed])
        total2 = int(round(2 * signed.sum()))
        s2 = np.arange(pmf.size)
        # min(R+, R-) for each possible doubled sum of positive ranks, zero ranks split as above
        t2 = np.minimum(s2, total2 - s2) + round(2 * zero_half)
        p_exact = min(1.0, float(pmf[t2 <= round(2 * t)].sum()))
    return WilcoxonResult(
        n=n, r_plus=r_plus, r_minus=r_minus, t=t, z=z, p_normal=p_normal, p_exact=p_exact, zero_differences=zeros.size
    )


@dataclass(frozen=True)
class CorrectedTTestResult:
    """Result of :func:`corrected_resampled_t_test` (differences are first minus second)."""

    n: int
    mean_difference: float
    t: float
    p_value: float
    ci_low: float
    ci_high: float

    @property
    def verdict(self) -> str:
        """``"better"``/``"worse"`` when the interval excludes 0 on that side, else ``"equal"``."""
        return "better" if self.ci_low > 0 else "worse" if self.ci_high < 0 else "equal"


def corrected_resampled_t_test(
    differences: ArrayLike, test_over_train: float, *, alpha: float = 0.05
) -> CorrectedTTestResult:
    """Two learners on one data set over J resampled folds: is their mean score difference 0?

    ``differences`` holds, per fold, the first learner's score minus the second's (both on the
    same training and test rows); ``test_over_train`` is n_test / n_train of a fold (1/9 for
    10-fold CV). Folds of repeated cross-validation share most of their training rows, so their
    differences are correlated and the paired t-test's variance s^2 / J is far too small;
    Nadeau & Bengio's correction uses (1/J + n_test/n_train) s^2, with J - 1 degrees of freedom.
    ``test_over_train=0`` gives the ordinary paired t-test. The interval is the two-sided
    (1 - alpha) interval of the mean difference.
    """
    _check_alpha(alpha)
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim != 1 or d.size < 2:
        raise InvalidInputError("the corrected t-test needs a difference per fold, for at least 2 folds")
    if not np.isfinite(d).all():
        raise InvalidInputError("the differences hold NaN or infinity")
    if not (math.isfinite(test_over_train) and test_over_train >= 0):
        raise InvalidInputError(f"test_over_train must be a finite ratio >= 0, got {test_over_train}")
    j = d.size
    mean = float(d.mean())
    se = math.sqrt((1.0 / j + test_over_train) * float(np.var(d, ddof=1)))
    if se == 0.0:
        # Every fold differs by the same amount: no spread to test against.
        t = 0.0 if mean == 0.0 else math.copysign(math.inf, mean)
        return CorrectedTTestResult(j, mean, t, 1.0 if mean == 0.0 else 0.0, mean, mean)
    t = mean / se
    half = t_ppf(1.0 - alpha / 2.0, j - 1) * se
    p_value = min(1.0, 2.0 * t_sf(abs(t), j - 1))
    return CorrectedTTestResult(j, mean, t, p_value, mean - half, mean + half)


def _check_alpha(alpha: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise InvalidInputError(f"the significance level alpha must lie in (0, 1), got {alpha}")


@dataclass(frozen=True)
class RatioInterval:
    """Result of :func:`ratio_of_means_interval`: the ratio of the means and its interval."""

    n: int
    ratio: float
    low: float
    high: float
    level: float


def ratio_of_means_interval(
    numerator: ArrayLike, denominator: ArrayLike, *, level: float = 0.95, n_resamples: int = 10_000, seed: int = 0
) -> RatioInterval:
    """mean(numerator) / mean(denominator) with a paired percentile-bootstrap interval.

    The two arrays hold one value per fold, measured on the same folds (e.g. a peer's and
    lrank's fit times): each resample draws folds with replacement and keeps the pairs
    together, so the interval reflects how much the ratio depends on which folds (and which
    moments of a noisy machine) were measured. It does not cover slow or fast spells that last
    a whole run. Deterministic for a given ``seed``.
    """
    num = np.asarray(numerator, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)
    if num.ndim != 1 or num.shape != den.shape or num.size < 2:
        raise InvalidInputError("the ratio interval needs two 1-d arrays of the same length, at least 2 folds")
    if not (np.isfinite(num).all() and np.isfinite(den).all()) or (num < 0).any() or (den <= 0).any():
        raise InvalidInputError("the ratio interval needs finite values, >= 0 above and > 0 below")
    if not 0.0 < level < 1.0:
        raise InvalidInputError(f"the confidence level must lie in (0, 1), got {level}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise InvalidInputError(f"n_resamples must be a positive int, got {n_resamples!r}")
    n = num.size
    picks = np.random.default_rng(seed).integers(0, n, size=(int(n_resamples), n))
    # Sums rather than means: the 1/n factors cancel in the ratio.
    ratios = num[picks].sum(axis=1) / den[picks].sum(axis=1)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(ratios, [tail, 1.0 - tail])
    return RatioInterval(n, float(num.mean() / den.mean()), float(low), float(high), level)
