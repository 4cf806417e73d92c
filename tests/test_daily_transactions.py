"""Issue 17: a daily start and a daily resign are each one transaction, and two processes
starting one user's attempt at once give one game and a truthful answer.

How a crash is made: the bot process "dies" after its n-th committed write (every later
write raises `Killed` before it reaches the database), for every n the command makes. On
SQLite the database file and its WAL are copied at that instant and the copy is opened by
a fresh service (the restarted bot); on PostgreSQL the restarted bot opens the same
database. The day it finds must be consistent (no attempt and no game, or a complete daily
game with its settings, timers and one ranked attempt), and `/rr daily play` after the
restart must not give a second ranked game of the day.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bot_driver import Clock, make_bot
from conftest import Db
from harness import Harness
from test_daily_service import finish

from engine.flow import RULES_VERSION
from service import GameService, ServiceError
from service.daily import day_end
from service.daily_play import DailyHost
from service.daily_slots import slot
from store import daily_store

DAY = dt.date(2026, 11, 23)
NOON = day_end(DAY) - 12 * 3600
DM = 9001


class Killed(BaseException):
    """The process died here: nothing after this reaches the database."""


class Process:
    """One bot process on the database: its store, game service and daily host; `kill_after`
    makes it die after that many more committed writes."""

    def __init__(self, store: Any, host: DailyHost) -> None:
        self.store, self.host, self.writes = store, host, 0
        self.left: int | None = None
        real = store.run_write  # fault injection at the store's one write path

        async def write(fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
            if self.left is not None:
                if self.left <= 0:
                    raise Killed
                self.left -= 1
            out = await real(fn, *args, **kw)
            self.writes += 1
            return out
        store.run_write = write

    def kill_after(self, n: int) -> None:
        self.left = n


_copies = itertools.count()


async def start(db: Any, clock: Clock | None = None, path: str | None = None) -> Process:
    store = await (db.make() if path is None else type(db.make())(path)).open()
    h = await DailyHost.open(GameService(store, clock=clock or Clock(NOON)), secret="0f1e2d3c4b5a69788796a5b4c3d2e1f0")
    h.par.levels = ("random",)
    return Process(store, h)


async def restart(db: Any, dead: Process, tmp: Path, clock: Clock | None = None) -> Process:
    """The restarted bot: on SQLite, a copy of the file and its WAL as they were on disk
    when the process died; on PostgreSQL, the same database (the server kept it)."""
    if db.pg:
        return await start(db, clock)
    copy = tmp / f"restart{next(_copies)}.db"
    shutil.copyfile(db.url, copy)
    if Path(db.url + "-wal").exists():
        shutil.copyfile(db.url + "-wal", str(copy) + "-wal")
    return await start(db, clock, path=str(copy))


async def all_games(db: Any, p: Process, user: int) -> list[tuple[int, str]]:
    """Every game row of the user's ranked slot, read behind the store's back."""
    rows = await Db(db.backend, p.store.path).sql(
        "SELECT id, status FROM games WHERE channel_id=? ORDER BY id", slot(user, True))
    return [(int(r[0]), str(r[1])) for r in rows]


def h_day(clock: Clock) -> str:
    return dt.datetime.fromtimestamp(clock.now, dt.UTC).date().isoformat()


async def check_day(db: Any, p: Process, user: int) -> str:
    """The day as the restarted bot finds it: 'none' (no attempt, no game) or 'started' (a
    complete daily game and its one ranked attempt) — anything else fails."""
    att = await p.host.store.attempt(user, DAY.isoformat(), True)
    games = [g for g in await all_games(db, p, user) if g[1] != "abandoned"]
    if att is None:
        assert games == [], f"a game without its attempt: {games}"
        return "none"
    assert att.status == "playing", att
    assert len(games) == 1 and games[0][1] == "active", \
        f"the attempt is claimed but its game is {games}"
    row = await p.store.get(games[0][0])
    assert att.game_id == row.id, "the attempt does not know its game"
    info = row.settings.get("daily") or {}
    assert info.get("day") == DAY.isoformat() and info.get("post_channel") == DM, \
        f"the game lacks its daily settings: {row.settings}"
    assert await p.store.timers(row.id), "the started game has no time limit"
    return "started"


def test_a_crash_at_any_point_of_daily_play_leaves_no_game_or_a_complete_one(db, tmp_path):
    """Issue 17, point 1: killed between any two writes of `/rr daily play`, the restarted
    bot finds no attempt and no game, or the complete game with its settings; playing then
    gives one ranked game of the day (its announcements reach the DM, it is scored)."""
    async def main():
        probe = await start(db)
        await probe.host.attempts.play(1, "Ann", 100, DM)
        writes = probe.writes  # how many writes a start makes (1 when it is one transaction)
        await probe.store.close()
        seen = set()
        for n in range(writes + 1):
            user = 10 + n
            dead = await start(db)
            dead.kill_after(n)
            try:
                await dead.host.attempts.play(user, "Ann", 100, DM)
            except Killed:
                pass
            back = await restart(db, dead, tmp_path)
            seen.add(await check_day(db, back, user))
            st = await back.host.attempts.play(user, "Ann", 100, DM)
            assert st.row.settings["daily"]["post_channel"] == DM
            again = await back.host.attempts.play(user, "Ann", 200, DM)
            assert again.outcome is None and again.row.id == st.row.id
            assert [s for _, s in await all_games(db, back, user)] == ["active"], \
                f"crash after write {n}: a second ranked game of the day"
            for p in (dead, back):
                await p.store.close()
        assert seen == {"none", "started"}
    asyncio.run(main())


def test_a_crash_inside_daily_resign_never_reopens_the_day(db, tmp_path):
    """Issue 17, point 2: killed between any two writes of `/rr daily resign`, the attempt
    is still in play with its game, or resigned (scored, game closed, no timers) — and
    `/rr daily play` never starts a second ranked game."""
    async def main():
        probe = await start(db)
        await probe.host.attempts.play(1, "Ann", None, DM)
        before = probe.writes
        await probe.host.attempts.resign(1)
        writes = probe.writes - before
        await probe.store.close()
        outcomes = set()
        for n in range(writes + 1):
            user = 20 + n
            dead = await start(db)
            first = await dead.host.attempts.play(user, "Ann", None, DM)
            dead.kill_after(n)
            try:
                await dead.host.attempts.resign(user)
            except Killed:
                pass
            back = await restart(db, dead, tmp_path)
            att = await back.host.store.attempt(user, DAY.isoformat(), True)
            row = await back.store.get(first.row.id)
            assert att is not None and row is not None
            if att.status == "playing":
                assert row.status == "active", f"crash after write {n}: the game is " \
                    f"{row.status} while the attempt is still in play (the day reopens)"
                again = await back.host.attempts.play(user, "Ann", None, DM)
                assert again.row.id == first.row.id and again.outcome is None
                outcomes.add("in play")
            else:
                assert att.status == "finished" and att.score is not None
                assert not att.score["won"]
                assert row.status == "abandoned" and await back.store.timers(row.id) == []
                with pytest.raises(ServiceError, match="one attempt a day"):
                    await back.host.attempts.play(user, "Ann", None, DM)
                outcomes.add("resigned")
            assert len(await all_games(db, back, user)) == 1
            for p in (dead, back):
                await p.store.close()
        assert outcomes == {"in play", "resigned"}
    asyncio.run(main())


def test_a_game_that_ended_before_its_score_was_written_is_scored_once(db, tmp_path):
    """Issue 17: the last move committed, the process died before scoring it. After the
    restart `/rr daily play` says the day is played (no second ranked game), and the
    score is written once however often it is asked for."""
    async def main():
        dead = await start(db)
        await dead.host.attempts.play(5, "Ann", None, DM)
        await finish(dead.host, 5)  # the game is over; nobody scored it
        back = await restart(db, dead, tmp_path)
        with pytest.raises(ServiceError, match="one attempt a day"):
            await back.host.attempts.play(5, "Ann", None, DM)
        assert [s for _, s in await all_games(db, back, 5)] == ["over"]
        assert len(await back.host.results.settle_all()) == 1
        assert await back.host.results.settle_all() == []
        att = await back.host.store.attempt(5, DAY.isoformat(), True)
        assert att is not None and att.status == "finished" and att.score is not None
        for p in (dead, back):
            await p.store.close()
    asyncio.run(main())


def test_two_processes_starting_one_users_daily_at_once_give_one_game(db):
    """Issue 17, point 3: two processes (two stores on one database) run `/rr daily play`
    for the same users at the same instant: each user gets exactly one game, and the
    request that lost is no refusal — it resumes the winner's game, saying so."""
    async def main():
        a, b = await start(db), await start(db)
        users = range(30, 38)
        got = await asyncio.gather(*(p.host.attempts.play(u, "Ann", None, DM)
                                     for u in users for p in (a, b)),
                                   return_exceptions=True)
        errors = [g for g in got if isinstance(g, BaseException)]
        assert not errors, [str(e) for e in errors]
        for k, u in enumerate(users):
            one, two = got[2 * k], got[2 * k + 1]
            assert one.row.id == two.row.id
            assert sum(s.outcome is not None for s in (one, two)) == 1
            assert [s for _, s in await all_games(db, a, u)] == ["active"]
        for p in (a, b):
            await p.store.close()
    asyncio.run(main())


