"""Tables and statistics from an experiment store, laid out like Tables 3 to 6 of Zhou & Qiu
(2018): per missing-label probability p, the mean of a measure per data set (rows) and learner
(columns), each learner's rank on the data set in parentheses (1 = best, ties share the average
rank), then the rows "average rank" and "wins" (data sets where the learner is best, ties
counting for each tied learner), followed by Demšar's (2006) tests on those ranks.

A data set enters the ranks, average ranks, wins and statistics only when every learner has all
its folds there; otherwise its row shows what there is (``0.912 [12/50]`` = mean over the 12 of
50 folds stored, ``n/a`` = none) and a note names it, so nothing is averaged silently.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np
import polars as pl
from numpy.typing import NDArray

from lrank.errors import ExperimentError
from lrank.evaluation import ALL_MEASURES
from lrank.experiment.store import ADDED_COLUMNS, MEASURE_COLUMNS
from lrank.stats import (
    FriedmanResult,
    HolmStep,
    WilcoxonResult,
    critical_difference,
    friedman_test,
    holm_test,
    nemenyi_groups,
    rank_scores,
    wilcoxon_signed_rank,
)
from lrank.stats.comparisons import SCORE_DECIMALS, bonferroni_dunn_q, nemenyi_q

__all__ = [
    "FORMATS",
    "ResultTable",
    "TableStatistics",
    "build_tables",
    "render",
    "table_statistics",
]

FORMATS = ("text", "markdown", "csv", "latex")

T = TypeVar("T")


@dataclass(frozen=True)
class ResultTable:
    """One table: a measure at one missing-label probability."""

    measure: str
    missing: float
    datasets: tuple[str, ...]
    learners: tuple[str, ...]
    means: NDArray[np.float64]  # (data sets, learners); NaN where nothing is stored
    counts: NDArray[np.int64]  # folds stored per cell
    folds: int
    repeats: int
    seed: int
    ranks: NDArray[np.float64] = field(init=False)  # NaN on rows left out of the ranking
    ranked: NDArray[np.bool_] = field(init=False)  # rows where every learner is complete

    def __post_init__(self) -> None:
        complete = (self.counts == self.expected) & np.isfinite(self.means)
        ranked = complete.all(axis=1) if self.learners else np.zeros(len(self.datasets), dtype=bool)
        ranks = np.full(self.means.shape, np.nan)
        if ranked.any():
            ranks[ranked] = rank_scores(self.means[ranked], higher_is_better=self.higher_is_better)
        object.__setattr__(self, "ranked", ranked)
        object.__setattr__(self, "ranks", ranks)

    @property
    def expected(self) -> int:
        return self.folds * self.repeats

    @property
    def higher_is_better(self) -> bool:
        return ALL_MEASURES[self.measure][1]

    @property
    def display_name(self) -> str:
        return ALL_MEASURES[self.measure][0]

    @property
    def n_ranked(self) -> int:
        return int(self.ranked.sum())

    @property
    def average_ranks(self) -> NDArray[np.float64]:
        if not self.ranked.any():
            return np.full(len(self.learners), np.nan)
        return self.ranks[self.ranked].mean(axis=0)  # type: ignore[no-any-return]

    @property
    def best(self) -> NDArray[np.bool_]:
        """Per cell: is this learner (one of) the best on a ranked data set."""
        key = np.round(self.means if self.higher_is_better else -self.means, SCORE_DECIMALS)
        out = np.zeros(self.means.shape, dtype=bool)
        if self.ranked.any():
            rows = key[self.ranked]
            out[self.ranked] = rows == rows.max(axis=1, keepdims=True)
        return out

    @property
    def wins(self) -> NDArray[np.int64]:
        return self.best.sum(axis=0).astype(np.int64)  # type: ignore[no-any-return]

    def title(self) -> str:
        return (
            f"{self.display_name} at missing-label probability p = {self.missing:g} "
            f"({self.repeats} x {self.folds}-fold cross-validation, seed {self.seed})"
        )

    def left_out(self) -> list[str]:
        """Why each unranked data set is left out, e.g. ``glass (LRT: 12 of 50 folds)``."""
        out = []
        for d, name in enumerate(self.datasets):
            if self.ranked[d]:
                continue
            why = []
            for j, label in enumerate(self.learners):
                c = int(self.counts[d, j])
                if c == 0:
                    why.append(f"{label}: no folds")
                elif c != self.expected:
                    why.append(f"{label}: {c} of {self.expected} folds")
                elif not np.isfinite(self.means[d, j]):
                    why.append(f"{label}: measure undefined")
            out.append(f"{name} ({'; '.join(why)})")
        return out


def build_tables(
    frame: pl.DataFrame,
    *,
    measure: str | None = None,
    missing: Sequence[float] | None = None,
    learners: Sequence[str] | None = None,
    datasets: Sequence[str] | None = None,
    source: str | None = None,
) -> list[ResultTable]:
    """One :class:`ResultTable` per missing-label probability (all in the store, or ``missing``).

    ``measure`` None: ``tau_x`` when some data set's rankings hold ties (the partial label
    ranking measure), else ``kendall_tau``.

    Learners appear in the order given (default: the order they entered the store), data sets
    in the order given (default: alphabetical, as in the papers). ``source`` names the store in
    the errors about its content.
    """
    where = f"{source}: " if source else ""
    if measure is not None and measure not in MEASURE_COLUMNS:
        raise ExperimentError(f"unknown measure {measure!r}; choose from {', '.join(MEASURE_COLUMNS)}")
    if frame.is_empty():
        raise ExperimentError(f"{where}the store holds no results yet")
    if measure is None:
        measure = default_measure(frame)
    if measure in ADDED_COLUMNS and frame.get_column(measure).null_count():
        raise ExperimentError(
            f"{where}cells computed before lrank recorded {measure} have no value for it "
            "(choose another --measure, or compute them again into a new store)"
        )
    protocol = frame.select("folds", "repeats", "seed").unique()
    if protocol.height != 1:
        raise ExperimentError(f"{where}the store mixes results of different folds, repeats or seeds")
    folds, repeats, seed = protocol.row(0)
    stored_learners: list[str] = frame.get_column("learner").unique(maintain_order=True).to_list()
    stored_datasets: list[str] = sorted(frame.get_column("dataset").unique().to_list())
    stored_missing: list[float] = sorted(frame.get_column("missing").unique().to_list())
    chosen_learners = _choose("learner", learners, stored_learners)
    chosen_datasets = _choose("data set", datasets, stored_datasets)
    chosen_missing = _choose("missing-label probability", missing, stored_missing)
    tables = []
    for p in chosen_missing:
        sub = frame.filter(pl.col("missing") == p)
        agg = sub.group_by("dataset", "learner").agg(
            pl.col(measure).fill_nan(None).mean().alias("mean"), pl.len().alias("count")
        )
        means = np.full((len(chosen_datasets), len(chosen_learners)), np.nan)
        counts = np.zeros(means.shape, dtype=np.int64)
        d_index = {d: i for i, d in enumerate(chosen_datasets)}
        l_index = {lab: j for j, lab in enumerate(chosen_learners)}
        for dataset, learner, mean, count in agg.iter_rows():
            if dataset in d_index and learner in l_index:
                i, j = d_index[dataset], l_index[learner]
                means[i, j] = np.nan if mean is None else mean
                counts[i, j] = count
        tables.append(
            ResultTable(
                measure=measure,
                missing=float(p),
                datasets=tuple(chosen_datasets),
                learners=tuple(chosen_learners),
                means=means,
                counts=counts,
                folds=int(folds),
                repeats=int(repeats),
                seed=int(seed),
            )
        )
    return tables


def default_measure(frame: pl.DataFrame) -> str:
    """``tau_x`` when the stored data sets hold ties, else ``kendall_tau``."""
    return "tau_x" if "ties" in frame.columns and bool(frame.get_column("ties").any()) else "kendall_tau"


def _choose(what: str, wanted: Sequence[T] | None, stored: list[T]) -> list[T]:
    if wanted is None or len(wanted) == 0:
        return list(stored)
    unknown = [w for w in wanted if w not in stored]
    if unknown:
        shown = ", ".join(repr(s) for s in stored)
        raise ExperimentError(f"no {what} {unknown[0]!r} in the store; it holds {shown}")
    return list(dict.fromkeys(wanted))


# -- statistics --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TableStatistics:
    """Demšar's tests on a table's ranked data sets."""

    n: int
    k: int
    alpha: float
    learners: tuple[str, ...]
    average_ranks: tuple[float, ...]
    friedman: FriedmanResult
    nemenyi_q: float
    nemenyi_cd: float
    nemenyi_groups: tuple[tuple[str, ...], ...]
    nemenyi_pairs: tuple[tuple[str, str, float], ...]  # significantly different pairs
    control: str
    bonferroni_dunn_q: float
    bonferroni_dunn_cd: float
    bonferroni_dunn_differ: tuple[tuple[str, float], ...]
    holm: tuple[tuple[str, HolmStep], ...]
    wilcoxon: tuple[tuple[str, str, WilcoxonResult], ...]


def table_statistics(
    table: ResultTable,
    *,
    alpha: float = 0.05,
    control: str | None = None,
    pairs: Sequence[tuple[str, str]] = (),
) -> TableStatistics | str:
    """The tests, or the reason they cannot be made (fewer than two data sets or learners).

    The control of Bonferroni-Dunn and Holm is the learner with the best average rank unless
    ``control`` names one. Wilcoxon's test is made for each pair in ``pairs``, and for the two
    learners when there are only two.
    """
    k, n = len(table.learners), table.n_ranked
    if k < 2:
        return "the tests need at least two learners"
    if n < 2:
        return f"the tests need at least two data sets with complete results for every learner (have {n})"
    labels = table.learners
    ranks = table.average_ranks
    index = {lab: j for j, lab in enumerate(labels)}
    for lab in [control, *[x for pair in pairs for x in pair]]:
        if lab is not None and lab not in index:
            raise ExperimentError(f"no learner {lab!r} in the table; learners: {', '.join(labels)}")
    c = int(np.argmin(ranks)) if control is None else index[control]
    nq = nemenyi_q(k, alpha)
    ncd = critical_difference(k, n, alpha, method="nemenyi")
    bq = bonferroni_dunn_q(k, alpha)
    bcd = critical_difference(k, n, alpha, method="bonferroni-dunn")
    significant = tuple(
        (labels[a], labels[b], float(abs(ranks[a] - ranks[b])))
        for a in range(k)
        for b in range(a + 1, k)
        if abs(ranks[a] - ranks[b]) >= ncd
    )
    differ = tuple(
        (labels[j], float(ranks[j] - ranks[c])) for j in range(k) if j != c and abs(ranks[j] - ranks[c]) >= bcd
    )
    scores = table.means[table.ranked]
    wanted_pairs = list(pairs) or ([(labels[0], labels[1])] if k == 2 else [])
    wilcoxon = []
    for a_label, b_label in wanted_pairs:
        a, b = index[a_label], index[b_label]
        sign = 1.0 if table.higher_is_better else -1.0  # R+ counts the data sets where a is better
        wilcoxon.append((a_label, b_label, wilcoxon_signed_rank(sign * scores[:, a], sign * scores[:, b])))
    return TableStatistics(
        n=n,
        k=k,
        alpha=alpha,
        learners=labels,
        average_ranks=tuple(float(r) for r in ranks),
        friedman=friedman_test(ranks, n),
        nemenyi_q=nq,
        nemenyi_cd=ncd,
        nemenyi_groups=tuple(tuple(labels[j] for j in g) for g in nemenyi_groups(ranks, ncd)),
        nemenyi_pairs=significant,
        control=labels[c],
        bonferroni_dunn_q=bq,
        bonferroni_dunn_cd=bcd,
        bonferroni_dunn_differ=differ,
        holm=tuple((labels[s.learner], s) for s in holm_test(ranks, n, control=c, alpha=alpha)),
        wilcoxon=tuple(wilcoxon),
    )


def _p(p: float) -> str:
    return f"{p:.2e}" if 0 < p < 1e-4 else f"{p:.4f}"


def statistics_lines(s: TableStatistics, *, markdown: bool = False) -> list[str]:
    """The statistics as text lines (a bullet list in Markdown)."""
    f = s.friedman
    verdict = (
        "the learners differ significantly" if f.ff_p < s.alpha else "no significant difference between the learners"
    )
    # Infinite when every data set ranks the learners alike: its p is then the exact one.
    ff = "inf (every data set ranks the learners alike; exact p)" if math.isinf(f.ff) else f"{f.ff:.2f}"
    bullet = "- " if markdown else "  "
    lines = [
        f"Statistics (Demšar 2006) over N = {s.n} data sets and k = {s.k} learners, alpha = {s.alpha:g}:",
        f"{bullet}Friedman: chi2_F = {f.chi2:.2f} (df {f.chi2_df}), p = {_p(f.chi2_p)}",
        f"{bullet}Iman-Davenport: F_F = {ff} (df {f.ff_df[0]}, {f.ff_df[1]}), p = {_p(f.ff_p)}: {verdict}",
    ]
    if f.ff_p >= s.alpha:
        # Demšar's verdict is Iman-Davenport's; the chi-square's p (an approximation that errs
        # on the liberal side for few data sets) may fall under alpha while it does not.
        chi2_too = "" if f.chi2_p >= s.alpha else "; the chi-square's p above is a looser approximation"
        lines.append(
            f"{bullet}(Iman-Davenport keeps the null hypothesis{chi2_too}: "
            "the post-hoc tests below are for information only)"
        )
    pairs = ", ".join(f"{a} - {b} ({d:.2f})" for a, b, d in s.nemenyi_pairs) or "none"
    lines.append(
        f"{bullet}Nemenyi: q = {s.nemenyi_q:.3f}, CD = {s.nemenyi_cd:.2f}; significantly different pairs: {pairs}"
    )
    if s.nemenyi_groups:
        groups = "; ".join("{" + ", ".join(g) + "}" for g in s.nemenyi_groups)
        lines.append(f"{bullet}Nemenyi groups with no significant difference inside: {groups}")
    differ = ", ".join(f"{lab} ({d:+.2f})" for lab, d in s.bonferroni_dunn_differ) or "none"
    lines.append(
        f"{bullet}Bonferroni-Dunn against {s.control}: q = {s.bonferroni_dunn_q:.3f}, "
        f"CD = {s.bonferroni_dunn_cd:.2f}; significantly different from {s.control}: {differ}"
    )
    lines.append(f"{bullet}Holm's step-down procedure against {s.control}:")
    head = ("learner", "rank diff", "z", "p", "alpha/(k-i)", "hypothesis")
    rows = [
        (
            lab,
            f"{st.rank_difference:+.3f}",
            f"{st.z:.3f}",
            _p(st.p),
            f"{st.threshold:.4f}",
            "rejected" if st.rejected else "kept",
        )
        for lab, st in s.holm
    ]
    if markdown:
        lines.append("")
        lines += _markdown_rows(list(head), [list(r) for r in rows], align=["l"] + ["r"] * 5)
        lines.append("")
    else:
        widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
        for r in [head, *rows]:
            lines.append(
                "    "
                + "  ".join(str(v).ljust(w) if i == 0 else str(v).rjust(w) for i, (v, w) in enumerate(zip(r, widths)))
            )
    for a, b, w in s.wilcoxon:
        exact = f", {_p(w.p_exact)} (exact)" if w.p_exact is not None else ""
        lines.append(
            f"{bullet}Wilcoxon signed-rank, {a} vs {b} over {w.n} data sets: R+ = {w.r_plus:g}, "
            f"R- = {w.r_minus:g}, T = {w.t:g}, z = {w.z:.2f}, p = {_p(w.p_normal)} (normal){exact}"
        )
    return lines


# -- rendering ------------------------------------------------------------------------------------------


def _value(t: ResultTable, d: int, j: int, digits: int) -> str:
    c = int(t.counts[d, j])
    if c == 0 or not np.isfinite(t.means[d, j]):
        return "n/a"
    text = f"{t.means[d, j]:.{digits}f}"
    if c != t.expected:
        return f"{text} [{c}/{t.expected}]"
    return text


def _rank(r: float) -> str:
    return f"{r:g}"


def _cells(t: ResultTable, digits: int) -> list[list[str]]:
    rows = []
    for d in range(len(t.datasets)):
        row = []
        for j in range(len(t.learners)):
            v = _value(t, d, j, digits)
            row.append(f"{v} ({_rank(t.ranks[d, j])})" if t.ranked[d] else v)
        rows.append(row)
    return rows


def _summary_rows(t: ResultTable) -> list[list[str]]:
    if t.n_ranked == 0:
        return []
    return [["average rank", *[f"{r:.2f}" for r in t.average_ranks]], ["wins", *[str(w) for w in t.wins]]]


def _notes(t: ResultTable) -> list[str]:
    notes = []
    left = t.left_out()
    if left:
        notes.append(
            f"Left out of ranks, average ranks, wins and statistics ({len(left)} of "
            f"{len(t.datasets)} data sets): " + "; ".join(left) + "."
        )
    if any(int(c) not in (0, t.expected) for c in t.counts.ravel()):
        notes.append(f"[c/{t.expected}]: mean over the c of {t.expected} folds stored so far.")
    return notes


def render_text(tables: Sequence[ResultTable], *, digits: int = 3, stats: Sequence[TableStatistics | str] = ()) -> str:
    out: list[str] = []
    for i, t in enumerate(tables):
        head = ["data set", *t.learners]
        body = [[name, *cells] for name, cells in zip(t.datasets, _cells(t, digits))]
        summary = _summary_rows(t)
        widths = [max(len(r[c]) for r in [head, *body, *summary]) for c in range(len(head))]

        def line(r: list[str], widths: list[int] = widths) -> str:
            return "  ".join(v.ljust(w) if c == 0 else v.rjust(w) for c, (v, w) in enumerate(zip(r, widths))).rstrip()

        rule = "-" * len(line(head))
        out += [
            t.title(),
            "(mean over folds; the learner's rank on the data set in parentheses)",
            "",
            line(head),
            rule,
            *[line(r) for r in body],
        ]
        if summary:
            out += [rule, *[line(r) for r in summary]]
        notes = _notes(t)
        if notes:
            out += ["", *notes]
        if i < len(stats):
            s = stats[i]
            out += [""] + (statistics_lines(s) if isinstance(s, TableStatistics) else [f"Statistics: {s}."])
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _md_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*").replace("_", "\\_")


def _markdown_rows(head: list[str], rows: list[list[str]], *, align: list[str]) -> list[str]:
    sep = ["---" if a == "l" else "---:" for a in align]
    return ["| " + " | ".join(r) + " |" for r in [head, sep, *rows]]


def render_markdown(
    tables: Sequence[ResultTable], *, digits: int = 3, stats: Sequence[TableStatistics | str] = ()
) -> str:
    out: list[str] = []
    for i, t in enumerate(tables):
        best = t.best
        body = []
        for d, cells in enumerate(_cells(t, digits)):
            # the best value of a ranked data set in bold, as the papers print it
            row = [
                f"**{c.split(' ')[0]}** {' '.join(c.split(' ')[1:])}".rstrip() if best[d, j] else c
                for j, c in enumerate(cells)
            ]
            body.append([_md_escape(t.datasets[d]), *row])
        summary = [[f"*{r[0]}*", *r[1:]] for r in _summary_rows(t)]
        out += [
            f"### {_md_escape(t.title())}",
            "",
            "Mean over folds; the learner's rank on the data set in parentheses, the best in bold.",
            "",
        ]
        out += _markdown_rows(
            ["data set", *[_md_escape(x) for x in t.learners]], body + summary, align=["l"] + ["r"] * len(t.learners)
        )
        notes = _notes(t)
        if notes:
            out += ["", *[_md_escape(n) for n in notes]]
        if i < len(stats):
            s = stats[i]
            out += [""] + (
                statistics_lines(s, markdown=True) if isinstance(s, TableStatistics) else [f"Statistics: {s}."]
            )
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def render_csv(tables: Sequence[ResultTable], *, digits: int = 6) -> str:
    """One CSV for all tables: ``p, dataset`` then per learner its mean, rank and stored folds;
    the rows ``average rank`` and ``wins`` hold their numbers in the learners' mean columns."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if not tables:
        return ""
    learners = tables[0].learners
    writer.writerow(["measure", "p", "dataset", *[h for lab in learners for h in (lab, f"{lab} rank", f"{lab} folds")]])
    for t in tables:
        for d, name in enumerate(t.datasets):
            row: list[str] = [t.measure, f"{t.missing:g}", name]
            for j in range(len(t.learners)):
                mean = t.means[d, j]
                row += [
                    "" if not np.isfinite(mean) else f"{mean:.{digits}f}",
                    _rank(t.ranks[d, j]) if t.ranked[d] else "",
                    str(int(t.counts[d, j])),
                ]
            writer.writerow(row)
        if t.n_ranked:
            writer.writerow(
                [
                    t.measure,
                    f"{t.missing:g}",
                    "average rank",
                    *[x for r in t.average_ranks for x in (f"{r:.4f}", "", "")],
                ]
            )
            writer.writerow([t.measure, f"{t.missing:g}", "wins", *[x for w in t.wins for x in (str(w), "", "")]])
    return buf.getvalue()


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    # Text-mode fonts of plain LaTeX (OT1) print these as other glyphs.
    "|": r"\textbar{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}


