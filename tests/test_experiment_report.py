"""Report tables from a small hand-made store: ranks with ties, average ranks, wins, incomplete
data sets, statistics, and every output format."""

from __future__ import annotations

import csv
import io
import re
from datetime import datetime, timezone

import numpy as np
import polars as pl
import pytest
from lrank.errors import ExperimentError
from lrank.experiment.render import render
from lrank.experiment.report import build_tables, table_statistics
from lrank.experiment.store import COLUMNS, MEASURE_COLUMNS
from lrank.stats import friedman_test

# (data set, learner) -> Kendall tau of each of the 2 folds (1 repeat x 2 folds)
FOLDS = {
    ("a", "X"): [0.85, 0.95],
    ("a", "Y"): [0.75, 0.85],
    ("a", "Z"): [0.7, 0.9],
    ("b", "X"): [0.5, 0.5],
    ("b", "Y"): [0.6, 0.8],
    ("b", "Z"): [0.55, 0.65],
    ("c", "X"): [0.35, 0.45],
    ("c", "Y"): [0.3, 0.5],
    ("c", "Z"): [0.1, 0.1],
    ("d", "X"): [0.3],
    ("d", "Y"): [0.2, 0.4],
    ("d", "Z"): [0.1, 0.3],  # X lacks a fold on d
}
# ranks by hand: a 1, 2.5, 2.5 (0.8 = 0.8); b 3, 1, 2; c 1.5, 1.5, 3 (0.4 = 0.4 up to float noise)
RANKS = [[1, 2.5, 2.5], [3, 1, 2], [1.5, 1.5, 3]]
AVERAGE = [5.5 / 3, 5 / 3, 7.5 / 3]


def store_frame(folds=FOLDS, missing=(0.0,), measure="kendall_tau") -> pl.DataFrame:
    rows = []
    now = datetime(2024, 1, 1, tzinfo=timezone.utc)
    for p in missing:
        for (dataset, learner), values in folds.items():
            for k, v in enumerate(values):
                row = dict.fromkeys(COLUMNS)
                row.update(
                    dataset=dataset,
                    dataset_sha256="0" * 64,
                    n_instances=10,
                    n_labels=3,
                    learner=learner,
                    learner_name="LRRF",
                    learner_options="",
                    missing=p,
                    repeat=0,
                    fold=k,
                    n_train=5,
                    n_test=5,
                    fit_seconds=0.0,
                    predict_seconds=0.0,
                    seed=1,
                    folds=2,
                    repeats=1,
                    lrank_version="0",
                    run_id="r",
                    computed_at=now,
                )
                for m in MEASURE_COLUMNS:
                    row[m] = v if m == measure else 0.0
                rows.append(row)
    return pl.DataFrame(rows, schema=pl.Schema(COLUMNS))


def test_ranks_average_ranks_and_wins_by_hand():
    (t,) = build_tables(store_frame())
    assert t.datasets == ("a", "b", "c", "d") and t.learners == ("X", "Y", "Z")
    np.testing.assert_allclose(t.means[:3], [[0.9, 0.8, 0.8], [0.5, 0.7, 0.6], [0.4, 0.4, 0.1]])
    assert t.ranked.tolist() == [True, True, True, False]
    np.testing.assert_array_equal(t.ranks[:3], RANKS)
    assert np.isnan(t.ranks[3]).all()
    np.testing.assert_allclose(t.average_ranks, AVERAGE)
    assert t.wins.tolist() == [2, 2, 0]  # X: a and c (tied), Y: b and c (tied)
    assert t.counts[3].tolist() == [1, 2, 2]
    assert t.left_out() == ["d (X: 1 of 2 folds)"]


def test_lower_is_better_measures_rank_the_other_way():
    (t,) = build_tables(store_frame(measure="footrule"), measure="footrule")
    np.testing.assert_array_equal(t.ranks[1], [1, 3, 2])
    assert t.wins.tolist() == [1, 1, 2]  # a: Y, Z tied; b: X; c: Z


