"""The tutorial in the terminal (issue 23): `--tutorial`, or `tutorial` typed in a game.

The same lessons and judging as the bot (service/tutorial.py); the console only prints a
step — its words, the text board, the numbered choices the bot shows as buttons — and
writes the step's image (the squares that matter framed, render.focus_png) to the output
folder. A choice is typed by its number or as the action itself (the same notation as a
game); `skip`, `restart`, `lesson N` and `leave` move about. The learner's place is kept in
`--db` after every step, so `--tutorial` resumes it after a quit, Ctrl-C or a crash.
"""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path
from typing import TextIO

import i18n
from service.refusals import line as refusal_line
from service.tutorial import Screen, Tutorial, lessons
from store import TutorialStore

from . import board
from .text import excerpt, plain, plain_markdown, t

log = logging.getLogger("rr.console")

LEARNER = 1  # the console's one learner (its progress row in --db)
# Tutorial commands by their typed word (English or Japanese) → what they do.
MOVES = {
    "skip": "skip", "next": "skip", "飛ばす": "skip", "次": "skip",
    "restart": "restart", "やり直し": "restart", "やり直す": "restart",
    "leave": "leave", "中断": "leave", "back": "leave",
    "lesson": "lesson", "レッスン": "lesson",
    "show": "show", "表示": "show", "tutorial": "show", "チュートリアル": "show",
}


class Learning:
    """One learner at the terminal: prints steps, answers typed lines, keeps the place."""

    def __init__(self, store: TutorialStore, out_dir: Path, lang: str, stdout: TextIO) -> None:
        self.tutorial = Tutorial(store)
        self.out_dir = out_dir
        self.lang = lang
        self.out = stdout
        self.screen: Screen | None = None

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def t(self, key: str, **kw: object) -> str:
        return t(key, self.lang, **kw)

    async def begin(self, lesson: str = "") -> None:
        """Start or resume: the welcome for a newcomer, 'welcome back' otherwise; then the
        step where the learner stands, or the lesson asked for (`tutorial 3`)."""
        sc, resumed = await self.tutorial.current(LEARNER, self.lang)
        # a finished tutorial is not "going on where you left it" (the Discord audit)
        self.say(plain_markdown(_t(self.lang, "tutorial.resumed_done") if resumed and sc.all_done
                                else self.t("tutorial_resumed" if resumed else "tutorial_welcome")))
        if not (lesson and await self.go_to(lesson)):
            await self.show(sc)

    async def go_to(self, number: str) -> bool:
        """`lesson N` (or `tutorial N`): that lesson's first step; a number out of range is
        refused with the range (False)."""
        if not number.isdigit() or not 1 <= int(number) <= len(lessons()):
            self.say("! " + self.t("tutorial_lesson_number", n=len(lessons())))
            return False
        await self.show(await self.tutorial.goto(LEARNER, int(number) - 1, self.lang))
        return True

    async def show(self, sc: Screen, before: str = "") -> None:
        self.screen = sc
        if before:
            self.say(before)
            for told in sc.story(self.lang):  # what the answer did, before what comes next
                self.say("  " + plain(told, self.lang))
        head = "tutorial.header_done" if sc.finished else "tutorial.header"
        self.say(plain_markdown(_t(self.lang, head, n=sc.lesson + 1, total=sc.total,
                                   title=sc.title, rules=i18n.join(self.lang, sc.rules),
                                   step=min(sc.step + 1, sc.steps), steps=sc.steps)))
        for line in board.full(sc.cards, sc.view, self.lang):
            self.say("  " + line)
        self.say(plain_markdown(sc.text))
        for k, (_, words) in enumerate(sc.buttons, 1):
            self.say(f"  {k}. {words}")
        await self.image(sc)
        # the last lesson done: no "next" to offer, and a game starts with `new` here
        moves = ("tutorial_moves_all_done" if sc.all_done else
                 "tutorial_moves_done" if sc.finished else "tutorial_moves")
        self.say(self.t(moves))

    async def image(self, sc: Screen) -> None:
        try:
            from render import focus_png
        except ImportError:  # the renderer is optional for the console
            return
        path = self.out_dir / f"tutorial-{sc.lesson + 1}-{min(sc.step + 1, sc.steps)}.png"
        try:
            data = await asyncio.to_thread(focus_png, sc.view, 0, sc.highlight,
                                           lang=self.lang, highlights=sc.events)
            path.write_bytes(data)
        except Exception as e:  # an image is a bonus: the lesson goes on without it
            log.exception("image %s", path)
            self.say("  " + self.t("image_failed",
                                   err=excerpt(str(e) or type(e).__name__, self.lang, 60)))
            return
        self.say("  " + self.t("image", path=path))

    async def handle(self, line: str) -> bool:
        """One typed line; False when the learner leaves the tutorial."""
        words = line.split(" ")
        move = MOVES.get(words[0].casefold()) if line else "show"
        if move == "show" and len(words) > 1:  # `tutorial 3` is `lesson 3`, not lesson 1 again
            move = "lesson"
        sc = self.screen or (await self.tutorial.current(LEARNER, self.lang))[0]
        if move == "leave":
            self.say(self.t("tutorial_left"))
            return False
        if move == "show":
            await self.show((await self.tutorial.current(LEARNER, self.lang))[0])
        elif move == "skip":
            await self.show(await self.tutorial.next_lesson(LEARNER, self.lang))
        elif move == "restart":
            await self.show(await self.tutorial.restart(LEARNER, self.lang))
        elif move == "lesson":
            await self.go_to(words[1] if len(words) > 1 else "")
        elif sc.finished:
            self.say("! " + _t(self.lang, "tutorial.nothing_open"))
        elif re.fullmatch(r"-?\d+", line) and not 1 <= int(line) <= len(sc.buttons):
            # (`-1` is a number out of range too, not an action tried and judged wrong)
            self.say("! " + self.t("tutorial_choose", n=len(sc.buttons)))
        else:
            # `NAME: ACTION`, as in a game: the tutorial has one learner, so any name is theirs
            typed = line.split(":", 1)[1].strip() if ":" in line else line
            action = sc.buttons[int(typed) - 1][0] if typed.isdigit() else typed
            await self.answer(sc, action)
        return True

    async def answer(self, sc: Screen, action: str) -> None:
        lesson = lessons()[sc.lesson].id
        out = await self.tutorial.answer(LEARNER, lesson, sc.step, action, self.lang)
        if out is None:  # (another process moved the learner on): show where they stand
            await self.show((await self.tutorial.current(LEARNER, self.lang))[0])
        elif out.accepted:
            await self.show(out.screen, plain_markdown(_t(self.lang, "tutorial.good")))
        else:
            why = "" if out.refusal is None else plain(refusal_line(out.refusal, self.lang),
                                                        self.lang)
            self.say(plain_markdown(_t(self.lang, out.lead)) + " " + i18n.sentences(
                self.lang, why, plain_markdown(out.explanation)))  # no space after 。


def _t(lang: str, key: str, **kw: object) -> str:
    """A `tutorial.*` text (shared with the bot), not a `console.*` one."""
    return i18n.t(lang, key, **kw)
