"""Generate the bundled label-ranking data sets ``iris.xarff`` and ``wine.xarff``.

How they are made (the KEBI procedure of Cheng, Hühn & Hüllermeier 2009 for
their "type A" sets): take scikit-learn's bundled iris / wine classification
tables (``sklearn.datasets.load_iris`` / ``load_wine``), train a Gaussian
naive Bayes classifier (``GaussianNB()``, default settings) on the whole
table, and rank the classes of every instance by predicted probability, most
probable first (ties go to the lower class index: stable sort on -proba).
The XARFF file keeps the original feature names as NUMERIC attributes and adds
a RANKING attribute ``L`` over the class names (``target_names``); the
relation is ``iris`` / ``wine``.

The output is deterministic.  Rerun from the repository root with::

    python datasets/make_datasets.py            # writes datasets/*.xarff
    python datasets/make_datasets.py OUT_DIR    # writes OUT_DIR/*.xarff
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent

try:
    from lrank.data import dataset_from_arrays, write_xarff
except ImportError:  # not installed: use the checkout's python/ directory
    sys.path.insert(0, str(_HERE.parent / "python"))
    from lrank.data import dataset_from_arrays, write_xarff


def naive_bayes_rankings(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Rank matrix (n, k): 1-based position of each class, by GaussianNB probability."""
    from sklearn.naive_bayes import GaussianNB  # type: ignore[import-untyped]

    proba = GaussianNB().fit(X, y).predict_proba(X)
    order = np.argsort(-proba, axis=1, kind="stable")  # most probable first
    ranks = np.empty_like(order)
    rows = np.arange(order.shape[0])[:, None]
    ranks[rows, order] = np.arange(1, order.shape[1] + 1)[None, :]
    return ranks.astype(np.int32)


def make(name: str, out_dir: Path) -> Path:
    from sklearn import datasets  # type: ignore[import-untyped]

    bunch = {"iris": datasets.load_iris, "wine": datasets.load_wine}[name]()
    X = np.asarray(bunch.data, dtype=np.float64)
    Y = naive_bayes_rankings(X, bunch.target)
    ds = dataset_from_arrays(
        X,
        Y,
        labels=[str(t) for t in bunch.target_names],
        feature_names=[str(f) for f in bunch.feature_names],
        relation=name,
    )
    out = out_dir / f"{name}.xarff"
    write_xarff(ds, out)
    return out


def main(argv: list[str]) -> None:
    out_dir = Path(argv[1]) if len(argv) > 1 else _HERE
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in ("iris", "wine"):
        print(make(name, out_dir))


if __name__ == "__main__":
    main(sys.argv)
