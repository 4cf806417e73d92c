"""The daily challenge's words: its par, a score, a standing, and the result post.

Shared by the `/rr daily` commands (cogs/daily.py), their history (cogs/daily_review.py) and
the answer path (cogs/actions.py: a daily game's last move posts its result; a ranked
attempt cut off at 00:00 UTC says so), which the daily cog itself builds on — so they live
below all three.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any, Literal

import discord

import i18n
from engine import ActionError
from service import daily as core
from service import daily_score, daily_standings
from service.daily_play import DailyHost

from .delivery import deliver
from .host import Host
from .i18n import difficulty_name, t

log = logging.getLogger("rr.daily")


class DmUnreachable(ActionError):
    """The player's DM could not be opened or written to (issue 18): nothing was claimed or
    changed; worded by `dm_refusal` (closed DMs say how to allow them)."""

    code = "refused"

    def __init__(self, cause: BaseException, what: Literal["attempt", "reminder"]) -> None:
        super().__init__("", f"the DM could not be reached ({what}): {cause!r}")
        self.cause, self.what = cause, what


def difficulty_words(name: str, lang: str) -> str:
    return difficulty_name(name, lang)


def par_words(par: dict[str, Any] | None, lang: str) -> str:
    """The bot's real result and score: 'the bot fell in round 10 (1,100,352 points)', the
    score term by term on the next line (a seven-digit number alone meant nothing to a
    new player, the English new-player audit), and once the par AIs have played the day
    many times, how hard it is on a line of its own (`odds_line`)."""
    best = daily_score.par_score(par)
    if best is None:
        return t("daily_par_unknown", lang)
    words = t("daily_par_won" if best.won else "daily_par_lost", lang, n=best.rounds,
              points=daily_score.points_text(best.points))
    lines = [words, breakdown_words(best, lang), odds_line(par, lang)]
    return "\n".join(line for line in lines if line)


def odds_line(par: dict[str, Any] | None, lang: str) -> str | None:
    """'🤖 the expert bot wins this day 3 times in 10; greedy 1 in 10' (issue 19): on the
    day's card, the news and the result post; None until the day job has measured it."""
    odds = daily_score.odds_words(par, lang)
    return f"🤖 {odds}" if odds else None


def score_words(score: daily_score.Score, lang: str) -> str:
    """'won in 9 rounds · 2,331,452 points': the outcome in the share line's words, then
    the one number everybody is ranked by."""
    return t("daily_score", lang, outcome=daily_score.outcome_words(score, lang),
             points=daily_score.points_text(score.points))


def breakdown_words(score: daily_score.Score, lang: str) -> str:
    """Where the number comes from, term by term (docs/daily.md): 'won 2,000,000 + 21
    rounds to spare 210,000 + …'."""
    parts = [t(f"daily_term_{score.outcome if term == 'outcome' else term}", lang, n=count,
               points=daily_score.points_text(points))
             for term, count, points in score.breakdown() if term == "outcome" or count]
    return t("daily_breakdown", lang, points=daily_score.points_text(score.points),
             terms=" + ".join(parts))


def standing_words(st: daily_standings.Standing, lang: str, *, closed: bool = False) -> str:
    """'#37 of 1,204 — top 3%'; the first finisher alone is the first so far, not "#1 of 1
    — top 100%", which read like last (the Discord audit)."""
    if st.total == 1:  # "so far" while the day is open; a closed day's review says "of the day"
        return t("daily_standing_only" if closed else "daily_standing_first", lang)
    return t("daily_standing", lang, rank=st.rank, total=f"{st.total:,}", pct=st.top_percent)


def next_challenge(day: dt.date) -> int:
    """When the challenge after `day` opens (its 00:00 UTC), for a `<t:…:R>` countdown."""
    return int(core.day_end(day))


def result_text(score: daily_score.Score, share: str, versus: str | None,
                standing: daily_standings.Standing | None, ranked: bool, lang: str, *,
                next_ts: int | None = None, odds: str | None = None) -> str:
    """A finished attempt's post: the share line to copy, the score's breakdown and, for
    the ranked attempt, its rank among the day's finishers so far and the countdown to the
    next challenge (Discord shows `<t:…:R>` as "in 5 hours", in the reader's time)."""
    key = "daily_result_ranked" if ranked else "daily_result_practice"
    lines = [t(key, lang, share=share, versus=f" — {versus}" if versus else ""),
             breakdown_words(score, lang)]
    if odds is not None:  # how hard the day was for the par AIs (`odds_line`)
        lines.append(odds)
    if standing is not None:
        lines.append(standing_words(standing, lang))
    if ranked and next_ts is not None:
        lines.append(t("daily_next", lang, ts=next_ts))
    return "\n".join(lines)


def time_up_text(day: str, lang: str) -> str:
    """A ranked attempt cut off by 00:00 UTC: unfinished, which breaks the streak and is no
    loss; today's challenge is open."""
    return t("daily_time_up", lang, n=core.number_of(dt.date.fromisoformat(day)))


async def tell_settled(bot: Host, game_id: int) -> None:
    """A daily game just ended: score it from its log (once) and post the result with the
    copyable share line and how it compares with the bot's par. Never raises."""
    try:
        row = await bot.store.get(game_id)
        host = getattr(bot, "daily", None)
        if row is None or host is None:
            return
        settled = await host.results.settle(row)
        if settled is None:
            return
        info = row.settings["daily"]
        lang = row.settings.get("lang", "en")
        day = dt.date.fromisoformat(settled.attempt.day)  # (the record's may be damaged)
        stored = await host.par.get(day)
        par = daily_score.par_score(stored)
        text = result_text(settled.score, settled.share_in(lang),
                           daily_score.versus_par(settled.score, par, lang), settled.standing,
                           core.ranked_record(row.settings), lang,
                           next_ts=next_challenge(day),
                           odds=odds_line(stored, lang))
        channel = bot.get_partial_messageable(int(info["post_channel"]))
        await deliver(f"daily result game {game_id}", lambda: channel.send(text))
    except Exception:
        log.exception("daily game %s: its result could not be settled or told", game_id)


def dm_refusal(e: BaseException, lang: str, what: str = "attempt") -> str:
    """Why the DM could not be opened, for an `attempt` or a `reminder`, in words: closed
    DMs (403, e.g. 50007 "Cannot send messages to this user") say how to allow them;
    anything else is Discord's trouble now (try again)."""
    if isinstance(e, discord.Forbidden):
        return i18n.sentences(lang, t(f"daily_no_dm_{what}", lang), t("daily_allow_dms", lang))
    return t(f"daily_dm_unreachable_{what}", lang)


async def challenge_text(host: DailyHost, ch: core.Challenge, par: dict[str, Any] | None,
                         lang: str) -> str:
    """The day's challenge in the reader's language: number, difficulty, modifiers, par,
    and when it ends (a relative timestamp every client shows in local time). A past day
    has no "ends": past as `/rr daily play` reads it (`Calendar.still_open`), so a day
    another process closed is past here too with the clock behind its close."""
    mods = "\n".join(f"• {m.name(lang)}" for m in ch.modifiers)
    key = "daily_card" if await host.days.still_open(host.store, ch.day) else "daily_card_past"
    return t(key, lang, n=ch.number, day=ch.day.isoformat(),
             difficulty=difficulty_words(ch.difficulty, lang), mods=mods,
             par=par_words(par, lang), ts=int(core.day_end(ch.day)))
