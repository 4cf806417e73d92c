"""The product's modules import one another in one direction only (issue 21, "no import loop").

A loop means no module of it can be read, tested or changed without all the others; an
`import` tucked inside a function hides such a loop instead of removing it. The graph is read
with `ast` from every import statement — top level, under `if TYPE_CHECKING:` (a type-only
loop still ties the files together) and inside functions — so a loop cannot be hidden by
where its import is written. Function-level imports of project modules fail on their own,
except the commented entries of `LAZY`.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("cogs", "console", "service", "store", "engine", "render", "ai", "sim", "i18n")
SCRIPTS = ("bot",)

# Known loops (issue 21: none left). A loop not listed here fails, and so does a listed one
# that no longer exists (keep this list true).
KNOWN_LOOPS: set[frozenset[str]] = set()

# Function-level imports of project modules that are deliberate (module, imported module).
LAZY: set[tuple[str, str]] = {
    # bot.py is the entry: the console or the Discord client, whichever mode is run
    # (`python bot.py --console` never imports discord.py)
    ("bot", "cogs.bot"), ("bot", "console"),
    # asyncpg is optional: the PostgreSQL backend is imported only for a postgresql:// url
    ("store", "store.pg"), ("store.copy", "store.pg"), ("store", "store.daily_pg"),
    ("store", "store.tutorial_pg"), ("store", "store.ratings_pg"), ("store", "store.review_pg"),
    # `python -m store.copy` asks the package for `is_postgres` only when run as a script
    ("store.copy", "store"),
    # the renderer is optional for the console (ImportError: it plays without images)
    ("console.files", "render"), ("console.files", "render.recap"), ("console.tutorial", "render"),
    ("console.files", "render.review"),
}


def modules() -> dict[str, Path]:
    found = {name: ROOT / f"{name}.py" for name in SCRIPTS}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


MODULES = modules()


def targets(module: str, node: ast.Import | ast.ImportFrom, package: bool) -> Iterator[str]:
    """The project modules an import statement names (the innermost that exists)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            parts = module.split(".")[: None if package else -1]
            parts = parts[: len(parts) - node.level + 1]
            base = ".".join([*parts, *([node.module] if node.module else [])])
        names = [f"{base}.{alias.name}" for alias in node.names]
    for name in names:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name and name != module:
            yield name


class Imports(ast.NodeVisitor):
    def __init__(self, module: str, package: bool) -> None:
        self.module, self.package = module, package
        self.depth = 0
        self.edges: set[str] = set()
        self.lazy: list[tuple[str, int]] = []

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        for target in targets(self.module, node, self.package):
            self.edges.add(target)
            if self.depth:
                self.lazy.append((target, node.lineno))

    visit_ImportFrom = visit_Import


@functools.cache
def graph() -> tuple[dict[str, set[str]], list[tuple[str, str, int]]]:
    edges: dict[str, set[str]] = {}
    lazy: list[tuple[str, str, int]] = []
    for module, path in MODULES.items():
        visitor = Imports(module, path.name == "__init__.py")
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        edges[module] = visitor.edges
        lazy += sorted({(module, target, line) for target, line in visitor.lazy})
    return edges, lazy


def loops(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[frozenset[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(frozenset(group))
    return found


def test_the_graph_sees_a_loop() -> None:
    """The detector itself: a loop of three is one group, a chain is none."""
    assert loops({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset("abc")]
    assert loops({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_import_loop_among_product_modules() -> None:
    """Issue 21: "no import loop anywhere in product code" (type-only imports included)."""
    edges, _ = graph()
    found = set(loops(edges))
    new = sorted(sorted(group) for group in found - KNOWN_LOOPS)
    assert not new, f"import loops: {new}"
    gone = sorted(sorted(group) for group in KNOWN_LOOPS - found)
    assert not gone, f"KNOWN_LOOPS lists loops that no longer exist, remove them: {gone}"


def test_no_function_level_import_of_a_project_module() -> None:
    """Issue 21: "no import inside a function to avoid one"; deliberate ones are listed."""
    _, lazy = graph()
    unlisted = sorted(f"{m}:{line} imports {t}" for m, t, line in lazy if (m, t) not in LAZY)
    assert not unlisted, "imports inside functions:\n" + "\n".join(unlisted)


@pytest.mark.parametrize("entry", sorted(LAZY))
def test_lazy_allow_list_is_true(entry: tuple[str, str]) -> None:
    """Every allowed lazy import still exists (a stale entry would allow a new one)."""
    _, lazy = graph()
    assert entry in {(m, t) for m, t, _ in lazy}
