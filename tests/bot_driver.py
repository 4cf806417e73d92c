"""Playing Rook & Raiders through Discord interactions only, for the bot tests and bench.

`Table` opens a lobby with `/rr new`, joins with the Join button, starts with Start, and
then plays whoever is being waited for with what a user would use: the buttons of their
ping or ephemeral reply (pick, roll, done) and slash commands filled from the bot's own
autocomplete suggestions. It peeks at the game only to know whose turn it is (read-only);
every answer goes in as an INTERACTION_CREATE payload.
"""

from __future__ import annotations

import random
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import FakeChannel, FakeUser, Harness, InteractionResult, RecordedMessage

import bot as entry
from cogs.bot import RookBot
from engine import Game
from store import GameRow


class Clock:
    """A settable clock shared by the service (deadlines) and the test."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def make_bot(db_path: Path | str, clock: Clock | None = None, seed: int = 7,
             cards_data: dict[str, Any] | None = None) -> RookBot:
    """A bot on `db_path` with a test clock and fixed seeds; the ticker sleeps an hour
    between passes, so tests drive time limits with `bot.tick_once()`. The day's par is not
    played at startup, and when a player asks before it is known, the fast random AI plays
    it (the real par AIs take a minute: bench/daily.py --par)."""
    config = entry.Config(token=None, db_path=str(db_path), tick_seconds=3600.0,
                          daily_par_at_start=False, daily_par_levels=("random",))
    return RookBot(config, clock=clock or Clock(), seed_source=lambda: seed,
                   cards_data=cards_data)


async def finished_solo(h: Harness, user: FakeUser, seed: int = 1) -> tuple[Table, GameRow, Game]:
    """An easy solo game of `user`'s in #general, played to its end with random legal
    answers: a finished game to look at."""
    table = Table(h)
    await table.open(user, players=1, difficulty="easy")
    await table.play(random.Random(seed))
    row, g = await table.game()
    assert g.over
    return table, row, g


def damage_a_move(db: Path, game_id: int) -> None:
    """A logged move of the game turned to one the engine refuses (seq 3: a pick of no
    command card), in the SQLite file behind the bot's back, as a disk fault would leave
    it: what the damage tests read the game through."""
    with sqlite3.connect(db) as con:
        con.execute("UPDATE actions SET text='pick nonsense' WHERE game_id=? AND seq=3",
                    (game_id,))


# Four of Discord's longest display names (32 characters), each with markdown, mentions and
# scripts to escape: what makes a post, a review or a viewer frame longest.
LONG_NAMES = ["@everyone__xX_Dark_Knight_Xx__**",
              "**Marie_Claire** ~~@here~~ _*_*_",
              "__Ōtsuki_Hanako__さくら_🌸_🌸_🌸_🌸_",
              "`|| <#1> ||` ñandú_Ünïcødé_ÅÄÖ_ß"]


async def long_named_game(h: Harness, seed: int) -> tuple[list[FakeUser], GameRow, Game]:
    """A 4-player channel game of LONG_NAMES played to its end with random legal answers."""
    users = [h.user(f"u{k}") for k in range(4)]
    for user, name in zip(users, LONG_NAMES, strict=True):
        user.global_name = user.nick = name
    table = Table(h)
    await table.open(users[0], users[1:], players=4)
    await table.play(random.Random(seed), max_steps=5000)
    row, g = await table.game()
    assert g.over and row.setup is not None
    return users, row, g


def accepted(res: InteractionResult) -> bool:
    return res.ephemeral and res.text.startswith("✅")


@dataclass
class Step:
    seat: int
    kind: str
    text: str
    result: InteractionResult


class Table:
    """One channel's game, driven through the harness."""

    def __init__(self, h: Harness, channel: FakeChannel | None = None) -> None:
        self.h = h
        self.channel = channel or h.channel
        self.steps: list[Step] = []
        self.game_id: int | None = None

    @property
    def bot(self) -> RookBot:
        return self.h.bot  # type: ignore[return-value]

    async def open(self, host: FakeUser, others: list[FakeUser] = (), **options: Any) -> GameRow:  # type: ignore[assignment]
        res = await self.h.slash(host, "rr new", channel=self.channel, **options)
        assert res.ephemeral, res.text
        lobby = self.lobby_message()
        for user in others:
            joined = await self.h.click(user, self.lobby_button(lobby, "join"), message=lobby)
            assert joined.ephemeral and ("joined" in joined.text or "参加" in joined.text), \
                joined.text
        lobby = self.lobby_message()
        started = await self.h.click(host, self.lobby_button(lobby, "start"), message=lobby)
        early = [(m, c.custom_id) for m in (started.message, *started.followups) if m
                 for c in m.buttons if c.custom_id and c.custom_id.endswith(":startnow")]
        if early:  # seats left open: the host confirms starting with those who came
            message, custom_id = early[0]
            started = await self.h.click(host, custom_id, message=message)
        assert started.ephemeral and ("started" in started.text or "開始" in started.text), \
            started.text
        row, _ = await self.bot.service.tables.current(self.channel.id)
        self.game_id = row.id
        return row

    @staticmethod
    def lobby_button(lobby: RecordedMessage, op: str) -> str:
        """The lobby's Join/Leave/Start button by its id (its label is in the server's
        language)."""
        return next(c.custom_id for c in lobby.buttons
                    if c.custom_id and c.custom_id.endswith(f":{op}"))

    def lobby_message(self) -> RecordedMessage:
        for m in reversed(self.h.messages(self.channel)):
            if any(c.custom_id and c.custom_id.startswith("rr:lobby:") for c in m.buttons):
                return m
        raise AssertionError("no lobby message")

    async def game(self) -> tuple[GameRow, Game]:
        """The game as stored (read-only peek; also after it ended)."""
        assert self.game_id is not None
        row = await self.bot.store.get(self.game_id)
        assert row is not None
        return row, await self.bot.service.tables.load(row)

    def user(self, row: GameRow, seat: int) -> FakeUser:
        return self.h.server.users[int(row.seats[seat]["user"])]

    def find_button(self, user: FakeUser, game: int, seat: int, decision: int,
                    prefix: str = "") -> tuple[RecordedMessage, str] | None:
        """The newest button (in a ping or in the user's ephemeral reply) for a decision."""
        pattern = re.compile(rf"rr:{prefix or '[a-z]+'}:{game}:{seat}:{decision}(:|$)")
        for m in reversed(self.h.visible_to(user)):
            for c in m.buttons:
                if c.custom_id and pattern.match(c.custom_id) and not c.disabled:
                    return m, c.custom_id
        return None

    async def choices(self, user: FakeUser, command: str, focused: str, **given: Any) -> list[str]:
        res = await self.h.autocomplete(user, command, focused=focused, channel=self.channel,
                                        **given)
        return list(res.choice_values)

    async def slash(self, user: FakeUser, command: str, **options: Any) -> InteractionResult:
        return await self.h.slash(user, command, channel=self.channel, **options)

    async def step(self, rng: random.Random) -> Step | None:
        """Answer one pending decision of one waiting player, as that player would."""
        row, g = await self.game()
        if g.over:
            return None
        seat = rng.choice(g.waiting_for())
        dec = g.decision(seat)
        assert dec is not None
        user = self.user(row, seat)
        kind, did = dec["kind"], dec["id"]
        res, text = await self._answer(rng, row, seat, user, kind, did)
        assert accepted(res), f"{text!r} was refused: {res.text}"
        step = Step(seat, kind, text, res)
        self.steps.append(step)
        return step

    async def click(self, user: FakeUser, found: tuple[RecordedMessage, str]) -> InteractionResult:
        return await self.h.click(user, found[1], message=found[0])

    async def _answer(self, rng: random.Random, row: GameRow, seat: int, user: FakeUser,
                      kind: str, did: int) -> tuple[InteractionResult, str]:
        if kind in ("pick", "roll"):
            found = self.find_button(user, row.id, seat, did, kind)
            assert found, f"no {kind} button for decision {did} visible to {user.name}"
            if kind == "roll":
                ids = [c.custom_id for c in found[0].buttons
                       if c.custom_id and f":{did}:" in c.custom_id]
                found = (found[0], rng.choice(ids))
            return await self.click(user, found), found[1]
        if kind == "place":
            card = rng.choice(await self.choices(user, "rr place", "card"))
            square = rng.choice(await self.choices(user, "rr place", "square", card=card))
            return await self.slash(user, "rr place", card=card, square=square), f"place {card}"
        if kind == "actions":
            return await self._act(rng, row, seat, user, did)
        command, option = {"recruit": ("rr recruit", "card"), "ready": ("rr ready", "units"),
                           "support": ("rr support", "unit")}[kind]
        offered = await self.choices(user, command, option)
        if offered and rng.random() < 0.8:
            value = rng.choice(offered)
            if kind == "recruit":
                square = rng.choice(await self.choices(user, command, "square", card=value))
                return await self.slash(user, command, card=value, square=square), \
                    f"recruit {value} {square}"
            return await self.slash(user, command, **{option: value}), f"{kind} {value}"
        return await self.done(user, row, seat, did), "done"

    async def done(self, user: FakeUser, row: GameRow, seat: int, did: int) -> InteractionResult:
        found = self.find_button(user, row.id, seat, did, "done")
        if found:
            return await self.click(user, found)
        return await self.slash(user, "rr done")

    async def _act(self, rng: random.Random, row: GameRow, seat: int, user: FakeUser,
                   did: int) -> tuple[InteractionResult, str]:
        units = await self.choices(user, "rr act", "unit")
        if not units or rng.random() < 0.15:
            return await self.done(user, row, seat, did), "done"
        unit = rng.choice(units)
        dests = await self.choices(user, "rr act", "to", unit=unit)
        rng.shuffle(dests)
        for to in dests:
            targets = await self.choices(user, "rr act", "target", unit=unit, to=to)
            if targets or to != unit:
                options: dict[str, Any] = {"unit": unit}
                if to != unit:
                    options["to"] = to
                if targets and (to == unit or rng.random() < 0.8):
                    options["target"] = rng.choice(targets)
                return await self.slash(user, "rr act", **options), f"act {options}"
        return await self.done(user, row, seat, did), "done"

    async def play(self, rng: random.Random, max_steps: int = 600) -> None:
        for _ in range(max_steps):
            if await self.step(rng) is None:
                return
        raise AssertionError(f"the game did not end in {max_steps} steps")
