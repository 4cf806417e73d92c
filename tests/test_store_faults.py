"""The store survives its own faults: a COMMIT or ROLLBACK that fails never wedges it (the
next job of every game works), a COMMIT that fails after reaching the file is reported as
stored, a game starts in one transaction, an interaction key applies once, an undo keeps
who did what, and a competing writer never delays reads. Every test runs on both backends
(the `db` fixture in conftest.py)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from typing import Any, ClassVar

import asyncpg
import pytest

from store import AlreadyApplied, Store, StoreBusy, StoreUncertain, VersionConflict


class Flaky(sqlite3.Connection):
    """A connection whose COMMIT / ROLLBACK fail on demand, like a full disk or an I/O
    error would make them: `plan["commit"]` is "before" (nothing reached the file) or
    "after" (the data is stored, yet COMMIT raises); `plan["rollback"]` fails ROLLBACK."""

    plan: ClassVar[dict[str, Any]] = {}
    commits: ClassVar[int] = 0  # COMMITs that reached the file

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        if sql == "COMMIT" and self.plan.get("pass", 0):  # let this many through first
            self.plan["pass"] -= 1
        elif sql == "COMMIT" and (mode := self.plan.pop("commit", None)):
            if mode == "after":
                super().execute(sql, *args)
            raise sqlite3.OperationalError("disk I/O error (injected)")
        if sql == "ROLLBACK" and self.plan.pop("rollback", False):
            raise sqlite3.OperationalError("disk I/O error (injected)")
        if sql == "ROLLBACK TO job" and self.plan.pop("savepoint", False):
            raise sqlite3.OperationalError("disk I/O error (injected)")
        out = super().execute(sql, *args)
        Flaky.commits += sql == "COMMIT"
        return out


class FlakyPg(asyncpg.Connection):
    """The same failures on a PostgreSQL connection (the plan is shared with Flaky), and
    one of its own: `plan["commit"] == "lost"` — the connection dies as COMMIT is sent."""

    async def execute(self, sql: str, *args: Any, **kw: Any) -> str:  # type: ignore[override]
        if sql == "COMMIT" and (mode := Flaky.plan.pop("commit", None)):
            if mode == "lost":
                self.terminate()
                raise asyncpg.ConnectionDoesNotExistError("connection lost (injected)")
            if mode == "after":
                await super().execute(sql, *args, **kw)
            raise asyncpg.PostgresError("disk I/O error (injected)")
        if sql == "ROLLBACK" and Flaky.plan.pop("rollback", False):
            raise asyncpg.PostgresError("disk I/O error (injected)")
        return await super().execute(sql, *args, **kw)


async def _flaky(db) -> tuple[Store, type[Exception]]:
    """A store whose COMMIT / ROLLBACK fail as `Flaky.plan` says, and the error they raise."""
    Flaky.plan = {}
    if db.pg:
        return await db.open(connection_class=FlakyPg), asyncpg.PostgresError
    return await db.open(factory=Flaky), sqlite3.OperationalError


class _Holder:
    """Another program holding the lock a write of `game_id` needs: the whole file on
    SQLite, the game's row on PostgreSQL."""

    def __init__(self, db, game_id: int) -> None:
        self.db, self.game_id = db, game_id

    async def __aenter__(self) -> _Holder:
        if self.db.pg:
            self.con = await asyncpg.connect(self.db.url)
            await self.con.execute("BEGIN")
            await self.con.execute("SELECT 1 FROM games WHERE id=$1 FOR UPDATE", self.game_id)
        else:
            self.con = sqlite3.connect(self.db.url, isolation_level=None)
            self.con.execute("BEGIN IMMEDIATE")
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.db.pg:
            await self.con.execute("ROLLBACK")
            await self.con.close()
        else:
            self.con.execute("ROLLBACK")
            self.con.close()


async def _games(store: Store, n: int) -> list[int]:
    ids = []
    for k in range(n):
        row = await store.create_lobby(1, 2000 + k, 1, "Ann", {"players": 1})
        await store.start(row.id, row.seats, {"seed": k}, json.dumps({"v": 0}))
        ids.append(row.id)
    return ids


def _move(store: Store, gid: int, version: int, text: str, key: str | None = None):
    return store.commit_actions(gid, version, [(0, 7, text)], json.dumps({"t": text}),
                                "active", [(0, 1, 100.0, 50.0)], key=key,
                                notice={"kind": "move", "from": 0, "to": 1})