def test_selection_and_order_of_learners_data_sets_and_p():
    frame = store_frame(missing=(0.0, 0.3))
    tables = build_tables(frame, learners=["Z", "X"], datasets=["c", "a"], missing=[0.3])
    (t,) = tables
    assert (t.missing, t.learners, t.datasets) == (0.3, ("Z", "X"), ("c", "a"))
    np.testing.assert_array_equal(t.ranks, [[2, 1], [2, 1]])
    assert [x.missing for x in build_tables(frame)] == [0.0, 0.3]
    with pytest.raises(ExperimentError, match="no learner 'Q' in the store"):
        build_tables(frame, learners=["Q"])
    with pytest.raises(ExperimentError, match="no missing-label probability 0.5"):
        build_tables(frame, missing=[0.5])
    with pytest.raises(ExperimentError, match="unknown measure"):
        build_tables(frame, measure="accuracy")
    with pytest.raises(ExperimentError, match="no results"):
        build_tables(frame.head(0))


def test_statistics_use_the_ranked_data_sets_only():
    (t,) = build_tables(store_frame())
    s = table_statistics(t, alpha=0.05, pairs=[("X", "Y")])
    assert s.n == 3 and s.k == 3 and s.control == "Y"
    assert s.friedman == friedman_test(AVERAGE, 3)
    assert [lab for lab, _ in s.holm] == ["Z", "X"]
    ((a, b, w),) = s.wilcoxon
    assert (a, b, w.n) == ("X", "Y", 2)  # c is a tie (zero difference, one of an odd number: dropped)
    # |d| on a = 0.1 (rank 1, X better), on b = 0.2 (rank 2, Y better): R+ = 1, R- = 2
    assert (w.r_plus, w.r_minus) == (1.0, 2.0)
    two = build_tables(store_frame(), learners=["X", "Y"])[0]
    assert len(table_statistics(two).wilcoxon) == 1  # automatic for two learners
    one = build_tables(store_frame(), datasets=["a"])[0]
    assert "at least two data sets" in table_statistics(one)
    with pytest.raises(ExperimentError, match="no learner 'Q'"):
        table_statistics(t, control="Q")


def test_text_report():
    tables = build_tables(store_frame())
    text = render(tables, "text", stats=[table_statistics(t) for t in tables])
    lines = text.splitlines()
    assert lines[0] == "Kendall's tau at missing-label probability p = 0 (1 x 2-fold cross-validation, seed 1)"
    row = {ln.split()[0]: ln for ln in lines if ln[:2] in ("a ", "b ", "c ", "d ")}
    assert row["a"].split()[1:] == ["0.900", "(1)", "0.800", "(2.5)", "0.800", "(2.5)"]
    assert row["c"].split()[1:] == ["0.400", "(1.5)", "0.400", "(1.5)", "0.100", "(3)"]
    assert row["d"].split()[1:] == ["0.300", "[1/2]", "0.300", "0.200"]  # shown, not ranked
    assert any(ln.split() == ["average", "rank", "1.83", "1.67", "2.50"] for ln in lines)
    assert any(ln.split() == ["wins", "2", "2", "0"] for ln in lines)
    assert "Left out of ranks, average ranks, wins and statistics (1 of 4 data sets): d (X: 1 of 2 folds)." in text
    assert "Friedman: chi2_F =" in text and "Holm's step-down procedure against Y" in text
    # every table line has its columns aligned: the rule is as long as the header
    header = next(i for i, ln in enumerate(lines) if ln.startswith("data set"))
    assert len(lines[header + 1]) == len(lines[header]) and set(lines[header + 1]) == {"-"}


