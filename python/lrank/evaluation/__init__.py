"""Ranking measures and cross-validation (the papers' protocol)."""

from lrank.evaluation.cross_validation import cross_validate, stratified_folds
from lrank.evaluation.measures import MEASURES, Evaluation, measure_predictions

__all__ = ["MEASURES", "Evaluation", "cross_validate", "measure_predictions", "stratified_folds"]
