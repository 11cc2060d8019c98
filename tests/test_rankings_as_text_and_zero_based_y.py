"""``y`` as rankings written as text ("b>a>c", ties "a>b=c"), and the warning for 0-based
positions (argsort's), which lrank would otherwise read as one missing label per row."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from lrank import InstanceBasedLabelRanker, LabelRankingTree, PartialLabelRankingTree
from lrank.errors import InvalidInputError
from lrank.metrics import footrule, get_scorer, kendall_tau
from lrank.model_selection import StratifiedRankingKFold
from lrank.ranking_notation import format_rank_rows
from lrank.rankings import rank_matrix_from_strings
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

TEXTS = ["a>b>c", "b>a>c", "a>c>b", "c>b>a", "a>b>c", "b>c>a", "c>a>b", "a>c"]


def problem():
    rng = np.random.default_rng(3)
    return rng.random((len(TEXTS), 3))


def test_text_rankings_read_as_the_rank_matrix_they_write():
    rng = np.random.default_rng(0)
    labels = ["x", "y", "z", "w", "a>b", "c d"]
    m = len(labels)
    rows = np.zeros((300, m), dtype=np.int32)
    for row in rows:
        present = rng.permutation(m)[: rng.integers(1, m + 1)]
        buckets = np.sort(rng.integers(1, len(present) + 1, size=len(present)))
        row[present] = np.searchsorted(np.unique(buckets), buckets) + 1  # positions dense, ties allowed
    texts = format_rank_rows(rows, labels, quoted=True)
    matrix, names = rank_matrix_from_strings(texts, labels)
    assert names == labels
    np.testing.assert_array_equal(matrix, rows)


def test_labels_are_sorted_names_unless_given():
    matrix, names = rank_matrix_from_strings(["b>a=c", "c>b"])
    assert names == ["a", "b", "c"] and matrix.tolist() == [[2, 1, 2], [0, 2, 1]]
    matrix, names = rank_matrix_from_strings(["b>a=c"], ["c", "b", "a"])
    assert names == ["c", "b", "a"] and matrix.tolist() == [[2, 1, 2]]
    with pytest.raises(InvalidInputError, match=r"y\[1\]: undeclared label 'd'"):
        rank_matrix_from_strings(["a>b", "d>a"], ["a", "b"])
    with pytest.raises(InvalidInputError, match=r"y\[0\]: no label between"):
        rank_matrix_from_strings(["a>>b"])


@pytest.mark.parametrize("wrap", [list, tuple, np.array, pd.Series, pl.Series])
def test_an_estimator_fits_and_scores_text_rankings_as_their_matrix(wrap):
    X = problem()
    matrix, names = rank_matrix_from_strings(TEXTS)
    by_text = LabelRankingTree().fit(X, wrap(TEXTS))
    by_matrix = LabelRankingTree().fit(X, matrix, labels=names)
    assert by_text.labels_ == ["a", "b", "c"]
    np.testing.assert_array_equal(by_text.predict(X), by_matrix.predict(X))
    assert by_text.score(X, wrap(TEXTS)) == by_matrix.score(X, matrix)
    assert kendall_tau(TEXTS, by_text.predict(X), labels=by_text.labels_) == by_matrix.score(X, matrix)


def test_text_follows_the_labels_given_and_scoring_reads_it_by_the_fitted_labels():
    X = problem()
    reversed_ = InstanceBasedLabelRanker(n_neighbors=3).fit(X, TEXTS, labels=["c", "b", "a"])
    sorted_ = InstanceBasedLabelRanker(n_neighbors=3).fit(X, TEXTS)
    assert reversed_.labels_ == ["c", "b", "a"] and sorted_.labels_ == ["a", "b", "c"]
    np.testing.assert_array_equal(reversed_.predict(X), sorted_.predict(X)[:, ::-1])
    assert reversed_.predict_strings(X) == sorted_.predict_strings(X)
    assert reversed_.score(X, TEXTS) == sorted_.score(X, TEXTS)
    with pytest.raises(InvalidInputError, match="undeclared label 'd'"):
        sorted_.score(X, ["d>a"] * len(TEXTS))


def test_tied_text_fits_a_partial_label_ranking_learner():
    X = problem()
    texts = ["a>b=c", "b=c>a", "a=b>c", "c>a=b", "a>b=c", "b>c>a", "c>a>b", "a>b=c"]
    est = PartialLabelRankingTree().fit(X, texts)
    matrix, _ = rank_matrix_from_strings(texts)
    assert est.score(X, texts) == PartialLabelRankingTree().fit(X, matrix).score(X, matrix)


def test_zero_based_positions_get_a_warning_and_one_based_do_not():
    X = problem()
    one_based, _ = rank_matrix_from_strings([*TEXTS[:-1], "a>c>b"])
    zero_based = one_based.astype(np.int64) - 1
    with pytest.warns(UserWarning, match="if y holds 0-based positions, add 1") as caught:
        LabelRankingTree().fit(X, zero_based)
    with pytest.warns(UserWarning, match="0-based") as measured:
        kendall_tau(zero_based.tolist(), one_based)
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    with pytest.warns(UserWarning, match="0-based") as piped:
        make_pipeline(StandardScaler(), LabelRankingTree()).fit(X, zero_based)
    # Each warning points at the line here that made it, not into lrank or scikit-learn.
    for record in (*caught, *measured, *piped):
        assert record.filename == __file__, record.filename
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        LabelRankingTree().fit(X, one_based.astype(np.int64))
        # Rows that miss a label each, but not ranked 1..m-1 all: ordinary incomplete data.
        incomplete = one_based.astype(np.int64)
        incomplete[0] = [1, 2, 3]
        incomplete[1:, 0] = np.where(incomplete[1:, 0] == 3, 0, incomplete[1:, 0])
        LabelRankingTree().fit(X, incomplete)


def test_measures_and_scorers_read_text_by_the_predictions_labels():
    X = problem()
    est = InstanceBasedLabelRanker(n_neighbors=3).fit(X, TEXTS, labels=["c", "b", "a"])
    # Sorted names would not be the prediction's columns here: text needs the labels.
    with pytest.raises(InvalidInputError, match="pass labels="):
        kendall_tau(TEXTS, est.predict(X))
    by_labels = kendall_tau(TEXTS, est.predict(X), labels=est.labels_)
    assert by_labels == est.score(X, TEXTS)
    scorer = get_scorer("kendall_tau")
    assert scorer(est, X, TEXTS) == by_labels
    piped = make_pipeline(StandardScaler(), InstanceBasedLabelRanker(n_neighbors=3))
    piped.fit(X, TEXTS, instancebasedlabelranker__labels=["c", "b", "a"])
    assert scorer(piped, X, TEXTS) == kendall_tau(TEXTS, piped.predict(X), labels=["c", "b", "a"])
    assert get_scorer("footrule")(est, X, TEXTS) == -footrule(TEXTS, est.predict(X), labels=est.labels_)


def test_scorers_find_the_labels_inside_searches_and_wrappers():
    """Nested cross-validation (a search scored by cross_val_score) with text rankings: the
    scorer looked for labels_ only on the estimator and a pipeline's last step, and raised
    'pass labels=', which a scorer's user cannot (scikit-learn audit)."""
    from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

    texts = TEXTS * 4
    X = np.vstack([problem()] * 4) + np.random.default_rng(0).normal(0, 0.1, (len(texts), problem().shape[1]))
    numeric = np.array([[t.split(">").index(c) + 1 if c in t else 0 for c in "abc"] for t in texts])
    scorer = get_scorer("kendall_tau")
    search = GridSearchCV(
        make_pipeline(StandardScaler(), LabelRankingTree(random_state=0)),
        {"labelrankingtree__max_depth": [1, 3]},
        scoring=scorer,
        cv=3,
    )
    folds = KFold(3, shuffle=True, random_state=0)
    by_text = cross_val_score(search, X, texts, scoring=scorer, cv=folds)
    np.testing.assert_array_equal(by_text, cross_val_score(search, X, numeric, scoring=scorer, cv=folds))


