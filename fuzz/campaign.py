"""A fuzz campaign: ``python -m fuzz.campaign --readers 100000 --models 5000 ...`` (fuzz/README.md).

Makes each input from the seed corpus (:mod:`fuzz.corpus`) by mutation or from a grammar
(:mod:`fuzz.mutate`), runs it in a worker (:mod:`fuzz.harness`) and counts the outcomes per
target. Inputs whose outcome breaks the rule (anything but "loaded" and "clean error") are kept
in the findings directory with what happened. ``--seed`` and the counts reproduce a campaign;
``--first`` starts at a case number, so a long campaign can run in pieces.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import faulthandler
import io
import json
import queue
import random
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fuzz.corpus import Corpus, build
from fuzz.harness import Worker
from fuzz.mutate import mutate_bytes, mutate_json, mutate_text, nested_json, random_kebi_csv, random_xarff
from fuzz.targets import OUTCOMES

KINDS = ("reader", "model", "store", "estimator", "cli")
GOOD = ("loaded", "clean error")


def _frame_edit(frame: Any, meta: dict[str, str], rng: random.Random) -> tuple[Any, dict[str, str]]:
    """One structural edit of a Parquet file's frame or lrank metadata."""
    import polars as pl

    op, cols = rng.randrange(6), frame.columns
    if op == 0 and cols:
        frame = frame.drop(rng.choice(cols))
    elif op == 1 and cols:
        target = rng.choice([pl.String, pl.Int64, pl.Float32, pl.Boolean, pl.Null])
        col = rng.choice(cols)
        frame = frame.with_columns(frame[col].cast(target, strict=False))
    elif op == 2 and frame.height:
        more = frame.head(rng.randint(1, frame.height))
        frame = pl.concat([frame, more]) if rng.random() < 0.5 else frame.head(0)
    elif op == 3 and cols:
        value = rng.choice([None, float("nan"), float("inf"), -1, 2**40, "", "x" * 1000, [["a", "a"]], [[]]])
        frame = frame.with_columns(pl.lit(value).alias(rng.choice(cols)))
    elif op == 4 and "lrank" in meta:
        try:
            meta["lrank"] = mutate_json(json.loads(meta["lrank"]), rng)
        except ValueError:  # no longer JSON after an earlier edit
            meta["lrank"] = nested_json(rng.choice([10, 100_000]))
    elif op == 5 and cols:
        frame = frame.select(rng.sample(cols, len(cols)))
    return frame, meta


def _rewritten_parquet(data: bytes, rng: random.Random, *, checksum: bool) -> bytes:
    """A Parquet file with structural edits of its frame or its lrank metadata, written again
    (with lrank's checksum, as a writer following the layout would, or without)."""
    import polars as pl
    from lrank.parquet_io import write_checksummed

    frame = pl.read_parquet(io.BytesIO(data))
    meta = {k: v for k, v in pl.read_parquet_metadata(io.BytesIO(data)).items() if k == "lrank"}
    for _ in range(rng.randint(1, 3)):
        with contextlib.suppress(Exception):  # an edit Polars refuses is skipped
            frame, meta = _frame_edit(frame, meta, rng)
    if checksum:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "edited.parquet"
            write_checksummed(frame, path, meta)
            return path.read_bytes()
    buffer = io.BytesIO()
    frame.write_parquet(buffer, metadata=meta)
    return buffer.getvalue()


def _stripped(data: bytes) -> bytes:
    """The same Parquet file without lrank's checksum (as an older lrank wrote it)."""
    import polars as pl

    meta = {k: v for k, v in pl.read_parquet_metadata(io.BytesIO(data)).items() if k == "lrank"}
    buffer = io.BytesIO()
    pl.read_parquet(io.BytesIO(data)).write_parquet(buffer, metadata=meta)
    return buffer.getvalue()


