"""A status line counting the seconds a long step takes (``lrank train``'s fit on all the training
data, which runs before the cross-validation's progress bar): on a terminal's stderr, shown only
once the step has taken a second, and cleared when it ends, so quick runs print nothing."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import TextIO


@contextlib.contextmanager
def elapsed_line(label: str, stream: TextIO, *, after: float = 1.0, every: float = 1.0) -> Iterator[None]:
    """Writes ``label: N s`` to ``stream`` every ``every`` seconds from ``after`` seconds on while
    the block runs (the fits release the GIL, so the line keeps counting), then clears it."""
    done = threading.Event()
    start = time.perf_counter()
    widest = 0

    def count() -> None:
        nonlocal widest
        if done.wait(after):
            return
        while True:
            text = f"{label}: {time.perf_counter() - start:.0f} s"
            widest = max(widest, len(text))
            stream.write("\r" + text)
            stream.flush()
            if done.wait(every):
                return

    counter = threading.Thread(target=count, name="lrank-elapsed", daemon=True)
    counter.start()
    try:
        yield
    finally:
        done.set()
        counter.join()
        if widest:
            stream.write("\r" + " " * widest + "\r")
            stream.flush()