def test_the_process_that_loses_the_start_tells_the_player_the_truth(tmp_path):
    """Issue 17, point 3, through Discord: another process starts ann's challenge between
    this process reading her attempt and writing it. Her answer is that the challenge is
    already running in her DMs — not "out of date", not "this channel already has a game"
    — and there is one game."""
    async def scenario():
        clock = Clock(NOON)
        path = tmp_path / "d.db"
        async with Harness(lambda: make_bot(path, clock)) as h:
            ann = h.user("ann")
            other_store = await type(h.bot.store)(str(path)).open()
            other = await DailyHost.open(GameService(other_store, clock=clock))
            other.par.levels = ("random",)
            here = h.bot.daily.store
            real = here.attempt
            raced: list[int] = []

            async def attempt(*args: Any) -> Any:
                found = await real(*args)
                if not raced:  # the other process starts it right after this read
                    raced.append(1)
                    await other.attempts.play(ann.id, "ann", None, h.dm_channel(ann).id)
                return found
            here.attempt = attempt  # type: ignore[method-assign]
            res = await h.slash(ann, "rr daily play")
            assert raced and "already running in your DMs" in res.text, res.text
            assert "out of date" not in res.text and "already has a game" not in res.text
            rows = await other_store.active_games()
            assert [r.channel_id for r in rows] == [slot(ann.id, True)]
            ann.locale = "ja"
            again = await h.slash(ann, "rr daily play")  # now simply resumed
            assert "チャレンジの続き" in again.text, again.text
            await other_store.close()
    asyncio.run(scenario())



