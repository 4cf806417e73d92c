"""Looking back at past daily challenges: the review of a closed day and a player's history.

A day is reviewed only once it has closed (00:00 UTC): before that, the bots' games and
the scores would give the day away. The review holds the caller's ranked game and the par
games, each as setup + action log, which `service/replay.py` turns into phase frames (R15:
replaying the log rebuilds every phase exactly), and the day's finished scores for the
distribution chart.

The par games' logs are stored with the par (`ai_play`: the par JSON of `daily_days`, both
backends; no schema change). Days whose par was stored before the logs were kept get theirs
recomputed on the first review: the AIs play the day again from the day's key and their
own seeds, and the new game is used — and stored — only if it reaches exactly the stored
result (same outcome, rounds, monsters defeated per round and points). Greedy always does
(it has no clock); the expert's search has a wall-clock cap, so on a loaded machine its
replay may choose differently: then its game is said to be unavailable rather than shown
as something the par never was.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from store import Attempt

from . import daily, daily_score, daily_standings
from .daily import Challenge
from .daily_par import PAR_LEVELS, ai_play
from .daily_play import DailyHost
from .daily_score import Score
from .daily_slots import attempt_game
from .daily_standings import Standing
from .errors import ServiceError

log = logging.getLogger("rr.daily")
ME = "me"  # the caller's own game among the reviewed ones (the others: AI levels)
HISTORY_PAGE = 10


@dataclass(frozen=True, slots=True)
class Played:
    """One game of the day to step through: the caller's (`ME`) or an AI level's."""

    who: str
    setup: Mapping[str, Any]
    log: list[list[Any]]
    score: Score | None


@dataclass(slots=True)
class Review:
    """A closed day as the caller may look back at it."""

    challenge: Challenge
    games: dict[str, Played]  # the caller's first (if they played), then the par levels
    missing: list[str]  # par levels whose game cannot be shown (see the module docstring)
    scores: list[int]  # every finished ranked attempt's points (the distribution)
    mine: Score | None  # the caller's ranked result (None: not finished)
    status: str | None  # the caller's ranked attempt: finished / unfinished / None (none)
    standing: Standing | None
    par: dict[str, Score] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Day:
    """One row of a player's history: a day of theirs and how it went."""

    day: dt.date
    status: str  # finished / unfinished / playing
    score: Score | None
    standing: Standing | None

    @property
    def number(self) -> int:
        return daily.number_of(self.day)


async def closed_day(host: DailyHost, day: dt.date | None) -> dt.date:
    """The day to review (default: yesterday); a refusal for one still open — today's
    review would give the day away — or before the first challenge. Today is the day `play`
    claims (`Calendar.open_day`): with the clock behind the day's close, the day the store
    closed was refused as still open, and "yesterday" was the day before it."""
    today = await host.days.open_day(host.store)  # as `play` claims: every day before is closed
    day = day or today - dt.timedelta(days=1)
    if day < daily.EPOCH:
        raise ServiceError.of("svc.daily_past", day=daily.EPOCH.isoformat(), code="daily_past")
    if day > today:  # before its end is computed: the calendar's last day has no next one
        raise ServiceError.of("svc.daily_future", code="daily_future")
    if day == today:
        raise ServiceError.of("svc.daily_review_open", n=daily.number_of(day),
                              ts=int(daily.day_end(day)), code="daily_review_open")
    return day


def _score(att: Attempt | None) -> Score | None:
    if att is None or att.score is None:
        return None
    try:
        return Score.from_json(att.score)
    except ValueError:
        log.warning("daily %s user %s: unreadable score skipped", att.day, att.user_id)
        return None


def _same_result(stored: Mapping[str, Any], again: Mapping[str, Any]) -> bool:
    """Whether a replayed par game is the stored one: the same outcome, rounds, defeats per
    round and (for a current score) points."""
    try:
        old, new = Score.from_json(stored["score"]), Score.from_json(again["score"])
    except (KeyError, ValueError):
        return False
    if (old.outcome, old.rounds) != (new.outcome, new.rounds):
        return False
    if stored.get("trace") is not None and stored["trace"] != again.get("trace"):
        return False
    return old.version < daily_score.SCORE_VERSION or old.points == new.points


_replaying: weakref.WeakKeyDictionary[DailyHost, dict[str, asyncio.Lock]] = \
    weakref.WeakKeyDictionary()


