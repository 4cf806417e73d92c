"""SQLite persistence (WAL): games per channel, their action logs, timers.

The action log is the source of truth; the stored state is a cache that is verified against
a replay of setup + log when a game is first loaded (R15). Every accepted action is written
in one transaction together with the new state, guarded by the state version, so two
concurrent answers can never both land.

The store is built on aiosqlite: one `aiosqlite.Connection`, whose worker thread owns the
sqlite3 connection. Every method is *one* job on that thread (a function run there through
the connection's job queue): a whole transaction — version-checked UPDATE, log append,
timers, and whatever the caller needs back — is one round trip from the event loop. Because
jobs run one at a time on that thread, two games' transactions can never interleave on the
connection: the thread is the store-wide write lock (each write job also checks that no
transaction was left open before it begins its own).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import aiosqlite

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id INTEGER,
    channel_id INTEGER NOT NULL,
    status TEXT NOT NULL,             -- lobby | active | over | abandoned
    host_id INTEGER NOT NULL,
    seats TEXT NOT NULL,              -- JSON [{"user": id, "name": str}] in seat order
    settings TEXT NOT NULL,           -- JSON {"players": n, "difficulty", "time_limit_s", ...}
    setup TEXT,                       -- JSON engine setup (null while in the lobby)
    state TEXT,                       -- JSON engine state (cache of setup + log)
    version INTEGER NOT NULL DEFAULT 0,
    meta TEXT NOT NULL DEFAULT '{}',  -- JSON: timeouts per seat, kick votes, message ids
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS one_open_game_per_channel
    ON games(channel_id) WHERE status IN ('lobby', 'active');
CREATE INDEX IF NOT EXISTS games_by_channel ON games(channel_id, id);
CREATE TABLE IF NOT EXISTS actions (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    user_id INTEGER,
    text TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS timers (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    decision_id INTEGER NOT NULL,
    deadline REAL NOT NULL,
    remind_at REAL,
    reminded INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS quarantine (  -- games set aside because they are damaged
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    reason TEXT NOT NULL,             -- JSON {"kind": ..., details}: what was found
    at REAL NOT NULL
);
"""

Timer = tuple[int, int, float, float | None]  # (seat, decision opened, deadline, remind_at)
T = TypeVar("T")


class VersionConflict(Exception):
    """Someone else's answer landed first; the caller's view of the game is out of date."""


@dataclass(slots=True)
class GameRow:
    id: int
    guild_id: int | None
    channel_id: int
    status: str
    host_id: int
    seats: list[dict[str, Any]]
    settings: dict[str, Any]
    setup: dict[str, Any] | None
    state: str | None
    version: int
    meta: dict[str, Any]
    # JSON columns that could not be read (the row is then only good for abandoning it)
    damage: list[str] = field(default_factory=list)

    def seat_of(self, user_id: int) -> int | None:
        for i, s in enumerate(self.seats):
            if s["user"] == user_id:
                return i
        return None


@dataclass(slots=True)
class Commit:
    """What a committed move left in the database: the game's row and its timers."""

    row: GameRow
    timers: list[dict[str, Any]]


def _row(r: sqlite3.Row) -> GameRow:
    """A game row; a JSON column that does not parse (or has the wrong shape) is replaced by
    an empty value and named in `damage`, so one damaged game never breaks a read of others
    (and can still be found, reported and abandoned)."""
    damage: list[str] = []

    def load(column: str, kind: type, empty: Any) -> Any:
        raw = r[column]
        if raw is None and empty is None:
            return None
        try:
            value = json.loads(raw)
        except (TypeError, ValueError):
            value = None
        if not isinstance(value, kind):
            damage.append(column)
            return empty
        return value

    return GameRow(
        id=r["id"], guild_id=r["guild_id"], channel_id=r["channel_id"], status=r["status"],
        host_id=r["host_id"], seats=load("seats", list, []), settings=load("settings", dict, {}),
        setup=load("setup", dict, None) if r["setup"] else None, state=r["state"],
        version=r["version"], meta=load("meta", dict, {}), damage=damage,
    )


def _one(con: sqlite3.Connection, sql: str, args: tuple[Any, ...]) -> GameRow | None:
    rows = con.execute(sql, args).fetchall()
    return _row(rows[0]) if rows else None


