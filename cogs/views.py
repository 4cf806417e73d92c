"""Buttons that survive restarts: DynamicItems whose custom id names game, seat and decision.

`rr:pick:{game}:{seat}:{decision}:{card}`, `rr:roll:{game}:{seat}:{decision}:{choice}[:{sq}]`,
`rr:done:{game}:{seat}:{decision}`, `rr:lobby:{game}:{join|leave|start}`. Nothing is kept in
memory: a click parses its custom id and goes through the service with the decision id, so
a button from before a restart works while its question is still open, and any older one
is refused as out of date (the engine compares decision ids). No rules here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, cast

import discord

from engine.cards import CardSet

from .i18n import t

Button = discord.ui.Button[Any]


@dataclass(frozen=True, slots=True)
class Target:
    """What a button was made for: a game, a seat, and the decision id it answers."""

    game: int
    seat: int
    decision: int


class Clicks(Protocol):
    """What a click asks of the bot (cogs/bot.py `RookBot`, through cogs/actions.py and
    cogs/lobby.py): declared here, since the answer to a click posts buttons of its own —
    importing the answer path from here would be an import loop."""

    async def answer(self, interaction: discord.Interaction, text: str, target: Target,
                     /) -> None: ...
    async def lobby_click(self, interaction: discord.Interaction, game: int, op: str,
                          /) -> None: ...


def clicks(interaction: discord.Interaction) -> Clicks:
    return cast(Clicks, interaction.client)


class PickButton(discord.ui.DynamicItem[Button],
                 template=r"rr:pick:(?P<g>\d+):(?P<s>\d):(?P<d>\d+):(?P<card>[a-z_]+)"):
    def __init__(self, game: int, seat: int, decision: int, card: str, label: str = "") -> None:
        super().__init__(discord.ui.Button(label=label or card, style=discord.ButtonStyle.primary,
                                           custom_id=f"rr:pick:{game}:{seat}:{decision}:{card}"))
        self.game, self.seat, self.decision, self.card = game, seat, decision, card

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> PickButton:
        return cls(int(match["g"]), int(match["s"]), int(match["d"]), match["card"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await clicks(interaction).answer(interaction, f"pick {self.card}",
                                         Target(self.game, self.seat, self.decision))


class RollButton(discord.ui.DynamicItem[Button],
                 template=r"rr:roll:(?P<g>\d+):(?P<s>\d):(?P<d>\d+):"
                          r"(?P<c>reroll|keep|levelup)(?::(?P<sq>[1-6][ABC]))?"):
    def __init__(self, game: int, seat: int, decision: int, choice: str, square: str | None = None,
                 label: str = "") -> None:
        suffix = f":{square}" if square else ""
        style = discord.ButtonStyle.secondary if choice == "keep" else discord.ButtonStyle.primary
        super().__init__(discord.ui.Button(
            label=label or choice, style=style,
            custom_id=f"rr:roll:{game}:{seat}:{decision}:{choice}{suffix}"))
        self.game, self.seat, self.decision = game, seat, decision
        self.choice, self.square = choice, square

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> RollButton:
        return cls(int(match["g"]), int(match["s"]), int(match["d"]), match["c"], match["sq"])

    async def callback(self, interaction: discord.Interaction) -> None:
        text = f"levelup {self.square}" if self.choice == "levelup" else self.choice
        await clicks(interaction).answer(interaction, text,
                                         Target(self.game, self.seat, self.decision))


class DoneButton(discord.ui.DynamicItem[Button],
                 template=r"rr:done:(?P<g>\d+):(?P<s>\d):(?P<d>\d+)"):
    def __init__(self, game: int, seat: int, decision: int, label: str = "Done") -> None:
        super().__init__(discord.ui.Button(label=label, style=discord.ButtonStyle.secondary,
                                           custom_id=f"rr:done:{game}:{seat}:{decision}"))
        self.game, self.seat, self.decision = game, seat, decision

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> DoneButton:
        return cls(int(match["g"]), int(match["s"]), int(match["d"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await clicks(interaction).answer(interaction, "done",
                                         Target(self.game, self.seat, self.decision))


class LobbyButton(discord.ui.DynamicItem[Button],
                  template=r"rr:lobby:(?P<g>\d+):(?P<op>join|leave|start|startnow)"):
    # startnow: the host's confirmation to start before every seat is taken (cogs/lobby.py)
    STYLES = {"join": discord.ButtonStyle.success, "leave": discord.ButtonStyle.secondary,
              "start": discord.ButtonStyle.primary, "startnow": discord.ButtonStyle.danger}

    def __init__(self, game: int, op: str, label: str = "") -> None:
        super().__init__(discord.ui.Button(label=label or op, style=self.STYLES[op],
                                           custom_id=f"rr:lobby:{game}:{op}"))
        self.game, self.op = game, op

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> LobbyButton:
        return cls(int(match["g"]), match["op"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await clicks(interaction).lobby_click(interaction, self.game, self.op)


DYNAMIC_ITEMS = (PickButton, RollButton, DoneButton, LobbyButton)


def lobby_view(game_id: int, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for op in ("join", "leave", "start"):
        view.add_item(LobbyButton(game_id, op, t(f"btn_{op}", lang)))
    return view


def prompt_view(game_id: int, seat: int, dec: Mapping[str, Any], cards: CardSet,
                lang: str) -> discord.ui.View | None:
    """The buttons for one question: cards to pick, roll choices, or Done."""
    kind, did = dec["kind"], int(dec["id"])
    view = discord.ui.View(timeout=None)
    if kind == "pick":
        for card in dec["options"]:
            view.add_item(PickButton(game_id, seat, did, card, cards.name(card, lang)))
    elif kind == "roll":
        if dec.get("can_reroll"):
            view.add_item(RollButton(game_id, seat, did, "reroll", label=t("btn_reroll", lang)))
        if dec.get("can_levelup"):
            square = str(dec["unit"])
            view.add_item(RollButton(game_id, seat, did, "levelup", square,
                                     label=t("btn_levelup", lang, square=square)))
        view.add_item(RollButton(game_id, seat, did, "keep", label=t("btn_keep", lang)))
    elif kind in ("actions", "recruit", "support", "ready"):
        view.add_item(DoneButton(game_id, seat, did, t("btn_done", lang)))
    return view if view.children else None
