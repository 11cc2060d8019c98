"""Ranking measures and cross-validation (the papers' protocol)."""

from lrank.evaluation.cross_validation import (
    FoldPlan,
    FoldResult,
    cross_validate,
    evaluate_folds,
    fold_plan,
    fold_plans,
    stratified_folds,
)
from lrank.evaluation.measures import ALL_MEASURES, MEASURES, TIE_MEASURES, Evaluation, measure_predictions, tau_x

__all__ = [
    "ALL_MEASURES",
    "MEASURES",
    "TIE_MEASURES",
    "Evaluation",
    "FoldPlan",
    "FoldResult",
    "cross_validate",
    "evaluate_folds",
    "fold_plan",
    "fold_plans",
    "measure_predictions",
    "stratified_folds",
    "tau_x",
]