def test_commit_and_rollback_both_failing_do_not_wedge_the_store(db):
    """Before: every later write of every game raised 'a transaction was left open'."""
    async def main():
        store, error = await _flaky(db)
        a, b = await _games(store, 2)
        Flaky.plan.update(commit="before", rollback=True)
        with pytest.raises(error, match="injected"):
            await _move(store, a, 0, "lost")
        assert not Flaky.plan and store.resets >= 1
        # nothing of the failed move is stored: no log entry, no notice, same version
        assert (await store.get(a)).version == 0 and await store.log(a) == []
        assert await store.notices() == []
        # every game goes on at once: the failed one and the other one
        done_b = await _move(store, b, 0, "b moves")
        done_a = await _move(store, a, 0, "a retries")
        assert (done_a.row.version, done_b.row.version) == (1, 1)
        assert await store.log(a) == [[0, "a retries"]] and await store.log(b) == [[0, "b moves"]]
        assert len(await store.notices()) == 2
        await store.close()
    asyncio.run(main())


def test_a_commit_that_raises_after_reaching_the_file_is_reported_as_stored(db):
    """Before: the player was told 'nothing was changed' although the move was stored."""
    async def main():
        store, _ = await _flaky(db)
        (gid,) = await _games(store, 1)
        Flaky.plan.update(commit="after")
        done = await _move(store, gid, 0, "landed", key="i:42")
        assert done.row.version == 1 and done.notice is not None
        assert await store.log(gid) == [[0, "landed"]]
        # ... and since it is stored, the same interaction cannot apply again
        with pytest.raises(AlreadyApplied) as again:
            await _move(store, gid, 1, "landed", key="i:42")
        assert (again.value.version, again.value.text) == (1, "landed")
        assert await store.log(gid) == [[0, "landed"]]
        await store.close()
    asyncio.run(main())


def test_an_interaction_key_applies_once_even_when_both_deliveries_race(db):
    async def main():
        store = await db.open()
        (gid,) = await _games(store, 1)
        both = await asyncio.gather(_move(store, gid, 0, "autosave on", key="i:7"),
                                    _move(store, gid, 0, "autosave on", key="i:7"),
                                    return_exceptions=True)
        # either delivery may reach the database first (PostgreSQL: two connections)
        (won,) = [r for r in both if not isinstance(r, BaseException)]
        assert won.row.version == 1
        (lost,) = [r for r in both if isinstance(r, BaseException)]
        assert isinstance(lost, VersionConflict | AlreadyApplied), lost
        assert await store.log(gid) == [[0, "autosave on"]]
        assert (await store.applied("i:7")).text == "autosave on"
        await store.close()
    asyncio.run(main())


def test_game_start_is_one_transaction(db):
    """A failure while starting leaves the lobby as it was: never an active game without
    its timers or its announcement."""
    async def main():
        store, error = await _flaky(db)
        lobby = await store.create_lobby(1, 5, 1, "Ann", {"players": 1})
        entries = [(0, None, "auto 1"), (0, None, "auto 2")]
        Flaky.plan.update(commit="before")
        with pytest.raises(error):
            await store.start(lobby.id, lobby.seats, {"seed": 1}, "{}", entries,
                              [(0, 3, 900.0, 800.0)], notice={"kind": "start", "to": 2})
        row = await store.get(lobby.id)
        assert row.status == "lobby" and await store.log(lobby.id) == []
        assert await store.timers(lobby.id) == [] and await store.notices() == []
        done = await store.start(lobby.id, lobby.seats, {"seed": 1}, "{}", entries,
                                 [(0, 3, 900.0, 800.0)], notice={"kind": "start", "to": 2})
        assert done.row.status == "active" and done.row.version == 2
        assert [t["deadline"] for t in done.timers] == [900.0]
        assert [n.body for n in await store.notices()] == [{"kind": "start", "to": 2}]
        await store.close()
    asyncio.run(main())


def test_undo_keeps_who_did_what_and_drops_notices_of_undone_moves(db):
    async def main():
        store = await db.open()
        (gid,) = await _games(store, 1)
        v = 0
        for user, text in ((11, "a"), (22, "b"), (None, "c"), (33, "d")):
            done = await store.commit_actions(
                gid, v, [(0, user, text)], "{}", "active", [],
                notice={"kind": "move", "from": v, "to": v + 1})
            v = done.row.version
        before = await store.authors(gid)
        # undo takes "b" (index 1) out: the others keep their author
        await store.rewrite_log(gid, v, [[0, "a"], [0, "c"], [0, "d"]], "{}", [],
                                notice={"kind": "undo", "to": 3})
        assert before == [11, 22, None, 33]
        assert await store.authors(gid) == [11, None, 33]
        assert await store.log(gid) == [[0, "a"], [0, "c"], [0, "d"]]
        # notices about entries that moved or went are gone; the first and the undo's stay
        assert [n.body["kind"] for n in await store.notices()] == ["move", "undo"]
        await store.close()
    asyncio.run(main())


