"""Figures from an experiment store (matplotlib, imported only when a plot is drawn).

* :func:`cd_diagram` - Demšar's critical-difference diagram: the axis of average ranks (1 = best,
  on the left), the learners on both sides, and either bars joining the groups that Nemenyi's test
  does not separate or the Bonferroni-Dunn interval around a control learner;
* :func:`missing_curve` - a measure against the missing-label probability p, one line per learner,
  one panel per data set or the mean over data sets (Figure 2 of Zhou & Qiu 2018);
* :func:`parameter_curve` - a measure against the value of one learner option (number of trees,
  tree depth: Figures 3 and 4), one line per learner that the option's values sweep.

The file type follows the suffix: .png, .svg or .pdf.
"""

from __future__ import annotations

import math
import os
import re
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from lrank.errors import ExperimentError
from lrank.experiment.report import ResultTable, build_tables
from lrank.stats import critical_difference, nemenyi_groups

__all__ = ["PLOT_SUFFIXES", "cd_diagram", "check_plot_path", "missing_curve", "parameter_curve"]

PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def check_plot_path(path: str | os.PathLike[str]) -> str:
    spath = os.fspath(path)
    if Path(spath).suffix.lower() not in PLOT_SUFFIXES:
        raise ExperimentError(f"{spath}: a plot file must end in {', '.join(PLOT_SUFFIXES)}")
    return spath


def _figure(width: float, height: float) -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ExperimentError("plots need matplotlib: pip install 'lrank[plot]' (or pip install matplotlib)") from None
    return Figure(figsize=(width, height))


def _save(fig: Any, path: str | None) -> None:
    if path is None:
        return
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    # no creation date in SVG and PDF files: the same results give the same file
    metadata = {"Date": None} if path.lower().endswith((".svg", ".pdf")) else None
    fig.savefig(path, dpi=150, bbox_inches="tight", metadata=metadata)


