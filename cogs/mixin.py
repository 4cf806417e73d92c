"""The base the `/rr` command mixins declare, for the type checker's sake.

Each mixin (LobbyCommands, PlayCommands, …) is assembled into one GroupCog in cogs/game.py.
discord.py's command decorators are typed to need a Cog or Group class, which only the
assembled class is. At run time the mixins stay plain classes (a GroupCog subclass would be
set up as a cog of its own); to mypy they are GroupCogs, which is what they end up in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from discord.ext import commands

    CommandsMixin = commands.GroupCog
else:
    CommandsMixin = object
