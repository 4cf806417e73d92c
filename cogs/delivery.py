"""Delivery to Discord: one call made, retried, or given up on without losing a game.

Every post, ping and DM of the bot goes through `deliver`, which retries rate limits, server
errors and network errors and degrades on refusals (logged; a deleted channel is noted for
`channel_watch`, a want of permissions for the time limits: `Progress.refused`). Inside an
outbox notice's try (`attempt`), its messages are counted in the order they are sent
(`Progress`), so a retry skips the ones an earlier try sent and stops where Discord stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import aiohttp
import discord

log = logging.getLogger("rr.announce")
T = TypeVar("T")
RETRY_DELAYS = (0.25, 1.0)
TOO_LARGE = 40005  # Discord: "Request entity too large" (an upload over the server's limit)


@dataclass(slots=True)
class Progress:
    """Messages of one outbox notice, counted in the order they are sent (see `tell`)."""

    skip: int = 0  # sent by an earlier attempt: not again
    count: int = 0  # messages reached so far
    stopped: int | None = None  # the first one Discord could not take (retried from there)
    refused: bool = False  # Discord refused one for want of the bot's permissions there
    # messages with a file Discord took on this attempt: each shows every permission a
    # game's hold may be for (a text post alone does not show Attach Files, `posting`)
    took: int = 0


_progress: contextvars.ContextVar[Progress | None] = contextvars.ContextVar(
    "rr_progress", default=None)
UNKNOWN_CHANNEL = 10003  # Discord's code for a channel that no longer exists
UNKNOWN_MESSAGE = 10008  # … and for a message that no longer exists (deleted)
# … and for a post refused for want of the bot's permissions in the channel (View Channel:
# Missing Access; Send Messages, Attach Files: Missing Permissions), or in a thread a
# moderator locked (Thread is locked; archived and locked: Thread is archived, as a post
# unarchives a thread that is not locked) — time limits are held
NO_PERMISSION = frozenset({50001, 50013, 160005, 50083})
_gone: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "rr_gone", default=None)
SENT_BEFORE: Any = object()  # what `deliver` returns for a message an earlier attempt sent


def hold_slot() -> None:
    """Count a message that was not needed this time (a DM fallback after a DM went
    through), so the numbering of a notice's messages is the same on every attempt."""
    if (p := _progress.get()) is not None:
        p.count += 1


def snowflake(value: object) -> bool:
    """A Discord id as the API takes one: a stored value that is not is a damaged row, and
    sending it would only earn a 400 at every try."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**64


async def deliver(what: str, call: Callable[[], Awaitable[T]], *,
                  file: bool = False) -> T | None:
    """Run one Discord call; retry 429/5xx/network errors twice, give up on 4xx.

    discord.py already retries inside a request; this covers what is left after that
    (a longer outage). Returns None when the call could not be made. Inside `tell`, a
    message an earlier attempt sent is skipped, and after one that could not be sent for
    want of Discord the rest wait (in order) for the notice's retry. `file`: the message
    carries one (taken, it shows the bot may post everything there: `Progress.took`).
    """
    progress = _progress.get()
    if progress is not None:
        index, progress.count = progress.count, progress.count + 1
        if index < progress.skip:
            return cast(T, SENT_BEFORE)  # a stand-in: callers only tell it from None
        if progress.stopped is not None:
            return None
        call = _watched(call, progress, index)
    for attempt in range(len(RETRY_DELAYS) + 1):
        try:
            done = await call()
            if progress is not None:
                progress.took += int(file)
            return done
        except discord.RateLimited as e:
            delay = min(e.retry_after, 30.0)
        except discord.HTTPException as e:
            if e.status != 429 and e.status < 500:
                refused(what, e, progress)
                return None
            delay = RETRY_DELAYS[min(attempt, len(RETRY_DELAYS) - 1)]
        except (TimeoutError, aiohttp.ClientError, OSError) as e:
            delay = RETRY_DELAYS[min(attempt, len(RETRY_DELAYS) - 1)]
            log.warning("%s: network error %r", what, e)
        if attempt < len(RETRY_DELAYS):
            await asyncio.sleep(delay)
    log.warning("%s failed after retries; giving up (the game itself is saved)", what)
    if progress is not None:
        progress.stopped = index
    return None


async def or_without_image(send: Callable[[bool], Awaitable[T]], what: str) -> T:
    """`send(True)` (with its image); when Discord refuses the image as over the server's
    upload limit (413 / 40005: 10 MiB by default, less on some servers), `send(False)`:
    the words still reach the player, who is told the image was left out (the caller adds
    `file_too_large`). Any other error is the caller's (`deliver`)."""
    try:
        return await send(True)
    except discord.HTTPException as e:
        if e.code != TOO_LARGE:
            raise
    log.warning("%s: an image over the upload limit left out", what)
    return await send(False)


def refused(what: str, e: discord.HTTPException, progress: Progress | None) -> None:
    """A call Discord refused for good (4xx, not a rate limit), logged — and noted where it
    tells the game: a deleted channel (`channel_watch`), or a want of the bot's permissions
    there, which holds the game's time limits (`Announcer.posting`)."""
    if isinstance(e, discord.NotFound):
        log.warning("%s: not found (404, code %s)", what, e.code)
        if e.code == UNKNOWN_CHANNEL and (gone := _gone.get()) is not None:
            gone.append(what)
        return
    log.warning("%s refused by Discord (HTTP %s, code %s)", what, e.status, e.code)
    if progress is not None and e.code in NO_PERMISSION:
        progress.refused = True


@contextlib.contextmanager
def channel_watch() -> Iterator[list[str]]:
    """The calls `deliver` made inside the block that Discord answered 'Unknown Channel'
    (the channel was deleted): the time-limit pass ends such a game rather than timing it
    out, unheard, at every limit for the rest of its rounds (the timers audit)."""
    found: list[str] = []
    token = _gone.set(found)
    try:
        yield found
    finally:
        _gone.reset(token)


def _watched(call: Callable[[], Awaitable[T]], progress: Progress,
             index: int) -> Callable[[], Awaitable[T]]:
    """`call`, noting in `progress` a failure `deliver` does not handle (a bug, a bad file):
    the notice is retried from this message, never past it."""
    async def run() -> T:
        try:
            return await call()
        except (discord.DiscordException, TimeoutError, aiohttp.ClientError, OSError):
            raise  # retried or given up by `deliver` itself
        except Exception:
            if progress.stopped is None:
                progress.stopped = index
            raise
    return run



def current_progress() -> Progress | None:
    """The progress of the notice being told in this task (`attempt`), if any."""
    return _progress.get()


async def attempt(notice: int | None, send: Callable[[], Awaitable[None]],
                  parts_done: int) -> Progress:
    """One try at `send`, skipping the first `parts_done` messages; its progress."""
    progress = Progress(skip=parts_done)
    token = _progress.set(progress)
    try:
        await send()
    except Exception:
        log.exception("notice %s: announcement failed", notice)
        if progress.stopped is None:  # retried from the first message not sent
            progress.stopped = progress.count
    finally:
        _progress.reset(token)
    return progress
