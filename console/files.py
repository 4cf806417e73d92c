"""The files the console writes beside the game: table images, recaps and reviews.

It exists because a terminal cannot show the pictures the bot posts: each is written to the
output folder instead, named so a resumed game never overwrites its own (`table-0007.png`)
and two databases sharing a folder never overwrite each other's (`recap-club-3.gif`). Every
file is a bonus: a failure is told in one line and the game goes on without it. The
renderer is imported inside the functions that draw, not at the top, because Pillow is
optional for the console (ImportError: it plays without images) — not to dodge an import
loop.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

import i18n
from engine import Game, View
from service.replay import replay
from service.review import Reviewer, check_reviewable
from service.review_words import charted, review_lines
from store import GameRow, GameStore, review_store

from .options import Table
from .seats import Seats
from .text import excerpt, plain

log = logging.getLogger("rr.console")
DEFAULT_DB = "rr-console.db"


class Files(Seats):
    """The console's output folder: the images, recaps and reviews it writes there."""

    def __init__(self, store: GameStore, out_dir: Path, lang: str, stdout: TextIO, db: str,
                 table: Table) -> None:
        super().__init__(store, out_dir, lang, stdout, db, table)
        self.images = last_image(out_dir)
        self.review_processes = True  # the review's workers: processes (tests: threads)

    def game_file(self, kind: str, game_id: int, ext: str) -> Path:
        """One game's file in the output folder: `recap-3.gif`, or with another database
        `recap-club-3.gif` (its name), since each database numbers its games from 1 and two
        sharing a folder would overwrite each other's."""
        stem = Path(self.db).stem
        tag = "" if self.db == DEFAULT_DB else re.sub(r"[^\w.-]+", "_", stem) + "-"
        return self.out_dir / f"{kind}-{tag}{game_id}.{ext}"

    async def write_image(self, view: View, highlights: Sequence[Mapping[str, Any]]) -> None:
        try:
            from render import table_png
        except ImportError:  # the renderer is optional for the console
            return
        self.images += 1
        path = self.out_dir / f"table-{self.images:04d}.png"
        try:
            data = await asyncio.to_thread(table_png, view, lang=self.lang,
                                           highlights=highlights)
            path.write_bytes(data)
        except Exception as e:  # an image is a bonus: the game goes on without it
            log.exception("image %s", path)
            self.say("  " + self.t("image_failed", err=excerpt(str(e) or type(e).__name__, self.lang, 60)))
            return
        self.say("  " + self.t("image", path=path))

    async def write_recap(self, row: GameRow, g: Game) -> None:
        """`recap-<game>.gif` (`game_file`) in the output folder: the whole game as one animation (the
        image the bot posts when a game ends, issue 24)."""
        if not g.over:
            self.say("! " + self.t("recap_not_over"))
            return
        try:
            from render.recap import recap_gif
        except ImportError:  # the renderer is optional for the console
            return
        path = self.game_file("recap", row.id, "gif")
        names = [str(s["name"]) for s in row.seats]
        try:
            steps, title = replay(g.setup, g.state["log"], names).recap(row.id, self.lang)
            data = await asyncio.to_thread(recap_gif, steps, title, lang=self.lang)
            path.write_bytes(data)
        except Exception as e:  # an image is a bonus: the game is kept without it
            log.exception("recap %s", path)
            self.say("  " + self.t("image_failed", err=excerpt(str(e) or type(e).__name__, self.lang, 60)))
            return
        self.say("  " + self.t("recap", path=path))

    async def write_review(self, row: GameRow) -> None:
        """`review`: the expert's review of the finished game (issue 23), its words printed
        and its chart written to `review-<game>.png`; computed once, then read back from the
        database (service/review.py). A daily game here is a past day's, its key published."""
        row = check_reviewable(await self.store.get(row.id), channel_id=row.channel_id,
                               user_id=0, day_open=lambda day: False)
        g = await self.service.tables.load(row)  # a game set aside is not reviewed (as the bot's)
        shown = -1

        def progress(done: int, total: int) -> None:
            nonlocal shown
            tenth = done * 10 // max(total, 1)
            if tenth > shown:  # one line per tenth of the decisions
                shown = tenth
                self.say(self.t("review_progress", done=done, total=total))

        reviewer = Reviewer(review_store(self.store), processes=self.review_processes)
        try:
            # the log as verified (as the bot's): a row damaged since does not replay, and
            # the review failed on it at every ask (the fault-injection audit)
            review = await reviewer.review(row, g.log,
                                           await self.store.authors(row.id), progress)
        except Exception:  # a log that no longer replays, a dead worker: words, not a traceback
            log.exception("review of game %s", row.id)
            self.say("! " + i18n.t(self.lang, "review.failed", game=row.id))
            return
        finally:
            reviewer.close()
        names = [str(x["name"]) for x in row.seats]
        self.say_lines([plain(x, self.lang)
                        for x in review_lines(review, names, row.setup or {}, self.lang)])
        path = self.game_file("review", row.id, "png")
        try:
            from render.review import Panel, review_png
        except ImportError:  # the renderer is optional for the console
            return
        panels = [Panel(names[s.seat], s.seat, [(p.round, p.p) for p in s.points], s.marks())
                  for s in charted(review)]
        if not panels:
            return
        path.write_bytes(await asyncio.to_thread(review_png, panels, lang=self.lang))
        self.say("  " + self.t("review_written", path=path))


def last_image(out_dir: Path) -> int:
    """The highest image number already in the folder, so a resumed game never overwrites."""
    numbers = [int(m.group(1)) for p in out_dir.glob("table-*.png")
               if (m := re.fullmatch(r"table-(\d+)\.png", p.name))]
    return max(numbers, default=0)