def make_input(kind: str, corpus: Corpus, rng: random.Random) -> tuple[bytes, str, str]:
    """(bytes, file suffix, how it was made) of one input of ``kind``."""
    seeds = corpus.seeds(kind)
    seed = rng.choice(seeds)
    data = seed.read_bytes()
    others = [s.read_bytes() for s in rng.sample(seeds, min(3, len(seeds)))]
    if kind == "reader" and rng.random() < 0.25:
        make = rng.choice([(random_xarff, ".xarff"), (random_kebi_csv, ".csv")])
        out = make[0](rng)
        return (mutate_text(out, rng) if rng.random() < 0.5 else out), make[1], "grammar"
    if seed.suffix == ".parquet":
        r = rng.random()
        if r < 0.5:
            return mutate_bytes(data, rng, others), ".parquet", f"bytes of {seed.name}"
        if r < 0.8:
            return mutate_bytes(_stripped(data), rng, others), ".parquet", f"bytes of {seed.name} without checksum"
        checksum = rng.random() < 0.8
        return _rewritten_parquet(data, rng, checksum=checksum), ".parquet", f"frame edits of {seed.name}"
    if seed.suffix == ".lrm":
        body = mutate_bytes(data[20:], rng, [o[20:] for o in others if o.startswith(b"LRANKMDL")])
        if rng.random() < 0.85:  # forged: the checksum recomputed
            return data[:12] + _fnv1a64(body).to_bytes(8, "little") + body, ".lrm", f"forged {seed.name}"
        return data[:20] + body, ".lrm", f"damaged {seed.name}"
    if seed.suffix == ".json":
        if rng.random() < 0.75:
            under = rng.choice([("model",), ("metadata",), ()])
            return mutate_json(json.loads(data), rng, under).encode(), ".json", f"edited {seed.name}"
        return mutate_text(data, rng), ".json", f"text of {seed.name}"
    if rng.random() < 0.6:
        return mutate_text(data, rng), seed.suffix, f"text of {seed.name}"
    return mutate_bytes(data, rng, others), seed.suffix, f"bytes of {seed.name}"


def _fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def cases(kind: str, count: int, first: int, seed: int, corpus: Corpus, inputs: Path) -> Iterator[dict[str, Any]]:
    for i in range(first, first + count):
        rng = random.Random(f"{seed}/{kind}/{i}")
        case: dict[str, Any] = {"target": kind, "seed": rng.randrange(2**32), "id": f"{kind}-{i}"}
        if kind in ("reader", "model", "store"):
            data, suffix, how = make_input(kind, corpus, rng)
            path = inputs / f"{kind}-{i}{suffix}"
            path.write_bytes(data)
            case.update(path=str(path), how=how)
        elif kind == "cli":
            data, suffix, how = make_input("reader", corpus, rng)
            path = inputs / f"{kind}-{i}{suffix}"
            path.write_bytes(data)
            case.update(data=[str(path), *map(str, corpus.data[:6])], models=list(map(str, corpus.models)), how=how)
        yield case


