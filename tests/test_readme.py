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


def test_command_line_examples_run_as_printed(tmp_path, monkeypatch):
    """Every `lrank train` / `lrank predict` example of the README's command-line section."""
    import shlex

    from click.testing import CliRunner
    from lrank.cli import main

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Command line")[1].split("### Learners")[0]
    (examples,) = list(bash_blocks(section))
    monkeypatch.chdir(ROOT)
    commands = []
    for line in examples.splitlines():
        code = line.split("#")[0].strip()
        commands += [c.strip() for c in code.split("&&") if c.strip()]
    assert len(commands) >= 12
    for command in commands:
        args = shlex.split(command)
        assert args[0] == "lrank"
        # Model files go to a temporary directory, not the repository.
        args = [str(tmp_path / a) if a.endswith(".lrm") else a for a in args[1:]]
        result = CliRunner().invoke(main, args, catch_exceptions=False)
        assert result.exit_code == 0, f"{command}: {result.output}"


def test_the_python_example_runs_as_printed():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (example,) = re.findall(r"```python\n(.*?)```", readme.split("## Python\n")[1].split("\n## ")[0], flags=re.S)[:1]
    namespace: dict[str, object] = {}
    exec(compile(example, "README.md", "exec"), namespace)
    assert namespace["model"].labels_ == ["setosa", "versicolor", "virginica"]
    assert set(namespace["search"].best_params_) == {"max_depth", "class_mode"}
