"""Ranking measures and cross-validation (the papers' protocol)."""

from lrank.evaluation.cross_validation import FoldPlan, cross_validate, fold_plan, fold_plans, stratified_folds
from lrank.evaluation.measures import MEASURES, Evaluation, measure_predictions

__all__ = [
    "MEASURES",
    "Evaluation",
    "FoldPlan",
    "cross_validate",
    "fold_plan",
    "fold_plans",
    "measure_predictions",
    "stratified_folds",
]
