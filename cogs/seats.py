"""AI seats in Discord: `/rr bot add`, `/rr bot remove`, `/rr back`, and the AI runner.

The hosting rule is the service's (service/seats.py); here the AI's answers are told like
anyone's. `AiRunner.kick` is called after an announcement leaves an AI-played seat asked
something: the AI answers in a task of its own (its choice computed in a worker thread),
after the move that asked it was posted and never ahead of anyone's acknowledgement. The
answers of one run are told as a burst: the quiet ones (lines alone) in one post when the
run ends (`Announcer.announce`, `burst`), so the people do not scroll past a post per AI move.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands

from service import Outcome
from service.hints import advice_lines
from service.seats import current_name

from .actions import ack, channel_only, game_key, reply, rook
from .announcement import ask
from .delivery import deliver
from .i18n import lang_of, t
from .lobby import level_choices, lobby_text, refresh_lobby
from .mentions import safe
from .mixin import CommandsMixin
from .text import markdowns
from .views import prompt_view

if TYPE_CHECKING:
    from .host import Host

log = logging.getLogger("rr.seats")
_ = app_commands.locale_str


class AiRunner:
    """The AI's turns, one task per trigger (the service runs one at a time per channel)."""

    def __init__(self, bot: Host) -> None:
        self.bot = bot
        self._tasks: set[asyncio.Task[None]] = set()
        # stopped (`close`): the bot is closing — its last posts (the held AI answers,
        # `Announcer.flush_all`) must not start a run that commits moves nobody is told
        self.closed = False

    def kick(self, channel_id: int) -> None:
        if self.closed or self.bot.is_closed():
            return
        task = asyncio.create_task(self._run(channel_id), name=f"rr-ai-{channel_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, channel_id: int) -> None:
        """One run of the channel's AI answers; the quiet ones it told are held by the
        announcer and posted together when the run ends (`Announcer.flush`). A trigger
        that found a run under way answers nothing and leaves the telling to that run, so
        a kick in the middle of a burst does not cut its post in two."""
        try:
            answered = await self.bot.service.ai.play_ai(channel_id, self._tell)
        except Exception:  # never lost silently; the next time-limit pass asks again (an
            # AI seat's reminder is due at once); store faults never get here (retried)
            log.exception("channel %s: AI run failed", channel_id)
            answered = -1  # (some may be held: told all the same)
        if answered:
            await self.bot.announcer.flush(channel_id)

    async def _tell(self, out: Outcome) -> None:
        ann = self.bot.announcer
        await ann.announce(ann.capture(out), burst=True)

    async def close(self) -> None:
        self.closed = True
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


class SeatCommands(CommandsMixin):
    """Mixed into the `rr` group cog (cogs/game.py)."""

    # `/rr bot add|remove|hint`: one child of `/rr` for all (Discord allows 25 per group).
    ai_seats = app_commands.Group(
        name=_("bot", id="command.bot"),
        description=_("AI players: seat or remove them (host), or get a hint"))

    @ai_seats.command(name=_("add", id="command.bot.add"),
                       description=_("Seat an AI player in the lobby (host only)"))
    @app_commands.describe(level=_("How the AI plays"), count=_("How many AI players (default 1)"))
    @app_commands.choices(level=level_choices())
    async def add_ai(self, interaction: discord.Interaction, level: app_commands.Choice[str],
                      count: app_commands.Range[int, 1, 3] = 1) -> None:
        await self._bots(interaction, level.value, count)

    @ai_seats.command(name=_("remove", id="command.bot.remove"), description=_(
        "Take the last AI player out of the lobby (host)"))
    async def remove_ai(self, interaction: discord.Interaction) -> None:
        await self._bots(interaction, None, 0)

    async def _bots(self, interaction: discord.Interaction, level: str | None,
                    count: int) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction) or not await channel_only(interaction):
            return
        svc = rook(interaction).service
        channel = interaction.channel_id or 0
        if level is None:
            row = await svc.lobby.remove_bot(channel, interaction.user.id)
        else:
            row = await svc.lobby.add_bot(channel, interaction.user.id, level, count)
        await refresh_lobby(interaction, row)
        await reply(interaction, lobby_text(row, lang))

    @ai_seats.command(name=_("hint", id="command.bot.hint"), description=_(
        "A hint from the expert AI (only you see it)"))
    async def hint(self, interaction: discord.Interaction) -> None:
        """`/rr bot hint` (issue 23; `/rr` holds Discord's 25 children already): acknowledged at once, thought off the event loop, answered privately;
        every use is counted for `/rr log` and `/rr status`."""
        lang = lang_of(interaction)
        if not await ack(interaction):
            return
        service = rook(interaction).service
        got = await service.hints.hint(await game_key(interaction), interaction.user.id)
        _row, g = await service.tables.viewable(got.row.channel_id)
        await reply(interaction, "\n".join(markdowns(advice_lines(got.advice, g.cards, lang),
                                                      lang)))

    @app_commands.command(name="back", description=_(
        "Play your seat again after an AI took it over"))
    async def back(self, interaction: discord.Interaction) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction):
            return
        bot = rook(interaction)
        row = await bot.service.ai.reclaim(interaction.channel_id or 0, interaction.user.id)
        glang = row.settings.get("lang", "en")
        seat = row.seat_of(interaction.user.id)
        assert seat is not None
        note = t("seat_back", glang, name=safe(current_name(row, seat)))
        await deliver(f"game {row.id} back", lambda: bot.announcer.channel(
            row.channel_id).send(note))
        lines, view = [t("back_ok", lang)], None
        g = await bot.service.tables.load(row)
        a = ask(g, seat, interaction.user.id, 0.0)
        if a is not None:  # a question still open for them: theirs to answer now
            lines.append(t("your_turn_next", lang, prompt=a.text[lang]))
            view = prompt_view(row.id, seat, a.decision, g.cards, lang)
        await reply(interaction, "\n".join(lines), **({"view": view} if view else {}))
