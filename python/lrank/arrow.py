"""Predictions on Arrow data: a record batch (or table) in, a record batch out, so an lrank
model drops into Arrow-based engines without lrank depending on them.

- Ray Data: ``ds.map_batches(lambda batch: predict_batch(model, batch), batch_format="pyarrow")``
- Spark: ``df.mapInArrow(lambda batches: (predict_batch(model, b) for b in batches), schema)``
  with ``schema`` the output's: ``ranking string`` then one ``int`` column per label.

The features are read from the batch's columns (numeric Arrow columns without nulls are read in
place), copied once into the row-major matrix the core reads, and ranked with the GIL released.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["predict_batch"]


def _estimator(model: Any) -> Any:
    if isinstance(model, (str, os.PathLike)):
        from lrank.model_file import load_model

        loaded = load_model(model)
        loaded.estimator.labels_ = list(loaded.labels)
        return loaded.estimator, [a.name for a in loaded.attributes if a.kind != "string"]
    return model, None


def predict_batch(model: Any, batch: Any, *, feature_columns: list[str] | None = None) -> Any:
    """The rankings of ``batch``'s rows as a pyarrow RecordBatch: ``ranking`` (``b>a>c``) then
    each label's position. ``model`` is a fitted estimator or a model file written by ``lrank
    train -d``; the features are ``feature_columns``, else the model's columns
    (``feature_names_in_``, or the model file's attributes), else every column of the batch."""
    import polars as pl
    import pyarrow as pa

    estimator, names = _estimator(model)
    frame = pl.from_arrow(batch)
    if isinstance(frame, pl.Series):
        frame = frame.to_frame()
    columns = feature_columns
    if columns is None:
        fitted = getattr(estimator, "feature_names_in_", None)
        columns = list(fitted) if fitted is not None else names
    if columns is not None:
        frame = frame.select(columns)
    x = frame if getattr(estimator, "feature_names_in_", None) is not None else frame.to_numpy()
    table = estimator.predict_frame(x).to_arrow().combine_chunks()
    return pa.RecordBatch.from_arrays([c.chunk(0) for c in table.columns], schema=table.schema)
