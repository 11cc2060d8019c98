"""An experiment from Python: learners by their CLI names (as `lrank experiment run -W`), 5-fold
CV on the bundled data sets, two worker processes, the store, the report with Demšar's statistics
and the critical-difference diagram as a matplotlib Figure (shown in a notebook as it is)."""

import tempfile
from pathlib import Path

from lrank.experiment import (
    ExperimentConfig,
    ResultStore,
    expand_datasets,
    parse_learner,
    plan_experiment,
    run_experiment,
)
from lrank.experiment.plots import cd_diagram
from lrank.experiment.render import render
from lrank.experiment.report import build_tables, table_statistics

store_path = Path(tempfile.mkdtemp()) / "results.parquet"
config = ExperimentConfig(
    datasets=tuple(expand_datasets(["iris", "wine"])),
    learners=tuple(parse_learner(text) for text in ["LRT", "IBLR", "LRRF -I 20", "Forest=OVO -B forest -I 20"]),
    folds=5,
    repeats=1,
    output=str(store_path),
    workers=2,  # worker processes; no `if __name__ == "__main__":` needed
)
store = ResultStore(store_path)
with store.locked():
    summary = run_experiment(plan_experiment(config, store), store)
print(f"computed {summary.computed} cells")

(table,) = build_tables(store.read())  # one table per missing-label probability: here p = 0
stats = table_statistics(table)
print(render([table], "text", stats=[stats]))
figure = cd_diagram(list(table.learners), list(table.average_ranks), table.n_ranked)
figure.savefig(store_path.with_suffix(".svg"))  # or leave the figure as a notebook cell's result
print("average ranks:", {learner: float(rank) for learner, rank in zip(table.learners, table.average_ranks)})
