"""The bot as its cogs see it: what a command, a button or a day job may rely on.

`RookBot` (cogs/bot.py) loads the cogs, so the cogs cannot import it without an import
loop; they import this declaration instead, and `RookBot` is the one class that fills it
in (issue 21). Modules below this one declare the smaller part they need as a Protocol
(`outbox.Stage`, `views.Clicks`).
"""

from __future__ import annotations

from discord.ext import commands

from service import GameService, ServiceError
from service.daily_play import DailyHost
from store import GameStore

from .announce import Announcer


class Host(commands.AutoShardedBot):
    """Declared here, set by `RookBot.__init__` / `setup_hook` (tests inject them)."""

    store: GameStore
    service: GameService
    # the daily challenge's host: None until `setup_hook` opened the daily store (a command
    # reaches it through `host_of` below, which refuses while there is none)
    daily: DailyHost | None
    announcer: Announcer
    ai_processes: bool  # AI work (and game reviews) in worker processes; threads in tests
    # channel → (game id, user id per seat): lets autocomplete skip the database
    seating: dict[int, tuple[int, list[int]]]
    # users with a tutorial lesson open in this process, most recent last (cogs/tutorial.py):
    # a play command typed with no game here is pointed back at the lesson's buttons
    learning: dict[int, None]


def host_of(bot: Host) -> DailyHost:
    """The daily host, refused in words while the bot has none (`setup_hook` not yet run)."""
    host: DailyHost | None = getattr(bot, "daily", None)  # None until setup_hook opened it
    if host is None:
        raise ServiceError.of("svc.daily_closed",
                           code="daily_closed")
    return host
