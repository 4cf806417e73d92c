"""`/rr-recap [game]`: a finished game of this channel again, as one animated image.

The image is the one posted when the game ended (cogs/posts.py `post_recap`), drawn
again from the stored setup and log (R15) on a worker thread, and shown only to the caller.
A daily game has no channel: in the caller's DMs the command shows their own ranked game
of a day that has closed (default: yesterday's, as the day's recap DM promises, even once
today's is begun), never one of today (its recap would give the day away), exactly as
`/rr daily review` does.

A command of its own beside the `/rr` group, not in it: Discord allows a group 25
subcommands and `/rr` has them all. The name keeps it next to `/rr` in the command list.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging

import discord
from discord import app_commands
from discord.ext import commands

from service.daily import day_end, number_of
from service.daily_review import closed_day
from service.daily_slots import attempt_game
from service.seats import plain_names
from service.workers import ProcessExpired
from store import GameRow

from .actions import ack, in_server, reply, rook
from .i18n import lang_of, t
from .recap_image import Recap, recap_file, recap_gif_of

_ = app_commands.locale_str
log = logging.getLogger("rr.recap")
# How long an asked-for recap waits for the drawing workers, queue included: the answer must
# come inside Discord's 15 minutes for an interaction's follow-ups, or it is lost unseen
RECAP_WAIT_S = 600.0


async def refuse(interaction: discord.Interaction, lang: str, text: str) -> None:
    """No recap to show: marked ⛔ as every refusal (the review's said so, the recap's did
    not: the Discord audit)."""
    await reply(interaction, t("refused", lang, msg=text))


async def caption(interaction: discord.Interaction, row: GameRow, lang: str) -> str:
    """The recap's caption: a channel game's number; a daily game's challenge and day (the
    default is yesterday's), and when today's own opens if the caller has one."""
    info = row.settings.get("daily")
    host = getattr(rook(interaction), "daily", None)
    if not info or host is None:
        return t("recap_caption", lang, game=row.id)
    day = dt.date.fromisoformat(str(info.get("day")))
    text = t("recap_daily_caption", lang, n=number_of(day), day=day.isoformat())
    today = await host.days.open_day(host.store)  # as `play` claims it
    if day != today and await host.store.attempt(interaction.user.id, today.isoformat(),
                                                 True) is not None:
        text += "\n" + t("recap_daily_today", lang, n=number_of(today),
                         ts=int(day_end(today)))
    return text


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
            await refuse(interaction, lang, t("recap_none", lang) if game is None
                         else t("recap_not_here", lang, game=game))
            return None
        if row.status != "over":
            await refuse(interaction, lang, t("recap_not_over", lang, game=row.id))
            return None
        return row

    async def _daily(self, interaction: discord.Interaction, game: int | None,
                     lang: str) -> GameRow | None:
        """The caller's own daily game asked for (default: their ranked game of yesterday;
        played one today, they are told when its recap opens), once its day has closed;
        else a reply saying why not."""
        bot = rook(interaction)
        host = getattr(bot, "daily", None)
        user = interaction.user.id
        try:
            if host is None:
                raise LookupError
            if game is None:  # yesterday's game, as its recap DM says; none: when today's opens
                today = await host.days.open_day(host.store)
                yesterday = today - dt.timedelta(days=1)
                att = await host.store.attempt(user, yesterday.isoformat(), True)
                # its own game only: a damaged game_id may name another player's
                row = await attempt_game(bot.store, att) if att is not None else None
                if row is None:
                    if await host.store.attempt(user, today.isoformat(), True) is not None:
                        await closed_day(host, today)  # refused while the day is open
                    day = await closed_day(host, None)
                    await refuse(interaction, lang,
                                 t("recap_no_daily", lang, day=day.isoformat()))
                    return None
                return row
            row = await bot.store.get(game)
            info = (row.settings.get("daily") or {}) if row is not None else {}
            if row is None or not info or row.seat_of(user) is None:
                raise LookupError
            await closed_day(host, dt.date.fromisoformat(str(info.get("day"))))
            return row
        except (LookupError, ValueError):
            await refuse(interaction, lang, t("recap_daily", lang) if game is None
                         else t("recap_not_yours", lang, game=game))
        return None

    # on the command itself: a plain Cog passes no class decorator on, and on the class
    # these left /rr-recap guild-installed only (a daily recap is asked for in the DMs)
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    @app_commands.command(name="rr-recap", description=_(
        "Watch a finished game again as an animation (only you see it)"))
    @app_commands.describe(game=_("The game's number (default: this channel's last game)"))
    async def recap(self, interaction: discord.Interaction,
                    game: app_commands.Range[int, 1] | None = None) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction):
            return
        row = await self._finished(interaction, game, lang) if in_server(interaction) \
            else await self._daily(interaction, game, lang)
        if row is None:
            return
        bot = rook(interaction)
        g = await bot.service.tables.load(row)  # a damaged game is set aside, not drawn
        assert row.setup is not None  # a finished game was started
        # the log as verified: rows damaged since are not drawn (nor their engine refusal
        # shown to the player, as the audit saw); the next start finds and reports them
        source = Recap(row.setup, g.log, plain_names(row))
        # in the announcer's drawing workers, one recap at a time per worker (a process in
        # the bot): a long game's recap takes a few hundred MB while it is drawn, and any
        # number of them at once on threads of the bot outgrew its memory (the audit)
        try:
            data = await asyncio.wait_for(
                bot.announcer.draw(recap_gif_of, row.id, source, lang), RECAP_WAIT_S)
        except (TimeoutError, ProcessExpired):  # waited too long, stopped at DRAW_JOB_S, or
            # its process died twice: a passing fault (a queue of drawings, a loaded machine,
            # memory), said so, not "went wrong"
            log.warning("game %s: the recap could not be drawn", row.id, exc_info=True)
            await refuse(interaction, lang, t("recap_not_drawn", lang))
            return
        await reply(interaction, await caption(interaction, row, lang),
                    file=recap_file(row.id, data, lang))

