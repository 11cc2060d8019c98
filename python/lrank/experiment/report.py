"""Tables and statistics from an experiment store, laid out like Tables 3 to 6 of Zhou & Qiu
(2018): per missing-label probability p, the mean of a measure per data set (rows) and learner
(columns), each learner's rank on the data set in parentheses (1 = best, ties share the average
rank), then the rows "average rank" and "wins" (data sets where the learner is best, ties
counting for each tied learner), followed by Demšar's (2006) tests on those ranks.

The tables are written out by :mod:`lrank.experiment.render`.

A data set enters the ranks, average ranks, wins and statistics only when every learner has all
its folds there; otherwise its row shows what there is (``0.912 [12/50]`` = mean over the 12 of
50 folds stored, ``n/a`` = none) and a note names it, so nothing is averaged silently.
"""

from __future__ import annotations

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

__all__ = ["ResultTable", "TableStatistics", "build_tables", "default_measure", "table_statistics"]

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
    # Standard deviation over each cell's folds (n - 1 in the denominator); NaN below two folds.
    stds: NDArray[np.float64] | None = None
    # Learners of the store with no cell at this p, left out of the table (named in its notes).
    not_run: tuple[str, ...] = ()
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
        table_learners, not_run = chosen_learners, []
        if learners is None:
            # A learner run at other p only (a store joined with a later one) would leave every
            # data set of this p incomplete, and so out of every rank and statistic.
            here = set(sub.get_column("learner").unique().to_list())
            if any(lab in here for lab in chosen_learners):
                table_learners = [lab for lab in chosen_learners if lab in here]
                not_run = [lab for lab in chosen_learners if lab not in here]
        agg = sub.group_by("dataset", "learner").agg(
            pl.col(measure).fill_nan(None).mean().alias("mean"),
            pl.len().alias("count"),
            pl.col(measure).fill_nan(None).std().alias("std"),
        )
        means = np.full((len(chosen_datasets), len(table_learners)), np.nan)
        stds = np.full(means.shape, np.nan)
        counts = np.zeros(means.shape, dtype=np.int64)
        d_index = {d: i for i, d in enumerate(chosen_datasets)}
        l_index = {lab: j for j, lab in enumerate(table_learners)}
        for dataset, learner, mean, count, std in agg.iter_rows():
            if dataset in d_index and learner in l_index:
                i, j = d_index[dataset], l_index[learner]
                means[i, j] = np.nan if mean is None else mean
                stds[i, j] = np.nan if std is None else std
                counts[i, j] = count
        tables.append(
            ResultTable(
                measure=measure,
                missing=float(p),
                datasets=tuple(chosen_datasets),
                learners=tuple(table_learners),
                means=means,
                counts=counts,
                folds=int(folds),
                repeats=int(repeats),
                seed=int(seed),
                stds=stds,
                not_run=tuple(not_run),
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
    for a_label, b_label in pairs:
        if a_label == b_label:
            raise ExperimentError(f"--wilcoxon {a_label} {b_label} compares a learner with itself: name two learners")
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
