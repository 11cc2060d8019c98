"""``lrank info`` and ``lrank convert``: looking at and converting data files."""

from __future__ import annotations

import json
from pathlib import Path

import click

from lrank.cli.common import kebi_label_names, replaced_when_written, user_errors
from lrank.data import DATA_SUFFIXES, STDIN_REFUSED, read_dataset, write_dataset
from lrank.data.summary import summarize
from lrank.datasets import resolve
from lrank.model_file import load_model
from lrank.registry import get_learner

# Data files by suffix (lrank.data.read_dataset); anything else is read as a model file.


@click.command("info", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option(
    "--tree",
    type=click.IntRange(min=0, max=2**63 - 1),
    default=None,
    help="A model file: print its tree N (0: the first) as text, splits and leaf rankings, as WEKA prints a model.",
)
@click.option(
    "--depth", type=click.IntRange(min=0, max=10_000), default=None, help="With --tree: levels printed (default 10)."
)
def info_command(file: str, fmt: str, tree: int | None, depth: int | None) -> None:
    """Describe a data file: instances, attributes, labels, incompleteness, ties, top labels; or
    a model file of `lrank train -d` (any other suffix): its learner, options, labels and
    attributes, and with --tree one of its trees."""
    if depth is not None and tree is None:
        raise click.UsageError("--depth goes with --tree")
    if tree is not None and fmt == "json":
        raise click.UsageError("--tree prints text: leave out --format json")
    if file == "-":
        raise click.ClickException(f"-: {STDIN_REFUSED}")
    suffix = Path(file).suffix.lower()
    if suffix not in DATA_SUFFIXES and not Path(file).exists() and not resolve(file).exists():
        # Neither a data file (by suffix) nor a bundled data set: "unknown suffix" hid the typo.
        raise click.ClickException(f"{file}: file not found")
    if suffix in (".lrm", ".json") or (suffix not in DATA_SUFFIXES and Path(file).is_file()):
        _model_info(file, fmt, tree, 10 if depth is None else depth)
        return
    if tree is not None:
        raise click.UsageError("--tree prints a tree of a model file, not of a data file")
    with user_errors():
        s = summarize(read_dataset(resolve(file), require_rankings=False))
    if fmt == "json":
        click.echo(json.dumps(s, indent=2))
        return
    a = s["attributes"]
    click.echo(f"Relation:            {s['relation']}")
    click.echo(f"Instances:           {s['instances']}")
    click.echo(f"Attributes:          {a['numeric']} numeric, {a['nominal']} nominal, {a['string']} string")
    click.echo(f"Missing values:      {s['missing_feature_values']}")
    click.echo(f"Weighted rows:       {s['weighted_rows']}")
    click.echo(f"Labels:              {len(s['labels'])} ({', '.join(map(_shown, s['labels']))})")
    if "distinct_rankings" in s:
        click.echo(
            f"Incomplete rankings: {s['incomplete_rankings']} ({100 * s['incomplete_share']:.1f}%), "
            f"{s['mean_labels_per_ranking']:.2f} labels per ranking on average"
        )
        click.echo(f"Partial orders:      {s['partial_orders']}")
        click.echo(
            f"Rankings with ties:  {s['rankings_with_ties']} "
            f"({100 * s['rankings_with_ties'] / max(1, s['instances']):.1f}%), "
            f"{s['mean_buckets_per_ranking']:.2f} buckets per ranking on average"
        )
        click.echo(f"Distinct rankings:   {s['distinct_rankings']}")
        click.echo("Top-label distribution:")
        total = max(1, s["instances"])
        for label, count in s["top_label_distribution"].items():
            click.echo(f"  {label:<20}{count:>8g}  {100 * count / total:5.1f}%")
    else:
        click.echo("Rankings:            none (a plain feature table)")


def _shown(name: str) -> str:
    # A name holding a line break (possible in XARFF quotes and model files) keeps one line.
    return name if name.isprintable() else repr(name)


def _model_info(file: str, fmt: str, tree: int | None = None, depth: int = 10) -> None:
    with user_errors():
        loaded = load_model(file)
    if tree is not None:
        from lrank.export import export_text

        used = [a for a in loaded.attributes if a.kind != "string"]
        names = [a.name for a in used]
        values = [list(a.values or ()) if a.kind == "nominal" else None for a in used]
        if not loaded.estimator.model_.has_trees:
            raise click.ClickException(f"{file}: the {loaded.learner} model has no trees to print")
        with user_errors():
            text = export_text(loaded.estimator, tree=tree, feature_names=names, max_depth=depth, category_names=values)
        click.echo(text, nl=False)
        return
    spec = get_learner(loaded.learner)
    info = {
        "model_file": file,
        "learner": loaded.learner,
        "learner_options": loaded.learner_options,
        "options_in_effect": spec.describe(loaded.estimator.get_params(deep=False)),
        "chosen_when_fitting": spec.describe(_chosen_when_fitting(loaded.estimator)) or None,
        "trained_by_lrank": loaded.metadata.get("lrank_version"),
        "relation": loaded.metadata.get("relation"),
        "labels": loaded.labels,
        "attributes": [{"name": a.name, "kind": a.kind} for a in loaded.attributes],
    }
    if fmt == "json":
        click.echo(json.dumps(info, indent=2))
        return
    click.echo(f"Model file:          {file} (lrank {info['trained_by_lrank']})")
    click.echo(f"Learner:             {' '.join([loaded.learner, *loaded.learner_options])}")
    click.echo(f"Parameters:          {info['options_in_effect'] or '(none)'}")
    if info["chosen_when_fitting"]:
        click.echo(f"Chosen when fitting: {info['chosen_when_fitting']}")
    # save_model from Python records no relation unless given one: say so, not a blank.
    click.echo(f"Trained on:          {info['relation'] or '(not recorded)'}")
    click.echo(f"Labels:              {len(loaded.labels)} ({', '.join(map(_shown, loaded.labels))})")
    kinds = ", ".join(f"{_shown(a.name)} ({a.kind})" for a in loaded.attributes)
    click.echo(f"Attributes:          {len(loaded.attributes)}: {kinds}")


# Fitted attributes that hold what a fit chose for a parameter (class_mode="auto" resolved, k or
# beta chosen by inner cross-validation, rounds kept by early stopping), by parameter.
_FITTED_CHOICES = {
    "class_mode": "class_mode_",
    "n_neighbors": "n_neighbors_",
    "beta": "beta_",
    "max_depth": "max_depth_",
    "n_estimators": "n_estimators_",
}


def _chosen_when_fitting(estimator: object) -> dict[str, object]:
    """The parameters whose fitted value differs from the one given, with the fitted value, and
    what tuning chose (``best_params_``)."""
    given = estimator.get_params(deep=False)  # type: ignore[attr-defined]
    chosen = {
        param: getattr(estimator, attr)
        for param, attr in _FITTED_CHOICES.items()
        if param in given and getattr(estimator, attr, None) is not None and getattr(estimator, attr) != given[param]
    }
    return {**chosen, **(getattr(estimator, "best_params_", None) or {})}


@click.command("convert", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("source", type=click.Path(dir_okay=False))
@click.argument("target", type=click.Path(dir_okay=False))
def convert_command(source: str, target: str) -> None:
    """Convert between XARFF/ARFF, the KEBI CSV layout and Parquet (formats chosen by suffix:
    .xarff/.arff, .csv, .parquet). Parquet keeps everything XARFF does (nominal and string
    attributes, weights, incomplete rankings, partial orders), so it converts back exactly.
    The KEBI CSV layout names labels L1, L2, ...: other names are replaced, and a note says how."""
    with user_errors():
        data, note = kebi_label_names(read_dataset(resolve(source)), target)
        if Path(target).suffix.lower() not in DATA_SUFFIXES:
            write_dataset(data, target)  # refuses the suffix, naming TARGET
        with replaced_when_written(target) as temporary:  # a failed write leaves TARGET as it was
            write_dataset(data, temporary)
    if note is not None:
        click.echo(note, err=True)
    click.echo(f"wrote {data.n_rows} rows to {target}", err=True)