def test_scikit_learns_search_and_cross_validation_take_text_rankings():
    X = np.random.default_rng(5).random((40, 3))
    texts = [TEXTS[i % len(TEXTS)] for i in range(40)]
    search = GridSearchCV(
        LabelRankingTree(), {"max_depth": [1, 2]}, scoring=get_scorer("kendall_tau"), cv=StratifiedRankingKFold(4)
    ).fit(X, texts)
    assert search.best_params_["max_depth"] in (1, 2) and np.isfinite(search.best_score_)
    pipeline = make_pipeline(StandardScaler(), LabelRankingTree(max_depth=2))
    scores = cross_val_score(pipeline, X, texts, cv=StratifiedRankingKFold(4), scoring=get_scorer("kendall_tau"))
    matrix, _ = rank_matrix_from_strings(texts)
    same = cross_val_score(pipeline, X, matrix, cv=StratifiedRankingKFold(4), scoring=get_scorer("kendall_tau"))
    np.testing.assert_array_equal(scores, same)


def test_text_labels_in_natural_order_and_blanks_around_names_ignored():
    matrix, names = rank_matrix_from_strings(["L10 > L2>L1", "L2>L10"])
    assert names == ["L1", "L2", "L10"] and matrix.tolist() == [[3, 2, 1], [0, 1, 2]]


@pytest.mark.parametrize(
    ("y", "message"),
    [
        (["a>b", None], r"y\[1\] is not a ranking written as text: None"),
        (["a>b", 3], r"y\[1\] is not a ranking written as text: 3"),
        ("a>b>c", "not one string"),
        (["setosa", "versicolor", "setosa"], "holds single labels"),
    ],
)
def test_items_that_are_no_rankings_are_named(y, message):
    with pytest.raises(InvalidInputError, match=message):
        rank_matrix_from_strings(y)
    if not isinstance(y, str):
        with pytest.raises(InvalidInputError, match=message):
            LabelRankingTree().fit(np.zeros((len(y), 1)), y)


