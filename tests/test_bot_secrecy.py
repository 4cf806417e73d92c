"""No message, image, file name or log line visible to one player carries another player's
medal value or any deck order (R3, R14.1).

To earn medals quickly the game is played with a custom card set (kept in the game's setup,
so it replays): every monster is a one-hit boss, so every attack defeats a boss and grants
a medal. A player's medal value arrives in their own ephemeral reply; when the action was
not an interaction (a timed-out answer), by DM — or, with DMs closed, as a note without the
value in the channel.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re

from bot_driver import Clock, Table, make_bot
from harness import Harness

import render
from engine import Action
from engine.cards import DATA_FILE

SAFE_FILENAME = re.compile(r"(table-\d+-r\d+|board-\d|reach-[1-6][ABC]|card-[a-z_]+)\.png")
MEDAL_PHRASES = ("medal is worth", "Your medals", "勲章の値", "あなたの勲章")


def boss_cards() -> dict:
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    for m in data["monsters"].values():
        m.update(color="red", hp=1, mov=1, atk=1)
    return data


class Recorder(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def forward_move(g, seat) -> Action | None:
    """A move toward the monsters (higher column), to bring attackers in range."""
    moves = [a for a in g.legal_actions(seat) if a.verb == "act" and a.to and not a.skill
             and not a.fullmove]
    return max(moves, key=lambda a: (int(a.to[0]), a.to), default=None)


async def act(table: Table, user, a: Action):
    options = {"unit": a.square}
    if a.to:
        options["to"] = a.to
    if a.skill:
        options["target"] = str(a.skill)
    if a.fullmove:
        options["fullmove"] = True
    return await table.slash(user, "rr act", **options)


def test_medal_values_and_deck_orders_stay_secret(tmp_path):
    async def scenario():
        clock = Clock()
        recorder = Recorder()
        logging.getLogger().addHandler(recorder)
        old_level = logging.getLogger().level
        logging.getLogger().setLevel(logging.DEBUG)
        try:
            async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=25,
                                                cards_data=boss_cards())) as h:
                table, users = await play_for_medals(h, clock)
                await check_secrets(h, table, users, recorder)
        finally:
            logging.getLogger().removeHandler(recorder)
            logging.getLogger().setLevel(old_level)
    asyncio.run(scenario())


async def play_for_medals(h: Harness, clock: Clock) -> tuple[Table, tuple]:
    """Attack whenever possible (every kill is a boss: a medal). Bob's and Cat's first kills
    go through the service without an interaction, as a timed-out answer would, so their
    medal values must travel by DM (Bob's DMs are closed: a note in the channel instead)."""
    ann, bob = h.user("ann"), h.user("bob", dms_open=False)
    cat = h.user("cat")
    table = Table(h)
    await table.open(ann, [bob, cat], players=3, hours=1)
    bot = table.bot
    rng = random.Random(4)
    direct: set[int] = set()
    for _ in range(400):
        row, g = await table.game()
        medals = [p["medals"] for p in g.state["players"]]
        if g.over or (all(medals) and direct >= {1, 2}):
            break
        seat = g.waiting_for()[0]
        dec = g.decision(seat)
        user = table.user(row, seat)
        if dec["kind"] == "actions":
            legal = g.legal_actions(seat)
            attacks = [a for a in legal if a.verb == "act" and a.skill
                       and a.skill.kind in ("attack", "area")]
            if attacks and seat in (1, 2) and seat not in direct:
                out = await bot.service.play.act(row.channel_id, user.id, str(rng.choice(attacks)))
                assert any(e["type"] == "medal_value" for e in out.events)
                await bot.announcer.publish(bot.announcer.capture(out))
                await h.settle()
                direct.add(seat)
                continue
            a = rng.choice(attacks) if attacks else forward_move(g, seat)
            if a is not None:
                res = await act(table, user, a)
                assert res.text.startswith("✅"), res.text
                continue
        await table.step(rng)
    row, g = await table.game()
    assert all(p["medals"] for p in g.state["players"]), "every player should hold a medal"
    assert direct >= {1, 2}
    return table, (ann, bob, cat)


async def check_secrets(h: Harness, table: Table, users: tuple, recorder: Recorder) -> None:
    ann, bob, cat = users
    row, g = await table.game()
    # private views: each looks at every board and asks for the log
    for user in users:
        for other in users:
            res = await h.slash(user, "rr board", player=other)
            assert res.ephemeral
            seat = row.seat_of(other.id)
            spectator = render.board_png(g.view(None), seat, lang="en")
            assert res.files[0].data == spectator  # images carry no secret at all
        assert (await h.slash(user, "rr log")).ephemeral
    own = await h.slash(ann, "rr board")
    assert "Your medals" in own.text
    # Ann acted herself: her medal values reached her in her ephemeral replies
    assert any("Your new medal is worth" in m.text for m in h.visible_to(ann) if m.ephemeral)
    # Cat's came by DM; Bob (DMs closed) got a note in the channel, without the value
    assert any("Your new medal is worth" in m.text for m in h.dms(cat))
    assert h.dms(bob) == []
    notes = [m for m in h.messages() if "could not send you a direct message" in m.text]
    assert notes and all(bob.mention in m.text for m in notes)

    values = {seat: g.state["players"][seat]["medals"] for seat in range(3)}
    for seat, user in enumerate(users):
        mine = {user.id}
        for m in h.visible_to(user):
            private = m.visible_to in mine or m.dm_user_id in mine
            text = m.text
            if not private:
                assert not any(p in text for p in MEDAL_PHRASES), text
            else:
                for v in re.findall(r"worth (-?\d+)", text):
                    assert int(v) in values[seat], (user.name, text)
                for found in re.findall(r"Your medals: ([-\d, ]+)", text):
                    assert sorted(int(v) for v in found.split(",")) == sorted(values[seat])
            for f in m.files:
                assert SAFE_FILENAME.fullmatch(f.filename), f.filename
                assert "medal" not in (f.description or "")
    # deck orders: never the secret parts of the state, nor the upcoming cards in order
    deck = [g.cards.name(c["card"]) for c in g.state["monster_deck"]]
    units = [g.cards.name(c["card"]) for c in g.state["unit_deck"]]
    secrets = ['"monster_deck"', '"unit_deck"', '"medal_pool"', '"rng"', '"medals"']
    if len(deck) >= 3:
        secrets.append(", ".join(deck[:3]))
    if len(units) >= 4:
        secrets.append(", ".join(units[:4]))
    everything = [m.text for m in h.messages(include_deleted=True)]
    everything += [json.dumps(r.json, ensure_ascii=False) for r in h.requests if r.json]
    for text in everything + recorder.lines:
        for s in secrets:
            assert s not in text, (s, text[:200])
    for line in recorder.lines:
        assert not any(p in line for p in MEDAL_PHRASES), line
