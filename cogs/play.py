"""Playing commands: each turns its options into one line of the action notation
(docs/notation.md) and hands it to `perform`. The engine judges; suggestions come from its
legal actions (cogs/choices.py), and anything typed by hand is checked the same way.
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands

from engine import Game
from service.notation import particle_typed, shown

from . import choices as C
from .actions import (
    ack,
    announce,
    channel_only,
    conclude,
    game_key,
    interaction_key,
    perform,
    reply,
    rook,
)
from .i18n import lang_of, t
from .mentions import user_name
from .mixin import CommandsMixin

log = logging.getLogger("rr.play")
_ = app_commands.locale_str
Choice = app_commands.Choice

CARDS = [Choice(name=_("Advance"), value="advance"), Choice(name=_("Raid"), value="raid"),
         Choice(name=_("Rest"), value="rest"), Choice(name=_("Reward"), value="reward"),
         Choice(name=_("Recruit"), value="recruit")]

ROLL_CHOICES = [Choice(name=_("Keep the result"), value="keep"),
                Choice(name=_("Reroll (1 honor mark)"), value="reroll")]

Suggest = Callable[[Game, int, str, Any], list[C.Pair]]


async def suggest(interaction: discord.Interaction, current: str, fn: Suggest,
                  *, seated: bool = True) -> list[Choice[str]]:
    """Run a suggestion function for the interacting player; never raise, never block long.

    Suggestions are asked for on every keystroke, so the game is taken from the service's
    memory when this channel's game is there (no database round trip); otherwise it is
    loaded once and the channel's seating remembered."""
    try:
        bot = rook(interaction)
        channel = await game_key(interaction, quiet=True)
        known = bot.seating.get(channel)
        g = bot.service.tables.peek(known[0]) if known else None
        if g is None or g.over or known is None:
            row, g = await bot.service.tables.current(channel)
            known = bot.seating[channel] = (row.id, [int(s["user"]) for s in row.seats])
        users = known[1]
        seat = users.index(interaction.user.id) if interaction.user.id in users else None
        if seat is None and seated:
            return []
        pairs = fn(g, seat if seat is not None else -1, lang_of(interaction),
                   interaction.namespace)
        return [Choice(name=label, value=value) for label, value in C.narrow(pairs, current)]
    except Exception:  # autocomplete must never fail loudly: no suggestions instead
        log.debug("autocomplete failed", exc_info=True)
        return []


def squeeze(text: str | None) -> str:
    """Squares and card names are single tokens in the notation: drop inner spaces."""
    return "".join((text or "").split())


def card_token(text: str) -> str:
    """`merc archer` (a suggestion for a mercenary; `傭兵 アーチャー` as a Japanese reader is
    shown it) keeps its two words; names squeeze."""
    words = text.split()
    if len(words) > 1 and particle_typed(words[0]).lower() in ("merc", "mercenary"):
        return "merc " + "".join(words[1:])
    return "".join(words)