LEGACY = ("claimed", "lobby", "lobby_with_settings", "started_without_settings",
          "resign_cut_short", "yesterdays_game_without_settings")


@pytest.mark.parametrize("left", LEGACY)
def test_a_day_an_older_bot_left_half_written_is_repaired_on_the_next_play(db, left):
    """Issue 17: a database written by the bot before this change may hold any of its
    crash points (each step was its own write). The next `/rr daily play` finds the day
    consistent: the one ranked game, complete with its settings and known to its attempt —
    or, after a resign cut short, the attempt scored as that resign and no new game."""
    async def main():
        clock = Clock(NOON - (24 * 3600 if left.startswith("yesterdays") else 0))
        p = await start(db, clock)
        h, day, user = p.host, h_day(clock), 40
        key = slot(user, True)
        ch = h.days.challenge(dt.date.fromisoformat(day))
        await h.store.claim(user, day, True, "Ann", None)
        if left != "claimed":
            lobby = await h.games.lobby.new_lobby(None, key, user, "Ann", players=1,
                                                  difficulty=ch.difficulty)
            if left == "lobby_with_settings":
                lobby.settings["daily"] = {"day": day, "ranked": True, "number": ch.number,
                                           "post_channel": DM}
                await h.games.store.set_settings(lobby.id, lobby.settings)
            if left in ("started_without_settings", "resign_cut_short",
                        "yesterdays_game_without_settings"):
                await h.games.lobby.start(key, user, seed=0, rng_key=ch.key, options=ch.options)
            if left == "resign_cut_short":
                lobby.settings["daily"] = {"day": day, "ranked": True, "number": ch.number,
                                           "post_channel": DM}
                await h.games.store.set_settings(lobby.id, lobby.settings)
                await h.store.set_game(user, day, True, lobby.id)
                await h.games.store.set_status(lobby.id, "abandoned")
        await p.store.close()
        clock.now = NOON
        back = await start(db, clock)
        if left == "resign_cut_short":
            with pytest.raises(ServiceError, match="one attempt a day"):
                await back.host.attempts.play(user, "Ann", None, DM)
            att = await back.host.store.attempt(user, day, True)
            assert att is not None and att.status == "finished" and att.score is not None
            assert [s for _, s in await all_games(db, back, user)] == ["abandoned"]
        else:
            st = await back.host.attempts.play(user, "Ann", None, DM)
            assert await check_day(db, back, user) == "started"
            assert st.row.settings["daily"]["post_channel"] == DM
            assert [s for _, s in await all_games(db, back, user)].count("active") == 1
        await back.store.close()
    asyncio.run(main())


