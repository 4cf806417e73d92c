"""Telling people what happened: channel posts, pings, private lines, DMs.

An Outcome is turned into an `Announcement` *synchronously*, right after the service
returned it (the action is already committed), so what is posted describes exactly that
moment even if another answer lands while images render. Delivery then goes through
`deliver`, which retries rate limits and server errors and degrades on refusals: a failed
post loses a message, never a game.

The outbox: every move committed what must be told about it (service/notices.py), and
`tell` marks that notice delivered once its messages went out. When Discord stays
unreachable, the notice keeps the number of messages already sent and is retried later from
there; when the process dies first, the next one rebuilds the announcement from the stored
game (`redeliver`) at startup. Each notice fails on its own: one bad game never stops the
others' announcements. An AI run's quiet answers are told in one post (`announce`, `burst`):
each of their notices leaves the outbox once all its lines went out; one whose lines were not
posted is retried on its own, from its start.

Secrets: public text is narrated from `engine.visible(events, None)` and images from the
spectator view; a player's private events (medal values) go only to that player — in their
ephemeral reply when they are the actor, else by DM, with a value-free note in the channel
when the DM is refused.

The announcer is built in layers, each a room of its own read in one sitting, each on the
one before it: the outbox's telling and claims (outbox.py), the drawing pool and table
images (drawing.py), a move's posts, pings and DMs (posts.py), held channels (held.py), a
channel's turn (turns.py), its AI bursts (bursts.py). Delivery to Discord is delivery.py, an
announcement and its lines announcement.py, a post's pages pages.py. This module is the
entry point: an outcome captured as its announcement, and a notice left in the outbox
rebuilt and told again (`redeliver`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from engine import visible
from service import Abandoned, Outcome, Quarantined, Reminder, SetAside
from service.daily import answer_by
from service.hints import hints_allowed, used_lines
from service.meta import timeout_counts
from service.notices import ForeignNotice, UnreadableNotice, rebuild
from service.report import phase_reports
from service.seats import ai_level, ai_waiting, marked_view, plain_names, seat_names
from store import GameRow, Notice

from . import outbox
from .announcement import (
    HINT_ROUNDS,
    Announcement,
    ask,
    game_lang,
    post_channel,
    secrets_by_seat,
    table_alt,
    turn_of,
    zombie_notice,
)
from .bursts import Bursts
from .delivery import (
    TOO_LARGE,
    UNKNOWN_MESSAGE,
    channel_watch,
    deliver,
    hold_slot,
    or_without_image,
    snowflake,
)
from .drawing import DRAWING
from .mentions import safe
from .outbox import NOTICE_ATTEMPTS, Stage, notice_retry_s
from .pages import MAX_CONTENT, clip, pages
from .recap_image import Recap

# kept importable from here, where the tests and older callers name them
__all__ = ["DRAWING", "MAX_CONTENT", "NOTICE_ATTEMPTS", "TOO_LARGE", "UNKNOWN_MESSAGE",
           "Announcement", "Announcer", "Stage", "ask", "channel_watch", "clip", "deliver",
           "hold_slot", "notice_retry_s", "or_without_image", "pages", "snowflake",
           "table_alt", "turn_of"]

log = logging.getLogger("rr.announce")


class Announcer(Bursts):
    """Every announcement of the bot: captured (`capture`), announced in its channel's turn
    (`announce`), and told again from the outbox after a crash or an outage (`redeliver`)."""

    def __init__(self, bot: Stage, *, processes: bool = False) -> None:
        super().__init__(bot, processes=processes)
        # how a game set aside (or back in play) is told in its channel (cogs/quarantine.py,
        # set by the bot: that module delivers through this one)
        self.set_aside: Callable[[GameRow, dict[str, Any] | None],
                                 Awaitable[None]] | None = None

    # ---- capture (synchronous: the game as the outcome left it) -----------------------------
    def capture(self, out: Outcome, actor_lang: str | None = None) -> Announcement:
        """The announcement of `out`, worded now. `actor_lang`: the language the actor is
        answered in (their interaction's), when known — then their question is worded in
        it and the game's only, not in every language."""
        g, row = out.game, out.row
        names = [safe(n) for n in seat_names(row)]  # defused; AI-played seats marked 🤖
        users = [int(s["user"]) for s in row.seats]
        self._seat(row, users, g.over)
        limit = float(row.settings.get("time_limit_s", 24 * 3600))
        now = self.bot.service.clock()
        deadline = now + limit
        # nobody is pinged for a seat an AI plays: it answers at once. Worded in the game's
        # language for the ping, and the actor's also in theirs (their reply is in their
        # own; every language when that is not known): this runs before the actor is
        # answered, so only what is needed (issue 22)
        lang = game_lang(row)
        mine = None if actor_lang is None else tuple(dict.fromkeys((lang, actor_lang)))
        asks = [a for s in out.prompts if not ai_level(row, s)
                and (a := ask(g, s, users[s],
                              answer_by(row.settings, out.deadlines.get(s, deadline), now),
                              mine if s == out.actor else (lang,))) is not None]
        private = secrets_by_seat(out.events, users)
        timeouts = timeout_counts(row.meta) if "timeout" in out.notes else {}
        # every table image is a report's (the final table too: service/report.py)
        reports = [replace(r, view=marked_view(row, r.view)) if r.view is not None else r
                   for r in phase_reports(out)]
        extra, extra_pings = zombie_notice(out, lang)
        settles = g.over and not row.settings.get("daily")  # a channel game's end: settled
        if g.over:  # issue 23: who used hints, told with the game's end
            extra.extend(used_lines(row, names, lang))
        return Announcement(
            game_id=row.id, channel_id=post_channel(row), lang=lang,
            actor=out.actor if "timeout" not in out.notes else None, names=names, users=users,
            cards=g.cards, public=visible(out.events, None), private=private, asks=asks,
            table_view=None,
            finished=list(out.finished), timeouts=timeouts, reports=reports, extra=extra,
            extra_pings=extra_pings,
            ai_waiting=ai_waiting(row, g) and out.abandoned is None, notice=out.notice,
            recap=Recap(g.setup, [list(e) for e in g.state["log"]],
                        plain_names(row)) if settles else None,
            ended=(row, g) if settles else None,
            closing=None if out.duplicate else out.abandoned,
            hints=hints_allowed(row) and g.round <= HINT_ROUNDS)


    def _seat(self, row: GameRow, users: list[int], over: bool) -> None:
        """Who sits where, as this process last told it; a game over is forgotten (a
        wrong-channel hint must not point at it, cogs/actions.py `games_elsewhere`)."""
        if over:
            self.bot.seating.pop(row.channel_id, None)
        else:
            self.bot.seating[row.channel_id] = (row.id, users)
    async def redeliver(self, notice: Notice) -> bool:
        """A notice left in the outbox (a crash, or Discord down): rebuilt from the stored
        game and told. Never raises (one game's trouble is its own)."""
        if notice.id in self.unrecorded:  # told already; only recording it failed
            return await self._record(notice.id)
        try:
            item = await rebuild(self.bot.service.tables, notice)
        except ForeignNotice as e:
            return await self._foreign(notice, e)
        except UnreadableNotice as e:
            return await self._set_aside(notice, str(e))
        except Quarantined:  # (not wording: the notice waits for its game, set aside)
            return await self._wait_for_game(notice)
        except Exception:
            log.exception("game %s: notice %s could not be rebuilt", notice.game_id, notice.id)
            return await self.tell(notice.id, _fail, parts_done=notice.parts_done,
                                   attempts=notice.attempts)
        if item is None:  # nothing left to tell (the game is gone or the move undone)
            return await self.tell(notice.id, _nothing)
        if isinstance(item, Reminder):
            reminder = item  # (in the channel's turn, as a live one: `tell_in_turn`)
            return await self.tell_in_turn(turn_of(reminder.row), notice.id,
                                           lambda: self.remind(reminder),
                                           parts_done=notice.parts_done,
                                           attempts=notice.attempts)
        if isinstance(item, Abandoned):
            ended = item
            return await self.retell(post_channel(ended.row), notice,
                                      lambda: self.publish_abandoned(ended))
        if isinstance(item, SetAside):
            aside, told = item, self.set_aside
            if told is None:  # (no channel to tell it in: a bot without its Discord side)
                return await self.tell(notice.id, _nothing)
            return await self.tell_in_turn(turn_of(aside.row), notice.id,
                                           lambda: told(aside.row, aside.reason),
                                           parts_done=notice.parts_done,
                                           attempts=notice.attempts)
        try:
            ann = self.capture(item)
        except Exception:  # a damaged row of this game must not stop the others' notices
            log.exception("game %s: notice %s could not be worded", notice.game_id, notice.id)
            return await self.tell(notice.id, _fail, parts_done=notice.parts_done,
                                   attempts=notice.attempts)
        send = (lambda: self.publish_start(ann)) if notice.body.get("kind") == "start" \
            else (lambda: self.publish(ann))
        return await self.retell(ann.channel_id, notice, send)

    async def _record(self, notice: int) -> bool:
        """Record a notice told earlier in this process as delivered, sending nothing."""
        try:
            await self.bot.store.delivered(notice)
        except self.bot.store.faults as e:
            log.warning("notice %s: its delivery is recorded later (store: %s)", notice, e)
            return False
        self.unrecorded.discard(notice)
        return True

    async def _foreign(self, notice: Notice, why: ForeignNotice) -> bool:
        """A kind this release does not know: never told as another kind. Left for a newer
        process (a rolling upgrade) with the usual back-off, set aside when none took it."""
        try:
            if notice.attempts + 1 >= outbox.NOTICE_ATTEMPTS:
                return await self._set_aside(notice, f"{why}, which no process told")
            log.warning("notice %s (game %s): %s, unknown to this release; left for a newer "
                        "one", notice.id, notice.game_id, why)
            delay = notice_retry_s(notice.attempts)
            await self.bot.store.retry_later(notice.id, notice.parts_done, time.time() + delay)
        except self.bot.store.faults as e:
            log.warning("notice %s: left for a later pass (store: %s)", notice.id, e)
        return False

    async def _wait_for_game(self, notice: Notice) -> bool:
        """A notice of a game set aside (damaged): its channel was told why; the notice
        waits in the outbox, its tries not counted, and is told once the game is back in
        play (repaired). It was two ERROR tracebacks at each try, and dropped after
        NOTICE_ATTEMPTS: the move's ping was lost to a game repaired later (the
        fault-injection audit)."""
        log.warning("notice %s (game %s): waits while its game is set aside", notice.id,
                    notice.game_id)
        try:
            await self.bot.store.retry_later(notice.id, notice.parts_done,
                                             time.time() + outbox.NOTICE_RETRY_S[-1],
                                             counted=False)
        except self.bot.store.faults as e:
            log.warning("notice %s: left for a later pass (store: %s)", notice.id, e)
        return False

    async def _set_aside(self, notice: Notice, reason: str) -> bool:
        """Out of the outbox into `set_aside` (the store logs it for the operator)."""
        try:
            await self.bot.store.set_aside_notice(notice.id, reason)
        except self.bot.store.faults as e:
            log.warning("notice %s: set aside at a later pass (store: %s)", notice.id, e)
        return False


async def _nothing() -> None:
    return None


async def _fail() -> None:
    raise RuntimeError("the announcement could not be rebuilt")
