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
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import logging
import math
import os
import secrets
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeVar

import discord

import i18n
import render
from engine import Game, visible
from service import Abandoned, GameService, Outcome, Quarantined, Reminder, SetAside
from service.daily import answer_by
from service.hints import used_lines
from service.meta import timeout_counts
from service.notices import ForeignNotice, UnreadableNotice, rebuild
from service.play import KICK_AFTER_TIMEOUTS
from service.report import phase_reports
from service.seats import (
    ai_level,
    ai_waiting,
    marked_view,
    plain_names,
    seat_names,
)
from service.workers import ProcessExpired, Workers
from store import CLAIM_S, GameRow, GameStore, Notice

from .announcement import (
    Announcement,
    Ask,
    ask,
    game_lang,
    post_channel,
    secrets_by_seat,
    table_alt,
    turn_of,
    zombie_notice,
)
from .delivery import (
    TOO_LARGE,
    UNKNOWN_MESSAGE,
    Progress,
    attempt,
    channel_watch,
    current_progress,
    deliver,
    hold_slot,
    or_without_image,
    snowflake,
)
from .i18n import join, t
from .mentions import is_person, only, safe
from .pages import MAX_CONTENT, clip, page_ends, pages
from .rating_lines import end_lines, places_line, start_line
from .recap_image import Recap, recap_file, recap_gif_of
from .views import prompt_view

# kept importable from here, where the tests and older callers name them
__all__ = ["DRAWING", "MAX_CONTENT", "NOTICE_ATTEMPTS", "TOO_LARGE", "UNKNOWN_MESSAGE",
           "Announcement", "Announcer", "Stage", "ask", "channel_watch", "clip", "deliver",
           "hold_slot", "notice_retry_s", "or_without_image", "pages", "snowflake",
           "table_alt", "turn_of"]

log = logging.getLogger("rr.announce")
T = TypeVar("T")
# Channel images drawn at once: one worker process for every core but the event loop's. On
# the 2-core machine a second drawing process cost 20 % more CPU per image (the two shared the
# loop's core and its caches) for no answer sooner (bench/bot.py, 500 games, issue 22).
DRAWING = max(1, len(os.sched_getaffinity(0)) - 1 if hasattr(os, "sched_getaffinity")
              else (os.cpu_count() or 2) - 1)  # the cores this process may run on
# Drawing processes yield the CPU to the event loop's: on a busy machine an image waits, not
# a player's acknowledgement or answer (bench/bot.py at 500 games: 288 missed 3 s windows
# with the workers at the loop's priority)
DRAW_NICENESS = 10
# A drawing still running after this is stopped with its process: the longest job, a recap of
# a long game drawn cold on the loaded machine, takes seconds (README, "The recap"); one that
# never ended kept a drawing process, the bot's only one on 2 cores, busy until a restart,
# and every later image waited behind it
DRAW_JOB_S = 120.0
TELLING = 8  # channels whose announcements are posted at once (bench/bot.py, 500 games)
NOTICE_RETRY_S = (30.0, 120.0, 600.0, 3600.0)  # an outbox notice Discord did not take: later
NOTICE_ATTEMPTS = 12  # then it is dropped (logged): a notice that can never be told
# An AI burst's held answers are told at least this often, whatever the AI still thinks (a
# timer of the burst's own, `Announcer._flush_at`): a post waits seconds, not minutes
HOLD_MAX_S = 60.0


def notice_retry_s(attempts: int) -> float:
    """How long a notice waits after `attempts` failed tries: the back-off of every
    outbox (games' and the daily's), written once. A count below zero (a damaged row) is
    none yet: it indexed from the end, or past it, and the IndexError stopped the pass
    for every row after it (the reliability audit)."""
    return NOTICE_RETRY_S[min(max(attempts, 0), len(NOTICE_RETRY_S) - 1)]






