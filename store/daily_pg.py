"""The daily challenge's tables on PostgreSQL: the same methods and answers as daily.py, so
every bot process of a deployment claims attempts, scores and reads the "everyone"
leaderboard in the one shared table. Each method is one transaction (or one read), as in
daily.py; the one-ranked-attempt-a-day rule is still the primary key, so two processes
claiming for one user at once give one attempt."""

from __future__ import annotations

import datetime as dt
import json
import time
from typing import Any

import asyncpg

from .contract import AttemptTaken, DailyStore, VersionConflict
from .daily import RECAPPED_GAMES
from .pg import Con, PgStore, rows_touched
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
    par_of,
    recap_rows,
    remind_hour,
    touched_at,
)


class PgDailyStore(DailyStore):
    """The daily tables (store.contract.DailyStore) on PostgreSQL: daily.py's SQL written
    for asyncpg (see there for what each method means)."""

    def __init__(self, store: PgStore) -> None:
        self.store = store

    async def _run(self, sql: str, *args: Any) -> str:
        async def write(con: Con) -> str:
            return await con.execute(sql, *args)
        return await self.store.run_write(write)

    async def secret(self, generate: bytes) -> bytes:
        async def write(con: Con) -> bytes:
            await con.execute("INSERT INTO kv (key, value) VALUES ('daily_secret', $1)"
                              " ON CONFLICT DO NOTHING", generate.hex())
            key = kept_secret(await con.fetchval(
                "SELECT value FROM kv WHERE key='daily_secret'"))
            if key is None:
                raise DamagedSecret(DAMAGED_SECRET)
            return key
        return await self.store.run_write(write)

    async def fingerprint(self, mine: str) -> str:
        async def write(con: Con) -> str:
            await con.execute("INSERT INTO kv (key, value) VALUES"
                              " ('daily_secret_fingerprint', $1) ON CONFLICT DO NOTHING", mine)
            return str(await con.fetchval(
                "SELECT value FROM kv WHERE key='daily_secret_fingerprint'"))
        return await self.store.run_write(write)

    async def keyed_from(self, today: str) -> str:
        async def write(con: Con) -> str:
            await con.execute("LOCK TABLE kv IN SHARE ROW EXCLUSIVE MODE")  # one first start
            kept = await con.fetchval("SELECT value FROM kv WHERE key='daily_keyed_from'")
            if kept is not None:
                return str(kept)
            ever = await con.fetchval("SELECT 1 FROM daily_attempts LIMIT 1")
            played = await con.fetchval("SELECT 1 FROM daily_attempts WHERE day=$1 LIMIT 1",
                                        today)
            first = EVERY_DAY if ever is None else today if played is None else \
                (dt.date.fromisoformat(today) + dt.timedelta(days=1)).isoformat()
            await con.execute("INSERT INTO kv (key, value) VALUES ('daily_keyed_from', $1)",
                              first)
            return first
        return await self.store.run_write(write)

    async def stored_keyed_from(self) -> str | None:
        async def read(con: Con) -> str | None:
            value = await con.fetchval("SELECT value FROM kv WHERE key='daily_keyed_from'")
            return None if value is None else str(value)
        return await self.store.run_read(read)

    async def stored_secret(self) -> tuple[str | None, str | None]:
        async def read(con: Con) -> tuple[str | None, str | None]:
            kept = {r["key"]: r["value"] for r in await con.fetch(
                "SELECT key, value FROM kv WHERE key IN"
                " ('daily_secret', 'daily_secret_fingerprint')")}
            secret = kept.get("daily_secret")
            return (secret or None,
                    kept.get("daily_secret_fingerprint"))
        return await self.store.run_read(read)

    async def attempt(self, user_id: int, day: str, ranked: bool) -> Attempt | None:
        """As daily.py: a damaged ranked flag counts as the ranked attempt's."""
        async def read(con: Con) -> Attempt | None:
            r = await con.fetchrow("SELECT * FROM daily_attempts WHERE user_id=$1 AND day=$2"
                                   " AND (ranked=$3 OR ($4 AND " + DAMAGED_RANKED + "))"
                                   " ORDER BY ranked=$3 DESC", user_id, day, int(ranked),
                                   ranked)
            return attempt_of(r) if r else None
        return await self.store.run_read(read)

    async def claim(self, user_id: int, day: str, ranked: bool, name: str,
                    guild_id: int | None) -> Attempt | None:
        now = time.time()

        async def write(con: Con) -> Attempt | None:
            if ranked and await _damaged_ranked(con, user_id, day):
                return None
            if guild_id is not None:
                await con.execute("INSERT INTO daily_members VALUES ($1,$2) ON CONFLICT"
                                  " DO NOTHING", guild_id, user_id)
            # ranked: first come only; practice: a new one replaces the day's old practice
            on_conflict = "DO NOTHING" if ranked else (
                "DO UPDATE SET name=excluded.name, status='playing', started_at=excluded."
                "started_at, game_id=NULL, score=NULL, share=NULL, finished_at=NULL")
            r = await con.fetchrow(
                "INSERT INTO daily_attempts (user_id, day, ranked, name, status, started_at)"
                f" VALUES ($1,$2,$3,$4,'playing',$5) ON CONFLICT (user_id, day, ranked)"
                f" {on_conflict} RETURNING *", user_id, day, int(ranked), name, now)
            return attempt_of(r) if r else None
        return await self.store.run_write(write)

    async def start_daily(self, user_id: int, day: str, ranked: bool, name: str,
                          guild_id: int | None, game: NewGame, *,
                          replace: int | None = None) -> tuple[Commit, Attempt]:
        """As daily.py: the claim and the game, one transaction. A racing process's claim
        waits on the primary key for this one to commit, then finds the attempt taken."""
        now = time.time()
        upsert = ("DO UPDATE SET game_id=excluded.game_id WHERE "
                  + ATTEMPT_PLAYING.format("daily_attempts.") +
                  " AND daily_attempts.game_id IS NULL") if ranked else (
            "DO UPDATE SET name=excluded.name, status='playing', started_at=excluded.started_at,"
            " game_id=excluded.game_id, score=NULL, share=NULL, finished_at=NULL")

        async def claim(con: Con, row: GameRow) -> Attempt:
            if ranked and await _damaged_ranked(con, user_id, day):
                raise AttemptTaken(f"user {user_id}'s day {day} holds a damaged ranked flag")
            if guild_id is not None:
                await con.execute("INSERT INTO daily_members VALUES ($1,$2) ON CONFLICT"
                                  " DO NOTHING", guild_id, user_id)
            if replace is not None:  # the practice it replaces ends with its game
                await con.execute("UPDATE daily_attempts SET status='unfinished', finished_at=$1"
                                  " WHERE game_id=$2 AND " + ATTEMPT_PLAYING.format(""),
                                  now, replace)
            r = await con.fetchrow(
                "INSERT INTO daily_attempts (user_id, day, ranked, game_id, name, status,"
                " started_at) VALUES ($1,$2,$3,$4,$5,'playing',$6)"
                " ON CONFLICT (user_id, day, ranked) " + upsert + " RETURNING *",
                user_id, day, int(ranked), row.id, name, now)
            if r is None:
                raise AttemptTaken(f"user {user_id}'s ranked attempt of {day} is claimed")
            return attempt_of(r)
        return await self.store.create_started(game, claim, replace=replace)

    async def end_attempt(self, user_id: int, day: str, ranked: bool, status: AttemptStatus,
                          score: dict[str, Any] | None, share: str | None, *,
                          game_id: int | None = None, version: int | None = None,
                          tell: Tell | None = None) -> bool:
        """As daily.py: the attempt closed, its game abandoned and its notice queued, one
        transaction."""
        now = time.time()

        async def write(con: Con) -> bool:
            n = rows_touched(await con.execute(
                "UPDATE daily_attempts SET status=$1, score=$2, share=$3, finished_at=$4"
                " WHERE user_id=$5 AND day=$6 AND " + closed_attempt("$5", "$6", "$7")
                + " AND " + ATTEMPT_PLAYING.format(""),
                status, json.dumps(score) if score else None, share, now, user_id, day,
                int(ranked)))
            if n != 1:
                return False
            if game_id is not None:
                sql = ("UPDATE games SET status='abandoned', updated_at=$1 WHERE id=$2"
                       " AND status IN ('lobby','active')")
                if version is None:
                    await con.execute(sql, now, game_id)
                elif rows_touched(await con.execute(sql + " AND version=$3", now, game_id,
                                              version)) != 1:
                    raise VersionConflict("the game moved on")
                await con.execute("DELETE FROM timers WHERE game_id=$1", game_id)
            if tell is not None:
                await con.execute(
                    "INSERT INTO daily_outbox (kind, day, target, channel_id, lang, not_before,"
                    " created_at) VALUES ($1,$2,$3,$4,$5,$6,$6) ON CONFLICT DO NOTHING",
                    tell.kind, day, user_id, tell.channel_id, tell.lang, tell.at)
            return True
        return await self.store.run_write(write)

    async def seen_in(self, guild_id: int, user_id: int) -> None:
        await self._run("INSERT INTO daily_members VALUES ($1,$2) ON CONFLICT DO NOTHING",
                        guild_id, user_id)

    async def set_game(self, user_id: int, day: str, ranked: bool, game_id: int) -> None:
        await self._run("UPDATE daily_attempts SET game_id=$1 WHERE user_id=$2 AND day=$3"
                        " AND ranked=$4", game_id, user_id, day, int(ranked))

    async def playing(self, day: str | None = None) -> list[Attempt]:
        sql = "SELECT * FROM daily_attempts WHERE " + ATTEMPT_PLAYING.format("")

        async def read(con: Con) -> list[Attempt]:
            if day is None:
                rows = await con.fetch(sql)
            else:
                rows = await con.fetch(sql + " AND day=$1", day)
            return [attempt_of(r) for r in rows]
        return await self.store.run_read(read)

    async def results(self, day: str, guild_id: int | None = None) -> list[Attempt]:
        async def read(con: Con) -> list[Attempt]:
            sql = ("SELECT a.* FROM daily_attempts a WHERE a.day=$1 AND a.ranked=1"
                   " AND a.status='finished'")
            if guild_id is None:
                return [attempt_of(r) for r in await con.fetch(sql, day)]
            sql += " AND a.user_id IN (SELECT user_id FROM daily_members WHERE guild_id=$2)"
            return [attempt_of(r) for r in await con.fetch(sql, day, guild_id)]
        return await self.store.run_read(read)

    async def members(self, guild_id: int) -> set[int]:
        async def read(con: Con) -> set[int]:
            return {r[0] for r in await con.fetch(
                "SELECT user_id FROM daily_members WHERE guild_id=$1", guild_id)}
        return await self.store.run_read(read)

    async def old_scores(self) -> list[Attempt]:
        async def read(con: Con) -> list[Attempt]:
            out = []
            for r in await con.fetch("SELECT * FROM daily_attempts WHERE status='finished'"
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
        return rows_touched(await self._run(
            "UPDATE daily_attempts SET score=$1 WHERE user_id=$2 AND day=$3 AND ranked=$4"
            " AND status='finished' AND score NOT LIKE '%\"v\":%'",
            json.dumps(score), user_id, day, int(ranked))) == 1

    async def history(self, user_id: int) -> list[Attempt]:
        async def read(con: Con) -> list[Attempt]:
            return [attempt_of(r) for r in await con.fetch(
                "SELECT * FROM daily_attempts WHERE user_id=$1 AND ranked=1 ORDER BY day",
                user_id)]
        return await self.store.run_read(read)

    async def par(self, day: str) -> dict[str, Any] | None:
        async def read(con: Con) -> dict[str, Any] | None:
            raw = await con.fetchval("SELECT par FROM daily_days WHERE day=$1", day)
            return par_of(raw, day)
        return await self.store.run_read(read)

    async def set_par(self, day: str, par: dict[str, Any]) -> None:
        await self._run("INSERT INTO daily_days (day, par) VALUES ($1,$2) ON CONFLICT (day)"
                        " DO UPDATE SET par=excluded.par", day, json.dumps(par))

    async def keep_par(self, day: str, par: dict[str, Any]) -> dict[str, Any]:
        async def write(con: Con) -> dict[str, Any]:
            await con.execute("INSERT INTO daily_days (day) VALUES ($1) ON CONFLICT DO NOTHING",
                              day)
            kept = par_of(await con.fetchval("SELECT par FROM daily_days WHERE day=$1"
                                             " FOR UPDATE", day), day)
            if kept is not None:
                return kept
            await con.execute("UPDATE daily_days SET par=$1 WHERE day=$2", json.dumps(par), day)
            return par
        return await self.store.run_write(write)

    async def day_flag(self, day: str, flag: str) -> bool:
        assert flag in ("announced", "closed")

        async def read(con: Con) -> bool:
            return day_flag_set(await con.fetchval(
                f"SELECT {flag} FROM daily_days WHERE day=$1", day), day, flag)
        return await self.store.run_read(read)

    async def take_day_flag(self, day: str, flag: str) -> bool:
        assert flag in ("announced", "closed")

        async def write(con: Con) -> bool:
            await con.execute("INSERT INTO daily_days (day) VALUES ($1) ON CONFLICT DO NOTHING",
                              day)
            if await _flag_set(con, day, flag):
                return False
            return rows_touched(await con.execute(
                f"UPDATE daily_days SET {flag}=1 WHERE day=$1"
                f" AND {flag} IS DISTINCT FROM 1", day)) == 1
        return await self.store.run_write(write)

    async def set_guild_channel(self, guild_id: int, channel_id: int | None, lang: str) -> None:
        await self._run("INSERT INTO daily_guilds VALUES ($1,$2,$3) ON CONFLICT (guild_id)"
                        " DO UPDATE SET channel_id=excluded.channel_id, lang=excluded.lang",
                        guild_id, channel_id, lang)

    async def guild_channel(self, guild_id: int) -> int | None:
        async def read(con: Con) -> int | None:
            found = await con.fetchval("SELECT channel_id FROM daily_guilds WHERE guild_id=$1",
                                       guild_id)
            return None if found is None else int(found)
        return await self.store.run_read(read)

    async def set_reminder(self, user_id: int, channel_id: int | None, lang: str | None = None,
                           hour: int | None = None) -> None:
        if channel_id is None:
            await self._run("DELETE FROM daily_reminders WHERE user_id=$1", user_id)
        else:
            await self._run("INSERT INTO daily_reminders (user_id, channel_id, lang, hour)"
                            " VALUES ($1,$2,$3,$4) ON CONFLICT (user_id) DO UPDATE SET"
                            " channel_id=excluded.channel_id,"
                            " lang=COALESCE(excluded.lang, daily_reminders.lang),"
                            " hour=COALESCE(excluded.hour, daily_reminders.hour)",
                            user_id, channel_id, lang, hour)

    async def reminder(self, user_id: int) -> tuple[int, str | None, int] | None:
        async def read(con: Con) -> tuple[int, str | None, int] | None:
            r = await con.fetchrow("SELECT channel_id, lang, hour FROM daily_reminders"
                                   " WHERE user_id=$1", user_id)
            return (r[0], r[1], remind_hour(r[2], user_id)) if r else None
        return await self.store.run_read(read)

    async def reminders_due(self, day: str, hour: int = 23) -> list[tuple[int, int]]:
        """As daily.py; the UPDATE … RETURNING marks and lists in one statement, so two
        processes running the day job cannot both remind one user."""
        async def write(con: Con) -> list[tuple[int, int]]:
            return [(r[0], r[1]) for r in await _mark_due(con, day, hour)]
        return await self.store.run_write(write)

    async def queue_news(self, day: str, now: float) -> int:
        async def write(con: Con) -> int:
            await con.execute("INSERT INTO daily_days (day) VALUES ($1) ON CONFLICT DO NOTHING",
                              day)
            if await _flag_set(con, day, "announced") or rows_touched(await con.execute(
                    "UPDATE daily_days SET announced=1 WHERE day=$1 AND announced IS DISTINCT FROM 1",
                    day)) != 1:
                return 0
            return rows_touched(await con.execute(
                "INSERT INTO daily_outbox (kind, day, target, channel_id, lang, not_before,"
                " created_at) SELECT 'news', $1, guild_id, channel_id, lang, $2, $2"
                " FROM daily_guilds WHERE channel_id IS NOT NULL ON CONFLICT DO NOTHING",
                day, now))
        return await self.store.run_write(write)

    async def queue_recaps(self, day: str, now: float) -> int:
        async def write(con: Con) -> int:
            await con.execute("INSERT INTO daily_days (day) VALUES ($1) ON CONFLICT DO NOTHING",
                              day)
            if await _flag_set(con, day, "recapped") or rows_touched(await con.execute(
                    "UPDATE daily_days SET recapped=1 WHERE day=$1 AND recapped IS DISTINCT FROM 1",
                    day)) != 1:
                return 0
            games = [(int(r[0]), r[1]) for r in await con.fetch(
                RECAPPED_GAMES.format("$1", 1), day)]
            rows = recap_rows(day, games, now)
            await con.executemany(
                "INSERT INTO daily_outbox (kind, day, target, channel_id, lang, not_before,"
                " created_at) VALUES ($1,$2,$3,$4,$5,$6,$7) ON CONFLICT DO NOTHING", rows)
            return len(rows)
        return await self.store.run_write(write)

    async def queue_reminders(self, day: str, hour: int, now: float) -> int:
        async def write(con: Con) -> int:
            rows = await _mark_due(con, day, hour)
            await con.executemany(
                "INSERT INTO daily_outbox (kind, day, target, channel_id, lang, not_before,"
                " created_at) VALUES ('reminder',$1,$2,$3,$4,$5,$5) ON CONFLICT DO NOTHING",
                [(day, r[0], r[1], r[2], now) for r in rows])
            return len(rows)
        return await self.store.run_write(write)

    async def daily_notices(self, now: float) -> list[DailyNotice]:
        async def read(con: Con) -> list[DailyNotice]:
            return [daily_notice(r) for r in await con.fetch(
                "SELECT * FROM daily_outbox WHERE not_before<=$1 OR not_before>$2 ORDER BY id",
                now, now + NOTICE_WAIT_MAX_S)]
        return await self.store.run_read(read)

    async def take_notices(self, now: float) -> list[DailyNotice]:
        async def write(con: Con) -> list[DailyNotice]:
            rows = await con.fetch("UPDATE daily_outbox SET not_before=$1 WHERE not_before<=$2"
                                   " OR not_before>$3 RETURNING *", now + HOLD_S, now,
                                   now + NOTICE_WAIT_MAX_S)
            return sorted((daily_notice(r) for r in rows), key=lambda n: n.id)
        return await self.store.run_write(write)

    async def notice_sent(self, notice_id: int) -> None:
        async def write(con: Con) -> None:
            await con.execute("DELETE FROM daily_outbox WHERE id=$1", notice_id)
        await self.store.run_write(write, bookkeeping=True)

    async def notice_retry(self, notice_id: int, not_before: float) -> None:
        async def write(con: Con) -> None:
            await con.execute("UPDATE daily_outbox SET attempts=attempts+1, not_before=$1"
                              " WHERE id=$2", not_before, notice_id)
        await self.store.run_write(write, bookkeeping=True)

    async def touch(self, game_id: int) -> None:
        await self._run("UPDATE games SET updated_at=$1 WHERE id=$2 AND status='active'",
                        time.time(), game_id)

    async def last_game_at(self, slots: list[int]) -> dict[int, float]:
        async def read(con: Con) -> dict[int, float]:
            return {r[0]: touched_at(r[0], r[1]) for r in await con.fetch(
                "SELECT channel_id, updated_at FROM games WHERE channel_id = ANY($1::bigint[])"
                " AND status='active'", slots)}
        return await self.store.run_read(read)


async def _mark_due(con: Con, day: str, hour: int) -> list[asyncpg.Record]:
    """daily.py's `_DUE`, marked sent for the day in the same statement (UPDATE …
    RETURNING): two processes cannot both take one user's reminder."""
    return await con.fetch(
        "UPDATE daily_reminders r SET last_day=$1"
        " WHERE (r.last_day IS NULL OR r.last_day<>$1)"
        " AND COALESCE(CASE WHEN r.hour BETWEEN 0 AND 23 THEN r.hour END, $3) <= $2"
        " AND EXISTS (SELECT 1 FROM daily_attempts a WHERE a.user_id=r.user_id"
        "   AND a.ranked=1 AND a.status='finished'"
        "   AND a.day=to_char(CAST($1::text AS date) - 1, 'YYYY-MM-DD'))"
        " AND NOT EXISTS (SELECT 1 FROM daily_attempts a WHERE a.user_id=r.user_id"
        "   AND a.ranked=1 AND a.day=$1 AND NOT (" + ATTEMPT_PLAYING.format("a.") + "))"
        " RETURNING r.user_id, r.channel_id, r.lang", day, hour, DEFAULT_REMIND_HOUR)


async def _flag_set(con: Con, day: str, flag: str) -> bool:
    """As daily.py: a day's flag, a damaged one (logged) counting as not set."""
    return day_flag_set(await con.fetchval(
        f"SELECT {flag} FROM daily_days WHERE day=$1", day), day, flag)  # noqa: S608


async def _damaged_ranked(con: Con, user_id: int, day: str) -> bool:
    """As daily.py: the player's day holds an attempt whose ranked flag is damaged."""
    return await con.fetchval("SELECT 1 FROM daily_attempts WHERE user_id=$1 AND day=$2 AND "
                              + DAMAGED_RANKED, user_id, day) is not None