def test_a_crash_while_closing_the_day_loses_no_attempt(db, tmp_path):
    """Issue 17 (audit: the day's end is a multi-step write too): killed between any two
    writes of closing a day, every attempt is still in play with its game open, or ended
    unfinished with its game closed — and the next pass of the day job closes the rest."""
    async def main():
        clock = Clock(NOON)

        async def two_playing(p: Process, first: int, day: dt.date) -> list[int]:
            clock.now = day_end(day) - 12 * 3600
            for u in (first, first + 1):
                await p.host.attempts.play(u, "Ann", None, DM)
            clock.now = day_end(day) + 60  # 00:01 UTC the next day
            return [first, first + 1]

        probe = await start(db, clock)
        await two_playing(probe, 50, DAY)
        before = probe.writes
        await probe.host.results.close_day(DAY)
        writes = probe.writes - before  # the flag, then each attempt
        await probe.store.close()
        for n in range(writes + 1):
            day = DAY + dt.timedelta(days=n + 1)  # a day of its own: its flag not yet taken
            dead = await start(db, clock)
            users = await two_playing(dead, 60 + 2 * n, day)
            dead.kill_after(n)
            try:
                await dead.host.results.close_day(day)
            except Killed:
                pass
            back = await restart(db, dead, tmp_path, clock)
            for u in users:
                att = await back.host.store.attempt(u, day.isoformat(), True)
                row = await back.store.get(att.game_id)
                assert (att.status, row.status) in (("playing", "active"),
                                                    ("unfinished", "abandoned")), \
                    f"crash after write {n}: attempt {att.status}, game {row.status}"
            await back.host.results.close_day(day)  # the day job's next pass
            for u in users:
                att = await back.host.store.attempt(u, day.isoformat(), True)
                row = await back.store.get(att.game_id)
                assert (att.status, row.status) == ("unfinished", "abandoned"), \
                    f"crash after write {n}: the next pass left {att.status}/{row.status}"
            # the day closed, its challenge is practised now: later passes leave that alone
            st = await back.host.attempts.practice(users[0], "Ann", None, DM, day=day)
            assert await back.host.results.close_day(day) == []
            assert (await back.store.get(st.row.id)).status == "active"
            for p in (dead, back):
                await p.store.close()
    asyncio.run(main())