class Store:
    """One connection per process, used only from aiosqlite's worker thread (see above)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._db: aiosqlite.Connection | None = None
        self._con: sqlite3.Connection | None = None  # touched only on the worker thread

    # ---- the connection's thread ---------------------------------------------------------------
    async def open(self) -> Store:
        # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE … COMMIT).
        self._db = await aiosqlite.connect(self.path, isolation_level=None)
        await self._call(self._setup)
        return self

    def _setup(self) -> None:
        assert self._db is not None
        con = self._db._conn  # the sqlite3 connection aiosqlite's worker thread owns
        con.row_factory = sqlite3.Row
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
        con.execute("PRAGMA foreign_keys=ON")
        con.executescript(SCHEMA)
        self._con = con

    async def close(self) -> None:
        if self._db is None:
            return
        db, self._db = self._db, None
        self._con = None
        await db.close()

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run `fn(*args)` on aiosqlite's worker thread: one round trip for a whole job.

        aiosqlite runs every statement as such a job; `_execute` is how it queues one
        (stable across its releases; the version is pinned in requirements.txt).
        """
        if self._db is None:
            raise RuntimeError("Store.open() first")
        return await self._db._execute(fn, *args)

    async def _read(self, fn: Callable[..., T], *args: Any) -> T:
        return await self._call(self._reading, fn, *args)

    async def _write(self, fn: Callable[..., T], *args: Any) -> T:
        return await self._call(self._transaction, fn, *args)

    def _reading(self, fn: Callable[..., T], *args: Any) -> T:
        assert self._con is not None, "Store.open() first"
        return fn(self._con, *args)

    def _transaction(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(con, *args)` in one IMMEDIATE transaction: committed whole or not at all."""
        con = self._con
        assert con is not None, "Store.open() first"
        if con.in_transaction:  # cannot happen: every job ends the transaction it began
            raise RuntimeError("store: a transaction was left open by an earlier job")
        con.execute("BEGIN IMMEDIATE")
        try:
            out = fn(con, *args)
            con.execute("COMMIT")
        except BaseException:
            if con.in_transaction:
                con.execute("ROLLBACK")
            raise
        return out

    # ---- games -----------------------------------------------------------------------------
    async def open_game(self, channel_id: int) -> GameRow | None:
        """The lobby or active game of a channel, if any."""
        return await self._read(
            _one, "SELECT * FROM games WHERE channel_id=? AND status IN ('lobby','active')",
            (channel_id,))

    async def latest_game(self, channel_id: int) -> GameRow | None:
        """The channel's newest game whatever its status (lobby, active, over, abandoned)."""
        return await self._read(
            _one, "SELECT * FROM games WHERE channel_id=? ORDER BY id DESC LIMIT 1",
            (channel_id,))

    async def get(self, game_id: int) -> GameRow | None:
        return await self._read(_one, "SELECT * FROM games WHERE id=?", (game_id,))

    async def active_games(self) -> list[GameRow]:
        def read(con: sqlite3.Connection) -> list[GameRow]:
            return [_row(r) for r in con.execute("SELECT * FROM games WHERE status='active'")]
        return await self._read(read)

    async def create_lobby(self, guild_id: int | None, channel_id: int, host_id: int,
                           host_name: str, settings: dict[str, Any]) -> GameRow:
        now = time.time()
        seats = [{"user": host_id, "name": host_name}]

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
        return await self._write(write)

    async def _execute(self, sql: str, args: tuple[Any, ...]) -> None:
        await self._write(lambda con: con.execute(sql, args).close())

    async def update_lobby(self, row: GameRow) -> None:
        await self._execute(
            "UPDATE games SET seats=?, settings=?, updated_at=? WHERE id=? AND status='lobby'",
            (json.dumps(row.seats), json.dumps(row.settings), time.time(), row.id))

    async def set_meta(self, game_id: int, meta: dict[str, Any]) -> None:
        await self._execute("UPDATE games SET meta=? WHERE id=?", (json.dumps(meta), game_id))

    async def set_settings(self, game_id: int, settings: dict[str, Any]) -> None:
        await self._execute("UPDATE games SET settings=?, updated_at=? WHERE id=?",
                            (json.dumps(settings), time.time(), game_id))

    async def set_status(self, game_id: int, status: str) -> None:
        def write(con: sqlite3.Connection) -> None:
            con.execute("UPDATE games SET status=?, updated_at=? WHERE id=?",
                        (status, time.time(), game_id))
            if status in ("over", "abandoned"):
                con.execute("DELETE FROM timers WHERE game_id=?", (game_id,))
        await self._write(write)

    async def start(self, game_id: int, seats: list[dict[str, Any]], setup: dict[str, Any],
                    state: str) -> None:
        await self._execute(
            "UPDATE games SET status='active', seats=?, setup=?, state=?, version=0,"
            " updated_at=? WHERE id=? AND status='lobby'",
            (json.dumps(seats), json.dumps(setup), state, time.time(), game_id))

    # ---- actions: the one write path for a move ---------------------------------------------
    async def commit_actions(self, game_id: int, expected_version: int,
                             entries: list[tuple[int, int | None, str]], state: str, status: str,
                             timers: list[Timer], meta: dict[str, Any] | None = None) -> Commit:
        """Append actions (seat, user, text) and the resulting state in one transaction, and
        return the row and timers as committed.

        The version only grows (an undo bumps it too), so any prompt read before is stale.
        Raises VersionConflict when the game moved on since `expected_version` was read.
        `timers` are the game's timers from now on (see `_put_timers`); a finished game has
        none.
        """
        now = time.time()

        def write(con: sqlite3.Connection) -> Commit:
            row = _one(
                con,
                "UPDATE games SET state=?, version=version+?, status=?, updated_at=?"
                + (", meta=?" if meta is not None else "")
                + " WHERE id=? AND version=? RETURNING *",
                (state, max(1, len(entries)), status, now,
                 *([json.dumps(meta)] if meta is not None else []), game_id, expected_version))
            if row is None:
                raise VersionConflict("the game moved on")
            base = con.execute("SELECT COALESCE(MAX(seq) + 1, 0) FROM actions WHERE game_id=?",
                               (game_id,)).fetchone()[0]
            con.executemany(
                "INSERT INTO actions (game_id, seq, seat, user_id, text, at) VALUES (?,?,?,?,?,?)",
                [(game_id, base + k, seat, user, text, now)
                 for k, (seat, user, text) in enumerate(entries)])
            done = status in ("over", "abandoned")
            return Commit(row, _put_timers(con, game_id, [] if done else timers))
        return await self._write(write)

    async def rewrite_log(self, game_id: int, expected_version: int, log: list[list[Any]],
                          state: str, timers: list[Timer]) -> Commit:
        """Undo: the log loses one entry; stored atomically like any other move."""
        def write(con: sqlite3.Connection) -> Commit:
            row = _one(con,
                       "UPDATE games SET state=?, version=version+1, updated_at=?"
                       " WHERE id=? AND version=? RETURNING *",
                       (state, time.time(), game_id, expected_version))
            if row is None:
                raise VersionConflict("the game moved on")
            old = con.execute("SELECT seq, user_id, at FROM actions WHERE game_id=? "
                              "ORDER BY seq", (game_id,)).fetchall()
            con.execute("DELETE FROM actions WHERE game_id=?", (game_id,))
            con.executemany(
                "INSERT INTO actions (game_id, seq, seat, user_id, text, at) VALUES (?,?,?,?,?,?)",
                [(game_id, k, seat, None, text, old[k]["at"] if k < len(old) else time.time())
                 for k, (seat, text) in enumerate(log)])
            return Commit(row, _put_timers(con, game_id, timers))
        return await self._write(write)

    async def log(self, game_id: int) -> list[list[Any]]:
        def read(con: sqlite3.Connection) -> list[list[Any]]:
            return [[r["seat"], r["text"]] for r in con.execute(
                "SELECT seat, text FROM actions WHERE game_id=? ORDER BY seq", (game_id,))]
        return await self._read(read)

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
        return await self._read(read)

    # ---- quarantine: damaged games, set aside (survives restarts) ---------------------------
    async def quarantine(self, game_id: int, reason: dict[str, Any]) -> bool:
        """Set a damaged game aside; True when it was not already (so it is reported once)."""
        def write(con: sqlite3.Connection) -> bool:
            cur = con.execute("INSERT OR IGNORE INTO quarantine (game_id, reason, at) "
                              "VALUES (?,?,?)", (game_id, json.dumps(reason), time.time()))
            return cur.rowcount > 0
        return await self._write(write)

    async def quarantined(self, game_id: int) -> dict[str, Any] | None:
        return await self._read(_quarantine, game_id)

    async def release(self, game_id: int) -> None:
        """The game verified again (its rows were restored or repaired): back in play."""
        await self._execute("DELETE FROM quarantine WHERE game_id=?", (game_id,))

    # ---- timers ----------------------------------------------------------------------------
    async def timers(self, game_id: int) -> list[dict[str, Any]]:
        return await self._read(_timers, game_id)

    async def due_timers(self, now: float) -> list[dict[str, Any]]:
        """Timers whose deadline passed or whose reminder is due."""
        def read(con: sqlite3.Connection) -> list[dict[str, Any]]:
            return [dict(r) for r in con.execute(
                "SELECT * FROM timers WHERE (deadline<=? OR (reminded=0 AND remind_at<=?))"
                " AND game_id NOT IN (SELECT game_id FROM quarantine)", (now, now))]
        return await self._read(read)

    async def mark_reminded(self, game_id: int, seat: int, decision_id: int) -> None:
        await self._execute("UPDATE timers SET reminded=1 WHERE game_id=? AND seat=? AND "
                            "decision_id=?", (game_id, seat, decision_id))

    async def next_deadline(self) -> float | None:
        def read(con: sqlite3.Connection) -> float | None:
            r = con.execute(
                "SELECT MIN(CASE WHEN reminded=0 AND remind_at IS NOT NULL AND "
                "remind_at<deadline THEN remind_at ELSE deadline END) FROM timers").fetchone()
            return r[0] if r else None
        return await self._read(read)


def _quarantine(con: sqlite3.Connection, game_id: int) -> dict[str, Any] | None:
    r = con.execute("SELECT reason FROM quarantine WHERE game_id=?", (game_id,)).fetchone()
    if r is None:
        return None
    try:
        reason = json.loads(r["reason"])
    except ValueError:
        reason = None
    return reason if isinstance(reason, dict) else {"kind": "error"}


def _timers(con: sqlite3.Connection, game_id: int) -> list[dict[str, Any]]:
    return [dict(r) for r in con.execute("SELECT * FROM timers WHERE game_id=? ORDER BY seat",
                                         (game_id,))]


def _put_timers(con: sqlite3.Connection, game_id: int,
                timers: list[Timer]) -> list[dict[str, Any]]:
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
