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
from lrank.errors import ExperimentError

# Times a cancelled cell is submitted again before the run stops.
MAX_RETRIES = 3


def cell_results(tasks: tuple[Any, ...], spec: str, on_start: Any = None) -> Iterator[Any]:
    """Each task's row (or CellFailure), in the order the cells finish."""
    from concurrent.futures import CancelledError

    from distributed import as_completed

    from lrank.evaluation.workflow import load_training_data
    from lrank.experiment.runner import execute_cell

    with open_client(spec) as client:
        if on_start is not None:
            on_start(client)
        paths = sorted({t.dataset.source.path for t in tasks})
        loaded = {p: load_training_data(p) for p in paths}
        data = client.scatter(loaded, broadcast=True, hash=False)
        cell_of: dict[Any, int] = {}
        tries = [0] * len(tasks)

        def submit(i: int) -> Any:
            key = f"lrank-cell-{i}" if tries[i] == 0 else f"lrank-cell-{i}-retry-{tries[i]}"
            future = client.submit(execute_cell, tasks[i], data[tasks[i].dataset.source.path], pure=False, key=key)
            cell_of[future] = i
            return future

        futures = [submit(i) for i in range(len(tasks))]
        pending = as_completed(futures)
        try:
            for future in pending:
                try:
                    yield future.result()
                except CancelledError:
                    # The scheduler gave up a cell whose worker died at the wrong moment (it
                    # can forget the task along with data the worker was sending): ship the
                    # data again and compute the cell once more, a few times at most.
                    i = cell_of[future]
                    tries[i] += 1
                    if tries[i] > MAX_RETRIES:
                        raise ExperimentError(
                            f"cell {i + 1} ({tasks[i].dataset.source.path}) was cancelled by the Dask "
                            f"cluster {MAX_RETRIES + 1} times (workers dying?); rerun to resume"
                        ) from None
                    path = tasks[i].dataset.source.path
                    data[path] = client.scatter(loaded[path], broadcast=True, hash=False)
                    pending.add(submit(i))
        finally:
            client.cancel(list(cell_of))
