"""Tables of the daily challenge: attempts, results, par, server settings, reminders.

A ranked attempt is claimed by inserting its row (primary key user + day + ranked) in the
same transaction that creates its game, in the same store as the games (`start_daily`); so
one user has at most one ranked attempt a day whichever server or process asks, and a crash
leaves either no attempt and no game or both, complete. Ending an attempt and closing its
game are one transaction too (`end_attempt`). Scores are written only by the server after
replaying the log (service/daily_play.py).
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

from .db import Commit, GameRow, NewGame, Store, VersionConflict


@dataclass(slots=True)
class Attempt:
    user_id: int
    day: str
    ranked: bool
    game_id: int | None
    name: str
    status: str
    score: dict[str, Any] | None
    share: str | None
    started_at: float
    finished_at: float | None


class AttemptTaken(Exception):
    """The day's ranked attempt is someone else's already (another request or process
    claimed it first, or it is over): nothing was written."""


def _attempt(r: sqlite3.Row) -> Attempt:
    return Attempt(r["user_id"], r["day"], bool(r["ranked"]), r["game_id"], r["name"],
                   r["status"], json.loads(r["score"]) if r["score"] else None, r["share"],
                   r["started_at"], r["finished_at"])


class DailyStore:
    """The daily tables, as jobs on the game store's one connection (one round trip each)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def open(self) -> DailyStore:
        """The tables exist already: the game store's migrations made them when it opened
        (store/migrations.py, step 2)."""
        return self

    # ---- the bot's secret ------------------------------------------------------------------------
    async def secret(self, generate: bytes) -> bytes:
        """The stored daily secret; the first call stores `generate` (kept for ever after, so
        every process and restart derives the same days)."""
        def write(con: sqlite3.Connection) -> bytes:
            con.execute("INSERT OR IGNORE INTO kv (key, value) VALUES ('daily_secret', ?)",
                        (generate.hex(),))
            return bytes.fromhex(con.execute(
                "SELECT value FROM kv WHERE key='daily_secret'").fetchone()[0])
        return await self.store._write(write)

    async def fingerprint(self, mine: str) -> str:
        """The daily secret's fingerprint the database was first started with; the first
        call stores `mine`. A process comparing it learns whether it shares the secret."""
        def write(con: sqlite3.Connection) -> str:
            con.execute("INSERT OR IGNORE INTO kv (key, value) VALUES"
                        " ('daily_secret_fingerprint', ?)", (mine,))
            return str(con.execute(
                "SELECT value FROM kv WHERE key='daily_secret_fingerprint'").fetchone()[0])
        return await self.store._write(write)

    async def stored_secret(self) -> tuple[bytes | None, str | None]:
        """The generated secret and the fingerprint the database keeps (None: not yet), read
        without storing anything: `bot.py --check` compares them with this process's
        settings and leaves the first start to store them."""
        def read(con: sqlite3.Connection) -> tuple[bytes | None, str | None]:
            kept = dict(con.execute("SELECT key, value FROM kv WHERE key IN"
                                    " ('daily_secret', 'daily_secret_fingerprint')").fetchall())
            secret = kept.get("daily_secret")
            return (bytes.fromhex(secret) if secret else None,
                    kept.get("daily_secret_fingerprint"))
        return await self.store._read(read)

    # ---- attempts ----------------------------------------------------------------------------
    async def attempt(self, user_id: int, day: str, ranked: bool) -> Attempt | None:
        def read(con: sqlite3.Connection) -> Attempt | None:
            r = con.execute("SELECT * FROM daily_attempts WHERE user_id=? AND day=? AND ranked=?",
                            (user_id, day, int(ranked))).fetchone()
            return _attempt(r) if r else None
        return await self.store._read(read)

    async def claim(self, user_id: int, day: str, ranked: bool, name: str,
                    guild_id: int | None) -> Attempt | None:
        """Claim the attempt; None if a ranked one exists already (practice replaces an old
        practice of the same day). Remembers the server, for its leaderboard."""
        now = time.time()

        def write(con: sqlite3.Connection) -> Attempt | None:
            if guild_id is not None:
                con.execute("INSERT OR IGNORE INTO daily_members VALUES (?,?)", (guild_id, user_id))
            verb = "INSERT OR IGNORE" if ranked else "INSERT OR REPLACE"
            cur = con.execute(
                f"{verb} INTO daily_attempts (user_id, day, ranked, name, status, started_at)"
                " VALUES (?,?,?,?,'playing',?)", (user_id, day, int(ranked), name, now))
            if cur.rowcount == 0:
                return None
            r = con.execute("SELECT * FROM daily_attempts WHERE user_id=? AND day=? AND ranked=?",
                            (user_id, day, int(ranked))).fetchone()
            return _attempt(r)
        return await self.store._write(write)

    async def start_daily(self, user_id: int, day: str, ranked: bool, name: str,
                          guild_id: int | None, game: NewGame, *,
                          replace: int | None = None) -> tuple[Commit, Attempt]:
        """Claim the attempt and open its game, started, in one transaction. A ranked
        attempt already claimed raises AttemptTaken (nothing written) — unless it is still
        playing without a game (claimed by an older bot that crashed before making one):
        then this game becomes its game. A practice replaces the day's old practice; the
        open game `replace`d is abandoned and its attempt, if still playing, ends
        unfinished. VersionConflict: the slot has another open game."""
        now = time.time()
        upsert = ("DO UPDATE SET game_id=excluded.game_id WHERE daily_attempts.status='playing'"
                  " AND daily_attempts.game_id IS NULL") if ranked else (
            "DO UPDATE SET name=excluded.name, status='playing', started_at=excluded.started_at,"
            " game_id=excluded.game_id, score=NULL, share=NULL, finished_at=NULL")

        def claim(con: sqlite3.Connection, row: GameRow) -> Attempt:
            if guild_id is not None:
                con.execute("INSERT OR IGNORE INTO daily_members VALUES (?,?)", (guild_id, user_id))
            if replace is not None:  # the practice it replaces ends with its game
                con.execute("UPDATE daily_attempts SET status='unfinished', finished_at=?"
                            " WHERE game_id=? AND status='playing'", (now, replace))
            r = con.execute(
                "INSERT INTO daily_attempts (user_id, day, ranked, game_id, name, status,"
                " started_at) VALUES (?,?,?,?,?,'playing',?) ON CONFLICT (user_id, day, ranked) "
                + upsert + " RETURNING *", (user_id, day, int(ranked), row.id, name, now)
            ).fetchone()
            if r is None:
                raise AttemptTaken(f"user {user_id}'s ranked attempt of {day} is claimed")
            return _attempt(r)
        return await self.store.create_started(game, claim, replace=replace)

    async def end_attempt(self, user_id: int, day: str, ranked: bool, status: str,
                          score: dict[str, Any] | None, share: str | None, *,
                          game_id: int | None = None, version: int | None = None) -> bool:
        """Close a playing attempt and abandon its open game (`game_id`; its timers go) in
        one transaction, so a crash can never leave the game over with the attempt still
        playing (the day reopened) or the attempt closed with its game still playable.
        False, nothing written, if the attempt was closed already. `version`: the game's
        version the score was replayed from; if a move landed since, VersionConflict and
        nothing is written (the score would not be the log's)."""
        now = time.time()

        def write(con: sqlite3.Connection) -> bool:
            cur = con.execute(
                "UPDATE daily_attempts SET status=?, score=?, share=?, finished_at=?"
                " WHERE user_id=? AND day=? AND ranked=? AND status='playing'",
                (status, json.dumps(score) if score else None, share, now, user_id, day,
                 int(ranked)))
            if cur.rowcount != 1:
                return False
            if game_id is not None:
                guard, args = ("", ()) if version is None else (" AND version=?", (version,))
                cur = con.execute("UPDATE games SET status='abandoned', updated_at=? WHERE id=?"
                                  " AND status IN ('lobby','active')" + guard,
                                  (now, game_id, *args))
                if version is not None and cur.rowcount != 1:
                    raise VersionConflict("the game moved on")
                con.execute("DELETE FROM timers WHERE game_id=?", (game_id,))
            return True
        return await self.store._write(write)

    async def seen_in(self, guild_id: int, user_id: int) -> None:
        await self.store._write(lambda con: con.execute(
            "INSERT OR IGNORE INTO daily_members VALUES (?,?)", (guild_id, user_id)).close())

    async def set_game(self, user_id: int, day: str, ranked: bool, game_id: int) -> None:
        await self.store._write(lambda con: con.execute(
            "UPDATE daily_attempts SET game_id=? WHERE user_id=? AND day=? AND ranked=?",
            (game_id, user_id, day, int(ranked))).close())

    async def finish(self, user_id: int, day: str, ranked: bool, status: str,
                     score: dict[str, Any] | None, share: str | None) -> bool:
        """Close a playing attempt once (finished with its score, or unfinished at the day's
        end); False if it was already closed."""
        now = time.time()

        def write(con: sqlite3.Connection) -> bool:
            cur = con.execute(
                "UPDATE daily_attempts SET status=?, score=?, share=?, finished_at=?"
                " WHERE user_id=? AND day=? AND ranked=? AND status='playing'",
                (status, json.dumps(score) if score else None, share, now, user_id, day,
                 int(ranked)))
            return cur.rowcount == 1
        return await self.store._write(write)

    async def playing(self, day: str | None = None) -> list[Attempt]:
        """Attempts still being played (of one day, or of any day)."""
        def read(con: sqlite3.Connection) -> list[Attempt]:
            sql = "SELECT * FROM daily_attempts WHERE status='playing'"
            args: tuple[Any, ...] = ()
            if day is not None:
                sql, args = sql + " AND day=?", (day,)
            return [_attempt(r) for r in con.execute(sql, args)]
        return await self.store._read(read)

    async def results(self, day: str, guild_id: int | None = None) -> list[Attempt]:
        """A day's finished ranked attempts (of this server's members, or of everyone)."""
        def read(con: sqlite3.Connection) -> list[Attempt]:
            sql = ("SELECT a.* FROM daily_attempts a WHERE a.day=? AND a.ranked=1"
                   " AND a.status='finished'")
            args: tuple[Any, ...] = (day,)
            if guild_id is not None:
                sql += (" AND a.user_id IN (SELECT user_id FROM daily_members"
                        " WHERE guild_id=?)")
                args += (guild_id,)
            return [_attempt(r) for r in con.execute(sql, args)]
        return await self.store._read(read)

    async def members(self, guild_id: int) -> set[int]:
        """Users known to be members of a server (seen there, or confirmed by Discord)."""
        def read(con: sqlite3.Connection) -> set[int]:
            return {r[0] for r in con.execute(
                "SELECT user_id FROM daily_members WHERE guild_id=?", (guild_id,))}
        return await self.store._read(read)

    async def old_scores(self) -> list[Attempt]:
        """Finished attempts whose score was stored by the older formula (no version key:
        service/daily.py SCORE_VERSION), to be rescored from their logs. A row whose text
        is not JSON at all is not one of them (a damaged row is skipped, not fatal)."""
        def read(con: sqlite3.Connection) -> list[Attempt]:
            out = []
            for r in con.execute("SELECT * FROM daily_attempts WHERE status='finished'"
                                 " AND score IS NOT NULL AND score NOT LIKE '%\"v\":%'"
                                 " ORDER BY day DESC"):
                try:
                    out.append(_attempt(r))
                except ValueError:
                    continue
            return out
        return await self.store._read(read)

    async def rescore(self, user_id: int, day: str, ranked: bool,
                      score: dict[str, Any]) -> bool:
        """Replace an older-formula score (once: a row already current is left alone)."""
        def write(con: sqlite3.Connection) -> bool:
            return con.execute(
                "UPDATE daily_attempts SET score=? WHERE user_id=? AND day=? AND ranked=?"
                " AND status='finished' AND score NOT LIKE '%\"v\":%'",
                (json.dumps(score), user_id, day, int(ranked))).rowcount == 1
        return await self.store._write(write)

    async def history(self, user_id: int) -> list[Attempt]:
        """Every ranked attempt of a user (for stats and streaks)."""
        def read(con: sqlite3.Connection) -> list[Attempt]:
            return [_attempt(r) for r in con.execute(
                "SELECT * FROM daily_attempts WHERE user_id=? AND ranked=1 ORDER BY day",
                (user_id,))]
        return await self.store._read(read)

    # ---- days -----------------------------------------------------------------------------------
    async def par(self, day: str) -> dict[str, Any] | None:
        def read(con: sqlite3.Connection) -> dict[str, Any] | None:
            r = con.execute("SELECT par FROM daily_days WHERE day=?", (day,)).fetchone()
            return json.loads(r[0]) if r and r[0] else None
        return await self.store._read(read)

    async def set_par(self, day: str, par: dict[str, Any]) -> None:
        await self.store._write(lambda con: con.execute(
            "INSERT INTO daily_days (day, par) VALUES (?,?) ON CONFLICT (day)"
            " DO UPDATE SET par=excluded.par", (day, json.dumps(par))).close())

    async def day_flag(self, day: str, flag: str) -> bool:
        """Whether `announced` or `closed` is set for a day (a read; see `take_day_flag`)."""
        assert flag in ("announced", "closed")

        def read(con: sqlite3.Connection) -> bool:
            r = con.execute(f"SELECT {flag} FROM daily_days WHERE day=?", (day,)).fetchone()
            return bool(r and r[0])
        return await self.store._read(read)

    async def take_day_flag(self, day: str, flag: str) -> bool:
        """Set `announced` or `closed` for a day once: True only for the caller that set it,
        so a day's announcements and closing run once even after a restart."""
        assert flag in ("announced", "closed")

        def write(con: sqlite3.Connection) -> bool:
            con.execute("INSERT OR IGNORE INTO daily_days (day) VALUES (?)", (day,))
            cur = con.execute(f"UPDATE daily_days SET {flag}=1 WHERE day=? AND {flag}=0", (day,))
            return cur.rowcount == 1
        return await self.store._write(write)

    # ---- server settings and reminders ------------------------------------------------------
    async def set_guild_channel(self, guild_id: int, channel_id: int | None, lang: str) -> None:
        await self.store._write(lambda con: con.execute(
            "INSERT INTO daily_guilds VALUES (?,?,?) ON CONFLICT (guild_id) DO UPDATE SET"
            " channel_id=excluded.channel_id, lang=excluded.lang",
            (guild_id, channel_id, lang)).close())

    async def guild_channels(self) -> list[tuple[int, int, str]]:
        def read(con: sqlite3.Connection) -> list[tuple[int, int, str]]:
            return [(r[0], r[1], r[2]) for r in con.execute(
                "SELECT guild_id, channel_id, lang FROM daily_guilds WHERE channel_id IS NOT NULL")]
        return await self.store._read(read)

    async def set_reminder(self, user_id: int, channel_id: int | None) -> None:
        def write(con: sqlite3.Connection) -> None:
            if channel_id is None:
                con.execute("DELETE FROM daily_reminders WHERE user_id=?", (user_id,))
            else:
                con.execute("INSERT INTO daily_reminders (user_id, channel_id) VALUES (?,?)"
                            " ON CONFLICT (user_id) DO UPDATE SET channel_id=excluded.channel_id",
                            (user_id, channel_id))
        await self.store._write(write)

    async def reminders_due(self, day: str) -> list[tuple[int, int]]:
        """Opted-in users not yet reminded today, with a streak alive (they finished
        yesterday) and today's ranked attempt not finished: (user, DM channel)."""
        def write(con: sqlite3.Connection) -> list[tuple[int, int]]:
            rows = con.execute(
                "SELECT r.user_id, r.channel_id FROM daily_reminders r"
                " WHERE (r.last_day IS NULL OR r.last_day<>?)"
                " AND EXISTS (SELECT 1 FROM daily_attempts a WHERE a.user_id=r.user_id"
                "   AND a.ranked=1 AND a.status='finished' AND a.day=date(?, '-1 day'))"
                " AND NOT EXISTS (SELECT 1 FROM daily_attempts a WHERE a.user_id=r.user_id"
                "   AND a.ranked=1 AND a.day=? AND a.status<>'playing')",
                (day, day, day)).fetchall()
            con.executemany("UPDATE daily_reminders SET last_day=? WHERE user_id=?",
                            [(day, r[0]) for r in rows])
            return [(r[0], r[1]) for r in rows]
        return await self.store._write(write)


def daily_store(store: Any) -> DailyStore:
    """The daily tables in the game store's own database, whichever backend it is."""
    if getattr(store, "backend", "sqlite") == "postgresql":
        from .daily_pg import PgDailyStore

        return PgDailyStore(store)
    return DailyStore(store)
