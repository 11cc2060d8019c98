"""``lrank train``: build a learner on a data file and evaluate it, as WEKA-LR does."""

from __future__ import annotations

import contextlib
import json
import math
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from lrank.cli.common import FiniteFloatRange, jobs_option, user_errors
from lrank.cli.elapsed import elapsed_line
from lrank.cli.predictions import RANGE_HELP, parse_range, prediction_rows, predictions_text, title_of
from lrank.cli.report import text_report
from lrank.evaluation import FoldResult
from lrank.evaluation.cross_validation import MAX_REPEATS
from lrank.evaluation.workflow import (
    Progress,
    RowPredictions,
    evaluate_saved_model,
    train_and_evaluate,
)
from lrank.rankings import has_ties

if TYPE_CHECKING:
    from lrank.data import LabelRankingDataset
    from lrank.learner_spec import LearnerSpec


# WEKA's evaluation options that lrank train does not take, and what to do instead.
_WEKA_ONLY = {
    "-c": "not needed: the ranking attribute is found by its type",
    "-i": "not needed: the report always holds the pairwise correct|incorrect table",
    "-k": "not offered: the report holds the ranking measures",
    "-o": "not needed: the report does not print the model (lrank info MODEL --tree N prints a tree)",
    "-v": "not offered: with -T the report holds the test data's measures alone",
    "-classifications": "not offered: -p RANGE prints each row's true and predicted ranking",
}


class TrainCommand(click.Command):
    """``lrank train`` with hints for WEKA-LR habits when an option is unknown."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # A long option with one dash may parse as a short one with a value (-preserve-order as
        # -p reserve-order, a learner's -depth 3 as -d epth: a model file "epth") and fail later,
        # far from the cause, or not at all: caught before parsing.
        cut = args.index("--") if "--" in args else len(args)
        own, rest = args[:cut], args[cut + 1 :]
        long_names = {name for p in self.params for name in getattr(p, "opts", []) if name.startswith("--")}
        short_names = {name for p in self.params for name in getattr(p, "opts", []) if not name.startswith("--")}
        for a in own:
            head = a.split("=", 1)[0]
            if a.startswith("-") and not a.startswith("--") and ("-" + head in long_names or head == "-help"):
                raise click.UsageError(f"No such option: {head} (lrank's own long options take two dashes: -{a})")
        spec = _learner_spec(own)
        if spec is not None:
            learner_flags = {o.flag for o in spec.options}
            for i, tok in enumerate(own):
                if tok in learner_flags and tok not in short_names:
                    raise click.UsageError(f"No such option: {_learner_option_hint(spec, own, i)}", ctx=ctx)
        # One of lrank train's options written among the learner's (after --): said so.
        from lrank.registry import available_learners

        any_learner_flags = {o.flag for s in available_learners().values() for o in s.options}
        for tok in rest:
            if tok in short_names and tok not in any_learner_flags:
                raise click.UsageError(
                    f"{tok} is an option of lrank train, not of the learner: put it before --", ctx=ctx
                )
        try:
            return super().parse_args(ctx, list(args))
        # BadParameter too: click reads -split-percentage as -s with the value "plit-percentage".
        except (click.NoSuchOption, click.BadParameter):
            hint = _weka_hint(self, args)
            if hint is None:
                raise
            raise click.UsageError(f"No such option: {hint}", ctx=ctx) from None


def _learner_spec(own: list[str]) -> LearnerSpec | None:
    """The learner ``-W`` names among lrank train's own arguments (LRRF without -W), if known."""
    from lrank.registry import available_learners

    learner = own[own.index("-W") + 1] if "-W" in own and own.index("-W") + 1 < len(own) else "LRRF"
    learners = available_learners()
    return learners.get(learner) or {k.lower(): v for k, v in learners.items()}.get(learner.lower())


def _learner_option_hint(spec: LearnerSpec, own: list[str], i: int) -> str:
    tok = own[i]
    value = f" {own[i + 1]}" if i + 1 < len(own) and not own[i + 1].startswith("-") else ""
    return (
        f"{tok} ({tok} is an option of the learner {spec.name}; learner options go after --, "
        f"as in WEKA: lrank train ... -W {spec.name} -- {tok}{value})"
    )


def _weka_hint(command: click.Command, args: list[str]) -> str | None:
    """What an unknown option probably meant: one of lrank's own long options written with one
    dash (``-no-cv``), a learner option written before ``--`` (``-W LRRF -I 100``), or one of
    WEKA's evaluation options lrank does without (``-c``, ``-i``)."""
    own = args[: args.index("--")] if "--" in args else args
    long_names = {name for p in command.params for name in getattr(p, "opts", []) if name.startswith("--")}
    short_names = {name for p in command.params for name in getattr(p, "opts", []) if not name.startswith("--")}
    spec = _learner_spec(own)
    for i, tok in enumerate(own):
        if not tok.startswith("-") or tok.startswith("--") or tok in short_names:
            continue
        if "-" + tok in long_names:
            return f"{tok} (lrank's own long options take two dashes: -{tok})"
        if spec is not None and tok in {o.flag for o in spec.options}:
            return _learner_option_hint(spec, own, i)
        if tok in _WEKA_ONLY:
            return f"{tok} (WEKA's {tok} option is {_WEKA_ONLY[tok]})"
    return None