async def par_logs(host: DailyHost, day: dt.date) -> dict[str, list[list[Any]] | None]:
    """Each par level's action log (None: not available). Logs missing from an older par
    are recomputed in worker threads, once per day per process at a time, and kept when
    they match (module docstring); a replay that did not match is remembered in the par
    (`"replay": "differs"`), so no later review plays it again."""
    par = await host.par.get(day) or {}
    if any(isinstance(e, dict) and "log" not in e and "replay" not in e for e in par.values()):
        locks = _replaying.setdefault(host, {})
        async with locks.setdefault(day.isoformat(), asyncio.Lock()):
            par = await _replay_par(host, day)
    out: dict[str, list[list[Any]] | None] = {}
    for level in sorted(par, key=lambda lv: (PAR_LEVELS + (lv,)).index(lv)):
        entry = par[level]
        if isinstance(entry, dict):
            out[level] = entry.get("log")
    return out


async def _replay_par(host: DailyHost, day: dt.date) -> dict[str, Any]:
    par = await host.par.get(day) or {}  # again: another review may have done it meanwhile
    changed = False
    for level, entry in par.items():
        if not isinstance(entry, dict) or "log" in entry or "replay" in entry:
            continue
        try:
            # stored before logs were kept, so before the par seed was secret: the public one
            again = await asyncio.to_thread(ai_play, host.days.challenge(day), level, 0,
                                            secret=False)
        except Exception:
            log.exception("par of %s: the %s game could not be replayed", day, level)
            again = {}
        if again and _same_result(entry, again):
            entry["log"] = again["log"]
        else:
            log.info("par of %s: the %s game differs when played again; not shown",
                     day, level)
            entry["replay"] = "differs"
        changed = True
    if changed:
        await host.store.set_par(day.isoformat(), par)
    return par


async def own_game(host: DailyHost, user_id: int, day: dt.date) -> Played | None:
    """The caller's ranked game of the day as stored (None: they did not start one)."""
    att = await host.store.attempt(user_id, day.isoformat(), True)
    row = await attempt_game(host.games.store, att) if att is not None else None
    if row is None or row.setup is None:
        return None
    return Played(ME, row.setup, await host.games.store.log(row.id), _score(att))


async def _par_game(host: DailyHost, day: dt.date, level: str,
                    got: list[list[Any]] | None) -> Played | None:
    if got is None:
        return None
    par = await host.par.get(day) or {}
    setup = host.days.challenge(day).new_game(bot_name(level)).setup
    try:
        score: Score | None = Score.from_json(par[level]["score"])
    except (KeyError, TypeError, ValueError):
        score = None
    return Played(level, setup, got, score)


def bot_name(level: str) -> str:
    """The name the par AI played under (`ai_play`): its setup is rebuilt with it."""
    return f"bot ({level})"


async def games_of(host: DailyHost, user_id: int,
                   day: dt.date) -> tuple[dict[str, Played], list[str]]:
    """The games of a closed day the caller may step through — their own first, then the
    par levels' — and the par levels whose game is not available."""
    day = await closed_day(host, day)
    games: dict[str, Played] = {}
    mine = await own_game(host, user_id, day)
    if mine is not None:
        games[ME] = mine
    missing = []
    for level, got in (await par_logs(host, day)).items():
        played = await _par_game(host, day, level, got)
        if played is None:
            missing.append(level)
        else:
            games[level] = played
    return games, missing


async def review(host: DailyHost, user_id: int, day: dt.date | None) -> Review:
    """Everything the review of a closed day shows the caller."""
    day = await closed_day(host, day)
    games, missing = await games_of(host, user_id, day)
    board = await host.board.leaderboard(day, None)
    att = await host.store.attempt(user_id, day.isoformat(), True)
    par: dict[str, Score] = {}
    for level, entry in (await host.par.get(day) or {}).items():
        try:
            par[level] = Score.from_json(entry["score"])
        except (KeyError, TypeError, ValueError):
            continue
    return Review(host.days.challenge(day), games, missing, [e.score.points for _, e in board],
                  _score(att) if att is not None and att.status == "finished" else None,
                  att.status if att is not None else None, daily_standings.standing(board, user_id),
                  par)


async def history(host: DailyHost, user_id: int, page: int = 0,
                  size: int = HISTORY_PAGE) -> tuple[list[Day], int, int]:
    """One page of the caller's ranked days, newest first, each with its result and its
    rank among the day's finishers; with the page shown and how many pages there are."""
    dated = [(day, a) for a in await host.store.history(user_id)
             if (day := daily.attempt_day(a.day)) is not None]
    days = sorted(dated, key=lambda x: x[0], reverse=True)
    pages = max(1, -(-len(days) // size))
    page = min(max(page, 0), pages - 1)
    out = []
    for day, att in days[page * size:(page + 1) * size]:
        score = _score(att) if att.status == "finished" else None
        standing = daily_standings.standing(await host.board.leaderboard(day, None), user_id) \
            if score is not None else None
        status = att.status if att.status != "playing" or host.days.clock() < daily.day_end(day) \
            else "unfinished"  # a closed day the day job has not closed yet
        out.append(Day(day, status, score, standing))
    return out, page, pages
