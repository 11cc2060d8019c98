"""``lrank experiment``: run the papers' protocol over many data sets and learners, report, plot.

lrank experiment run DATA... -W LRRF -W "IBLR -K 10" [-x 10] [--repeats 5] [--missing 0,0.3]
lrank experiment report STORE [--format text|markdown|csv|latex] [--measure M] [-o FILE]
lrank experiment plot cd|missing|parameter STORE -o FIGURE.png|svg
"""

from __future__ import annotations

import sys
from typing import Any

import click

from lrank import __version__
from lrank.cli.common import FiniteFloatRange, jobs_option, user_errors
from lrank.cli.signals import Terminated, terminated_as_interrupt
from lrank.errors import ExperimentError
from lrank.evaluation.cross_validation import MAX_REPEATS
from lrank.experiment.config import (
    DEFAULT_OUTPUT,
    ExperimentConfig,
    expand_datasets,
    expand_sweep,
    load_config_file,
    merge_settings,
    parse_learner,
    parse_missing,
)
from lrank.experiment.render import FORMATS, render
from lrank.experiment.report import build_tables, table_statistics
from lrank.experiment.runner import plan_experiment, run_experiment
from lrank.experiment.store import MEASURE_COLUMNS, ResultStore, read_stores

CONTEXT = {"help_option_names": ["-h", "--help"]}
MEASURE_CHOICE = click.Choice(list(MEASURE_COLUMNS))


@click.group("experiment", context_settings=CONTEXT)
def experiment_group() -> None:
    """Compare learners over many data sets with the papers' protocol.

    \b
    `run` computes every (data set, learner, p, repeat, fold) cell once into a Parquet store,
    resuming where an interrupted run stopped; `report` renders tables and statistics from a
    store instantly; `plot` draws the critical-difference diagram and the tau curves.

    \b
    Example (the 16 KEBI sets, three learners, 5 x 10-fold CV, three missing-label rates):
      lrank experiment run ../shared/datasets/kebi-csv -W LRRF -W IBLR -W LRT \\
            --missing 0,0.3,0.6 -o kebi.parquet
      lrank experiment report kebi.parquet --format markdown -o kebi.md
      lrank experiment plot cd kebi.parquet -o cd.svg
      lrank experiment plot missing kebi.parquet --mean -o p-curve.png
    """


def _format_seconds(seconds: float) -> str:
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s" if m else f"{s}s"


