"""A move's posts: its lines and table images, pings, private lines, the recap.

`publish` tells one announcement: each card or phase that ended with its own image (all
drawn at once, each posted as soon as it and the ones before it are ready), the notes, then
a ping for each question, the private lines by DM, and the recap after a game's end. Lines
longer than one message go in several (`pages`), the image with the last; an image over the
server's upload limit is left out and said missing.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import discord

import i18n
from engine import Game
from service import Abandoned, Reminder
from service.daily import answer_by
from service.hints import hints_allowed
from service.play import KICK_AFTER_TIMEOUTS
from service.seats import ai_level, marked_view, plain_names
from store import GameRow

from .announcement import HINT_ROUNDS, Announcement, Ask, ask, game_lang, post_channel
from .delivery import deliver, hold_slot, or_without_image
from .drawing import Drawing
from .i18n import join, t
from .mentions import is_person, only, safe
from .pages import MAX_CONTENT, clip, pages
from .rating_lines import end_lines, places_line, start_line
from .recap_image import Recap, recap_file, recap_gif_of
from .views import prompt_view

log = logging.getLogger("rr.announce")


class Posts(Drawing):
    """What an announcement posts, pings and sends (`publish`, `publish_start`, …)."""

    # ---- delivery ------------------------------------------------------------------------------
    def channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id)
    async def publish(self, ann: Announcement, *, skip_seat: int | None = None,
                      held: bool = False) -> None:
        """Public lines (+ the table image after a phase), pings, then private DMs. `held`:
        its last post (`Announcement.tail`) is not posted here but in the AI's burst post."""
        ch = self.channel(ann.channel_id)
        hints = [t("kick_hint", ann.lang, name=ann.names[seat], n=n)
                 for seat, n in ann.timeouts.items()
                 if n >= KICK_AFTER_TIMEOUTS and any(e.get("type") == "timeout" and
                                                     e.get("player") == seat for e in ann.public)]
        hints += ann.extra
        if ann.ended is not None:  # the game-over post: the ratings it moved (issue 24)
            row, g = ann.ended
            hints += await places_line(row, g, g.state["log"], ann.lang)
            hints += await end_lines(self.bot.store, self.bot.service.clock(), row, g, g.state["log"], ann.lang)
            # what a newcomer does next, where the game ended (the new-player audit)
            hints.append(t("over_next", ann.lang, game=row.id))
        if ann.reports:  # every card or phase that ended: its lines and its own image
            await self._post_reports(ch, ann, hints, held=held)
        else:
            await self.post(ch, ann, ann.lines(ann.lang) + hints, await self.table_file(ann),
                             ann.extra_pings)
        for a in ann.asks:
            if a.seat != skip_seat:
                await self.ping(ann, a)
        for seat in ann.private:
            if seat != skip_seat:
                await self.send_private(ann, seat)
        if ann.ai_waiting:  # told first, then the AI answers (cogs/seats.py)
            self.bot.ai.kick(ann.channel_id)
        if ann.recap is not None:
            await self.post_recap(ann, ann.recap)

    async def publish_abandoned(self, ended: Abandoned) -> None:
        """The channel is told its game was abandoned, and by whom: an outbox notice written
        with the status, so a crash or an outage right after the command still tells it."""
        self.bot.seating.pop(ended.row.channel_id, None)
        # a move that left only AI-played seats ended it: nobody abandoned it (an AI's
        # name there read as if the AI had walked out)
        note = t("no_person_left" if ended.why == "no_person" else "abandoned",
                 game_lang(ended.row), name=safe(ended.by))
        channel = self.channel(post_channel(ended.row))
        await deliver(f"game {ended.row.id} abandoned", lambda: channel.send(note))

    async def _post_reports(self, ch: discord.PartialMessageable, ann: Announcement,
                            hints: list[str], *, held: bool = False) -> None:
        """Each card or phase that ended, its lines and its own image, in order; `hints`
        (and the extra pings) with the last. All the images are drawn at once, each posted
        as soon as it and the ones before it are ready."""
        images = [None if r.view is None else asyncio.ensure_future(self.table_file(
            ann, r.view, r.events, [r.what] if r.what else None)) for r in ann.reports]
        try:
            for k, (r, drawing) in enumerate(zip(ann.reports, images, strict=True)):
                last = k == len(ann.reports) - 1
                if last and held:  # (its lines start the AI's burst post: `_hold_tail`)
                    break
                lines = ann.report_lines(r)
                image = None if drawing is None else await drawing
                if not lines and image is not None and r.what:  # an image needs its title
                    lines = [t("report_quiet", ann.lang, what=ann.stage(r.what))]
                if k == 0:  # the AI answers held before it, in the same post (`_leading`)
                    lines = ann.lead + lines
                await self.post(ch, ann, lines + (hints if last else []), image,
                                 ann.extra_pings if last else [])
        finally:
            for drawing in images:
                if drawing is not None and not drawing.done():
                    drawing.cancel()

    async def post_recap(self, ann: Announcement, source: Recap) -> None:
        """The ended game's animated recap, after its game-over post: one more message of
        the same notice, so a recap Discord did not take is retried and one already sent
        is not sent again. A drawing failure loses the recap, never the announcement."""
        try:
            data = await self.draw(recap_gif_of, ann.game_id, source, ann.lang)
        except Exception:
            log.exception("game %s: recap failed", ann.game_id)
            hold_slot()  # keep the numbering of the notice's messages the same
            return
        await self.post(self.channel(ann.channel_id), ann,
                         [t("recap_caption", ann.lang, game=ann.game_id)],
                         recap_file(ann.game_id, data, ann.lang))

    async def post(self, ch: discord.PartialMessageable, ann: Announcement, lines: list[str],
                    image: discord.File | None, pings: Sequence[int] = ()) -> None:
        """Lines and/or an image (nothing when both are empty), in as many channel
        messages as the lines need (`pages`), the image with the last; they ping exactly
        `pings` (the bot's default pings nobody)."""
        if not lines and image is None:
            return
        data = image.fp.getvalue() if image else None  # type: ignore[attr-defined]
        bodies = pages(lines, MAX_CONTENT) or [""]
        what = f"game {ann.game_id} announcement"

        def post(body: str, last: bool) -> Callable[[], Awaitable[discord.Message]]:
            def send(with_image: bool) -> Awaitable[discord.Message]:
                kwargs: dict[str, Any] = {"content": body or None}
                if pings:  # whichever message holds a mention may ping
                    kwargs["allowed_mentions"] = only(*pings)
                if not with_image:  # the image over this server's upload limit: the
                    note = t("file_too_large", ann.lang)  # words still go, it said missing
                    kwargs["content"] = clip([body, note] if body else [note])
                elif last and data is not None and image is not None:
                    kwargs["file"] = discord.File(io.BytesIO(data), filename=image.filename,
                                                  description=image.description)
                return ch.send(**kwargs)
            if last and data is not None:
                return lambda: or_without_image(send, what)
            return lambda: send(True)

        for k, body in enumerate(bodies):
            last = k == len(bodies) - 1
            await deliver(what, post(body, last), file=last and data is not None)

    async def ping(self, ann: Announcement, a: Ask, *, reminder: bool = False) -> None:
        """A new message mentioning the player (so Discord notifies them), with buttons.
        An AI-played bot seat has nobody to ping (it answers at once)."""
        if not is_person(a.user_id):
            return
        ts = int(a.deadline)
        mention = f"<@{a.user_id}>"
        stuck = t("hint_where", ann.lang) if ann.hints else ""
        if reminder:
            text = i18n.sentences(ann.lang, t("reminder", ann.lang, mention=mention,
                                                prompt=a.text[ann.lang], ts=ts), stuck)
        else:
            text = i18n.sentences(ann.lang, t("ping", ann.lang, mention=mention,
                                                prompt=a.text[ann.lang]),
                                  t("until", ann.lang, ts=ts), stuck)
        view = prompt_view(ann.game_id, a.seat, a.decision, ann.cards, ann.lang)
        ch = self.channel(ann.channel_id)

        async def send() -> discord.Message:
            mentions = only(a.user_id)  # this player only, whatever the text contains
            return await ch.send(text, view=view, allowed_mentions=mentions) if view else \
                await ch.send(text, allowed_mentions=mentions)

        await deliver(f"game {ann.game_id} ping seat {a.seat}", send)

    async def send_private(self, ann: Announcement, seat: int) -> None:
        """Private lines by DM; if Discord refuses, a note without the secret in the channel."""
        lines = ann.private_lines(seat, ann.lang)
        if not lines:
            return
        user_id = ann.users[seat]
        body = clip([t("dm_header", ann.lang, channel=ann.channel_id), *lines])

        async def dm() -> discord.Message:
            channel = await self.bot.create_dm(discord.Object(user_id))
            return await channel.send(body)

        if await deliver(f"game {ann.game_id} DM seat {seat}", dm) is None:
            note = t("dm_fallback", ann.lang, mention=f"<@{user_id}>")
            await deliver(f"game {ann.game_id} DM fallback",
                          lambda: self.channel(ann.channel_id).send(
                              note, allowed_mentions=only(user_id)))
        else:
            hold_slot()

    async def remind(self, rem: Reminder) -> None:
        """The one reminder before a time limit runs out."""
        row = rem.row
        g = await self.bot.service.tables.load(row)
        a = ask(g, rem.seat, int(row.seats[rem.seat]["user"]),
                answer_by(row.settings, rem.deadline, self.bot.service.clock()))
        if a is None:
            return
        ann = Announcement(row.id, post_channel(row), game_lang(row), None,
                           [safe(n) for n in plain_names(row)], [int(s["user"]) for s in row.seats],
                           g.cards, [], {}, [a], None, [], hints=hints_allowed(row))
        await self.ping(ann, a, reminder=True)

    async def repost(self, row: GameRow, g: Game) -> None:
        """The table as it stands and the open questions, posted again (a resumed daily
        game: its last posts may be far up the DM, or on another device's screen). Nobody
        is pinged for a seat an AI plays (zombie mode: its person is not asked; as `capture`)."""
        users = [int(s["user"]) for s in row.seats]
        limit = float(row.settings.get("time_limit_s", 24 * 3600))
        now = self.bot.service.clock()
        deadline = answer_by(row.settings, now + limit, now)
        asks = [a for s in g.waiting_for() if not ai_level(row, s)
                and (a := ask(g, s, users[s], deadline)) is not None]
        ann = Announcement(row.id, post_channel(row), game_lang(row), None,
                           [safe(n) for n in plain_names(row)], users, g.cards, [], {}, asks,
                           marked_view(row, g.view(None)), [],
                           hints=hints_allowed(row) and g.round <= HINT_ROUNDS)
        await self.publish(ann)

    async def publish_start(self, ann: Announcement) -> None:
        """A game's first announcement: who sits where, then the setup's story and pings."""
        seats = join((f"{k + 1}. <@{u}>" if is_person(u) else f"{k + 1}. {ann.names[k]}"
                      for k, u in enumerate(ann.users)), ann.lang)
        rated = await start_line(self.bot.store, ann.game_id, ann.lang)  # issue 24
        text = t("game_start", ann.lang, seats=seats) + (f"\n{rated}" if rated else "")
        await deliver(f"game {ann.game_id} start", lambda: self.channel(ann.channel_id).send(
            text, allowed_mentions=only(*ann.users)))
        await self.publish(ann)