def test_a_competing_writer_never_delays_reads_and_writes_refuse_quickly(db):
    """Another program holding the write lock: before, every game's reads and writes
    queued 5 s behind each blocked write. Now reads answer at once and a write gives up
    after the busy timeout with StoreBusy (nothing written), then works when released."""
    async def main():
        store = await db.open()
        a, b = await _games(store, 2)
        async with _Holder(db, a):  # a competing writer holds the lock
            write = asyncio.ensure_future(_move(store, a, 0, "blocked"))
            await asyncio.sleep(0.05)
            start = time.perf_counter()
            for _ in range(20):  # reads of the other game meanwhile
                assert (await store.get(b)).version == 0
            reads = time.perf_counter() - start
            with pytest.raises(StoreBusy):
                await write
            assert reads < 0.4, f"reads waited for the blocked write ({reads:.2f} s)"
            assert (await store.get(a)).version == 0 and await store.log(a) == []
        done = await _move(store, a, 0, "after")
        assert done.row.version == 1 and await store.log(a) == [[0, "after"]]
        await store.close()
    asyncio.run(main())


def test_durability_is_full_and_stated(db):
    async def main():
        store = await db.open()
        if db.pg:  # a commit returns once the server has it on disk; bookkeeping's own
            async def show(con):  # SET LOCAL ends with its transaction
                return await con.fetchval("SHOW synchronous_commit")
            assert await store.run_read(show) == "on"
            (gid,) = await _games(store, 1)
            done = await _move(store, gid, 0, "x")
            await store.delivered(done.notice)
            assert await store.run_write(show) == "on" and await store.notices() == []
            await store.close()
            return
        assert await store.run_read(lambda con: con.execute("PRAGMA synchronous").fetchone()[0]) \
            == 2  # FULL: the WAL is synced at every commit (a power cut loses no move)
        assert await store.run_read(
            lambda con: con.execute("PRAGMA journal_mode").fetchone()[0]) == "wal"
        # the outbox's bookkeeping skips its own sync; moves after it are FULL again
        (gid,) = await _games(store, 1)
        done = await _move(store, gid, 0, "x")
        await store.delivered(done.notice)
        assert await store.run_write(
            lambda con: con.execute("PRAGMA synchronous").fetchone()[0]) == 2
        assert await store.notices() == []
        await store.close()
    asyncio.run(main())


async def _queued_together(store: Store, moves: list[Any]) -> list[Any]:
    """Run `moves` while the writer thread is busy with another write, so that they all
    wait for it together, as fifty games answering at once do; that write commits first,
    alone."""
    running, release = threading.Event(), threading.Event()

    def busy(con: sqlite3.Connection) -> None:
        running.set()
        release.wait(5)

    first = asyncio.ensure_future(store.run_write(busy))
    assert await asyncio.to_thread(running.wait, 5)
    waiting = asyncio.gather(*moves, return_exceptions=True)
    await asyncio.sleep(0.05)  # every move is queued
    release.set()
    await first
    return await waiting


def test_writes_waiting_together_share_one_commit_and_each_stays_whole(tmp_path):
    """SQLite (issue 22): with the WAL synced at every commit, fifty games answering at
    once waited for fifty fsyncs one after another. Writes that wait together now share
    one COMMIT, and each is still all or nothing: a stale move (its version taken) is
    undone alone, every other move lands with its log, its notice and its key."""
    async def main():
        Flaky.plan = {}
        store = await Store(str(tmp_path / "g.db"), factory=Flaky).open()
        games = await _games(store, 8)
        Flaky.commits = 0
        moves = [_move(store, g, 0, f"move {g}", key=f"i:{g}") for g in games]
        out = await _queued_together(store, [*moves[:4], _move(store, games[0], 0, "stale"),
                                             *moves[4:]])
        assert isinstance(out[4], VersionConflict)
        assert Flaky.commits == 2  # the write they waited for, then all of them
        for g in games:
            assert (await store.get(g)).version == 1
            assert await store.log(g) == [[0, f"move {g}"]]
            assert (await store.applied(f"i:{g}")).text == f"move {g}"
        assert len(await store.notices()) == len(games)
        await store.close()
    asyncio.run(main())


