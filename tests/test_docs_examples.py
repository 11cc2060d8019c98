"""The documentation's examples run as they are, and print what the pages say they print."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"


def run(name: str) -> str:
    proc = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_every_example_is_run_here():
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == [
        "aggregation.py",
        "boosting.py",
        "dataframes.py",
        "experiment.py",
        "feature_importance.py",
        "grid_search.py",
        "quickstart.py",
    ]


def test_quickstart():
    out = run("quickstart.py")
    assert "['setosa', 'versicolor', 'virginica']" in out and "setosa>versicolor>virginica" in out


def test_grid_search():
    out = run("grid_search.py")
    assert "best: {'aggregation':" in out and "per fold: [" in out


def test_dataframes():
    out = run("dataframes.py")
    assert "['acme', 'bolt', 'core']" in out
    assert "refused: The feature names should match those that were passed during fit." in out


def test_aggregation():
    out = run("aggregation.py")
    assert all(method in out for method in ["Borda", "Copeland", "Kemeny", "Mallows"])


def test_the_pages_include_every_example_by_a_snippet_line_the_site_reads():
    """pymdownx.snippets reads only the exact ``--8<-- "file"`` form (a formatter once rewrote it
    as ``--8 < --"file"`` and the site showed no code)."""
    import re

    docs = EXAMPLES.parent
    included = set()
    for page in docs.rglob("*.md"):
        for line in page.read_text().splitlines():
            if "--8" in line:
                match = re.fullmatch(r'--8<-- "([\w.]+)"', line.strip())
                assert match, f"{page.name}: {line!r} is not a snippet line"
                assert (EXAMPLES / match.group(1)).is_file(), line
                included.add(match.group(1))
    assert included == {p.name for p in EXAMPLES.glob("*.py")}


def test_feature_importance():
    lines = run("feature_importance.py").splitlines()
    split_top = [part.rsplit(" ", 1) for part in lines[0].removeprefix("split importances: ").split(", ")]
    shares = [float(share) for _, share in split_top]
    assert len(shares) == 3 and shares == sorted(shares, reverse=True) and shares[0] > 0.1
    drops = [float(line.rsplit(" ", 1)[1]) for line in lines[1:4]]
    assert all(": tau drops by " in line for line in lines[1:4]) and drops == sorted(drops, reverse=True)
    # Both measures put the same feature first (flavanoids, on wine).
    assert lines[1].startswith(split_top[0][0] + ":")
    assert drops[0] > 0 and lines[4].startswith("out-of-fold tau ") and float(lines[4].split()[-1]) > 0.8


def test_boosting():
    out = run("boosting.py")
    first, best, last = (float(part.split()[-1]) for part in out.splitlines()[0].split(":", 1)[1].split(","))
    assert first < best and last <= best and best > 0.9
    assert out.splitlines()[1].startswith("gain shares: ")


def test_experiment():
    """Two worker processes from a script without a main guard; the report and the figure."""
    out = run("experiment.py")
    assert "computed 40 cells" in out and "Iman-Davenport" in out and "average ranks: {'LRT': " in out
