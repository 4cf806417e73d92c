"""The drawing pool: where the announcer's channel images are drawn, and each table image.

Channel images are drawn in the announcer's own workers, at most DRAWING at once, so under
load they wait their turn instead of competing with the event loop that acknowledges and
answers players (issue 22). A table image carries alt text saying what ended (`table_alt`).
"""

from __future__ import annotations

import asyncio
import functools
import io
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any, TypeVar

import discord

import render
from service.workers import ProcessExpired, Workers

from .announcement import Announcement, table_alt
from .i18n import join
from .outbox import Outbox, Stage

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


class Drawing(Outbox):
    """The announcer's images: its drawing pool (made at the first image) and table images."""

    def __init__(self, bot: Stage, *, processes: bool = False) -> None:
        super().__init__(bot, processes=processes)
        self.processes = processes
        self._drawing: Executor | None = None

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
    def close(self) -> None:
        super().close()
        if self._drawing is not None:
            # processes are waited for (only a drawing under way is left: a fraction of a
            # second), so none outlives the bot
            self._drawing.shutdown(wait=self.processes, cancel_futures=True)
            self._drawing = None
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

