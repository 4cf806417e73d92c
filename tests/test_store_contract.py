"""Issue 21, "a store contract": both backends implement one declared interface, every caller
types against it, the store's modules import each other without a loop, and the bot reads
a typed `Config` (one setting it read did not exist)."""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path

import pytest
from mypy import api as mypy_api

from cogs.bot import RookBot
from cogs.config import Config
from cogs.host import Host, host_of
from service import ServiceError
from service.daily_play import DailyHost
from store import contract
from store.daily import SqliteDailyStore
from store.daily_pg import PgDailyStore
from store.db import Store
from store.pg import PgStore
from store.review import SqliteReviewStore
from store.review_pg import PgReviewStore

ROOT = Path(__file__).resolve().parent.parent
# A backend's own job runners: its daily tables (same backend) run their SQL through them.
BACKEND_JOBS = {"run_read", "run_write", "create_started"}


def _public(cls: type) -> dict[str, inspect.Signature]:
    return {name: inspect.signature(fn) for name, fn in inspect.getmembers(cls, callable)
            if not name.startswith("_") and name not in BACKEND_JOBS}


def _declared(proto: type) -> dict[str, inspect.Signature]:
    return {name: inspect.signature(fn) for name, fn in vars(proto).items()
            if callable(fn) and not name.startswith("_")}


@pytest.mark.parametrize(("backend", "proto"), [
    (Store, contract.GameStore), (PgStore, contract.GameStore),
    (SqliteDailyStore, contract.DailyStore), (PgDailyStore, contract.DailyStore),
    (SqliteReviewStore, contract.ReviewStore), (PgReviewStore, contract.ReviewStore)])
def test_each_backend_offers_exactly_the_contract_with_the_same_parameters(backend, proto):
    """Issue 21: "a GameStore protocol (and a daily one) that both backends implement". A
    method one backend grows without the contract, or a parameter it names differently
    (a caller would then work on one backend only), fails here."""
    offered, declared = _public(backend), _declared(proto)
    assert set(offered) == set(declared), backend
    for name, sig in declared.items():
        assert [(p.name, p.kind, p.default) for p in offered[name].parameters.values()] == \
            [(p.name, p.kind, p.default) for p in sig.parameters.values()], (backend, name)
    assert proto in backend.__mro__  # declared, so mypy checks it where it is defined


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module imported, names imported) for every import in the file, wherever it is (at
    the top, inside a function, under TYPE_CHECKING); relative ones made absolute."""
    package = path.relative_to(ROOT).parent.parts
    out: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else ()
            module = ".".join([*base, *([node.module] if node.module else [])])
            out.append((module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
    return out


def test_the_store_modules_import_each_other_without_a_loop_or_private_names():
    """Issue 21: `store/daily` ↔ `store/daily_pg` was an import loop (dodged by an import
    inside a function), and the PostgreSQL modules borrowed db.py's and pg.py's private
    names. Now the graph of store/ is acyclic and only public names cross modules."""
    graph: dict[str, set[str]] = {}
    for path in sorted((ROOT / "store").glob("*.py")):
        me = "store" if path.stem == "__init__" else f"store.{path.stem}"
        graph[me] = set()
        for module, names in _imports(path):
            if module.startswith("store.") or module == "store":
                target = module
                assert not [n for n in names if n.startswith("_")], (me, module, names)
                if target != me and target != "store":
                    graph[me].add(target)
        assert ".store._" not in path.read_text(encoding="utf-8"), me
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        if state.get(node) == 2:
            return
        assert state.get(node) != 1, " → ".join([*trail, node])
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            visit(nxt, [*trail, node])
        state[node] = 2

    for module in sorted(graph):
        visit(module, [])


def test_callers_type_against_the_contract_not_a_backend():
    """Issue 21: "every caller types against the protocol" (there were five
    `Store | PgStore` unions and a `daily_store(store: Any)`): no product module outside
    store/ names a backend class or imports a backend module."""
    backends = {"Store", "PgStore", "SqliteDailyStore", "PgDailyStore"}
    files = [ROOT / "bot.py", *[p for d in ("service", "cogs", "console")
                                for p in sorted((ROOT / d).rglob("*.py"))]]
    for path in files:
        for module, names in _imports(path):
            if module == "store" or module.startswith("store."):
                assert module not in ("store.db", "store.pg", "store.daily", "store.daily_pg"), \
                    (path.name, module)
                assert not backends & set(names), (path.name, names)


def test_the_bot_runs_by_every_setting_of_its_config():
    """Issue 21: "`RookBot(config: Any)` reads config with getattr (one field it reads does
    not exist on `Config`)": the day job's interval was read from a field `Config` lacked,
    so an operator's bot always used the fallback. Every interval is now a setting."""
    config = Config(token=None, tick_seconds=7.0, lease_seconds=12.0, day_seconds=45.0,
                    shard_count=2, shard_ids=(1,))
    bot = RookBot(config, sync_commands=False, start_ticker=False)
    assert bot.ticker.seconds == 7.0
    assert bot.day_loop.seconds == 45.0
    assert bot.lease_loop.seconds == 4.0  # renewed every third of the lease
    assert (bot.hosting.count, bot.hosting.ids) == (2, (1,))
    assert Config(token=None).day_seconds == 300.0  # the interval it always ran at