async def check_practice(db: Any, p: Process, user: int) -> None:
    """The practice slot as the restarted bot finds it: at most one open game, and a
    practice attempt is in play exactly when it has that game, of its own day."""
    rows = await Db(db.backend, p.store.path).sql(
        "SELECT id, settings FROM games WHERE channel_id=? AND status IN ('lobby','active')",
        slot(user, False))
    assert len(rows) <= 1
    open_id = int(rows[0][0]) if rows else None
    atts = await Db(db.backend, p.store.path).sql(
        "SELECT day, game_id FROM daily_attempts WHERE user_id=? AND ranked=0"
        " AND status='playing'", user)
    assert [a[1] for a in atts] == ([open_id] if open_id is not None else []), \
        f"practice attempts in play {atts}, open practice game {open_id}"
    if rows:
        assert json.loads(rows[0][1])["daily"]["day"] == atts[0][0]


def test_a_crash_while_a_practice_replaces_another_leaves_one_or_the_other(db, tmp_path):
    """Issue 17 (audit: `/rr daily practice` ends the old practice and starts a new one):
    killed between any two of its writes, the restarted bot finds the old practice still
    in play, or the new one complete — never an attempt in play without its game."""
    async def main():
        yesterday, before = DAY - dt.timedelta(days=1), DAY - dt.timedelta(days=2)
        probe = await start(db)
        await probe.host.attempts.practice(1, "Ann", None, DM, day=yesterday)
        n0 = probe.writes
        await probe.host.attempts.practice(1, "Ann", None, DM, day=before)
        writes = probe.writes - n0
        await probe.store.close()
        for n in range(writes + 1):
            user = 70 + n
            dead = await start(db)
            await dead.host.attempts.practice(user, "Ann", None, DM, day=yesterday)
            dead.kill_after(n)
            try:
                await dead.host.attempts.practice(user, "Ann", None, DM, day=before)
            except Killed:
                pass
            back = await restart(db, dead, tmp_path)
            await check_practice(db, back, user)
            st = await back.host.attempts.practice(user, "Ann", None, DM, day=before)
            assert st.row.settings["daily"]["day"] == before.isoformat()
            again = await back.host.attempts.practice(user, "Ann", None, DM, day=before)
            assert again.outcome is None and again.row.id == st.row.id
            await check_practice(db, back, user)
            for p in (dead, back):
                await p.store.close()
    asyncio.run(main())


@pytest.mark.slow  # real bot processes
def test_two_real_processes_starting_one_players_daily_give_one_game(db):
    """Issue 17, point 3, with real OS processes (tests/shard_worker.py: a RookBot behind
    the harness each, one database): `/rr daily play` of one player reaches both at the
    same instant. One game; one answer says it started, the other that it is running (or
    goes on) — never "out of date", "already has a game" or "starting already"."""
    from shard_worker import Proc

    users = {"ann": 900_001 << 22, "bob": 900_002 << 22, "cat": 900_003 << 22}
    guild = (1_000_000 << 22)
    today = dt.datetime.now(dt.UTC).date()

    async def par_known() -> None:  # the par AIs' games are another test's subject (slow)
        store = await db.open()
        try:
            ds = await daily_store(store).open()
            for d in (today - dt.timedelta(days=1), today, today + dt.timedelta(days=1)):
                await ds.set_par(d.isoformat(), {})
        finally:
            await store.close()
    asyncio.run(par_known())
    spec = {"db": db.url, "shard_count": 1, "shard_ids": [0], "guild": guild,
            "channel": 700_009 << 22, "users": users, "channels": {}, "ticker": False}
    procs = [Proc({**spec, "index": 1}), Proc({**spec, "index": 2})]
    try:
        for name in users:
            for p in procs:
                p.send("slash", user=name, command="rr daily play")
            texts = sorted(p.answer()["text"] for p in procs)
            started = [t for t in texts if "has started" in t]
            other = [t for t in texts if "has started" not in t]
            assert len(started) == 1 and len(other) == 1, texts
            assert "already running in your DMs" in other[0] or "goes on" in other[0], texts
            rows = asyncio.run(db.sql("SELECT status FROM games WHERE channel_id=?",
                                      slot(users[name], True)))
            assert [r[0] for r in rows] == ["active"], rows
    finally:
        for p in procs:
            p.stop()


