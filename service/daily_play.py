"""Hosting the daily challenge on top of the game service (no Discord here).

A daily attempt is an ordinary solo game of the game service, kept under a *slot* of its
own instead of a channel: one slot per user for the ranked attempt and one for practice
(`slot`), so it survives restarts, resumes from any device or server, and is played with
the very same commands, buttons, undo and refusals as a channel game. Where its posts go
(`settings["daily"]["post_channel"]`, the player's DMs) is the interface's business.

Fair play: the ranked attempt is claimed in the store before its game exists (one per user
per day, across every server and process); today's practice opens only once the ranked
attempt is over; a score is always recomputed from the stored log (`settle`).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine import Game, view
from store import GameRow
from store.daily import Attempt, DailyStore, daily_store

from . import daily
from .daily import Challenge, Score
from .games import MAX_LIMIT_S, GameService, Outcome, ServiceError

log = logging.getLogger("rr.daily")
PAR_LEVELS = ("greedy", "expert")
PAR_BUDGET_S = 0.25  # the expert's per-decision budget for par (a day job, not a player)


def slot(user_id: int, ranked: bool) -> int:
    """The game key of a user's ranked or practice attempt: negative, so it can never be a
    Discord channel id."""
    return -(2 * user_id + (0 if ranked else 1))


@dataclass(slots=True)
class Started:
    """What `/rr daily` led to: a new attempt (with its opening outcome) or a resumed one."""

    challenge: Challenge
    row: GameRow
    game: Game
    ranked: bool
    outcome: Outcome | None  # None: resumed
    par: dict[str, Any] | None


@dataclass(slots=True)
class Settled:
    attempt: Attempt
    score: Score
    share: str  # in English; `share_in` for the reader's language
    versus: str | None

    def share_in(self, lang: str) -> str:
        return daily.render_share(self.attempt.share, self.score, lang) or self.share


def _ai_play(challenge: Challenge, level: str) -> dict[str, Any]:
    """One AI's game of the challenge (run in a worker thread): its score and trace."""
    from ai import make_player  # the AI sits beside the engine; only the day job needs it

    bot = make_player(level, challenge.seed)
    if hasattr(bot, "budget_s"):
        bot.budget_s = PAR_BUDGET_S
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
    r = daily.replay_score(g.setup, g.log)
    return {"score": r.score.to_json(), "trace": r.defeats_per_round}


