"""PostgreSQL persistence (asyncpg): the same store as db.py, for deployments where several
bot processes, possibly on several machines, share one database.

Same interface, same guarantees (see db.py): every accepted action is one transaction with
its new state — the UPDATE is guarded by the state version, so of two answers racing on one
game exactly one lands (the second waits for the row lock, then finds the version moved on)
— together with its log rows, timers, outbox row and interaction key. A COMMIT that raises
is resolved by reading the key back on another connection. `synchronous_commit` stays on:
a move players were told about is on disk at the server.

What differs, and why:
- No threads: asyncpg is asynchronous, so jobs run on the event loop through a pool of
  connections; reads see the last commit and never wait for writers (MVCC).
- Writes lock rows, not the whole database, so games never queue behind each other. A row
  lock held elsewhere for longer than `busy_s` (`lock_timeout`) refuses the write with
  StoreBusy, as SQLite's busy timeout does; so does a deadlock or a lost connection before
  COMMIT (nothing was written either way). A job that finds every connection of the pool
  held for `acquire_s` (RR_PG_ACQUIRE_SECONDS) is refused with StoreBusy too, before
  anything is sent, instead of waiting without end for one. The pool holds up to
  `pool_size` connections (RR_PG_POOL_SIZE).
- The outbox's bookkeeping commits with `synchronous_commit=off` (db.py's NORMAL): a crash
  of the server may undo a "delivered" mark, so a notice is told again, never lost.
- Leases are measured on the server's clock (`now()`), which every process shares.
- A `MetaChange` (db.py, "Two writers") runs on the meta read with SELECT … FOR UPDATE: the
  row stays locked until COMMIT, so a second writer's change waits and then sees the first.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import asyncpg

from .contract import (
    ACQUIRE_S,
    BUSY_S,
    LEASE_MAX_S,
    LEASE_S,
    POOL_SIZE,
    AlreadyApplied,
    GameStore,
    StoreBusy,
    StoreUncertain,
    VersionConflict,
)
from .migrations import migrate_postgresql
from .rows import (
    ENDED,
    LATEST_SLACK_S,
    MAX_LIMIT_S,
    NOT_A_NOTICE,
    NOTICE_WAIT_MAX_S,
    OUTBOX_CLAIMABLE,
    OUTBOX_DUE,
    Commit,
    Entry,
    GameMeta,
    GameRow,
    GameStatus,
    Marked,
    MetaChange,
    NewGame,
    Notice,
    Seat,
    Settings,
    Timer,
    TimerRow,
    changed_meta,
    decode_notice,
    ends_unsettled,
    game_row,
    is_time,
    new_key,
    quarantine_reason,
    report_set_aside,
    set_aside_row,
    stored_meta,
    timer_row,
)

T = TypeVar("T")
log = logging.getLogger("rr.store")
if TYPE_CHECKING:  # asyncpg-stubs: a pooled connection is a proxy with the same methods
    from asyncpg.pool import PoolConnectionProxy

    Con = asyncpg.Connection[asyncpg.Record] | PoolConnectionProxy[asyncpg.Record]
else:
    Con = asyncpg.Connection
# Failures after which nothing was written and the caller may simply try again. A statement
# the server cancelled (`statement_timeout`, pg_cancel_backend) is one: a write waiting for a
# lock meets it before `lock_timeout` where an operator set it shorter.
RETRYABLE = (asyncpg.LockNotAvailableError, asyncpg.DeadlockDetectedError,
             asyncpg.SerializationError, asyncpg.QueryCanceledError)
# The server out of a resource (class 53: disk full, out of memory, too many connections):
# the statement failed whole, nothing was written, and it may well work once the operator
# has made room; raised as it is, in `faults`.
RESOURCES = (asyncpg.InsufficientResourcesError,)
# asyncpg's InternalClientError ("cannot switch to state …") is what a connection the server
# killed in the middle of a transaction raises next: it is as lost as the others.
LOST = (OSError, TimeoutError, asyncpg.ConnectionDoesNotExistError, asyncpg.InterfaceError,
        asyncpg.CannotConnectNowError, asyncpg.AdminShutdownError, asyncpg.CrashShutdownError,
        asyncpg.InternalClientError)
# A pooled connection the server dropped while it sat idle (a restart, a killed backend): a
# read on it fails at once, and the same read on a fresh connection may well succeed.
DROPPED = (ConnectionResetError, BrokenPipeError, asyncpg.ConnectionDoesNotExistError,
           asyncpg.InterfaceError, asyncpg.AdminShutdownError, asyncpg.CrashShutdownError,
           asyncpg.InternalClientError)


class NotBegun(Exception):
    """BEGIN failed on a dropped connection: nothing of the transaction reached the server."""


COMMAND_S = 30.0  # a statement the server has not answered by then: the network is gone
# ACQUIRE_S (store/contract.py, RR_PG_ACQUIRE_SECONDS): how long a job waits for one of the
# pool's connections (all busy: slow statements, a burst of commands, a long write) or for a
# new one to open. The player's interaction is deferred already, but a command that waited
# without end — or COMMAND_S — and then failed vaguely is worse than a prompt "busy, nothing
# was changed, try again" (StoreBusy).


def rows_touched(status: str) -> int:
    """Rows touched, from a command tag such as 'UPDATE 1' or 'INSERT 0 1'."""
    return int(status.rsplit(" ", 1)[-1])


async def _one(con: Con, sql: str, *args: Any) -> GameRow | None:
    r = await con.fetchrow(sql, *args)
    return game_row(r) if r is not None else None


class PgStore(GameStore):
    """A pool of asyncpg connections; every write is one transaction on one of them.

    `connection_class` lets tests inject failures (as db.py's `factory` does)."""

    backend = "postgresql"
    # As db.py's `Store.faults`: lost connections and lock/serialization failures (a read
    # raises them as they are; a write as StoreBusy), a server out of room, and a COMMIT
    # whose fate is unknown.
    faults: tuple[type[Exception], ...] = (StoreBusy, StoreUncertain, *LOST, *RETRYABLE,
                                           *RESOURCES)
    damaged: tuple[type[Exception], ...] = (asyncpg.DataCorruptedError,
                                            asyncpg.IndexCorruptedError)

    def __init__(self, url: str, *, busy_s: float = BUSY_S, pool_size: int = POOL_SIZE,
                 acquire_s: float = ACQUIRE_S,
                 connection_class: type[asyncpg.Connection[Any]] = asyncpg.Connection) -> None:
        self.url = url
        self.path = url  # what db.py calls it: where the games are
        self.busy_s = busy_s
        self.pool_size = pool_size
        self.acquire_s = acquire_s
        self.connection_class = connection_class
        self.resets = 0  # connections thrown away after a failure
        # Jobs waiting on the server right now. The event loop looks idle while a query is
        # on the wire; tests/harness/core.py reads this so it does not call the bot
        # settled in the middle of a move (SQLite's jobs show as executor futures instead).
        self.in_flight = 0
        self._pool: asyncpg.Pool | None = None

    # ---- the pool ------------------------------------------------------------------------------
    async def open(self) -> PgStore:
        pool = await asyncpg.create_pool(
            self.url, min_size=1, max_size=self.pool_size, command_timeout=COMMAND_S,
            connection_class=self.connection_class,
            server_settings={"lock_timeout": f"{int(self.busy_s * 1000)}ms",
                             "synchronous_commit": "on"})
        try:
            async with pool.acquire() as con:
                await migrate_postgresql(con)
        except BaseException:
            await pool.close()
            raise
        self._pool = pool
        return self

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    def _need(self) -> asyncpg.Pool:
        if self._pool is None:
            raise RuntimeError("Store.open() first")
        return self._pool

    async def _acquire(self, pool: asyncpg.Pool) -> PoolConnectionProxy[asyncpg.Record]:
        """One of `pool`'s connections, waited for `acquire_s` at most: when every one is
        held that long, StoreBusy — nothing was sent, so nothing was changed. The caller
        releases it to that same pool: `close` unsets the store's pool at once, and a job
        that asked `_need()` again on its way out could not release its connection, which
        the pool's close then waited for for good (a background rescoring at a close)."""
        try:
            # (asyncio.timeout rather than asyncpg's own: that one goes through wait_for,
            # which on Python 3.11 can drop a connection it got as its task is cancelled)
            async with asyncio.timeout(self.acquire_s):
                return await pool.acquire()
        except TimeoutError as e:
            raise StoreBusy(f"no database connection free within {self.acquire_s:g} s "
                            f"(pool of {self.pool_size})") from e

    async def _with(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        pool = self._need()
        con = await self._acquire(pool)
        try:
            return await fn(con, *args)
        finally:
            await pool.release(con)

    async def run_read(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        """`fn(con, *args)` on a pooled connection; one that turns out to have been dropped
        is retried once on a fresh one (a read changes nothing), so the first command after
        a server restart is answered instead of failing on a dead idle connection."""
        self.in_flight += 1
        try:
            try:
                return await self._with(fn, *args)
            except DROPPED:
                self.resets += 1
                return await self._with(fn, *args)
        finally:
            self.in_flight -= 1

    async def run_write(self, fn: Callable[..., Awaitable[T]], *args: Any, key: str | None = None,
                     bookkeeping: bool = False) -> T:
        """`fn(con, *args)` in one transaction: committed whole or not at all (see db.py's
        `_transaction`). A move's `key` resolves a COMMIT that raised."""
        pool = self._need()
        self.in_flight += 1
        try:
            for attempt in (1, 2):
                try:
                    con = await self._acquire(pool)
                except StoreBusy:
                    raise
                except LOST as e:
                    raise StoreBusy(f"the database cannot be reached: {e}") from e
                try:
                    return await self._transaction(con, fn, args, key, bookkeeping)
                except NotBegun:
                    # a pooled connection the server dropped while idle: nothing was sent,
                    # so the whole transaction is tried once on a fresh one
                    self.resets += 1
                    if attempt == 2:
                        raise StoreBusy("the database connection was lost") from None
                finally:
                    await pool.release(con)
            raise AssertionError("unreachable")
        finally:
            self.in_flight -= 1

    async def _transaction(self, con: Con, fn: Callable[..., Awaitable[T]],
                           args: tuple[Any, ...], key: str | None, bookkeeping: bool) -> T:
        try:
            await con.execute("BEGIN")
        except DROPPED as e:
            await self._rollback(con)
            raise NotBegun from e
        try:
            if bookkeeping:
                await con.execute("SET LOCAL synchronous_commit = off")
            out = await fn(con, *args)
        except BaseException as e:
            await self._rollback(con)
            if isinstance(e, RETRYABLE):
                raise StoreBusy(str(e)) from e
            if isinstance(e, LOST):
                raise StoreBusy(f"the database connection was lost: {e}") from e
            raise
        try:
            await con.execute("COMMIT")
        except Exception as e:
            # The commit may or may not have reached the server: look on another connection.
            if await self._rollback(con):
                self._drop(con)
            if key is None:
                if isinstance(e, LOST):  # no key to read back: it may well have landed (a
                    # lobby opened, a seat taken), so "nothing was changed" would be untrue
                    raise StoreUncertain(f"the connection was lost at COMMIT: {e}") from e
                raise
            try:
                landed = await self._with(
                    lambda other: other.fetchval("SELECT 1 FROM applied WHERE key=$1", key))
            except Exception as lookup:
                raise StoreUncertain(f"COMMIT failed ({e}); could not read back ({lookup})") \
                    from e
            if not landed:
                if isinstance(e, LOST):  # read back: not stored, so a plain "try again"
                    raise StoreBusy(f"the connection was lost at COMMIT: {e}") from e
                raise
        return out

    async def _rollback(self, con: Con) -> bool:
        """End a failed transaction; if even ROLLBACK fails, the connection is thrown away
        (the server rolls back what it held) so the next job starts clean. True while the
        connection is still usable."""
        try:
            if con.is_closed():
                return False
            await con.execute("ROLLBACK")
            return True
        except Exception:
            self._drop(con)
            return False

    def _drop(self, con: Con) -> None:
        """Throw the connection away; the pool opens a fresh one when it is next needed."""
        self.resets += 1
        try:
            if not con.is_closed():
                con.terminate()
        except asyncpg.InterfaceError:  # already detached from the pool
            pass

    async def _execute(self, sql: str, *args: Any, bookkeeping: bool = False) -> None:
        async def write(con: Con) -> None:
            await con.execute(sql, *args)
        await self.run_write(write, bookkeeping=bookkeeping)

    # ---- games ---------------------------------------------------------------------------------
    async def open_game(self, channel_id: int) -> GameRow | None:
        return await self.run_read(
            _one, "SELECT * FROM games WHERE channel_id=$1 AND status IN ('lobby','active')",
            channel_id)

    async def latest_game(self, channel_id: int) -> GameRow | None:
        return await self.run_read(
            _one, "SELECT * FROM games WHERE channel_id=$1 ORDER BY id DESC LIMIT 1", channel_id)

    async def get(self, game_id: int) -> GameRow | None:
        return await self.run_read(_one, "SELECT * FROM games WHERE id=$1", game_id)

    async def active_games(self) -> list[GameRow]:
        async def read(con: Con) -> list[GameRow]:
            return [game_row(r) for r in await con.fetch(
                "SELECT * FROM games WHERE status='active' ORDER BY id")]
        return await self.run_read(read)

    async def unknown_status(self) -> list[tuple[int, int, str]]:
        async def read(con: Con) -> list[tuple[int, int, str]]:
            return [(int(r[0]), int(r[1]), str(r[2])) for r in await con.fetch(
                "SELECT id, channel_id, status FROM games WHERE status NOT IN"
                " ('lobby', 'active', 'over', 'abandoned') ORDER BY id")]
        return await self.run_read(read)

    async def create_lobby(self, guild_id: int | None, channel_id: int, host_id: int,
                           host_name: str, settings: Settings,
                           ai: Sequence[Seat] = ()) -> GameRow:
        now = time.time()
        seats = [{"user": host_id, "name": host_name}, *ai]

        async def write(con: Con) -> GameRow:
            try:
                row = await _one(
                    con, "INSERT INTO games (guild_id, channel_id, status, host_id, seats,"
                    " settings, created_at, updated_at) VALUES ($1,$2,'lobby',$3,$4,$5,$6,$6)"
                    " RETURNING *", guild_id, channel_id, host_id, json.dumps(seats),
                    json.dumps(settings), now)
            except asyncpg.UniqueViolationError as e:
                raise VersionConflict("this channel already has a game") from e
            assert row is not None
            return row
        return await self.run_write(write)

    async def update_lobby(self, row: GameRow) -> None:
        async def write(con: Con) -> None:
            if rows_touched(await con.execute(
                    "UPDATE games SET seats=$1, settings=$2, updated_at=$3, version=version+1"
                    " WHERE id=$4 AND status='lobby' AND version=$5", json.dumps(row.seats),
                    json.dumps(row.settings), time.time(), row.id, row.version)) != 1:
                raise VersionConflict("the lobby changed, or started")
        await self.run_write(write)

    async def update_meta(self, game_id: int, change: MetaChange) -> GameMeta:
        """`change` on the meta as stored now, under the row's lock (see db.py)."""
        return (await self._update_meta(game_id, change, None))[0]

    async def update_meta_told(self, game_id: int, change: MetaChange,
                               notice: dict[str, Any]) -> tuple[GameMeta, int | None]:
        return await self._update_meta(game_id, change, notice)

    async def _update_meta(self, game_id: int, change: MetaChange,
                           notice: dict[str, Any] | None) -> tuple[GameMeta, int | None]:
        async def write(con: Con) -> tuple[GameMeta, int | None]:
            raw = await con.fetchrow("SELECT meta, version FROM games WHERE id=$1 FOR UPDATE",
                                     game_id)
            if raw is None:
                raise LookupError(f"no game {game_id}")
            meta = changed_meta(raw[0], change)
            if meta is None:
                return stored_meta(raw[0]), None
            await con.execute("UPDATE games SET meta=$1 WHERE id=$2", json.dumps(meta), game_id)
            if notice is None:
                return meta, None
            return meta, await _queue(con, game_id, raw[1], None, notice, time.time())
        return await self.run_write(write)

    async def set_settings(self, game_id: int, settings: Settings) -> None:
        await self._execute("UPDATE games SET settings=$1, updated_at=$2 WHERE id=$3",
                            json.dumps(settings), time.time(), game_id)

    async def refresh_state(self, game_id: int, version: int, state: str) -> bool:
        async def write(con: Con) -> bool:
            done = await con.fetchval("UPDATE games SET state=$1 WHERE id=$2 AND version=$3"
                                      " RETURNING id", state, game_id, version)
            return done is not None
        return await self.run_write(write)

    async def set_status(self, game_id: int, status: GameStatus,
                         notice: dict[str, Any] | None = None) -> int | None:
        async def write(con: Con) -> int | None:
            now = time.time()
            version = await con.fetchval("UPDATE games SET status=$1, updated_at=$2 WHERE id=$3"
                                         " RETURNING version", status, now, game_id)
            if status in ENDED:
                await con.execute("DELETE FROM timers WHERE game_id=$1", game_id)
            if notice is None or version is None:
                return None
            return await _queue(con, game_id, version, None, notice, now)
        return await self.run_write(write)

    async def start(self, game_id: int, seats: list[Seat], setup: Mapping[str, Any],
                    state: str, entries: Sequence[Entry] = (), timers: Sequence[Timer] = (),
                    *, key: str | None = None, notice: dict[str, Any] | None = None,
                    meta: GameMeta | None = None, lobby: int | None = None) -> Commit:
        """The lobby becomes a game in one transaction (see db.py)."""
        now, key = time.time(), key or new_key()

        async def write(con: Con) -> Commit:
            row = await _one(
                con, "UPDATE games SET status='active', seats=$1, setup=$2, state=$3,"
                " version=$4, updated_at=$5, meta=COALESCE($7, meta) WHERE id=$6"
                " AND status='lobby' AND ($8::bigint IS NULL OR version=$8) RETURNING *",
                json.dumps(seats), json.dumps(setup), state, len(entries), now, game_id,
                None if meta is None else json.dumps(meta), lobby)
            if row is None:
                raise VersionConflict("the game has already started")
            await _claim(con, key, game_id, row.version, "start", now)
            await _append(con, game_id, 0, entries, now)
            return Commit(row, await _put_timers(con, game_id, list(timers)),
                          await _notify(con, row, notice, len(entries), now))
        return await self.run_write(write, key=key)

    async def create_started(self, game: NewGame, within: Callable[[Con, GameRow], Awaitable[T]],
                             *, replace: int | None = None,
                             key: str | None = None) -> tuple[Commit, T]:
        """A game opened already started, with the caller's writes, in one transaction
        (see db.py). Of two processes opening one channel at once, the second waits on the
        unique index for the first to commit, then gets VersionConflict."""
        now, key = time.time(), key or new_key()

        async def write(con: Con) -> tuple[Commit, T]:
            if replace is not None:
                await _abandon(con, replace, now)
            try:
                row = await _one(
                    con, "INSERT INTO games (guild_id, channel_id, status, host_id, seats,"
                    " settings, setup, state, version, created_at, updated_at)"
                    " VALUES ($1,$2,'active',$3,$4,$5,$6,$7,$8,$9,$9) RETURNING *",
                    game.guild_id, game.channel_id, game.host_id, json.dumps(game.seats),
                    json.dumps(game.settings), json.dumps(game.setup), game.state,
                    len(game.entries), now)
            except asyncpg.UniqueViolationError as e:
                raise VersionConflict("this channel already has a game") from e
            assert row is not None
            await _claim(con, key, row.id, row.version, "start", now)
            await _append(con, row.id, 0, game.entries, now)
            done = Commit(row, await _put_timers(con, row.id, list(game.timers)),
                          await _notify(con, row, game.notice, len(game.entries), now))
            return done, await within(con, row)
        return await self.run_write(write, key=key)

    # ---- actions: the one write path for a move -------------------------------------------------
    async def commit_actions(self, game_id: int, expected_version: int,
                             entries: Sequence[Entry], state: str, status: GameStatus,
                             timers: Sequence[Timer], meta: MetaChange | None = None, *,
                             key: str | None = None, notice: dict[str, Any] | None = None,
                             ended: dict[str, Any] | None = None) -> Commit:
        """Append actions and the resulting state in one transaction (see db.py)."""
        now, key = time.time(), key or new_key()

        async def write(con: Con) -> Commit:
            new_meta = None
            if meta is not None:  # read under the row's lock, changed, written below
                raw = await con.fetchval("SELECT meta FROM games WHERE id=$1 AND version=$2"
                                         " FOR UPDATE", game_id, expected_version)
                if raw is None:
                    raise VersionConflict("the game moved on")
                new_meta = changed_meta(raw, meta)
            # The next log position comes back with the row: safe under the row lock, since
            # every write that appends to a log also moves the version this UPDATE checks.
            r = await con.fetchrow(
                "UPDATE games SET state=$1, version=version+$2, status=$3, updated_at=$4,"
                " meta=COALESCE($5, meta) WHERE id=$6 AND version=$7 AND status='active'"
                " RETURNING *,"
                " (SELECT COALESCE(MAX(seq) + 1, 0) FROM actions WHERE game_id=$6) AS next_seq",
                state, max(1, len(entries)), status, now,
                json.dumps(new_meta) if new_meta is not None else None, game_id,
                expected_version)
            if r is None:
                raise VersionConflict("the game moved on")
            row, base = game_row(r), r["next_seq"]
            await _claim(con, key, game_id, row.version, entries[0][2] if entries else "", now)
            await _append(con, game_id, base, entries, now)
            done = status in ENDED
            if ends_unsettled(row, status):  # its ratings: settled apart from any post
                await con.execute("INSERT INTO unsettled_games (game_id, ended_at)"
                                  " VALUES ($1, $2) ON CONFLICT DO NOTHING", game_id, now)
            timed = await _put_timers(con, game_id, [] if done else timers)
            told = await _notify(con, row, notice, base + len(entries), now)
            return Commit(row, timed, told, await _notify(con, row, ended, None, now))
        return await self.run_write(write, key=key)

    async def rewrite_log(self, game_id: int, expected_version: int, log: list[list[Any]],
                          state: str, timers: Sequence[Timer], *, key: str | None = None,
                          notice: dict[str, Any] | None = None) -> Commit:
        """Undo: the log loses an entry; every entry that stays keeps its author (db.py)."""
        now, key = time.time(), key or new_key()

        async def write(con: Con) -> Commit:
            row = await _one(con, "UPDATE games SET state=$1, version=version+1, updated_at=$2"
                             " WHERE id=$3 AND version=$4 AND status='active' RETURNING *",
                             state, now, game_id, expected_version)
            if row is None:
                raise VersionConflict("the game moved on")
            await _claim(con, key, game_id, row.version, "undo", now)
            old = await con.fetch("SELECT seat, user_id, text, at FROM actions WHERE game_id=$1"
                                  " ORDER BY seq", game_id)
            same = 0
            while same < min(len(old), len(log)) and \
                    (old[same]["seat"], old[same]["text"]) == (log[same][0], log[same][1]):
                same += 1
            rest, j, tail = old[same:], 0, []
            for seat, text in log[same:]:
                while j < len(rest) and (rest[j]["seat"], rest[j]["text"]) != (seat, text):
                    j += 1
                found = rest[j] if j < len(rest) else None
                j += 1
                tail.append((seat, found["user_id"] if found else None, text,
                             found["at"] if found else now))
            await con.execute("DELETE FROM actions WHERE game_id=$1 AND seq>=$2", game_id, same)
            await con.executemany(
                "INSERT INTO actions (game_id, seq, seat, user_id, text, at)"
                " VALUES ($1,$2,$3,$4,$5,$6)",
                [(game_id, same + k, seat, user, text, at)
                 for k, (seat, user, text, at) in enumerate(tail)])
            await con.execute("DELETE FROM outbox WHERE game_id=$1 AND log_end>$2", game_id, same)
            return Commit(row, await _put_timers(con, game_id, timers),
                          await _notify(con, row, notice, len(log), now))
        return await self.run_write(write, key=key)

    async def log(self, game_id: int) -> list[list[Any]]:
        async def read(con: Con) -> list[list[Any]]:
            return [[r["seat"], r["text"]] for r in await con.fetch(
                "SELECT seat, text FROM actions WHERE game_id=$1 ORDER BY seq", game_id)]
        return await self.run_read(read)

    async def authors(self, game_id: int) -> list[int | None]:
        async def read(con: Con) -> list[int | None]:
            return [r[0] for r in await con.fetch(
                "SELECT user_id FROM actions WHERE game_id=$1 ORDER BY seq", game_id)]
        return await self.run_read(read)

    async def timed_out_at(self, game_id: int, seat: int) -> float | None:
        async def read(con: Con) -> float | None:
            at = await con.fetchval("SELECT MAX(at) FROM actions WHERE game_id=$1 AND"
                                    " seat=$2 AND text='timeout'", game_id, seat)
            return float(at) if is_time(at) else None  # (damaged: as none)
        return await self.run_read(read)

    async def applied(self, key: str) -> AlreadyApplied | None:
        async def read(con: Con) -> AlreadyApplied | None:
            r = await con.fetchrow("SELECT game_id, version, text FROM applied WHERE key=$1",
                                   key)
            return AlreadyApplied(r[0], r[1], r[2]) if r else None
        return await self.run_read(read)

    async def forget_applied(self, before: float) -> None:
        await self._execute("DELETE FROM applied WHERE at<$1", before, bookkeeping=True)

    async def log_check(self, game_id: int) -> tuple[list[list[Any]], list[int],
                                                     dict[str, Any] | None]:
        async def read(con: Con) -> tuple[list[list[Any]], list[int], dict[str, Any] | None]:
            rows = await con.fetch("SELECT seq, seat, text FROM actions WHERE game_id=$1"
                                   " ORDER BY seq", game_id)
            return ([[r["seat"], r["text"]] for r in rows], [r["seq"] for r in rows],
                    await _quarantine(con, game_id))
        return await self.run_read(read)

    # ---- quarantine --------------------------------------------------------------------------
    async def quarantine(self, game_id: int, reason: dict[str, Any],
                         notice: dict[str, Any] | None = None) -> Marked | None:
        async def write(con: Con) -> Marked | None:
            made = rows_touched(await con.execute(
                "INSERT INTO quarantine (game_id, reason, at) VALUES ($1,$2,$3)"
                " ON CONFLICT DO NOTHING", game_id, json.dumps(reason), time.time())) > 0
            return Marked(await _notify_game(con, game_id, notice)) if made else None
        return await self.run_write(write)

    async def quarantined(self, game_id: int) -> dict[str, Any] | None:
        return await self.run_read(_quarantine, game_id)

    async def release(self, game_id: int, notice: dict[str, Any] | None = None) -> int | None:
        async def write(con: Con) -> int | None:  # (as db.py: its waiting notices due now)
            await con.execute("DELETE FROM quarantine WHERE game_id=$1", game_id)
            await con.execute("UPDATE outbox SET not_before=0 WHERE game_id=$1"
                              " AND claimed_by IS NULL", game_id)
            return await _notify_game(con, game_id, notice)
        return await self.run_write(write)

    # ---- timers --------------------------------------------------------------------------------
    async def timers(self, game_id: int) -> list[TimerRow]:
        return await self.run_read(_timers, game_id)

    async def repair_timers(self, game_id: int, version: int, drop: Sequence[int],
                            timers: Sequence[Timer], meta: MetaChange | None = None
                            ) -> list[TimerRow] | None:
        """As db.py: rebuilt in one transaction with `meta`, unless the game moved on
        (None)."""
        async def write(con: Con) -> list[TimerRow] | None:
            got = await con.fetchrow("SELECT version, meta FROM games WHERE id=$1 FOR UPDATE",
                                     game_id)
            if got is None or got[0] != version:
                return None
            if meta is not None and (changed := changed_meta(got[1], meta)) is not None:
                await con.execute("UPDATE games SET meta=$1 WHERE id=$2", json.dumps(changed),
                                  game_id)
            await con.execute("DELETE FROM timers WHERE game_id=$1 AND seat = ANY($2::int[])",
                              game_id, [int(seat) for seat in drop])
            return await _put_timers(con, game_id, timers)
        return await self.run_write(write)

    async def due_timers(self, now: float) -> list[TimerRow]:
        """As db.py; a NaN or infinite deadline sorts after every number here, so it is one
        too far ahead."""
        async def read(con: Con) -> list[TimerRow]:
            return [timer_row(r) for r in await con.fetch(
                "SELECT * FROM timers WHERE (deadline<=$1 OR (reminded IS DISTINCT FROM 1"
                " AND remind_at<=$1)"
                " OR deadline>$2)"
                " AND game_id NOT IN (SELECT game_id FROM quarantine) ORDER BY game_id, seat",
                now, now + MAX_LIMIT_S + LATEST_SLACK_S)]
        return await self.run_read(read)

    async def untimed_games(self) -> list[int]:
        async def read(con: Con) -> list[int]:
            return [r[0] for r in await con.fetch(
                "SELECT id FROM games WHERE status='active' AND id NOT IN"
                " (SELECT game_id FROM timers) AND id NOT IN (SELECT game_id FROM quarantine)"
                " ORDER BY id")]
        return await self.run_read(read)

    async def mark_reminded(self, game_id: int, seat: int, decision_id: int,
                            notice: dict[str, Any] | None = None) -> Marked | None:
        """Claimed by this pass (Marked) or by another first (None); see db.py."""
        async def write(con: Con) -> Marked | None:
            n = rows_touched(await con.execute(
                "UPDATE timers SET reminded=1 WHERE game_id=$1 AND seat=$2 AND decision_id=$3"
                " AND reminded IS DISTINCT FROM 1", game_id, seat, decision_id))
            if n != 1:
                return None
            if notice is None:
                return Marked(None)
            row = await _one(con, "SELECT * FROM games WHERE id=$1", game_id)
            assert row is not None
            return Marked(await _notify(con, row, notice, None, time.time()))
        return await self.run_write(write)

    async def next_deadline(self) -> float | None:
        async def read(con: Con) -> float | None:
            soonest: float | None = await con.fetchval(
                "SELECT MIN(CASE WHEN reminded IS DISTINCT FROM 1 AND remind_at IS NOT NULL AND "
                "remind_at<deadline THEN remind_at ELSE deadline END) FROM timers")
            return soonest
        return await self.run_read(read)

    # ---- leases ------------------------------------------------------------------------------
    async def try_lease(self, name: str, holder: str, ttl_s: float) -> bool:
        """Take `name` for `ttl_s` s if free, expired or already `holder`'s (renewed); one
        statement on the server's clock, so processes on different machines agree. A
        damaged expiry ('infinity', or a time more than `LEASE_MAX_S` ahead: a clock that
        jumped ahead, a hand edit) counts as expired."""
        async def write(con: Con) -> bool:
            return await con.fetchval(
                "INSERT INTO leases (name, holder, expires)"
                " VALUES ($1, $2, now() + make_interval(secs => $3))"
                " ON CONFLICT (name) DO UPDATE SET holder=excluded.holder,"
                " expires=excluded.expires WHERE leases.holder=excluded.holder"
                " OR leases.expires<=now() OR NOT isfinite(leases.expires)"
                " OR leases.expires>now() + make_interval(secs => $4) RETURNING holder",
                name, holder, min(ttl_s, LEASE_MAX_S), LEASE_MAX_S) is not None
        return await self.run_write(write)

    async def release_lease(self, name: str, holder: str) -> None:
        await self._execute("DELETE FROM leases WHERE name=$1 AND holder=$2", name, holder)

    async def lease_holder(self, name: str) -> str | None:
        async def read(con: Con) -> str | None:
            holder: str | None = await con.fetchval(
                "SELECT holder FROM leases WHERE name=$1 AND expires>now()"
                " AND expires<=now() + make_interval(secs => $2)", name, LEASE_MAX_S)
            return holder
        return await self.run_read(read)

    # ---- the outbox --------------------------------------------------------------------------
    async def notices(self, now: float | None = None, limit: int = 1000, *,
                      created_before: float | None = None) -> list[Notice]:
        """As db.py: each row decoded on its own, an unreadable one set aside."""
        async def read(con: Con) -> list[Notice | int]:
            inf = float("inf")
            due = OUTBOX_DUE.format(now="$1", late="$2", before="$3", inf="$4")
            rows = await con.fetch(
                f"SELECT * FROM outbox WHERE {due} ORDER BY id LIMIT $5",  # noqa: S608
                inf if now is None else now, inf if now is None else now + NOTICE_WAIT_MAX_S,
                inf if created_before is None else created_before, inf, limit)
            return [decode_notice(r) for r in rows]
        found = await self.run_read(read)
        bad = [n for n in found if isinstance(n, int)]
        if bad:
            try:
                await self._set_aside_notices(bad, NOT_A_NOTICE)
            except Exception:  # still in the outbox: skipped again, moved at a later pass
                log.warning("outbox: could not set rows %s aside", bad, exc_info=True)
        return [n for n in found if isinstance(n, Notice)]

    async def set_aside_notice(self, notice_id: int, reason: str) -> None:
        await self._set_aside_notices([notice_id], reason)

    async def _set_aside_notices(self, ids: list[int], reason: str) -> None:
        async def move(con: Con) -> list[dict[str, Any]]:
            moved = [dict(r) for r in await con.fetch(
                "DELETE FROM outbox WHERE id = ANY($1::bigint[]) RETURNING *", ids)]
            await con.executemany(
                "INSERT INTO set_aside (source, game_id, data, reason, at)"
                " VALUES ($1,$2,$3,$4,$5)", [set_aside_row("outbox", r, reason) for r in moved])
            return moved
        report_set_aside("outbox", await self.run_write(move), reason)

    async def delivered(self, notice_id: int) -> None:
        await self._execute("DELETE FROM outbox WHERE id=$1", notice_id, bookkeeping=True)

    async def retry_later(self, notice_id: int, parts_done: int, not_before: float, *,
                          counted: bool = True) -> None:
        if counted:  # (as db.py)
            await self._execute("UPDATE outbox SET parts_done=$1, attempts=attempts+1,"
                                " not_before=$2, claimed_by=NULL, claimed_until=NULL"
                                " WHERE id=$3", parts_done, not_before, notice_id,
                                bookkeeping=True)
            return
        await self._execute("UPDATE outbox SET parts_done=$1, not_before=CASE WHEN game_id IN"
                            " (SELECT game_id FROM quarantine) THEN $2 ELSE 0 END,"
                            " claimed_by=NULL, claimed_until=NULL WHERE id=$3",
                            parts_done, not_before, notice_id, bookkeeping=True)

    async def claim_notice(self, notice_id: int, holder: str, until: float,
                           now: float) -> bool:
        """As db.py: one conditional UPDATE, so two processes cannot both take a notice."""
        claimable = OUTBOX_CLAIMABLE.format(holder="$1", now="$4", late="$5")

        async def write(con: Con) -> bool:
            return await con.fetchval(
                f"UPDATE outbox SET claimed_by=$1, claimed_until=$2 WHERE id=$3 AND {claimable}"  # noqa: S608
                " RETURNING id", holder, until, notice_id, now,
                now + NOTICE_WAIT_MAX_S) is not None
        return await self.run_write(write, bookkeeping=True)


async def _claim(con: Con, key: str, game_id: int, version: int, text: str, now: float) -> None:
    """Record the key; one seen before raises AlreadyApplied (the transaction rolls back).
    ON CONFLICT rather than catching the error: a failed statement would void the whole
    PostgreSQL transaction, and a racing twin waits here for the first to commit."""
    got = await con.fetchval(
        "INSERT INTO applied (key, game_id, version, text, at) VALUES ($1,$2,$3,$4,$5)"
        " ON CONFLICT (key) DO NOTHING RETURNING key", key, game_id, version, text, now)
    if got is None:
        r = await con.fetchrow("SELECT game_id, version, text FROM applied WHERE key=$1", key)
        assert r is not None  # the row that made the insert do nothing
        raise AlreadyApplied(r[0], r[1], r[2])


async def _abandon(con: Con, game_id: int, now: float) -> None:
    """An open game ends abandoned inside the caller's transaction (see db.py)."""
    await con.execute("UPDATE games SET status='abandoned', updated_at=$1 WHERE id=$2"
                      " AND status IN ('lobby','active')", now, game_id)
    await con.execute("DELETE FROM timers WHERE game_id=$1", game_id)


async def _append(con: Con, game_id: int, base: int,
                  entries: Sequence[Entry], now: float) -> None:
    if entries:
        await con.executemany(
            "INSERT INTO actions (game_id, seq, seat, user_id, text, at)"
            " VALUES ($1,$2,$3,$4,$5,$6)",
            [(game_id, base + k, seat, user, text, now)
             for k, (seat, user, text) in enumerate(entries)])


async def _notify(con: Con, row: GameRow, notice: dict[str, Any] | None,
                  log_end: int | None, now: float) -> int | None:
    return None if notice is None else await _queue(con, row.id, row.version, log_end,
                                                    notice, now)


async def _queue(con: Con, game_id: int, version: int, log_end: int | None,
                 notice: dict[str, Any], now: float) -> int:
    """As db.py: the outbox row of every notice, written once."""
    notice_id: int = await con.fetchval(
        "INSERT INTO outbox (game_id, version, log_end, body, not_before, created_at)"
        " VALUES ($1,$2,$3,$4,$5,$6) RETURNING id",
        game_id, version, log_end, json.dumps(notice), now + LEASE_S, now)
    return notice_id


async def _notify_game(con: Con, game_id: int, notice: dict[str, Any] | None) -> int | None:
    """As db.py: a notice about a game whose row may be damaged."""
    if notice is None:
        return None
    version = await con.fetchval("SELECT version FROM games WHERE id=$1", game_id)
    return await _queue(con, game_id, version if isinstance(version, int) else 0, None,
                        notice, time.time())


async def _quarantine(con: Con, game_id: int) -> dict[str, Any] | None:
    raw = await con.fetchval("SELECT reason FROM quarantine WHERE game_id=$1", game_id)
    if raw is None:
        return None
    return quarantine_reason(raw, game_id)


async def _timers(con: Con, game_id: int) -> list[TimerRow]:
    return [timer_row(r) for r in await con.fetch(
        "SELECT * FROM timers WHERE game_id=$1 ORDER BY seat", game_id)]


async def _put_timers(con: Con, game_id: int, timers: Sequence[Timer]) -> list[TimerRow]:
    """The game's timers become `timers`; a seat already timed for the same decision keeps
    its deadline and reminder (see db.py). One statement, so one round trip: the rows it
    wrote come from RETURNING, the ones it kept from the statement's own snapshot."""
    cols = list(zip(*timers, strict=True)) if timers else [(), (), (), ()]
    rows = await con.fetch(
        "WITH gone AS (DELETE FROM timers WHERE game_id=$1 AND NOT (seat = ANY($2::int[]))),"
        " put AS (INSERT INTO timers (game_id, seat, decision_id, deadline, remind_at)"
        "  SELECT $1, * FROM unnest($2::int[], $3::bigint[], $4::float8[], $5::float8[])"
        "  ON CONFLICT (game_id, seat) DO UPDATE SET decision_id=excluded.decision_id,"
        "  deadline=excluded.deadline, remind_at=excluded.remind_at, reminded=0"
        "  WHERE timers.decision_id<>excluded.decision_id RETURNING *)"
        " SELECT * FROM put UNION ALL SELECT * FROM timers WHERE game_id=$1"
        " AND seat = ANY($2::int[]) AND seat NOT IN (SELECT seat FROM put) ORDER BY seat",
        game_id, *(list(c) for c in cols))
    return [timer_row(r) for r in rows]
