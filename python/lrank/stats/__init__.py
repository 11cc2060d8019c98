"""Statistics for comparing learners over several data sets (Demšar 2006), without scipy."""

from lrank.stats.comparisons import (
    FriedmanResult,
    HolmStep,
    WilcoxonResult,
    average_ranks,
    bonferroni_dunn_q,
    critical_difference,
    friedman_test,
    holm_test,
    nemenyi_groups,
    nemenyi_q,
    rank_scores,
    wilcoxon_signed_rank,
)

__all__ = [
    "FriedmanResult",
    "HolmStep",
    "WilcoxonResult",
    "average_ranks",
    "bonferroni_dunn_q",
    "critical_difference",
    "friedman_test",
    "holm_test",
    "nemenyi_groups",
    "nemenyi_q",
    "rank_scores",
    "wilcoxon_signed_rank",
]