def _markdown_cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def test_markdown_report_is_a_valid_pipe_table():
    frame = store_frame().with_columns(pl.col("learner").replace({"X": "A|B_c*"}))
    tables = build_tables(frame)
    md = render(tables, "markdown", stats=[table_statistics(t) for t in tables])
    table_lines = [ln for ln in md.splitlines() if ln.startswith("| data set")]
    assert len(table_lines) == 1
    lines = md.splitlines()
    start = lines.index(table_lines[0])
    block = []
    for ln in lines[start:]:
        if not ln.startswith("|"):
            break
        block.append(ln)
    widths = {len(_markdown_cells(ln)) for ln in block}
    assert widths == {4}
    assert _markdown_cells(block[0]) == ["data set", r"A\|B\_c\*", "Y", "Z"]
    assert _markdown_cells(block[1]) == ["---", "---:", "---:", "---:"]
    assert _markdown_cells(block[2]) == ["a", "**0.900** (1)", "0.800 (2.5)", "0.800 (2.5)"]
    assert _markdown_cells(block[4]) == ["c", "**0.400** (1.5)", "**0.400** (1.5)", "0.100 (3)"]
    assert _markdown_cells(block[-2]) == ["*average rank*", "1.83", "1.67", "2.50"]
    assert _markdown_cells(block[-1]) == ["*wins*", "2", "2", "0"]
    assert md.startswith("### Kendall's tau at missing-label probability p = 0")
    assert "- Iman-Davenport: F_F =" in md


def test_csv_report_parses_and_holds_the_numbers():
    tables = build_tables(store_frame(missing=(0.0, 0.3)))
    rows = list(csv.reader(io.StringIO(render(tables, "csv"))))
    assert rows[0] == [
        "measure",
        "p",
        "dataset",
        "X",
        "X rank",
        "X folds",
        "Y",
        "Y rank",
        "Y folds",
        "Z",
        "Z rank",
        "Z folds",
    ]
    assert all(len(r) == len(rows[0]) for r in rows)
    body = {(r[1], r[2]): r for r in rows[1:]}
    assert body[("0", "a")][3:] == ["0.900000", "1", "2", "0.800000", "2.5", "2", "0.800000", "2.5", "2"]
    assert body[("0", "d")][3:6] == ["0.300000", "", "1"]  # one fold of two, no rank
    # Average ranks to the digits of the means (4 decimals lost thirds of a rank).
    assert [float(body[("0.3", "average rank")][i]) for i in (3, 6, 9)] == pytest.approx(AVERAGE, abs=1e-6)
    assert [body[("0.3", "wins")][i] for i in (3, 6, 9)] == ["2", "2", "0"]


def test_latex_report_is_well_formed():
    frame = store_frame().with_columns(
        pl.col("learner").replace({"X": "A&B_%"}), pl.col("dataset").replace({"a": "x_y"})
    )
    tex = render(build_tables(frame), "latex")
    assert tex.count(r"\begin{table}") == tex.count(r"\end{table}") == 1
    assert tex.count(r"\begin{tabular}{lrrr}") == tex.count(r"\end{tabular}") == 1
    body = tex.split(r"\begin{tabular}{lrrr}")[1].split(r"\end{tabular}")[0]
    rows = [ln for ln in body.splitlines() if ln.strip() and ln.strip() != r"\hline"]
    assert all(ln.endswith(r" \\") and len(re.findall(r"(?<!\\)&", ln)) == 3 for ln in rows)
    assert rows[0] == r"Data set & A\&B\_\% & Y & Z \\"
    assert r"x\_y & \textbf{0.900} (1) & 0.800 (2.5) & 0.800 (2.5) \\" in rows
    assert r"Average rank & 1.83 & 1.67 & 2.50 \\" in rows and r"Wins & 2 & 2 & 0 \\" in rows
    depth = 0
    for ch in re.sub(r"\\[{}]", "", tex):  # escaped braces do not count
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0
    assert depth == 0
    assert "% Left out of ranks" in tex


def test_unknown_format_is_refused():
    with pytest.raises(ExperimentError, match="unknown report format"):
        render(build_tables(store_frame()), "html")


def test_two_learners_the_verdict_is_iman_davenports_and_says_so():
    from lrank.experiment.render import statistics_lines

    # X beats Y on 4 data sets: Friedman's chi-square p 0.0455, the exact p (sign test) 0.125.
    folds = {(d, lab): [v] for d in "abcd" for lab, v in (("X", 0.9), ("Y", 0.5))}
    frame = store_frame(folds).with_columns(pl.lit(1).alias("folds"))
    (t,) = build_tables(frame)
    s = table_statistics(t, alpha=0.05)
    assert s.friedman.chi2_p == pytest.approx(0.0455, abs=1e-4) and s.friedman.ff_p == pytest.approx(0.125)
    text = "\n".join(statistics_lines(s))
    assert "Iman-Davenport keeps the null hypothesis; the chi-square's p above is a looser approximation" in text
    assert "the Friedman test keeps" not in text