class DailyHost:
    def __init__(self, games: GameService, store: DailyStore, secret: bytes,
                 clock: Callable[[], float] | None = None) -> None:
        self.games = games
        self.store = store
        self.secret = secret
        self.clock = clock or games.clock
        self._par_jobs: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._claims: dict[int, asyncio.Lock] = {}
        self._watchers: set[asyncio.Task[None]] = set()
        self.par_levels: tuple[str, ...] | None = None  # None: PAR_LEVELS (tests: faster AIs)

    def _claiming(self, key: int) -> asyncio.Lock:
        """One start/resume of a slot at a time. Not the game service's lock of that key:
        starting the game takes that one itself (asyncio locks are not re-entrant)."""
        return self._claims.setdefault(key, asyncio.Lock())

    @classmethod
    async def open(cls, games: GameService, clock: Callable[[], float] | None = None,
                   secret: str | None = None) -> DailyHost:
        """The secret comes from RR_DAILY_SECRET, else is generated once and stored."""
        ds = await daily_store(games.store).open()
        raw = secret if secret is not None else os.environ.get("RR_DAILY_SECRET")
        key = raw.encode() if raw else await ds.secret(secrets.token_bytes(32))
        return cls(games, ds, key, clock)

    # ---- days --------------------------------------------------------------------------------
    def today(self) -> dt.date:
        return daily.day_of(self.clock())

    def challenge(self, day: dt.date | None = None) -> Challenge:
        return daily.challenge_for(self.secret, day or self.today())

    def seconds_left(self) -> float:
        return daily.day_end(self.today()) - self.clock()

    # ---- playing -----------------------------------------------------------------------------
    async def play(self, user_id: int, name: str, guild_id: int | None, post_channel: int,
                   lang: str = "en") -> Started:
        """Start or resume today's ranked attempt; after it, a clear refusal naming practice."""
        day = self.today()
        ch = self.challenge(day)
        key = slot(user_id, True)
        await self.expire_overdue(user_id)  # yesterday's game must not pass for today's
        async with self._claiming(key):
            att = await self.store.attempt(user_id, day.isoformat(), True)
            if att is not None and att.status != "playing":
                raise ServiceError.of("svc.daily_done", code="daily_done")
            if guild_id is not None:
                await self.store.seen_in(guild_id, user_id)
            if att is None:
                att = await self.store.claim(user_id, day.isoformat(), True, name, guild_id)
                if att is None:  # another delivery/process claimed it a moment ago
                    raise ServiceError.of("svc.daily_starting", code="stale")
            resumed = await self._resume(key, ch, True)
            if resumed is not None:
                if att.game_id is None:
                    await self.store.set_game(user_id, day.isoformat(), True, resumed.row.id)
                return resumed
            started = await self._start(key, user_id, name, ch, post_channel, lang, True)
            await self.store.set_game(user_id, day.isoformat(), True, started.row.id)
            return started

    async def practice(self, user_id: int, name: str, guild_id: int | None, post_channel: int,
                       lang: str = "en", day: dt.date | None = None) -> Started:
        """Replay a past day unranked; today's only after the ranked attempt is over."""
        today = self.today()
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
        ch = self.challenge(day)
        key = slot(user_id, False)
        async with self._claiming(key):
            current = await self.games.store.open_game(key)
            if current is not None:
                same = (current.settings.get("daily") or {}).get("day") == day.isoformat()
                if same:
                    resumed = await self._resume(key, ch, False)
                    if resumed is not None:
                        return resumed
                await self.games.store.set_status(current.id, "abandoned")
                self.games._forget(current.id)
            await self.store.claim(user_id, day.isoformat(), False, name, guild_id)
            started = await self._start(key, user_id, name, ch, post_channel, lang, False)
            await self.store.set_game(user_id, day.isoformat(), False, started.row.id)
            return started

    async def _resume(self, key: int, ch: Challenge, ranked: bool) -> Started | None:
        row = await self.games.store.open_game(key)
        if row is None:
            return None
        if row.status == "lobby":  # a crash between the lobby and the start: start it now
            out = await self._begin(row, ch)
            return Started(ch, out.row, out.game, ranked, out, await self.par(ch.day))
        g = await self.games.load(row)
        return Started(ch, row, g, ranked, None, await self.par(ch.day))

    async def _start(self, key: int, user_id: int, name: str, ch: Challenge, post_channel: int,
                     lang: str, ranked: bool) -> Started:
        await self.games.new_lobby(None, key, user_id, name, players=1,
                                   difficulty=ch.difficulty, time_limit_s=MAX_LIMIT_S, lang=lang)
        row = await self.games.store.open_game(key)
        assert row is not None
        row.settings["daily"] = {"day": ch.day.isoformat(), "ranked": ranked,
                                 "number": ch.number, "post_channel": post_channel}
        await self.games.store.set_settings(row.id, row.settings)
        out = await self._begin(row, ch)
        return Started(ch, out.row, out.game, ranked, out, await self.par(ch.day))

    async def _begin(self, row: GameRow, ch: Challenge) -> Outcome:
        return await self.games.start(row.channel_id, row.host_id, seed=ch.seed,
                                      options=ch.options)

    def key_of(self, user_id: int, ranked_first: bool = True) -> list[int]:
        """The slots a user's play commands may mean outside a server channel."""
        both = [slot(user_id, True), slot(user_id, False)]
        return both if ranked_first else both[::-1]

    async def active_slot(self, user_id: int) -> int | None:
        """The daily game a command in a DM means: the ranked attempt while it is being
        played, else the practice game."""
        for key in self.key_of(user_id):
            row = await self.games.store.open_game(key)
            if row is not None and row.status == "active":
                return key
        latest = [await self.games.store.latest_game(k) for k in self.key_of(user_id)]
        found = [r for r in latest if r is not None]
        return max(found, key=lambda r: r.id).channel_id if found else None

    # ---- results ------------------------------------------------------------------------------
    async def settle(self, row: GameRow) -> Settled | None:
        """Score a finished daily game from its stored log, once. None if not a daily game,
        not over, or already settled."""
        info = row.settings.get("daily")
        if not info or row.status != "over" or row.setup is None:
            return None
        log_ = await self.games.store.log(row.id)
        r = daily.replay_score(row.setup, log_)
        day = dt.date.fromisoformat(info["day"])
        par = await self.par(day)
        if par is None:  # faster than the par: wait for it (worker threads, off the loop)
            try:
                par = await self.compute_par(day)
            except Exception:
                log.exception("par of %s: the result is told without it", day)
        par_score = _par_score(par)
        par_rounds = par_score.rounds if par_score else None
        share = daily.share_line(info["number"], r.score, par_rounds, r.defeats_per_round)
        user = row.host_id
        stored = daily.share_params(info["number"], par_rounds, r.defeats_per_round)
        if not await self.store.finish(user, info["day"], bool(info["ranked"]), "finished",
                                       r.score.to_json(), stored):
            return None
        att = await self.store.attempt(user, info["day"], bool(info["ranked"]))
        assert att is not None
        return Settled(att, r.score, share, daily.versus_par(r.score, par_score))

    async def resign(self, user_id: int) -> Settled:
        """The player gives today's ranked attempt up: it ends as a loss at the round
        reached, scored from the stored log (replayed), ranked after every win. It is a
        finished attempt, so the streak holds (a streak counts days played, not won)."""
        await self.expire_overdue(user_id)
        key = slot(user_id, True)
        day = self.today().isoformat()
        async with self._claiming(key), self.games.lock(key):
            row = await self.games.store.open_game(key)
            info = (row.settings.get("daily") or {}) if row is not None else {}
            if row is None or row.status != "active" or info.get("day") != day:
                raise ServiceError("You have no ranked daily challenge in play to resign.",
                                   code="daily_none")
            log_ = await self.games.store.log(row.id)
            assert row.setup is not None
            r = daily.replay_score(row.setup, log_, resigned=True)
            await self.games.store.set_status(row.id, "abandoned")
            self.games._forget(row.id)
        par_score = _par_score(await self.par(self.today()))
        par_rounds = par_score.rounds if par_score else None
        stored = daily.share_params(info["number"], par_rounds, r.defeats_per_round)
        await self.store.finish(user_id, day, True, "finished", r.score.to_json(), stored)
        att = await self.store.attempt(user_id, day, True)
        assert att is not None
        share = daily.share_line(info["number"], r.score, par_rounds, r.defeats_per_round)
        return Settled(att, r.score, share, daily.versus_par(r.score, par_score))

    async def settle_all(self) -> list[Settled]:
        """Attempts whose game ended but were not scored (a crash between the two)."""
        out = []
        for att in await self.store.playing():
            if att.game_id is None:
                continue
            row = await self.games.store.get(att.game_id)
            if row is not None and row.status == "over":
                s = await self.settle(row)
                if s is not None:
                    out.append(s)
        return out

    async def expire_overdue(self, user_id: int) -> Attempt | None:
        """The user's ranked attempt of a day already over, still in play, ends unfinished
        now. The day job does this for everyone once a pass (`close_day`); this is for the
        player who comes back after 00:00 UTC before it ran: no move may land in a closed
        day, and the slot is free for today's game. Returns the attempt it ended."""
        key = slot(user_id, True)
        row = await self.games.store.open_game(key)
        info = (row.settings.get("daily") or {}) if row is not None else {}
        if row is None or not info or self.clock() < daily.day_end(
                dt.date.fromisoformat(info["day"])):
            return None
        async with self.games.lock(key):
            fresh = await self.games.store.get(row.id)
            if fresh is None or fresh.status not in ("active", "lobby"):
                return None
            await self.games.store.set_status(row.id, "abandoned")
            self.games._forget(row.id)
        if not await self.store.finish(user_id, info["day"], True, "unfinished", None, None):
            return None
        return await self.store.attempt(user_id, info["day"], True)

    async def close_day(self, day: dt.date) -> list[Attempt]:
        """At 00:00 UTC: the day's unfinished attempts end unfinished (R15 has no say: a
        hosting rule) and their games are closed. Runs once per day (a stored flag)."""
        if self.clock() < daily.day_end(day):
            return []
        await self.settle_all()
        if not await self.store.take_day_flag(day.isoformat(), "closed"):
            return []
        closed = []
        for att in await self.store.playing(day.isoformat()):
            if await self.store.finish(att.user_id, att.day, att.ranked, "unfinished", None,
                                       None):
                closed.append(att)
            if att.game_id is not None:
                row = await self.games.store.get(att.game_id)
                if row is not None and row.status == "active":
                    async with self.games.lock(row.channel_id):
                        await self.games.store.set_status(row.id, "abandoned")
                        self.games._forget(row.id)
        return closed

    async def par(self, day: dt.date) -> dict[str, Any] | None:
        return await self.store.par(day.isoformat())

    async def compute_par(self, day: dt.date) -> dict[str, Any]:
        """The AIs play the day's exact challenge (in worker threads); stored once."""
        known = await self.par(day)
        if known is not None:
            return known
        return await asyncio.shield(self.ensure_par(day))

    def ensure_par(self, day: dt.date) -> asyncio.Future[dict[str, Any]]:
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

    def watch(self, coro: Any) -> None:
        """Run `coro` (an interface's follow-up, e.g. showing the par once known) beside
        the request that started it; cancelled at `close`."""
        task = asyncio.ensure_future(coro)
        self._watchers.add(task)
        task.add_done_callback(self._watchers.discard)

    def close(self) -> None:
        """Stop the background work (a worker thread already playing finishes on its own)."""
        pending: list[asyncio.Future[Any]] = [*self._par_jobs.values(), *self._watchers]
        for f in pending:
            if not f.done():
                f.cancel()

    async def _par(self, day: dt.date) -> dict[str, Any]:
        from ai import LEVELS

        known = await self.par(day)  # another process may have stored it meanwhile
        if known is not None:
            return known
        ch = self.challenge(day)
        par: dict[str, Any] = {}
        for level in self.par_levels or PAR_LEVELS:
            if level in LEVELS:
                par[level] = await asyncio.to_thread(_ai_play, ch, level)
        await self.store.set_par(day.isoformat(), par)
        return par

    async def leaderboard(self, day: dt.date, guild_id: int | None
                          ) -> list[tuple[int, Attempt, Score]]:
        """Finished ranked attempts, best first, ties sharing a rank; a day not yet over
        shows only what is finished (unfinished attempts have no score)."""
        atts = {a.user_id: a for a in await self.store.results(day.isoformat(), guild_id)}
        rows = daily.ranked((u, s) for u, a in atts.items() if (s := score_of(a)) is not None)
        return [(rank, atts[u], s) for rank, u, s in rows]

    async def stats(self, user_id: int) -> daily.Stats:
        results: dict[dt.date, Score | None] = {}
        for a in await self.store.history(user_id):
            try:
                day = dt.date.fromisoformat(a.day)
            except (TypeError, ValueError):
                log.warning("daily attempt of user %s: its day %r could not be read; left out",
                            a.user_id, a.day)
                continue
            if a.status == "finished" and (score := score_of(a)) is not None:
                results[day] = score
            elif a.status == "unfinished":
                results[day] = None
        return daily.stats(results, self.today())


def score_of(att: Attempt) -> Score | None:
    """The score of a stored attempt; None when it has none (not finished) or when its
    stored score cannot be read — then it is reported and left out of leaderboards,
    announcements and stats, instead of failing them for everyone who would see it."""
    if att.score is None:  # none, or not JSON (the store reported it)
        return None
    try:
        return Score.from_json(att.score)
    except (KeyError, TypeError, ValueError) as e:
        log.warning("daily attempt of user %s on %s: its stored score could not be read "
                    "(%s); left out of leaderboards and stats", att.user_id, att.day, e)
        return None


def _par_score(par: dict[str, Any] | None) -> Score | None:
    """The best AI result of the day: the par a player is measured against (an entry that
    cannot be read is reported and left out)."""
    scores = []
    for level, p in (par or {}).items():
        try:
            scores.append(Score.from_json(p["score"]))
        except (KeyError, TypeError, ValueError) as e:
            log.warning("par of level %s could not be read (%s); left out", level, e)
    return min(scores) if scores else None
