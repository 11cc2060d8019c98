"""lrank.metrics on incomplete true rankings: measured on the labels the true ranking holds."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.mark.filterwarnings("ignore:every row of y leaves out one label")
def test_top_label_accuracy_of_incomplete_truths_counts_only_their_labels():
    """A label the true ranking leaves out is unknown: predicting it first scored 0 where
    Kendall's tau and the exact match scored 1 (edge-case audit)."""
    from lrank.metrics import exact_match, kendall_tau, top_label_accuracy

    y_true = np.array([[1, 2, 3, 0], [3, 1, 2, 0], [2, 1, 0, 0]])
    y_pred = np.array([[2, 3, 4, 1], [4, 2, 3, 1], [2, 3, 1, 4]])
    assert kendall_tau(y_true[:2], y_pred[:2]) == 1.0 and exact_match(y_true[:2], y_pred[:2]) == 1.0
    assert top_label_accuracy(y_true[:2], y_pred[:2]) == 1.0
    assert top_label_accuracy(y_true[2:], y_pred[2:]) == 0.0  # label 0 before label 1: wrong


def test_a_truth_of_one_label_is_left_out_of_the_raw_footrule_as_of_every_measure():
    """Its raw footrule was 0, a perfect row in the mean (footrule 1.0 where the one comparable
    row scores 2), while the normalised footrule and tau left it out (a numerical audit)."""
    from lrank.evaluation.measures import measure_predictions
    from lrank.metrics import footrule

    y_true = np.array([[1, 2, 0], [0, 1, 0]])
    y_pred = np.array([[2, 1, 3], [1, 2, 3]])
    assert footrule(y_true, y_pred, normalized=False) == 2.0
    assert footrule(y_true, y_pred) == 1.0
    assert measure_predictions(y_true, y_pred)[0]["footrule"] == 2.0


def test_predictions_as_text_are_measured_as_the_rank_matrix_they_write():
    """predict_strings' output was refused as 'not a 2-D rank matrix' though the truth may be
    text (a teaching-notebook audit)."""
    import lrank
    from lrank.datasets import load_iris
    from lrank.errors import InvalidInputError
    from lrank.metrics import kendall_tau, tau_x

    data = load_iris()
    model = lrank.LabelRankingTree(max_depth=2).fit(data)
    x = data.feature_matrix()
    expected = kendall_tau(data.rankings, model.predict(x))
    assert kendall_tau(data.rankings, model.predict_strings(x), labels=model.labels_) == expected
    assert kendall_tau(data.ranking_strings(), model.predict_strings(x), labels=model.labels_) == expected
    assert tau_x(data.rankings, model.predict_strings(x), labels=model.labels_) == tau_x(
        data.rankings, model.predict(x)
    )
    with pytest.raises(InvalidInputError, match="y_pred holds rankings as text: pass labels="):
        kendall_tau(data.rankings, model.predict_strings(x))
