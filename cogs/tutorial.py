"""`/rr-learn tutorial`: the tutorial you play (issue 23), in one private message.

A top-level group of its own: `/rr` already has Discord's maximum of 25 subcommands; the
group also holds `/rr-learn review` (the game review, cogs/review.py).

Where it is played: an **ephemeral** message where the command was typed — in a server
channel, a DM with the bot or a user-install context alike — rather than the player's DMs.
A lesson is one person's private practice: ephemeral keeps it out of everyone else's
channel without asking the bot to open a DM (which a user-installed bot or a member with
DMs from servers turned off cannot get), and every click edits the same message in place,
so a lesson never floods anything. If the message is closed or lost, `/rr-learn tutorial`
shows the current step again: the place is stored per user (service/tutorial.py), not in
the message.

The taught action is offered as buttons (the `/rr act` family cannot reach a lesson's
position), with Skip lesson / Restart lesson / Leave below. Custom ids name everything a
click needs — `rr:learn:{lesson}:{step}:{choice}`, `choice` a button's number or `s`kip,
`r`estart, `l`eave — so the buttons work after a restart; a button of a step the learner has
left shows where they stand now. The learner is always the clicker (only they see the
message), so there is nobody else's tutorial to reach.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import logging
import re
from collections.abc import Awaitable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import i18n
from render import focus_png
from service.review import Reviewer
from service.tutorial import Screen, Tutorial, lessons
from store import tutorial_store

from .actions import ack, guarded, refusal, reply, rook
from .delivery import deliver, or_without_image
from .i18n import lang_of, t, text
from .pages import clip
from .review import new_reviewer, review_command
from .text import markdowns

_ = app_commands.locale_str
log = logging.getLogger("rr.tutorial")

MOVES = {"s": "skip", "r": "restart", "l": "leave"}
# An image's description (alt text): Discord takes up to 1024 characters; the bot's images
# keep under 1000 (cogs/announcement.py `table_alt`, cogs/review.py).
ALT_MAX = 1000


def host(interaction: discord.Interaction) -> Tutorial:
    """The tutorial on the bot's own store (one row per learner)."""
    return Tutorial(tutorial_store(rook(interaction).store))


def learner_name(interaction: discord.Interaction) -> str:
    """The learner's name on the board image: drawn as it is (markdown escapes would show
    on a picture); the text never repeats it."""
    return interaction.user.display_name[:32]


def screen_text(sc: Screen, lang: str, before: str = "") -> str:
    head = "tutorial.header_done" if sc.finished else "tutorial.header"
    lines = [text(lang, head, n=sc.lesson + 1, total=sc.total, title=sc.title,
                    rules=i18n.join(lang, sc.rules), step=min(sc.step + 1, sc.steps),
                    steps=sc.steps)]
    if before:
        lines.append(before)
        lines += markdowns(sc.story(lang), lang)  # what the answer did, before what comes next
    lines.append(sc.text)
    if sc.all_done:  # how a game starts is the interface's to say (the console: `new`)
        lines.append(text(lang, "tutorial.start_solo"))
    return clip(lines)


# A roll's answers as a game's own buttons read them (cogs/views.py): the lesson teaches the
# buttons a learner will meet, not the notation behind them (the Discord audit: `reroll`,
# `keep`, `levelup 5B` here; "Reroll (1 honor mark)", "Keep", "Level up 2B" in a game).
ROLL_BUTTONS = {"reroll": "bot.btn_reroll", "keep": "bot.btn_keep", "levelup": "bot.btn_levelup"}


def button_label(action: str, words: str, lang: str) -> str:
    """A step's button: a roll's answer as the game's button says it, else the words."""
    verb, _, square = action.strip().partition(" ")
    key = ROLL_BUTTONS.get(verb.casefold())
    return words if key is None else text(lang, key, square=square.upper())


