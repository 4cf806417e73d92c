"""SQLite persistence (aiosqlite, WAL): games per channel, their action logs, timers.

The action log is the source of truth; the stored state is a cache that is verified against
a replay of setup + log when a game is first loaded (R15). Every accepted action is written
in one transaction together with the new state, guarded by the state version, so two
concurrent answers can never both land.
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
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
"""


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

    def seat_of(self, user_id: int) -> int | None:
        for i, s in enumerate(self.seats):
            if s["user"] == user_id:
                return i
        return None


def _row(r: aiosqlite.Row) -> GameRow:
    return GameRow(
        id=r["id"], guild_id=r["guild_id"], channel_id=r["channel_id"], status=r["status"],
        host_id=r["host_id"], seats=json.loads(r["seats"]), settings=json.loads(r["settings"]),
        setup=json.loads(r["setup"]) if r["setup"] else None, state=r["state"],
        version=r["version"], meta=json.loads(r["meta"]),
    )


T = TypeVar("T")


def _writes(method: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
    """Serialise writers on the one shared connection: a transaction of one game must not
    take in (or roll back) a statement written for another game meanwhile."""
    @functools.wraps(method)
    async def locked(self: Store, *args: Any, **kwargs: Any) -> T:
        async with self._writing:
            return await method(self, *args, **kwargs)
    return locked


class Store:
    """One connection per process; aiosqlite serialises statements on its own thread, and
    `_writing` serialises write paths (so two games' transactions never interleave)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._db: aiosqlite.Connection | None = None
        self._writing = asyncio.Lock()

    async def open(self) -> Store:
        self._db = await aiosqlite.connect(self.path, isolation_level=None)
        self._db.row_factory = aiosqlite.Row
        await self._db.execute("PRAGMA journal_mode=WAL")
        await self._db.execute("PRAGMA synchronous=NORMAL")
        await self._db.execute("PRAGMA foreign_keys=ON")
        await self._db.executescript(SCHEMA)
        return self

    async def close(self) -> None:
        if self._db is not None:
            await self._db.close()
            self._db = None

    @property
    def db(self) -> aiosqlite.Connection:
        assert self._db is not None, "Store.open() first"
        return self._db

    # ---- games -----------------------------------------------------------------------------
    async def open_game(self, channel_id: int) -> GameRow | None:
        """The lobby or active game of a channel, if any."""
        async with self.db.execute(
            "SELECT * FROM games WHERE channel_id=? AND status IN ('lobby','active')",
            (channel_id,),
        ) as cur:
            r = await cur.fetchone()
        return _row(r) if r else None

    async def get(self, game_id: int) -> GameRow | None:
        async with self.db.execute("SELECT * FROM games WHERE id=?", (game_id,)) as cur:
            r = await cur.fetchone()
        return _row(r) if r else None

    async def active_games(self) -> list[GameRow]:
        async with self.db.execute("SELECT * FROM games WHERE status='active'") as cur:
            return [_row(r) for r in await cur.fetchall()]

    @_writes
    async def create_lobby(self, guild_id: int | None, channel_id: int, host_id: int,
                           host_name: str, settings: dict[str, Any]) -> GameRow:
        now = time.time()
        seats = [{"user": host_id, "name": host_name}]
        try:
            cur = await self.db.execute(
                "INSERT INTO games (guild_id, channel_id, status, host_id, seats, settings,"
                " created_at, updated_at) VALUES (?,?,?,?,?,?,?,?)",
                (guild_id, channel_id, "lobby", host_id, json.dumps(seats), json.dumps(settings),
                 now, now))
        except aiosqlite.IntegrityError as e:
            raise VersionConflict("this channel already has a game") from e
        row = await self.get(cur.lastrowid)  # type: ignore[arg-type]
        assert row is not None
        return row

    @_writes
    async def update_lobby(self, row: GameRow) -> None:
        await self.db.execute(
            "UPDATE games SET seats=?, settings=?, updated_at=? WHERE id=? AND status='lobby'",
            (json.dumps(row.seats), json.dumps(row.settings), time.time(), row.id))

    @_writes
    async def set_meta(self, game_id: int, meta: dict[str, Any]) -> None:
        await self.db.execute("UPDATE games SET meta=? WHERE id=?", (json.dumps(meta), game_id))

    @_writes
    async def set_settings(self, game_id: int, settings: dict[str, Any]) -> None:
        await self.db.execute("UPDATE games SET settings=?, updated_at=? WHERE id=?",
                              (json.dumps(settings), time.time(), game_id))

    @_writes
    async def set_status(self, game_id: int, status: str) -> None:
        await self.db.execute("UPDATE games SET status=?, updated_at=? WHERE id=?",
                              (status, time.time(), game_id))
        if status in ("over", "abandoned"):
            await self.db.execute("DELETE FROM timers WHERE game_id=?", (game_id,))

    @_writes
    async def start(self, game_id: int, seats: list[dict[str, Any]], setup: dict[str, Any],
                    state: str) -> None:
        await self.db.execute(
            "UPDATE games SET status='active', seats=?, setup=?, state=?, version=0,"
            " updated_at=? WHERE id=? AND status='lobby'",
            (json.dumps(seats), json.dumps(setup), state, time.time(), game_id))

    # ---- actions: the one write path for a move ---------------------------------------------
    @_writes
    async def commit_actions(self, game_id: int, expected_version: int,
                             entries: list[tuple[int, int | None, str]], state: str, status: str,
                             timers: list[tuple[int, int, float, float | None]],
                             meta: dict[str, Any] | None = None) -> int:
        """Append actions (seat, user, text) and the resulting state in one transaction.

        The version only grows (an undo bumps it too), so any prompt read before is stale.
        Raises VersionConflict when the game moved on since `expected_version` was read.
        `timers` replaces the game's timers: (seat, decision_opened, deadline, remind_at).
        """
        db = self.db
        now = time.time()
        await db.execute("BEGIN IMMEDIATE")
        try:
            cur = await db.execute(
                "UPDATE games SET state=?, version=version+?, status=?, updated_at=?"
                + (", meta=?" if meta is not None else "")
                + " WHERE id=? AND version=?",
                (state, max(1, len(entries)), status, now,
                 *([json.dumps(meta)] if meta is not None else []), game_id, expected_version))
            if cur.rowcount != 1:
                raise VersionConflict("the game moved on")
            async with db.execute("SELECT COALESCE(MAX(seq) + 1, 0) FROM actions WHERE game_id=?",
                                  (game_id,)) as c:
                base = (await c.fetchone())[0]
            await db.executemany(
                "INSERT INTO actions (game_id, seq, seat, user_id, text, at) VALUES (?,?,?,?,?,?)",
                [(game_id, base + k, seat, user, text, now)
                 for k, (seat, user, text) in enumerate(entries)])
            await self._replace_timers(game_id, timers)
            if status in ("over", "abandoned"):
                await db.execute("DELETE FROM timers WHERE game_id=?", (game_id,))
            await db.execute("COMMIT")
        except BaseException:
            await db.execute("ROLLBACK")
            raise
        return expected_version + max(1, len(entries))

    @_writes
    async def rewrite_log(self, game_id: int, expected_version: int, log: list[list[Any]],
                          state: str, timers: list[tuple[int, int, float, float | None]]) -> int:
        """Undo: the log loses one entry; stored atomically like any other move."""
        db = self.db
        await db.execute("BEGIN IMMEDIATE")
        try:
            cur = await db.execute(
                "UPDATE games SET state=?, version=version+1, updated_at=? WHERE id=? AND version=?",
                (state, time.time(), game_id, expected_version))
            if cur.rowcount != 1:
                raise VersionConflict("the game moved on")
            async with db.execute("SELECT seq, user_id, at FROM actions WHERE game_id=? "
                                  "ORDER BY seq", (game_id,)) as c:
                old = await c.fetchall()
            await db.execute("DELETE FROM actions WHERE game_id=?", (game_id,))
            await db.executemany(
                "INSERT INTO actions (game_id, seq, seat, user_id, text, at) VALUES (?,?,?,?,?,?)",
                [(game_id, k, seat, None, text, old[k]["at"] if k < len(old) else time.time())
                 for k, (seat, text) in enumerate(log)])
            await self._replace_timers(game_id, timers)
            await db.execute("COMMIT")
        except BaseException:
            await db.execute("ROLLBACK")
            raise
        return expected_version + 1

    async def _replace_timers(self, game_id: int,
                              timers: list[tuple[int, int, float, float | None]]) -> None:
        await self.db.execute("DELETE FROM timers WHERE game_id=?", (game_id,))
        await self.db.executemany(
            "INSERT INTO timers (game_id, seat, decision_id, deadline, remind_at) "
            "VALUES (?,?,?,?,?)", [(game_id, *t) for t in timers])

    async def log(self, game_id: int) -> list[list[Any]]:
        async with self.db.execute("SELECT seat, text FROM actions WHERE game_id=? ORDER BY seq",
                                   (game_id,)) as cur:
            return [[r["seat"], r["text"]] for r in await cur.fetchall()]

    # ---- timers ----------------------------------------------------------------------------
    async def timers(self, game_id: int) -> list[dict[str, Any]]:
        async with self.db.execute("SELECT * FROM timers WHERE game_id=?", (game_id,)) as cur:
            return [dict(r) for r in await cur.fetchall()]

    async def due_timers(self, now: float) -> list[dict[str, Any]]:
        """Timers whose deadline passed or whose reminder is due."""
        async with self.db.execute(
            "SELECT * FROM timers WHERE deadline<=? OR (reminded=0 AND remind_at<=?)",
            (now, now)) as cur:
            return [dict(r) for r in await cur.fetchall()]

    @_writes
    async def mark_reminded(self, game_id: int, seat: int, decision_id: int) -> None:
        await self.db.execute("UPDATE timers SET reminded=1 WHERE game_id=? AND seat=? AND "
                              "decision_id=?", (game_id, seat, decision_id))

    async def next_deadline(self) -> float | None:
        async with self.db.execute(
            "SELECT MIN(CASE WHEN reminded=0 AND remind_at IS NOT NULL AND remind_at<deadline "
            "THEN remind_at ELSE deadline END) FROM timers") as cur:
            r = await cur.fetchone()
        return r[0] if r else None