@pytest.mark.parametrize("fault", ["commit", "savepoint"])
def test_a_group_whose_commit_or_savepoint_fails_tells_each_write_the_truth(tmp_path, fault):
    """SQLite: the shared COMMIT fails before reaching the file — every write of the group
    is refused and none is stored, and the next writes work; a savepoint that cannot be
    undone (as when SQLite gives up a whole transaction) — each write runs again alone,
    and the good ones land."""
    async def main():
        Flaky.plan = {}
        store = await Store(str(tmp_path / "g.db"), factory=Flaky).open()
        games = await _games(store, 4)
        Flaky.plan = {"pass": 1, "commit": "before"} if fault == "commit" else {"savepoint": True}
        out = await _queued_together(
            store, [_move(store, g, 0, f"move {g}") for g in games[:2]]
            + [_move(store, games[1], 5, "stale")]  # rolled back to its savepoint
            + [_move(store, g, 0, f"move {g}") for g in games[2:]])
        assert isinstance(out[2], VersionConflict) and not Flaky.plan.get(fault)
        refused = [isinstance(r, sqlite3.OperationalError) for r in out[:2] + out[3:]]
        assert refused == [fault == "commit"] * len(games)
        for g in games:
            assert await store.log(g) == ([] if fault == "commit" else [[0, f"move {g}"]])
            if fault == "commit":  # and every game goes on
                await _move(store, g, 0, f"again {g}")
            assert (await store.get(g)).version == 1
        await store.close()
    asyncio.run(main())


def test_a_connection_lost_mid_move_refuses_it_cleanly_and_the_store_goes_on(pg_url):
    """PostgreSQL only: the server or the network drops the connection — while a move's
    statements run (the server kills it) or as its COMMIT is sent. The player is told
    "busy, nothing changed" (StoreBusy) and that is true; the next move works at once."""
    from conftest import Db

    async def main():
        db = Db("postgresql", pg_url)
        store, _ = await _flaky(db)
        a, b = await _games(store, 2)
        Flaky.plan.update(commit="lost")
        with pytest.raises(StoreBusy):
            await _move(store, a, 0, "lost at commit")
        assert (await store.get(a)).version == 0 and await store.log(a) == []

        async def killed(con):  # the server ends the session mid-transaction
            await con.execute("UPDATE games SET updated_at=0 WHERE id=$1", b)
            await con.execute("SELECT pg_terminate_backend(pg_backend_pid())")
        with pytest.raises(StoreBusy):
            await store.run_write(killed)
        assert await db.sql("SELECT updated_at FROM games WHERE id=?", b) != [(0.0,)]
        done = await _move(store, a, 0, "after")
        assert done.row.version == 1 and await store.log(a) == [[0, "after"]]
        assert store.resets >= 1
        await store.close()
    asyncio.run(main())


def test_a_write_with_no_key_lost_at_commit_is_uncertain(pg_url):
    """PostgreSQL only: a write with no interaction key to read back (a lobby opened, a seat
    taken, a game's meta) whose connection dies as its COMMIT is sent may have landed. It was
    raised as the lost connection, which the player reads as "nothing was changed" — then
    "this channel already has a game" when they tried again (the PostgreSQL faults audit).
    Now it is StoreUncertain: "look at status before answering again"."""
    from conftest import Db

    async def main():
        db = Db("postgresql", pg_url)
        store, _ = await _flaky(db)
        a, = await _games(store, 1)

        async def touch(con):
            await con.execute("UPDATE games SET updated_at=7 WHERE id=$1", a)
        Flaky.plan.update(commit="lost")
        with pytest.raises(StoreUncertain):
            await store.run_write(touch)
        await store.run_write(touch)  # the store goes on
        assert await db.sql("SELECT updated_at FROM games WHERE id=?", a) == [(7.0,)]
        await store.close()
    asyncio.run(main())


def _terminate_blocking(url: str, pid: int) -> None:
    """pg_terminate_backend(pid) from another connection, in another thread, while this
    event loop waits: the dropped connection's notice stays unread, as after a restart."""
    async def go() -> None:
        admin = await asyncpg.connect(url)
        try:
            assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
        finally:
            await admin.close()
    worker = threading.Thread(target=asyncio.run, args=(go(),))
    worker.start()
    worker.join(timeout=30)
    time.sleep(0.2)  # the server has closed the socket


