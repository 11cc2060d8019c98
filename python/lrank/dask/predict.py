"""Batch prediction on a Dask cluster: every partition's rankings written as a Parquet file.

The model is sent to each worker once (``scatter(broadcast=True)``); each partition is read by
the worker that predicts it and written as ``part-NNNNN.parquet`` in the output directory, with
the ranking in lrank's notation (``b>a>c``), each label's position, and any columns asked to be
kept (an id, say).
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

from lrank.arrow import _ranks_in_core, model_estimator
from lrank.dask import _partitions
from lrank.dask.cluster import DaskError, require_dask
from lrank.dask.forest import _client


def _predict_part(part: Any, estimator: Any, feature_columns: list[str] | None, keep: list[str], out: str) -> int:
    """On a worker: one partition's predictions, written to ``out``; returns its rows."""
    import polars as pl

    if isinstance(part, tuple):
        x, frame = part[0], pl.DataFrame()
        result = _single_threaded(estimator).predict_frame(x)
    else:
        frame = _partitions._frame(part)
        columns = feature_columns
        if columns is None:
            fitted = getattr(estimator, "feature_names_in_", None)
            columns = list(fitted) if fitted is not None else [c for c in frame.columns if c not in keep]
        if _ranks_in_core(estimator):
            # The columns go to the core as Arrow (no copy into numpy), the rankings come back
            # as Arrow columns (no formatting in Python).
            ranked = estimator.model_.predict_arrow(frame, estimator._label_names(), columns, n_jobs=1)
            result = pl.DataFrame(ranked)
        else:
            x = frame.select(columns)
            if getattr(estimator, "feature_names_in_", None) is None:
                # Fitted on an array: the columns were chosen by name here, so hand over the
                # values alone rather than have the estimator warn about names it never saw.
                x = x.to_numpy()
            result = _single_threaded(estimator).predict_frame(x)
    if keep:
        result = pl.concat([frame.select(keep), result], how="horizontal")
    result.write_parquet(out)
    return result.height


def _single_threaded(estimator: Any) -> Any:
    """One partition per worker thread, as the forests are fitted: a shallow copy (the fitted
    model shared) so that the estimator other threads of this worker use is left as it is."""
    if "n_jobs" in estimator.get_params(deep=False):
        estimator = copy.copy(estimator)
        estimator.n_jobs = 1
    return estimator


def predict(
    model: Any,
    data: Any,
    output_dir: str | os.PathLike[str],
    *,
    feature_columns: list[str] | None = None,
    keep_columns: list[str] = (),  # type: ignore[assignment]
    client: Any = None,
) -> list[str]:
    """Predicts every partition of ``data`` (a Dask DataFrame, a pair of Dask arrays or a
    directory of Parquet files) with ``model`` (a fitted estimator or a model file written by
    ``lrank train -d``) and writes the results to ``output_dir``; returns the files written.
    The features are the model's columns (its ``feature_names_in_``, or the attributes of the
    model file), unless ``feature_columns`` names them."""
    require_dask()
    import dask

    client = _client(client)
    estimator, names = model_estimator(model)
    columns = feature_columns if feature_columns is not None else names
    parts = _partitions.partitions(data)
    taken = {"ranking", *(getattr(estimator, "labels_", None) or [f"L{j + 1}" for j in range(estimator.n_labels_)])}
    clash = sorted(taken & set(keep_columns))
    if clash:
        raise DaskError(f"kept columns {clash} would clash with the output's columns (ranking and the labels)")
    fitted = getattr(estimator, "feature_names_in_", None)
    read = columns if columns is not None else (list(fitted) if fitted is not None else [])
    _partitions.check_columns(data, [*read, *keep_columns], "columns")
    out_dir = Path(output_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    shipped = client.scatter(estimator, broadcast=True, hash=False)
    files = [str(out_dir / f"part-{i:05d}.parquet") for i in range(len(parts))]
    jobs = [dask.delayed(_predict_part)(p, shipped, columns, list(keep_columns), f) for p, f in zip(parts, files)]
    client.gather(client.compute(jobs))
    return files
