"""`/rr-learn review [game]`: the expert's review of a finished game (issue 23), privately.

Which game: in a server channel, a game of this channel that is over (default: the
channel's last); in DMs, the caller's own daily game once its day has closed (default: their
ranked game of the last closed day) — exactly the games `/rr-recap` shows, for the same
reasons (a daily game's review during its day would give the day away).

The first ask computes the review in worker processes (service/review.py), which takes tens
of seconds: the deferred answer is edited with the count of decisions judged as they come
back (at most every `PROGRESS_S`, well inside Discord's edit rate limits), then replaced by
the review's words and its chart. The review is stored, so every later ask is instant.

Discord keeps an interaction's token, the only way to edit that private answer, for 15
minutes. A review queued behind others in the two workers (a few long 4-player games asked
at once) can take longer: a minute before the token expires the answer says the review is
still being computed and how to ask for it again (stored by then), instead of an edit that
Discord refuses (401) leaving "reviewing… 312 of 480" on screen for good. Asked again while
it is still computed, the new answer shows its progress from where it is (service/review.py
`Reviewer.review`).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import logging
import time
from collections.abc import Awaitable
from typing import Any

import discord

import i18n
from render.review import Panel, review_png
from service import ServiceError
from service.daily_review import closed_day
from service.review import Reviewer, check_reviewable
from service.review_record import Review
from service.review_words import charted, review_lines
from service.seats import seat_names
from store import GameRow, review_store

from .actions import in_server, reply, rook
from .delivery import deliver, or_without_image
from .host import Host
from .i18n import t
from .i18n import text as words
from .mentions import safe
from .pages import clip, pages
from .text import markdowns

log = logging.getLogger("rr.review")
PROGRESS_S = 2.0  # the least time between two edits of the progress message
TOKEN_S = 15 * 60.0  # Discord: an interaction's followups and edits, for 15 minutes
LATE_S = TOKEN_S - 60.0  # a review still computing then is told as such, while it still can be


def new_reviewer(bot: Host) -> Reviewer:
    """The cog's reviewer (its worker pool, the games being reviewed): worker processes
    where the bot thinks its AI in processes (bot.py), threads in tests."""
    return Reviewer(review_store(bot.store), processes=bot.ai_processes)


async def chosen_game(interaction: discord.Interaction, game: int | None) -> GameRow:
    """The game asked for, if the caller may review it here; else a refusal."""
    bot = rook(interaction)
    user, channel = interaction.user.id, interaction.channel_id or 0
    host = getattr(bot, "daily", None)
    # the day `/rr daily play` claims: one another process closed (this clock behind) is
    # closed here too, as the daily commands say
    opened = await host.days.open_day(host.store) if host is not None else None

    def day_open(day: dt.date) -> bool:
        return opened is None or day >= opened

    if in_server(interaction):
        row = await bot.store.latest_game(channel) if game is None else await bot.store.get(game)
        return check_reviewable(row, channel_id=channel, user_id=user, day_open=day_open,
                                game=game)
    if game is None and host is not None:  # the caller's ranked game of the last closed day
        assert opened is not None
        if await host.store.attempt(user, opened.isoformat(), True) is not None:
            await closed_day(host, opened)  # played today: refused, saying when the day closes
        day = await closed_day(host, None)
        att = await host.store.attempt(user, day.isoformat(), True)
        row = await bot.store.get(att.game_id) if att and att.game_id else None
        if row is None:
            raise ServiceError.of("svc.review_no_daily", day=day.isoformat(),
                                  code="daily_review_none")
        return check_reviewable(row, channel_id=channel, user_id=user, day_open=day_open)
    row = await bot.store.get(game) if game is not None else None
    if row is not None and not row.settings.get("daily"):
        row = None  # in DMs only daily games: a channel game is reviewed in its channel
    return check_reviewable(row, channel_id=channel, user_id=user, day_open=day_open, game=game)


def chart_file(review: Review, row: GameRow, lang: str) -> discord.File | None:
    """The chart, when some seat has a decision to draw."""
    names = seat_names(row, image=True)
    panels = [Panel(names[s.seat] if s.seat < len(names) else "?", s.seat,
                    [(p.round, p.p) for p in s.points], s.marks()) for s in charted(review)]
    if not panels:
        return None
    data = review_png(panels, lang=lang)
    return discord.File(io.BytesIO(data), filename=f"review-{row.id}.png",
                        description=i18n.t(lang, "review.image", game=row.id)[:1000])


async def review_command(interaction: discord.Interaction, reviewer: Reviewer,
                         game: int | None, lang: str) -> None:
    """After `ack`: the review in the deferred (ephemeral) answer; a refusal (which game
    may not be reviewed here, and why) goes to the command tree's one handler."""
    started = time.monotonic()  # just after the acknowledgement: the token's age, nearly
    bot = rook(interaction)
    row = await chosen_game(interaction, game)
    g = await bot.service.tables.load(row)  # a damaged game is set aside, not reviewed
    last = 0.0
    edits: list[asyncio.Task[Any]] = []
    late = False  # the token is about to expire: no more edits of this answer

    def progress(done: int, total: int) -> None:
        nonlocal last
        now = time.monotonic()
        if late or (now - last < PROGRESS_S and done < total):
            return
        last = now
        text = i18n.t(lang, "review.progress", game=row.id, done=done, total=total)
        edits.append(asyncio.create_task(deliver(
            f"review progress {interaction.id}",
            lambda: interaction.edit_original_response(content=text))))

    if await reviewer.stored(row.id) is None:
        await deliver(f"review start {interaction.id}", lambda: interaction.edit_original_response(
            content=i18n.t(lang, "review.starting", game=row.id)))
    # the log as verified (as the recap's): a row damaged since does not replay, and the
    # review failed on it at every ask until a restart reported it (the fault-injection audit)
    work = asyncio.ensure_future(reviewer.review(row, g.log,
                                                 await bot.store.authors(row.id), progress))
    try:
        await asyncio.wait({work}, timeout=max(LATE_S - (time.monotonic() - started), 0.0))
    except asyncio.CancelledError:  # the bot closing: the review goes with the command
        work.cancel()
        raise
    if not work.done():  # the last edit Discord will take: how to get the review later
        late = True
        await asyncio.gather(*edits)
        note = words(lang, "bot.review_late", game=row.id)
        await deliver(f"review late {interaction.id}",
                      lambda: interaction.edit_original_response(content=note))
        try:
            await work  # finished and stored: the next ask shows it at once
        except Exception:
            log.exception("game %s: no review", row.id)
        return
    try:
        review = work.result()
    except Exception:  # a dead worker, a log that no longer replays: words, not a traceback
        log.exception("game %s: no review", row.id)
        await asyncio.gather(*edits)
        await reply(interaction, i18n.t(lang, "review.failed", game=row.id))
        return
    await asyncio.gather(*edits)  # no progress edit lands after the review itself
    names = [safe(n) for n in seat_names(row)]  # typed names, printed as literal text
    lines = markdowns(review_lines(review, names, row.setup or {}, lang), lang)
    image = chart_file(review, row, lang)
    # four people's reviews with long names fill more than one message: the first (with the
    # chart) replaces the progress, the rest follow it, whole lines each (never clipped: the
    # last seat's review and the footer were cut off)
    first, *rest = pages(lines) or [""]
    def edit(with_image: bool) -> Awaitable[discord.InteractionMessage]:
        if with_image:
            return interaction.edit_original_response(content=first,
                                                      attachments=[image] if image else [])
        return interaction.edit_original_response(
            content=clip([first, t("file_too_large", lang)]), attachments=[])

    what = f"review of game {row.id}"
    await deliver(what, lambda: or_without_image(edit, what))
    for body in rest:
        await reply(interaction, body)
