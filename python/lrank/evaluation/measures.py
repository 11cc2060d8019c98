"""Ranking measures of predicted against true rank matrices, aggregated over folds.

Ties: when a true ranking ties labels (partial label ranking), Kendall's tau_x (Emond & Mason
2002) is the measure to read (:data:`TIE_MEASURES`); it is computed always (it equals Kendall's
tau on rankings without ties) and reported whenever the truth has ties.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lrank import _core
from lrank.rankings import as_predictions, as_rank_matrix, has_ties

# name -> (display name, higher is better)
MEASURES: dict[str, tuple[str, bool]] = {
    "kendall_tau": ("Kendall's tau", True),
    "spearman_rho": ("Spearman correlation", True),
    "footrule": ("Spearman footrule distance (sum over labels)", False),
    # The footrule divided by its largest value for the row's labels: in [0, 1] whatever m, so
    # it compares across data sets (the raw one grows with the number of labels).
    "normalized_footrule": ("Spearman footrule (normalised)", False),
    "top_label_accuracy": ("Top-label accuracy", True),
    "exact_match": ("Exact-match rate", True),
}
# Reported (first) when the true rankings hold ties.
TIE_MEASURES: dict[str, tuple[str, bool]] = {"tau_x": ("Kendall's tau_x", True)}
ALL_MEASURES: dict[str, tuple[str, bool]] = {**TIE_MEASURES, **MEASURES}


def _nanmean(a: NDArray[np.float64]) -> float:
    return float(np.nanmean(a)) if np.isfinite(a).any() else float("nan")


PAIRWISE_TABLE_MAX_LABELS = _core.PAIRWISE_TABLE_MAX_LABELS
"""Past this many labels the pairwise tables are left out: m x m counts would outgrow the data
(4 rows of 10,000 labels made tables of gigabytes) and no one reads a table that wide."""


def measure_predictions(
    y_true: NDArray[np.int32], y_pred: NDArray[np.int32]
) -> tuple[dict[str, float], NDArray[np.uint64] | None, NDArray[np.uint64] | None]:
    """Mean of each measure over rows, and the pairwise (correct, incorrect) count matrices
    (None for more than :data:`PAIRWISE_TABLE_MAX_LABELS` labels).

    Rows are compared on the labels the true ranking contains; a row with fewer than two such
    labels does not count for the correlation measures. The means include ``tau_x``.
    """
    t, p = as_rank_matrix(y_true, name="Y_true"), as_predictions(y_pred, name="Y_pred")
    rows = _core.row_measures(t, p)
    means = {
        "kendall_tau": _nanmean(rows["kendall_tau"]),
        "spearman_rho": _nanmean(rows["spearman_rho"]),
        "footrule": _nanmean(rows["footrule"]),
        "normalized_footrule": _nanmean(rows["normalized_footrule"]),
        "top_label_accuracy": _nanmean(rows["top_label_correct"]),
        "exact_match": _nanmean(rows["exact_match"]),
        "tau_x": _nanmean(rows["tau_x"]),
    }
    if t.shape[1] > PAIRWISE_TABLE_MAX_LABELS:
        return means, None, None
    correct, incorrect = _core.pairwise_matrix(t, p)
    return means, correct, incorrect


def tau_x(y_true: ArrayLike, y_pred: ArrayLike, *, per_row: bool = False) -> Any:
    """Kendall's tau_x (Emond & Mason 2002) between true and predicted rank matrices (ties
    allowed): for ordered label pairs (u, v), a_uv = 1 if u is before or tied with v, else -1;
    tau_x = sum a_uv b_uv / (k (k - 1)) over the k labels both rankings hold. The mean over rows
    (rows with fewer than two common labels left out), or each row's value with ``per_row``."""
    t, p = as_rank_matrix(y_true, name="Y_true"), as_predictions(y_pred, name="Y_pred")
    rows = _core.row_measures(t, p)["tau_x"]
    return rows if per_row else _nanmean(rows)


@dataclass
class Evaluation:
    """Measures of one evaluation: one entry per fold (a single entry for a train/test split)."""

    name: str
    labels: list[str]
    folds: list[dict[str, float]] = field(default_factory=list)
    correct: NDArray[np.uint64] | None = None
    incorrect: NDArray[np.uint64] | None = None
    n_instances: int = 0
    # Whether some true ranking held ties: tau_x is then reported.
    ties: bool = False

    def add(self, y_true: NDArray[np.int32], y_pred: NDArray[np.int32]) -> dict[str, float]:
        means, correct, incorrect = measure_predictions(y_true, y_pred)
        self.ties = self.ties or has_ties(as_rank_matrix(y_true, name="Y_true"))
        self.folds.append(means)
        if correct is not None and incorrect is not None:
            self.correct = correct if self.correct is None else self.correct + correct
            self.incorrect = incorrect if self.incorrect is None else self.incorrect + incorrect
        self.n_instances += int(np.asarray(y_true).shape[0])
        return means

    def measures(self) -> dict[str, tuple[str, bool]]:
        """The measures reported: tau_x first when the truth has ties, then the others."""
        return ALL_MEASURES if self.ties else MEASURES

    def mean(self, measure: str) -> float:
        return _nanmean(np.array([f[measure] for f in self.folds], dtype=np.float64))

    def std(self, measure: str) -> float:
        """Sample standard deviation over folds (NaN for a single fold)."""
        vals = np.array([f[measure] for f in self.folds], dtype=np.float64)
        vals = vals[np.isfinite(vals)]
        return float(np.std(vals, ddof=1)) if vals.size > 1 else float("nan")

    def to_dict(self) -> dict[str, Any]:
        def num(v: float) -> float | None:
            return None if np.isnan(v) else round(v, 6)

        m = len(self.labels)
        if m > PAIRWISE_TABLE_MAX_LABELS:
            pairwise: dict[str, Any] = {
                "labels": self.labels,
                "omitted": f"{m} labels: the table is kept for at most {PAIRWISE_TABLE_MAX_LABELS}",
            }
        else:
            zeros = np.zeros((m, m), dtype=np.uint64)
            pairwise = {
                "labels": self.labels,
                "correct": (self.correct if self.correct is not None else zeros).tolist(),
                "incorrect": (self.incorrect if self.incorrect is not None else zeros).tolist(),
            }
        return {
            "name": self.name,
            "n_instances": self.n_instances,
            "n_folds": len(self.folds),
            "measures": {k: {"mean": num(self.mean(k)), "std": num(self.std(k))} for k in self.measures()},
            # Each fold's (each repeat's, in order) mean of each measure on its test rows.
            "folds": [{k: num(f[k]) for k in self.measures()} for f in self.folds],
            "pairwise": pairwise,
        }
