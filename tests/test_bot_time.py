"""Asynchronous play: pings, one reminder, default answers at the time limit told to the
channel, removal of a player who keeps timing out, and the time limit setting."""

from __future__ import annotations

import asyncio
import random

from bot_driver import Clock, Table, make_bot
from harness import FakeUser, Harness

HOUR = 3600


def public(h):
    return [m for m in h.messages() if not m.ephemeral and m.dm_user_id is None]


async def three_at_a_table(h: Harness) -> tuple[Table, FakeUser, FakeUser, FakeUser]:
    """Ann, Bob and Cat at a 3-player game of one-hour time limits."""
    ann, bob, cat = h.user("ann"), h.user("bob"), h.user("cat")
    table = Table(h)
    await table.open(ann, [bob, cat], players=3, hours=1)
    return table, ann, bob, cat


def test_reminder_timeout_and_removal_of_an_absent_player(tmp_path):
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=2)) as h:
            table, ann, bob, cat = await three_at_a_table(h)
            # the start pinged everyone with a new message (so Discord notifies them)
            for user in (ann, bob, cat):
                assert any(m.content.startswith(user.mention) for m in public(h))
            for user in (ann, bob):
                res = await table.slash(user, "rr place", card="thief", square="2B")
                assert res.text.startswith("✅"), res.text
            status = await h.slash(ann, "rr status")
            assert status.ephemeral and "Cat" in status.text and "<t:" in status.text
            # 45 minutes in: one reminder for Cat, and only one
            clock.now += 0.8 * HOUR
            assert await table.bot.tick_once() == 1
            reminder = public(h)[-1]
            assert reminder.content.startswith("⏰ " + cat.mention)
            assert await table.bot.tick_once() == 0
            # past the limit: the default answer (Cat's placement is made for them), told
            clock.now += 0.3 * HOUR
            await table.bot.tick_once()
            assert any("Cat ran out of time" in m.text for m in public(h)[-6:])
            row, g = await table.game()
            assert g.state["round"] >= 1 and row.meta["timeouts"]["2"] == 1
            # run the clock until Cat has timed out twice; the channel hears the hint
            for _ in range(40):
                row, g = await table.game()
                if row.meta.get("timeouts", {}).get("2", 0) >= 2 or g.over:
                    break
                clock.now += 1.1 * HOUR
                await table.bot.tick_once()
            assert row.meta["timeouts"]["2"] >= 2 and not g.over
            assert any("times in a row: the other players may vote to remove" in m.text
                       for m in public(h))  # R15: an answer of their own resets the count
            res = await h.slash(ann, "rr remove", player=cat)
            assert res.ephemeral and "Vote recorded (1/2)" in res.text
            res = await h.slash(ann, "rr remove", player=h.user("nobody"))
            assert "not playing" in res.text
            res = await h.slash(bob, "rr remove", player=cat)
            assert res.ephemeral and res.text.startswith("✅"), res.text
            assert any("Cat has left the game" in m.text for m in public(h)[-5:])
            row, g = await table.game()
            assert g.state["players"][2]["eliminated"]
            # an eliminated player is told so, and nothing changes
            before = row.state
            res = await h.slash(cat, "rr done")
            assert res.ephemeral and "eliminated" in res.text
            assert (await table.game())[0].state == before
    asyncio.run(scenario())


def test_time_limit_setting_and_standing_order(tmp_path):
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=2)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            table = Table(h)
            await table.open(ann, [bob], players=2)
            res = await h.slash(ann, "rr settings")
            assert "**24 h**" in res.text and "**off**" in res.text
            res = await h.slash(bob, "rr settings", hours=2)
            assert res.ephemeral and "Only the host" in res.text
            res = await h.slash(ann, "rr settings", hours=2)
            assert "now 2 h" in res.text
            res = await h.slash(bob, "rr settings", autosave=True)
            assert res.text.startswith("✅") and "autosave on" in res.text
            res = await h.slash(bob, "rr settings")
            assert "**on**" in res.text and "**2 h**" in res.text
            # new questions get the new limit
            await table.slash(ann, "rr place", card="thief", square="2B")
            await table.slash(bob, "rr place", card="thief", square="2B")
            row, g = await table.game()
            timers = await table.bot.store.timers(row.id)
            assert timers and all(t["deadline"] == clock.now + 2 * HOUR for t in timers)
            spectator = h.user("spec")
            res = await h.slash(spectator, "rr settings", autosave=True)
            assert "not playing" in res.text
    asyncio.run(scenario())


def test_roll_question_setting(tmp_path):
    """Issue 7: 'reroll, level up or keep?' after almost every hit. `/rr settings rolls:`
    sets the `rolls` standing order (R12.1): by default a roll is asked about only after a
    miss; a player may ask to be asked after any roll that could improve. Shown in each
    player's language, kept in the game's log (so a restart or replay keeps it)."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=2)) as h:
            ann, yui = h.user("ann"), h.user("yui", locale="ja")
            table = Table(h)
            await table.open(ann, [yui], players=2)
            res = await h.slash(ann, "rr settings")
            assert "after a roll: **after a miss only**" in res.text
            res = await h.slash(ann, "rr settings", rolls="always")
            assert res.ephemeral and res.text.startswith("✅") and "rolls always" in res.text
            res = await h.slash(ann, "rr settings")
            assert "**after any roll that could improve**" in res.text
            res = await h.slash(yui, "rr settings")
            assert "**外れのときだけ**" in res.text
            row, g = await table.game()
            seat = row.seat_of(ann.id)
            assert g.state["players"][seat]["rolls"] == "always"
            assert g.state["players"][1 - seat]["rolls"] == "miss"
            assert [seat, "rolls always"] in g.state["log"]
            res = await h.slash(ann, "rr settings", rolls="miss", autosave=True)
            row, g = await table.game()
            assert g.state["players"][seat]["rolls"] == "miss"
            assert g.state["players"][seat]["autosave"] is True
            res = await h.slash(h.user("spec"), "rr settings", rolls="always")
            assert "not playing" in res.text
    asyncio.run(scenario())


def test_a_player_who_answers_again_is_no_longer_up_for_removal(tmp_path):
    """The group audit: Cat timed out twice and Ann voted to remove her; Cat then played on
    time for two rounds, and Bob's vote days later removed her right after her own answer.
    A removal is for a player who is gone: an answer of her own clears her time-outs and the
    votes against her, so a vote now waits for her to time out twice again."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=2)) as h:
            table, ann, bob, cat = await three_at_a_table(h)
            for _ in range(40):  # Cat never answers: two time-outs
                row, g = await table.game()
                if row.meta.get("timeouts", {}).get("2", 0) >= 2 or g.over:
                    break
                clock.now += 1.1 * HOUR
                await table.bot.tick_once()
            assert row.meta["timeouts"]["2"] >= 2
            res = await h.slash(ann, "rr remove", player=cat)
            assert "Vote recorded (1/2)" in res.text
            rng = random.Random(3)
            for _ in range(200):  # play on until Cat herself has answered
                step = await table.step(rng)
                assert step is not None
                if step.seat == 2 and step.result.text.startswith("✅"):
                    break
            row, _ = await table.game()
            assert "2" not in row.meta.get("timeouts", {}) and "2" not in row.meta.get("kick", {})
            res = await h.slash(bob, "rr remove", player=cat)
            assert res.ephemeral and "Vote recorded" not in res.text, res.text
            row, g = await table.game()
            assert not g.player(2)["eliminated"]
    asyncio.run(scenario())