@experiment_group.command("run", context_settings=CONTEXT)
@click.argument("data", nargs=-1, metavar="[DATA]...")
@click.option(
    "-W",
    "--learner",
    "learners",
    multiple=True,
    metavar="LEARNER",
    help="A learner with its options, repeatable: -W LRRF -W 'IBLR -K 10'; "
    "name a column with LABEL=: -W 'RF100=LRRF -I 100'.",
)
@click.option(
    "--sweep",
    "sweeps",
    multiple=True,
    metavar="LEARNER",
    help="A learner with one option given a comma-separated list, one learner per value: "
    "--sweep 'LRRF -I 10,20,50,100'.",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False),
    help="TOML file with datasets, learners, sweep, folds, repeats, missing, seed, output, jobs, "
    "workers, dask; options given here override it.",
)
@click.option(
    "-x",
    "--folds",
    type=click.IntRange(min=2),
    default=None,
    help="Cross-validation folds, stratified by top label. [default: 10]",
)
@click.option(
    "--repeats",
    type=click.IntRange(1, MAX_REPEATS),
    default=None,
    help="Repeats of cross-validation, seeds s..s+R-1. [default: 5]",
)
@click.option(
    "--missing",
    multiple=True,
    metavar="P[,P...]",
    help="Missing-label probabilities for the training rankings, e.g. 0,0.3,0.6 (repeatable). [default: 0]",
)
@click.option(
    "-s",
    "--seed",
    type=click.IntRange(min=0),
    default=None,
    help="Seed of folds, label deletion and learners. [default: 1]",
)
@jobs_option("Threads per learner. [default: all cores; 1 with --workers > 1]")
@click.option(
    "--workers", type=click.IntRange(min=1), default=None, help="Cells computed in parallel processes. [default: 1]"
)
@click.option(
    "--dask",
    "dask",
    default=None,
    metavar="ADDRESS|local:N",
    help="Compute the cells on a Dask cluster: a running scheduler's address, or local:N worker "
    "processes started here (pip install 'lrank[dask]'). The numbers are those of --workers 1.",
)
@click.option(
    "-o",
    "--output",
    default=None,
    type=click.Path(dir_okay=False),
    help=f"The result store (Parquet); an existing one is resumed. [default: {DEFAULT_OUTPUT}]",
)
@click.option(
    "--measure",
    type=MEASURE_CHOICE,
    default=None,
    help="Measure of the report printed at the end (default: tau_x for data with ties, else kendall_tau).",
)
@click.option(
    "--alpha",
    type=FiniteFloatRange(0, 1, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    help="Significance level of the statistics in that report.",
)
@click.option("--no-report", is_flag=True, help="Do not print the report at the end.")
@click.option("--dry-run", is_flag=True, help="Check everything and say what would run, without running it.")
@click.pass_context
def run_command(
    ctx: click.Context,
    data: tuple[str, ...],
    learners: tuple[str, ...],
    sweeps: tuple[str, ...],
    config_file: str | None,
    folds: int | None,
    repeats: int | None,
    missing: tuple[str, ...],
    seed: int | None,
    jobs: int | None,
    workers: int | None,
    dask: str | None,
    output: str | None,
    measure: str | None,
    alpha: float,
    no_report: bool,
    dry_run: bool,
) -> None:
    """Run every (data set, learner, p, repeat, fold) cell into a Parquet store.

    \b
    DATA are data files (.xarff, .arff, KEBI .csv, .parquet), globs or directories.
    The protocol is that of `lrank train`: stratified folds (by top label), repeat r with
    seed s + r for its folds and its label deletion, test rankings complete; every learner
    sees identical folds. Results are written as they are computed; run the same command
    again after an interruption and only the missing cells are computed. A progress bar
    with ETA goes to stderr when it is a terminal; the report goes to stdout.

    \b
    Examples:
      lrank experiment run datasets/ -W LRRF -W "IBLR -K 10" -x 10 --repeats 5
      lrank experiment run data/*.csv --sweep "LRRF -I 10,20,50,100" -o trees.parquet
      lrank experiment run --config exp.toml
    """
    with user_errors():
        settings: dict[str, Any] = load_config_file(config_file) if config_file else {}
        cli: dict[str, Any] = {
            "datasets": expand_datasets(data) if data else None,
            "learners": [parse_learner(s) for s in learners] or None,
            "sweep": list(sweeps) or None,
            "folds": folds,
            "repeats": repeats,
            "seed": seed,
            "jobs": jobs,
            "workers": workers,
            "dask": dask,
            "missing": parse_missing(",".join(missing)) if missing else None,
            "output": output,
        }
        s = merge_settings(settings, cli)
        all_learners = list(s.get("learners", []))
        for sweep in s.get("sweep", []):
            all_learners += expand_sweep(sweep)
        config = ExperimentConfig(
            datasets=tuple(s.get("datasets", ())),
            learners=tuple(all_learners),
            folds=s.get("folds", 10),
            repeats=s.get("repeats", 5),
            missing=tuple(s.get("missing", (0.0,))),
            seed=s.get("seed", 1),
            output=s.get("output", DEFAULT_OUTPUT),
            jobs=s.get("jobs"),
            workers=s.get("workers", 1),
            dask=s.get("dask"),
        )
        store = ResultStore(config.output)
        with store.locked():
            plan = plan_experiment(config, store)
            click.echo(
                f"experiment: {len(config.datasets)} data sets x {len(config.learners)} learners x "
                f"{len(config.missing)} p x {config.repeats} x {config.folds}-fold CV = {config.n_cells} cells; "
                f"{config.n_cells - len(plan.pending)} stored, {len(plan.pending)} to run -> {store.path}",
                err=True,
            )
            if plan.extended_from is not None:
                click.echo(
                    f"note: extending the store from {plan.extended_from} to {config.repeats} repeats "
                    "(the stored repeats are those this run would compute: repeat r's folds depend on "
                    "the seed and r alone)",
                    err=True,
                )
            if plan.other_versions:
                click.echo(
                    f"note: the store holds cells computed by lrank {', '.join(plan.other_versions)}; "
                    f"new cells are computed by lrank {__version__}",
                    err=True,
                )
            for learner, before, now in plan.other_plugin_versions:
                click.echo(
                    f"note: the store's cells of {learner} were computed with {before}; "
                    f"new cells are computed with {now}",
                    err=True,
                )
            if dry_run:
                return
            summary = _run_with_progress(plan, store)
        click.echo(
            f"done: {summary.computed} cells computed in {_format_seconds(summary.seconds)}, "
            f"{summary.already_stored} were already stored; {summary.stored_total} cells in {store.path}",
            err=True,
        )
        if not no_report:
            _print_report(
                store,
                measure=measure,
                alpha=alpha,
                missing=config.missing,
                learners=[lr.label for lr in config.learners],
                # Alphabetical, as `lrank experiment report` orders them.
                datasets=sorted(d.name for d in config.datasets),
            )


def _announce_cluster(client: Any) -> None:
    from lrank.dask import dashboard_link

    workers = len(client.scheduler_info().get("workers", {}))
    link = dashboard_link(client)
    click.echo(f"dask: {workers} workers" + (f", dashboard {link}" if link else ""), err=True)


def _stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


def _run_with_progress(plan: Any, store: ResultStore) -> Any:
    # `kill` or a job scheduler's time limit stops a run like Ctrl-C does: the computed cells are
    # written and the worker processes stopped, instead of being orphaned mid-cell.
    try:
        with terminated_as_interrupt():
            return _run_showing_progress(plan, store)
    except KeyboardInterrupt as exc:
        stored = store.read().height
        click.echo(
            f"\ninterrupted: {stored} cells are stored in {store.path}; run the same command again to compute the rest",
            err=True,
        )
        # 128 + the signal, as a shell reports a process the signal ended.
        raise click.exceptions.Exit(143 if isinstance(exc, Terminated) else 130) from None


def _run_showing_progress(plan: Any, store: ResultStore) -> Any:
    total = len(plan.pending)
    if not _stderr_is_terminal() or total == 0:  # no bar in logs and pipes
        return run_experiment(plan, store, on_cluster=_announce_cluster)
    with click.progressbar(
        length=total,
        label="cells",
        file=sys.stderr,
        show_eta=True,
        show_pos=True,
        show_percent=True,
        item_show_func=lambda row: row and f"{row['dataset']} / {row['learner']}",
    ) as bar:
        return run_experiment(plan, store, on_cell=lambda row: bar.update(1, row), on_cluster=_announce_cluster)


def _print_report(
    store: ResultStore, *, measure: str | None, alpha: float, missing: Any, learners: list[str], datasets: list[str]
) -> None:
    tables = build_tables(
        store.read(), measure=measure, missing=missing, learners=learners, datasets=datasets, source=str(store.path)
    )
    stats = [table_statistics(t, alpha=alpha) for t in tables]
    click.echo(render(tables, "text", stats=stats), nl=False)


@experiment_group.command("report", context_settings=CONTEXT)
@click.argument("store_paths", metavar="STORE...", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option(
    "--measure",
    type=MEASURE_CHOICE,
    default=None,
    help="Measure in the tables (default: tau_x for data with ties, else kendall_tau).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(list(FORMATS)),
    default="text",
    show_default=True,
    help="Terminal text, Markdown, CSV or LaTeX (statistics only in text and Markdown).",
)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the report here (default: stdout).")
@click.option(
    "--p",
    "--missing",
    "missing",
    type=float,
    multiple=True,
    metavar="P",
    help="Only this missing-label probability (repeatable; default: all in the store).",
)
@click.option(
    "-W",
    "--learner",
    "learners",
    multiple=True,
    metavar="LABEL",
    help="Only these learners, in this column order (repeatable; default: all, in store order).",
)
@click.option(
    "--dataset",
    "datasets",
    multiple=True,
    metavar="NAME",
    help="Only these data sets, in this order (repeatable; default: all, alphabetically).",
)
@click.option(
    "--alpha",
    type=FiniteFloatRange(0, 1, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    help="Significance level of the statistics.",
)
@click.option(
    "--control", metavar="LABEL", help="Control learner of Bonferroni-Dunn and Holm. [default: best average rank]"
)
@click.option(
    "--wilcoxon",
    "pairs",
    type=(str, str),
    multiple=True,
    metavar="A B",
    help="Wilcoxon signed-rank test of learners A and B (repeatable; automatic for two learners).",
)
@click.option("--digits", type=click.IntRange(0, 12), default=None, help="Decimals of the means. [default: 3; csv: 6]")
@click.option("--std", is_flag=True, help="Each mean with the standard deviation over its folds (0.912±0.031).")
@click.option("--no-stats", is_flag=True, help="Tables only, without the statistics.")
def report_command(
    store_paths: tuple[str, ...],
    measure: str | None,
    fmt: str,
    output: str | None,
    missing: tuple[float, ...],
    learners: tuple[str, ...],
    datasets: tuple[str, ...],
    alpha: float,
    control: str | None,
    pairs: tuple[tuple[str, str], ...],
    digits: int | None,
    std: bool,
    no_stats: bool,
) -> None:
    """Tables and statistics from a result store, as in Zhou & Qiu (2018), Tables 3 to 6.

    \b
    Per missing-label probability p: the mean of the measure per data set (rows) and
    learner (columns), each learner's rank on the data set in parentheses (1 = best, ties
    share the average rank), then "average rank" and "wins" (ties count for each tied
    learner), and Demšar's (2006) tests: Friedman, Iman-Davenport, Nemenyi and
    Bonferroni-Dunn critical differences, Holm against the best learner, Wilcoxon.
    Data sets where a learner lacks folds are shown but left out of ranks and tests.
    Nothing is recomputed: a finished store renders instantly. Several stores made with the
    same folds, repeats and seed (a learner run later into a store of its own) make one table.
    """
    with user_errors():
        tables = build_tables(
            read_stores(store_paths),
            measure=measure,
            missing=list(missing) or None,
            learners=list(learners) or None,
            datasets=list(datasets) or None,
            source=", ".join(store_paths),
        )
        stats = [] if no_stats else [table_statistics(t, alpha=alpha, control=control, pairs=pairs) for t in tables]
        text = render(tables, fmt, digits=digits, stats=stats, std=std)  # digits None: each format's default
        if output:
            with open(output, "w", encoding="utf-8") as fh:
                fh.write(text)
            click.echo(f"wrote {fmt} report to {output}", err=True)
        else:
            click.echo(text, nl=False)


@experiment_group.command("plot", context_settings=CONTEXT)
@click.argument("kind", type=click.Choice(["cd", "missing", "parameter"]))
@click.argument("store_paths", metavar="STORE...", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="Figure file: .png, .svg or .pdf.")
@click.option(
    "--measure",
    type=MEASURE_CHOICE,
    default=None,
    help="Measure plotted or ranked (default: tau_x for data with ties, else kendall_tau).",
)
@click.option(
    "--p",
    "--missing",
    "missing",
    type=float,
    default=None,
    metavar="P",
    help="Missing-label probability of cd and parameter plots. [default: the smallest in the store]",
)
@click.option(
    "--method",
    type=click.Choice(["nemenyi", "bonferroni-dunn"]),
    default="nemenyi",
    show_default=True,
    help="cd: bars joining groups Nemenyi does not separate, or the Bonferroni-Dunn interval around the control.",
)
@click.option(
    "--alpha",
    type=FiniteFloatRange(0, 1, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    help="cd: significance level.",
)
@click.option("--control", metavar="LABEL", help="cd with bonferroni-dunn: the control. [default: best average rank]")
@click.option(
    "--option", "option", metavar="FLAG", help="parameter: the swept learner option, e.g. -I (trees) or -depth."
)
@click.option("--mean", is_flag=True, help="missing and parameter: one panel, the mean over data sets.")
@click.option(
    "-W",
    "--learner",
    "learners",
    multiple=True,
    metavar="LABEL",
    help="cd and missing: only these learners (repeatable).",
)
@click.option("--dataset", "datasets", multiple=True, metavar="NAME", help="Only these data sets (repeatable).")
@click.option("--title", help="Figure title.")
def plot_command(
    kind: str,
    store_paths: tuple[str, ...],
    output: str,
    measure: str | None,
    missing: float | None,
    method: str,
    alpha: float,
    control: str | None,
    option: str | None,
    mean: bool,
    learners: tuple[str, ...],
    datasets: tuple[str, ...],
    title: str | None,
) -> None:
    """Figures from a result store (needs matplotlib: pip install 'lrank[plot]').

    \b
    cd         critical-difference diagram (Demšar 2006) of the average ranks at one p
    missing    the measure against the missing-label probability (Zhou & Qiu, Figure 2)
    parameter  the measure against a swept learner option (Figures 3 and 4), e.g.
               after --sweep "LRRF -I 10,20,50,100":  plot parameter STORE --option -I

    \b
    Examples:
      lrank experiment plot cd kebi.parquet -o cd.svg
      lrank experiment plot cd kebi.parquet --method bonferroni-dunn -o cd-bd.png
      lrank experiment plot missing kebi.parquet --mean -o p-curve.png
      lrank experiment plot parameter trees.parquet --option -I --mean -o trees.png
    """
    from lrank.experiment import plots
    from lrank.stats import critical_difference

    with user_errors():
        plots.check_plot_path(output)
        frame = read_stores(store_paths)
        if control is not None and (kind != "cd" or method != "bonferroni-dunn"):
            raise ExperimentError("--control is the control of plot cd --method bonferroni-dunn; it means nothing here")
        _refuse_options_of_other_plots(kind)
        if kind == "cd":
            (table,) = build_tables(
                frame,
                measure=measure,
                missing=[_smallest_p(frame) if missing is None else missing],
                learners=list(learners) or None,
                datasets=list(datasets) or None,
            )
            if table.n_ranked < 2:
                raise ExperimentError(
                    f"a critical-difference diagram needs at least two data sets with complete results "
                    f"for every learner at p = {table.missing:g} (have {table.n_ranked})"
                )
            plots.cd_diagram(
                list(table.learners),
                list(table.average_ranks),
                table.n_ranked,
                output,
                alpha=alpha,
                method=method,
                control=control,
                title=title,
            )
            cd = critical_difference(len(table.learners), table.n_ranked, alpha, method=method)
            click.echo(f"wrote {output} ({method} CD = {cd:.2f} over {table.n_ranked} data sets)", err=True)
        elif kind == "missing":
            plots.missing_curve(
                frame,
                output,
                measure=measure,
                learners=list(learners) or None,
                datasets=list(datasets) or None,
                mean=mean,
                title=title,
            )
            click.echo(f"wrote {output}", err=True)
        else:
            if not option:
                raise ExperimentError("plot parameter needs --option FLAG, e.g. --option -I")
            plots.parameter_curve(
                frame,
                output,
                option=option,
                measure=measure,
                missing=missing,
                datasets=list(datasets) or None,
                mean=mean,
                title=title,
            )
            click.echo(f"wrote {output}", err=True)


# The plots each option of plot_command shapes (--control: above; --dataset, --title: every one).
_PLOT_OPTIONS = {
    "missing": ("--p", ("cd", "parameter")),
    "method": ("--method", ("cd",)),
    "alpha": ("--alpha", ("cd",)),
    "option": ("--option", ("parameter",)),
    "mean": ("--mean", ("missing", "parameter")),
    "learners": ("-W", ("cd", "missing")),
}


def _refuse_options_of_other_plots(kind: str) -> None:
    """An option given for a plot it does not shape is refused, not silently ignored."""
    ctx = click.get_current_context()
    for name, (flag, kinds) in _PLOT_OPTIONS.items():
        if kind not in kinds and ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE:
            raise ExperimentError(f"{flag} shapes plot {' and '.join(kinds)}; it means nothing to plot {kind}")


def _smallest_p(frame: Any) -> float:
    return float(frame.get_column("missing").min())
