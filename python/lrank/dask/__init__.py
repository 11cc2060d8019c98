"""lrank on a Dask cluster (``pip install 'lrank[dask]'``): experiments whose cells are Dask
tasks (``lrank experiment run --dask``). Nothing else in lrank depends on Dask.
"""

from lrank.dask.cluster import DaskError, check_spec, dashboard_link, open_client

__all__ = ["DaskError", "check_spec", "dashboard_link", "open_client"]