@click.command("train", cls=TrainCommand, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "-t",
    "train_file",
    type=click.Path(dir_okay=False),
    help="Training data: XARFF/ARFF, the KEBI CSV layout (.csv), Parquet, or a bundled data set's name (iris).",
)
@click.option(
    "-l",
    "model_in",
    type=click.Path(dir_okay=False),
    help="Instead of training: evaluate this saved model (from -d) on -T, as WEKA's -l.",
)
@click.option(
    "-T",
    "test_file",
    type=click.Path(dir_okay=False),
    help="Test data. Without it: evaluate on the training data and by cross-validation.",
)
@click.option(
    "-x",
    "folds",
    type=click.IntRange(min=2),
    default=10,
    show_default=True,
    help="Number of cross-validation folds (stratified by top label).",
)
@click.option(
    "-s",
    "seed",
    type=click.IntRange(min=0),
    default=1,
    show_default=True,
    help="Random seed: folds, label deletion and the learner.",
)
@click.option("-W", "learner", default="LRRF", show_default=True, help="Learner name (see `lrank learners`).")
@click.option(
    "-d",
    "model_out",
    type=click.Path(dir_okay=False),
    help="Save the model built on all training data here (.json: JSON, else binary).",
)
@click.option(
    "--repeats",
    type=click.IntRange(1, MAX_REPEATS),
    default=1,
    show_default=True,
    help="Repeat cross-validation with seeds s, s+1, ..., s+R-1.",
)
@click.option(
    "--missing",
    type=FiniteFloatRange(0.0, 1.0, max_open=True),
    default=0.0,
    show_default=True,
    help="Delete each training label with this probability (at least two kept per ranking).",
)
@click.option("--no-cv", is_flag=True, help="Skip cross-validation (only with -t).")
@click.option(
    "--split-percentage",
    "split",
    type=FiniteFloatRange(0.0, 100.0, min_open=True, max_open=True),
    default=None,
    help="Instead of cross-validation: train on this percentage of the rows (drawn with -s, stratified "
    "by top label) and evaluate on the rest, as WEKA's -split-percentage.",
)
@click.option(
    "--preserve-order",
    is_flag=True,
    help="With --split-percentage: train on the first rows in file order, test on the rest (WEKA's "
    "-preserve-order; for data in time order).",
)
@jobs_option("Threads for the learner (default: all cores, or OMP_NUM_THREADS if set).")
@click.option("-p", "print_range", metavar="RANGE", help=RANGE_HELP)
@click.option(
    "--importances",
    is_flag=True,
    help="Report each feature's share of the decrease in pairwise disagreement of the training rankings "
    "over the splits of the model built on all training data (models with trees; GBLR: the splits' "
    "gain on its loss; as WEKA's -attribute-importance).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output format (JSON: the report, with -p a 'predictions' list in it).",
)
@click.argument("learner_options", nargs=-1, type=click.UNPROCESSED, metavar="[-- LEARNER OPTIONS]")
def train_command(
    train_file: str | None,
    model_in: str | None,
    test_file: str | None,
    folds: int,
    seed: int,
    learner: str,
    model_out: str | None,
    repeats: int,
    missing: float,
    no_cv: bool,
    split: float | None,
    preserve_order: bool,
    jobs: int | None,
    print_range: str | None,
    importances: bool,
    fmt: str,
    learner_options: tuple[str, ...],
) -> None:
    """Train a learner and report ranking measures, like WEKA's classifier command line.

    \b
    With only -t: the model is evaluated on the training data and by stratified
    cross-validation. With -T: it is trained on TRAIN and evaluated on TEST.
    With -l MODEL -T TEST: a model saved with -d is evaluated on TEST.
    Learner options go after `--`, e.g.  lrank train -t iris.xarff -W LRRF -- -I 100 -depth 0
    """
    ctx = click.get_current_context()
    if model_in is not None:
        _evaluate_saved(ctx, model_in, test_file, jobs, print_range, fmt, learner_options)
        return
    if train_file is None:
        raise click.UsageError("Missing option '-t' (the training data; or -l MODEL -T TEST to evaluate a saved model)")
    if preserve_order and (split is None or test_file is not None):
        raise click.UsageError("--preserve-order goes with --split-percentage (and no -T)")
    if test_file is not None or split is not None:
        given = [("-x", "folds"), ("--repeats", "repeats"), ("--no-cv", "no_cv")]
        if test_file is not None:
            given.append(("--split-percentage", "split"))
        unused = [flag for flag, name in given if ctx.get_parameter_source(name) is not ParameterSource.DEFAULT]
        instead = "-T" if test_file is not None else "--split-percentage"
        if unused:
            click.echo(f"Note: {', '.join(unused)} ignored: cross-validation does not run with {instead}", err=True)
    chosen: list[int] | None = None

    def check_range(train: LabelRankingDataset, test: LabelRankingDataset | None) -> None:
        # Before the fit: the attributes are numbered as in the file whose rows are printed.
        nonlocal chosen
        assert print_range is not None  # only given as a check with -p
        chosen = parse_range(print_range, len((test or train).attributes))

    with user_errors():
        result = train_and_evaluate(
            learner,
            train_file,
            learner_options,
            test=test_file,
            seed=seed,
            n_jobs=jobs,
            folds=folds,
            repeats=repeats,
            missing=missing,
            cross_validation=not no_cv,
            split=None if test_file else split,
            preserve_order=preserve_order,
            model_out=model_out,
            progress=_progress_bar(folds, repeats, split) if sys.stderr.isatty() else None,  # no bar in logs and pipes
            keep_predictions=print_range is not None,
            check_data=None if print_range is None else check_range,
            # A fit of minutes is not silence: its seconds counted on a terminal.
            stage=(lambda what: elapsed_line(what, sys.stderr)) if sys.stderr.isatty() else None,
        )

    data = result.data
    assert result.build_seconds is not None  # the final model is always fitted here
    test_info: dict[str, Any] = {}
    if test_file:
        test_info = {
            "test_file": test_file,
            "test_instances": result.test_rows,
            "test_time_seconds": result.test_seconds,
        }
    names = data.dataset.feature_names()
    shares = {"feature_importances": _importances(result.estimator, names)} if importances else {}
    report: dict[str, Any] = {
        "learner": {
            "name": result.spec.name,
            "options": result.options,
            "params": _jsonable(_params_of(result.estimator)),
            "options_in_effect": result.spec.describe(_params_of(result.estimator)),
            **_tuned(result.spec, result.estimator),
        },
        "seed": seed,
        "relation": data.dataset.relation,
        "train_file": train_file,
        "instances": data.n_rows,
        "features": data.x.shape[1],
        "labels": data.labels,
        "test_mode": _test_mode(test_file, folds, repeats, seed, no_cv, split, preserve_order),
        "missing_label_probability": missing,
        "build_time_seconds": round(result.build_seconds, 6),
        **test_info,
        "model_file": model_out,
        **_out_of_bag(result.estimator, data.y),
        **shares,
        "evaluations": [e.to_dict() for e in result.evaluations],
    }
    _print(report, result.predictions, result.data.labels, chosen, result.evaluations[-1].name, fmt)