def test_resuming_a_daily_game_a_newer_release_started_writes_nothing(db):
    """The upgrade verification audit: `/rr daily play` on an attempt whose game a newer
    release started (rules this release does not know, R15 determinism) was refused, but
    touched the game's `updated_at` first. Now it is refused with every row as it was, so
    the release that knows the game finds it untouched."""
    async def main():
        p = await start(db)
        first = await p.host.attempts.play(40, "Ann", None, DM)
        await p.store.close()
        raw = Db(db.backend, p.store.path)
        (text,), = await raw.sql("SELECT setup FROM games WHERE id=?", first.row.id)
        setup = json.loads(text) if isinstance(text, str) else dict(text)
        setup["rules"] = RULES_VERSION + 1
        await raw.sql("UPDATE games SET setup=? WHERE id=?", json.dumps(setup), first.row.id)
        before = await raw.sql("SELECT * FROM games ORDER BY id")
        again = await start(db)
        with pytest.raises(ServiceError, match="started by a newer release"):
            await again.host.attempts.play(40, "Ann", None, DM)
        assert await raw.sql("SELECT * FROM games ORDER BY id") == before
        assert again.writes == 0
        await again.store.close()
    asyncio.run(main())


def last_move_first(store: Any, player: Any) -> list[bool]:
    """`store.end_attempt` with the player's last move (through their own process, `player`)
    landing between its caller's read and its first write: the race both tests below stage.
    The list is non-empty once it has happened."""
    real = store.end_attempt
    raced: list[bool] = []

    async def end_attempt(*args: Any, **kw: Any) -> bool:
        if not raced:
            raced.append(True)
            await finish(player.host, 5)
        return await real(*args, **kw)
    store.end_attempt = end_attempt
    return raced


def test_the_days_close_never_ends_unfinished_a_game_another_process_just_finished(db):
    """The multi-process audit: the day job's process reads a player's daily game still in
    play, and before its close lands the player's last move lands through another process
    (judged a moment before 00:00 UTC). The attempt must end as its game did — finished
    and scored once — not 'unfinished' beside a game that is over (the close wrote its end
    without the game's version, and the player's score was then refused as too late)."""
    async def main():
        clock = Clock(NOON)
        job, player = await start(db, clock), await start(db, clock)
        await player.host.attempts.play(5, "Ann", None, DM)
        clock.now = day_end(DAY) + 1
        raced = last_move_first(job.host.results.store, player)
        await job.host.results.close_day(DAY)
        att = await job.host.store.attempt(5, DAY.isoformat(), True)
        row = await job.store.get(att.game_id)
        assert raced and row.status == "over"
        assert await player.host.results.settle(row) is None  # scored once, by the close
        att = await job.host.store.attempt(5, DAY.isoformat(), True)
        assert (att.status, att.score is not None) == ("finished", True), att
        assert await job.host.results.close_day(DAY) == []
        for p in (job, player):
            await p.store.close()
    asyncio.run(main())


def test_expiring_an_overdue_attempt_never_ends_unfinished_a_game_just_finished(db):
    """As the day's close above, for the player who comes back after 00:00 UTC: their
    command's process expires yesterday's attempt, and its game's last move lands through
    another process between the expiry's read and its write. The game ended: the attempt is
    scored, not ended 'unfinished' beside a game that is over (the multi-process audit)."""
    async def main():
        clock = Clock(NOON)
        back, player = await start(db, clock), await start(db, clock)
        await player.host.attempts.play(5, "Ann", None, DM)
        clock.now = day_end(DAY) + 1
        raced = last_move_first(back.host.attempts.store, player)
        assert await back.host.attempts.expire_overdue(5) is None
        att = await back.host.store.attempt(5, DAY.isoformat(), True)
        row = await back.store.get(att.game_id)
        assert raced and row.status == "over"
        assert await player.host.results.settle(row) is not None  # scored by its mover
        att = await back.host.store.attempt(5, DAY.isoformat(), True)
        assert (att.status, att.score is not None) == ("finished", True), att
        for p in (back, player):
            await p.store.close()
    asyncio.run(main())
