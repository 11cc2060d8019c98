"""Statistics of learner comparisons: published values (Demšar 2006; Zhou & Qiu 2018), hand-made
cases, and the distribution functions against scipy over grids (scipy is a test dependency only)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.stats as sps
from hypothesis import given, settings
from hypothesis import strategies as st
from lrank.errors import InvalidInputError
from lrank.stats import (
    average_ranks,
    bonferroni_dunn_q,
    corrected_resampled_t_test,
    critical_difference,
    friedman_test,
    holm_test,
    nemenyi_groups,
    nemenyi_q,
    rank_scores,
    ratio_of_means_interval,
    wilcoxon_signed_rank,
)
from lrank.stats.distributions import (
    chi2_sf,
    f_sf,
    norm_cdf,
    norm_ppf,
    norm_sf,
    regularized_beta,
    regularized_gamma_q,
    signed_rank_sum_pmf,
    studentized_range_cdf,
    studentized_range_ppf,
    t_ppf,
    t_sf,
)

# Demšar (2006), Tables 2 and 6: AUC of C4.5, C4.5+m, C4.5+cf and C4.5+m+cf on 14 data sets.
C45 = [0.763, 0.599, 0.954, 0.628, 0.882, 0.936, 0.661, 0.583, 0.775, 1.000, 0.940, 0.619, 0.972, 0.957]
C45_M = [0.768, 0.591, 0.971, 0.661, 0.888, 0.931, 0.668, 0.583, 0.838, 1.000, 0.962, 0.666, 0.981, 0.978]
C45_CF = [0.771, 0.590, 0.968, 0.654, 0.886, 0.916, 0.609, 0.563, 0.866, 1.000, 0.965, 0.614, 0.9751, 0.946]
C45_M_CF = [0.798, 0.569, 0.967, 0.657, 0.898, 0.931, 0.685, 0.625, 0.875, 1.000, 0.962, 0.669, 0.975, 0.970]


# -- published values --------------------------------------------------------------------------


def test_demsar_table_6_average_ranks_friedman_and_iman_davenport():
    ranks = average_ranks(np.array([C45, C45_M, C45_CF, C45_M_CF]).T)
    np.testing.assert_allclose(ranks, [3.143, 2.000, 2.893, 1.964], atol=5e-4)
    result = friedman_test([3.143, 2.000, 2.893, 1.964], 14)
    assert round(result.chi2, 2) == 9.28 and result.chi2_df == 3
    assert round(result.ff, 2) == 3.69 and result.ff_df == (3, 39)
    assert result.ff_p == pytest.approx(sps.f.sf(result.ff, 3, 39), rel=1e-9)
    assert result.chi2_p == pytest.approx(sps.chi2.sf(result.chi2, 3), rel=1e-9)
    assert result.ff_p < 0.05  # Demšar rejects the null hypothesis (critical F(3, 39) = 2.85)


def test_demsar_critical_values_for_four_learners():
    assert round(nemenyi_q(4, 0.05), 3) == 2.569
    assert round(bonferroni_dunn_q(4, 0.05), 3) == 2.394
    assert round(nemenyi_q(4, 0.10), 3) == 2.291  # his Table 5(a), alpha = 0.10
    # CD for his example: 2.569 sqrt(4 * 5 / (6 * 14)) = 1.25
    assert round(critical_difference(4, 14, 0.05), 2) == 1.25
    assert round(critical_difference(4, 14, 0.05, method="bonferroni-dunn"), 2) == 1.17


def test_demsar_wilcoxon_example_c45_against_c45_m():
    result = wilcoxon_signed_rank(C45_M, C45)
    assert (result.n, result.r_plus, result.r_minus, result.t) == (14, 93.0, 12.0, 12.0)
    # T = 12 <= 21, the exact critical value for N = 14 at alpha = 0.05: significant.
    assert result.p_exact is not None and result.p_exact < 0.05
    # Normal approximation of the same T (Demšar's formula, no tie correction).
    assert result.z == pytest.approx((12 - 14 * 15 / 4) / math.sqrt(14 * 15 * 29 / 24))
    assert round(result.z, 2) == -2.54
    # scipy's normal approximation with the same zero handling corrects the variance for ties.
    sp = sps.wilcoxon(C45_M, C45, zero_method="zsplit", correction=False, method="approx")
    assert sp.statistic == 12.0
    corrected = wilcoxon_signed_rank(C45_M, C45, tie_correction=True)
    assert corrected.p_normal == pytest.approx(sp.pvalue, rel=1e-9)


def test_demsar_holm_example_against_c45_m_cf():
    steps = holm_test([3.143, 2.000, 2.893, 1.964], 14, alpha=0.05)
    assert [s.learner for s in steps] == [0, 2, 1]  # C4.5, C4.5+cf, C4.5+m by p-value
    assert [round(s.z, 3) for s in steps] == [2.416, 1.904, 0.074]
    assert [round(s.threshold, 4) for s in steps] == [0.0167, 0.025, 0.05]
    assert [s.rejected for s in steps] == [True, False, False]
    assert steps[0].p == pytest.approx(2 * sps.norm.sf(steps[0].z), rel=1e-12)


def test_zhou_qiu_bonferroni_dunn_cd_for_seven_learners_on_sixteen_sets():
    assert round(bonferroni_dunn_q(7, 0.05), 3) == 2.638
    assert round(critical_difference(7, 16, q=2.638), 2) == 2.01  # the published CD, from the rounded q
    cd = critical_difference(7, 16, 0.05, method="bonferroni-dunn")
    assert cd == pytest.approx(2.01, abs=0.006)  # unrounded q = 2.63826 gives 2.0150


def test_zhou_qiu_iman_davenport_statistic():
    result = friedman_test([4.25, 3.19, 3.97, 4.47, 5.41, 3.97, 2.75], 16)
    assert round(result.ff, 2) == 2.93 and result.ff_df == (6, 90)


def test_twelve_learners_on_fifteen_sets_published_q_and_standard_values():
    assert round(critical_difference(12, 15, q=2.871), 2) == 3.78
    assert round(bonferroni_dunn_q(12, 0.05), 3) == 2.838
    assert round(nemenyi_q(12, 0.05), 3) == 3.268


@pytest.mark.parametrize(
    ("k", "q05", "q10"),
    # Demšar (2006), Table 5(a): Nemenyi critical values for 2..10 classifiers.
    [
        (2, 1.960, 1.645),
        (3, 2.343, 2.052),
        (4, 2.569, 2.291),
        (5, 2.728, 2.459),
        (6, 2.850, 2.589),
        (7, 2.949, 2.693),
        (8, 3.031, 2.780),
        (9, 3.102, 2.855),
        (10, 3.164, 2.920),
    ],
)
def test_nemenyi_table(k, q05, q10):
    # the table's last digit is not always rounded (k = 3: 3.3145 / sqrt 2 = 2.3437 is printed 2.343)
    assert abs(nemenyi_q(k, 0.05) - q05) <= 0.0011 and abs(nemenyi_q(k, 0.10) - q10) <= 0.0011


@pytest.mark.parametrize(
    ("k", "q05", "q10"),
    # Demšar (2006), Table 5(b): Bonferroni-Dunn critical values for 2..10 classifiers.
    # For k = 9 and alpha = 0.05 the table prints 2.724, but z(1 - 0.05/16) = 2.734 (a misprint:
    # the quantile must lie between the neighbours' 2.690 and 2.773 either way).
    [
        (2, 1.960, 1.645),
        (3, 2.241, 1.960),
        (4, 2.394, 2.128),
        (5, 2.498, 2.241),
        (6, 2.576, 2.326),
        (7, 2.638, 2.394),
        (8, 2.690, 2.450),
        (9, 2.734, 2.498),
        (10, 2.773, 2.539),
    ],
)
def test_bonferroni_dunn_table(k, q05, q10):
    assert abs(bonferroni_dunn_q(k, 0.05) - q05) <= 0.0015 and abs(bonferroni_dunn_q(k, 0.10) - q10) <= 0.0015


# -- ranking and hand-made cases -----------------------------------------------------------------


def test_ranks_with_ties_by_hand():
    scores = [
        [0.9, 0.8, 0.8, 0.7],  # 1, 2.5, 2.5, 4
        [0.5, 0.5, 0.5, 0.5],  # all tied: 2.5 each
        [0.1, 0.3, 0.2, 0.3],
    ]  # 4, 1.5, 3, 1.5
    np.testing.assert_array_equal(rank_scores(scores), [[1, 2.5, 2.5, 4], [2.5] * 4, [4, 1.5, 3, 1.5]])
    np.testing.assert_array_equal(rank_scores(scores, higher_is_better=False)[0], [4, 2.5, 2.5, 1])
    np.testing.assert_allclose(average_ranks(scores), [7.5 / 3, 6.5 / 3, 8 / 3, 8 / 3])
    # float noise below 1e-12 is a tie, not a win
    assert rank_scores([[0.3, 0.1 + 0.2]]).tolist() == [[1.5, 1.5]]
    with pytest.raises(InvalidInputError, match="NaN"):
        rank_scores([[0.1, float("nan")]])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 4), min_size=5, max_size=5), min_size=1, max_size=8))
def test_rank_rows_agree_with_scipy_and_sum_to_k_k_plus_1_over_2(rows):
    scores = np.array(rows, dtype=float)
    ranks = rank_scores(scores)
    np.testing.assert_allclose(ranks, [sps.rankdata(-r) for r in scores])
    np.testing.assert_allclose(ranks.sum(axis=1), 15.0)


def test_friedman_of_identical_rankings_is_infinite_f_and_of_equal_ranks_zero():
    perfect = friedman_test([1.0, 2.0, 3.0], 10)
    assert perfect.ff == math.inf and perfect.ff_p == pytest.approx(6.0**-9) and perfect.chi2 == pytest.approx(20.0)
    flat = friedman_test([2.0, 2.0, 2.0], 10)
    assert flat.chi2 == 0.0 and flat.chi2_p == 1.0 and flat.ff == 0.0 and flat.ff_p == 1.0


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 6), st.integers(2, 12), st.integers(0, 10_000))
def test_friedman_chi2_equals_scipy_on_tie_free_scores(k, n, seed):
    scores = np.random.default_rng(seed).random((n, k))
    result = friedman_test(average_ranks(scores), n)
    sp = sps.friedmanchisquare(*scores.T) if k >= 3 else None
    if sp is not None:
        assert result.chi2 == pytest.approx(sp.statistic, rel=1e-9, abs=1e-12)
        assert result.chi2_p == pytest.approx(sp.pvalue, rel=1e-7, abs=1e-14)


def test_holm_stops_at_the_first_retained_hypothesis():
    # ranks made so that p-values are tiny, large, tiny: the third is retained after the second
    steps = holm_test([1.0, 4.0, 1.5, 3.9], 20, alpha=0.05)
    assert [s.rejected for s in steps] == [True, True, False]
    assert all(s.learner != 0 for s in steps)
    controlled = holm_test([1.0, 4.0, 1.5, 3.9], 20, control=2)
    assert {s.learner for s in controlled} == {0, 1, 3}
    with pytest.raises(InvalidInputError, match="control 7"):
        holm_test([1.0, 2.0], 5, control=7)


def test_nemenyi_groups_are_maximal_cliques_by_hand():
    ranks = [1.0, 1.5, 2.4, 3.0, 4.5]
    assert nemenyi_groups(ranks, 1.0) == [(0, 1), (1, 2), (2, 3)]
    assert nemenyi_groups(ranks, 1.45) == [(0, 1, 2), (2, 3)]
    assert nemenyi_groups(ranks, 0.1) == []
    assert nemenyi_groups(ranks, 10.0) == [(0, 1, 2, 3, 4)]


def test_wilcoxon_by_hand_with_ties_and_an_odd_number_of_zeros():
    a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    b = [1.0, 2.5, 2.0, 4.0, 3.0, 6.0]  # d = 0, -0.5, 1, 0, 2, 0: three zeros, one is dropped
    result = wilcoxon_signed_rank(a, b)
    # remaining |d|: 0, 0.5, 1, 0, 2 -> ranks 1.5, 3, 4, 1.5, 5; zeros give 1.5 to each side
    assert result.n == 5 and result.zero_differences == 3
    assert (result.r_plus, result.r_minus) == (4 + 5 + 1.5, 3 + 1.5)
    assert result.t == 4.5


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-5, 5).filter(lambda v: v != 0), min_size=1, max_size=10))
def test_exact_wilcoxon_p_equals_enumeration_of_sign_patterns(diffs):
    d = np.array(diffs, dtype=float)
    result = wilcoxon_signed_rank(d, np.zeros_like(d))
    ranks = sps.rankdata(np.abs(d))
    hits = 0
    for signs in itertools.product([1, -1], repeat=d.size):
        plus = sum(r for r, s in zip(ranks, signs) if s > 0)
        hits += min(plus, ranks.sum() - plus) <= result.t + 1e-9
    assert result.p_exact == pytest.approx(hits / 2**d.size, rel=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(5, 30))
def test_exact_wilcoxon_equals_scipy_without_ties(seed, n):
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    b = rng.random(n)
    result = wilcoxon_signed_rank(a, b)
    assert result.p_exact == pytest.approx(sps.wilcoxon(a, b, method="exact").pvalue, rel=1e-9)
    assert result.p_normal == pytest.approx(sps.wilcoxon(a, b, method="approx", correction=False).pvalue, rel=1e-9)
    assert result.t == sps.wilcoxon(a, b).statistic


def test_bad_arguments_are_refused():
    with pytest.raises(InvalidInputError, match="at least two data sets"):
        friedman_test([1.0, 2.0], 1)
    with pytest.raises(InvalidInputError, match="alpha"):
        nemenyi_q(4, 1.5)
    with pytest.raises(InvalidInputError, match="unknown post-hoc method"):
        critical_difference(4, 10, method="tukey")
    with pytest.raises(InvalidInputError, match="one score each"):
        wilcoxon_signed_rank([1.0], [1.0, 2.0])


# -- distribution functions against scipy ------------------------------------------------------


def test_normal_functions_against_scipy():
    for x in np.linspace(-12, 12, 97):
        assert norm_cdf(x) == pytest.approx(sps.norm.cdf(x), rel=1e-12, abs=1e-300)
        assert norm_sf(x) == pytest.approx(sps.norm.sf(x), rel=1e-12, abs=1e-300)
    for p in [
        1e-300,
        1e-100,
        1e-20,
        1e-10,
        1e-5,
        0.001,
        0.01,
        0.025,
        0.1,
        0.3,
        0.5,
        0.7,
        0.9,
        0.975,
        0.999,
        1 - 1e-10,
        0.999999,
    ]:
        assert norm_ppf(p) == pytest.approx(sps.norm.ppf(p), rel=1e-12, abs=1e-14)
    assert norm_ppf(0.0) == -math.inf and norm_ppf(1.0) == math.inf


@settings(max_examples=200, deadline=None)
@given(st.floats(1e-6, 1 - 1e-6))
def test_norm_ppf_inverts_norm_cdf(p):
    assert norm_cdf(norm_ppf(p)) == pytest.approx(p, rel=1e-11)


def test_chi2_and_f_survival_against_scipy_over_a_grid():
    for df in [1, 2, 3, 5, 6, 11, 30, 100]:
        for x in [0.0, 0.01, 0.5, 1.0, 2.0, 5.0, 9.28, 15.7, 40.0, 150.0, 400.0]:
            assert chi2_sf(x, df) == pytest.approx(sps.chi2.sf(x, df), rel=1e-9, abs=1e-300)
    for d1, d2 in [(1, 1), (1, 10), (3, 39), (6, 90), (11, 154), (2, 2), (10, 3), (40, 500)]:
        for x in [0.0, 0.05, 0.5, 1.0, 2.93, 3.69, 10.0, 100.0, 1e4]:
            assert f_sf(x, d1, d2) == pytest.approx(sps.f.sf(x, d1, d2), rel=1e-9, abs=1e-300)
    assert f_sf(math.inf, 3, 4) == 0.0


@settings(max_examples=150, deadline=None)
@given(st.floats(0.05, 200.0), st.floats(0.0, 400.0), st.floats(0.01, 0.99), st.floats(0.05, 50.0))
def test_incomplete_gamma_and_beta_against_scipy(a, x, t, b):
    import scipy.special as spc

    assert regularized_gamma_q(a, x) == pytest.approx(spc.gammaincc(a, x), rel=1e-8, abs=1e-280)
    assert regularized_beta(t, a / 4 + 0.05, b) == pytest.approx(spc.betainc(a / 4 + 0.05, b, t), rel=1e-8, abs=1e-280)


@pytest.mark.parametrize("k", [2, 3, 4, 7, 10, 12, 20])
def test_studentized_range_against_scipy(k):
    for q in [0.2, 1.0, 2.0, 3.0, 3.633, 4.5, 6.0, 8.0]:
        assert studentized_range_cdf(q, k) == pytest.approx(sps.studentized_range.cdf(q, k, np.inf), abs=1e-9)
    for p in [0.5, 0.9, 0.95, 0.99]:
        assert studentized_range_ppf(p, k) == pytest.approx(sps.studentized_range.ppf(p, k, np.inf), rel=1e-7)


def test_signed_rank_pmf_by_hand():
    # ranks 1, 2 (doubled 2, 4): sums 0, 1, 2, 3 each with probability 1/4
    pmf = signed_rank_sum_pmf([2, 4])
    assert pmf.tolist() == [0.25, 0, 0.25, 0, 0.25, 0, 0.25]


def test_the_statistics_need_no_scipy_at_run_time():
    import subprocess
    import sys

    code = "import sys, lrank.stats; lrank.stats.nemenyi_q(5); assert 'scipy' not in sys.modules, 'scipy imported'"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_student_t_against_scipy_over_a_grid():
    for df in [1, 2, 3, 9, 49, 200, 5000]:
        for x in [-40.0, -3.0, -1.0, 0.0, 0.3, 1.0, 2.01, 4.0, 12.0, 300.0]:
            assert t_sf(x, df) == pytest.approx(sps.t.sf(x, df), rel=1e-9, abs=1e-300)
        for p in [1e-8, 0.001, 0.025, 0.3, 0.5, 0.8, 0.975, 0.995, 1 - 1e-8]:
            assert t_ppf(p, df) == pytest.approx(sps.t.ppf(p, df), rel=1e-9, abs=1e-12)
    assert t_ppf(0.0, 4) == -math.inf and t_ppf(1.0, 4) == math.inf
    assert t_sf(math.inf, 4) == 0.0 and t_sf(-math.inf, 4) == 1.0


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 60), st.integers(0, 2**32 - 1))
def test_corrected_t_test_without_correction_is_the_paired_t_test(n, seed):
    d = np.random.default_rng(seed).normal(0.01, 0.02, size=n)
    res = corrected_resampled_t_test(d, 0.0)
    ref = sps.ttest_1samp(d, 0.0)
    assert res.t == pytest.approx(ref.statistic, rel=1e-10)
    assert res.p_value == pytest.approx(ref.pvalue, rel=1e-8, abs=1e-300)
    low, high = ref.confidence_interval(0.95)
    assert (res.ci_low, res.ci_high) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))


def test_corrected_t_test_widens_the_interval_for_overlapping_training_sets():
    d = np.array([0.03, 0.02, -0.02, 0.015, -0.01, 0.012, 0.008, 0.02, -0.012, 0.025] * 5)
    naive = corrected_resampled_t_test(d, 0.0)
    corrected = corrected_resampled_t_test(d, 1 / 9)
    # (1/J + 1/9) / (1/J) = 1 + 50/9: the standard error grows by its square root.
    factor = math.sqrt(1 + 50 / 9)
    assert corrected.t == pytest.approx(naive.t / factor, rel=1e-12)
    assert corrected.ci_high - corrected.ci_low == pytest.approx((naive.ci_high - naive.ci_low) * factor, rel=1e-10)
    assert naive.verdict == "better" and corrected.verdict == "equal" and corrected.p_value > 0.05
    assert corrected_resampled_t_test(-d, 0.0).verdict == "worse"


def test_corrected_t_test_degenerate_and_bad_input():
    same = corrected_resampled_t_test([0.01] * 5, 1 / 9)
    assert (same.ci_low, same.ci_high, same.p_value, same.verdict) == (0.01, 0.01, 0.0, "better")
    zero = corrected_resampled_t_test([0.0] * 5, 1 / 9)
    assert (zero.t, zero.p_value, zero.verdict) == (0.0, 1.0, "equal")
    with pytest.raises(InvalidInputError, match="at least 2 folds"):
        corrected_resampled_t_test([0.1], 1 / 9)
    with pytest.raises(InvalidInputError, match="NaN"):
        corrected_resampled_t_test([0.1, float("nan")], 1 / 9)
    with pytest.raises(InvalidInputError, match="test_over_train"):
        corrected_resampled_t_test([0.1, 0.2], -1.0)
    with pytest.raises(InvalidInputError, match="alpha"):
        corrected_resampled_t_test([0.1, 0.2], 0.1, alpha=1.5)


def test_ratio_interval_matches_the_exact_bootstrap_distribution():
    # Four folds have 4^4 equally likely resamples: their ratios are the exact bootstrap
    # distribution, whose quantiles the Monte Carlo interval must approach.
    peer = np.array([40.0, 52.0, 37.0, 61.0])
    mine = np.array([4.1, 4.9, 3.2, 6.6])
    exact = np.array([peer[list(p)].sum() / mine[list(p)].sum() for p in itertools.product(range(4), repeat=4)])
    res = ratio_of_means_interval(peer, mine, level=0.9, n_resamples=200_000, seed=3)
    assert res.ratio == pytest.approx(peer.mean() / mine.mean(), rel=1e-15)
    assert (res.n, res.level) == (4, 0.9)
    # The exact distribution is discrete: the interval ends must lie between its neighbouring
    # quantiles (0.5% either side of the target, far more than the Monte Carlo error).
    assert np.quantile(exact, 0.045) <= res.low <= np.quantile(exact, 0.055)
    assert np.quantile(exact, 0.945) <= res.high <= np.quantile(exact, 0.955)


@pytest.mark.parametrize("seed", [0, 1])
def test_ratio_interval_agrees_with_scipy_paired_percentile_bootstrap(seed):
    rng = np.random.default_rng(seed)
    mine = rng.uniform(3.0, 6.0, size=10)
    peer = 10.0 * mine * rng.lognormal(0.0, 0.15, size=10)
    res = ratio_of_means_interval(peer, mine, n_resamples=50_000, seed=seed)
    ref = sps.bootstrap(
        (peer, mine),
        lambda a, b: a.mean() / b.mean(),
        paired=True,
        vectorized=False,
        n_resamples=50_000,
        method="percentile",
        rng=np.random.default_rng(seed + 100),
    ).confidence_interval
    assert res.low == pytest.approx(ref.low, rel=0.01)
    assert res.high == pytest.approx(ref.high, rel=0.01)
    assert res.low < res.ratio < res.high


def test_ratio_interval_is_deterministic_inverts_and_collapses():
    peer, mine = [12.0, 15.0, 9.0, 14.0, 11.0], [1.0, 1.6, 0.8, 1.1, 1.3]
    a = ratio_of_means_interval(peer, mine, seed=7)
    assert a == ratio_of_means_interval(peer, mine, seed=7)
    # The seed matters (few resamples, so that the two draws' quantiles differ).
    assert ratio_of_means_interval(peer, mine, n_resamples=50, seed=7) != ratio_of_means_interval(
        peer, mine, n_resamples=50, seed=8
    )
    # The same resamples give the reciprocal ratios, so the interval inverts (up to the
    # interpolation between neighbouring resamples).
    b = ratio_of_means_interval(mine, peer, seed=7)
    assert (b.ratio, b.low, b.high) == (
        pytest.approx(1 / a.ratio),
        pytest.approx(1 / a.high, rel=1e-3),
        pytest.approx(1 / a.low, rel=1e-3),
    )
    # A constant ratio on every fold leaves nothing to resample.
    c = ratio_of_means_interval([10.0, 20.0, 30.0], [1.0, 2.0, 3.0])
    assert (c.ratio, c.low, c.high) == (pytest.approx(10.0), pytest.approx(10.0), pytest.approx(10.0))


def test_ratio_interval_refuses_bad_input():
    with pytest.raises(InvalidInputError, match="same length"):
        ratio_of_means_interval([1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(InvalidInputError, match="same length"):
        ratio_of_means_interval([1.0], [1.0])
    with pytest.raises(InvalidInputError, match="> 0 below"):
        ratio_of_means_interval([1.0, 2.0], [1.0, 0.0])
    with pytest.raises(InvalidInputError, match="finite"):
        ratio_of_means_interval([1.0, float("nan")], [1.0, 2.0])
    with pytest.raises(InvalidInputError, match="level"):
        ratio_of_means_interval([1.0, 2.0], [1.0, 2.0], level=1.0)
    with pytest.raises(InvalidInputError, match="n_resamples"):
        ratio_of_means_interval([1.0, 2.0], [1.0, 2.0], n_resamples=0)


@pytest.mark.parametrize(("k", "n"), [(2, 2), (2, 5), (3, 2), (3, 3), (4, 2)])
def test_identical_rankings_get_the_exact_p_of_every_permutation_of_ranks(k, n):
    """When all N data sets agree, F_F's p is the exact share of the (k!)^N equally likely rank
    assignments whose Friedman statistic is at least as large (brute force), not 0."""
    import itertools

    perms = list(itertools.permutations(range(1, k + 1)))
    stats = [friedman_test(np.mean(rows, axis=0), n).chi2 for rows in itertools.product(perms, repeat=n)]
    observed = friedman_test(np.arange(1.0, k + 1), n)
    exact = np.mean(np.array(stats) >= observed.chi2 - 1e-9)
    assert observed.ff == math.inf and observed.ff_p == pytest.approx(exact, rel=1e-12)
