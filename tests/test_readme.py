"""The README's two set-up commands stay true: CI runs exactly its test command."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def bash_blocks(text: str) -> list[str]:
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", text, flags=re.S)]


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("## Command line")[0]
    install_and_run, run_tests = bash_blocks(quick_start)  # exactly two set-up commands
    assert install_and_run == "pip install . && lrank train -t datasets/iris.xarff -W LRRF"
    assert (ROOT / "datasets" / "iris.xarff").is_file()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert run_tests in ci.splitlines()