def cd_diagram(
    labels: Sequence[str],
    average_ranks: Sequence[float],
    n_datasets: int,
    path: str | os.PathLike[str] | None = None,
    *,
    alpha: float = 0.05,
    method: str = "nemenyi",
    control: str | None = None,
    title: str | None = None,
) -> Any:
    """Draw the critical-difference diagram (of the CD :func:`lrank.stats.critical_difference`
    gives), save it to ``path`` when one is given, and return the matplotlib ``Figure``.

    ``method`` ``"nemenyi"`` joins groups whose average ranks differ by less than the CD;
    ``"bonferroni-dunn"`` draws the interval of one CD either side of ``control`` (default: the
    best average rank): learners outside it differ significantly from the control.
    """
    spath = None if path is None else check_plot_path(path)
    k = len(labels)
    ranks = np.asarray(average_ranks, dtype=np.float64)
    if k < 2 or ranks.shape != (k,):
        raise ExperimentError("a critical-difference diagram needs the average ranks of at least two learners")
    if n_datasets < 2:
        raise ExperimentError(f"a critical-difference diagram needs at least two data sets (have {n_datasets})")
    cd = critical_difference(k, n_datasets, alpha, method=method)
    order = [int(j) for j in np.argsort(ranks, kind="stable")]
    c = int(np.argmin(ranks)) if control is None else list(labels).index(control) if control in labels else -1
    if c < 0:
        raise ExperimentError(f"no learner {control!r}; learners: {', '.join(labels)}")
    groups = nemenyi_groups(ranks, cd) if method == "nemenyi" else []

    n_left = math.ceil(k / 2)
    longest = max(len(lab) for lab in labels)
    width = 6.0 + 0.16 * longest
    bars_height = 0.18 * max(1, len(groups))
    rows_top = 0.35 + bars_height
    row_step = 0.3
    height = 1.2 + (rows_top + row_step * n_left) * 0.9
    fig = _figure(width, height)
    side = 0.08 * longest / (longest + 10) + 0.12  # share of the width for labels on each side
    ax = fig.add_axes((side + 0.08, 0.02, 1 - 2 * (side + 0.08), 0.96))
    ax.set_xlim(1, k)
    ax.set_ylim(rows_top + row_step * n_left + 0.1, -0.9)
    ax.axis("off")

    # the rank axis
    ax.plot([1, k], [0, 0], color="black", lw=1)
    for t in range(1, k + 1):
        ax.plot([t, t], [0, -0.08], color="black", lw=1)
        ax.text(t, -0.14, str(t), ha="center", va="bottom", fontsize=9)
    for half in np.arange(1.5, k, 1.0):
        ax.plot([half, half], [0, -0.04], color="black", lw=0.7)
    # the critical difference, above the axis
    cd_end = min(float(k), 1 + cd)
    ax.plot([1, cd_end], [-0.6, -0.6], color="black", lw=1.5)
    for x in (1, cd_end):
        ax.plot([x, x], [-0.65, -0.55], color="black", lw=1)
    ax.text((1 + cd_end) / 2, -0.68, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=9)

    # the learners, best half on the left, the rest on the right; no lines cross
    for pos, j in enumerate(order):
        left = pos < n_left
        row = pos if left else k - 1 - pos
        y = rows_top + row_step * row
        x_edge = 1 - 0.04 * (k - 1) if left else k + 0.04 * (k - 1)
        ax.plot([ranks[j], ranks[j], x_edge], [0, y, y], color="black", lw=0.8, clip_on=False)
        weight = "bold" if method == "bonferroni-dunn" and j == c else "normal"
        ax.text(
            x_edge + (-0.02 if left else 0.02) * (k - 1),
            y,
            f"{labels[j]} ({ranks[j]:.2f})",
            ha="right" if left else "left",
            va="center",
            fontsize=9,
            fontweight=weight,
            clip_on=False,
        )
    if method == "nemenyi":
        for g, group in enumerate(groups):
            lo, hi = ranks[list(group)].min(), ranks[list(group)].max()
            y = 0.18 + 0.18 * g
            ax.plot([lo - 0.02, hi + 0.02], [y, y], color="black", lw=3.5, solid_capstyle="butt")
    else:
        start, stop = max(1.0, float(ranks[c]) - cd), min(float(k), float(ranks[c]) + cd)
        ax.plot([start, stop], [0.18, 0.18], color="black", lw=3.5, solid_capstyle="butt")
    heading = title or (
        f"Nemenyi, alpha = {alpha:g}, N = {n_datasets}"
        if method == "nemenyi"
        else f"Bonferroni-Dunn against {labels[c]}, alpha = {alpha:g}, N = {n_datasets}"
    )
    ax.set_title(heading, fontsize=10, pad=4)
    _save(fig, spath)
    return fig


_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
_LINESTYLES = ("-", "--", ":", "-.")


