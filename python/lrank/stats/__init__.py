"""Statistics for comparing learners over several data sets (Demšar 2006) and over the folds of
repeated cross-validation on one (Nadeau & Bengio 2003), without scipy."""

from lrank.stats.comparisons import (
    CorrectedTTestResult,
    FriedmanResult,
    HolmStep,
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
    wilcoxon_signed_rank,
)

__all__ = [
    "CorrectedTTestResult",
    "FriedmanResult",
    "HolmStep",
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
    "wilcoxon_signed_rank",
]
