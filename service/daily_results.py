"""A daily attempt's result and the day's end: a finished game is scored from its stored log,
once (`settle`; `settle_all` at startup for a crash between the two), the day's unfinished
attempts end at 00:00 UTC (`close_day`), and scores of an older formula are recomputed from
their logs (`rescore_old`)."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from store import Attempt, DailyStore, GameRow, Tell, VersionConflict

from . import daily, daily_score
from .daily_board import DailyBoard
from .daily_calendar import Calendar
from .daily_par import DailyPar
from .daily_score import Score
from .daily_slots import attempt_game
from .daily_standings import Standing
from .games import GameService

log = logging.getLogger("rr.daily")


@dataclass(slots=True)
class Settled:
    attempt: Attempt
    score: Score
    share: str  # in English; `share_in` for the reader's language
    versus: str | None
    standing: Standing | None = None  # ranked attempts: the rank among today's finishers

    def share_in(self, lang: str) -> str:
        return daily_score.render_share(self.attempt.share, self.score, lang) or self.share


class DailyResults:
    def __init__(self, games: GameService, store: DailyStore, days: Calendar, par: DailyPar,
                 board: DailyBoard) -> None:
        self.games = games
        self.store = store
        self.days = days
        self.par = par
        self.board = board

    async def settle(self, row: GameRow) -> Settled | None:
        """Score a finished daily game from its stored log, once. None if not a daily game,
        not over, or already settled."""
        info = row.settings.get("daily")
        if not info or row.status != "over" or row.setup is None:
            return None
        day = daily.attempt_day(str(info.get("day"))) or await self._day_of_game(row)
        if day is None:
            return None
        log_ = await self.games.store.log(row.id)
        r = daily_score.replay_score(row.setup, log_)
        par = await self.par.get(day)
        if par is None:  # faster than the par: wait for it (worker threads, off the loop)
            try:
                par = await self.par.compute(day)
            except Exception:
                log.exception("par of %s: the result is told without it", day)
        par_score = daily_score.par_score(par)
        number = daily.number_in(info, day)
        share = daily_score.share_line(number, r.score, par_score, r.defeats_per_round)
        user = row.host_id
        stored = daily_score.share_params(number, par_score, r.defeats_per_round)
        ranked = daily.ranked_record(row.settings)
        if not await self.store.finish(user, day.isoformat(), ranked, "finished",
                                       r.score.to_json(), stored):
            return None
        att = await self.store.attempt(user, day.isoformat(), ranked)
        assert att is not None
        rank = await self.board.standing(day, user) if ranked else None
        return Settled(att, r.score, share, daily_score.versus_par(r.score, par_score), rank)

    async def _day_of_game(self, row: GameRow) -> dt.date | None:
        """The day of the attempt still playing `row`, for a game whose record lost its day
        (the fault-injection audit: scoring raised ValueError at every pass and the won
        game ended its day "unfinished"); None once no attempt plays it."""
        for att in await self.store.playing():
            if att.game_id == row.id and att.user_id == row.host_id:
                return daily.attempt_day(att.day)
        return None

    async def settle_all(self) -> list[Settled]:
        """Attempts whose game ended but were not scored (a crash between the two)."""
        out = []
        for att in await self.store.playing():
            row = await attempt_game(self.games.store, att)
            if row is None or row.status != "over":
                continue
            s = await self._settle_one(row)
            if s is not None:
                out.append(s)
        return out

    async def _settle_one(self, row: GameRow) -> Settled | None:
        """`settle` for a pass over many players: one damaged daily record (a day, a
        number) is its own fault, logged (the fault-injection audit: it stopped the day's
        close for every player); the store's trouble stops the pass for the next one."""
        try:
            return await self.settle(row)
        except self.games.store.faults:
            raise
        except Exception:
            log.exception("daily game %s could not be scored; left unscored", row.id)
            return None

    async def close_day(self, day: dt.date) -> list[Attempt]:
        """At 00:00 UTC: the day's unfinished attempts end unfinished (R15 has no say: a
        hosting rule) and their games are closed, each attempt with its game and its
        player's notice (the daily outbox) in one transaction. Runs once per day: the stored flag is set after the last attempt is
        closed, so a crash in the middle of the list leaves the rest to the next pass
        (an attempt ends once however often it is closed); once set, a practice of that
        day's challenge started later is left alone."""
        if self.days.clock() < daily.day_end(day):
            return []
        await self.settle_all()
        if await self.store.day_flag(day.isoformat(), "closed"):
            return []
        closed = []
        for att in await self.store.playing(day.isoformat()):
            if await self._close(att):
                closed.append(att)
        await self.store.take_day_flag(day.isoformat(), "closed")
        return closed

    async def _close(self, att: Attempt) -> bool:
        """One attempt of a closing day ends unfinished, with its open game. Its game's
        end is guarded by the version read: a last move another process committed since
        (answered through it a moment before 00:00 UTC) ended the game, so the attempt is
        scored as it ended instead (the multi-process audit: it was ended 'unfinished'
        beside a game that was over, and the player's score refused as too late)."""
        for _ in range(3):  # a game still moving at every read: left to the next pass
            row = await attempt_game(self.games.store, att)
            if row is not None and row.status == "over":
                await self._settle_one(row)  # (scored, not closed: not in the list)
                return False
            if row is None or row.status not in ("active", "lobby"):
                return await self.store.end_attempt(att.user_id, att.day, att.ranked,
                                                    "unfinished", None, None)
            info = row.settings.get("daily") or {}
            # the ranked player is told in their DM, through the daily outbox (a practice
            # is no attempt of the day: nothing to tell)
            channel = _post_channel(info)
            tell = Tell("time_up", channel, row.settings.get("lang"),
                        self.days.clock()) if att.ranked and channel else None
            async with self.games.tables.lock(row.channel_id):
                try:
                    return await self.store.end_attempt(
                        att.user_id, att.day, att.ranked, "unfinished", None, None,
                        game_id=row.id, version=row.version, tell=tell)
                except VersionConflict:
                    continue
                finally:
                    self.games.tables.forget(row.id)
        return False

    async def rescore_old(self) -> int:
        """Scores stored by an older formula (v1: no single number) are recomputed from
        their games' stored logs, so every day's board compares like with like. Started by
        `DailyHost.open` in the background, newest days first, each replay in a worker thread (a
        deployment may hold thousands: the bot must not wait for them); idempotent, so a
        restart carries on (a rescored row is current and is not read again). Until then,
        and for a row whose game or log is gone, the v1 terms are read (`Score.from_json`:
        only the outcome, round and marks count). Returns how many were rescored."""
        done = 0
        try:
            for att in await self.store.old_scores():
                row = await attempt_game(self.games.store, att)
                if row is None or row.setup is None:
                    continue
                try:
                    r = await asyncio.to_thread(
                        daily_score.replay_score, row.setup, await self.games.store.log(row.id),
                        resigned=row.status != "over")
                except Exception:  # a damaged log is that row's problem, never the start's
                    log.warning("daily %s user %s: old score kept (log not replayable)",
                                att.day, att.user_id, exc_info=True)
                    continue
                if await self.store.rescore(att.user_id, att.day, att.ranked, r.score.to_json()):
                    done += 1
        except Exception:  # the start goes on: the rest is rescored at the next one
            log.exception("daily: rescoring older scores stopped after %d", done)
        if done:
            log.info("daily: %d scores of the older formula recomputed from their logs", done)
        return done


def _post_channel(info: Mapping[str, Any]) -> int | None:
    """Where a daily game's player is told, or None for a damaged record (the day's close
    still ends the attempt, untold, instead of stopping for every player)."""
    try:
        return int(info["post_channel"]) if info.get("post_channel") else None
    except (TypeError, ValueError):
        log.warning("a daily game's post channel is unreadable: %r", info.get("post_channel"))
        return None
