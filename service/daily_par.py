"""The day's par: the AIs play the day's exact challenge in worker threads and the result is
stored once (`get`, `compute`, `ensure`); then its odds, how often each par AI wins the day
over several games (`odds`). Every score of the day is read against the par (docs/daily.md);
no player waits for it: a result told before it is known waits in the background, and the
day job computes it at 00:00 UTC."""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import hmac
import logging
import time
from typing import Any

from ai import LEVELS, Player, make_player
from engine import Game, view
from store import DailyStore

from . import daily_score
from .daily import Challenge
from .daily_calendar import Calendar
from .daily_score import Score

log = logging.getLogger("rr.daily")
PAR_LEVELS = ("greedy", "expert")
PAR_BUDGET_S = 0.25  # the expert's per-decision budget for par (a day job, not a player)
PAR_PLAYS = 10  # games each par AI plays of the day for its odds ("3 times in 10")
PAR_ODDS_BUDGET_S = 240.0  # no odds game starts after this; those played so far count
"""Measured on the 2-core machine with other work running (docs/daily.md): a greedy game
of the day takes about 1.3 s, an expert one (0.25 s a decision) 5–7 s, so ten of each take
about 75 s of one core, in one worker thread, once a day; the budget bounds a slow day."""


def par_seed(challenge: Challenge, run: int, *, secret: bool = True) -> int:
    """The AI's own seed for its `run`-th game of the day: run 0 is the par game shown and
    reviewed, the others only count towards the odds.

    Secret until the day closes: drawn from the day's key (a separate HMAC of it, so the
    seed tells nothing of the game's draws), which is published once the day is over. A
    seed anyone could compute (the day's number, as it was) let a player feed each view to
    the public greedy AI with the par's own tie-breaks and play the par game move for move:
    its very score, with no skill, on any day the card says greedy wins. Pars stored before
    their logs were kept replay with that public seed (`secret=False`, service/daily_review)."""
    if not secret:
        return challenge.number + run * 1_000_003
    digest = hmac.new(challenge.key, f"par {run}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:4], "big")


def play_out(challenge: Challenge, level: str, bot: Player) -> Game:
    """`bot`'s whole game of the challenge, as par plays it. The par passes its clock-capped
    AI, bench/rhythm.py a count-budget one: both must play the same bounded loop, or the
    bench would measure a different game from the one players are shown."""
    g = challenge.new_game(f"bot ({level})")
    for _ in range(20_000):  # bounded: a solo game has a few hundred decisions
        if g.over:
            break
        seat = g.waiting_for()[0]
        try:
            g.apply(seat, bot.choose(view(g.state, seat), seat))
        except Exception:  # an AI bug must not stop the day: it passes instead
            log.exception("par: %s failed on %s", level, challenge.day)
            g.apply(seat, "timeout")
    return g


def ai_play(challenge: Challenge, level: str, run: int = 0, *,
            secret: bool = True) -> dict[str, Any]:
    """One AI's game of the challenge (run in a worker thread): its score, trace and action
    log (the review replays it phase by phase; service/daily_review.py). `run` picks the
    AI's search seed (`par_seed`): the odds are several runs of the same day."""

    bot = make_player(level, par_seed(challenge, run, secret=secret))
    if hasattr(bot, "budget_s"):
        bot.budget_s = PAR_BUDGET_S
    g = play_out(challenge, level, bot)
    r = daily_score.replay_score(g.setup, g.log)
    return {"score": r.score.to_json(), "trace": r.defeats_per_round,
            "log": [[int(seat), str(text)] for seat, text in g.log]}


class DailyPar:
    """`levels`: the AIs that play par (None: PAR_LEVELS; config `daily_par_levels`, tests
    use faster AIs); `plays`: games per par AI for the odds (config `daily_par_plays`)."""

    def __init__(self, store: DailyStore, days: Calendar) -> None:
        self.store = store
        self.days = days
        self.levels: tuple[str, ...] | None = None
        self.plays = PAR_PLAYS
        self._par_jobs: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._odds_jobs: dict[str, asyncio.Future[dict[str, Any]]] = {}

    async def get(self, day: dt.date) -> dict[str, Any] | None:
        return await self.store.par(day.isoformat())

    async def compute(self, day: dt.date) -> dict[str, Any]:
        """The AIs play the day's exact challenge (in worker threads); stored once."""
        known = await self.get(day)
        if known is not None:
            return known
        return await asyncio.shield(self.ensure(day))

    def ensure(self, day: dt.date) -> asyncio.Future[dict[str, Any]]:
        """The day's par, under way in the background, never waited for here: the day job
        normally computes it at 00:00 UTC, but a bot started mid-day, or a player quicker
        than the job, must still get it. One job per day per process; a failed job is
        forgotten, so the next demand tries again."""
        key = day.isoformat()
        job = self._par_jobs.get(key)
        if job is None:
            job = asyncio.ensure_future(self._par(day))
            self._par_jobs[key] = job

            def done(f: asyncio.Future[dict[str, Any]]) -> None:
                if f.cancelled() or f.exception() is not None:
                    self._par_jobs.pop(key, None)
                    if not f.cancelled():
                        log.error("par of %s failed", key, exc_info=f.exception())
            job.add_done_callback(done)
        return job

    def close(self) -> None:
        """Stop the background work (a worker thread already playing finishes on its own)."""
        pending = [*self._par_jobs.values(), *self._odds_jobs.values()]
        for f in pending:
            if not f.done():
                f.cancel()

    async def _par(self, day: dt.date) -> dict[str, Any]:
        known = await self.get(day)  # another process may have stored it meanwhile
        if known is not None:
            return known
        ch = self.days.challenge(day)
        par: dict[str, Any] = {}
        for level in self.levels or PAR_LEVELS:
            if level in LEVELS:
                par[level] = await asyncio.to_thread(ai_play, ch, level)
        # another process may have computed the day too: the first par stored is the day's
        # (share lines quote it), never overwritten by a later one
        return await self.store.keep_par(day.isoformat(), par)

    async def odds(self, day: dt.date) -> dict[str, Any]:
        """The par with its odds: each par AI plays the day `plays` times (the par game
        and more search seeds), in a worker thread, and how often it won is stored beside
        its par game. The day job waits for it; a player never does (the par game alone is
        `compute`'s, stored first and shown at once). One job per day per process; a
        failed one is forgotten, so the next pass tries again."""
        par = await self.compute(day)
        if daily_score.par_odds(par) or not par:
            return par
        key = day.isoformat()
        job = self._odds_jobs.get(key)
        if job is None or (job.done() and (job.cancelled() or job.exception() is not None)):
            for old in [k for k, f in self._odds_jobs.items() if k != key and f.done()]:
                del self._odds_jobs[old]  # a day's job is kept only while it matters
            job = asyncio.ensure_future(self._odds(day, par))
            self._odds_jobs[key] = job
        return await asyncio.shield(job)

    async def _odds(self, day: dt.date, par: dict[str, Any]) -> dict[str, Any]:
        ch = self.days.challenge(day)
        deadline = time.monotonic() + PAR_ODDS_BUDGET_S
        counts: dict[str, tuple[int, int]] = {}
        levels = self.levels or PAR_LEVELS
        for level, entry in par.items():
            if level not in levels:  # a par stored by other AIs than this process plays
                continue
            try:
                won = Score.from_json(entry["score"]).won
            except (KeyError, TypeError, ValueError):
                continue  # a level whose par game cannot be read has no odds
            wins, plays = int(won), 1  # the par game is the first of the runs
            for run in range(1, max(1, self.plays)):
                if time.monotonic() >= deadline:
                    log.warning("par odds of %s: %s stopped after %d games (budget)",
                                day, level, plays)
                    break
                r = await asyncio.to_thread(ai_play, ch, level, run)
                wins += Score.from_json(r["score"]).won
                plays += 1
            counts[level] = (wins, plays)
        if not counts:
            return par
        fresh = await self.get(day) or par  # again: keep what a review stored meanwhile
        for level, (wins, plays) in counts.items():
            if isinstance(fresh.get(level), dict):
                fresh[level] = {**fresh[level], "wins": wins, "plays": plays}
        await self.store.set_par(day.isoformat(), fresh)
        log.info("par odds of %s: %s", day, {lv: f"{w}/{p}" for lv, (w, p) in counts.items()})
        return fresh
