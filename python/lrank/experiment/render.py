"""The experiment's tables and statistics written out: text (the terminal), Markdown, CSV and
LaTeX (:func:`render`), from :func:`lrank.experiment.report.build_tables` and
:func:`lrank.experiment.report.table_statistics`."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence

import numpy as np

from lrank.errors import ExperimentError
from lrank.experiment.report import ResultTable, TableStatistics

__all__ = ["FORMATS", "render", "statistics_lines"]

FORMATS = ("text", "markdown", "csv", "latex")
_STD_NOTE = " ± standard deviation (n - 1)"
_STD_NOTE_TEX = _STD_NOTE.replace("±", r"$\pm$")


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
        over = f"{w.n} data sets"
        if w.zero_differences % 2 == 1:  # Demšar's rule: one zero difference of an odd number dropped
            over = f"{w.n + 1} data sets (N = {w.n}: one of {w.zero_differences} equal scores dropped)"
        lines.append(
            f"{bullet}Wilcoxon signed-rank, {a} vs {b} over {over}: R+ = {w.r_plus:g}, "
            f"R- = {w.r_minus:g}, T = {w.t:g}, z = {w.z:.2f}, p = {_p(w.p_normal)} (normal){exact}"
        )
    return lines


# -- rendering ------------------------------------------------------------------------------------------


def _value(t: ResultTable, d: int, j: int, digits: int, std: bool = False) -> str:
    c = int(t.counts[d, j])
    if c == 0 or not np.isfinite(t.means[d, j]):
        return "n/a"
    text = f"{t.means[d, j]:.{digits}f}"
    if std and t.stds is not None:
        # One token (no space), so that bold and LaTeX take mean and deviation together.
        sd = t.stds[d, j]
        text += f"±{sd:.{digits}f}" if np.isfinite(sd) else "±n/a"
    if c != t.expected:
        return f"{text} [{c}/{t.expected}]"
    return text


def _rank(r: float) -> str:
    return f"{r:g}"


def _cells(t: ResultTable, digits: int, std: bool = False) -> list[list[str]]:
    rows = []
    for d in range(len(t.datasets)):
        row = []
        for j in range(len(t.learners)):
            v = _value(t, d, j, digits, std)
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
    if t.not_run:
        notes.append(f"Not run at p = {t.missing:g}, so not in this table: {', '.join(t.not_run)}.")
    if any(int(c) not in (0, t.expected) for c in t.counts.ravel()):
        notes.append(f"[c/{t.expected}]: mean over the c of {t.expected} folds stored so far.")
    return notes


def render_text(
    tables: Sequence[ResultTable], *, digits: int = 3, stats: Sequence[TableStatistics | str] = (), std: bool = False
) -> str:
    out: list[str] = []
    for i, t in enumerate(tables):
        head = ["data set", *t.learners]
        body = [[name, *cells] for name, cells in zip(t.datasets, _cells(t, digits, std))]
        summary = _summary_rows(t)
        widths = [max(len(r[c]) for r in [head, *body, *summary]) for c in range(len(head))]

        def line(r: list[str], widths: list[int] = widths) -> str:
            return "  ".join(v.ljust(w) if c == 0 else v.rjust(w) for c, (v, w) in enumerate(zip(r, widths))).rstrip()

        rule = "-" * len(line(head))
        out += [
            t.title(),
            f"(mean{_STD_NOTE if std else ''} over folds; the learner's rank on the data set in parentheses)",
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
    tables: Sequence[ResultTable], *, digits: int = 3, stats: Sequence[TableStatistics | str] = (), std: bool = False
) -> str:
    out: list[str] = []
    for i, t in enumerate(tables):
        best = t.best
        body = []
        for d, cells in enumerate(_cells(t, digits, std)):
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
            f"Mean{_STD_NOTE if std else ''} over folds; the learner's rank on the data set in parentheses, "
            "the best in bold.",
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


def render_csv(tables: Sequence[ResultTable], *, digits: int = 6, std: bool = False) -> str:
    """One CSV for all tables: ``p, dataset`` then per learner its mean, rank and stored folds
    (with ``std``, its standard deviation over the folds after the mean); the rows ``average
    rank`` and ``wins`` hold their numbers in the learners' mean columns."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if not tables:
        return ""
    learners = tables[0].learners
    per = ("", " sd", " rank", " folds") if std else ("", " rank", " folds")
    writer.writerow(["measure", "p", "dataset", *[lab + h for lab in learners for h in per]])
    for t in tables:
        for d, name in enumerate(t.datasets):
            row: list[str] = [t.measure, f"{t.missing:g}", name]
            for j in range(len(t.learners)):
                mean = t.means[d, j]
                row.append("" if not np.isfinite(mean) else f"{mean:.{digits}f}")
                if std:
                    sd = np.nan if t.stds is None else t.stds[d, j]
                    row.append("" if not np.isfinite(sd) else f"{sd:.{digits}f}")
                row += [_rank(t.ranks[d, j]) if t.ranked[d] else "", str(int(t.counts[d, j]))]
            writer.writerow(row)
        if t.n_ranked:
            writer.writerow(
                [
                    t.measure,
                    f"{t.missing:g}",
                    "average rank",
                    *[x for r in t.average_ranks for x in (f"{r:.{digits}f}", *[""] * (len(per) - 1))],
                ]
            )
            wins = [x for w in t.wins for x in (str(w), *[""] * (len(per) - 1))]
            writer.writerow([t.measure, f"{t.missing:g}", "wins", *wins])
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


def render_latex(tables: Sequence[ResultTable], *, digits: int = 3, std: bool = False) -> str:
    """One ``table`` environment per p, plain ``tabular`` with ``\\hline`` (no extra packages)."""
    out: list[str] = []
    for t in tables:
        best = t.best
        out += [
            r"\begin{table}[ht]",
            r"\centering",
            r"\caption{"
            + _tex(t.title())
            + f"; mean{_STD_NOTE_TEX if std else ''} over folds, rank on the data set in parentheses, "
            r"best in bold.}",
            r"\begin{tabular}{l" + "r" * len(t.learners) + "}",
            r"\hline",
            " & ".join(["Data set", *[_tex(x) for x in t.learners]]) + r" \\",
            r"\hline",
        ]
        for d, cells in enumerate(_cells(t, digits, std)):
            texed = []
            for j, c in enumerate(cells):
                value, _, rest = c.partition(" ")
                value = "--" if value == "n/a" else value.replace("±", r"$\pm$")
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
    tables: Sequence[ResultTable],
    fmt: str,
    *,
    digits: int | None = None,
    stats: Sequence[TableStatistics | str] = (),
    std: bool = False,
) -> str:
    """The tables in ``fmt`` (text, markdown, csv or latex); text and Markdown include ``stats``.
    ``digits`` None: 3 decimals, 6 in CSV (read by programs); ``std``: each mean with the standard
    deviation over its folds (``0.912±0.031``; a column of its own in CSV)."""
    shown = 3 if digits is None else digits
    if fmt == "text":
        return render_text(tables, digits=shown, stats=stats, std=std)
    if fmt == "markdown":
        return render_markdown(tables, digits=shown, stats=stats, std=std)
    if fmt == "csv":
        return render_csv(tables, digits=6 if digits is None else digits, std=std)
    if fmt == "latex":
        return render_latex(tables, digits=shown, std=std)
    raise ExperimentError(f"unknown report format {fmt!r}; choose from {', '.join(FORMATS)}")