def test_stores_without_the_normalised_footrule_read_and_say_so(tmp_path):
    from lrank.experiment.store import ResultStore

    old = store_frame().drop("normalized_footrule").with_columns(pl.lit(False).alias("ties"))
    path = tmp_path / "old.parquet"
    ResultStore(path).write(old)
    frame = ResultStore(path).read()
    assert frame["normalized_footrule"].null_count() == frame.height
    build_tables(frame, measure="footrule")
    with pytest.raises(ExperimentError, match="cells computed before lrank recorded normalized_footrule"):
        build_tables(frame, measure="normalized_footrule")


def test_std_is_the_deviation_over_each_cells_folds_in_every_format():
    frame = store_frame()
    (t,) = build_tables(frame)
    for (dataset, learner), values in FOLDS.items():
        d, j = t.datasets.index(dataset), t.learners.index(learner)
        expected = np.std(values, ddof=1) if len(values) > 1 else np.nan
        np.testing.assert_allclose(t.stds[d, j], expected, equal_nan=True)
    sd_a_z = f"{np.std([0.7, 0.9], ddof=1):.3f}"
    assert f"0.800±{sd_a_z} (2.5)" in render([t], "text", std=True)
    assert f"0.800±{sd_a_z}" not in render([t], "text")
    assert f"**0.900±{np.std([0.85, 0.95], ddof=1):.3f}** (1)" in render([t], "markdown", std=True)
    assert rf"0.800$\pm${sd_a_z} (2.5)" in render([t], "latex", std=True)
    rows = list(csv.DictReader(io.StringIO(render([t], "csv", std=True))))
    assert float(rows[0]["Z sd"]) == pytest.approx(np.std([0.7, 0.9], ddof=1), abs=1e-6)
    assert rows[3]["X sd"] == ""  # d: X has one fold


def test_the_wilcoxon_line_counts_every_data_set_and_says_which_zero_it_drops():
    from lrank.experiment.render import statistics_lines

    # X and Y tie on data set c, so Demšar's rule drops that zero difference: N = 3 of 4.
    scores = {"a": (0.9, 0.5), "b": (0.8, 0.6), "c": (0.7, 0.7), "d": (0.6, 0.4)}
    folds = {(d, lab): [v] for d, pair in scores.items() for lab, v in zip(("X", "Y"), pair)}
    (t,) = build_tables(store_frame(folds).with_columns(pl.lit(1).alias("folds")))
    text = "\n".join(statistics_lines(table_statistics(t, alpha=0.05)))
    assert "X vs Y over 4 data sets (N = 3: one of 1 equal scores dropped)" in text, text


def test_a_learner_not_run_at_some_p_leaves_that_ps_table_with_a_note():
    # Y only at p = 0 (a store joined with one run later): at p = 0.3 the table is X's alone,
    # with its ranks, instead of every data set left out for Y's empty cells.
    folds = {(d, lab): [v, v] for d in "abc" for lab, v in (("X", 0.9), ("Y", 0.5))}
    only_x = {key: values for key, values in folds.items() if key[1] == "X"}
    frame = pl.concat([store_frame(folds, missing=(0.0,)), store_frame(only_x, missing=(0.3,))])
    at_0, at_03 = build_tables(frame)
    assert at_0.learners == ("X", "Y") and at_0.not_run == ()
    assert at_03.learners == ("X",) and at_03.not_run == ("Y",) and at_03.n_ranked == 3
    assert "Not run at p = 0.3, so not in this table: Y." in render([at_0, at_03], "text")
    # Learners named explicitly stay in every table.
    _, named = build_tables(frame, learners=["X", "Y"])
    assert named.learners == ("X", "Y") and named.n_ranked == 0
