"""Lobby commands: `/rr new`, join/leave (buttons or commands), `/rr start`, `/rr abandon`.

The lobby message is an ordinary channel post whose buttons carry the game id, so it keeps
working after a restart; its id is remembered in the game's meta so typed `/rr lobby join`
updates the same roster.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands

import ai
import i18n
from service import ServiceError
from service.hints import hints_allowed
from service.meta import lobby_message
from service.seats import current_name, seat_names
from service.tables import DEFAULT_LIMIT_S, seat_count
from store import GameRow

from .actions import (
    ack,
    channel_only,
    conclude,
    game_key,
    interaction_key,
    reply,
    rook,
)
from .delivery import UNKNOWN_MESSAGE, deliver, snowflake
from .host import Host
from .i18n import difficulty_name, guild_lang, join, lang_of, t
from .mentions import safe
from .mixin import CommandsMixin
from .views import LobbyButton, lobby_view

log = logging.getLogger("rr.lobby")
_ = app_commands.locale_str

DIFFICULTIES = [app_commands.Choice(name=_("easy"), value="easy"),
                app_commands.Choice(name=_("normal"), value="normal"),
                app_commands.Choice(name=_("hard"), value="hard"),
                app_commands.Choice(name=_("nightmare"), value="nightmare")]  # service/levels.py


def level_choices(*, off: bool = False) -> list[app_commands.Choice[str]]:
    """Every AI level the `ai` package offers (so new levels appear without a change here)."""
    out = [app_commands.Choice(name=_("off", id="command.off"), value="off")] if off else []
    return out + [app_commands.Choice(name=_(lv, id=f"level.{lv}"), value=lv)
                  for lv in ai.LEVELS]


def lobby_text(row: GameRow, lang: str) -> str:
    # a seat count that cannot be read (a damaged row, refused by every lobby action) still
    # lets its abandoned lobby's message be closed: the seats taken stand for it
    n = row.settings["players"] if seat_count(row.settings) else max(len(row.seats), 1)
    if n == 1:
        diff = row.settings.get("difficulty")
        name = difficulty_name(diff, lang) if diff else t("standard", lang)
        mode = t("mode_solo", lang, difficulty=name)
    else:
        mode = t("mode_multi", lang, n=n)
    hours = round(row.settings.get("time_limit_s", DEFAULT_LIMIT_S) / 3600, 2)
    host = next((safe(current_name(row, k)) for k, s in enumerate(row.seats)
                 if s["user"] == row.host_id), "?")
    text = t("lobby", lang, host=host, n=len(row.seats), max=n,
             names=join((safe(x) for x in seat_names(row)), lang), mode=mode, hours=f"{hours:g}")
    # a full table has nobody left to press Join; a solo one is full from the start
    how = "lobby_solo" if n == 1 else "lobby_join" if len(row.seats) < n else "lobby_full"
    text += "\n" + t(how, lang)
    if n > 1 and len(row.seats) < n:  # room left: say AI players can fill it
        text += "\n" + t("lobby_bots", lang)
    # where a newcomer learns the game, and where help is during it (the Discord new-player
    # audit); one after the other as the language writes sentences (no space in Japanese)
    text += "\n" + i18n.sentences(lang, t("lobby_learn", lang),
                                   t("lobby_hint", lang) if hints_allowed(row) else "")
    return text


async def refresh_lobby(interaction: discord.Interaction, row: GameRow, *,
                        closed: bool = False) -> None:
    """Show the current roster on the lobby message (buttons removed once it is closed)."""
    lang = row.settings.get("lang", "en")
    mid = row.meta.get("lobby_message")
    if mid is None:
        return
    if not snowflake(mid):  # a damaged id: every edit was a 400, the roster never shown again
        log.warning("lobby %s: its message id could not be read (%r); posted anew",
                    row.id, mid)
        if not closed:
            await post_lobby(rook(interaction), row, lang)
        return
    text = lobby_text(row, lang) + ("\n" + t("lobby_closed", lang) if closed else "")
    view = None if closed else lobby_view(row.id, lang)
    msg = rook(interaction).get_partial_messageable(row.channel_id).get_partial_message(mid)

    async def edit() -> bool:
        try:
            await msg.edit(content=text, view=view)
        except discord.NotFound as e:  # (not wording: the lobby post is gone, posted anew)
            if e.code != UNKNOWN_MESSAGE:
                raise
            return False
        return True

    # deleted (a moderator tidying the channel): its roster and its Join/Start buttons went
    # with it, every edit a 404 while people were told "joined" (the community audit)
    if await deliver(f"lobby {row.id} refresh", edit) is False and not closed:
        log.info("lobby %s: its message %s was deleted; posted anew", row.id, mid)
        await post_lobby(rook(interaction), row, lang)


async def post_lobby(bot: Host, row: GameRow, lang: str) -> None:
    """Post the lobby's message with its buttons, and keep its id for the roster's edits."""
    channel = bot.get_partial_messageable(row.channel_id)
    msg = await deliver(f"lobby {row.id} post", lambda: channel.send(
        lobby_text(row, lang), view=lobby_view(row.id, lang)))
    if msg is not None:
        row.meta = await bot.store.update_meta(row.id, lobby_message(msg.id))


async def host_gone(interaction: discord.Interaction, row: GameRow | None) -> bool:
    """Whether the host of the channel's lobby has left the server (Discord: no such
    member), asked only for a caller who is not the host, when it decides a refusal."""
    if row is None or row.status != "lobby" or row.host_id == interaction.user.id or \
            interaction.guild_id is None or not snowflake(row.host_id):
        return False
    try:
        await rook(interaction).http.get_member(interaction.guild_id, row.host_id)
    except discord.NotFound:
        return True
    except discord.HTTPException as e:  # unknown: the host is taken to be there
        log.warning("lobby %s: its host's membership unknown (HTTP %s)", row.id, e.status)
    return False


async def lobby_click(interaction: discord.Interaction, game_id: int, op: str) -> None:
    """Join/Leave/Start buttons; a button of an older lobby is refused, and so is one
    pressed where the bot is no longer installed in the server (a member who installed the
    app for themselves still reaches an old lobby post: `channel_only`, as the commands)."""
    lang = lang_of(interaction)
    if not await ack(interaction) or not await channel_only(interaction):
        return
    svc = rook(interaction).service
    row = await svc.store.open_game(interaction.channel_id or 0)
    if row is None or row.id != game_id:
        await reply(interaction, t("wrong_game", lang))
        return
    if op in ("start", "startnow"):
        await start_game(interaction, lang, early=op == "startnow")
        return
    name = interaction.user.display_name
    if op == "join":
        row = await svc.lobby.join(row.channel_id, interaction.user.id, name)
    else:
        row = await svc.lobby.leave(row.channel_id, interaction.user.id)
    await refresh_lobby(interaction, row)
    await reply(interaction, t("joined" if op == "join" else "left", lang))


async def start_game(interaction: discord.Interaction, lang: str, early: bool = False) -> None:
    """Start the channel's game. Before every seat is taken the host is asked first (a
    button, `early`): pressing Start while a friend is still on the way made a solo game
    nobody could join any more (the Discord new-player audit)."""
    if not await channel_only(interaction, posts=True):  # its first turn would go unseen
        return
    bot = rook(interaction)
    row = await bot.service.store.open_game(interaction.channel_id or 0)
    if (not early and row is not None and row.status == "lobby"
            and row.host_id == interaction.user.id and seat_count(row.settings)
            and 0 < len(row.seats) < int(row.settings.get("players", 1))):
        n, most = len(row.seats), int(row.settings["players"])
        view = discord.ui.View(timeout=None)
        view.add_item(LobbyButton(row.id, "startnow", t("btn_start_early", lang, n=n)))
        await reply(interaction, t("start_early_solo" if n == 1 else "start_early", lang, n=n,
                                   max=most), view=view)
        return
    out = await bot.service.lobby.start(interaction.channel_id or 0, interaction.user.id,
                                        host_gone=await host_gone(interaction, row))
    log.info("game %s started with %d players", out.row.id, len(out.row.seats))
    await refresh_lobby(interaction, out.row, closed=True)
    await reply(interaction, t("started", lang))
    ann = bot.announcer.capture(out)
    await bot.announcer.tell(ann.notice, lambda: bot.announcer.publish_start(ann))


class LobbyCommands(CommandsMixin):
    """Mixed into the `rr` group cog (cogs/game.py)."""

    @app_commands.command(name="new", description=_(
        "Open a game lobby in this channel or thread"))
    @app_commands.describe(players=_("Players, 1–4 (default 4; start early to play with fewer)"),
                           difficulty=_("Solo only (R13.2); nightmare is hard, 0 gold and a Skeleton"),
                           hours=_("Turn time limit in hours (default 24)"),
                           bots=_("AI players to seat with you (0–3)"),
                           bot_level=_("How the AI players play (default: random)"))
    @app_commands.choices(difficulty=DIFFICULTIES, bot_level=level_choices())
    async def new(self, interaction: discord.Interaction,
                  players: app_commands.Range[int, 1, 4] | None = None,
                  difficulty: app_commands.Choice[str] | None = None,
                  hours: app_commands.Range[int, 1, 168] = 24,
                  bots: app_commands.Range[int, 0, 3] = 0,
                  bot_level: app_commands.Choice[str] | None = None) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction) or not await channel_only(interaction, posts=True):
            return
        bot = rook(interaction)
        glang = guild_lang(interaction)
        if players is None:  # a difficulty is the solo option rule; AI players fill a game
            players = 1 if difficulty and not bots else 1 + bots if bots else 4
        row = await bot.service.lobby.new_lobby(
            interaction.guild_id, interaction.channel_id or 0, interaction.user.id,
            interaction.user.display_name, players=players,
            difficulty=difficulty.value if difficulty else None, time_limit_s=hours * 3600,
            lang=glang, bots=bots, bot_level=bot_level.value if bot_level else "random")
        await post_lobby(bot, row, glang)
        await reply(interaction, lobby_text(row, lang))

    # `/rr lobby join|leave`: one child of `/rr` for both (Discord allows 25 per group; the
    # lobby message's Join/Leave buttons are the usual way in and out).
    roster = app_commands.Group(name=_("lobby", id="command.lobby"),
                                description=_("Join or leave the lobby in this channel"))

    @roster.command(name=_("join", id="command.lobby.join"), description=_("Join the lobby in this channel"))
    async def join(self, interaction: discord.Interaction) -> None:
        await self._roster(interaction, "join")

    @roster.command(name=_("leave", id="command.lobby.leave"), description=_(
        "Leave the lobby, or resign from the game",
        id="command.help.leave_or_resign"))
    @app_commands.describe(confirm=_("In a game: True resigns you",
                                     id="command.help.leave_confirm"))
    @app_commands.rename(confirm=_("confirm", id="command.confirm"))
    async def leave(self, interaction: discord.Interaction, confirm: bool = False) -> None:
        """Out of a lobby at once; out of a game begun, by resigning (eliminated as in R9.3,
        the engine's `resign`) once confirmed — the one way a player who is not the host
        leaves a game in Discord, where before only the host could end it for everyone."""
        if not await ack(interaction):  # (before the read: Discord's 3 s)
            return
        service = rook(interaction).service
        row = await service.store.open_game(interaction.channel_id or 0)
        seat = None if row is None else row.seat_of(interaction.user.id)
        if row is None or row.status != "active" or seat is None:
            await self._roster(interaction, "leave")
        elif (await service.tables.load(row)).player(seat).get("eliminated"):
            # out already (resigned, or eliminated, R9.3): nothing to confirm (the
            # verification audit: asked to confirm a second resignation)
            raise ServiceError.of("svc.not_player", code="not_player")
        elif confirm:
            await self._resign(interaction)
        else:
            await reply(interaction, t("resign_ask_solo" if len(row.seats) == 1 else "resign_ask",
                                       lang_of(interaction)))

    @staticmethod
    async def _resign(interaction: discord.Interaction) -> None:
        """The confirmed resignation: told as any answer; where only AI seats were left the
        game is then abandoned, and that told too (with the move's announcement)."""
        bot = rook(interaction)
        out = await bot.service.play.resign(
            await game_key(interaction), interaction.user.id,
            key=interaction_key(interaction, "resign"))
        await conclude(interaction, out, lang_of(interaction))

    async def _roster(self, interaction: discord.Interaction, op: str) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction) or not await channel_only(interaction):
            return
        svc = rook(interaction).service
        if op == "join":
            row = await svc.lobby.join(interaction.channel_id or 0, interaction.user.id,
                                 interaction.user.display_name)
        else:
            row = await svc.lobby.leave(interaction.channel_id or 0, interaction.user.id)
        await refresh_lobby(interaction, row)
        await reply(interaction, t("joined" if op == "join" else "left", lang))

    @app_commands.command(name="start", description=_("Start the game (host only)"))
    async def start(self, interaction: discord.Interaction) -> None:
        if await ack(interaction) and await channel_only(interaction):
            await start_game(interaction, lang_of(interaction))

    @app_commands.command(name="abandon", description=_(
        "Abandon this channel's game (host or Manage Channels)"))
    @app_commands.describe(confirm=_("True: end a game begun, for all",
                                     id="command.help.abandon_confirm"))
    @app_commands.rename(confirm=_("confirm", id="command.confirm"))
    async def abandon(self, interaction: discord.Interaction, confirm: bool = False) -> None:
        """A lobby is closed at once; a game begun is ended for everyone only once confirmed
        (the Discord new-player audit: one command took days of play away, no way back)."""
        lang = lang_of(interaction)
        if not await ack(interaction) or not await channel_only(interaction):
            return
        bot = rook(interaction)
        perms: Any = interaction.permissions
        manage = bool(perms.manage_channels)
        gone = not manage and await host_gone(
            interaction, await bot.service.store.open_game(interaction.channel_id or 0))
        ended = await bot.service.lobby.abandon(interaction.channel_id or 0,
                                                interaction.user.id, manage,
                                                by=interaction.user.display_name,
                                                confirmed=confirm, host_gone=gone)
        row = ended.row
        log.info("game %s abandoned by user %s", row.id, interaction.user.id)
        if row.status == "lobby" and not row.damage:
            await refresh_lobby(interaction, row, closed=True)
        await bot.announcer.tell_in_turn(row.channel_id, ended.notice,
                                         lambda: bot.announcer.publish_abandoned(ended))
        await reply(interaction, t("abandon_ok", lang))
