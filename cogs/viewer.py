"""A stored game stepped through phase by phase in one ephemeral message: ⏮ ◀ ▶ ⏭ and a
button per game of the set ("you", "greedy", …).

Game-neutral: a *source* (registered under a short name) turns a key the custom id carries
and a tab into a game (setup + log + names); `service/replay.py` turns that into frames; this
module draws a frame (its narration and the table image after it) and the buttons. The
daily review is source `d` (cogs/daily_review.py); an ordinary game's history can register
its own.

Custom ids hold everything a click needs — `rr:view:{source}:{key}:{tab}:{frame}:{button}` —
so the buttons work after a restart and nothing is kept in memory: a click replays the game
again (a few milliseconds for a solo game) and edits the message. The source decides who
may see what, from the clicker (the daily source only ever shows the clicker's own game).
"""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import discord

from render import table_png
from service.replay import Frame, Replay

from .actions import ack, guarded, reply
from .announcement import table_alt
from .delivery import deliver, or_without_image
from .i18n import PHASES, lang_of, pair, t
from .pages import MAX_CONTENT, clip
from .text import EMBED_DESCRIPTION, markdowns


@dataclass(slots=True)
class Story:
    """A game ready to step through, and the set it belongs to (the tab buttons)."""

    replay: Replay
    title: str  # the heading line (markdown, escaped by the source)
    tabs: list[tuple[str, str]]  # (tab id, button label) of every game of the set
    tab: str  # this game's tab id
    notes: list[str]  # lines under the heading on every frame (e.g. a game not available)


Source = Callable[[discord.Interaction, str, str, str], Awaitable[Story]]
"""(interaction, key, tab, lang) → the Story to show; a ServiceError is told to the clicker."""

SOURCES: dict[str, Source] = {}
EMBED_TEXT = EMBED_DESCRIPTION  # Discord: an embed's description


def register(name: str, source: Source) -> None:
    """Make `source` answer the viewer's custom ids `rr:view:{name}:…`."""
    SOURCES[name] = source


def phase_name(frame: Frame, replay: Replay, lang: str) -> str:
    """What the frame shows the end of: a command card, a phase, the dealt table or the
    game's end."""
    if frame.what is None:
        return pair(PHASES, "over", lang) if replay.over else t("view_stopped", lang)
    if frame.what in replay.cards.commands:
        return replay.cards.name(frame.what, lang)
    return pair(PHASES, frame.what, lang)


def frame_text(story: Story, k: int, lang: str) -> tuple[str, list[discord.Embed]]:
    """The frame's heading and narration: in the message, or — a busy phase of four
    players with long names says more than a message holds (the live post took two) — the
    narration in an embed (4,096 characters) under the heading, rather than the message
    clipped and the phase's last lines (its knock-outs) lost."""
    frame = story.replay.frames[k]
    head = t("view_step", lang, title=story.title, k=k + 1, total=len(story.replay.frames),
             round=frame.round, what=phase_name(frame, story.replay, lang))
    lines = markdowns(frame.lines(story.replay.names, story.replay.cards, lang), lang)
    whole = "\n".join([head, *story.notes, *lines])
    if len(whole) <= MAX_CONTENT or not lines:
        return clip([whole]), []
    return clip([head, *story.notes]), [discord.Embed(description=clip(lines, EMBED_TEXT))]


def frame_view(source: str, key: str, story: Story, k: int, lang: str) -> discord.ui.View:
    """⏮ ◀ ▶ ⏭ on the first row (a round back, a phase back, a phase on, a round on), the
    games of the set on the second."""
    rp, last = story.replay, len(story.replay.frames) - 1
    view = discord.ui.View(timeout=None)
    steps = (("r", "⏮", rp.round_start(k, -1), k == 0), ("b", "◀", k - 1, k == 0),
             ("n", "▶", k + 1, k >= last), ("f", "⏭", rp.round_start(k, 1), k >= last))
    for button, label, to, off in steps:
        view.add_item(StepButton(source, key, story.tab, max(0, min(to, last)), button,
                                 label=label, disabled=off))
    if len(story.tabs) > 1:
        for tab, label in story.tabs:
            view.add_item(StepButton(source, key, tab, 0, "t", label=label,
                                     disabled=tab == story.tab, row=1,
                                     style=discord.ButtonStyle.primary))
    return view


async def frame_file(story: Story, k: int, lang: str) -> discord.File:
    """The table after the frame's phase, its events highlighted, drawn in a worker thread
    (a player's own image: it does not queue behind the channel images)."""
    frame = story.replay.frames[k]
    view: Mapping[str, Any] = frame.view
    data = await asyncio.to_thread(table_png, view, lang=lang, highlights=frame.events)
    return discord.File(io.BytesIO(data), filename=f"review-{k + 1}.png",
                        description=table_alt(view, phase_name(frame, story.replay, lang),
                                              lang))


async def frame_message(source: str, key: str, story: Story, k: int,
                        lang: str) -> dict[str, Any]:
    """The message parts of frame `k` (clamped to the game): content, image, buttons."""
    k = min(max(k, 0), len(story.replay.frames) - 1)
    content, embeds = frame_text(story, k, lang)
    return {"content": content, "embeds": embeds,  # [] clears an earlier frame's
            "view": frame_view(source, key, story, k, lang),
            "file": await frame_file(story, k, lang)}


async def send(interaction: discord.Interaction, source: str, key: str, story: Story,
               lang: str, k: int = 0) -> None:
    """A new ephemeral viewer message for the caller (after `ack`)."""
    parts = await frame_message(source, key, story, k, lang)
    await reply(interaction, parts.pop("content"), **parts)


class StepButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=r"rr:view:(?P<src>[a-z]{1,8}):(?P<key>[0-9a-z]{1,24}):"
                          r"(?P<tab>[a-z0-9_]{1,16}):(?P<k>\d{1,5}):(?P<b>[rbnft])"):
    """One of the viewer's buttons: go to frame `k` of game `tab` of the set `key`."""

    def __init__(self, source: str, key: str, tab: str, k: int, button: str, *,
                 label: str = "▶", disabled: bool = False, row: int = 0,
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary) -> None:
        super().__init__(discord.ui.Button(
            label=label, disabled=disabled, row=row, style=style,
            custom_id=f"rr:view:{source}:{key}:{tab}:{k}:{button}"))
        self.source, self.key, self.tab, self.k = source, key, tab, k

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction,
                             item: discord.ui.Item[Any], match: re.Match[str]) -> StepButton:
        return cls(match["src"], match["key"], match["tab"], int(match["k"]), match["b"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self.step(interaction))

    async def step(self, interaction: discord.Interaction) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction, thinking=False):
            return
        source = SOURCES.get(self.source)
        if source is None:  # a button of a viewer this bot no longer has
            await reply(interaction, t("view_gone", lang))
            return
        story = await source(interaction, self.key, self.tab, lang)
        parts = await frame_message(self.source, self.key, story, self.k, lang)
        image = parts.pop("file")
        def edit(with_image: bool) -> Awaitable[discord.InteractionMessage]:
            if with_image:
                return interaction.edit_original_response(attachments=[image], **parts)
            return interaction.edit_original_response(attachments=[], **{
                **parts, "content": clip([parts["content"], t("file_too_large", lang)])})

        what = f"viewer frame for interaction {interaction.id}"
        await deliver(what, lambda: or_without_image(edit, what))


VIEWER_ITEMS = (StepButton,)
