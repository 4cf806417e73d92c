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
# the game service's rooms, then the daily host's (DailyHost: `host.par`, `bot.daily.board`)
ROOMS = {"tables", "lobby", "play", "ai", "limits", "hints", "games", "service",
         "days", "par", "board", "results", "attempts", "slots", "daily", "host"}
DAILY_ROOMS = {"days": "daily_calendar", "par": "daily_par", "board": "daily_board",
               "results": "daily_results", "attempts": "daily_attempts", "slots": "daily_slots"}
SITTING_LINES = 300  # a room's module, read in one sitting
SITTING_METHODS = 10  # a room's public surface



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
    assert _cycle(edges) is None, f"import loop in service/: {' → '.join(_cycle(edges) or [])}"
    assert not inner, f"imports inside functions in service/: {inner}"


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


def _classes(path: Path) -> dict[str, ast.ClassDef]:
    return {node.name: node for node in ast.parse(path.read_text()).body
            if isinstance(node, ast.ClassDef)}


def _public_methods(cls: ast.ClassDef) -> set[str]:
    return {node.name for node in cls.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and not node.name.startswith("_")}


def test_the_daily_host_is_rooms_each_read_in_one_sitting():
    """Issue 21, "`GameService` split into rooms that each fit in one sitting (lobby, play,
    clock, AI seats, daily host), each with one public surface": `DailyHost` was one class
    of 35 methods over 700 lines (attempts, par and odds, the board, results, the day's
    close, slots). It now only builds its rooms and hands them out (`host.attempts.play`,
    `host.par.odds`, …); each room is a module of its own, short, with a small public
    surface, built once by the host over the same store and days."""
    host = _classes(SERVICE / "daily_play.py")["DailyHost"]
    assert _public_methods(host) == {"open", "watch", "close"}
    init = next(n for n in host.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    built = {target.attr: node.value.func.id for node in init.body
             if isinstance(node, ast.Assign | ast.AnnAssign)
             for target in ([node.target] if isinstance(node, ast.AnnAssign) else node.targets)
             if isinstance(target, ast.Attribute) and isinstance(node.value, ast.Call)
             and isinstance(node.value.func, ast.Name)}
    for attr, module in DAILY_ROOMS.items():
        path = SERVICE / f"{module}.py"
        assert len(path.read_text().splitlines()) <= SITTING_LINES, module
        room = _classes(path)[built[attr]]  # the host builds the room its module declares
        assert 0 < len(_public_methods(room)) <= SITTING_METHODS, (module, _public_methods(room))
    surfaces = [_public_methods(_classes(SERVICE / f"{m}.py")[built[a]])
                for a, m in DAILY_ROOMS.items()]
    everything = [name for s in surfaces for name in s]
    assert len(everything) == len(set(everything)), "a room re-offers another's method"


def test_the_interfaces_reach_the_daily_host_through_its_rooms():
    """The cogs and the console call a room's method (`bot.daily.attempts.play`), never a
    method the host would have to forward: every attribute read on a DailyHost in product
    code is one of its rooms, `store`, `games`, `rescoring` or its own three methods."""
    allowed = {*DAILY_ROOMS, "store", "games", "rescoring", "open", "watch", "close"}
    stray = []
    for path in [p for d in PRODUCT for p in ([d] if d.is_file() else sorted(d.rglob("*.py")))]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and (
                    isinstance(node.value, ast.Name) and node.value.id == "host"
                    and path.parent.name != "service" or
                    isinstance(node.value, ast.Attribute) and node.value.attr == "daily"
                    and isinstance(node.value.value, ast.Name)
                    and node.value.value.id in {"bot", "self"}) \
                    and node.attr not in allowed:
                stray.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}")
    assert stray == []


# the announcer's rooms (cogs/): its layers, entry point last, and the modules they share
ANNOUNCER = ["outbox", "drawing", "posts", "held", "turns", "bursts", "announce", "delivery",
             "announcement", "pages"]


def _self_privates(path: Path) -> tuple[set[str], set[str]]:
    """The private names a module gives `self` (its `_methods`, its `self._x = …`), and the
    ones it reads from `self`."""
    given: set[str] = set()
    read: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and \
                node.name.startswith("_") and not node.name.startswith("__"):
            given.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                node.value.id == "self" and node.attr.startswith("_") and \
                not node.attr.startswith("__"):
            (given if isinstance(node.ctx, ast.Store) else read).add(node.attr)
    return given, read


def test_the_announcer_is_rooms_each_read_in_one_sitting():
    """cogs/announce.py was one module of 1,430 lines (delivery, pages, the announcement,
    drawing, posts, the outbox, held channels, AI bursts). Its rooms each fit in one
    sitting, and a layer of `Announcer` (each on the one before it) reads no private name
    that another room's module gives `self`: what a later layer calls is public."""
    cogs = ROOT / "cogs"
    for name in ANNOUNCER:
        assert len((cogs / f"{name}.py").read_text().splitlines()) <= SITTING_LINES, name
    for name in ANNOUNCER:
        given, read = _self_privates(cogs / f"{name}.py")
        assert read <= given, (name, sorted(read - given))
