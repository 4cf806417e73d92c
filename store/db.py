"""SQLite persistence (WAL): games per channel, their action logs, timers, the outbox of
what must still be told, and the interactions already applied.

The action log is the source of truth; the stored state is a cache that is verified against
a replay of setup + log when a game is first loaded (R15). Every accepted action is written
in one transaction together with the new state, guarded by the state version, so two
concurrent answers can never both land — and together with what must be announced about it
(an `outbox` row) and the key of the interaction that caused it (an `applied` row), so a
crash can neither lose an announcement nor let a redelivered interaction apply twice.

Threads: the store owns two threads, each with its own sqlite3 connection. Every write is
*one* job on the writer thread (a function run there through a one-thread executor, the
public `loop.run_in_executor`): a whole transaction — version-checked UPDATE, log append,
timers, outbox, applied key, and whatever the caller needs back — is one round trip from
the event loop. Jobs run one at a time there, so two games' transactions never interleave;
that thread is the store-wide write lock. Reads run on the reader thread: in WAL mode a
reader sees the last commit and never waits for a writer, so a write stuck on a lock held
by another process (busy timeout `BUSY_S`) never delays any game's reads.

Several processes on one file (shards, the console beside the bot): SQLite lets one write
at a time, so their writes take turns with the file's lock. A write waits for it as long
as the others' commits keep landing (`CONTENDED_S` at most); only a holder that commits
nothing for `BUSY_S` — another program's transaction left open — gets a write refused.
`bench/sqlite_procs.py` measures it (docs/deploy.md, "One machine, one SQLite file").

Faults: a job that fails rolls back; when COMMIT or ROLLBACK themselves fail the connection
is thrown away and reopened, so the next job starts clean (a failure never wedges the
store). A COMMIT that raises may still have reached the file: the store then reads the
transaction's key back on a fresh connection and reports what is really stored.

Two writers, one game (several processes on one database: shards, or two processes running
the same shard during a rolling deploy or after a mistaken setting). The contract:
- A move (`start`, `commit_actions`, `rewrite_log`) is guarded by the game's version: of two
  racing writes exactly one lands, the other raises VersionConflict and writes nothing. That
  loss is normal, not a fault: its caller re-reads (a time limit is left to the winner, or
  to the next pass — the timer stays due until a move answers it).
- `meta` (timeouts per seat, kick votes, AI-played seats, message ids) is never written
  whole from a copy read earlier. Every change is a `MetaChange` run on the meta *as stored*,
  inside the writing transaction and under the game's write lock (here the database's,
  BEGIN IMMEDIATE; pg.py locks the row, SELECT … FOR UPDATE): two writers' changes both
  land, whether they touch different keys or the same counter (`update_meta`, and the
  `meta` of `commit_actions`).
- A reminder is claimed by `mark_reminded`'s conditional UPDATE: of two passes exactly one
  gets `Marked` back, and only that one may tell it.

Durability: `synchronous=FULL` — a commit is on disk (fsync of the WAL) before anyone is
told about it, so a power cut cannot lose a move players have seen. It costs ~0.35 ms per
commit on the development machine (`bench/store.py`), and more while other programs write
to the disk.

Group commit: writes that are waiting for the writer thread when it gets to them share one
transaction and so one fsync (`_group`), each inside a SAVEPOINT of its own, so each is
still all or nothing and one that fails is undone alone. Without it, 50 games answering at
once waited for 50 fsyncs one after another (issue 22: the answer came later than with the
unsynced store of 1d6ad38). Nobody is told a write landed before the shared COMMIT.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sqlite3
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from .contract import (
    BUSY_S,
    LEASE_MAX_S,
    LEASE_S,
    AlreadyApplied,
    GameStore,
    StoreBusy,
    StoreUnavailable,
    StoreUncertain,
    VersionConflict,
)
from .migrations import migrate_sqlite
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

log = logging.getLogger("rr.store")

CONTENDED_S = 10.0  # how long it waits while other processes' commits keep landing (shards)
GROUP_MAX = 64  # writes that may share one commit (`Store._group`)
APPLIED_KEEP_S = 7 * 24 * 3600  # Discord redelivers within minutes; keys are kept a week
T = TypeVar("T")

# A lease row whose expiry is a time: anything else is damage, and the lease is free.
_LEASE_READABLE = "typeof(leases.expires) IN ('integer', 'real')"


def _one(con: sqlite3.Connection, sql: str, args: tuple[Any, ...]) -> GameRow | None:
    rows = con.execute(sql, args).fetchall()
    return game_row(rows[0]) if rows else None


def _busy(e: sqlite3.OperationalError) -> bool:
    return getattr(e, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) \
        or "database is locked" in str(e)


class Store(GameStore):
    """Two threads, one connection each: writes on one, reads on the other (see above).

    `factory` is the sqlite3 connection class (tests pass one that fails on demand);
    `synchronous` other than FULL exists for bench/store.py's comparison; `clock` is the
    time leases are measured on (SQLite has no server clock; tests freeze it)."""

    backend = "sqlite"
    # Failures of a write after which nothing of it is stored (a lock held elsewhere, a
    # COMMIT that did not reach the file) or, StoreUncertain, maybe all of it: a caller
    # that reads the game again may simply try again (service/seats.py does for AI answers).
    faults: tuple[type[Exception], ...] = (StoreBusy, StoreUncertain, sqlite3.OperationalError)
    damaged: tuple[type[Exception], ...] = (sqlite3.DatabaseError,)  # "disk image is malformed"

    def __init__(self, path: str, *, factory: type[sqlite3.Connection] = sqlite3.Connection,
                 busy_s: float = BUSY_S, contended_s: float = CONTENDED_S,
                 synchronous: str = "FULL", clock: Callable[[], float] = time.time) -> None:
        if synchronous not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"synchronous={synchronous!r}")
        self.synchronous = synchronous
        self.path = path
        self.clock = clock
        self.factory = factory
        self.busy_s = busy_s
        self.contended_s = contended_s
        self.resets = 0  # connections thrown away after a failure (see `_reset`)
        self._writer: ThreadPoolExecutor | None = None
        self._reader: ThreadPoolExecutor | None = None
        self._con: sqlite3.Connection | None = None  # touched only on the writer thread
        self._waiting: deque[_Write] = deque()  # writes for the writer thread's next `_flush`
        self._rcon: sqlite3.Connection | None = None  # touched only on the reader thread

    # ---- the threads -------------------------------------------------------------------------
    async def open(self) -> Store:
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="rr-store-write")
        try:
            await self._on(self._writer, self._open_writer)
            if self.path != ":memory:":  # a memory database is private to its one connection
                self._reader = ThreadPoolExecutor(1, thread_name_prefix="rr-store-read")
                await self._on(self._reader, self._open_reader)
        except (sqlite3.Error, OSError) as e:  # an unusable file: no thread is left behind
            await self.close()
            raise StoreUnavailable(str(e)) from e
        except BaseException:
            await self.close()
            raise
        return self

    def _connect(self) -> sqlite3.Connection:
        # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE … COMMIT).
        con = sqlite3.connect(self.path, timeout=self.busy_s, isolation_level=None,
                              factory=self.factory)
        con.row_factory = sqlite3.Row
        con.execute(f"PRAGMA synchronous={self.synchronous}")
        con.execute("PRAGMA foreign_keys=ON")
        return con

    def _open_writer(self) -> None:
        con = self._connect()
        _wal(con, self.busy_s)
        migrate_sqlite(con)  # the schema, brought up to date (store/migrations.py)
        self._con = con

    def _open_reader(self) -> None:
        con = self._connect()
        con.execute("PRAGMA query_only=ON")
        self._rcon = con

    async def close(self) -> None:
        writer, reader = self._writer, self._reader
        if writer is None:
            return
        self._writer = self._reader = None
        if reader is not None:
            await self._on(reader, self._close, "_rcon")
            reader.shutdown(wait=True)
        await self._on(writer, self._close, "_con")
        writer.shutdown(wait=True)

    def _close(self, attr: str) -> None:
        con = getattr(self, attr)
        setattr(self, attr, None)
        if con is not None:
            con.close()

    @staticmethod
    async def _on(pool: ThreadPoolExecutor, fn: Callable[..., T], *args: Any) -> T:
        """Run `fn(*args)` on one of the store's threads: one round trip for a whole job."""
        return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)

    async def run_read(self, fn: Callable[..., T], *args: Any) -> T:
        if self._writer is None:
            raise RuntimeError("Store.open() first")
        if self._reader is None:
            return await self._on(self._writer, self._reading, "_con", fn, args)
        return await self._on(self._reader, self._reading, "_rcon", fn, args)

    def _reading(self, attr: str, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        con = getattr(self, attr)
        assert con is not None, "Store.open() first"
        return fn(con, *args)

    async def run_write(self, fn: Callable[..., T], *args: Any, key: str | None = None,
                     bookkeeping: bool = False) -> T:
        if self._writer is None:
            raise RuntimeError("Store.open() first")
        if bookkeeping:
            return await self._on(self._writer, self._lightly, fn, args)
        loop = asyncio.get_running_loop()
        job = _Write(fn, args, key, loop, loop.create_future())
        self._waiting.append(job)
        self._writer.submit(self._flush)
        out: T = await job.done
        return out

    def _flush(self) -> None:
        """On the writer thread: every write waiting now, as one transaction (`_group`);
        a write queued meanwhile was already taken by an earlier flush, then none is left."""
        jobs: list[_Write] = []
        while self._waiting and len(jobs) < GROUP_MAX:
            jobs.append(self._waiting.popleft())
        if len(jobs) == 1:
            self._alone(jobs[0])
        elif jobs:
            self._group(jobs)

    def _alone(self, job: _Write) -> None:
        try:
            out = self._transaction(job.fn, job.args, job.key)
        except BaseException as e:
            job.settle(e, False)
            if not isinstance(e, Exception):
                raise
        else:
            job.settle(out)

    def _group(self, jobs: list[_Write]) -> None:
        """`jobs` in one IMMEDIATE transaction, each in a savepoint: a job that raises is
        rolled back to its savepoint alone and told its error; the rest share the COMMIT.
        When the transaction itself breaks (a savepoint that cannot be undone: SQLite
        rolled the whole transaction back after an I/O error), nothing of it is kept and
        each job runs again alone."""
        con = self._con
        if con is None or con.in_transaction:
            con = self._reset()
        try:
            self._begin(con)
        except Exception as e:
            for job in jobs:
                job.settle(e, False)
            return
        results: list[tuple[bool, Any]] = []
        try:
            for job in jobs:
                results.append(_in_savepoint(con, job))
        except Exception:
            self._rollback(con)
            for job in jobs:
                self._alone(job)
            return
        except BaseException as e:
            self._rollback(con)
            for job in jobs:
                job.settle(e, False)
            raise
        self._commit_group(con, jobs, results)

    def _commit_group(self, con: sqlite3.Connection, jobs: list[_Write],
                      results: list[tuple[bool, Any]]) -> None:
        """COMMIT the group and tell each job. A COMMIT that raised may still have reached
        the file (as in `_transaction`): one landed key says the whole group did."""
        try:
            con.execute("COMMIT")
        except Exception as e:
            key = next((j.key for j, (ok, _) in zip(jobs, results, strict=True)
                        if ok and j.key is not None), None)
            failure: BaseException = e
            try:
                landed = self._landed_after(con, e, key)
            except StoreUncertain as uncertain:
                landed, failure = False, uncertain
            if not landed:
                results = [(False, failure) if ok else (ok, r) for ok, r in results]
        for job, (ok, result) in zip(jobs, results, strict=True):
            job.settle(result, ok)

    def _lightly(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        """The outbox's own bookkeeping (a notice delivered, a retry time) without a sync
        of its own: the next move's commit syncs it. A power cut may undo it — then a
        notice is told again, never lost — and it spares every move a second fsync."""
        con = self._con if self._con is not None and not self._con.in_transaction \
            else self._reset()
        con.execute("PRAGMA synchronous=NORMAL")
        try:
            return self._transaction(fn, args, None)
        finally:
            try:
                if self._con is not None:
                    self._con.execute(f"PRAGMA synchronous={self.synchronous}")
            except Exception:  # a fresh connection starts at the store's level
                self._reset()

    def _transaction(self, fn: Callable[..., T], args: tuple[Any, ...], key: str | None) -> T:
        """`fn(con, *args)` in one IMMEDIATE transaction: committed whole or not at all.
        A move's transaction records its `key` in `applied` (see `_claim`), so a COMMIT
        that raised can be resolved by reading the key back; other writes are plain
        assignments the caller may simply repeat."""
        con = self._con
        if con is None or con.in_transaction:  # an earlier failure left it unusable
            con = self._reset()
        self._begin(con)
        try:
            out = fn(con, *args)
        except BaseException:
            self._rollback(con)
            raise
        try:
            con.execute("COMMIT")
        except Exception as e:
            if not self._landed_after(con, e, key):
                raise
        return out

    def _landed_after(self, con: sqlite3.Connection, e: Exception, key: str | None) -> bool:
        """After a COMMIT that raised `e`: whether it reached the file after all, read back
        by `key` (one of its writes' interaction keys) on a fresh connection; without a key
        there is no telling, so False. StoreUncertain when the reading back fails too."""
        self._rollback(con)
        if key is None:
            self._reset()
            return False
        try:
            return _landed(self._reset(), key)
        except Exception as lookup:
            raise StoreUncertain(f"COMMIT failed ({e}); could not read back ({lookup})") \
                from e

    def _begin(self, con: sqlite3.Connection) -> None:
        """BEGIN IMMEDIATE: take the database's write lock, waiting `busy_s` at a time. Other
        processes on the file take turns with it (shards on one SQLite file): while their
        commits keep landing (`PRAGMA data_version` moves) the write is only queued, and
        waits on, up to `contended_s` in all. A holder that commits nothing for `busy_s` is
        stuck (another program's open transaction): StoreBusy then, nothing written."""
        deadline = time.monotonic() + self.contended_s
        seen = _data_version(con)
        while True:
            try:
                con.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as e:
                if not _busy(e):
                    self._reset()
                    raise
                moved = _data_version(con)
                if moved is None or moved == seen or time.monotonic() >= deadline:
                    raise StoreBusy(str(e)) from e
                seen = moved

    def _rollback(self, con: sqlite3.Connection) -> None:
        """End a failed transaction; if even ROLLBACK fails, drop the connection (closing
        it rolls back) so the next job starts clean."""
        try:
            if con.in_transaction:
                con.execute("ROLLBACK")
        except Exception:
            self._reset()

    def _reset(self) -> sqlite3.Connection:
        """A fresh writer connection in place of one a failure left in doubt."""
        old, self._con = self._con, None
        if old is not None:
            try:
                old.close()
            except Exception:  # noqa: S110 - it is being thrown away either way
                pass
        self.resets += 1
        self._con = self._connect()
        return self._con

    # ---- games -----------------------------------------------------------------------------
    async def open_game(self, channel_id: int) -> GameRow | None:
        """The lobby or active game of a channel, if any."""
        return await self.run_read(
            _one, "SELECT * FROM games WHERE channel_id=? AND status IN ('lobby','active')",
            (channel_id,))

    async def latest_game(self, channel_id: int) -> GameRow | None:
        """The channel's newest game whatever its status (lobby, active, over, abandoned)."""
        return await self.run_read(
            _one, "SELECT * FROM games WHERE channel_id=? ORDER BY id DESC LIMIT 1",
            (channel_id,))

    async def get(self, game_id: int) -> GameRow | None:
        return await self.run_read(_one, "SELECT * FROM games WHERE id=?", (game_id,))

    async def active_games(self) -> list[GameRow]:
        def read(con: sqlite3.Connection) -> list[GameRow]:
            return [game_row(r) for r in con.execute("SELECT * FROM games WHERE status='active'")]
        return await self.run_read(read)

    async def unknown_status(self) -> list[tuple[int, int, str]]:
        def read(con: sqlite3.Connection) -> list[tuple[int, int, str]]:
            return [(int(r[0]), int(r[1]), str(r[2])) for r in con.execute(
                "SELECT id, channel_id, status FROM games WHERE status NOT IN"
                " ('lobby', 'active', 'over', 'abandoned') ORDER BY id")]
        return await self.run_read(read)

    async def create_lobby(self, guild_id: int | None, channel_id: int, host_id: int,
                           host_name: str, settings: Settings,
                           ai: Sequence[Seat] = ()) -> GameRow:
        now = time.time()
        seats = [{"user": host_id, "name": host_name}, *ai]

        def write(con: sqlite3.Connection) -> GameRow:
            try:
                row = _one(con,
                           "INSERT INTO games (guild_id, channel_id, status, host_id, seats,"
                           " settings, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?)"
                           " RETURNING *",
                           (guild_id, channel_id, "lobby", host_id, json.dumps(seats),
                            json.dumps(settings), now, now))
            except sqlite3.IntegrityError as e:
                raise VersionConflict("this channel already has a game") from e
            assert row is not None
            return row
        return await self.run_write(write)

    async def _execute(self, sql: str, args: tuple[Any, ...], *,
                       bookkeeping: bool = False) -> None:
        await self.run_write(lambda con: con.execute(sql, args).close(), bookkeeping=bookkeeping)

    async def update_lobby(self, row: GameRow) -> None:
        def write(con: sqlite3.Connection) -> None:
            cur = con.execute(
                "UPDATE games SET seats=?, settings=?, updated_at=?, version=version+1"
                " WHERE id=? AND status='lobby' AND version=?",
                (json.dumps(row.seats), json.dumps(row.settings), time.time(), row.id,
                 row.version))
            if cur.rowcount != 1:
                raise VersionConflict("the lobby changed, or started")
        await self.run_write(write)

    async def update_meta(self, game_id: int, change: MetaChange) -> GameMeta:
        """Apply `change` to the game's meta as stored now, in one transaction: a change
        made meanwhile by another process is kept, never overwritten. Returns the meta as
        it stands after it (unchanged when `change` found nothing to do)."""
        return (await self._update_meta(game_id, change, None))[0]

    async def update_meta_told(self, game_id: int, change: MetaChange,
                               notice: dict[str, Any]) -> tuple[GameMeta, int | None]:
        return await self._update_meta(game_id, change, notice)

    async def _update_meta(self, game_id: int, change: MetaChange,
                           notice: dict[str, Any] | None) -> tuple[GameMeta, int | None]:
        def write(con: sqlite3.Connection) -> tuple[GameMeta, int | None]:
            r = con.execute("SELECT meta, version FROM games WHERE id=?", (game_id,)).fetchone()
            if r is None:
                raise LookupError(f"no game {game_id}")
            meta = changed_meta(r[0], change)
            if meta is None:
                return stored_meta(r[0]), None
            con.execute("UPDATE games SET meta=? WHERE id=?", (json.dumps(meta), game_id))
            if notice is None:
                return meta, None
            return meta, _queue(con, game_id, r[1], None, notice, time.time())
        return await self.run_write(write)

    async def set_settings(self, game_id: int, settings: Settings) -> None:
        await self._execute("UPDATE games SET settings=?, updated_at=? WHERE id=?",
                            (json.dumps(settings), time.time(), game_id))

    async def refresh_state(self, game_id: int, version: int, state: str) -> bool:
        def write(con: sqlite3.Connection) -> bool:
            cur = con.execute("UPDATE games SET state=? WHERE id=? AND version=?",
                              (state, game_id, version))
            done = cur.rowcount == 1
            cur.close()
            return done
        return await self.run_write(write)

    async def set_status(self, game_id: int, status: GameStatus,
                         notice: dict[str, Any] | None = None) -> int | None:
        def write(con: sqlite3.Connection) -> int | None:
            now = time.time()
            cur = con.execute("UPDATE games SET status=?, updated_at=? WHERE id=? "
                              "RETURNING version", (status, now, game_id))
            found = cur.fetchone()
            if status in ENDED:
                con.execute("DELETE FROM timers WHERE game_id=?", (game_id,))
            if notice is None or found is None:
                return None
            return _queue(con, game_id, found[0], None, notice, now)
        return await self.run_write(write)

    async def start(self, game_id: int, seats: list[Seat], setup: Mapping[str, Any],
                    state: str, entries: Sequence[Entry] = (), timers: Sequence[Timer] = (),
                    *, key: str | None = None, notice: dict[str, Any] | None = None,
                    meta: GameMeta | None = None, lobby: int | None = None) -> Commit:
        """The lobby becomes a game in one transaction: setup, the answers resolved on their
        own at the start (`entries`), the resulting state, its timers and its announcement
        — a crash can no longer leave a started game without timers or pings. `meta`
        (given: the whole new meta) records what the start promised (rated or not).
        `lobby`: the lobby's version the seats were read at (`update_lobby` moves it on)."""
        now, key = time.time(), key or new_key()

        def write(con: sqlite3.Connection) -> Commit:
            row = _one(con,
                       "UPDATE games SET status='active', seats=?, setup=?, state=?, version=?,"
                       " updated_at=?, meta=COALESCE(?, meta) WHERE id=? AND status='lobby'"
                       " AND (? IS NULL OR version=?) RETURNING *",
                       (json.dumps(seats), json.dumps(setup), state, len(entries), now,
                        None if meta is None else json.dumps(meta), game_id, lobby, lobby))
            if row is None:
                raise VersionConflict("the game has already started")
            _claim(con, key, game_id, row.version, "start", now)
            _append(con, game_id, 0, entries, now)
            return Commit(row, _put_timers(con, game_id, list(timers)),
                          _notify(con, row, notice, len(entries), now))
        return await self.run_write(write, key=key)

    async def create_started(self, game: NewGame, within: Callable[[sqlite3.Connection, GameRow], T],
                             *, replace: int | None = None,
                             key: str | None = None) -> tuple[Commit, T]:
        """Open `game` already started — its row, setup, state, logged answers, timers and
        announcement — together with the caller's own writes `within(con, row)` (the daily
        attempt it belongs to), in one transaction: committed whole or not at all, so a
        crash leaves either nothing or the complete game. `replace`: an open game of the
        channel abandoned first (a new practice replaces the old). VersionConflict when
        the channel has another open game (another process opened it a moment ago);
        whatever `within` raises rolls everything back."""
        now, key = time.time(), key or new_key()

        def write(con: sqlite3.Connection) -> tuple[Commit, T]:
            if replace is not None:
                _abandon(con, replace, now)
            try:
                row = _one(con,
                           "INSERT INTO games (guild_id, channel_id, status, host_id, seats,"
                           " settings, setup, state, version, created_at, updated_at)"
                           " VALUES (?,?,'active',?,?,?,?,?,?,?,?) RETURNING *",
                           (game.guild_id, game.channel_id, game.host_id, json.dumps(game.seats),
                            json.dumps(game.settings), json.dumps(game.setup), game.state,
                            len(game.entries), now, now))
            except sqlite3.IntegrityError as e:
                raise VersionConflict("this channel already has a game") from e
            assert row is not None
            _claim(con, key, row.id, row.version, "start", now)
            _append(con, row.id, 0, game.entries, now)
            done = Commit(row, _put_timers(con, row.id, list(game.timers)),
                          _notify(con, row, game.notice, len(game.entries), now))
            return done, within(con, row)
        return await self.run_write(write, key=key)

    # ---- actions: the one write path for a move ---------------------------------------------
    async def commit_actions(self, game_id: int, expected_version: int,
                             entries: Sequence[Entry], state: str, status: GameStatus,
                             timers: Sequence[Timer], meta: MetaChange | None = None, *,
                             key: str | None = None, notice: dict[str, Any] | None = None,
                             ended: dict[str, Any] | None = None) -> Commit:
        """Append actions (seat, user, text) and the resulting state in one transaction, and
        return the row and timers as committed; `meta` is a change made to the game's meta
        in the same transaction (a time-out counted with the default answer it caused).

        The version only grows (an undo bumps it too), so any prompt read before is stale.
        Only a game still active takes a move: one abandoned, resigned or closed by another
        process meanwhile (which may leave its version as it was) is never brought back.
        Raises VersionConflict when the game moved on since `expected_version` was read,
        AlreadyApplied when `key` (an interaction) was applied before. `timers` are the
        game's timers from now on (see `_put_timers`); a finished game has none. `notice`
        (what to announce) is written to the outbox in the same transaction.
        """
        now, key = time.time(), key or new_key()

        def write(con: sqlite3.Connection) -> Commit:
            new_meta = None
            if meta is not None:
                r = con.execute("SELECT meta FROM games WHERE id=? AND version=?",
                                (game_id, expected_version)).fetchone()
                if r is None:
                    raise VersionConflict("the game moved on")
                new_meta = changed_meta(r[0], meta)
            row = _one(
                con,
                "UPDATE games SET state=?, version=version+?, status=?, updated_at=?,"
                " meta=COALESCE(?, meta) WHERE id=? AND version=? AND status='active'"
                " RETURNING *",
                (state, max(1, len(entries)), status, now,
                 json.dumps(new_meta) if new_meta is not None else None, game_id,
                 expected_version))
            if row is None:
                raise VersionConflict("the game moved on")
            _claim(con, key, game_id, row.version, entries[0][2] if entries else "", now)
            base = con.execute("SELECT COALESCE(MAX(seq) + 1, 0) FROM actions WHERE game_id=?",
                               (game_id,)).fetchone()[0]
            _append(con, game_id, base, entries, now)
            done = status in ENDED
            if ends_unsettled(row, status):  # its ratings: settled apart from any post
                con.execute("INSERT INTO unsettled_games (game_id, ended_at) VALUES (?, ?)"
                            " ON CONFLICT DO NOTHING", (game_id, now))
            told = _notify(con, row, notice, base + len(entries), now)
            return Commit(row, _put_timers(con, game_id, [] if done else timers), told,
                          _notify(con, row, ended, None, now))
        return await self.run_write(write, key=key)

    async def rewrite_log(self, game_id: int, expected_version: int, log: list[list[Any]],
                          state: str, timers: Sequence[Timer], *, key: str | None = None,
                          notice: dict[str, Any] | None = None) -> Commit:
        """Undo: the log loses an entry; stored atomically like any other move. Every entry
        that stays keeps who made it and when; announcements still waiting about entries
        that moved or went are dropped (the undo's own notice tells the table)."""
        now, key = time.time(), key or new_key()

        def write(con: sqlite3.Connection) -> Commit:
            row = _one(con,
                       "UPDATE games SET state=?, version=version+1, updated_at=?"
                       " WHERE id=? AND version=? AND status='active' RETURNING *",
                       (state, now, game_id, expected_version))
            if row is None:
                raise VersionConflict("the game moved on")
            _claim(con, key, game_id, row.version, "undo", now)
            old = con.execute("SELECT seat, user_id, text, at FROM actions WHERE game_id=? "
                              "ORDER BY seq", (game_id,)).fetchall()
            same = 0
            while same < min(len(old), len(log)) and \
                    (old[same]["seat"], old[same]["text"]) == (log[same][0], log[same][1]):
                same += 1
            rest, j, tail = old[same:], 0, []
            for seat, text in log[same:]:  # the old entries in order, minus the undone ones
                while j < len(rest) and (rest[j]["seat"], rest[j]["text"]) != (seat, text):
                    j += 1
                found = rest[j] if j < len(rest) else None
                j += 1
                tail.append((seat, found["user_id"] if found else None, text,
                             found["at"] if found else now))
            con.execute("DELETE FROM actions WHERE game_id=? AND seq>=?", (game_id, same))
            con.executemany(
                "INSERT INTO actions (game_id, seq, seat, user_id, text, at) VALUES (?,?,?,?,?,?)",
                [(game_id, same + k, seat, user, text, at)
                 for k, (seat, user, text, at) in enumerate(tail)])
            con.execute("DELETE FROM outbox WHERE game_id=? AND log_end>?", (game_id, same))
            return Commit(row, _put_timers(con, game_id, timers),
                          _notify(con, row, notice, len(log), now))
        return await self.run_write(write, key=key)

    async def log(self, game_id: int) -> list[list[Any]]:
        def read(con: sqlite3.Connection) -> list[list[Any]]:
            return [[r["seat"], r["text"]] for r in con.execute(
                "SELECT seat, text FROM actions WHERE game_id=? ORDER BY seq", (game_id,))]
        return await self.run_read(read)

    async def authors(self, game_id: int) -> list[int | None]:
        """Who made each logged action (None: an automatic answer or a time limit)."""
        def read(con: sqlite3.Connection) -> list[int | None]:
            return [r[0] for r in con.execute(
                "SELECT user_id FROM actions WHERE game_id=? ORDER BY seq", (game_id,))]
        return await self.run_read(read)

    async def timed_out_at(self, game_id: int, seat: int) -> float | None:
        def read(con: sqlite3.Connection) -> float | None:
            at = con.execute("SELECT MAX(at) FROM actions WHERE game_id=? AND seat=?"
                             " AND text='timeout'", (game_id, seat)).fetchone()[0]
            return float(at) if is_time(at) else None  # (damaged: as none)
        return await self.run_read(read)

    async def applied(self, key: str) -> AlreadyApplied | None:
        """What an interaction key did, if it was applied (for a redelivery's answer)."""
        def read(con: sqlite3.Connection) -> AlreadyApplied | None:
            r = con.execute("SELECT game_id, version, text FROM applied WHERE key=?",
                            (key,)).fetchone()
            return AlreadyApplied(r[0], r[1], r[2]) if r else None
        return await self.run_read(read)

    async def forget_applied(self, before: float) -> None:
        """Drop keys older than `before`: no interaction is redelivered that late."""
        await self._execute("DELETE FROM applied WHERE at<?", (before,), bookkeeping=True)
    async def log_check(self, game_id: int) -> tuple[list[list[Any]], list[int],
                                                     dict[str, Any] | None]:
        """What loading a game needs, in one job: its log, the sequence numbers of its rows
        (they run 0, 1, 2, … — a gap is a lost row), and its quarantine reason if any."""
        def read(con: sqlite3.Connection) -> tuple[list[list[Any]], list[int],
                                                   dict[str, Any] | None]:
            rows = con.execute("SELECT seq, seat, text FROM actions WHERE game_id=? ORDER BY seq",
                               (game_id,)).fetchall()
            return ([[r["seat"], r["text"]] for r in rows], [r["seq"] for r in rows],
                    _quarantine(con, game_id))
        return await self.run_read(read)

    # ---- quarantine: damaged games, set aside (survives restarts) ---------------------------
    async def quarantine(self, game_id: int, reason: dict[str, Any],
                         notice: dict[str, Any] | None = None) -> Marked | None:
        """Set a damaged game aside; Marked when it was not already (so it is reported
        once), with `notice` queued in the outbox in the same transaction."""
        def write(con: sqlite3.Connection) -> Marked | None:
            cur = con.execute("INSERT OR IGNORE INTO quarantine (game_id, reason, at) "
                              "VALUES (?,?,?)", (game_id, json.dumps(reason), time.time()))
            if cur.rowcount <= 0:
                return None
            return Marked(_notify_game(con, game_id, notice))
        return await self.run_write(write)

    async def quarantined(self, game_id: int) -> dict[str, Any] | None:
        return await self.run_read(_quarantine, game_id)

    async def release(self, game_id: int, notice: dict[str, Any] | None = None) -> int | None:
        """The game verified again (its rows were restored or repaired): back in play. Its
        notices that waited while it was set aside (`retry_later`, not counted) are due at
        once, in the same transaction: the move told before its game resumed is not held
        an hour more (the fault-injection audit)."""
        def write(con: sqlite3.Connection) -> int | None:
            con.execute("DELETE FROM quarantine WHERE game_id=?", (game_id,))
            con.execute("UPDATE outbox SET not_before=0 WHERE game_id=? AND claimed_by IS NULL",
                        (game_id,))
            return _notify_game(con, game_id, notice)
        return await self.run_write(write)

    # ---- timers ----------------------------------------------------------------------------
    async def timers(self, game_id: int) -> list[TimerRow]:
        return await self.run_read(_timers, game_id)

    async def repair_timers(self, game_id: int, version: int, drop: Sequence[int],
                            timers: Sequence[Timer], meta: MetaChange | None = None
                            ) -> list[TimerRow] | None:
        """Rebuild a game's timers from the game (service/games.py found them disagreeing):
        the rows of seats `drop` go, then the timers become `timers` as after a move. None,
        writing nothing, when the game is no longer at `version` (its last move wrote its
        timers since). `meta`: a change to the game's meta made in the same transaction — a
        seat given back (`/rr back`) with its expired deadline renewed, so a crash between
        the two never leaves a person's seat past its deadline (the fault-injection audit)."""
        def write(con: sqlite3.Connection) -> list[TimerRow] | None:
            r = con.execute("SELECT version, meta FROM games WHERE id=?", (game_id,)).fetchone()
            if r is None or r[0] != version:
                return None
            if meta is not None and (changed := changed_meta(r[1], meta)) is not None:
                con.execute("UPDATE games SET meta=? WHERE id=?", (json.dumps(changed), game_id))
            con.executemany("DELETE FROM timers WHERE game_id=? AND seat=?",
                            [(game_id, seat) for seat in drop])
            return _put_timers(con, game_id, timers)
        return await self.run_write(write)

    async def due_timers(self, now: float) -> list[TimerRow]:
        """Timers whose deadline passed or whose reminder is due, in seat order per game (every
        process goes through a game's time limits in the same order); and those whose
        deadline is no time a timer can have (text, or further ahead than the longest time
        limit: a damaged row), so the pass that meets them rebuilds them from the game
        (service/limits.py) instead of their seat never timing out."""
        def read(con: sqlite3.Connection) -> list[TimerRow]:
            return [timer_row(r) for r in con.execute(
                "SELECT * FROM timers WHERE (deadline<=? OR (reminded IS NOT 1 AND remind_at<=?)"
                " OR deadline>? OR typeof(deadline) NOT IN ('integer', 'real'))"
                " AND game_id NOT IN (SELECT game_id FROM quarantine) ORDER BY game_id, seat",
                (now, now, now + MAX_LIMIT_S + LATEST_SLACK_S))]
        return await self.run_read(read)

    async def untimed_games(self) -> list[int]:
        def read(con: sqlite3.Connection) -> list[int]:
            return [r[0] for r in con.execute(
                "SELECT id FROM games WHERE status='active' AND id NOT IN"
                " (SELECT game_id FROM timers) AND id NOT IN (SELECT game_id FROM quarantine)"
                " ORDER BY id")]
        return await self.run_read(read)

    async def mark_reminded(self, game_id: int, seat: int, decision_id: int,
                            notice: dict[str, Any] | None = None) -> Marked | None:
        """The reminder is due: claimed (marked sent) and its `notice` queued in the outbox
        in one transaction. None when another pass — maybe another process — claimed it
        first: then it is that pass's to tell, not this one's."""
        def write(con: sqlite3.Connection) -> Marked | None:
            cur = con.execute("UPDATE timers SET reminded=1 WHERE game_id=? AND seat=? AND "
                              "decision_id=? AND reminded IS NOT 1", (game_id, seat, decision_id))
            if cur.rowcount != 1:
                return None
            if notice is None:
                return Marked(None)
            row = _one(con, "SELECT * FROM games WHERE id=?", (game_id,))
            assert row is not None
            return Marked(_notify(con, row, notice, None, time.time()))
        return await self.run_write(write)

    async def next_deadline(self) -> float | None:
        def read(con: sqlite3.Connection) -> float | None:
            r = con.execute(
                "SELECT MIN(CASE WHEN reminded IS NOT 1 AND remind_at IS NOT NULL AND "
                "remind_at<deadline THEN remind_at ELSE deadline END) FROM timers").fetchone()
            return r[0] if r else None
        return await self.run_read(read)

    # ---- leases: one holder of a named job across processes --------------------------------
    async def try_lease(self, name: str, holder: str, ttl_s: float) -> bool:
        """Take the lease `name` for `ttl_s` seconds if it is free, expired or already
        `holder`'s (then it is renewed); False when another holder has it. One statement,
        so two processes asking at once cannot both get it. An expiry that is not a number
        (a damaged row: SQLite would rank text after every number, so it would never
        expire), or one more than `LEASE_MAX_S` ahead (a clock that jumped ahead when it was
        written: the day job then ran nowhere for years), counts as expired."""
        now, ttl_s = self.clock(), min(ttl_s, LEASE_MAX_S)

        def write(con: sqlite3.Connection) -> bool:
            return con.execute(
                "INSERT INTO leases (name, holder, expires) VALUES (?,?,?)"
                " ON CONFLICT (name) DO UPDATE SET holder=excluded.holder,"
                " expires=excluded.expires WHERE leases.holder=excluded.holder"
                f" OR leases.expires<=? OR leases.expires>? OR NOT {_LEASE_READABLE}"
                " RETURNING holder",
                (name, holder, now + ttl_s, now, now + LEASE_MAX_S)).fetchone() is not None
        return await self.run_write(write)

    async def release_lease(self, name: str, holder: str) -> None:
        """Give the lease up at once (a clean shutdown), so another process need not wait
        for it to expire; a lease someone else holds is left alone."""
        await self._execute("DELETE FROM leases WHERE name=? AND holder=?", (name, holder))

    async def lease_holder(self, name: str) -> str | None:
        """Who holds `name` now (None: free or expired)."""
        now = self.clock()

        def read(con: sqlite3.Connection) -> str | None:
            r = con.execute(f"SELECT holder FROM leases WHERE name=? AND expires>?"
                            f" AND expires<=? AND {_LEASE_READABLE}",
                            (name, now, now + LEASE_MAX_S)).fetchone()
            return r[0] if r else None
        return await self.run_read(read)

    # ---- the outbox --------------------------------------------------------------------------
    async def notices(self, now: float | None = None, limit: int = 1000, *,
                      created_before: float | None = None) -> list[Notice]:
        """Undelivered notices, oldest first; with `now`, only those no live delivery holds
        any more (past their lease or back-off); with `created_before`, only those written
        before then (at startup: by an earlier process). Each row is decoded on its own: one
        whose body cannot be read is moved to `set_aside` and logged, so it never stops
        every other game's announcements."""
        def read(con: sqlite3.Connection) -> list[Notice | int]:
            inf = float("inf")
            due = OUTBOX_DUE.format(now="?", late="?", before="?", inf="?")
            rows = con.execute(
                f"SELECT * FROM outbox WHERE {due} ORDER BY id LIMIT ?",  # noqa: S608
                (inf if now is None else now, inf if now is None else now + NOTICE_WAIT_MAX_S,
                 inf if now is None else now,
                 inf if created_before is None else created_before, inf, limit))
            return [decode_notice(r) for r in rows]
        found = await self.run_read(read)
        bad = [n for n in found if isinstance(n, int)]
        if bad:
            try:
                report_set_aside("outbox", await self.run_write(_set_aside_notices, bad),
                                 NOT_A_NOTICE)
            except Exception:  # still in the outbox: skipped again, moved at a later pass
                log.warning("outbox: could not set rows %s aside", bad, exc_info=True)
        return [n for n in found if isinstance(n, Notice)]

    async def delivered(self, notice_id: int) -> None:
        """Told: the notice leaves the outbox (a restart will not send it again)."""
        await self._execute("DELETE FROM outbox WHERE id=?", (notice_id,), bookkeeping=True)

    async def retry_later(self, notice_id: int, parts_done: int, not_before: float, *,
                          counted: bool = True) -> None:
        """Delivery stopped at message `parts_done` (Discord unreachable): try again later
        from there, so messages already sent are not sent twice. The claim is let go: the
        retry is whichever process's pass comes first after `not_before`. Not `counted`:
        a notice of a game set aside, waiting for it — the attempts stay as they are, and
        a game released since it was found set aside (the startup check and the startup
        outbox run side by side) makes it due at once, decided in this one statement."""
        if counted:
            await self._execute("UPDATE outbox SET parts_done=?, attempts=attempts+1, "
                                "not_before=?, claimed_by=NULL, claimed_until=NULL WHERE id=?",
                                (parts_done, not_before, notice_id), bookkeeping=True)
            return
        await self._execute("UPDATE outbox SET parts_done=?, not_before=CASE WHEN game_id IN"
                            " (SELECT game_id FROM quarantine) THEN ? ELSE 0 END,"
                            " claimed_by=NULL, claimed_until=NULL WHERE id=?",
                            (parts_done, not_before, notice_id), bookkeeping=True)

    async def claim_notice(self, notice_id: int, holder: str, until: float,
                           now: float) -> bool:
        """Take (or renew) the notice for `holder` until `until`; False when another
        process's claim on it holds, or it is told already (gone). One conditional UPDATE:
        two processes asking at once cannot both get it."""
        claimable = OUTBOX_CLAIMABLE.format(holder="?", now="?", late="?")

        def write(con: sqlite3.Connection) -> bool:
            return con.execute(
                f"UPDATE outbox SET claimed_by=?, claimed_until=? WHERE id=? AND {claimable}"  # noqa: S608
                " RETURNING id", (holder, until, notice_id, holder, now,
                                  now + NOTICE_WAIT_MAX_S)).fetchone() is not None
        return bool(await self.run_write(write, bookkeeping=True))

    async def set_aside_notice(self, notice_id: int, reason: str) -> None:
        report_set_aside("outbox", await self.run_write(_set_aside_notices, [notice_id], reason),
                         reason)


def _claim(con: sqlite3.Connection, key: str, game_id: int, version: int, text: str,
           now: float) -> None:
    """Record that `key` caused this transaction; a key seen before means a redelivered
    interaction: raise AlreadyApplied (the transaction is rolled back, nothing applies)."""
    try:
        con.execute("INSERT INTO applied (key, game_id, version, text, at) VALUES (?,?,?,?,?)",
                    (key, game_id, version, text, now))
    except sqlite3.IntegrityError:
        r = con.execute("SELECT game_id, version, text FROM applied WHERE key=?",
                        (key,)).fetchone()
        raise AlreadyApplied(r[0], r[1], r[2]) from None


def _abandon(con: sqlite3.Connection, game_id: int, now: float) -> None:
    """An open game ends abandoned inside the caller's transaction; it has no timers then."""
    con.execute("UPDATE games SET status='abandoned', updated_at=? WHERE id=?"
                " AND status IN ('lobby','active')", (now, game_id))
    con.execute("DELETE FROM timers WHERE game_id=?", (game_id,))


@dataclass
class _Write:
    """A write waiting for the writer thread, and how to tell its caller the outcome."""

    fn: Callable[..., Any]
    args: tuple[Any, ...]
    key: str | None
    loop: asyncio.AbstractEventLoop
    done: asyncio.Future[Any]

    def settle(self, result: Any, ok: bool = True) -> None:
        """From the writer thread: the result (`ok`), or the exception to raise, to the
        caller; nothing when its loop is gone (a shutdown: nobody is waiting)."""
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(self._settle, result, ok)

    def _settle(self, result: Any, ok: bool) -> None:
        if self.done.done():  # the caller was cancelled (shutdown): nobody is waiting
            return
        if ok:
            self.done.set_result(result)
        else:
            self.done.set_exception(result)


def _in_savepoint(con: sqlite3.Connection, job: _Write) -> tuple[bool, Any]:
    """`job` inside the group's transaction: (True, its result), or (False, the exception
    it raised) once its own writes are rolled back; a failure to roll back breaks the
    group and is raised."""
    con.execute("SAVEPOINT job")
    try:
        out = job.fn(con, *job.args)
    except Exception as e:
        con.execute("ROLLBACK TO job")
        con.execute("RELEASE job")
        return False, e
    con.execute("RELEASE job")
    return True, out


def _landed(con: sqlite3.Connection, key: str) -> bool:
    return con.execute("SELECT 1 FROM applied WHERE key=?", (key,)).fetchone() is not None


def _append(con: sqlite3.Connection, game_id: int, base: int,
            entries: Sequence[Entry], now: float) -> None:
    con.executemany(
        "INSERT INTO actions (game_id, seq, seat, user_id, text, at) VALUES (?,?,?,?,?,?)",
        [(game_id, base + k, seat, user, text, now)
         for k, (seat, user, text) in enumerate(entries)])


def _notify(con: sqlite3.Connection, row: GameRow, notice: dict[str, Any] | None,
            log_end: int | None, now: float) -> int | None:
    """Queue `notice` in the outbox; the committing process has `LEASE_S` to deliver it
    before the worker takes over."""
    return None if notice is None else _queue(con, row.id, row.version, log_end, notice, now)


def _queue(con: sqlite3.Connection, game_id: int, version: int, log_end: int | None,
           notice: dict[str, Any], now: float) -> int:
    """The outbox row of every notice, written once."""
    cur = con.execute("INSERT INTO outbox (game_id, version, log_end, body, not_before,"
                      " created_at) VALUES (?,?,?,?,?,?)",
                      (game_id, version, log_end, json.dumps(notice), now + LEASE_S, now))
    assert cur.lastrowid is not None  # (an INSERT into a rowid table)
    return cur.lastrowid


def _notify_game(con: sqlite3.Connection, game_id: int,
                 notice: dict[str, Any] | None) -> int | None:
    """Queue `notice` about a game whose row may be damaged (only its id and version are
    read, and a version that cannot be read counts as 0)."""
    if notice is None:
        return None
    r = con.execute("SELECT version FROM games WHERE id=?", (game_id,)).fetchone()
    version = r[0] if r is not None and isinstance(r[0], int) else 0
    return _queue(con, game_id, version, None, notice, time.time())


def _set_aside_notices(con: sqlite3.Connection, ids: list[int],
                       reason: str = NOT_A_NOTICE) -> list[dict[str, Any]]:
    """Move unreadable outbox rows to `set_aside` (one transaction: kept or moved whole);
    returns the rows moved."""
    moved: list[dict[str, Any]] = []
    for notice_id in ids:
        moved += [dict(r) for r in con.execute("DELETE FROM outbox WHERE id=? RETURNING *",
                                               (notice_id,)).fetchall()]
    con.executemany("INSERT INTO set_aside (source, game_id, data, reason, at)"
                    " VALUES (?,?,?,?,?)",
                    [set_aside_row("outbox", r, reason) for r in moved])
    return moved


def _quarantine(con: sqlite3.Connection, game_id: int) -> dict[str, Any] | None:
    r = con.execute("SELECT reason FROM quarantine WHERE game_id=?", (game_id,)).fetchone()
    if r is None:
        return None
    return quarantine_reason(r["reason"], game_id)


def _timers(con: sqlite3.Connection, game_id: int) -> list[TimerRow]:
    return [timer_row(r) for r in con.execute("SELECT * FROM timers WHERE game_id=? ORDER BY seat",
                                         (game_id,))]


def _put_timers(con: sqlite3.Connection, game_id: int,
                timers: Sequence[Timer]) -> list[TimerRow]:
    """The game's timers become `timers`: seats not listed lose theirs; a seat already timed
    for the same decision keeps its deadline and reminder (a decision keeps the deadline it
    got when it was first asked); others get the one given. Returns the timers as stored."""
    seats = [t[0] for t in timers]
    con.execute(f"DELETE FROM timers WHERE game_id=? AND seat NOT IN ({','.join('?' * len(seats))})",
                (game_id, *seats))
    con.executemany(
        "INSERT INTO timers (game_id, seat, decision_id, deadline, remind_at) VALUES (?,?,?,?,?)"
        " ON CONFLICT (game_id, seat) DO UPDATE SET decision_id=excluded.decision_id,"
        " deadline=excluded.deadline, remind_at=excluded.remind_at, reminded=0"
        " WHERE decision_id<>excluded.decision_id",
        [(game_id, *t) for t in timers])
    return _timers(con, game_id)


def _data_version(con: sqlite3.Connection) -> int | None:
    """A number that changes whenever another connection commits to the file (None: the
    file could not even be read just now)."""
    try:
        return int(con.execute("PRAGMA data_version").fetchone()[0])
    except sqlite3.Error:  # BEGIN, next, meets the same fault and deals with it
        return None


def _wal(con: sqlite3.Connection, wait_s: float) -> None:
    """Switch a new file to WAL. Switching needs the file to itself and SQLite answers
    "database is locked" at once, without its busy handler, while another process opens
    the same new file (six bot processes started together did): so retry, bounded by the
    busy timeout. A file already in WAL needs no switch (it is a persistent mode)."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            if con.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                con.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)
