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
from lrank.evaluation.measures import MEASURES, Evaluation, measure_predictions

__all__ = [
    "MEASURES",
    "Evaluation",
    "FoldPlan",
    "FoldResult",
    "cross_validate",
    "evaluate_folds",
    "fold_plan",
    "fold_plans",
    "measure_predictions",
    "stratified_folds",
]