@dataclass(slots=True)
class Turn:
    """A channel's announcements in line: the lock (FIFO) and how many hold or wait for it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0
    owner: asyncio.Task[Any] | None = None  # the task whose turn it is (`Announcer._turn`)


@dataclass(slots=True)
class Burst:
    """A channel's AI answers held to be told in one post (`Announcer.announce`): their
    announcements with their lines, in commit order."""

    entries: list[tuple[Announcement, list[str]]]
    # their notices' claims (`Announcer._claimed`), kept while they are held: no other
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


def draw_pool(processes: bool) -> Executor:
    """Where channel images are drawn. Worker processes ("spawn": the bot's threads must not
    be forked) in the bot: a drawing thread would hold the GIL for up to the interpreter's
    switch interval each time the event loop lets go of it (a socket, a thread hand-off), so
    every player's answer came later the more images were drawn (issue 22); a process draws
    on the other core and the loop never waits for it. Threads in tests (the renderer can be
    patched there) and when processes are turned off. The processes are `Workers`, like
    the AI's and the review's: a drawing past DRAW_JOB_S, or one given up on, is stopped."""
    if processes:
        return Workers(DRAWING, DRAW_JOB_S, niceness=DRAW_NICENESS)
    return ThreadPoolExecutor(max_workers=DRAWING, thread_name_prefix="rr-draw")


class AiSeats(Protocol):
    def kick(self, channel_id: int, /) -> None:
        """An AI-played seat may have been asked something: let it answer (cogs/seats.py)."""


class Stage(Protocol):
    """The part of the bot (cogs/bot.py `RookBot`) the announcer posts through; declared
    here because the bot builds the announcer (importing it would be a loop)."""

    @property
    def service(self) -> GameService: ...
    @property
    def store(self) -> GameStore: ...
    @property
    def ai(self) -> AiSeats: ...
    @property
    def seating(self) -> dict[int, tuple[int, list[int]]]: ...

    def get_partial_messageable(self, id: int, /) -> discord.PartialMessageable: ...
    def get_guild(self, id: int, /) -> discord.Guild | None: ...
    async def create_dm(self, user: discord.abc.Snowflake, /) -> discord.DMChannel: ...


class Announcer:
    def __init__(self, bot: Stage, *, processes: bool = False) -> None:
        self.bot = bot
        self.processes = processes
        self._drawing: Executor | None = None
        # channel → its announcements' turn: posted one announcement after the other, in
        # the order they were announced, however long each one's images take
        self._order: dict[int, Turn] = {}
        # channel → the AI answers held to be told together (see `announce`)
        self._held: dict[int, Burst] = {}
        # at most TELLING channels' announcements at once: a burst of moves does not flood
        # the event loop with posts ahead of the acknowledgements and answers still to give
        self._telling = asyncio.Semaphore(TELLING)
        # notices whose messages all went out but whose delivery the store did not record
        # (busy, full, cut off): the next pass records it instead of posting them again
        self._told: set[int] = set()
        # One process tells a notice (several may share the database: a rolling restart,
        # a shard given twice): this one's claims are in the row under `holder`, renewed
        # every third of `claim_s` while it tells; `_holding` are the ones it tells now.
        # Unique per run, like the day job's lease (cogs/leases.py): a restarted process
        # is a new holder, which waits for its dead predecessor's claims to expire.
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        self.claim_s = CLAIM_S
        # notice → when its claim was last written (monotonic); one task renews them all
        # (a task per notice told cost every announcement its creation and cancelling)
        self._holding: dict[int, float] = {}
        self._renewing: asyncio.Task[None] | None = None
        # how a game set aside (or back in play) is told in its channel (cogs/quarantine.py,
        # set by the bot: that module delivers through this one)
        self.set_aside: Callable[[GameRow, dict[str, Any] | None],
                                 Awaitable[None]] | None = None

    async def draw(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Draw a channel image in the announcer's own workers, at most DRAWING at once:
        under load the images wait their turn instead of competing with the event loop
        that acknowledges and answers players. Players' own images (`/rr board`,
        `/rr reach`) do not queue behind them. `fn` must be picklable (a module's function)
        when the workers are processes."""
        job = functools.partial(fn, *args, **kwargs)
        if self._drawing is None:
            self._drawing = draw_pool(self.processes)
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._drawing, job)
        except ProcessExpired:  # its process died under it (killed, out of memory): once more,
            # in the fresh process that took its place
            return await loop.run_in_executor(self._drawing, job)

    async def flush_all(self) -> None:
        """Every channel's held AI answers told now (the bot is closing): their notices are
        claimed by this process, so a next one would wait out the claims to tell them."""
        for channel_id in list(self._held):
            await self.flush(channel_id)

    def close(self) -> None:
        for held in self._held.values():  # (told by `flush_all`, or left to the outbox)
            if held.timer is not None:
                held.timer.cancel()
        if self._renewing is not None:  # (a claim left held: it expires on its own)
            self._renewing.cancel()
        if self._drawing is not None:
            # processes are waited for (only a drawing under way is left: a fraction of a
            # second), so none outlives the bot
            self._drawing.shutdown(wait=self.processes, cancel_futures=True)
            self._drawing = None

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
            closing=None if out.duplicate else out.abandoned)

    # ---- delivery ------------------------------------------------------------------------------
    def channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id)

    async def table_file(self, ann: Announcement, view: Mapping[str, Any] | None = None,
                         highlights: Sequence[Mapping[str, Any]] | None = None,
                         finished: list[str] | None = None) -> discord.File | None:
        """The table image of `view` (default: the announcement's final view)."""
        view = ann.table_view if view is None else view
        if view is None:
            return None
        try:
            data = await self.draw(render.table_png, view, lang=ann.lang,
                                   highlights=ann.public if highlights is None else highlights)
        except Exception:  # a drawing bug must not stop the game's announcements
            log.exception("game %s: table image failed", ann.game_id)
            return None
        what = join((ann.stage(k) for k in (ann.finished if finished is None else finished)),
                    ann.lang)
        return discord.File(io.BytesIO(data), filename=f"table-{ann.game_id}-r"
                            f"{view.get('round', 0)}.png",
                            description=table_alt(view, what, ann.lang))

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
            await self._post(ch, ann, ann.lines(ann.lang) + hints, await self.table_file(ann),
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

    def _seat(self, row: GameRow, users: list[int], over: bool) -> None:
        """Who sits where, as this process last told it; a game over is forgotten (a
        wrong-channel hint must not point at it, cogs/actions.py `games_elsewhere`)."""
        if over:
            self.bot.seating.pop(row.channel_id, None)
        else:
            self.bot.seating[row.channel_id] = (row.id, users)

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
                if k == 0:  # the AI answers held before it, in the same post (`_lead`)
                    lines = ann.lead + lines
                await self._post(ch, ann, lines + (hints if last else []), image,
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
        await self._post(self.channel(ann.channel_id), ann,
                         [t("recap_caption", ann.lang, game=ann.game_id)],
                         recap_file(ann.game_id, data, ann.lang))

    async def _post(self, ch: discord.PartialMessageable, ann: Announcement, lines: list[str],
                    image: discord.File | None, pings: Sequence[int] = ()) -> None:
        """Lines and/or an image (nothing when both are empty), in as many channel
        messages as the lines need (`pages`), the image with the last; they ping exactly
        `pings` (the bot's default pings nobody)."""
        if not lines and image is None:
            return
        data = image.fp.getvalue() if image else None  # type: ignore[attr-defined]
        bodies = pages(lines, MAX_CONTENT) or [""]

        def post(body: str, last: bool) -> Callable[[], Awaitable[discord.Message]]:
            async def send() -> discord.Message:
                kwargs: dict[str, Any] = {"content": body or None}
                if pings:  # whichever message holds a mention may ping
                    kwargs["allowed_mentions"] = only(*pings)
                if last and data is not None and image is not None:
                    kwargs["file"] = discord.File(io.BytesIO(data), filename=image.filename,
                                                  description=image.description)
                try:
                    return await ch.send(**kwargs)
                except discord.HTTPException as e:
                    if e.code != TOO_LARGE or "file" not in kwargs:
                        raise
                # over this server's upload limit: the words (the post's last lines) still
                # go, the image said missing, rather than the whole message lost
                log.warning("game %s: an image over the upload limit left out", ann.game_id)
                del kwargs["file"]
                note = t("file_too_large", ann.lang)
                kwargs["content"] = clip([body, note] if body else [note])
                return await ch.send(**kwargs)
            return send

        for k, body in enumerate(bodies):
            last = k == len(bodies) - 1
            await deliver(f"game {ann.game_id} announcement", post(body, last),
                          file=last and data is not None)

    async def ping(self, ann: Announcement, a: Ask, *, reminder: bool = False) -> None:
        """A new message mentioning the player (so Discord notifies them), with buttons.
        An AI-played bot seat has nobody to ping (it answers at once)."""
        if not is_person(a.user_id):
            return
        ts = int(a.deadline)
        mention = f"<@{a.user_id}>"
        if reminder:
            text = t("reminder", ann.lang, mention=mention, prompt=a.text[ann.lang], ts=ts)
        else:
            text = i18n.sentences(ann.lang, t("ping", ann.lang, mention=mention,
                                                prompt=a.text[ann.lang]),
                                  t("until", ann.lang, ts=ts))
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
        ann = Announcement(row.id, post_channel(row), row.settings.get("lang", "en"), None,
                           [safe(n) for n in plain_names(row)], [int(s["user"]) for s in row.seats],
                           g.cards, [], {}, [a], None, [])
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
        ann = Announcement(row.id, post_channel(row), row.settings.get("lang", "en"), None,
                           [safe(n) for n in plain_names(row)], users, g.cards, [], {}, asks,
                           marked_view(row, g.view(None)), [])
        await self.publish(ann)

    # ---- the outbox ------------------------------------------------------------------------------
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
        async with self._turn(ann.channel_id):
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
                    await held.claims.enter_async_context(self._claimed(ann.notice))
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
            await self._settle(ann.notice, None if out else leading.told if k == 0 else 0, 0)
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
                await held.claims.enter_async_context(self._claimed(ann.notice))
            lead = [] if leading is None else lead_lines(leading)
            progress = await attempt(ann.notice, lambda: self.publish(
                replace(ann, lead=lead), skip_seat=skip_seat, held=True), 0)
            await self.posting(ann.channel_id, refused=progress.refused,
                               took=progress.took > 0)
            if leading is not None:
                await self._settle_led(leading, progress)
        if progress.stopped is not None:
            async with held.claims:
                await self._settle(ann.notice, progress.stopped, 0)
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
        async with self._turn(channel_id):
            return await self._flush(channel_id)

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
        async with self._turn(channel_id):
            await self._flush(channel_id)
            return await self.tell(notice, send, parts_done=parts_done, attempts=attempts,
                                   channel=channel)

    async def _flush_at(self, channel_id: int, held: Burst) -> None:
        """`held` told at HOLD_MAX_S if it is still held then: an AI thinking long, or
        retrying a busy store for minutes (service/ai_seats.py), kept the moves it had made
        unseen until its next answer or its run's end. Never raises (a task of its own)."""
        await asyncio.sleep(HOLD_MAX_S)
        try:
            async with self._turn(channel_id):
                if self._held.get(channel_id) is held:
                    await self._flush(channel_id)
        except Exception:
            log.exception("channel %s: the held AI answers could not be told", channel_id)

    @contextlib.asynccontextmanager
    async def _turn(self, channel_id: int) -> AsyncIterator[None]:
        """The channel's turn to post (its announcements one after the other, in order)."""
        turn = self._order.setdefault(channel_id, Turn())
        turn.users += 1
        try:
            if turn.owner is not None and turn.owner is asyncio.current_task():
                yield  # (told inside this task's own turn: a game set aside as its post
                return  # loaded it, say — in its place; waiting would wait for itself)
            async with turn.lock, self._telling:
                turn.owner = asyncio.current_task()
                try:
                    yield
                finally:
                    turn.owner = None
        finally:
            turn.users -= 1
            if not turn.users:
                del self._order[channel_id]  # nobody waits: forget the channel

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
            first.notice, lambda: self._post(self.channel(channel_id), first, lines, None), 0)
        await self.posting(channel_id, refused=progress.refused, took=progress.took > 0)
        for k, ((ann, _story), end) in enumerate(zip(held.entries, page_ends(stories),
                                                     strict=False)):
            sent = progress.stopped is None or end <= progress.stopped
            await self._settle(ann.notice, None if sent else held.told if k == 0 else 0, 0)
        if last.ai_waiting and head is None:  # (an AI seat may still be asked: its run
            self.bot.ai.kick(channel_id)      # looks again)
        return progress.stopped is None

    async def publish_start(self, ann: Announcement) -> None:
        """A game's first announcement: who sits where, then the setup's story and pings."""
        seats = join((f"{k + 1}. <@{u}>" if is_person(u) else f"{k + 1}. {ann.names[k]}"
                      for k, u in enumerate(ann.users)), ann.lang)
        rated = await start_line(self.bot.store, ann.game_id, ann.lang)  # issue 24
        text = t("game_start", ann.lang, seats=seats) + (f"\n{rated}" if rated else "")
        await deliver(f"game {ann.game_id} start", lambda: self.channel(ann.channel_id).send(
            text, allowed_mentions=only(*ann.users)))
        await self.publish(ann)

    async def tell(self, notice: int | None, send: Callable[[], Awaitable[None]], *,
                   parts_done: int = 0, attempts: int = 0, channel: int | None = None) -> bool:
        """Deliver one outbox notice through `send`, then take it out of the outbox — or,
        when Discord could not take a message, keep it for a retry from that message.
        Never raises: a failure here is this notice's alone. True when all went out.
        `channel`: the game's channel the notice posts in — a post refused there for want
        of permissions holds its game's time limits, one taken there resumes them."""
        parts_done, attempts = _count(parts_done), _count(attempts)  # (damaged: none yet)
        if notice is None:
            return await self._tell(notice, send, parts_done, attempts, channel)
        if not await self.claim(notice, unsure=True):
            return False  # another process tells it (or this one does, elsewhere)
        async with self._claimed(notice):
            return await self._tell(notice, send, parts_done, attempts, channel)

    async def claim(self, notice: int, *, unsure: bool = False) -> bool:
        """Take the notice for this process (the store's conditional UPDATE: never two);
        False when another process's claim holds, when it is told already, or when this
        process tells it right now. A store that cannot answer gives `unsure`: a live
        announcement goes out anyway (its move is committed; at worst a second process
        told it too, as after a crash mid-post), a pass leaves it for the next one."""
        return notice not in self._holding and await self._take(notice, unsure)

    @contextlib.asynccontextmanager
    async def _claimed(self, notice: int) -> AsyncIterator[None]:
        """A claimed notice held by this process (`_holding`) with its claim renewed, while
        the block tells it (or, for an AI burst's answer, holds it until its post)."""
        self._holding[notice] = time.monotonic()
        if self._renewing is None or self._renewing.done():
            self._renewing = asyncio.create_task(self._renew(), name="rr-claims")
        try:
            yield
        finally:
            self._holding.pop(notice, None)

    async def _take(self, notice: int, unsure: bool) -> bool:
        """The claim written (taken or renewed) until `claim_s` from now."""
        now = time.time()
        try:
            return await self.bot.store.claim_notice(notice, self.holder, now + self.claim_s,
                                                     now)
        except self.bot.store.faults as e:
            log.warning("notice %s: could not be claimed (store: %s)", notice, e)
            return unsure

    async def _renew(self) -> None:
        """The claims of the notices this process tells (`_holding`) kept, each renewed a
        third of `claim_s` after it was last written; ends once none is held. A renewal
        refused means this process stalled past its claim and another took the notice:
        logged, and that one is no longer renewed (at most one duplicate post, as after a
        crash mid-post)."""
        while self._holding:
            every = self.claim_s / 3
            # (a whole third: renewed 1/3–2/3 of a claim after its last write, well inside
            # it; the task outlives the last notice by one such sleep, never a short one)
            await asyncio.sleep(every)
            for notice, written in list(self._holding.items()):
                if time.monotonic() - written < every or notice not in self._holding:
                    continue
                try:
                    kept = await self._take(notice, True)
                except Exception:  # (a task of its own: nobody would hear it raise)
                    log.warning("notice %s: its claim could not be renewed", notice,
                                exc_info=True)
                    continue
                if notice not in self._holding:
                    continue
                if kept:
                    self._holding[notice] = time.monotonic()
                else:
                    self._holding[notice] = math.inf  # (not renewed again)
                    log.warning("notice %s: another process took it over (this one "
                                "stalled past its claim)", notice)

    async def _tell(self, notice: int | None, send: Callable[[], Awaitable[None]],
                    parts_done: int, attempts: int, channel: int | None) -> bool:
        """`tell` of a claimed notice (or of none: nothing in the outbox)."""
        progress = await attempt(notice, send, parts_done)
        if channel is not None:
            await self.posting(channel, refused=progress.refused, took=progress.took > 0)
        if progress.stopped is None and parts_done > progress.count:
            # more messages recorded as sent than the notice has: a damaged row, which
            # would count as told with nothing sent (the reliability audit). Told again
            # from the start: the worst case is a repeat, never a notice lost untold
            log.warning("notice %s: its stored progress (%s messages sent) is past its %d "
                        "messages; told from the start", notice, parts_done, progress.count)
            progress = await attempt(notice, send, 0)
        return await self._settle(notice, progress.stopped, attempts)

    async def _settle(self, notice: int | None, stopped: int | None, attempts: int) -> bool:
        """A notice's try recorded: out of the outbox when nothing `stopped`, else kept for
        a retry from message `stopped` (dropped after NOTICE_ATTEMPTS). True when told."""
        if notice is None:
            return stopped is None
        try:
            if stopped is None:
                self._told.add(notice)
                await self.bot.store.delivered(notice)
                self._told.discard(notice)
                return True
            if attempts + 1 >= NOTICE_ATTEMPTS:
                log.error("notice %s: not delivered after %d attempts; dropped", notice,
                          attempts + 1)
                await self.bot.store.delivered(notice)
                return False
            delay = notice_retry_s(attempts)
            await self.bot.store.retry_later(notice, stopped, time.time() + delay)
        except self.bot.store.faults as e:  # busy or cut off: the notice stays pending and
            # comes back (a notice told twice is the worst case, never a lost one)
            log.warning("notice %s: its delivery is recorded later (store: %s)", notice, e)
        except Exception:
            log.exception("notice %s: could not record its delivery", notice)
        return False

    async def posting(self, channel: int, *, refused: bool, took: bool) -> None:
        """What Discord did with the bot's posts in a game's channel, told to the time
        limits: refused for want of permissions, its game's clocks are held (no seat is
        timed out on a question nobody could read); a post with an image taken (text alone
        does not show Attach Files: a channel without it flapped between held and going on
        at every text post), or the permissions shown back (cogs/actions.py `ack`), a held
        game goes on — its channel told so, then its open questions asked again with their
        full time limit. Never raises."""
        limits = self.bot.service.limits
        try:
            if refused:
                await limits.hold(channel)
                return
            if not took or (row := await limits.resume(channel)) is None:
                return
            g = await self.bot.service.tables.load(row)
            await self.goes_on(row)
            await self.repost(row, g)
            self._ai_goes_on(row, g)
        except asyncio.CancelledError:
            raise
        except self.bot.store.faults as e:  # busy or cut off: expected, one line
            log.warning("channel %s: its game's time limits are held or resumed at the next "
                        "post (store: %s)", channel, e)
        except Exception:
            log.warning("channel %s: its game's time limits could not be held or resumed; "
                        "the next post tries again", channel, exc_info=True)

    async def goes_on(self, row: GameRow) -> None:
        """The line telling a held game's channel that the bot can post there again."""
        await deliver(f"game {row.id} goes on", lambda: self.channel(row.channel_id).send(
            t("game_goes_on", game_lang(row))))

    def _ai_goes_on(self, row: GameRow, g: Game) -> None:
        """After a resume, an AI seat asked while the game was held answers now: the pass
        skipped it while held, and the next one is up to 30 s away (a kick before the
        resume would let the AI move the game under it, and the resume give up)."""
        if ai_waiting(row, g):
            self.bot.ai.kick(row.channel_id)

    async def probe(self, channel: int) -> None:
        """A held game's channel tried again (the time-limit pass, every PROBE_S): its table
        and open questions posted as they stand; taken with the image, the game goes on
        (`resume`: each question's full time limit, as the reposted questions say) and the
        channel is told so. Refused, it stays held, unseen. Not tried while the bot is not in
        the game's server (removed: each try was one more refused post, its image drawn);
        added back, the next try or command there lets it go on. A channel Discord says is
        deleted (404 Unknown Channel) ends its game (`Lobby.channel_gone`). Never raises."""
        service = self.bot.service
        try:
            if (row := await service.limits.held_game(channel)) is None or \
                    (row.guild_id is not None and self.bot.get_guild(row.guild_id) is None):
                return
            game = row
            g = await service.tables.load(game)
            with channel_watch() as gone:
                progress = await attempt(None, lambda: self.repost(game, g), 0)
            if gone:
                await service.lobby.channel_gone(channel, game.id)
                return
            if progress.refused or not progress.took or \
                    await service.limits.resume(channel) is None:
                return
            await self.goes_on(game)
            self._ai_goes_on(game, g)
        except asyncio.CancelledError:
            raise
        except self.bot.store.faults as e:  # busy or cut off: expected, one line
            log.warning("channel %s: its held game is tried again at the next pass (store: "
                        "%s)", channel, e)
        except Exception:
            log.warning("channel %s: its held game could not be tried again; the next pass "
                        "tries", channel, exc_info=True)

    async def redeliver(self, notice: Notice) -> bool:
        """A notice left in the outbox (a crash, or Discord down): rebuilt from the stored
        game and told. Never raises (one game's trouble is its own)."""
        if notice.id in self._told:  # told already; only recording it failed
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
            return await self.tell(notice.id, lambda: self.publish_abandoned(ended),
                                   parts_done=notice.parts_done, attempts=notice.attempts)
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
        return await self.tell(notice.id, send, parts_done=notice.parts_done,
                               attempts=notice.attempts)


    async def _record(self, notice: int) -> bool:
        """Record a notice told earlier in this process as delivered, sending nothing."""
        try:
            await self.bot.store.delivered(notice)
        except self.bot.store.faults as e:
            log.warning("notice %s: its delivery is recorded later (store: %s)", notice, e)
            return False
        self._told.discard(notice)
        return True

    async def _foreign(self, notice: Notice, why: ForeignNotice) -> bool:
        """A kind this release does not know: never told as another kind. Left for a newer
        process (a rolling upgrade) with the usual back-off, set aside when none took it."""
        try:
            if notice.attempts + 1 >= NOTICE_ATTEMPTS:
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
                                             time.time() + NOTICE_RETRY_S[-1], counted=False)
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


def _count(value: object) -> int:
    """A stored count (messages sent, tries) as a count: text or a negative number from a
    damaged outbox row reads as none yet."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


async def _nothing() -> None:
    return None


async def _fail() -> None:
    raise RuntimeError("the announcement could not be rebuilt")