def _params_of(estimator: Any) -> dict[str, Any]:
    """The estimator's parameters; none for a plug-in's estimator without ``get_params`` (its
    report came after the whole fit, and crashed)."""
    get_params = getattr(estimator, "get_params", None)
    return get_params(deep=False) if callable(get_params) else {}


def _print(
    report: dict[str, Any],
    predictions: RowPredictions | None,
    labels: list[str],
    attributes: list[int] | None,
    evaluated: str,
    fmt: str,
) -> None:
    """The report; with -p (``attributes`` given) the rows instead in text, beside it in JSON."""
    rows = None if predictions is None or attributes is None else prediction_rows(predictions, labels, attributes)
    if fmt == "json":
        if rows is not None:
            report["predictions"] = rows
        click.echo(json.dumps(report, indent=2))
    elif rows is not None:
        click.echo(predictions_text(rows, title_of(evaluated)))
    else:
        click.echo(text_report(report))


def _out_of_bag(estimator: Any, y: Any) -> dict[str, Any]:
    """With -oob: the final model's out-of-bag estimate (tau_x when the rankings tie labels)."""
    score = getattr(estimator, "oob_score_", None)
    if score is None:
        return {}
    covered = int(estimator.oob_prediction_.any(axis=1).sum())
    measure = "tau_x" if has_ties(y) else "kendall_tau"
    value = None if math.isnan(score) else round(score, 6)
    return {"out_of_bag": {"measure": measure, "value": value, "rows": covered}}


def _importances(estimator: Any, names: list[str]) -> list[dict[str, Any]] | None:
    """The features by their share of the splits' impurity decrease, largest first (None: the
    model has no trees)."""
    shares = getattr(estimator, "feature_importances_", None)
    if shares is None:
        return None
    order = sorted(range(len(names)), key=lambda j: -shares[j])  # stable: ties in file order
    return [{"feature": names[j], "share": round(float(shares[j]), 6)} for j in order]


