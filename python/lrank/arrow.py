"""Predictions on Arrow data: a record batch (or table, or Polars DataFrame) in, a record batch
out, so an lrank model drops into Arrow-based engines without lrank depending on them.

- Ray Data: ``ds.map_batches(lambda batch: predict_batch(model, batch), batch_format="pyarrow")``
- Spark: ``df.mapInArrow(lambda batches: (predict_batch(model, b) for b in batches), schema)``
  with ``schema`` the output's: ``ranking string`` then one ``int`` column per label.

The batch crosses into the core through the Arrow PyCapsule protocol (``__arrow_c_array__``,
``__arrow_c_stream__``): numeric and boolean columns are read where they lie, nulls as missing
values, copied once into the row-major matrix the core reads and ranked with the GIL released;
the rankings come back as Arrow columns made in the core. Models that read categorical columns
(string or dictionary features at fit) and learners that predict in Python take the way through
Polars instead, with the same output.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["predict_batch"]


def model_estimator(model: Any) -> tuple[Any, list[str] | None]:
    """A fitted estimator, or a model file's, with the feature columns the file declares (None
    for an estimator). A file with nominal attributes gives an estimator that reads columns by
    name and their values by the declared names, as one fitted on a frame of categories does."""
    if not isinstance(model, (str, os.PathLike)):
        return model, None
    import numpy as np

    from lrank.model_file import load_model

    loaded = load_model(model)
    estimator = loaded.estimator
    estimator.labels_ = list(loaded.labels)
    used = [a for a in loaded.attributes if a.kind != "string"]
    if any(a.kind == "nominal" for a in used):
        estimator.categories_ = [list(a.values or ()) if a.kind == "nominal" else None for a in used]
        estimator.feature_names_in_ = np.asarray([a.name for a in used], dtype=object)
    return estimator, [a.name for a in used]


def _ranks_in_core(estimator: Any) -> bool:
    """Whether the core can rank the batch itself: a core learner that predicts with the core
    model alone and reads no categorical column."""
    from lrank.estimators.base import CoreLearnerRanker

    return (
        isinstance(estimator, CoreLearnerRanker)
        and type(estimator).predict is CoreLearnerRanker.predict
        and hasattr(estimator, "model_")
        and not any(c is not None for c in getattr(estimator, "categories_", None) or [])
    )


def _record_batch(batch: Any) -> Any:
    """A pyarrow RecordBatch of the core's batch (no copy), or the core's batch itself, which
    any PyCapsule-aware library reads (``polars.DataFrame(batch)``), when pyarrow is absent."""
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - the tests have pyarrow
        return batch
    return pa.record_batch(batch)


def predict_batch(model: Any, batch: Any, *, feature_columns: list[str] | None = None) -> Any:
    """The rankings of ``batch``'s rows as a pyarrow RecordBatch: ``ranking`` (``b>a>c``) then
    each label's position. ``batch`` is Arrow data: a pyarrow RecordBatch or Table, a Polars
    DataFrame, or any object with ``__arrow_c_array__`` or ``__arrow_c_stream__``. ``model`` is
    a fitted estimator or a model file written by ``lrank train -d``; the features are
    ``feature_columns``, else the model's columns (``feature_names_in_``, or the model file's
    attributes), else every column of the batch."""
    estimator, names = model_estimator(model)
    columns = feature_columns
    if columns is None:
        fitted = getattr(estimator, "feature_names_in_", None)
        columns = list(fitted) if fitted is not None else names
    if _ranks_in_core(estimator):
        labels = estimator._label_names()
        out = estimator.model_.predict_arrow(batch, labels, columns, n_jobs=estimator._predict_jobs())
        return _record_batch(out)
    return _predict_through_polars(estimator, batch, columns)


def _predict_through_polars(estimator: Any, batch: Any, columns: list[str] | None) -> Any:
    import polars as pl
    import pyarrow as pa

    frame = batch if isinstance(batch, pl.DataFrame) else pl.from_arrow(batch)
    if isinstance(frame, pl.Series):
        frame = frame.to_frame()
    if columns is not None:
        frame = frame.select(columns)
    x = frame if getattr(estimator, "feature_names_in_", None) is not None else frame.to_numpy()
    table = estimator.predict_frame(x).to_arrow().combine_chunks()
    return pa.RecordBatch.from_arrays([c.combine_chunks() for c in table.columns], schema=table.schema)
