"""Fixtures shared by the tests. `db`: one test, run once per store backend — an SQLite file,
and a schema of its own on the session's real PostgreSQL server (tests/pg_server.py). Where
PostgreSQL cannot be started, its half of the tests skips and the summary says why.

Parallel runs (`bash rr test --fast` runs pytest-xdist, a worker per core and one more, each taking the
next test as it frees up, `--dist worksteal`): every worker is a pytest session of its own,
so `postgres` starts one server per worker (its own folder in memory and free loopback port,
tests/pg_server.py), and `tmp_path` is per test; nothing else is shared between workers.
The hypothesis profile `fast` (tests/profiles.py; `--fast` passes `--hypothesis-profile=fast`)
plays a quarter of the random examples; CI's full run keeps all.

`--fast` also leaves out the tests marked `process` (issue 21: "everything but the slow
process tests"): those that start a real process — the console or a CLI as a person runs it,
a shard, a worker pool, mypy, the PostgreSQL server (every test using it is marked here).
A test that starts a process without the mark fails (`_processes_are_marked`), so the fast
loop cannot quietly grow them again.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import multiprocessing.process
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pg_server
import profiles  # noqa: F401  (registers the `fast` hypothesis profile before it is loaded)
import pytest

_pg: pg_server.PgServer | str | None = None
_schemas = itertools.count(1)


@pytest.fixture(scope="session")
def postgres() -> Iterator[pg_server.PgServer | str]:
    """The session's PostgreSQL server (started on first use), or why there is none."""
    global _pg
    _pg = pg_server.start()
    try:
        yield _pg
    finally:
        if isinstance(_pg, pg_server.PgServer):
            _pg.stop()


class Db:
    """Where one test keeps its games, and how to reach them behind the store's back (to
    damage a row, or to hold a lock as another program would)."""

    def __init__(self, backend: str, url: str) -> None:
        self.backend, self.url = backend, url

    @property
    def pg(self) -> bool:
        return self.backend == "postgresql"

    def make(self, **options: Any) -> Any:
        from store import make_store

        return make_store(self.url, **options)

    async def open(self, **options: Any) -> Any:
        return await self.make(**options).open()

    async def sql(self, query: str, *args: Any) -> list[tuple[Any, ...]]:
        """Run one statement on a connection of its own (`?` placeholders, either backend)."""
        if not self.pg:
            con = sqlite3.connect(self.url)
            try:
                with con:
                    return [tuple(r) for r in con.execute(query, args).fetchall()]
            finally:
                con.close()
        import asyncpg

        k = itertools.count(1)
        query = "".join(f"${next(k)}" if c == "?" else c for c in query)
        con = await asyncpg.connect(self.url)
        try:
            return [tuple(r) for r in await con.fetch(query, *args)]
        finally:
            await con.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Any) -> Db:
    if request.param == "sqlite":
        return Db("sqlite", str(tmp_path / "s.db"))
    return Db("postgresql", request.getfixturevalue("pg_url"))


@pytest.fixture
def pg_url(postgres: pg_server.PgServer | str) -> str:
    """A URL of an empty schema of its own on the session's server (PostgreSQL only)."""
    server = postgres
    if isinstance(server, str):
        pytest.skip(f"PostgreSQL: {server}")
    schema = f"t{next(_schemas)}"

    async def create() -> None:
        import asyncpg

        con = await asyncpg.connect(server.url)
        try:
            await con.execute(f"CREATE SCHEMA {schema}")
        finally:
            await con.close()
    asyncio.run(create())
    return server.url_for(schema)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say loudly when the PostgreSQL half did not run. Under xdist the server lives in the
    workers, so the reason is read back from the skipped reports."""
    reason = _pg if isinstance(_pg, str) else None
    for rep in terminalreporter.stats.get("skipped", []):
        text = str(getattr(rep, "longrepr", ""))
        if reason is None and "PostgreSQL: " in text:
            reason = text.split("PostgreSQL: ", 1)[1].rstrip("')\n")
    if reason:
        terminalreporter.write_sep("!", f"PostgreSQL tests SKIPPED: {reason}", red=True, bold=True)


PG_FIXTURES = {"postgres", "pg_url"}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test on the PostgreSQL server is a process test (the server is a real process)."""
    for item in items:
        params = getattr(item, "callspec", None)
        uses_pg = PG_FIXTURES & set(getattr(item, "fixturenames", ()))
        if uses_pg or (params is not None and params.params.get("db") == "postgresql"):
            item.add_marker(pytest.mark.process)


@pytest.fixture(autouse=True)
def _processes_are_marked(request: pytest.FixtureRequest,
                          monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A test that starts a process must be marked `process` (or `slow`): the fast loop runs
    without them. The start goes ahead (the test's own result stays meaningful); the test
    fails at its end, naming what it started."""
    node = request.node
    if node.get_closest_marker("process") or node.get_closest_marker("slow"):
        yield
        return
    started: list[str] = []
    popen_child = subprocess.Popen._execute_child  # type: ignore[attr-defined]
    process_start = multiprocessing.process.BaseProcess.start

    def child(self: subprocess.Popen[Any], args: Any, *rest: Any) -> Any:
        started.append(str(args)[:120])
        return popen_child(self, args, *rest)

    def start(self: multiprocessing.process.BaseProcess) -> None:
        started.append(f"multiprocessing {self.name}")
        process_start(self)

    monkeypatch.setattr(subprocess.Popen, "_execute_child", child)
    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", start)
    yield
    if started:
        pytest.fail(f"this test started a process ({started[0]}): mark it "
                    "@pytest.mark.process, or `bash rr test --fast` slows down unseen")


@pytest.fixture(autouse=True)
def _collector() -> Iterator[None]:
    """Each test starts with the garbage collector as Python sets it: a production bot
    (`freeze_gc`: bench/bot.py's, tests/test_bot_runtime.py's) freezes what is loaded and
    raises the thresholds for the rest of its process, which here is every later test."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


@pytest.fixture(autouse=True)
def _recursion_limit() -> Iterator[None]:
    """Each test starts with the interpreter's own recursion limit: mypy's API (run in-process
    by the code-shape and refusal-root tests) raises it for good, and the engine's "nested too
    deeply" refusal (tests/test_engine_input.py) depends on it."""
    limit = sys.getrecursionlimit()
    yield
    sys.setrecursionlimit(limit)