def screen_view(sc: Screen, lang: str) -> discord.ui.View:
    """The step's choices on the first row, Skip (Next, once done) / Restart / Leave below."""
    view = discord.ui.View(timeout=None)
    for k, (action, words) in enumerate(sc.buttons[:5]):
        view.add_item(LearnButton(sc.lesson, sc.step, str(k), mark=action_mark(action),
                                  label=button_label(action, words, lang)[:80],
                                  style=discord.ButtonStyle.primary))
    skip = "tutorial.button.next" if sc.finished else "tutorial.button.skip"
    for choice, key in (("s", skip), ("r", "tutorial.button.restart"),
                        ("l", "tutorial.button.leave")):
        view.add_item(LearnButton(sc.lesson, sc.step, choice, label=text(lang, key), row=1,
                                  style=discord.ButtonStyle.success if choice == "s"
                                  and sc.finished else discord.ButtonStyle.secondary,
                                  disabled=choice == "s" and sc.all_done))
    return view


async def screen_file(sc: Screen, lang: str) -> discord.File:
    """The board with the step's squares framed, drawn off the event loop; described as
    this lesson and step (what a screen reader says of it), not as any tutorial image."""
    data = await asyncio.to_thread(focus_png, sc.view, 0, sc.highlight, lang=lang,
                                   highlights=sc.events)
    return discord.File(io.BytesIO(data), filename="tutorial.png",
                        description=sc.image_text(lang)[:ALT_MAX])


async def screen_message(sc: Screen, lang: str, before: str = "") -> dict[str, Any]:
    return {"content": screen_text(sc, lang, before), "view": screen_view(sc, lang),
            "file": await screen_file(sc, lang)}


def lesson_choices() -> list[app_commands.Choice[int]]:
    """Every lesson by its number and title, in the reader's language (Discord shows a
    command's choices in the client's locale)."""
    return [app_commands.Choice(name=_(f"{k}. {lesson.title(i18n.DEFAULT)}",
                                       **{lang: f"{k}. {lesson.title(lang)}"
                                          for lang in i18n.LANGS if lang != i18n.DEFAULT}),
                                value=k)
            for k, lesson in enumerate(lessons(), 1)]


@app_commands.allowed_installs(guilds=True, users=True)
@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
class LearnCommands(commands.GroupCog, group_name="rr-learn",
                    group_description=_("Learn Rook & Raiders")):
    """`/rr-learn`: learning the game (the tutorial, the game review)."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        self.reviewer: Reviewer | None = None  # made on the first review asked
        super().__init__()

    async def cog_unload(self) -> None:
        if self.reviewer is not None:
            self.reviewer.close()

    @app_commands.command(name="tutorial", description=_(
        "Play the tutorial: short lessons on prepared positions (only you see it)"))
    @app_commands.describe(lesson=_("Go to a lesson from its start (default: where you left off)"))
    @app_commands.choices(lesson=lesson_choices())
    async def tutorial(self, interaction: discord.Interaction,
                       lesson: app_commands.Choice[int] | None = None) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction):
            return
        name, tut = learner_name(interaction), host(interaction)
        if lesson is not None:  # any lesson again, by its number, without a greeting
            sc, before = await tut.goto(interaction.user.id, lesson.value - 1, lang, name), ""
        else:
            sc, resumed = await tut.current(interaction.user.id, lang, name)
            before = text(lang, "tutorial.welcome" if not resumed else
                          "tutorial.resumed_done" if sc.all_done else "tutorial.resumed")
        learning(interaction, sc)
        parts = await screen_message(sc, lang, before)
        await reply(interaction, parts.pop("content"), **parts)

    @app_commands.command(name=_("review", id="command.rr-learn.review"), description=_(
        "The expert's review of a finished game: your costliest decisions and a chart "
        "(only you see it)"))
    @app_commands.describe(game=_("The game's number (default: this channel's last game)"))
    async def review(self, interaction: discord.Interaction,
                     game: app_commands.Range[int, 1] | None = None) -> None:
        """The expert's review (cogs/review.py): computed once, then stored."""
        lang = lang_of(interaction)
        if not await ack(interaction):
            return
        if self.reviewer is None:
            self.reviewer = new_reviewer(rook(interaction))
        await review_command(interaction, self.reviewer, game, lang)


def action_mark(action: str) -> str:
    """A short mark of a choice's action, kept in its button: a lesson file that reorders
    a step's choices must not make an open message's button answer another one (the
    verification audit: an old 'ready 4B' button answered 'act 4B to 5B')."""
    return hashlib.blake2s(action.encode(), digest_size=3).hexdigest()


class LearnButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                  template=r"rr:learn:(?P<lesson>\d{1,3}):(?P<step>\d{1,3}):(?P<c>[0-9srl])"
                           r"(?::(?P<m>[0-9a-f]{6}))?"):
    """A tutorial button: answer choice `c` of (lesson, step) — its action marked `m` — or
    skip / restart / leave."""

    def __init__(self, lesson: int, step: int, choice: str, *, label: str = "?",
                 row: int = 0, disabled: bool = False, mark: str = "",
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary) -> None:
        super().__init__(discord.ui.Button(
            label=label, row=row, style=style, disabled=disabled,
            custom_id=f"rr:learn:{lesson}:{step}:{choice}" + (f":{mark}" if mark else "")))
        self.lesson, self.step, self.choice, self.mark = lesson, step, choice, mark

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction,
                             item: discord.ui.Item[Any], match: re.Match[str]) -> LearnButton:
        return cls(int(match["lesson"]), int(match["step"]), match["c"], mark=match["m"] or "")

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self.press(interaction))

    async def press(self, interaction: discord.Interaction) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction, thinking=False):
            return
        tut, user, name = host(interaction), interaction.user.id, learner_name(interaction)
        move = MOVES.get(self.choice)
        before = ""
        if move == "leave":
            learning(interaction, None)
            await self.edit(interaction, {"content": text(lang, "tutorial.left"),
                                          "view": None}, None)
            return
        if move == "skip":
            sc = await tut.next_lesson(user, lang, name)
        elif move == "restart":
            sc = await tut.restart(user, lang, name)
        else:
            sc, before = await self.answer(tut, user, lang, name)
        learning(interaction, sc)
        parts = await screen_message(sc, lang, before)
        image = parts.pop("file")
        await self.edit(interaction, parts, image)

    async def answer(self, tut: Tutorial, user: int, lang: str,
                     name: str) -> tuple[Screen, str]:
        """The screen after this answer and the line above it (well done / why not)."""
        now, _resumed = await tut.current(user, lang, name)
        all_lessons = lessons()
        if (self.lesson >= len(all_lessons) or (now.lesson, now.step) != (self.lesson, self.step)
                or now.finished or int(self.choice) >= len(now.buttons)
                or action_mark(now.buttons[int(self.choice)][0]) != self.mark):
            return now, text(lang, "tutorial.old_button")
        action = now.buttons[int(self.choice)][0]
        out = await tut.answer(user, all_lessons[self.lesson].id, self.step, action, lang, name)
        if out is None:  # moved on meanwhile (another click, another process)
            return (await tut.current(user, lang, name))[0], text(lang, "tutorial.old_button")
        if out.accepted:
            return out.screen, text(lang, "tutorial.good")
        why = "" if out.refusal is None else refusal(out.refusal, lang)
        # sentences as the language joins them (no space after 。 in Japanese)
        return out.screen, f"{text(lang, out.lead)} " + i18n.sentences(lang, why,
                                                                      out.explanation)

    async def edit(self, interaction: discord.Interaction, parts: dict[str, Any],
                   image: discord.File | None) -> None:
        """The clicked (ephemeral) message, edited in place."""
        files = [image] if image is not None else []
        lang = lang_of(interaction)

        def send(with_image: bool) -> Awaitable[discord.InteractionMessage]:
            if with_image:
                return interaction.edit_original_response(attachments=files, **parts)
            return interaction.edit_original_response(attachments=[], **{
                **parts, "content": clip([parts["content"], t("file_too_large", lang)])})

        what = f"tutorial step for interaction {interaction.id}"
        await deliver(what, lambda: or_without_image(send, what))


TUTORIAL_ITEMS = (LearnButton,)
LEARNERS_KEPT = 1000  # the newest learners remembered (`learning`): memory stays bounded


def learning(interaction: discord.Interaction, sc: Screen | None) -> None:
    """Remember that the user has a lesson open (`sc`), or not (None: left, or finished),
    so a play command they type meanwhile is pointed at the lesson (cogs/actions.py)."""
    seen: dict[int, None] | None = getattr(interaction.client, "learning", None)
    if seen is None:
        return
    seen.pop(interaction.user.id, None)
    if sc is not None and not sc.all_done:
        seen[interaction.user.id] = None
        while len(seen) > LEARNERS_KEPT:
            seen.pop(next(iter(seen)))


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(LearnCommands(bot))
    bot.add_dynamic_items(*TUTORIAL_ITEMS)
