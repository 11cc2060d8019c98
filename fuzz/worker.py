"""A fuzz worker: ``python -m fuzz.worker LIMIT_BYTES`` limits its address space to LIMIT_BYTES
(before lrank is loaded, so lrank sees the limit), then reads cases as JSON lines on stdin and
answers each with a JSON line ``{"outcome": ..., "detail": ...}`` on stdout."""

from __future__ import annotations

import json
import sys


def main() -> None:
    limit = int(sys.argv[1])
    if limit > 0:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from fuzz.targets import run

    out = sys.stdout
    sys.stdout = sys.stderr  # whatever a target prints must not garble the answers
    for line in sys.stdin:
        outcome, detail = run(json.loads(line))
        out.write(json.dumps({"outcome": outcome, "detail": detail}) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
