"""An experiment's cells as Dask tasks (``lrank experiment run --dask``).

Each data file is read once, here, and sent to every worker once (``scatter(broadcast=True)``):
a cell's task takes it as an argument, so no cell reads or ships the data again, and a worker
that dies loses nothing the others do not hold. The scheduler recomputes the cells of a dead
worker elsewhere. Cells are the same deterministic computation as in one process
(:func:`lrank.experiment.runner.compute_cell`), so the store's numbers are those of
``--workers 1``; results arrive as cells finish and stream into the store as usual.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lrank.dask.cluster import open_client


def cell_results(tasks: tuple[Any, ...], spec: str, on_start: Any = None) -> Iterator[Any]:
    """Each task's row (or CellFailure), in the order the cells finish."""
    from distributed import as_completed

    from lrank.evaluation.workflow import load_training_data
    from lrank.experiment.runner import execute_cell

    with open_client(spec) as client:
        if on_start is not None:
            on_start(client)
        paths = sorted({t.dataset.source.path for t in tasks})
        data = client.scatter({p: load_training_data(p) for p in paths}, broadcast=True, hash=False)
        futures = [
            client.submit(execute_cell, task, data[task.dataset.source.path], pure=False, key=f"lrank-cell-{i}")
            for i, task in enumerate(tasks)
        ]
        try:
            for future in as_completed(futures):
                yield future.result()
        finally:
            client.cancel(futures)
