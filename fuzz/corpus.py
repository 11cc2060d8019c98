"""The seed inputs a campaign mutates: small data files in every format, a model file of every
learner (binary and JSON), experiment stores. Made fresh by the lrank under test into a work
directory, so they are always files this lrank writes."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from click.testing import CliRunner

from fuzz.mutate import random_kebi_csv, random_xarff

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "datasets"

# Options that keep every learner's model small (and its training quick).
SMALL_OPTIONS = {
    "LRRF": ["-I", "3", "-depth", "3"],
    "LWRF": ["-I", "3"],
    "OVO": ["-B", "forest", "-I", "2"],
    "Bagging": ["-I", "3", "-W", "LRT"],
}


@dataclass
class Corpus:
    data: list[Path] = field(default_factory=list)  # XARFF, KEBI CSV, Parquet (with its checksum)
    models: list[Path] = field(default_factory=list)  # binary (.lrm) and JSON model files
    stores: list[Path] = field(default_factory=list)  # experiment stores
    predict_data: Path | None = None  # a file every model predicts

    def seeds(self, kind: str) -> list[Path]:
        return {"reader": self.data, "model": self.models, "store": self.stores}[kind]


def _head(path: Path, rows: int) -> bytes:
    """The first ``rows`` data lines of a text data file, with its header."""
    lines = path.read_bytes().split(b"\n")
    if path.suffix == ".csv":
        return b"\n".join(lines[: rows + 1]) + b"\n"
    data_at = next((i for i, ln in enumerate(lines) if ln.strip().lower().startswith(b"@data")), len(lines))
    return b"\n".join(lines[: data_at + 1 + rows]) + b"\n"


def _run(args: list[str]) -> None:
    from lrank.cli import main

    result = CliRunner().invoke(main, args)
    if result.exit_code != 0:
        raise RuntimeError(f"lrank {' '.join(args)} failed: {result.output}")


def build(work: Path, seed: int = 0) -> Corpus:
    """Writes the seeds into ``work`` and lists them."""
    from lrank.registry import available_learners

    rng = random.Random(seed)
    seeds = work / "seeds"
    seeds.mkdir(parents=True, exist_ok=True)
    corpus = Corpus()
    texts = [REPO / "datasets" / "iris.xarff", REPO / "datasets" / "wine.xarff"]
    for name in ("iris.csv", "glass.csv", "wine.csv", "bodyfat.csv"):
        if (SHARED / "kebi-csv" / name).is_file():
            texts.append(SHARED / "kebi-csv" / name)
    for name in ("iris_dense.xarff", "glass_dense.xarff"):
        if (SHARED / "xarff" / name).is_file():
            texts.append(SHARED / "xarff" / name)
    for src in texts:
        out = seeds / f"{src.stem}_head{src.suffix}"
        out.write_bytes(_head(src, 40))
        corpus.data.append(out)
    for k in range(24):
        for make, suffix in ((random_xarff, ".xarff"), (random_kebi_csv, ".csv")):
            out = seeds / f"grammar{k}{suffix}"
            out.write_bytes(make(rng))
            corpus.data.append(out)
    # Parquet versions of the files that read and convert.
    for src in list(corpus.data):
        out = src.with_name(src.stem + "_" + src.suffix[1:] + ".parquet")
        try:
            _run(["convert", str(src), str(out)])
        except RuntimeError:
            continue
        corpus.data.append(out)
    iris = seeds / "iris_head.xarff"
    corpus.predict_data = iris
    for name in sorted(available_learners()):
        for suffix in (".lrm", ".json"):
            out = seeds / f"{name}{suffix}"
            _run(["train", "-t", str(iris), "-W", name, "--no-cv", "-d", str(out), "--", *SMALL_OPTIONS.get(name, [])])
            corpus.models.append(out)
    store = seeds / "store.parquet"
    data = [str(p) for p in corpus.data if p.suffix == ".xarff"][:3]
    _run(["experiment", "run", *data, "-W", "Dummy", "-W", "LRRF -I 2", "-x", "2", "--repeats", "1", "-o", str(store)])
    corpus.stores.append(store)
    return corpus
