"""SIGTERM (``kill``, a job scheduler's time limit) as an interruption the command can clean up
after, like Ctrl-C, ending with its own status (143 = 128 + SIGTERM). Used by ``experiment run``,
whose work runs in worker processes; a Python handler runs only between the core's calls, so a
command that computes in this process (``predict``) keeps SIGTERM's immediate default."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: the command stops as after Ctrl-C, but ends with 143."""


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated


@contextlib.contextmanager
def terminated_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` (a ``KeyboardInterrupt``), so that
    ``finally`` blocks run: computed cells are kept, worker processes stopped.
    Only where SIGTERM would otherwise end the process at once (Python's default), and only on
    the main thread (the one Python runs handlers on); elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
