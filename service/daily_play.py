"""Hosting the daily challenge on top of the game service (no Discord here).

A daily attempt is an ordinary solo game of the game service, kept under a *slot* of its
own instead of a channel: one slot per user for the ranked attempt and one for practice
(`slot`), so it survives restarts, resumes from any device or server, and is played with
the very same commands, buttons, undo and refusals as a channel game. Where its posts go
(`settings["daily"]["post_channel"]`, the player's DMs) is the interface's business.

Fair play: the ranked attempt is claimed in the store in the same transaction that creates
its game (one per user per day, across every server and process; a crash leaves neither or
both); today's practice opens only once the ranked attempt is over; a score is always
recomputed from the stored log (`settle`), and ending an attempt closes its game in the same
transaction (resign, the day's end).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import os
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ai import LEVELS, make_player
from engine import Game, view
from store import (
    Attempt,
    AttemptTaken,
    DailyStore,
    GameRow,
    NewGame,
    Settings,
    StoreBusy,
    StoreUncertain,
    Tell,
    VersionConflict,
    daily_store,
)

from . import daily
from .daily import Challenge, Entry, Score, Standing
from .errors import ServiceError
from .games import GameService
from .outcomes import Outcome
from .tables import MAX_LIMIT_S

log = logging.getLogger("rr.daily")
PAR_LEVELS = ("greedy", "expert")
PAR_BUDGET_S = 0.25  # the expert's per-decision budget for par (a day job, not a player)
PAR_PLAYS = 10  # games each par AI plays of the day for its odds ("3 times in 10")
PAR_ODDS_BUDGET_S = 240.0  # no odds game starts after this; those played so far count
"""Measured on the 2-core machine with other work running (docs/daily.md): a greedy game
of the day takes about 1.3 s, an expert one (0.25 s a decision) 5–7 s, so ten of each take
about 75 s of one core, in one worker thread, once a day; the budget bounds a slow day."""
MEMBER_CHECKS = 50  # a server board asks Discord about at most this many players per look

Reach = Callable[[], Awaitable[None]]
"""The interface opens its way to the player (the DM) before anything is claimed; raising
leaves the attempt unclaimed, and the day's try with it."""

MemberCheck = Callable[[int], Awaitable[bool | None]]
"""Is this user a member of the board's server? True/False as Discord answered; None when
it could not tell (an error): not listed this time, asked again next time."""


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
    raced: bool = False  # resumed because another process started it a moment before


@dataclass(slots=True)
class Settled:
    attempt: Attempt
    score: Score
    share: str  # in English; `share_in` for the reader's language
    versus: str | None
    standing: Standing | None = None  # ranked attempts: the rank among today's finishers

    def share_in(self, lang: str) -> str:
        return daily.render_share(self.attempt.share, self.score, lang) or self.share


def par_seed(challenge: Challenge, run: int) -> int:
    """The AI's own seed for its `run`-th game of the day: run 0 is the par game shown and
    reviewed (the day's number, so a review can play it again), the others only count
    towards the odds. Public, like the AI's tie-breaks: never the day's key."""
    return challenge.number + run * 1_000_003


def ai_play(challenge: Challenge, level: str, run: int = 0) -> dict[str, Any]:
    """One AI's game of the challenge (run in a worker thread): its score, trace and action
    log (the review replays it phase by phase; service/daily_review.py). `run` picks the
    AI's search seed (`par_seed`): the odds are several runs of the same day."""

    bot = make_player(level, par_seed(challenge, run))
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
    return {"score": r.score.to_json(), "trace": r.defeats_per_round,
            "log": [[int(seat), str(text)] for seat, text in g.log]}