# What a saved model's evaluation cannot take: it trains nothing and cross-validates nothing.
_TRAINING_ONLY = [
    ("-t", "train_file"),
    ("-x", "folds"),
    ("-s", "seed"),
    ("-W", "learner"),
    ("-d", "model_out"),
    ("--repeats", "repeats"),
    ("--missing", "missing"),
    ("--no-cv", "no_cv"),
    ("--split-percentage", "split"),
    ("--preserve-order", "preserve_order"),
    ("--importances", "importances"),
]


def _evaluate_saved(
    ctx: click.Context,
    model_in: str,
    test_file: str | None,
    jobs: int | None,
    print_range: str | None,
    fmt: str,
    learner_options: tuple[str, ...],
) -> None:
    """``-l MODEL -T TEST``: the saved model's measures on TEST, in the report's layout."""
    given = [flag for flag, name in _TRAINING_ONLY if ctx.get_parameter_source(name) is not ParameterSource.DEFAULT]
    if learner_options:
        given.append("learner options")
    if given:
        listed = ", ".join(given)
        raise click.UsageError(f"-l evaluates a saved model on -T, without training: {listed} cannot be given with it")
    if test_file is None:
        raise click.UsageError("-l needs -T: the labelled test data to evaluate the saved model on")
    from lrank.registry import get_learner

    with user_errors():
        result = evaluate_saved_model(model_in, test_file, n_jobs=jobs, keep_predictions=print_range is not None)
        chosen = None if print_range is None else parse_range(print_range, len(result.test.attributes))
    loaded = result.model
    params = loaded.estimator.get_params(deep=False)
    spec = get_learner(loaded.learner)
    report: dict[str, Any] = {
        "learner": {
            "name": loaded.learner,
            "options": loaded.learner_options,
            "params": _jsonable(params),
            "options_in_effect": spec.describe(params),
            **_tuned(spec, loaded.estimator),
        },
        # The seed the model was trained with, where its parameters hold one.
        "seed": seed if isinstance(seed := params.get("random_state"), int) else None,
        "relation": str(loaded.metadata.get("relation") or result.test.relation),
        "train_file": None,
        "instances": None,
        "features": len(loaded.attributes),
        "labels": list(loaded.labels),
        "test_mode": f"user supplied test set: {test_file}",
        "missing_label_probability": 0.0,
        "build_time_seconds": None,
        "loaded_model": model_in,
        "test_file": test_file,
        "test_instances": result.test.n_rows,
        "test_time_seconds": result.test_seconds,
        "model_file": None,
        "evaluations": [result.evaluation.to_dict()],
    }
    _print(report, result.predictions, list(loaded.labels), chosen, "test data", fmt)


def _progress_bar(folds: int, repeats: int, split: float | None) -> Progress:
    """A bar on stderr over the cross-validation folds, so that stdout stays a clean report
    (and clean JSON)."""

    @contextlib.contextmanager
    def bar(total: int) -> Iterator[Callable[[FoldResult], None]]:
        label = f"{split:g}% split" if split is not None else f"{folds}-fold cross-validation x {repeats}"
        with click.progressbar(length=total, label=label, file=sys.stderr, show_eta=True) as progress:
            yield lambda fold: progress.update(1)

    return bar


def _test_mode(
    test_file: str | None, folds: int, repeats: int, seed: int, no_cv: bool, split: float | None, preserve_order: bool
) -> str:
    if test_file:
        return f"user supplied test set: {test_file}"
    if split is not None and preserve_order:
        return f"split {split:g}% train (the first rows, in file order), remainder test"
    if split is not None:
        return f"split {split:g}% train, remainder test (stratified by top label), seed {seed}"
    if no_cv:
        return "evaluate on training data"
    rep = f", {repeats} repeats (seeds {seed}..{seed + repeats - 1})" if repeats > 1 else f", seed {seed}"
    return f"{folds}-fold stratified cross-validation{rep}"


def _tuned(spec: LearnerSpec, estimator: Any) -> dict[str, Any]:
    """What a tuned final model chose (``best_params_``), as parameters and as the learner's
    options; both None when nothing was tuned."""
    chosen = getattr(estimator, "best_params_", None)
    if chosen is None:
        return {"tuned": None, "tuned_options": None}
    return {"tuned": _jsonable(chosen), "tuned_options": spec.describe(chosen)}


def _jsonable(params: dict[str, Any]) -> dict[str, Any]:
    """The learner's parameters for the JSON report; its thread count left out (null), so the
    report of one seed is the same whatever -j ran it."""
    plain = {k: (v if isinstance(v, (int, float, str, bool, type(None))) else repr(v)) for k, v in params.items()}
    return {**plain, "n_jobs": None} if "n_jobs" in plain else plain
