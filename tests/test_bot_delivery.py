"""Discord misbehaving at the acknowledgement, and answering a roll without its buttons.

- The same interaction delivered twice (Discord's retry, or a second bot process): the
  second copy gets 40060 "already acknowledged" and must do nothing at all — no second
  application of the answer, no second reply.
- The acknowledgement times out or Discord answers 5xx: no traceback and no "Something went
  wrong" reaches the player, nothing is changed, and trying again works.
- A roll decision (R12.1/R12.3: keep, or reroll for 1 honor mark) can be answered with
  `/rr roll` when its Keep/Reroll buttons are lost.
"""

from __future__ import annotations

import asyncio
import json
import random

from bot_driver import Clock, Table, make_bot
from harness import Harness
from test_bot_commands import placed_game

CALLBACK = "/interactions/{webhook_id}/{webhook_token}/callback"
INTERNAL = "Something went wrong"


def test_a_second_delivery_of_the_same_interaction_does_nothing(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=2)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            table = Table(h)
            await table.open(ann, [bob], players=2)
            first = await table.slash(ann, "rr place", card="thief", square="2B")
            assert first.text.startswith("✅"), first.text
            row, _ = await table.game()
            seen = len(h.requests)
            await h.gateway("INTERACTION_CREATE", json.loads(json.dumps(first.payload)))
            extra = h.requests[seen:]
            # one attempt to acknowledge, refused with 40060 — and nothing after it
            assert [(r.route, r.status) for r in extra] == [(CALLBACK, 400)], extra
            assert extra[0].response["code"] == 40060
            again, _ = await table.game()
            assert again.version == row.version and again.state == row.state
    asyncio.run(scenario())


def test_ack_timeouts_and_server_errors_change_nothing_and_retrying_works(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=2)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            table = Table(h)
            await table.open(ann, [bob], players=2)
            row, _ = await table.game()
            builtin = h.server._interaction_callback
            mode = {"now": "lost"}

            def callback(request):
                if mode["now"] == "lost":  # the defer never reached Discord
                    mode["now"] = "ok"
                    raise TimeoutError("no answer from Discord")
                if mode["now"] == "late":  # it did, but its answer never came back
                    mode["now"] = "ok"
                    builtin(request)
                    raise TimeoutError("no answer from Discord")
                return builtin(request)

            h.http.route("POST", CALLBACK, callback)
            res = await table.slash(ann, "rr place", card="thief", square="2B",
                                    expect_response=False)
            assert res.kind is None and not res.followups  # Discord shows its own failure
            mode["now"] = "late"
            res = await table.slash(ann, "rr place", card="thief", square="2B")
            assert res.ephemeral and "nothing was done" in res.text, res.text
            h.http.fail("POST", CALLBACK, status=503, times=5)  # every retry discord.py makes
            res = await table.slash(ann, "rr place", card="thief", square="2B",
                                    expect_response=False)
            assert res.kind is None
            for m in h.visible_to(ann):
                assert INTERNAL not in m.text and "Traceback" not in m.text
            same, _ = await table.game()
            assert same.version == row.version and same.state == row.state
            res = await table.slash(ann, "rr place", card="thief", square="2B")
            assert res.text.startswith("✅"), res.text
    asyncio.run(scenario())


def test_a_roll_is_answered_by_command_without_its_buttons(tmp_path):
    """R12.1/R12.3: monsters no roll can beat (DEF 13) make every dice attack a miss that a
    reroll could still improve; the player answers by typing `/rr roll`."""
    from engine.cards import DATA_FILE

    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    for m in data["monsters"].values():
        m.update(hp=2, mov=1, atk=1)
        m["def"] = 13

    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=8,
                                            cards_data=data)) as h:
            table, users = await placed_game(h, players=1)
            res = await table.slash(users[0], "rr roll", choice="keep")
            assert res.ephemeral and res.text.startswith("⛔"), res.text  # no roll asked
            rng = random.Random(3)
            for _ in range(200):
                row, g = await table.game()
                assert not g.over, "no missed roll came up"
                dec = g.decision(0)
                if dec["kind"] == "roll":
                    break
                dice = [a for a in g.legal_actions(0) if a.verb == "act" and a.skill
                        and a.skill.kind == "attack"]
                if dec["kind"] == "actions" and dice:
                    a = dice[0]
                    opts = {"unit": a.square, "target": str(a.skill)}
                    if a.to:
                        opts["to"] = a.to
                    res = await table.slash(users[0], "rr act", **opts)
                    assert res.text.startswith("✅"), res.text
                    continue
                await table.step(rng)
            assert dec["can_reroll"]
            honor, logged = g.state["players"][0]["honor"], len(g.state["log"])
            res = await table.slash(users[0], "rr roll", choice="reroll")
            assert res.text.startswith("✅ `reroll`"), res.text
            row, g = await table.game()
            assert list(g.state["log"][logged]) == [0, "reroll"]
            assert g.state["players"][0]["honor"] == honor - 1  # R12.3: Willpower costs 1
    asyncio.run(scenario())


def test_roll_command_speaks_japanese():
    from discord import Locale, app_commands

    from cogs.i18n import RookTranslator

    async def scenario():
        tr = RookTranslator()
        ja = [await tr.translate(app_commands.locale_str(s), Locale.japanese, None)
              for s in ("roll", "Keep the result", "Reroll (1 honor mark)")]
        assert ja == ["ダイス", "そのまま", "振り直し（栄誉マーク1）"]
    asyncio.run(scenario())
