"""The daily challenge's day job (`RookBot.day_loop`, every few minutes): today's par and
its odds, closing yesterday and queueing its recaps, the servers' news, the streak reminders
and the "your day ended" notes — all through the daily outbox, so each is told once, across
restarts and processes (docs/daily.md, "Delivery"). Apart from the commands (cogs/daily.py):
nobody types it, and it answers to the clock, not to a player."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable
from typing import get_args

import discord

from service import ServiceError
from service import daily as core
from service.daily_play import DailyHost
from service.daily_slots import attempt_game
from service.seats import plain_names
from store import DailyNotice, DailyNoticeKind

from .daily_board import board_line, member_check
from .daily_words import challenge_text, time_up_text
from .delivery import deliver, or_without_image, snowflake
from .host import Host, host_of
from .i18n import t
from .outbox import NOTICE_ATTEMPTS, notice_retry_s
from .pages import clip
from .recap_image import RECAP_LIMIT, Recap, recap_file, recap_gif_of

log = logging.getLogger("rr.daily")


async def day_once(bot: Host) -> dict[str, int]:
    """One pass of the day job (every few minutes, `RookBot.day_loop`): today's par and its
    odds (once a day, about a minute of one worker thread, `PAR_ODDS_BUDGET_S` at most),
    closing yesterday (and queueing each of its players' recap), then the servers' news, the
    streak reminders and the "your day ended" notes through the daily outbox
    (`deliver_daily`). Each is queued once (a stored flag set in the transaction that
    queues it) and marked sent only after Discord took it, so a restart or an outage
    neither repeats nor loses one; each server and each user is delivered on its own (a
    failure is theirs alone). Returns what was sent (tests, bench)."""
    host = host_of(bot)
    today = host.days.today()
    sent = {"announced": 0, "reminded": 0, "closed": 0}
    await host.par.compute(today)  # worker threads: the event loop stays free
    try:  # the same, many games (bounded): the news carries them
        await host.par.odds(today)
    except asyncio.CancelledError:
        raise
    except Exception:  # the odds are extra: closing the day and the news go on without
        log.exception("par odds of %s failed; the next pass tries again", today)
    yesterday = today - dt.timedelta(days=1)
    closed = await host.results.close_day(yesterday)  # their notices: queued
    sent["closed"] = len(closed)
    now = host.days.clock()
    if await host.store.day_flag(yesterday.isoformat(), "closed"):
        # every ranked game of the closed day is final: each player's recap, once
        await host.store.queue_recaps(yesterday.isoformat(), now)
    await host.store.queue_news(today.isoformat(), now)
    hour = int((now - core.day_start(today)) // 3600)
    await host.store.queue_reminders(today.isoformat(), hour, now)
    told = await deliver_daily(bot)
    sent["announced"], sent["reminded"] = told["news"], told["reminder"]
    return sent


DAILY_KINDS: tuple[str, ...] = get_args(DailyNoticeKind)
"""The daily outbox's kinds this release tells (`DailyNoticeKind`). A row of another
(a newer release's, or damaged) is never worded as a reminder nor counted: it is left, with
the back-off, for a process that knows it, and dropped (logged) once none told it; it was
sent as a streak reminder, then raised KeyError and stopped the pass for every row after
it (the fault-injection audit)."""


async def deliver_daily(bot: Host) -> dict[str, int]:
    """The daily outbox: every news or reminder row due, each taken (so no other pass sends
    it), written in its reader's language as of now, sent, and removed only once Discord
    took it. Discord unreachable (5xx, timeouts): retried later (30 s, 2 min, 10 min, then
    hourly; dropped after 12 tries, logged), also after a restart. Refused for good (403,
    404: the channel is gone, DMs closed since) or no longer true (a past day's news, a
    streak kept since): dropped, logged. Returns how many of each kind were sent."""
    host = host_of(bot)
    sent = dict.fromkeys(DAILY_KINDS, 0)
    for notice in await host.store.take_notices(host.days.clock()):  # held: no other pass sends it
        known = notice.kind in sent
        if not known:
            log.warning("daily row %s: kind %r, unknown to this release; left for a newer one",
                        notice.id, notice.kind)
        told = await _tell_notice(bot, notice) if known else None
        if told is not None:  # sent, refused for good, or no longer true: it goes
            await host.store.notice_sent(notice.id)
            sent[notice.kind] += told
        elif notice.attempts + 1 >= NOTICE_ATTEMPTS:
            log.error("daily %s %s of %s: not delivered after %d tries; dropped", notice.kind,
                      notice.target, notice.day, notice.attempts + 1)
            await host.store.notice_sent(notice.id)
        else:
            delay = notice_retry_s(notice.attempts)
            await host.store.notice_retry(notice.id, host.days.clock() + delay)
        await asyncio.sleep(0)
    return sent


async def _tell_notice(bot: Host, notice: DailyNotice) -> bool | None:
    """One row told: True (Discord took it), False (it goes untold: refused for good, or
    no longer true), None (Discord could not take it now, or its words could not be
    written: try again later). Never raises."""
    recap: tuple[int, bytes] | None = None
    if not is_day(notice.day):  # it names no challenge anyone could be told about
        log.warning("daily row %s (%s %s): its day %r is no date; dropped", notice.id,
                    notice.kind, notice.target, notice.day)
        return False
    try:
        text = await notice_text(bot, notice)
        if notice.kind == "recap" and text is not None:
            recap = await recap_of(bot, notice)
            if recap is None:
                text = None
    except Exception:
        log.exception("daily %s %s of %s: its text could not be written", notice.kind,
                      notice.target, notice.day)
        return None
    if text is None:
        log.info("daily %s %s of %s: no longer due; dropped", notice.kind, notice.target,
                 notice.day)
        return False
    if not snowflake(notice.channel_id):  # a damaged row is that row's problem alone
        log.warning("daily %s %s of %s: stored channel %r is not a channel id; dropped",
                    notice.kind, notice.target, notice.day, notice.channel_id)
        return False
    ch = bot.get_partial_messageable(notice.channel_id)
    took = False

    async def post() -> discord.Message:
        if recap is None:
            return await ch.send(text)
        game_id, data = recap  # a new File each try: a sent one is consumed
        lang = notice.lang or "en"

        def send(with_image: bool) -> Awaitable[discord.Message]:
            if with_image:
                return ch.send(text, file=recap_file(game_id, data, lang))
            return ch.send(clip([text, t("file_too_large", lang)]))
        return await or_without_image(send, f"daily recap {notice.target}")

    async def send() -> None:
        nonlocal took
        took = await deliver(f"daily {notice.kind} {notice.target}", post) is not None
    if not await bot.announcer.tell(None, send):
        return None
    return took


def is_day(value: object) -> bool:
    """Whether a daily outbox row's day is a date (the words of every kind read it): one
    that is not (a hand edit) raised at each pass, a traceback logged, for twelve tries over
    half a day before the row was dropped (the second fault-injection pass)."""
    if not isinstance(value, str):
        return False
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


async def recap_of(bot: Host, notice: DailyNotice) -> tuple[int, bytes] | None:
    """The animated recap of a "recap" row's player's ranked game of its day (game id, GIF
    bytes), drawn in the announcer's workers like a channel game's; None when there is no
    such game any more. Under `RECAP_LIMIT`: smaller frames are drawn for a long game
    (render/recap.py), so the DM takes it without a boost."""
    att = await host_of(bot).store.attempt(notice.target, notice.day, True)
    # its own game only: a damaged game_id may name another player's (whose DM the row
    # was then queued to, from that game's settings): nothing is drawn, the row goes
    row = await attempt_game(bot.store, att) if att is not None else None
    if row is None or row.setup is None:
        return None
    try:
        g = await bot.service.tables.load(row)  # a game set aside is not drawn
    except ServiceError:  # (not wording: damaged, or a newer release's — the DM goes without it)
        return None
    # the log as verified (as /rr-recap's): a row damaged since failed the drawing at every
    # try, and the recap was dropped untold (the fault-injection audit)
    source = Recap(row.setup, g.log, plain_names(row))
    data = await bot.announcer.draw(recap_gif_of, row.id, source, notice.lang or "en",
                                    limit=RECAP_LIMIT)
    return row.id, data


async def notice_text(bot: Host, notice: DailyNotice) -> str | None:
    """The words of a daily outbox row, as of now; None when it is no longer true: a day
    already over (yesterday's news or reminder, after an outage), or a reminded streak the
    player has kept since, or has none to keep (yesterday resigned: the store queues a
    reminder after any finished attempt; `stats` says whether it kept a streak). A day that
    ended unfinished stays true."""
    host = host_of(bot)
    if notice.kind == "time_up":  # true whenever it is read
        return time_up_text(notice.day, notice.lang or "en")
    if notice.kind == "recap":  # the day closed: true from then on
        day = dt.date.fromisoformat(notice.day)
        return t("daily_recap_post", notice.lang or "en", n=core.number_of(day),
                 day=notice.day)
    day = dt.date.fromisoformat(notice.day)
    if day != host.days.today():
        return None
    if notice.kind == "news":
        return await news_text(bot, host, notice.target, notice.lang or "en", day)
    att = await host.store.attempt(notice.target, notice.day, True)
    if att is not None and att.status != "playing":
        return None
    if (await host.board.stats(notice.target)).played_streak == 0:
        return None  # yesterday resigned (a finished attempt): no streak left to break
    lang = notice.lang or await _lang_of_player(bot, notice.target, day)
    return t("daily_reminder", lang, ts=int(core.day_end(day)))


async def _lang_of_player(bot: Host, user_id: int, day: dt.date) -> str:
    """A reminder set before its language was stored: the language of the game that keeps
    the streak alive (yesterday's ranked attempt), else English."""
    att = await host_of(bot).store.attempt(user_id, (day - dt.timedelta(days=1)).isoformat(), True)
    row = await bot.store.get(att.game_id) if att is not None and att.game_id else None
    return str(row.settings.get("lang", "en")) if row is not None else "en"


async def news_text(bot: Host, host: DailyHost, guild_id: int, lang: str,
                    today: dt.date) -> str:
    """A server's daily news: today's challenge card, yesterday's podium among its members,
    yesterday's published key."""
    yesterday = today - dt.timedelta(days=1)
    lines = [await challenge_text(host, host.days.challenge(today), await host.par.get(today),
                                  lang)]
    podium = (await host.board.listing(yesterday, guild_id, member_check(bot, guild_id)))[:3]
    if podium:
        lines.append(t("daily_podium", lang, n=core.number_of(yesterday)))
        lines += [board_line(rank, e, lang, False) for rank, e in podium]
    key = core.published_key(host.days.secret, yesterday, host.days.clock())
    if key is not None:
        lines.append(t("daily_key", lang, n=core.number_of(yesterday), day_key=key,
                       day=yesterday.isoformat()))
    return "\n".join(lines)
