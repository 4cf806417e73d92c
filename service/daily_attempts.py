"""A user's attempts at the day's challenge: the ranked one (`play`, `resign`, its end once
the day is over, `expire_overdue`) and practice (`practice`). A daily attempt is an ordinary
solo game of the game service, kept under the user's slot (service/daily_slots.py).

Fair play: the ranked attempt is claimed in the store in the same transaction that creates
its game (one per user per day, across every server and process; a crash leaves neither or
both); today's practice opens only once the ranked attempt is over; ending an attempt
closes its game in the same transaction (resign, the day's end)."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from engine import Game
from store import (
    Attempt,
    AttemptTaken,
    DailyStore,
    GameRow,
    NewGame,
    Settings,
    StoreBusy,
    StoreUncertain,
    VersionConflict,
)

from . import daily, daily_score
from .daily import Challenge
from .daily_board import DailyBoard
from .daily_calendar import Calendar
from .daily_par import DailyPar
from .daily_results import Settled
from .daily_slots import attempt_game, slot
from .errors import ServiceError
from .games import GameService
from .outcomes import Outcome
from .tables import MAX_LIMIT_S

Reach = Callable[[], Awaitable[None]]
"""The interface opens its way to the player (the DM) before anything is claimed; raising
leaves the attempt unclaimed, and the day's try with it."""


@dataclass(slots=True)
class Started:
    """What `/rr daily` led to: a new attempt (with its opening outcome) or a resumed one."""

    challenge: Challenge
    row: GameRow
    game: Game
    ranked: bool
    outcome: Outcome | None  # None: resumed
    par: dict[str, Any] | None
    raced: bool = False  # resumed because another process started it a moment before


