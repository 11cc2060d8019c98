"""The Python package's architecture, checked on its sources: no import cycle between its
modules (counting the package ``__init__`` that importing a submodule runs), and no module much
over 600 lines. ``pytest tests/test_architecture.py -s`` prints the modules in dependency order."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "lrank"
MAX_LINES = 620


def module_names() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("lrank", *path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _with_parents(name: str) -> list[str]:
    """Importing a.b.c runs a, a.b and a.b.c."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def imports_at_load(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The lrank modules that loading ``module`` imports: top-level imports (and those inside
    top-level ``if``/``try`` blocks), not those inside functions, which run later."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    found.update(_with_parents(alias.name))
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                found.update(_with_parents(base))
                for alias in node.names:
                    if f"{base}.{alias.name}" in known:
                        found.add(f"{base}.{alias.name}")
            elif isinstance(node, (ast.If, ast.Try)):
                visit(node.body)
                visit(node.orelse)
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)
                visit(getattr(node, "finalbody", []))

    visit(tree.body)
    return {m for m in found if m in known and m != module}


def import_graph() -> dict[str, set[str]]:
    known = module_names()
    return {m: imports_at_load(m, p, known) for m, p in known.items()}


def dependency_order(graph: dict[str, set[str]]) -> list[str]:
    """Modules after the ones they import; raises naming the modules left in a cycle. A package
    ``__init__`` that imports its own submodules is fine (it runs after them), so a package does
    not count as depending on its children when they import it back."""
    placed: list[str] = []
    left = set(graph)
    while left:
        ready = sorted(m for m in left if all(u in placed for u in graph[m]))
        if not ready:
            raise AssertionError(f"these modules import each other in a cycle: {sorted(left)}")
        placed += ready
        left -= set(ready)
    return placed


def _strip_parent_edges(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    # Importing lrank.a.b runs lrank and lrank.a first; that is no dependency of b on them that
    # could form a cycle through b's own package __init__, which imports b.
    return {m: {u for u in uses if not m.startswith(u + ".")} for m, uses in graph.items()}


def test_no_import_cycles(capsys: pytest.CaptureFixture[str]) -> None:
    order = dependency_order(_strip_parent_edges(import_graph()))
    with capsys.disabled():
        print("\n" + " < ".join(order))


def test_the_cycle_check_finds_a_cycle() -> None:
    with pytest.raises(AssertionError, match=r"cycle: \['a', 'b'\]"):
        dependency_order({"a": {"b"}, "b": {"a"}, "c": set()})
    assert dependency_order({"a": {"b"}, "b": set()}) == ["b", "a"]


def test_no_module_is_much_over_600_lines() -> None:
    long = {
        m: n for m, p in module_names().items() if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"split these modules: {long}"