def _tex(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def render_latex(tables: Sequence[ResultTable], *, digits: int = 3) -> str:
    """One ``table`` environment per p, plain ``tabular`` with ``\\hline`` (no extra packages)."""
    out: list[str] = []
    for t in tables:
        best = t.best
        out += [
            r"\begin{table}[ht]",
            r"\centering",
            r"\caption{" + _tex(t.title()) + r"; mean over folds, rank on the data set in parentheses, "
            r"best in bold.}",
            r"\begin{tabular}{l" + "r" * len(t.learners) + "}",
            r"\hline",
            " & ".join(["Data set", *[_tex(x) for x in t.learners]]) + r" \\",
            r"\hline",
        ]
        for d, cells in enumerate(_cells(t, digits)):
            texed = []
            for j, c in enumerate(cells):
                value, _, rest = c.partition(" ")
                value = "--" if value == "n/a" else value
                value = r"\textbf{" + value + "}" if best[d, j] else value
                texed.append((value + " " + _tex(rest)).rstrip())
            out.append(" & ".join([_tex(t.datasets[d]), *texed]) + r" \\")
        summary = _summary_rows(t)
        if summary:
            out.append(r"\hline")
            out += [" & ".join([r[0].capitalize(), *r[1:]]) + r" \\" for r in summary]
        out += [r"\hline", r"\end{tabular}", r"\end{table}"]
        for note in _notes(t):
            out.append("% " + note)
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def render(
    tables: Sequence[ResultTable], fmt: str, *, digits: int | None = None, stats: Sequence[TableStatistics | str] = ()
) -> str:
    """The tables in ``fmt`` (text, markdown, csv or latex); text and Markdown include ``stats``.
    ``digits`` None: 3 decimals, 6 in CSV (read by programs)."""
    shown = 3 if digits is None else digits
    if fmt == "text":
        return render_text(tables, digits=shown, stats=stats)
    if fmt == "markdown":
        return render_markdown(tables, digits=shown, stats=stats)
    if fmt == "csv":
        return render_csv(tables, digits=6 if digits is None else digits)
    if fmt == "latex":
        return render_latex(tables, digits=shown)
    raise ExperimentError(f"unknown report format {fmt!r}; choose from {', '.join(FORMATS)}")