def test_a_games_meta_is_typed_so_a_misspelt_key_is_a_type_error(tmp_path: Path) -> None:
    """Issue 21, "typed rows": `GameRow.meta` (time-outs, removal votes, zombie seats, hints,
    the lobby's message) is a `GameMeta` TypedDict, so a read of a key nobody writes — here
    "zombies" for "zombie", which would quietly find no AI seat — fails `mypy --strict`, and
    a change (`MetaChange`) can only write the declared keys with their declared types."""
    probe = tmp_path / "probe.py"
    probe.write_text(textwrap.dedent("""
        from store import GameMeta, GameRow, MetaChange

        def level(row: GameRow, seat: int) -> str | None:
            return row.meta.get("zombie", {}).get(str(seat))

        def typo(row: GameRow) -> dict[str, str]:
            return row.meta["zombies"]

        def vote(meta: GameMeta) -> None:
            meta["kick"] = {"0": ["someone"]}

        CHANGE: MetaChange = vote
    """))
    # A cache of its own: mypy's cache holds one set of options, and sharing the one
    # `bash rr test` keeps made each of them check everything again (issue 21).
    out, err, status = mypy_api.run([
        "--strict", "--follow-imports=silent", "--no-error-summary",
        "--cache-dir", str(ROOT / ".mypy_cache" / "probe-typed-meta"), str(probe)])
    assert status == 1, (out, err)
    assert "probe.py:8: error:" in out and 'has no key "zombies"' in out, out
    assert "probe.py:11: error:" in out, out
    assert {line.split(":")[1] for line in out.splitlines() if ": error:" in line} == \
        {"8", "11"}, out  # the correct read (line 5) passes


def test_the_daily_host_is_none_until_setup_hook_and_typed_so(tmp_path: Path) -> None:
    """Issue 21 (no `type: ignore`): `RookBot.daily` is None until `setup_hook` opened the
    daily store, and its declared type says so (`DailyHost | None`, no longer a `DailyHost`
    set to None under a `type: ignore`), so `mypy --strict` (`bash rr test`) makes every
    caller ask whether it is open; `host_of` is the way in, and before setup it refuses
    with the daily-closed answer instead of an AttributeError."""
    assert inspect.get_annotations(Host, eval_str=True)["daily"] == DailyHost | None
    bot = RookBot(Config(token=None, db_path=str(tmp_path / "g.db")))
    assert bot.daily is None
    with pytest.raises(ServiceError) as refused:
        host_of(bot)
    assert refused.value.code == "daily_closed"