class PlayCommands(CommandsMixin):
    """Mixed into the `rr` group cog (cogs/game.py)."""

    @app_commands.command(name="pick", description=_("Choose a command card on your turn"))
    @app_commands.describe(card=_("The command card"))
    @app_commands.choices(card=CARDS)
    async def pick(self, interaction: discord.Interaction, card: Choice[str]) -> None:
        await perform(interaction, f"pick {card.value}")

    @app_commands.command(name="place", description=_(
        "Place a unit from your hand (initial placement)"))
    @app_commands.describe(card=_("A unit card in your hand"),
                           square=_("An empty square of your home area (1A–2C)"))
    async def place(self, interaction: discord.Interaction, card: str, square: str) -> None:
        await perform(interaction, f"place {squeeze(card)} {squeeze(square)}")

    @place.autocomplete("card")
    async def _place_card(self, interaction: discord.Interaction,
                          current: str) -> list[Choice[str]]:
        return await suggest(interaction, current, lambda g, s, lang, ns: C.place_cards(g, s, lang))

    @place.autocomplete("square")
    async def _place_square(self, interaction: discord.Interaction,
                            current: str) -> list[Choice[str]]:
        return await suggest(interaction, current,
                             lambda g, s, lang, ns: C.place_squares(g, s, ns.card))

    @app_commands.command(name="act", description=_("Unit action: move and/or use a skill"))
    @app_commands.describe(unit=_("Your un-acted unit (its square)"),
                           to=_("Where it moves (leave empty to stay)"),
                           target=_("Its skill and target (leave empty to only move)"),
                           fullmove=_("Full Move: +1 MOV for 1 honor mark (R12.4)"))
    async def act(self, interaction: discord.Interaction, unit: str, to: str | None = None,
                  target: str | None = None, fullmove: bool = False) -> None:
        square = squeeze(unit)
        parts = ["act", square]
        dest = squeeze(to)
        if fullmove:
            parts.append("fullmove")
        if dest and _fold(dest) != _fold(square):  # `to: ２Ｂ` from 2B stays put
            parts += ["to", dest]
        if target and target.strip():
            parts.append(" ".join(target.split()))
        await perform(interaction, " ".join(parts))

    @act.autocomplete("unit")
    async def _act_unit(self, interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        return await suggest(interaction, current, lambda g, s, lang, ns: C.act_units(g, s, lang))

    @act.autocomplete("to")
    async def _act_to(self, interaction: discord.Interaction, current: str) -> list[Choice[str]]:
        return await suggest(interaction, current, lambda g, s, lang, ns: C.act_destinations(
            g, s, ns.unit, bool(ns.fullmove), lang))

    @act.autocomplete("target")
    async def _act_target(self, interaction: discord.Interaction,
                          current: str) -> list[Choice[str]]:
        return await suggest(interaction, current, lambda g, s, lang, ns: C.act_targets(
            g, s, ns.unit, ns.to, bool(ns.fullmove), lang))

    @app_commands.command(name="recruit", description=_(
        "Recruit a unit from your hand or the mercenaries"))
    @app_commands.describe(card=_("A unit card from your hand or a mercenary"),
                           square=_("An empty square of your home area (1A–2C)"))
    async def recruit(self, interaction: discord.Interaction, card: str, square: str) -> None:
        await perform(interaction, f"recruit {card_token(card)} {squeeze(square)}")

    @recruit.autocomplete("card")
    async def _recruit_card(self, interaction: discord.Interaction,
                            current: str) -> list[Choice[str]]:
        return await suggest(interaction, current,
                             lambda g, s, lang, ns: C.recruit_cards(g, s, lang))

    @recruit.autocomplete("square")
    async def _recruit_square(self, interaction: discord.Interaction,
                              current: str) -> list[Choice[str]]:
        return await suggest(interaction, current, lambda g, s, lang, ns: C.recruit_squares(g, s))

    @app_commands.command(name="ready", description=_(
        "Ready acted units (Rest, fatigue recovery)"))
    @app_commands.describe(units=_("The acted units to ready, e.g. 1A 2C"))
    async def ready(self, interaction: discord.Interaction, units: str) -> None:
        squares = " ".join(units.replace(",", " ").split())
        await perform(interaction, f"ready {squares}".strip())

    @ready.autocomplete("units")
    async def _ready_units(self, interaction: discord.Interaction,
                           current: str) -> list[Choice[str]]:
        return await suggest(interaction, current, lambda g, s, lang, ns: C.ready_sets(g, s, lang))

    @app_commands.command(name="support", description=_(
        "End phase support: heal 1 damage on one of your units"))
    @app_commands.describe(unit=_("A damaged unit of yours"))
    async def support(self, interaction: discord.Interaction, unit: str) -> None:
        await perform(interaction, f"support {squeeze(unit)}")

    @support.autocomplete("unit")
    async def _support_unit(self, interaction: discord.Interaction,
                            current: str) -> list[Choice[str]]:
        return await suggest(interaction, current,
                             lambda g, s, lang, ns: C.support_units(g, s, lang))

    @app_commands.command(name="levelup", description=_("Level up a ★ unit (costs honor marks)"))
    @app_commands.describe(unit=_("Your ★ unit"))
    async def levelup(self, interaction: discord.Interaction, unit: str) -> None:
        await perform(interaction, f"levelup {squeeze(unit)}")

    @levelup.autocomplete("unit")
    async def _levelup_unit(self, interaction: discord.Interaction,
                            current: str) -> list[Choice[str]]:
        return await suggest(interaction, current,
                             lambda g, s, lang, ns: C.levelup_units(g, s, lang))

    @app_commands.command(name="roll", description=_(
        "After a roll: keep it or reroll it"))
    @app_commands.describe(choice=_("Keep the result, or pay 1 honor mark to reroll (R12.3)"))
    @app_commands.choices(choice=ROLL_CHOICES)
    async def roll(self, interaction: discord.Interaction, choice: Choice[str]) -> None:
        """The typed answer to a roll decision, so a lost Keep/Reroll prompt never leaves a
        player waiting for the time limit (level up a ★ unit instead: `/rr levelup`)."""
        await perform(interaction, choice.value)

    @app_commands.command(name="done", description=_("End your actions or pass on this decision"))
    async def done(self, interaction: discord.Interaction) -> None:
        await perform(interaction, "done")

    @app_commands.command(name="undo", description=_(
        "Undo your last action if nothing random was revealed"))
    async def undo(self, interaction: discord.Interaction) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction):
            return
        bot = rook(interaction)
        out = await bot.service.play.undo(await game_key(interaction), interaction.user.id,
                                     key=interaction_key(interaction, "undo"))
        await conclude(interaction, out, lang)

    @app_commands.command(name="remove", description=_(
        "Vote to remove a player who keeps running out of time"))
    @app_commands.describe(player=_("A seated player"))
    async def remove(self, interaction: discord.Interaction, player: discord.User) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction) or not await channel_only(interaction):
            return
        bot = rook(interaction)
        row, _g = await bot.service.tables.current(interaction.channel_id or 0)
        seat = row.seat_of(player.id)
        if seat is None:
            await reply(interaction, t("not_seated", lang, name=user_name(player)))
            return
        # a user option resolves a member only for someone still in the server, with their
        # permissions in this channel: one who left (kicked, banned) or can no longer see
        # the channel (a role taken away) can be voted out at once, not after two time limits
        gone = interaction.guild_id is not None and (
            not isinstance(player, discord.Member) or (
                (theirs := player.resolved_permissions) is not None and not theirs.view_channel))
        perms: Any = interaction.permissions  # a moderator removes at once (no vote)
        out = await bot.service.play.remove_player(interaction.channel_id or 0,
                                                   interaction.user.id, seat, gone=gone,
                                                   can_manage=bool(perms.manage_channels))
        log.info("game %s: seat %s removed by user %s", out.row.id, seat, interaction.user.id)
        ann = bot.announcer.capture(out)
        await reply(interaction, t("accepted", lang,
                                   text=f"{shown('remove', lang)} {user_name(player)}"))
        await announce(bot, ann)


def _fold(square: str) -> str:
    """A square as typed, width- and case-folded (NFKC), for comparing two of them."""
    return unicodedata.normalize("NFKC", square).upper()
