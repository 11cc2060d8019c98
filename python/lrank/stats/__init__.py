"""Statistics for comparing learners over several data sets (Demšar 2006) and over the folds of
repeated cross-validation on one (Nadeau & Bengio 2003), and ratios of means with bootstrap
intervals, without scipy."""

from lrank.stats.comparisons import (
    CorrectedTTestResult,
    FriedmanResult,
    HolmStep,
    RatioInterval,
    WilcoxonResult,
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
