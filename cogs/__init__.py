"""discord.py adapters for Rook & Raiders: slash commands, buttons, announcements (no rules).

Extensions listed in `cogs.bot.COGS` are loaded by `cogs.bot.RookBot.setup_hook`.
"""
