"""The `/rr` command group: one cog assembled from the lobby, play and info commands.

Commands are thin adapters (options → action notation → service); the rules live in the
engine, hosting in the service. A command never catches a refusal: it raises, and the
command tree's one handler (`actions.AnsweringTree`) answers it privately in the reader's
words; unexpected errors get a polite ephemeral answer there and are logged.
"""

from __future__ import annotations

import logging

from discord import app_commands
from discord.ext import commands

from .daily import DailyCommands
from .daily_review import DailyReviewCommands
from .info import InfoCommands
from .lobby import LobbyCommands
from .play import PlayCommands
from .recap import RecapCommands
from .seats import SeatCommands
from .stats import STATS_ITEMS, StatsCommands

log = logging.getLogger("rr.cogs")


# Channel games need a server channel where the bot is installed (`actions.channel_only`);
# the daily challenge and the play commands acting on it (`actions.game_key`) also work in
# DMs and user installs.
@app_commands.allowed_installs(guilds=True, users=True)
@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
class RR(LobbyCommands, PlayCommands, InfoCommands, SeatCommands, DailyCommands,
         DailyReviewCommands,
         commands.GroupCog, group_name="rr",
         group_description=app_commands.locale_str(
             "Rook & Raiders: the board game in this channel")):
    """Rook & Raiders: the board game in this channel."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        super().__init__()



async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(RR(bot))
    await bot.add_cog(RecapCommands(bot))
    await bot.add_cog(StatsCommands(bot))  # `/rr-stats` (issue 24)
    bot.add_dynamic_items(*STATS_ITEMS)