def test_text_scores_only_a_model_that_knows_its_labels():
    X = problem()
    matrix, _ = rank_matrix_from_strings(TEXTS, ["c", "b", "a"])
    unnamed = LabelRankingTree(random_state=0).fit(X, matrix)
    with pytest.raises(InvalidInputError, match="fitted on a rank matrix without label names"):
        unnamed.score(X, TEXTS)
    named = LabelRankingTree(random_state=0).fit(X, matrix, labels=["c", "b", "a"])
    assert named.score(X, TEXTS) == unnamed.score(X, matrix)
    with pytest.raises(InvalidInputError, match=r"the model knows \['c', 'b', 'a'\]"):
        named.score(X, ["d>a"] * len(TEXTS))
    with pytest.raises(InvalidInputError, match=r"the model knows \['c', 'b', 'a'\]"):
        get_scorer("kendall_tau")(named, X, ["d>a"] * len(TEXTS))


def test_nullable_integer_frames_and_nan_mark_missing_labels_without_a_zero_based_warning():
    from lrank.estimators._inputs import rank_targets

    expected = [[1, 2, 3], [2, 1, 3], [0, 1, 2]]
    nullable = pd.DataFrame({"a": [1, 2, pd.NA], "b": [2, 1, 1], "c": [3, 3, 2]}, dtype="Int64")
    arrow = nullable.astype("int64[pyarrow]")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for frame in (nullable, arrow):
            matrix, names = rank_targets(frame)
            assert matrix.tolist() == expected and names == ["a", "b", "c"]
        # Every row missing one label, spelt NaN as scikit-lr does: not a 0-based matrix.
        nan_marked = np.array([[1, 2, np.nan], [np.nan, 1, 2], [2, np.nan, 1]])
        assert rank_targets(nan_marked)[0].tolist() == [[1, 2, 0], [0, 1, 2], [2, 0, 1]]
    with pytest.warns(UserWarning, match="leaves out one label"):
        rank_targets(np.array([[1, 2, 0], [0, 1, 2], [2, 0, 1]]))
    words = pd.DataFrame({"a": ["x", "y"], "b": [1, 2]}).astype({"a": "string", "b": "Int64"})
    with pytest.raises(InvalidInputError, match="y must hold integer positions"):
        rank_targets(words)


@pytest.mark.parametrize(
    ("y", "hint"),
    [
        (pd.DataFrame({"ranking": ["a>b>c", "b>a>c"] * 10}), r"df\['ranking'\], not df\[\['ranking'\]\]"),
        ([["a", "b", "c"], ["b", "a", "c"]] * 10, "rows of label names, most preferred first"),
        ([[1.5, 1.5, 3.0], [1.0, 2.0, 3.0]] * 10, r"got 1.5: halves look like average ranks of ties"),
        ([[1.3, 2.0, 3.0], [1.0, 2.0, 3.0]] * 10, r"got 1.3$"),
    ],
)
def test_common_wrong_shapes_of_y_say_what_to_pass(y, hint):
    x = np.arange(60, dtype=float).reshape(20, 3)
    with pytest.raises(InvalidInputError, match=hint):
        LabelRankingTree().fit(x, y)


def shifted_back(source, tmp_path):
    """The file with every position raised by 1 (positions from 1)."""
    lines = source.read_text().splitlines()
    rows = [line.split(",") for line in lines[1:]]
    path = tmp_path / "one_based.csv"
    path.write_text("\n".join([lines[0], *(",".join([r[0], *(str(int(v) + 1) for v in r[1:])]) for r in rows)]) + "\n")
    return path


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_data_file_of_zero_based_positions_gets_a_warning_naming_it(tmp_path, suffix):
    # The CLI and read_dataset read such a file as rankings that each lack a label: tau .95 on
    # iris with no sign of the slip, where an array passed to fit was warned about.
    from lrank.data import read_dataset, write_dataset

    one_based, _ = rank_matrix_from_strings([*TEXTS[:-1], "a>c>b"])
    rows = "".join(f"{i / 10},{','.join(str(v - 1) for v in r)}\n" for i, r in enumerate(one_based))
    source = tmp_path / "zero.csv"
    source.write_text("x," + ",".join(f"L{k + 1}" for k in range(one_based.shape[1])) + "\n" + rows)
    path = source
    if suffix == ".parquet":
        path = tmp_path / "zero.parquet"
        pl.read_csv(source).write_parquet(path)
    with pytest.warns(UserWarning, match=rf"zero\{suffix}: every ranking leaves out one label .* 0-based"):
        read_dataset(path)
    # Rankings from 1 read without a word, incomplete ones too.
    fine = tmp_path / f"fine{suffix}"
    write_dataset(read_dataset(shifted_back(source, tmp_path)), fine)
    incomplete = tmp_path / "incomplete.csv"
    incomplete.write_text("x,L1,L2,L3\n0.1,1,2,0\n0.2,0,1,2\n0.3,2,1,3\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_dataset(fine)
        read_dataset(incomplete)
