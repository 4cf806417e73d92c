"""A channel's AI bursts: quiet AI answers told together, in the channel's turn.

An AI run's quiet answers (lines alone) are held (`Burst`) and told in one post (`flush`) —
at the run's end, before any other announcement of the channel (`tell_in_turn`, in the
channel's turn: turns.py), or after HOLD_MAX_S; each of their notices leaves the outbox once
all its lines went out, one whose lines were not posted is retried on its own, from its
start. A move's first or last lines may share the burst's post.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace

from store import Notice

from .announcement import Announcement
from .delivery import Progress, attempt, current_progress
from .outbox import Stage
from .pages import page_ends, pages
from .turns import Turns

log = logging.getLogger("rr.announce")
# An AI burst's held answers are told at least this often, whatever the AI still thinks (a
# timer of the burst's own, `Announcer._flush_at`): a post waits seconds, not minutes
HOLD_MAX_S = 60.0


@dataclass(slots=True)
class Burst:
    """A channel's AI answers held to be told in one post (`Announcer.announce`): their
    announcements with their lines, in commit order."""

    entries: list[tuple[Announcement, list[str]]]
    # their notices' claims (`Announcer.claimed`), kept while they are held: no other
    # process's pass tells one behind the burst's back
    claims: contextlib.AsyncExitStack[bool | None] = field(
        default_factory=contextlib.AsyncExitStack)
    # its post at HOLD_MAX_S however long the AI still thinks (`Announcer._flush_at`)
    timer: asyncio.Task[None] | None = None
    # the messages its first answer's notice sent before its held lines (the last lines of
    # a move the AI answers follow, `Announcer._hold_tail`): a retry starts after them
    told: int = 0


def lead_lines(held: Burst) -> list[str]:
    """A held burst's lines, in order (its answers' stories one after the other)."""
    return [line for _ann, story in held.entries for line in story]


class Bursts(Turns):
    """The channel's turn (`tell_in_turn`) and its AI answers held (`announce`, `flush`)."""

    def __init__(self, bot: Stage, *, processes: bool = False) -> None:
        super().__init__(bot, processes=processes)
        # channel → the AI answers held to be told together (see `announce`)
        self._held: dict[int, Burst] = {}

    async def flush_all(self) -> None:
        """Every channel's held AI answers told now (the bot is closing): their notices are
        claimed by this process, so a next one would wait out the claims to tell them."""
        for channel_id in list(self._held):
            await self.flush(channel_id)

    def close(self) -> None:
        for held in self._held.values():  # (told by `flush_all`, or left to the outbox)
            if held.timer is not None:
                held.timer.cancel()
        super().close()

    # ---- the turn and the bursts ------------------------------------------------------------
    async def announce(self, ann: Announcement, *, skip_seat: int | None = None,
                       burst: bool = False) -> bool:
        """Publish a committed move's announcement as its outbox notice (see `tell`), after
        the channel's announcements before it (their images may still be drawing).

        `burst`: an AI's answer within a run of AI answers (cogs/seats.py). A quiet one
        (lines alone, `Announcement.quiet`) is held, and the run's quiet answers are told
        in one post (`flush`) — at the run's end, before any other announcement of the
        channel, or after HOLD_MAX_S. Why here and not in the AI runner: only the
        announcer sees every announcement of a channel in its order, so a person's answer
        committed during the burst is told after the AI answers committed before it, never
        ahead of them; and a held notice is already in the outbox (committed with the
        move), so a crash before the post tells it after the restart, on its own. Anything
        with an image, a ping, a DM or a note is told as before, after the held post:
        every phase keeps its own image, every person their own ping. Its first lines, when
        they are lines alone ("🤖 Bot 1 chose Advance" before the pings it asks), end the
        held post; its notice then counts that post's pages as its own first messages
        (`tell`'s parts_done), so its pings follow once and a retry never repeats them."""
        async with self.turn(ann.channel_id):
            held = self._held.get(ann.channel_id)
            joins = burst and (held is None or held.entries[0][0].game_id == ann.game_id)
            if joins and ann.quiet():
                if ann.notice is not None and not await self.claim(ann.notice, unsure=True):
                    return False  # another process tells it
                if held is None:
                    held = self._held[ann.channel_id] = Burst([])
                    held.timer = asyncio.create_task(self._flush_at(ann.channel_id, held),
                                                     name=f"rr-burst-{ann.channel_id}")
                if ann.notice is not None:
                    await held.claims.enter_async_context(self.claimed(ann.notice))
                held.entries.append((ann, ann.story()))
                return True  # (told with its burst: at the run's end, or at HOLD_MAX_S)
            return await self._tell_after(ann, held if joins else None, skip_seat)

    async def _tell_after(self, ann: Announcement, held: Burst | None,
                          skip_seat: int | None) -> bool:
        """`announce` of one not held, in the channel's turn, after the held burst (`held`
        when `ann` is an AI answer of its run, which may share its post)."""
        # an AI answer whose first post has an image: the held lines lead that post; one
        # that asks people (or posts an image later): its first lines go in the burst's
        # post when they are lines alone, its own messages after them
        done = 0
        if (leading := self._leading(ann, held)) is None:
            head = ann.head() if held is not None else []
            sent = await self._flush(ann.channel_id, (ann, head) if head else None)
            done = len(pages(head)) if head and sent else 0  # (its first messages: told)
        if not done and (tail := ann.tail()):  # its last lines start the AI's post
            return await self._hold_tail(ann, tail, skip_seat, leading)
        if leading is not None:
            told = await self._lead_into(ann, leading, skip_seat)
        else:
            told = await self.tell(ann.notice,
                                   lambda: self.publish(ann, skip_seat=skip_seat),
                                   parts_done=done, channel=ann.channel_id)
        if (closing := ann.closing) is not None:  # after the move that ended it
            told = await self.tell(closing.notice,
                                   lambda: self.publish_abandoned(closing)) and told
        return told

    def _leading(self, ann: Announcement, held: Burst | None) -> Burst | None:
        """`held`, taken out of the channel's hold, when its lines fit with `ann`'s first
        post (its image's, `Announcement.opening`) in one message: they lead that post
        (`Announcement.lead`) rather than being a post of their own. Fitting, that message
        keeps its number in `ann`'s notice (a retry rebuilt from the store has no lead)."""
        opening = ann.opening()
        if held is None or not opening or len(pages(lead_lines(held) + opening)) > 1:
            return None
        self._held.pop(ann.channel_id, None)
        if held.timer is not None and held.timer is not asyncio.current_task():
            held.timer.cancel()
        return held

    async def _lead_into(self, ann: Announcement, leading: Burst,
                         skip_seat: int | None) -> bool:
        """`ann` told with `leading`'s lines first in its first post (`_leading`)."""
        tried: list[Progress | None] = []

        async def send() -> None:
            try:
                await self.publish(replace(ann, lead=lead_lines(leading)),
                                   skip_seat=skip_seat)
            finally:
                tried.append(current_progress())

        async with leading.claims:
            told = await self.tell(ann.notice, send, channel=ann.channel_id)
            if not tried:  # not sent here (another process tells the move): on their own
                return await self._post_burst(ann.channel_id, leading, None) and told
            return await self._settle_led(leading, tried[0]) and told

    async def _settle_led(self, leading: Burst, progress: Progress | None) -> bool:
        """The notices of a burst whose lines led a post (`_leading`): out of the outbox
        when that post (the first message of the try) went out, else each retried on its
        own as `_post_burst` does (the first from after its messages already sent,
        `Burst.told`). True when they went out."""
        out = progress is not None and progress.count > progress.skip and (
            progress.stopped is None or progress.stopped > progress.skip)
        for k, (ann, _story) in enumerate(leading.entries):
            await self.settle(ann.notice, None if out else leading.told if k == 0 else 0, 0)
        return out

    async def _hold_tail(self, ann: Announcement, tail: list[str], skip_seat: int | None,
                         leading: Burst | None = None) -> bool:
        """`ann` told but for its last lines (`Announcement.tail`), which start a burst held
        for the AI answers that follow it: "**Round 2** begins" and the AI's first moves in
        one post rather than two (`leading`: lines its first post starts with, `_leading`).
        Its notice stays claimed until that post, then leaves the outbox — or is retried
        from those lines (its messages before them went out). One Discord did not take in
        full is kept as `tell` keeps it. True when all went out."""
        async with contextlib.AsyncExitStack() as led:
            if leading is not None:
                await led.enter_async_context(leading.claims)
            if ann.notice is not None and not await self.claim(ann.notice, unsure=True):
                if leading is not None:  # (another process tells the move: on their own)
                    await self._post_burst(ann.channel_id, leading, None)
                return False
            held = Burst([(ann, tail)])
            if ann.notice is not None:
                await held.claims.enter_async_context(self.claimed(ann.notice))
            lead = [] if leading is None else lead_lines(leading)
            progress = await attempt(ann.notice, lambda: self.publish(
                replace(ann, lead=lead), skip_seat=skip_seat, held=True), 0)
            await self.posting(ann.channel_id, refused=progress.refused,
                               took=progress.took > 0)
            if leading is not None:
                await self._settle_led(leading, progress)
        if progress.stopped is not None:
            async with held.claims:
                await self.settle(ann.notice, progress.stopped, 0)
            return False
        held.told = progress.count
        self._held[ann.channel_id] = held
        held.timer = asyncio.create_task(self._flush_at(ann.channel_id, held),
                                         name=f"rr-burst-{ann.channel_id}")
        return True

    async def flush(self, channel_id: int) -> bool:
        """Tell the channel's held AI answers now, in one post (the AI's run ended).
        True when all went out (or none was held)."""
        if channel_id not in self._held:
            return True
        async with self.turn(channel_id):
            return await self._flush(channel_id)

    async def retell(self, channel_id: int, notice: Notice,
                     send: Callable[[], Awaitable[None]]) -> bool:
        """A notice from the outbox told in the channel's turn, as a live announcement is:
        told outside it, its messages went out between those of a live announcement still
        posting (its image drawn, Discord rate-limiting it), the channel's record shuffled.
        Held AI answers committed before it (their notices' ids are lower: the outbox is
        written in the commit's transaction) are told first; held ones committed after it
        wait for their burst's post, so a player reads the moves as they were made."""
        async with self.turn(channel_id):
            held = self._held.get(channel_id)
            if held is not None and any(a.notice is not None and a.notice < notice.id
                                        for a, _lines in held.entries):
                await self._flush(channel_id)
            return await self.tell(notice.id, send, parts_done=notice.parts_done,
                                   attempts=notice.attempts)

    async def tell_in_turn(self, channel_id: int | None, notice: int | None,
                           send: Callable[[], Awaitable[None]], *, parts_done: int = 0,
                           attempts: int = 0, channel: int | None = None) -> bool:
        """`tell` in the channel's turn: after its announcements before it and its held AI
        answers (`_flush`). A game abandoned while the AI still thought was told ended, and
        the AI's moves committed before that followed it; a reminder or a game set aside
        was read before AI moves made earlier. `channel_id` None (a game whose channel id
        is damaged, `turn_of`): no channel, so no turn to wait for — told as it comes."""
        if channel_id is None:
            return await self.tell(notice, send, parts_done=parts_done, attempts=attempts,
                                   channel=channel)
        async with self.turn(channel_id):
            await self._flush(channel_id)
            return await self.tell(notice, send, parts_done=parts_done, attempts=attempts,
                                   channel=channel)

    async def _flush_at(self, channel_id: int, held: Burst) -> None:
        """`held` told at HOLD_MAX_S if it is still held then: an AI thinking long, or
        retrying a busy store for minutes (service/ai_seats.py), kept the moves it had made
        unseen until its next answer or its run's end. Never raises (a task of its own)."""
        await asyncio.sleep(HOLD_MAX_S)
        try:
            async with self.turn(channel_id):
                if self._held.get(channel_id) is held:
                    await self._flush(channel_id)
        except Exception:
            log.exception("channel %s: the held AI answers could not be told", channel_id)

    async def _flush(self, channel_id: int,
                     head: tuple[Announcement, list[str]] | None = None) -> bool:
        """The held burst's lines, in order, in as few messages as fit (`pages`); each of
        its notices is taken out of the outbox once all its lines went out. One Discord
        did not take is kept for a retry told on its own, from its start (one partly
        posted repeats its first lines: told twice is the worst case, never lost). `head`:
        an announcement's first lines told last in the same post; its notice is the
        caller's to tell. True when every line went out."""
        held = self._held.pop(channel_id, None)
        if held is None:
            return True
        if held.timer is not None and held.timer is not asyncio.current_task():
            held.timer.cancel()
        async with held.claims:
            return await self._post_burst(channel_id, held, head)

    async def _post_burst(self, channel_id: int, held: Burst,
                          head: tuple[Announcement, list[str]] | None) -> bool:
        """`_flush`'s post, its notices claimed."""
        entries = held.entries + ([head] if head is not None else [])
        first, last = held.entries[0][0], held.entries[-1][0]
        stories = [story for _ann, story in entries]
        lines = [line for story in stories for line in story]
        progress = await attempt(
            first.notice, lambda: self.post(self.channel(channel_id), first, lines, None), 0)
        await self.posting(channel_id, refused=progress.refused, took=progress.took > 0)
        for k, ((ann, _story), end) in enumerate(zip(held.entries, page_ends(stories),
                                                     strict=False)):
            sent = progress.stopped is None or end <= progress.stopped
            await self.settle(ann.notice, None if sent else held.told if k == 0 else 0, 0)
        if last.ai_waiting and head is None:  # (an AI seat may still be asked: its run
            self.bot.ai.kick(channel_id)      # looks again)
        return progress.stopped is None