def _series_style(j: int, **extra: Any) -> dict[str, Any]:
    """A colour, marker and line style for series j: distinct for dozens of series (the default
    cycle repeats its ten colours, which made twelve learners ambiguous)."""
    return {
        "color": f"C{j % 10}",
        "marker": _MARKERS[j % len(_MARKERS)],
        "linestyle": _LINESTYLES[(j // 10) % len(_LINESTYLES)],
        **extra,
    }


def _panel_grid(fig: Any, n: int) -> list[Any]:
    cols = min(4, n)
    rows = math.ceil(n / cols)
    return [fig.add_subplot(rows, cols, i + 1) for i in range(n)]


def _complete_means(table: ResultTable) -> np.ndarray:
    """Means of complete cells, NaN elsewhere (partial results are not plotted)."""
    return np.where(table.counts == table.expected, table.means, np.nan)


def missing_curve(
    frame: pl.DataFrame,
    path: str | os.PathLike[str] | None = None,
    *,
    measure: str | None = None,
    learners: Sequence[str] | None = None,
    datasets: Sequence[str] | None = None,
    mean: bool = False,
    title: str | None = None,
) -> Any:
    """The measure against the missing-label probability: a panel per data set, or with ``mean``
    one panel of the mean over the data sets complete for every learner at every p. Saved to
    ``path`` when one is given; returns the ``Figure``."""
    spath = None if path is None else check_plot_path(path)
    tables = build_tables(frame, measure=measure, learners=learners, datasets=datasets)
    if len(tables) < 2:
        raise ExperimentError("the store holds a single missing-label probability; run with --missing 0,0.3,0.6 first")
    ps = np.array([t.missing for t in tables])
    first = tables[0]
    values = np.stack([_complete_means(t) for t in tables])  # (p, data sets, learners)
    name = first.display_name
    if mean:
        usable = np.all(np.isfinite(values), axis=(0, 2))
        if not usable.any():
            raise ExperimentError("no data set has complete results for every learner at every p")
        fig = _figure(7.5, 4.0)
        ax = fig.add_subplot(1, 1, 1)
        for j, lab in enumerate(first.learners):
            ax.plot(ps, values[:, usable, j].mean(axis=1), label=lab, **_series_style(j))
        ax.set_title(title or f"Mean over {int(usable.sum())} data sets")
        ax.set_xlabel("missing-label probability p")
        ax.set_ylabel(name)
        ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    else:
        n = len(first.datasets)
        cols = min(4, n)
        fig = _figure(3.2 * cols, 2.6 * math.ceil(n / cols) + 0.6)
        axes = _panel_grid(fig, n)
        for d, ax in enumerate(axes):
            for j, lab in enumerate(first.learners):
                ax.plot(ps, values[:, d, j], label=lab, **_series_style(j, ms=3))
            ax.set_title(first.datasets[d], fontsize=9)
            ax.tick_params(labelsize=7)
            ax.set_xlabel("p", fontsize=8)
        axes[0].set_ylabel(name, fontsize=8)
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=min(4, len(labels)), fontsize=8, bbox_to_anchor=(0.5, 1.0))
        if title:
            fig.suptitle(title, y=1.08)
        fig.tight_layout()
    _save(fig, spath)
    return fig


def _option_value(options: Sequence[str], flag: str) -> str | None:
    for i, tok in enumerate(options[:-1]):
        if tok == flag:
            return options[i + 1]
    return None


def _zero_meaning(frame: pl.DataFrame, flag: str) -> str | None:
    """What 0 means for option ``flag`` of the store's learners when it is no amount ("unlimited"
    for -depth, "the exact search" for -bins: their parsers turn it into None), else None."""
    from lrank.learner_spec import LearnerOptionError, find_learner

    for name in frame.get_column("learner_name").unique(maintain_order=True):
        try:
            spec = find_learner(name)
        except LearnerOptionError:
            continue  # a plug-in no longer installed
        for opt in spec.options:
            if opt.flag == flag and opt.parse is not None:
                try:
                    means_none = opt.parse("0") is None
                except ValueError:
                    continue
                if means_none:
                    said = re.search(r"0 = ([^,;()]+)", opt.help)
                    return said.group(1).strip() if said else "none"
    return None


def sweep_groups(frame: pl.DataFrame, flag: str) -> dict[str, list[tuple[str, str]]]:
    """Learners that set option ``flag``, grouped by their name and other options:
    group label -> [(option value, learner label)], in store order."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for label, name, options_text in (
        frame.select("learner", "learner_name", "learner_options").unique(maintain_order=True).iter_rows()
    ):
        options = shlex.split(options_text)
        value = _option_value(options, flag)
        if value is None:
            continue
        i = options.index(flag)
        rest = options[:i] + options[i + 2 :]
        groups.setdefault(" ".join([name, *rest]), []).append((value, label))
    return groups


def parameter_curve(
    frame: pl.DataFrame,
    path: str | os.PathLike[str] | None = None,
    *,
    option: str,
    measure: str | None = None,
    missing: float | None = None,
    datasets: Sequence[str] | None = None,
    mean: bool = False,
    title: str | None = None,
) -> Any:
    """The measure against the value of learner option ``option`` (e.g. ``-I``), one line per
    group of learners that differ only in that value; a panel per data set or, with ``mean``, the
    mean over the data sets complete for all of them. Saved to ``path`` when one is given;
    returns the ``Figure``."""
    spath = None if path is None else check_plot_path(path)
    groups = sweep_groups(frame, option)
    if not groups:
        raise ExperimentError(
            f"no learner in the store sets option {option}; sweep it, e.g. --sweep 'LRRF {option} 10,20,50'"
        )
    if all(len({v for v, _ in members}) < 2 for members in groups.values()):
        raise ExperimentError(
            f"no learner in the store is run with several values of {option} (nothing to draw a curve of); "
            f"sweep it, e.g. --sweep 'LRRF {option} 10,20,50'"
        )
    zero_means = _zero_meaning(frame, option)
    ps = sorted(frame.get_column("missing").unique().to_list())
    p = ps[0] if missing is None else missing
    learners = [lab for members in groups.values() for _, lab in members]
    (table,) = build_tables(frame, measure=measure, missing=[p], learners=learners, datasets=datasets)
    values = _complete_means(table)
    col = {lab: j for j, lab in enumerate(table.learners)}

    def xs(members: list[tuple[str, str]]) -> tuple[list[Any], bool, list[str] | None]:
        """x of each member, whether they are numbers, and tick labels when the axis needs its own."""
        try:
            numbers = [float(v) for v, _ in members]
        except ValueError:
            return [v for v, _ in members], False, None
        if zero_means is not None and 0.0 in numbers:
            # 0 is no number on this axis (e.g. "unlimited" depth): the values evenly spaced in
            # increasing order, 0 last under its meaning.
            order = sorted(range(len(numbers)), key=lambda i: math.inf if numbers[i] == 0 else numbers[i])
            place = {i: float(r) for r, i in enumerate(order)}
            ticks = [zero_means if numbers[i] == 0 else f"{numbers[i]:g}" for i in order]
            return [place[i] for i in range(len(numbers))], True, ticks
        return numbers, True, None

    def draw(ax: Any, members: list[tuple[str, str]], y: list[float], **style: Any) -> None:
        x, numeric, ticks = xs(members)
        order = np.argsort(x) if numeric else np.arange(len(x))
        ax.plot([x[i] for i in order], [y[i] for i in order], **style)
        if ticks is not None:
            ax.set_xticks(range(len(ticks)), ticks)

    if mean:
        usable = np.all(np.isfinite(values), axis=1)
        if not usable.any():
            raise ExperimentError("no data set has complete results for every swept learner")
        fig = _figure(6.0, 4.0)
        ax = fig.add_subplot(1, 1, 1)
        for j, (group, members) in enumerate(groups.items()):
            y = [values[usable, col[lab]].mean() for _, lab in members]
            draw(ax, members, y, label=group, **_series_style(j))
        ax.set_title(title or f"Mean over {int(usable.sum())} data sets, p = {p:g}")
        ax.set_xlabel(f"option {option}")
        ax.set_ylabel(table.display_name)
        ax.legend(fontsize=8)
    else:
        n = len(table.datasets)
        cols = min(4, n)
        fig = _figure(3.2 * cols, 2.6 * math.ceil(n / cols) + 0.6)
        axes = _panel_grid(fig, n)
        for d, ax in enumerate(axes):
            for j, (group, members) in enumerate(groups.items()):
                y = [values[d, col[lab]] for _, lab in members]
                draw(ax, members, y, label=group, **_series_style(j, ms=3))
            ax.set_title(table.datasets[d], fontsize=9)
            ax.tick_params(labelsize=7)
            ax.set_xlabel(option, fontsize=8)
        axes[0].set_ylabel(table.display_name, fontsize=8)
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=min(4, len(labels)), fontsize=8, bbox_to_anchor=(0.5, 1.0))
        if title:
            fig.suptitle(title, y=1.08)
        fig.tight_layout()
    _save(fig, spath)
    return fig