class DailyAttempts:
    def __init__(self, games: GameService, store: DailyStore, days: Calendar, par: DailyPar,
                 board: DailyBoard) -> None:
        self.games = games
        self.store = store
        self.days = days
        self.par = par
        self.board = board
        self._claims: dict[int, asyncio.Lock] = {}

    async def play(self, user_id: int, name: str, guild_id: int | None, post_channel: int,
                   lang: str = "en", reach: Reach | None = None) -> Started:
        """Start or resume today's ranked attempt; after it, a clear refusal naming practice.
        The claim and its whole game are one transaction (`DailyStore.start_daily`): a crash
        leaves neither or both. Another process's start a moment before makes this one's
        transaction write nothing, and that game is resumed (`Started.raced`). `reach` runs
        before anything is claimed or posted (a player the bot cannot write to keeps the
        day's attempt, issue 18); the day is read again after it: a DM that opened after
        00:00 UTC starts the new day's attempt, not the closed day's."""
        day = await self.days.open_day(self.store)
        ch = self.days.challenge(day)
        key = slot(user_id, True)
        await self.expire_overdue(user_id)  # yesterday's game must not pass for today's
        async with self._claiming(key):
            raced = False
            for _ in range(3):  # a lost race is read again once: the winner has committed
                att = await self.store.attempt(user_id, day.isoformat(), True)
                if att is not None and att.status != "playing":
                    raise self.done_today(day)
                if reach is not None:
                    await reach()
                    reach = None
                    if (now := await self.days.open_day(self.store)) != day:  # the DM opened after
                        day = now  # 00:00 UTC: the new day's attempt, never the closed day's
                        ch = self.days.challenge(day)
                        await self.expire_overdue(user_id)
                        continue
                row = await self.games.store.open_game(key)
                if att is not None:
                    if guild_id is not None:
                        await self.store.seen_in(guild_id, user_id)
                    if row is not None and row.status == "active":
                        return await self._resume(row, att, ch, post_channel, raced)
                    if row is None and att.game_id is not None:
                        await self._ended(att)  # its game ended: it is no longer playable
                        raise self.done_today(day)
                # Nothing yet, or what an older bot left by crashing: start it. An open game
                # with no attempt of today is not today's (an attempt is claimed with or
                # before its game): it goes. Should a racing process have just committed
                # today's, the claim in the same transaction fails and nothing is written.
                replace = row.id if row is not None and (row.status == "lobby" or att is None) \
                    else None
                try:
                    return await self._start(user_id, name, guild_id, ch, post_channel, lang,
                                             True, replace)
                except (AttemptTaken, VersionConflict):
                    raced = True  # another process started it first: resume its game
            raise ServiceError.of("svc.daily_starting", code="daily_starting")

    async def practice(self, user_id: int, name: str, guild_id: int | None, post_channel: int,
                       lang: str = "en", day: dt.date | None = None,
                       reach: Reach | None = None) -> Started:
        """Replay a past day unranked; today's only after the ranked attempt is over. The old
        practice game's end, the new claim and the new game are one transaction. `reach`:
        as in `play`. Today is the day `play` claims (`Calendar.open_day`, for a clock behind)."""
        today = await self.days.open_day(self.store)
        day = day or today - dt.timedelta(days=1)
        if day > today:
            raise ServiceError.of("svc.daily_future", code="daily_future")
        if day < daily.EPOCH:
            raise ServiceError.of("svc.daily_past", day=daily.EPOCH.isoformat(),
                               code="daily_past")
        if day == today:
            att = await self.store.attempt(user_id, day.isoformat(), True)
            if att is None or att.status == "playing":
                raise ServiceError.of("svc.daily_practice_early",
                                   code="daily_practice_early")
        if reach is not None:
            await reach()
        ch = self.days.challenge(day)
        key = slot(user_id, False)
        async with self._claiming(key):
            raced = False
            for _ in range(2):
                current = await self.games.store.open_game(key)
                if current is not None and current.status == "active" and (
                        current.settings.get("daily") or {}).get("day") == day.isoformat():
                    att = await self.store.attempt(user_id, day.isoformat(), False)
                    if att is not None and att.status == "playing":
                        return await self._resume(current, att, ch, post_channel, raced)
                try:
                    return await self._start(user_id, name, guild_id, ch, post_channel, lang,
                                             False, current.id if current else None)
                except VersionConflict:
                    raced = True  # another process opened a practice a moment ago
            raise ServiceError.of("svc.daily_starting", code="daily_starting")

    async def resign(self, user_id: int) -> Settled:
        """The player gives today's ranked attempt up: scored from the stored log
        (replayed) in the resign band, below every loss (docs/daily.md), and the share line
        says so. It ends both streaks: a day given up is neither won nor played out.
        The game's end, its timers and the attempt's score are one transaction: a crash
        leaves the attempt in play or resigned, never the game gone with the day open."""
        await self.expire_overdue(user_id)
        key = slot(user_id, True)
        day = (today := await self.days.open_day(self.store)).isoformat()  # as `play` claims
        par_score = daily_score.par_score(await self.par.get(today))
        async with self._claiming(key), self.games.tables.lock(key):
            row = await self.games.store.open_game(key)
            info = (row.settings.get("daily") or {}) if row is not None else {}
            if row is None or row.status != "active" or info.get("day") != day:
                raise ServiceError("You have no ranked daily challenge in play to resign.",
                                   code="daily_none")
            log_ = await self.games.store.log(row.id)
            assert row.setup is not None
            r = daily_score.replay_score(row.setup, log_, resigned=True)
            number = daily.number_in(info, today)
            stored = daily_score.share_params(number, par_score, r.defeats_per_round)
            try:
                ended = await self.store.end_attempt(user_id, day, True, "finished",
                                                     r.score.to_json(), stored,
                                                     game_id=row.id, version=row.version)
            except VersionConflict as e:  # a move landed (another process) since the read
                raise ServiceError.of("svc.daily_resign_moved", code="daily_resign_moved") from e
            except StoreBusy as e:
                raise ServiceError.of("svc.busy", code="busy") from e
            finally:
                self.games.tables.forget(row.id)
            if not ended:  # the day's end closed it a moment ago
                raise ServiceError("You have no ranked daily challenge in play to resign.",
                                   code="daily_none")
        att = await self.store.attempt(user_id, day, True)
        assert att is not None
        share = daily_score.share_line(number, r.score, par_score, r.defeats_per_round)
        return Settled(att, r.score, share, daily_score.versus_par(r.score, par_score),
                       await self.board.standing(today, user_id))

    async def expire_overdue(self, user_id: int) -> Attempt | None:
        """The user's ranked attempt of a day already over, still in play, ends unfinished
        now (the day job's `close_day` for one player back before it ran): no move lands in a
        closed day. Returns the attempt it ended, with its game in one transaction."""
        key = slot(user_id, True)
        row = await self.games.store.open_game(key)
        info = (row.settings.get("daily") or {}) if row is not None else {}
        # a day that is no date (a damaged record) cannot be over: left to the day's close,
        # which goes by the attempt's own day (it failed every command in the player's DMs)
        day = daily.attempt_day(info["day"]) if info and isinstance(info.get("day"), str) \
            else None
        if row is None or day is None or await self.days.still_open(self.store, day):
            return None  # (a day another process closed is over here too: `open_day`)
        async with self.games.tables.lock(key):
            for _ in range(3):  # a game moving at every read: the next command expires it
                fresh = await self.games.store.get(row.id)
                if fresh is None or fresh.status not in ("active", "lobby"):
                    return None
                try:  # at the version read: a last move another process committed since is
                    # scored as it ended, not expired beside a game over (multi-process audit)
                    ended = await self.store.end_attempt(user_id, info["day"], True, "unfinished",
                                                         None, None, game_id=row.id,
                                                         version=fresh.version)
                    break
                except VersionConflict:
                    continue
                finally:
                    self.games.tables.forget(row.id)
            else:
                return None
            if not ended:  # the attempt was closed, its game left open (an older bot)
                await self.games.store.set_status(row.id, "abandoned")
        return await self.store.attempt(user_id, info["day"], True) if ended else None

    def done_today(self, today: dt.date) -> ServiceError:
        """Today's ranked attempt is over: the refusal says where practice is (yesterday's
        challenge, or today's with its date) and when the next challenge opens. `today`: the
        open day (`Calendar.open_day`), whose close is the next opening."""
        return ServiceError.of("svc.daily_done", day=today.isoformat(),
                               ts=int(daily.day_end(today)), code="daily_done")

    def _claiming(self, key: int) -> asyncio.Lock:
        """One start/resume of a slot at a time. Not the game service's lock of that key:
        starting the game takes that one itself (asyncio locks are not re-entrant)."""
        return self._claims.setdefault(key, asyncio.Lock())

    async def _resume(self, row: GameRow, att: Attempt, ch: Challenge, post_channel: int,
                      raced: bool) -> Started:
        """The attempt's game in play. One an older bot started without its daily settings
        (a crash between its lobby and its settings) gets them now, and the attempt its game.
        Loaded first: a game that cannot be played here (set aside, a newer release's) is
        refused with nothing written."""
        row, g = await self.games.tables.load_row(row)  # (the row it was verified on)
        if not row.settings.get("daily"):
            row.settings["daily"] = {"day": ch.day.isoformat(), "ranked": att.ranked,
                                     "number": ch.number, "post_channel": post_channel}
            await self.games.store.set_settings(row.id, row.settings)
        if att.game_id != row.id:
            await self.store.set_game(att.user_id, att.day, att.ranked, row.id)
        await self.store.touch(row.id)  # typed commands in the DM mean this game now
        return Started(ch, row, g, att.ranked, None, await self.par.get(ch.day), raced)

    async def _start(self, user_id: int, name: str, guild_id: int | None, ch: Challenge,
                     post_channel: int, lang: str, ranked: bool,
                     replace: int | None) -> Started:
        """Claim the attempt and open its game, started, with its daily settings, timers and
        announcement: one transaction. Raises AttemptTaken or VersionConflict (nothing
        written) when another request or process got there first."""
        settings: Settings = {
            "players": 1, "difficulty": ch.difficulty, "time_limit_s": MAX_LIMIT_S,
            "lang": lang, "daily": {"day": ch.day.isoformat(), "ranked": ranked,
                                    "number": ch.number, "post_channel": post_channel}}
        op = self.games.lobby.opening([name], settings, seed=ch.seed, rng_key=ch.rng_key,
                                options=ch.options, rules=ch.rules)
        game = NewGame(None, slot(user_id, ranked), user_id, [{"user": user_id, "name": name}],
                       settings, op.game.setup, op.game.to_json(), op.entries, op.timers,
                       op.notice)
        try:
            done, _ = await self.store.start_daily(user_id, ch.day.isoformat(), ranked, name,
                                                   guild_id, game, replace=replace)
        except StoreBusy as e:
            raise ServiceError.of("svc.busy", code="busy") from e
        except StoreUncertain as e:
            raise ServiceError.of("svc.uncertain", code="uncertain") from e
        if replace is not None:
            self.games.tables.forget(replace)
        out = self.games.lobby.opened(done, op)
        return Started(ch, out.row, out.game, ranked, out, await self.par.get(ch.day))

    async def _ended(self, att: Attempt) -> None:
        """Today's ranked attempt still playing while its game is no longer open. A finished
        game is scored by `DailyResults.settle` (once, however many ask). An abandoned one can only be an
        older bot's resign cut short by a crash: it ends as that resign now."""
        row = await attempt_game(self.games.store, att)
        if row is None or row.status != "abandoned" or row.setup is None:
            return
        info = row.settings.get("daily") or {}
        r = daily_score.replay_score(row.setup, await self.games.store.log(row.id), resigned=True)
        par_score = daily_score.par_score(await self.par.get(dt.date.fromisoformat(att.day)))
        stored = daily_score.share_params(info.get("number", daily.number_of(
            dt.date.fromisoformat(att.day))), par_score, r.defeats_per_round)
        await self.store.end_attempt(att.user_id, att.day, True, "finished",
                                     r.score.to_json(), stored)
