"""``lrank predict``: rankings for a data file from a saved model."""

from __future__ import annotations

import click

from lrank.cli.common import user_errors
from lrank.data import read_dataset
from lrank.data.alignment import aligned_features
from lrank.datasets import resolve
from lrank.model_file import load_model
from lrank.rankings import format_ranking


@click.command("predict", context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "-l", "model_file", required=True, type=click.Path(dir_okay=False), help="Model file written by `lrank train -d`."
)
@click.option(
    "-T",
    "data_file",
    required=True,
    type=click.Path(dir_okay=False),
    help="Data to rank: XARFF/ARFF (a RANKING attribute is optional) or KEBI CSV.",
)
@click.option("-o", "out", type=click.Path(dir_okay=False), help="Write rankings here (default: stdout).")
@click.option("-j", "--jobs", type=int, default=None, help="Threads (default: all cores).")
@click.option(
    "--confidence", is_flag=True, help="Append each row's confidence after a tab (IBLR: the Mallows spread theta)."
)
def predict_command(model_file: str, data_file: str, out: str | None, jobs: int | None, confidence: bool) -> None:
    """Write one predicted ranking per row of the data file, as a>b>c (most preferred first)."""
    with user_errors():
        loaded = load_model(model_file)
        data = read_dataset(resolve(data_file), require_rankings=False)
        x = aligned_features(loaded.attributes, data)
        if jobs is not None:
            loaded.estimator.set_params(n_jobs=jobs)
        if confidence:
            if not hasattr(loaded.estimator, "predict_with_confidence"):
                raise click.ClickException(f"learner {loaded.learner} gives no per-row confidence")
            pred, conf = loaded.estimator.predict_with_confidence(x)
            lines = [f"{format_ranking(row, loaded.labels)}\t{c:.6g}" for row, c in zip(pred, conf)]
        else:
            pred = loaded.estimator.predict(x)
            lines = [format_ranking(row, loaded.labels) for row in pred]
        text = "\n".join(lines) + "\n"
        if out:
            with open(out, "w", encoding="utf-8") as fh:
                fh.write(text)
        else:
            click.echo(text, nl=False)