class DailyHost:
    def __init__(self, games: GameService, store: DailyStore, secret: bytes,
                 clock: Callable[[], float] | None = None) -> None:
        self.games = games
        self.store = store
        self.secret = secret
        self.clock = clock or games.clock
        self.keyed_from: dt.date | None = None  # set by `open` from the database
        self._par_jobs: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._odds_jobs: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.par_plays = PAR_PLAYS  # games per par AI for the odds (config: daily_par_plays)
        self._claims: dict[int, asyncio.Lock] = {}
        self._watchers: set[asyncio.Future[Any]] = set()
        self.par_levels: tuple[str, ...] | None = None  # None: PAR_LEVELS (tests: faster AIs)
        self._not_members: dict[tuple[str, int], set[int]] = {}  # (day, guild) → asked: no
        self.rescoring: asyncio.Future[int] | None = None  # `rescore_old`, started by `open`

    def _claiming(self, key: int) -> asyncio.Lock:
        """One start/resume of a slot at a time. Not the game service's lock of that key:
        starting the game takes that one itself (asyncio locks are not re-entrant)."""
        return self._claims.setdefault(key, asyncio.Lock())

    @classmethod
    async def open(cls, games: GameService, clock: Callable[[], float] | None = None,
                   secret: str | None = None) -> DailyHost:
        """The secret comes from RR_DAILY_SECRET, else is generated once and stored. A weak
        secret, or one that is not the secret the database was started with, raises
        daily.SecretError: the bot must not start (it would give away or change the days)."""
        ds = await daily_store(games.store).open()
        raw = secret if secret is not None else os.environ.get("RR_DAILY_SECRET")
        key = daily.check_secret(raw) if raw else await ds.secret(secrets.token_bytes(32))
        daily.check_fingerprint(key, await ds.fingerprint(daily.fingerprint(key)))
        host = cls(games, ds, key, clock)
        # The first day this release deals (keyed generator, weekly rhythm): today on a new
        # database or before anyone played today, else tomorrow — a day is one game for all.
        host.keyed_from = dt.date.fromisoformat(await ds.keyed_from(host.today().isoformat()))
        host.rescoring = asyncio.ensure_future(host.rescore_old())  # beside the start
        host._watchers.add(host.rescoring)
        host.rescoring.add_done_callback(host._watchers.discard)
        return host

    # ---- days --------------------------------------------------------------------------------
    def today(self) -> dt.date:
        return daily.day_of(self.clock())

    def challenge(self, day: dt.date | None = None) -> Challenge:
        return daily.challenge_for(self.secret, day or self.today(), self.keyed_from)

    def seconds_left(self) -> float:
        return daily.day_end(self.today()) - self.clock()

    # ---- playing -----------------------------------------------------------------------------
    async def play(self, user_id: int, name: str, guild_id: int | None, post_channel: int,
                   lang: str = "en", reach: Reach | None = None) -> Started:
        """Start or resume today's ranked attempt; after it, a clear refusal naming practice.

        The claim of the attempt and its whole game are one transaction
        (`DailyStore.start_daily`): a crash leaves either neither or both, complete. When
        another process started the same user's attempt a moment before, this one's
        transaction finds it taken and writes nothing; the user is then told the truth —
        the game is running in their DMs — and it is resumed (`Started.raced`).

        `reach` runs once the refusals are past and before anything is claimed or posted:
        a player Discord will not let the bot write to keeps the day's attempt (issue 18)."""
        day = self.today()
        ch = self.challenge(day)
        key = slot(user_id, True)
        await self.expire_overdue(user_id)  # yesterday's game must not pass for today's
        async with self._claiming(key):
            raced = False
            for _ in range(2):  # a lost race is read again once: the winner has committed
                att = await self.store.attempt(user_id, day.isoformat(), True)
                if att is not None and att.status != "playing":
                    raise self.done_today()
                if reach is not None:
                    await reach()
                    reach = None
                row = await self.games.store.open_game(key)
                if att is not None:
                    if guild_id is not None:
                        await self.store.seen_in(guild_id, user_id)
                    if row is not None and row.status == "active":
                        return await self._resume(row, att, ch, post_channel, raced)
                    if row is None and att.game_id is not None:
                        await self._ended(att)  # its game ended: it is no longer playable
                        raise self.done_today()
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
        as in `play`."""
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
        if reach is not None:
            await reach()
        ch = self.challenge(day)
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

    def done_today(self) -> ServiceError:
        """Today's ranked attempt is over: the refusal says where practice is (yesterday's
        challenge, or today's with its date) and when the next challenge opens."""
        today = self.today()
        return ServiceError.of("svc.daily_done", day=today.isoformat(),
                               ts=int(daily.day_end(today)), code="daily_done")

    async def _resume(self, row: GameRow, att: Attempt, ch: Challenge, post_channel: int,
                      raced: bool) -> Started:
        """The attempt's game in play. A game an older bot started without its daily
        settings (it crashed between its lobby and its settings) gets them now, and the
        attempt its game, so its posts, timing and scoring find them."""
        if not row.settings.get("daily"):
            row.settings["daily"] = {"day": ch.day.isoformat(), "ranked": att.ranked,
                                     "number": ch.number, "post_channel": post_channel}
            await self.games.store.set_settings(row.id, row.settings)
        if att.game_id != row.id:
            await self.store.set_game(att.user_id, att.day, att.ranked, row.id)
        await self.store.touch(row.id)  # typed commands in the DM mean this game now
        g = await self.games.tables.load(row)
        return Started(ch, row, g, att.ranked, None, await self.par(ch.day), raced)

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
                                options=ch.options)
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
        return Started(ch, out.row, out.game, ranked, out, await self.par(ch.day))

    async def _ended(self, att: Attempt) -> None:
        """Today's ranked attempt still playing while its game is no longer open. A finished
        game is scored by `settle` (once, however many ask). An abandoned one can only be an
        older bot's resign cut short by a crash: it ends as that resign now."""
        row = await self.games.store.get(att.game_id) if att.game_id is not None else None
        if row is None or row.status != "abandoned" or row.setup is None:
            return
        info = row.settings.get("daily") or {}
        r = daily.replay_score(row.setup, await self.games.store.log(row.id), resigned=True)
        par_score = daily.par_score(await self.par(dt.date.fromisoformat(att.day)))
        stored = daily.share_params(info.get("number", daily.number_of(
            dt.date.fromisoformat(att.day))), par_score, r.defeats_per_round)
        await self.store.end_attempt(att.user_id, att.day, True, "finished",
                                     r.score.to_json(), stored)

    def key_of(self, user_id: int, ranked_first: bool = True) -> list[int]:
        """The slots a user's play commands may mean outside a server channel."""
        both = [slot(user_id, True), slot(user_id, False)]
        return both if ranked_first else both[::-1]

    async def active_slot(self, user_id: int) -> int | None:
        """The daily game a typed command in a DM means. With one game in play, that one;
        with both (a past day's practice while today's ranked attempt is open), the one the
        player moved in, started or resumed (`/rr daily play|practice`) last — the game
        whose question is at the bottom of the DM (a tie: the ranked one). Buttons name
        their own game (`slot_of_game`). With none in play, the latest that ended."""
        slots = self.key_of(user_id)
        touched = await self.store.last_game_at(slots)  # moved in, started or resumed
        if touched:
            return max(slots, key=lambda k: (k in touched, touched.get(k, 0.0),
                                             k == slots[0]))
        latest = [await self.games.store.latest_game(k) for k in slots]
        found = [r for r in latest if r is not None]
        return max(found, key=lambda r: r.id).channel_id if found else None

    async def both_open(self, user_id: int) -> bool:
        """The ranked and the practice game are both in play (the DM holds two games)."""
        return len(await self.store.last_game_at(self.key_of(user_id))) == 2

    async def slot_of_game(self, user_id: int, game_id: int) -> int | None:
        """The slot of `game_id` when it is this user's daily game (a button carries its
        game): so a practice game's buttons reach the practice game while the ranked one
        is open. None when it is nobody's game of this user (someone else's, or gone)."""
        row = await self.games.store.get(game_id)
        if row is None or row.channel_id not in self.key_of(user_id):
            return None
        return row.channel_id

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
        par_score = daily.par_score(par)
        share = daily.share_line(info["number"], r.score, par_score, r.defeats_per_round)
        user = row.host_id
        stored = daily.share_params(info["number"], par_score, r.defeats_per_round)
        if not await self.store.finish(user, info["day"], bool(info["ranked"]), "finished",
                                       r.score.to_json(), stored):
            return None
        att = await self.store.attempt(user, info["day"], bool(info["ranked"]))
        assert att is not None
        rank = await self._standing(day, user) if info["ranked"] else None
        return Settled(att, r.score, share, daily.versus_par(r.score, par_score), rank)

    async def _standing(self, day: dt.date, user_id: int) -> Standing | None:
        """The user's rank among everyone who finished the day so far (the global board)."""
        return daily.standing(await self.leaderboard(day, None), user_id)

    async def resign(self, user_id: int) -> Settled:
        """The player gives today's ranked attempt up: scored from the stored log
        (replayed) in the resign band, below every loss (docs/daily.md), and the share line
        says so. It ends both streaks: a day given up is neither won nor played out.
        The game's end, its timers and the attempt's score are one transaction: a crash
        leaves the attempt in play or resigned, never the game gone with the day open."""
        await self.expire_overdue(user_id)
        key = slot(user_id, True)
        day = self.today().isoformat()
        par_score = daily.par_score(await self.par(self.today()))
        async with self._claiming(key), self.games.tables.lock(key):
            row = await self.games.store.open_game(key)
            info = (row.settings.get("daily") or {}) if row is not None else {}
            if row is None or row.status != "active" or info.get("day") != day:
                raise ServiceError("You have no ranked daily challenge in play to resign.",
                                   code="daily_none")
            log_ = await self.games.store.log(row.id)
            assert row.setup is not None
            r = daily.replay_score(row.setup, log_, resigned=True)
            stored = daily.share_params(info["number"], par_score, r.defeats_per_round)
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
        share = daily.share_line(info["number"], r.score, par_score, r.defeats_per_round)
        return Settled(att, r.score, share, daily.versus_par(r.score, par_score),
                       await self._standing(self.today(), user_id))

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
        day, and the slot is free for today's game. Returns the attempt it ended. The
        game's end and the attempt's are one transaction."""
        key = slot(user_id, True)
        row = await self.games.store.open_game(key)
        info = (row.settings.get("daily") or {}) if row is not None else {}
        if row is None or not info or self.clock() < daily.day_end(
                dt.date.fromisoformat(info["day"])):
            return None
        async with self.games.tables.lock(key):
            fresh = await self.games.store.get(row.id)
            if fresh is None or fresh.status not in ("active", "lobby"):
                return None
            ended = await self.store.end_attempt(user_id, info["day"], True, "unfinished",
                                                 None, None, game_id=row.id)
            if not ended:  # the attempt was closed, its game left open (an older bot)
                await self.games.store.set_status(row.id, "abandoned")
            self.games.tables.forget(row.id)
        return await self.store.attempt(user_id, info["day"], True) if ended else None

    async def close_day(self, day: dt.date) -> list[Attempt]:
        """At 00:00 UTC: the day's unfinished attempts end unfinished (R15 has no say: a
        hosting rule) and their games are closed, each attempt with its game and its
        player's notice (the daily outbox) in one transaction. Runs once per day: the stored flag is set after the last attempt is
        closed, so a crash in the middle of the list leaves the rest to the next pass
        (an attempt ends once however often it is closed); once set, a practice of that
        day's challenge started later is left alone."""
        if self.clock() < daily.day_end(day):
            return []
        await self.settle_all()
        if await self.store.day_flag(day.isoformat(), "closed"):
            return []
        closed = []
        for att in await self.store.playing(day.isoformat()):
            row = await self.games.store.get(att.game_id) if att.game_id is not None else None
            if row is not None and row.status in ("active", "lobby"):
                info = row.settings.get("daily") or {}
                # the ranked player is told in their DM, through the daily outbox (a
                # practice is no attempt of the day: nothing to tell)
                tell = Tell("time_up", int(info["post_channel"]), row.settings.get("lang"),
                            self.clock()) if att.ranked and info.get("post_channel") else None
                async with self.games.tables.lock(row.channel_id):
                    ended = await self.store.end_attempt(att.user_id, att.day, att.ranked,
                                                         "unfinished", None, None,
                                                         game_id=row.id, tell=tell)
                    self.games.tables.forget(row.id)
            else:
                ended = await self.store.end_attempt(att.user_id, att.day, att.ranked,
                                                     "unfinished", None, None)
            if ended:
                closed.append(att)
        await self.store.take_day_flag(day.isoformat(), "closed")
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
        pending: list[asyncio.Future[Any]] = [*self._par_jobs.values(),
                                              *self._odds_jobs.values(), *self._watchers]
        for f in pending:
            if not f.done():
                f.cancel()

    async def _par(self, day: dt.date) -> dict[str, Any]:
        known = await self.par(day)  # another process may have stored it meanwhile
        if known is not None:
            return known
        ch = self.challenge(day)
        par: dict[str, Any] = {}
        for level in self.par_levels or PAR_LEVELS:
            if level in LEVELS:
                par[level] = await asyncio.to_thread(ai_play, ch, level)
        await self.store.set_par(day.isoformat(), par)
        return par

    async def compute_odds(self, day: dt.date) -> dict[str, Any]:
        """The par with its odds: each par AI plays the day `par_plays` times (the par game
        and more search seeds), in a worker thread, and how often it won is stored beside
        its par game. The day job waits for it; a player never does (the par game alone is
        `compute_par`'s, stored first and shown at once). One job per day per process; a
        failed one is forgotten, so the next pass tries again."""
        par = await self.compute_par(day)
        if daily.par_odds(par) or not par:
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
        ch = self.challenge(day)
        deadline = time.monotonic() + PAR_ODDS_BUDGET_S
        counts: dict[str, tuple[int, int]] = {}
        levels = self.par_levels or PAR_LEVELS
        for level, entry in par.items():
            if level not in levels:  # a par stored by other AIs than this process plays
                continue
            try:
                won = Score.from_json(entry["score"]).won
            except (KeyError, TypeError, ValueError):
                continue  # a level whose par game cannot be read has no odds
            wins, plays = int(won), 1  # the par game is the first of the runs
            for run in range(1, max(1, self.par_plays)):
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
        fresh = await self.par(day) or par  # again: keep what a review stored meanwhile
        for level, (wins, plays) in counts.items():
            if isinstance(fresh.get(level), dict):
                fresh[level] = {**fresh[level], "wins": wins, "plays": plays}
        await self.store.set_par(day.isoformat(), fresh)
        log.info("par odds of %s: %s", day, {lv: f"{w}/{p}" for lv, (w, p) in counts.items()})
        return fresh

    async def leaderboard(self, day: dt.date, guild_id: int | None,
                          is_member: MemberCheck | None = None) -> list[tuple[int, Entry]]:
        """Finished ranked attempts, best first, one rank each (`daily.ranked`: the earlier
        finish breaks a tie); a day not yet over shows only what is finished.

        A server's board lists that server's members. Membership is known from the
        interactions a player made there (`seen_in`) and, for everyone else who finished
        the day, asked of Discord one player at a time (`is_member`: the REST member
        lookup, which needs no privileged intent), best first and at most
        `MEMBER_CHECKS` per look; a yes is stored, a no is remembered for the day."""
        board = daily.ranked(self._entries(await self.store.results(day.isoformat(), None)))
        if guild_id is None:
            return board
        known = await self.store.members(guild_id)
        if is_member is not None:
            known |= await self._check_members(day, guild_id, [e.user for _, e in board
                                                                if e.user not in known],
                                               is_member)
        return daily.ranked(e for _, e in board if e.user in known)

    async def _check_members(self, day: dt.date, guild_id: int, users: list[int],
                             is_member: MemberCheck) -> set[int]:
        for old in [k for k in self._not_members if k[0] != day.isoformat()]:
            del self._not_members[old]  # a "no" is remembered for one day's board only
        strangers = self._not_members.setdefault((day.isoformat(), guild_id), set())
        found: set[int] = set()
        asked = 0
        for user in users:
            if user in strangers:
                continue
            if asked == MEMBER_CHECKS:
                break
            asked += 1
            answer = await is_member(user)
            if answer:
                await self.store.seen_in(guild_id, user)
                found.add(user)
            elif answer is False:
                strangers.add(user)
        return found

    @staticmethod
    def _entries(attempts: list[Attempt]) -> list[Entry]:
        """The board's rows; a stored score that cannot be read is left out (and logged),
        never fatal to the board."""
        out = []
        for a in attempts:
            if a.score is None:
                continue
            try:
                score = Score.from_json(a.score)
            except ValueError:
                log.warning("daily %s user %s: unreadable score skipped", a.day, a.user_id)
                continue
            out.append(Entry(a.user_id, score, a.finished_at or a.started_at, a.name))
        return out

    async def stats(self, user_id: int) -> daily.Stats:
        results: dict[dt.date, Score | None] = {}
        for a in await self.store.history(user_id):
            if a.status == "finished" and a.score is not None:
                try:
                    results[dt.date.fromisoformat(a.day)] = Score.from_json(a.score)
                except ValueError:
                    log.warning("daily %s user %s: unreadable score skipped", a.day, user_id)
            elif a.status == "unfinished":
                results[dt.date.fromisoformat(a.day)] = None
        return daily.stats(results, self.today())

    async def rescore_old(self) -> int:
        """Scores stored by an older formula (v1: no single number) are recomputed from
        their games' stored logs, so every day's board compares like with like. Started by
        `open` in the background, newest days first, each replay in a worker thread (a
        deployment may hold thousands: the bot must not wait for them); idempotent, so a
        restart carries on (a rescored row is current and is not read again). Until then,
        and for a row whose game or log is gone, the v1 terms are read (`Score.from_json`:
        only the outcome, round and marks count). Returns how many were rescored."""
        done = 0
        try:
            for att in await self.store.old_scores():
                if att.game_id is None:
                    continue
                row = await self.games.store.get(att.game_id)
                if row is None or row.setup is None:
                    continue
                try:
                    r = await asyncio.to_thread(
                        daily.replay_score, row.setup, await self.games.store.log(row.id),
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
