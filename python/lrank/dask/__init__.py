"""lrank on a Dask cluster (``pip install 'lrank[dask]'``); nothing else in lrank depends on Dask.

- Experiments: ``lrank experiment run ... --dask ADDRESS`` or ``--dask local:N``: the cells are
  Dask tasks (:mod:`lrank.dask.experiment`).
- Training: :func:`fit` grows a forest's trees on the partitions of data larger than one
  worker's memory and merges them into one ordinary model (:mod:`lrank.dask.forest`); with
  ``exact=True`` it grows LR-RF level by level from sums over the partitions, bit for bit the
  forest one machine grows from all the rows (:mod:`lrank.dask.exact`).
- Batch prediction: :func:`predict` writes every partition's rankings as Parquet
  (:mod:`lrank.dask.predict`).

Functions take ``client=`` (a ``distributed.Client``), or use the current one.
"""

from lrank.dask.cluster import DaskError, check_spec, dashboard_link, open_client
from lrank.dask.forest import fit
from lrank.dask.predict import predict

__all__ = ["DaskError", "check_spec", "dashboard_link", "fit", "open_client", "predict"]
