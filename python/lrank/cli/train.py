"""``lrank train``: build a learner on a data file and evaluate it, as WEKA-LR does."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any

import click
import numpy as np

from lrank.cli.common import user_errors
from lrank.cli.report import text_report
from lrank.data import read_dataset
from lrank.data.alignment import aligned_features, aligned_rankings
from lrank.evaluation import Evaluation, cross_validate
from lrank.model_file import save_model
from lrank.rankings import delete_labels
from lrank.registry import get_learner


@click.command("train", context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "-t",
    "train_file",
    required=True,
    type=click.Path(dir_okay=False),
    help="Training data: XARFF/ARFF, or the KEBI CSV layout (.csv).",
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
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Repeat cross-validation with seeds s, s+1, ..., s+R-1.",
)
@click.option(
    "--missing",
    type=click.FloatRange(0.0, 1.0, max_open=True),
    default=0.0,
    show_default=True,
    help="Delete each training label with this probability (at least two kept per ranking).",
)
@click.option("--no-cv", is_flag=True, help="Skip cross-validation (only with -t).")
@click.option("-j", "--jobs", type=int, default=None, help="Threads for the learner (default: all cores).")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Output format."
)
@click.argument("learner_options", nargs=-1, type=click.UNPROCESSED, metavar="[-- LEARNER OPTIONS]")
def train_command(
    train_file: str,
    test_file: str | None,
    folds: int,
    seed: int,
    learner: str,
    model_out: str | None,
    repeats: int,
    missing: float,
    no_cv: bool,
    jobs: int | None,
    fmt: str,
    learner_options: tuple[str, ...],
) -> None:
    """Train a learner and report ranking measures, like WEKA's classifier command line.

    \b
    With only -t: the model is evaluated on the training data and by stratified
    cross-validation. With -T: it is trained on TRAIN and evaluated on TEST.
    Learner options go after `--`, e.g.  lrank train -t iris.xarff -W LRRF -- -I 100 -depth 0
    """
    with user_errors():
        spec = get_learner(learner)
        options = list(learner_options)
        spec.parse_options(options)  # report option mistakes before reading any data
        train = read_dataset(train_file)
        if not test_file and not no_cv and folds > train.n_rows:
            raise click.ClickException(f"cannot make {folds} folds from {train.n_rows} instances")
        x = train.feature_matrix()
        y = train.rankings
        assert y is not None  # read_dataset requires rankings
        weights = train.weights if np.any(train.weights != 1.0) else None
        labels = list(train.labels)

        nominal = train.nominal_features()
        categorical = nominal.tolist() if nominal.any() else None

        def make() -> Any:
            return spec.build(options, seed=seed, n_jobs=jobs, categorical_features=categorical)

        y_fit = delete_labels(y, missing, np.random.default_rng([seed, 0x5EED])) if missing > 0 else y
        estimator = make()
        start = time.perf_counter()
        estimator.fit(x, y_fit, sample_weight=weights)
        build_time = time.perf_counter() - start
        if model_out:
            save_model(
                model_out,
                estimator,
                learner=spec.name,
                learner_options=options,
                labels=labels,
                attributes=train.attributes,
                relation=train.relation,
            )

        evaluations: list[Evaluation] = []
        test_info: dict[str, Any] = {}
        if test_file:
            test = read_dataset(test_file)
            xt, yt = aligned_features(train.attributes, test), aligned_rankings(labels, test)
            start = time.perf_counter()
            pred = estimator.predict(xt)
            test_info = {
                "test_file": test_file,
                "test_instances": test.n_rows,
                "test_time_seconds": time.perf_counter() - start,
            }
            ev = Evaluation("test data", labels)
            ev.add(yt, pred)
            evaluations.append(ev)
        else:
            ev = Evaluation("training data", labels)
            ev.add(y, estimator.predict(x))
            evaluations.append(ev)
            if not no_cv:
                evaluations.append(_cross_validate(make, x, y, weights, labels, folds, repeats, seed, missing))

    report: dict[str, Any] = {
        "learner": {"name": spec.name, "options": options, "params": _jsonable(estimator.get_params())},
        "relation": train.relation,
        "train_file": train_file,
        "instances": train.n_rows,
        "features": x.shape[1],
        "labels": labels,
        "test_mode": _test_mode(test_file, folds, repeats, seed, no_cv),
        "missing_label_probability": missing,
        "build_time_seconds": round(build_time, 6),
        **test_info,
        "model_file": model_out,
        "evaluations": [e.to_dict() for e in evaluations],
    }
    if fmt == "json":
        click.echo(json.dumps(report, indent=2))
    else:
        click.echo(text_report(report))


def _cross_validate(
    make: Callable[[], Any],
    x: np.ndarray,
    y: np.ndarray,
    weights: np.ndarray | None,
    labels: list[str],
    folds: int,
    repeats: int,
    seed: int,
    missing: float,
) -> Evaluation:
    total = folds * repeats
    kwargs: dict[str, Any] = {
        "labels": labels,
        "n_folds": folds,
        "repeats": repeats,
        "seed": seed,
        "missing": missing,
        "sample_weight": weights,
    }
    if not sys.stderr.isatty():  # no bar in logs and pipes
        return cross_validate(make, x, y, **kwargs)
    # The bar goes to stderr so that stdout stays a clean report (and clean JSON).
    with click.progressbar(
        length=total, label=f"{folds}-fold cross-validation x {repeats}", file=sys.stderr, show_eta=True
    ) as bar:
        return cross_validate(make, x, y, **kwargs, on_fold=lambda r, k, m: bar.update(1))


def _test_mode(test_file: str | None, folds: int, repeats: int, seed: int, no_cv: bool) -> str:
    if test_file:
        return f"user supplied test set: {test_file}"
    if no_cv:
        return "evaluate on training data"
    rep = f", {repeats} repeats (seeds {seed}..{seed + repeats - 1})" if repeats > 1 else f", seed {seed}"
    return f"{folds}-fold stratified cross-validation{rep}"


def _jsonable(params: dict[str, Any]) -> dict[str, Any]:
    return {k: (v if isinstance(v, (int, float, str, bool, type(None))) else repr(v)) for k, v in params.items()}