def run_campaign(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(args.work or tempfile.mkdtemp(prefix="lrank-fuzz-"))
    inputs, tmp_root, findings = work / "inputs", work / "tmp", Path(args.findings)
    for d in (inputs, tmp_root, findings):
        d.mkdir(parents=True, exist_ok=True)
    started = time.time()
    corpus = build(work, seed=args.seed)
    counts: dict[str, collections.Counter[str]] = {k: collections.Counter() for k in KINDS}
    noisy: collections.Counter[str] = collections.Counter()
    messages: dict[str, collections.Counter[str]] = {k: collections.Counter() for k in KINDS}
    todo: queue.Queue[dict[str, Any] | None] = queue.Queue(maxsize=4 * args.workers)
    lock = threading.Lock()
    done = [0]
    total = sum(getattr(args, k + "s") for k in KINDS)

    def work_loop(n: int) -> None:
        worker = Worker(args.memory_mb << 20, args.timeout)
        tmp = tmp_root / f"w{n}"
        tmp.mkdir(exist_ok=True)
        try:
            while (case := todo.get()) is not None:
                case["tmp"] = str(tmp)
                result = worker.run(case)
                bad = result.outcome not in GOOD
                with lock:
                    counts[case["target"]][result.outcome] += 1
                    if result.outcome == "clean error":
                        messages[case["target"]][_gist(result.detail)] += 1
                    if result.stderr.strip():
                        noisy[case["target"]] += 1
                    if bad:
                        _keep(findings, case, result)
                    done[0] += 1
                    if done[0] % args.report_every == 0:
                        print(f"[{time.time() - started:7.0f} s] {done[0]}/{total} {_brief(counts)}", flush=True)
                for key in ("path",):
                    if key in case:
                        Path(case[key]).unlink(missing_ok=True)
                if case["target"] == "cli":
                    Path(case["data"][0]).unlink(missing_ok=True)
        finally:
            worker.close()

    threads = [threading.Thread(target=work_loop, args=(n,)) for n in range(args.workers)]
    for t in threads:
        t.start()
    try:
        for kind in KINDS:
            for case in cases(kind, getattr(args, kind + "s"), args.first, args.seed, corpus, inputs):
                todo.put(case)
    finally:  # the workers stop however the making of inputs ends
        for _ in threads:
            todo.put(None)
        for t in threads:
            t.join()
    summary = {
        "seed": args.seed,
        "first": args.first,
        "memory_limit_mb": args.memory_mb,
        "timeout_seconds": args.timeout,
        "seconds": round(time.time() - started),
        "counts": {k: {o: counts[k][o] for o in OUTCOMES} for k in KINDS},
        "cases_that_wrote_to_stderr": dict(noisy),
        "most_common_clean_errors": {k: messages[k].most_common(args.top_errors) for k in KINDS},
        "date": time.strftime("%Y-%m-%d"),
    }
    if not args.keep_work and not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return summary


def _gist(message: str) -> str:
    """An error message without its file names and numbers, to count alike errors together."""
    words = [w for w in message.split() if "/" not in w]
    return re.sub(r"[-+]?\d[\d.e+-]*", "N", " ".join(words))[:90]


def _brief(counts: dict[str, collections.Counter[str]]) -> str:
    bad = sum(n for c in counts.values() for o, n in c.items() if o not in GOOD)
    return f"bad outcomes so far: {bad}"


def _keep(findings: Path, case: dict[str, Any], result: Any) -> None:
    name = case["id"]
    for key in ("path",):
        if key in case and Path(case[key]).exists():
            shutil.copy(case[key], findings / (name + Path(case[key]).suffix))
    record = {**case, "outcome": result.outcome, "detail": result.detail, "stderr": result.stderr[-2000:]}
    (findings / f"{name}.json").write_text(json.dumps(record, indent=2))


def print_table(summary: dict[str, Any]) -> None:
    head = ["target", *OUTCOMES]
    print(" | ".join(head))
    for kind, row in summary["counts"].items():
        print(" | ".join([kind, *(str(row[o]) for o in OUTCOMES)]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fuzz.campaign", description=__doc__.split("\n\n")[0])
    parser.add_argument("--readers", type=int, default=1000, help="data files (XARFF, KEBI CSV, Parquet)")
    parser.add_argument("--models", type=int, default=200, help="model files (binary and JSON)")
    parser.add_argument("--stores", type=int, default=100, help="experiment stores")
    parser.add_argument("--estimators", type=int, default=200, help="estimator calls on random parameters and arrays")
    parser.add_argument("--clis", type=int, default=50, help="command lines")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first", type=int, default=0, help="number of the first case (to run in pieces)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-mb", type=int, default=3072, help="address space per worker (RLIMIT_AS), MB")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds a case may take")
    parser.add_argument("--findings", default="fuzz/findings", help="where inputs with bad outcomes are kept")
    parser.add_argument("--work", help="work directory (default: a temporary one)")
    parser.add_argument("--keep-work", action="store_true")
    parser.add_argument("--report-every", type=int, default=1000)
    parser.add_argument("--out", help="write the counts as JSON here")
    parser.add_argument("--top-errors", type=int, default=12, help="clean-error messages listed per target")
    args = parser.parse_args(argv)
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # `kill -USR1 PID` prints where it is
    summary = run_campaign(args)
    print_table(summary)
    if args.out:
        Path(args.out).write_text(json.dumps(summary, indent=2) + "\n")
    bad = sum(n for row in summary["counts"].values() for o, n in row.items() if o not in GOOD)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