def test_a_read_on_a_connection_the_server_dropped_is_answered_on_a_fresh_one(pg_url):
    """PostgreSQL only (the database-fault audit): after a server restart or a killed
    backend the pool still holds the dead idle connection, and the first command's read
    failed on it (the player got an error, the next command worked). A read changes nothing,
    so it is tried once more on a fresh connection, and so is a transaction whose BEGIN never
    reached the server; the player never sees the drop."""
    from conftest import Db

    async def main():
        db = Db("postgresql", pg_url)
        store = await db.open()
        (a,) = await _games(store, 1)
        for _ in range(2):  # twice: the pool's fresh connection can be dropped in turn
            pid = await store.run_read(lambda con: con.fetchval("SELECT pg_backend_pid()"))
            _terminate_blocking(pg_url, pid)  # as an operator's psql does, the loop not running
            row = await store.get(a)  # the pool has not noticed the drop yet
            assert row is not None and row.version == 0
        # a move's transaction too: its BEGIN fails on the dead connection, nothing was sent,
        # so it runs once more on a fresh one and lands (once)
        pid = await store.run_read(lambda con: con.fetchval("SELECT pg_backend_pid()"))
        _terminate_blocking(pg_url, pid)
        done = await _move(store, a, 0, "after the drop")
        assert done.row.version == 1 and await store.log(a) == [[0, "after the drop"]]
        assert store.resets >= 2
        await store.close()
    asyncio.run(main())


def test_a_move_read_before_another_process_ended_the_game_never_brings_it_back(db):
    """Two processes, one database (the multi-process audit): one ends a game — `/rr
    abandon`, a daily resign or the day's close, which leave the version as it was — while
    the other is committing a move it read before. The move used to land and set the game
    `active` again, prompts and all. Now only an active game takes a move or an undo: the
    late one is out of date (VersionConflict) and the game stays ended."""
    async def main():
        store = await db.open()
        (a,) = await _games(store, 1)
        await store.set_status(a, "abandoned")  # the other process ends it: version kept
        assert (await store.get(a)).version == 0
        with pytest.raises(VersionConflict):
            await _move(store, a, 0, "late move")
        with pytest.raises(VersionConflict):
            await store.rewrite_log(a, 0, [], json.dumps({"v": 1}), [])
        row = await store.get(a)
        assert row.status == "abandoned" and await store.log(a) == []
        assert await store.timers(a) == []
        await store.close()
    asyncio.run(main())


def test_a_move_that_abandons_its_game_writes_both_announcements_at_once(db):
    """The robustness audit (a resign that leaves only AI seats): the move, the status
    `abandoned` and both announcements — the move's, then the abandon's — are one commit on
    either backend, so no crash can leave the game to the AIs or the channel untold."""
    async def main():
        s = await db.open()
        try:
            lobby = await s.create_lobby(1, 90, 1, "Ann", {"players": 2})
            seats = [{"user": 1, "name": "Ann"}, {"user": -1, "name": "Bot", "ai": "greedy"}]
            started = await s.start(lobby.id, seats, {"seed": 1}, "{}")
            done = await s.commit_actions(
                lobby.id, started.row.version, [(0, 1, "resign")], "{}", "abandoned", [],
                notice={"kind": "move", "from": 0, "to": 1, "actor": 0, "prompts": []},
                ended={"kind": "abandoned", "by": "Ann"})
            assert done.row.status == "abandoned" and done.timers == []
            told = await s.notices()
            assert [(n.id, n.body["kind"]) for n in told] == \
                [(done.notice, "move"), (done.ended, "abandoned")]
            assert (await s.get(lobby.id)).status == "abandoned"
        finally:
            await s.close()
    asyncio.run(main())


def test_a_read_still_running_when_the_store_closes_lets_the_close_end(pg_url):
    """PostgreSQL only: the daily host's background rescoring (and any job in flight) may
    still be reading when the bot closes its store. The read's connection went back to a pool
    the store no longer named (`close` unsets it first), so it was never released and the
    pool's close waited for it for good — the bot's shutdown hung."""
    from conftest import Db

    async def main():
        db = Db("postgresql", pg_url)
        store = await db.open()
        started, go = asyncio.Event(), asyncio.Event()

        async def slow(con):
            started.set()
            await go.wait()
            return await con.fetchval("SELECT 1")

        reading = asyncio.ensure_future(store.run_read(slow))
        await started.wait()
        closing = asyncio.ensure_future(store.close())
        await asyncio.sleep(0.1)
        go.set()
        assert await asyncio.wait_for(reading, 5) == 1
        await asyncio.wait_for(closing, 5)
    asyncio.run(main())
