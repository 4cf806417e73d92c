"""The service's rooms stay apart (issue 21, "Rooms a newcomer can live in"): the modules of
service/ import each other one way only (no loop, not even one hidden under TYPE_CHECKING or
inside a function), and no module reaches into another's private names — the next person
can read one room without holding the others in their head.

Read from the source with `ast` (nothing is imported), so a loop is caught even where
Python's import order happens to tolerate it.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVICE = ROOT / "service"
PRODUCT = [SERVICE, ROOT / "cogs", ROOT / "console", ROOT / "bot.py"]
ROOMS = {"tables", "lobby", "play", "ai", "limits", "hints", "games", "service"}

# One import inside a function is known and left to the refusal work of issue 21 ("one
# refusal root"): `ServiceError.of` words itself through refusals.py, which names the
# ServiceError it words.
KNOWN_INNER = {("errors", "refusals")}


def _service_target(module: str | None, level: int) -> str | None:
    """The service module an import names (`from .x import`, `from service.x import`;
    `from . import x` is handled by the caller), else None."""
    if level == 1:
        return module.split(".")[0] if module else None
    if level == 0 and module and module.startswith("service."):
        return module.split(".")[1]
    return None


def _imports(path: Path) -> list[tuple[str, bool]]:
    """The service modules `path` (a module of service/) imports: (name, inside a function)."""
    tree = ast.parse(path.read_text())
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, inner: bool) -> None:
        for child in ast.iter_child_nodes(node):
            nested = inner or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.ImportFrom):
                if child.level == 1 and child.module is None:
                    found.extend((a.name, nested) for a in child.names)
                elif (target := _service_target(child.module, child.level)):
                    found.append((target, nested))
            visit(child, nested)

    visit(tree, False)
    return found


def _graph() -> tuple[dict[str, set[str]], set[tuple[str, str]]]:
    edges: dict[str, set[str]] = {}
    inner: set[tuple[str, str]] = set()
    for path in sorted(SERVICE.glob("*.py")):
        here = path.stem
        for target, nested in _imports(path):
            if target != here and (SERVICE / f"{target}.py").exists():
                edges.setdefault(here, set()).add(target)
                if nested:
                    inner.add((here, target))
    return edges, inner


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import loop among the modules, as the path around it, else None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (found := walk(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := walk(node)):
            return found
    return None


def test_the_service_modules_import_one_way():
    """Issue 21: "no import loop anywhere … and no import inside a function to avoid one"
    (before: games ↔ seats, seats importing `Outcome` from games inside a function)."""
    edges, inner = _graph()
    for here, target in KNOWN_INNER & inner:
        edges[here].discard(target)
    assert _cycle(edges) is None, f"import loop in service/: {' → '.join(_cycle(edges) or [])}"
    assert inner <= KNOWN_INNER, f"imports inside functions in service/: {inner - KNOWN_INNER}"


def _private_uses(path: Path) -> list[str]:
    """Private names of service modules used from `path` (another module)."""
    tree = ast.parse(path.read_text())
    service_aliases: set[str] = set()
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            inside = path.parent == SERVICE
            target = (node.module or "") if node.level == 0 else f"service.{node.module or ''}"
            if node.level == 0 and not target.startswith("service") or (
                    node.level and not inside):
                continue
            if node.module is None or target == "service":  # from service import seats
                service_aliases |= {a.asname or a.name for a in node.names}
            out += [f"{path.name}:{node.lineno} imports {target}.{a.name}" for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")]
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                and not node.attr.startswith("__"):
            base = node.value
            name = base.id if isinstance(base, ast.Name) else \
                base.attr if isinstance(base, ast.Attribute) else None
            if name in service_aliases or name in ROOMS:
                out.append(f"{path.name}:{node.lineno} uses {name}.{node.attr}")
    return out


def test_no_private_name_of_the_service_is_used_from_outside_its_module():
    """Issue 21: "no private (_name) names used across modules" (before: notices.py and the
    tests imported `games._stage_hook`; the AI seats mixin re-declared `_apply`)."""
    files = [p for d in PRODUCT for p in ([d] if d.is_file() else sorted(d.rglob("*.py")))]
    found = [use for path in files for use in _private_uses(path)]
    assert found == []


def test_the_loop_check_sees_a_loop():
    """The check itself: a two-module loop, and a three-module one, are found."""
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}}) is None
