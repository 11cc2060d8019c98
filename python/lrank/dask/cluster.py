"""Connecting to a Dask cluster: a running scheduler by address, or a local cluster of worker
processes (``local:N``) that lives as long as the connection."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from typing import Any

from lrank.errors import LrankError

_LOCAL = re.compile(r"^local:(\d+)$")


class DaskError(LrankError):
    """Dask is not installed, a cluster cannot be reached, or a spec is not understood."""


def max_local_workers() -> int:
    """The most worker processes of a local cluster: 4 per core (at least 8). Each takes memory of
    its own, and a count by the thousand only exhausts the machine."""
    return max(8, 4 * (os.cpu_count() or 1))


def check_spec(spec: str) -> str:
    """``local:N`` (N >= 1 worker processes) or a scheduler address (``tcp://host:8786``,
    ``host:8786``); raises DaskError naming the problem, or that Dask is not installed."""
    require_dask()
    match = _LOCAL.match(spec)
    if match is not None:
        if int(match.group(1)) < 1:
            raise DaskError(f"--dask {spec}: a local cluster needs at least one worker")
        if int(match.group(1)) > max_local_workers():
            raise DaskError(
                f"--dask {spec}: a local cluster may start at most {max_local_workers()} worker processes "
                "here (4 per core)"
            )
        return spec
    if spec.startswith("local"):
        raise DaskError(f"--dask {spec!r}: write local:N, N the number of worker processes")
    if not re.match(r"^([a-z]+://)?[^\s:/]+:\d+$", spec):
        raise DaskError(f"--dask {spec!r}: give a scheduler address (tcp://host:8786) or local:N")
    return spec


def _distributed() -> Any:
    require_dask()
    import distributed

    return distributed


def require_dask() -> None:
    """Raises DaskError with the install command when Dask or distributed is missing (a bare
    ModuleNotFoundError from inside lrank told the user nothing)."""
    try:
        import dask  # noqa: F401
        import distributed  # noqa: F401
    except ImportError:
        raise DaskError("Dask is not installed: pip install 'lrank[dask]'") from None


@contextlib.contextmanager
def open_client(spec: str, *, memory_limit: str | None = None) -> Iterator[Any]:
    """A ``distributed.Client`` for ``spec`` (see :func:`check_spec`); a local cluster's workers
    are processes with one thread each (lrank's learners bring their own threads)."""
    distributed = _distributed()
    check_spec(spec)
    match = _LOCAL.match(spec)
    if match is not None:
        options: dict[str, Any] = {"n_workers": int(match.group(1)), "threads_per_worker": 1, "processes": True}
        if memory_limit is not None:
            options["memory_limit"] = memory_limit
        # A free port for the dashboard: two local clusters on one machine must not collide.
        with (
            distributed.LocalCluster(dashboard_address=":0", **options) as cluster,
            distributed.Client(cluster) as client,
        ):
            yield client
        return
    try:
        client = distributed.Client(spec, timeout="15s")
    except OSError as exc:
        raise DaskError(f"cannot reach the Dask scheduler at {spec}: {exc}") from None
    with client:
        yield client


def dashboard_link(client: Any) -> str | None:
    """The Dask dashboard's address, when the cluster serves one."""
    try:
        info = client.scheduler_info()
    except Exception:  # an old or unusual scheduler: no link, nothing else lost
        return None
    return client.dashboard_link if info.get("services", {}).get("dashboard") else None
