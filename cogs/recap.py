"""`/rr-recap [game]`: a finished game of this channel again, as one animated image.

The image is the one posted when the game ended (cogs/announce.py `recap_gif_of`), drawn
again from the stored setup and log (R15) on a worker thread, and shown only to the caller.
A daily game has no channel: its recap is part of the day's review, after the day closed
(never today's game).

A command of its own beside the `/rr` group, not in it: Discord allows a group 25
subcommands and `/rr` has them all. The name keeps it next to `/rr` in the command list.
"""

from __future__ import annotations

import asyncio
import logging

import discord
from discord import app_commands
from discord.ext import commands

from service import ServiceError
from store import GameRow

from .actions import ack, in_server, refusal, reply, rook
from .announce import Recap, recap_file, recap_gif_of
from .i18n import lang_of, t

_ = app_commands.locale_str
log = logging.getLogger("rr.recap")


@app_commands.allowed_installs(guilds=True, users=True)
@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
class RecapCommands(commands.Cog):
    """The recap command (loaded with the `rr` group, cogs/game.py)."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    async def _finished(self, interaction: discord.Interaction, game: int | None,
                        lang: str) -> GameRow | None:
        """The finished game asked for (default: the channel's last), or a reply saying
        why there is none."""
        store = rook(interaction).store
        channel = interaction.channel_id or 0
        row = await store.latest_game(channel) if game is None else await store.get(game)
        if row is None or row.channel_id != channel or row.settings.get("daily"):
            await reply(interaction, t("recap_none", lang) if game is None
                        else t("recap_not_here", lang, game=game))
            return None
        if row.status != "over":
            await reply(interaction, t("recap_not_over", lang, game=row.id))
            return None
        return row

    @app_commands.command(name="rr-recap", description=_(
        "Watch a finished game again as an animation (only you see it)"))
    @app_commands.describe(game=_("The game's number (default: this channel's last game)"))
    async def recap(self, interaction: discord.Interaction,
                    game: app_commands.Range[int, 1] | None = None) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction):
            return
        if not in_server(interaction):
            await reply(interaction, t("recap_daily", lang))
            return
        if (row := await self._finished(interaction, game, lang)) is None:
            return
        bot = rook(interaction)
        try:
            await bot.service.load(row)  # a damaged game is set aside, not drawn
        except ServiceError as e:
            await reply(interaction, refusal(e, lang))
            return
        assert row.setup is not None  # a finished game was started
        source = Recap(row.setup, await bot.store.log(row.id),
                       [str(s["name"]) for s in row.seats])
        data = await asyncio.to_thread(recap_gif_of, row.id, source, lang)
        await reply(interaction, t("recap_caption", lang, game=row.id),
                    file=recap_file(row.id, data, lang))

    async def cog_app_command_error(self, interaction: discord.Interaction,
                                    error: app_commands.AppCommandError) -> None:
        log.error("recap failed", exc_info=error)
        await reply(interaction, t("internal", lang_of(interaction)))
