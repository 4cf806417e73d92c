"""Tables of the daily challenge: attempts, results, par, server settings, reminders.

A ranked attempt is claimed by inserting its row (primary key user + day + ranked) in the
same transaction that creates its game, in the same store as the games (`start_daily`); so
one user has at most one ranked attempt a day whichever server or process asks, and a crash
leaves either no attempt and no game or both, complete. Ending an attempt and closing its
game are one transaction too (`end_attempt`). Scores are written only by the server after
replaying the log (service/daily_play.py).

The daily outbox (`daily_outbox`): a server's news and a player's reminder are queued in
the transaction that takes their one-time flag, and a row leaves only once Discord took it
(cogs/daily.deliver_daily), so neither is lost to an outage or a restart nor told twice.
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import time
from typing import Any

from .contract import AttemptTaken, DailyStore, VersionConflict
from .db import Store
from .rows import (
    ATTEMPT_PLAYING,
    DAMAGED_RANKED,
    DAMAGED_SECRET,
    DEFAULT_REMIND_HOUR,
    EVERY_DAY,
    HOLD_S,
    NOTICE_WAIT_MAX_S,
    Attempt,
    AttemptStatus,
    Commit,
    DailyNotice,
    DamagedSecret,
    GameRow,
    NewGame,
    Tell,
    attempt_of,
    closed_attempt,
    daily_notice,
    day_flag_set,
    kept_secret,
    news_channel,
    par_of,
    recap_rows,
    remind_hour,
    touched_at,
)

# A closed day's ranked games that were played (their recaps: `queue_recaps`)
RECAPPED_GAMES = ("SELECT a.user_id, g.settings FROM daily_attempts a JOIN games g"
                  " ON g.id=a.game_id WHERE a.day={} AND a.ranked={} AND g.setup IS NOT NULL"
                  " AND g.status IN ('over', 'abandoned') ORDER BY a.user_id")

# Opted-in users not yet reminded that day, whose streak is alive (they finished the day
# before) and whose ranked attempt of that day is not over, once their hour has come.
_DUE = ("SELECT r.user_id, r.channel_id, r.lang FROM daily_reminders r"
        " WHERE (r.last_day IS NULL OR r.last_day<>:day)"
        " AND COALESCE(CASE WHEN typeof(r.hour)='integer' AND r.hour BETWEEN 0 AND 23"
        "   THEN r.hour END, :default_hour) <= :hour"  # a damaged hour: the default (rows.py)
        " AND EXISTS (SELECT 1 FROM daily_attempts a WHERE a.user_id=r.user_id"
        "   AND a.ranked=1 AND a.status='finished' AND a.day=date(:day, '-1 day'))"
        " AND NOT EXISTS (SELECT 1 FROM daily_attempts a WHERE a.user_id=r.user_id"
        "   AND a.ranked=1 AND a.day=:day AND NOT (" + ATTEMPT_PLAYING.format("a.") + "))")


class SqliteDailyStore(DailyStore):
    """The daily tables (store.contract.DailyStore) as jobs on the SQLite game store's
    threads: one round trip each."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # ---- the bot's secret ------------------------------------------------------------------------
    async def secret(self, generate: bytes) -> bytes:
        """The stored daily secret; the first call stores `generate` (kept for ever after, so
        every process and restart derives the same days)."""
        def write(con: sqlite3.Connection) -> bytes:
            con.execute("INSERT OR IGNORE INTO kv (key, value) VALUES ('daily_secret', ?)",
                        (generate.hex(),))
            key = kept_secret(con.execute(
                "SELECT value FROM kv WHERE key='daily_secret'").fetchone()[0])
            if key is None:
                raise DamagedSecret(DAMAGED_SECRET)
            return key
        return await self.store.run_write(write)

    async def fingerprint(self, mine: str) -> str:
        """The daily secret's fingerprint the database was first started with; the first
        call stores `mine`. A process comparing it learns whether it shares the secret."""
        def write(con: sqlite3.Connection) -> str:
            con.execute("INSERT OR IGNORE INTO kv (key, value) VALUES"
                        " ('daily_secret_fingerprint', ?)", (mine,))
            return str(con.execute(
                "SELECT value FROM kv WHERE key='daily_secret_fingerprint'").fetchone()[0])
        return await self.store.run_write(write)

    async def keyed_from(self, today: str) -> str:
        """The first day dealt by the keyed generator (issue 18), stored the first time a
        release with it starts. A database nobody played a daily on: every day (`EVERY_DAY`).
        An upgrade: `today` when nobody has played today yet, else the next day (today's
        players got the older deal; a day is one game for everyone)."""
        def write(con: sqlite3.Connection) -> str:
            kept = con.execute("SELECT value FROM kv WHERE key='daily_keyed_from'").fetchone()
            if kept is not None:
                return str(kept[0])
            ever = con.execute("SELECT 1 FROM daily_attempts LIMIT 1").fetchone()
            played = con.execute("SELECT 1 FROM daily_attempts WHERE day=? LIMIT 1",
                                 (today,)).fetchone()
            first = EVERY_DAY if ever is None else today if played is None else \
                (dt.date.fromisoformat(today) + dt.timedelta(days=1)).isoformat()
            con.execute("INSERT INTO kv (key, value) VALUES ('daily_keyed_from', ?)", (first,))
            return first
        return await self.store.run_write(write)

    async def stored_keyed_from(self) -> str | None:
        def read(con: sqlite3.Connection) -> str | None:
            r = con.execute("SELECT value FROM kv WHERE key='daily_keyed_from'").fetchone()
            return None if r is None else str(r[0])
        return await self.store.run_read(read)

    async def stored_secret(self) -> tuple[str | None, str | None]:
        """The generated secret (its stored text: `rows.kept_secret` reads it) and the
        fingerprint the database keeps (None: not yet), read without storing anything:
        `bot.py --check` compares them with this process's settings and leaves the first
        start to store them."""
        def read(con: sqlite3.Connection) -> tuple[str | None, str | None]:
            kept = dict(con.execute("SELECT key, value FROM kv WHERE key IN"
                                    " ('daily_secret', 'daily_secret_fingerprint')").fetchall())
            secret = kept.get("daily_secret")
            return (secret or None,
                    kept.get("daily_secret_fingerprint"))
        return await self.store.run_read(read)

    # ---- attempts ----------------------------------------------------------------------------
    async def attempt(self, user_id: int, day: str, ranked: bool) -> Attempt | None:
        """The day's ranked attempt (or practice). One whose ranked flag is damaged counts
        as the ranked one when there is none, as the claim takes it (rows.DAMAGED_RANKED):
        its player is told their day's one try is taken rather than that it is starting."""
        def read(con: sqlite3.Connection) -> Attempt | None:
            r = con.execute("SELECT * FROM daily_attempts WHERE user_id=? AND day=? AND (ranked=?"
                            " OR (? AND " + DAMAGED_RANKED + ")) ORDER BY ranked=? DESC",
                            (user_id, day, int(ranked), ranked, int(ranked))).fetchone()
            return attempt_of(r) if r else None
        return await self.store.run_read(read)

    async def claim(self, user_id: int, day: str, ranked: bool, name: str,
                    guild_id: int | None) -> Attempt | None:
        """Claim the attempt; None if a ranked one exists already (practice replaces an old
        practice of the same day). Remembers the server, for its leaderboard."""
        now = time.time()

        def write(con: sqlite3.Connection) -> Attempt | None:
            if guild_id is not None:
                con.execute("INSERT OR IGNORE INTO daily_members VALUES (?,?)", (guild_id, user_id))
            if ranked and _damaged_ranked(con, user_id, day):
                return None
            verb = "INSERT OR IGNORE" if ranked else "INSERT OR REPLACE"
            cur = con.execute(
                f"{verb} INTO daily_attempts (user_id, day, ranked, name, status, started_at)"
                " VALUES (?,?,?,?,'playing',?)", (user_id, day, int(ranked), name, now))
            if cur.rowcount == 0:
                return None
            r = con.execute("SELECT * FROM daily_attempts WHERE user_id=? AND day=? AND ranked=?",
                            (user_id, day, int(ranked))).fetchone()
            return attempt_of(r)
        return await self.store.run_write(write)

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
        upsert = ("DO UPDATE SET game_id=excluded.game_id WHERE "
                  + ATTEMPT_PLAYING.format("daily_attempts.") +
                  " AND daily_attempts.game_id IS NULL") if ranked else (
            "DO UPDATE SET name=excluded.name, status='playing', started_at=excluded.started_at,"
            " game_id=excluded.game_id, score=NULL, share=NULL, finished_at=NULL")

        def claim(con: sqlite3.Connection, row: GameRow) -> Attempt:
            if ranked and _damaged_ranked(con, user_id, day):
                raise AttemptTaken(f"user {user_id}'s day {day} holds a damaged ranked flag")
            if guild_id is not None:
                con.execute("INSERT OR IGNORE INTO daily_members VALUES (?,?)", (guild_id, user_id))
            if replace is not None:  # the practice it replaces ends with its game
                con.execute("UPDATE daily_attempts SET status='unfinished', finished_at=?"
                            " WHERE game_id=? AND " + ATTEMPT_PLAYING.format(""), (now, replace))
            r = con.execute(
                "INSERT INTO daily_attempts (user_id, day, ranked, game_id, name, status,"
                " started_at) VALUES (?,?,?,?,?,'playing',?) ON CONFLICT (user_id, day, ranked) "
                + upsert + " RETURNING *", (user_id, day, int(ranked), row.id, name, now)
            ).fetchone()
            if r is None:
                raise AttemptTaken(f"user {user_id}'s ranked attempt of {day} is claimed")
            return attempt_of(r)
        return await self.store.create_started(game, claim, replace=replace)

    async def end_attempt(self, user_id: int, day: str, ranked: bool, status: AttemptStatus,
                          score: dict[str, Any] | None, share: str | None, *,
                          game_id: int | None = None, version: int | None = None,
                          tell: Tell | None = None) -> bool:
        """Close a playing attempt and abandon its open game (`game_id`; its timers go) in
        one transaction, so a crash can never leave the game over with the attempt still
        playing (the day reopened) or the attempt closed with its game still playable.
        False, nothing written, if the attempt was closed already. `version`: the game's
        version the score was replayed from; if a move landed since, VersionConflict and
        nothing is written (the score would not be the log's). `tell`: the player's notice
        of it, queued in the daily outbox in the same transaction (never lost, never
        twice)."""
        now = time.time()

        def write(con: sqlite3.Connection) -> bool:
            cur = con.execute(
                "UPDATE daily_attempts SET status=?1, score=?2, share=?3, finished_at=?4"
                " WHERE user_id=?5 AND day=?6 AND " + closed_attempt("?5", "?6", "?7")
                + " AND " + ATTEMPT_PLAYING.format(""),
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
            if tell is not None:
                con.execute("INSERT OR IGNORE INTO daily_outbox (kind, day, target, channel_id,"
                            " lang, not_before, created_at) VALUES (?,?,?,?,?,?,?)",
                            (tell.kind, day, user_id, tell.channel_id, tell.lang, tell.at,
                             tell.at))
            return True
        return await self.store.run_write(write)

    async def seen_in(self, guild_id: int, user_id: int) -> None:
        await self.store.run_write(lambda con: con.execute(
            "INSERT OR IGNORE INTO daily_members VALUES (?,?)", (guild_id, user_id)).close())

    async def set_game(self, user_id: int, day: str, ranked: bool, game_id: int) -> None:
        await self.store.run_write(lambda con: con.execute(
            "UPDATE daily_attempts SET game_id=? WHERE user_id=? AND day=? AND ranked=?",
            (game_id, user_id, day, int(ranked))).close())

    async def playing(self, day: str | None = None) -> list[Attempt]:
        """Attempts still being played (of one day, or of any day)."""
        def read(con: sqlite3.Connection) -> list[Attempt]:
            sql = "SELECT * FROM daily_attempts WHERE " + ATTEMPT_PLAYING.format("")
            args: tuple[Any, ...] = ()
            if day is not None:
                sql, args = sql + " AND day=?", (day,)
            return [attempt_of(r) for r in con.execute(sql, args)]
        return await self.store.run_read(read)

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
            return [attempt_of(r) for r in con.execute(sql, args)]
        return await self.store.run_read(read)

    async def members(self, guild_id: int) -> set[int]:
        """Users known to be members of a server (seen there, or confirmed by Discord)."""
        def read(con: sqlite3.Connection) -> set[int]:
            return {r[0] for r in con.execute(
                "SELECT user_id FROM daily_members WHERE guild_id=?", (guild_id,))}
        return await self.store.run_read(read)

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
                    out.append(attempt_of(r))
                except ValueError:
                    continue
            return out
        return await self.store.run_read(read)

    async def rescore(self, user_id: int, day: str, ranked: bool,
                      score: dict[str, Any]) -> bool:
        """Replace an older-formula score (once: a row already current is left alone)."""
        def write(con: sqlite3.Connection) -> bool:
            return con.execute(
                "UPDATE daily_attempts SET score=? WHERE user_id=? AND day=? AND ranked=?"
                " AND status='finished' AND score NOT LIKE '%\"v\":%'",
                (json.dumps(score), user_id, day, int(ranked))).rowcount == 1
        return await self.store.run_write(write)

    async def history(self, user_id: int) -> list[Attempt]:
        """Every ranked attempt of a user (for stats and streaks)."""
        def read(con: sqlite3.Connection) -> list[Attempt]:
            return [attempt_of(r) for r in con.execute(
                "SELECT * FROM daily_attempts WHERE user_id=? AND ranked=1 ORDER BY day",
                (user_id,))]
        return await self.store.run_read(read)

    # ---- days -----------------------------------------------------------------------------------
    async def par(self, day: str) -> dict[str, Any] | None:
        def read(con: sqlite3.Connection) -> dict[str, Any] | None:
            r = con.execute("SELECT par FROM daily_days WHERE day=?", (day,)).fetchone()
            return par_of(r[0], day) if r else None
        return await self.store.run_read(read)

    async def set_par(self, day: str, par: dict[str, Any]) -> None:
        await self.store.run_write(lambda con: con.execute(
            "INSERT INTO daily_days (day, par) VALUES (?,?) ON CONFLICT (day)"
            " DO UPDATE SET par=excluded.par", (day, json.dumps(par))).close())

    async def keep_par(self, day: str, par: dict[str, Any]) -> dict[str, Any]:
        def write(con: sqlite3.Connection) -> dict[str, Any]:
            con.execute("INSERT OR IGNORE INTO daily_days (day) VALUES (?)", (day,))
            raw = con.execute("SELECT par FROM daily_days WHERE day=?", (day,)).fetchone()[0]
            kept = par_of(raw, day)  # (an unreadable one is stored over)
            if kept is not None:
                return kept
            con.execute("UPDATE daily_days SET par=? WHERE day=?", (json.dumps(par), day))
            return par
        return await self.store.run_write(write)

    async def day_flag(self, day: str, flag: str) -> bool:
        """Whether `announced` or `closed` is set for a day (a read; see `take_day_flag`)."""
        assert flag in ("announced", "closed")

        def read(con: sqlite3.Connection) -> bool:
            r = con.execute(f"SELECT {flag} FROM daily_days WHERE day=?", (day,)).fetchone()
            return day_flag_set(r[0] if r else None, day, flag)
        return await self.store.run_read(read)

    async def take_day_flag(self, day: str, flag: str) -> bool:
        """Set `announced` or `closed` for a day once: True only for the caller that set it,
        so a day's announcements and closing run once even after a restart."""
        assert flag in ("announced", "closed")

        def write(con: sqlite3.Connection) -> bool:
            con.execute("INSERT OR IGNORE INTO daily_days (day) VALUES (?)", (day,))
            if _flag_set(con, day, flag):
                return False
            cur = con.execute(f"UPDATE daily_days SET {flag}=1 WHERE day=? AND {flag} IS NOT 1",
                              (day,))
            return cur.rowcount == 1
        return await self.store.run_write(write)

    # ---- server settings and reminders ------------------------------------------------------
    async def set_guild_channel(self, guild_id: int, channel_id: int | None, lang: str) -> None:
        await self.store.run_write(lambda con: con.execute(
            "INSERT INTO daily_guilds VALUES (?,?,?) ON CONFLICT (guild_id) DO UPDATE SET"
            " channel_id=excluded.channel_id, lang=excluded.lang",
            (guild_id, channel_id, lang)).close())

    async def guild_channel(self, guild_id: int) -> int | None:
        """One server's news channel (`/rr daily settings` asks for its own server's)."""
        def read(con: sqlite3.Connection) -> int | None:
            row = con.execute("SELECT channel_id FROM daily_guilds WHERE guild_id=?",
                              (guild_id,)).fetchone()
            return None if row is None else news_channel(guild_id, row[0])
        return await self.store.run_read(read)

    async def set_reminder(self, user_id: int, channel_id: int | None, lang: str | None = None,
                           hour: int | None = None) -> None:
        """Opt in (the DM to remind in, the reader's language, the UTC hour; what is not
        given keeps its stored value) or out (`channel_id` None)."""
        def write(con: sqlite3.Connection) -> None:
            if channel_id is None:
                con.execute("DELETE FROM daily_reminders WHERE user_id=?", (user_id,))
            else:
                con.execute("INSERT INTO daily_reminders (user_id, channel_id, lang, hour)"
                            " VALUES (?,?,?,?) ON CONFLICT (user_id) DO UPDATE SET"
                            " channel_id=excluded.channel_id,"
                            " lang=COALESCE(excluded.lang, daily_reminders.lang),"
                            " hour=COALESCE(excluded.hour, daily_reminders.hour)",
                            (user_id, channel_id, lang, hour))
        await self.store.run_write(write)

    async def reminder(self, user_id: int) -> tuple[int, str | None, int] | None:
        """A user's reminder setting: (DM channel, language, UTC hour); None when off."""
        def read(con: sqlite3.Connection) -> tuple[int, str | None, int] | None:
            r = con.execute("SELECT channel_id, lang, hour FROM daily_reminders WHERE user_id=?",
                            (user_id,)).fetchone()
            return (r[0], r[1], remind_hour(r[2], user_id)) if r else None
        return await self.store.run_read(read)

    async def reminders_due(self, day: str, hour: int = 23) -> list[tuple[int, int]]:
        """Reminders due (`_DUE`) at `hour` UTC, marked as sent for the day: (user, DM
        channel). The day job queues them instead (`queue_reminders`)."""
        def write(con: sqlite3.Connection) -> list[tuple[int, int]]:
            rows = con.execute(_DUE, {"day": day, "hour": hour,
                                      "default_hour": DEFAULT_REMIND_HOUR}).fetchall()
            con.executemany("UPDATE daily_reminders SET last_day=? WHERE user_id=?",
                            [(day, r[0]) for r in rows])
            return [(r[0], r[1]) for r in rows]
        return await self.store.run_write(write)

    # ---- the daily outbox -------------------------------------------------------------------
    async def queue_news(self, day: str, now: float) -> int:
        """Take the day's `announced` flag and queue one news row per server with a news
        channel, in one transaction: the flag can never be set without its rows (a crash
        loses no server's news) nor the rows written twice. 0 if the flag was taken."""
        def write(con: sqlite3.Connection) -> int:
            con.execute("INSERT OR IGNORE INTO daily_days (day) VALUES (?)", (day,))
            if _flag_set(con, day, "announced") or con.execute(
                    "UPDATE daily_days SET announced=1 WHERE day=? AND announced IS NOT 1",
                    (day,)).rowcount != 1:
                return 0
            return con.execute(
                "INSERT OR IGNORE INTO daily_outbox (kind, day, target, channel_id, lang,"
                " not_before, created_at) SELECT 'news', ?, guild_id, channel_id, lang, ?, ?"
                " FROM daily_guilds WHERE channel_id IS NOT NULL", (day, now, now)).rowcount
        return await self.store.run_write(write)

    async def queue_reminders(self, day: str, hour: int, now: float) -> int:
        """The reminders due at `hour` UTC (`_DUE`), each marked sent for the day and queued
        in the outbox in one transaction: marked means queued, never lost, never twice."""
        def write(con: sqlite3.Connection) -> int:
            rows = con.execute(_DUE, {"day": day, "hour": hour,
                                      "default_hour": DEFAULT_REMIND_HOUR}).fetchall()
            con.executemany("UPDATE daily_reminders SET last_day=? WHERE user_id=?",
                            [(day, r[0]) for r in rows])
            con.executemany(
                "INSERT OR IGNORE INTO daily_outbox (kind, day, target, channel_id, lang,"
                " not_before, created_at) VALUES ('reminder',?,?,?,?,?,?)",
                [(day, r[0], r[1], r[2], now, now) for r in rows])
            return len(rows)
        return await self.store.run_write(write)

    async def queue_recaps(self, day: str, now: float) -> int:
        def write(con: sqlite3.Connection) -> int:
            con.execute("INSERT OR IGNORE INTO daily_days (day) VALUES (?)", (day,))
            if _flag_set(con, day, "recapped") or con.execute(
                    "UPDATE daily_days SET recapped=1 WHERE day=? AND recapped IS NOT 1",
                    (day,)).rowcount != 1:
                return 0
            games = [(int(r[0]), r[1]) for r in con.execute(RECAPPED_GAMES.format("?", 1),
                                                             (day,))]
            rows = recap_rows(day, games, now)
            con.executemany(
                "INSERT OR IGNORE INTO daily_outbox (kind, day, target, channel_id, lang,"
                " not_before, created_at) VALUES (?,?,?,?,?,?,?)", rows)
            return len(rows)
        return await self.store.run_write(write)

    async def daily_notices(self, now: float) -> list[DailyNotice]:
        """Rows due for delivery (new, past a retry's time, or held by a delivery that never
        finished), oldest first."""
        def read(con: sqlite3.Connection) -> list[DailyNotice]:
            return [daily_notice(r) for r in con.execute(
                "SELECT * FROM daily_outbox WHERE not_before<=? OR not_before>? ORDER BY id",
                (now, now + NOTICE_WAIT_MAX_S))]
        return await self.store.run_read(read)

    async def take_notices(self, now: float) -> list[DailyNotice]:
        """The rows due (new, past a retry's time, held by a delivery that never finished,
        or with a `not_before` that is no time at all: rows.NOTICE_WAIT_MAX_S), oldest
        first, each now held `HOLD_S` for the caller: one statement, so
        two passes never take one row."""
        def write(con: sqlite3.Connection) -> list[DailyNotice]:
            rows = [daily_notice(r) for r in con.execute(
                "UPDATE daily_outbox SET not_before=? WHERE not_before<=? OR not_before>?"
                " RETURNING *", (now + HOLD_S, now, now + NOTICE_WAIT_MAX_S))]
            return sorted(rows, key=lambda n: n.id)
        return await self.store.run_write(write)

    async def notice_sent(self, notice_id: int) -> None:
        """Discord took it (or refused it for good): the row goes. Bookkeeping (no sync of
        its own, like the game outbox's): a power cut may undo it, and then the row is told
        again, never lost."""
        await self.store.run_write(lambda con: con.execute(
            "DELETE FROM daily_outbox WHERE id=?", (notice_id,)).close(), bookkeeping=True)

    async def notice_retry(self, notice_id: int, not_before: float) -> None:
        """Discord could not take it now: tried again at `not_before`."""
        await self.store.run_write(lambda con: con.execute(
            "UPDATE daily_outbox SET attempts=attempts+1, not_before=? WHERE id=?",
            (not_before, notice_id)).close(), bookkeeping=True)

    async def touch(self, game_id: int) -> None:
        """The player took this open game up again (`/rr daily play|practice` resumed it):
        their typed commands in the DM go to it from now on (`last_game_at`)."""
        await self.store.run_write(lambda con: con.execute(
            "UPDATE games SET updated_at=? WHERE id=? AND status='active'",
            (time.time(), game_id)).close())

    async def last_game_at(self, slots: list[int]) -> dict[int, float]:
        """When each of these slots' open game last changed (a move, its start): a daily
        command in the DM goes to the game the player touched last."""
        def read(con: sqlite3.Connection) -> dict[int, float]:
            marks = ",".join("?" * len(slots))
            return {r[0]: touched_at(r[0], r[1]) for r in con.execute(
                f"SELECT channel_id, updated_at FROM games WHERE channel_id IN ({marks})"
                " AND status='active'", slots)}
        return await self.store.run_read(read)


def _flag_set(con: sqlite3.Connection, day: str, flag: str) -> bool:
    """Whether a day's flag is set, a damaged one (logged) counting as not set; the row
    exists (each caller inserts it first)."""
    r = con.execute(f"SELECT {flag} FROM daily_days WHERE day=?", (day,)).fetchone()  # noqa: S608
    return day_flag_set(r[0] if r else None, day, flag)


def _damaged_ranked(con: sqlite3.Connection, user_id: int, day: str) -> bool:
    """Whether the player's day holds an attempt whose ranked flag is damaged (rows.py)."""
    return con.execute("SELECT 1 FROM daily_attempts WHERE user_id=? AND day=? AND "
                       + DAMAGED_RANKED, (user_id, day)).fetchone() is not None
