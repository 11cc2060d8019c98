"""Supervising fuzz workers: one case at a time per worker, a timeout and a memory limit each.

A worker (:mod:`fuzz.worker`) runs with its address space limited (``RLIMIT_AS``), which lrank's
own size checks read; its resident memory is watched as well. A worker that dies during a case
is a "crash", unless it died of an allocation the limit refused ("memory allocation of N bytes
failed": Rust aborts then) or was stopped for resident memory over the limit: "memory over limit".
A case without an answer in time is a "hang". A new worker takes over after each of these.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


@dataclass
class Result:
    outcome: str
    detail: str
    stderr: str  # what the worker wrote to stderr during the case (a polars panic message, ...)
    seconds: float


def _rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class Worker:
    """One worker process, restarted when it dies or is stopped."""

    def __init__(self, memory_bytes: int, timeout: float) -> None:
        self.memory_bytes = memory_bytes
        self.timeout = timeout
        self.proc: subprocess.Popen[bytes] | None = None
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()

    def _start(self) -> subprocess.Popen[bytes]:
        self.stderr.seek(0)
        self.stderr.truncate()
        env = {**os.environ, "RUST_BACKTRACE": "0", "PYTHONPATH": str(REPO)}
        return subprocess.Popen(
            [sys.executable, "-m", "fuzz.worker", str(self.memory_bytes)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            cwd=REPO,
            env=env,
        )

    def _stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def _stderr_since(self, offset: int) -> str:
        self.stderr.seek(offset)
        return self.stderr.read().decode("utf-8", "replace")

    def run(self, case: dict[str, Any]) -> Result:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = self._start()
        proc = self.proc
        assert proc.stdin is not None and proc.stdout is not None
        self.stderr.seek(0, os.SEEK_END)
        offset = self.stderr.tell()
        start = time.monotonic()
        try:
            proc.stdin.write((json.dumps(case) + "\n").encode())
            proc.stdin.flush()
        except BrokenPipeError:
            pass
        line = b""
        while True:
            ready, _, _ = select.select([proc.stdout], [], [], 0.05)
            if ready:
                line = proc.stdout.readline()
                break
            elapsed = time.monotonic() - start
            if elapsed > self.timeout:
                self._stop()
                return Result("hang", f"no answer in {self.timeout:.0f} s", self._stderr_since(offset), elapsed)
            if self.memory_bytes and _rss_bytes(proc.pid) > self.memory_bytes:
                self._stop()
                return Result("memory over limit", "resident memory over the limit", "", elapsed)
        elapsed = time.monotonic() - start
        said = self._stderr_since(offset)
        if not line:  # the worker died
            code = proc.wait()
            self.proc = None
            if "memory allocation of" in said or "MemoryError" in said:
                return Result("memory over limit", said.strip().splitlines()[0][:200], said, elapsed)
            name = signal.Signals(-code).name if code < 0 and -code in signal.valid_signals() else f"exit {code}"
            return Result("crash", f"worker died ({name})", said, elapsed)
        answer = json.loads(line)
        return Result(answer["outcome"], answer["detail"], said, elapsed)

    def close(self) -> None:
        self._stop()
        self.stderr.close()
