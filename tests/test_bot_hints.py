"""`/rr bot hint` (`/rr` already holds Discord's 25 children) and `/rr settings hints:` through the bot's gateway-level harness (issue 23):
the answer is private, names one of the caller's listed legal actions with a reason and the
chances to win; the other players see in `/rr log` and `/rr status` who used hints; a host
turns hints off for the channel and then a hint is refused, changing nothing."""

from __future__ import annotations

import asyncio
import random

from bot_driver import Clock, Table, make_bot
from harness import Harness

from service.notation import action_words


def test_hint_is_private_legal_and_shown_to_the_others_then_a_host_turns_hints_off(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=2),
                           settle_timeout=60) as h:
            ann, bob = h.user("ann"), h.user("bob")
            table = Table(h)
            await table.open(ann, [bob], players=2, hours=1)
            row, g = await table.game()
            seat = g.waiting_for()[0]
            asker, other = (ann, bob) if row.seat_of(ann.id) == seat else (bob, ann)
            res = await h.slash(asker, "rr bot hint")
            assert res.ephemeral, res.text
            legal = {action_words(str(a), g.cards, "en") for a in g.legal_actions(seat)}
            first = res.text.splitlines()[0]
            assert first.startswith("Hint (the expert AI): `"), res.text
            assert first.split("`")[1] in legal
            assert "Estimated chance to win:" in res.text
            # nothing was played: the game is where it was
            row2, g2 = await table.game()
            assert row2.version == row.version and g2.state == g.state
            # the others see who used hints
            name = row.seats[seat]["name"]
            log = await h.slash(other, "rr log")
            assert f"{name} used 1 hint" in log.text, log.text
            status = await h.slash(other, "rr status")
            assert f"{name} used 1 hint" in status.text, status.text
            # hints off: only the host (or a manager) may; then a hint is refused
            host, guest = ann, bob
            res = await h.slash(guest, "rr settings", hints=False)
            assert "Only the host or a member with Manage Channels" in res.text
            res = await h.slash(host, "rr settings", hints=False)
            assert "Hints are now off" in res.text, res.text
            res = await h.slash(asker, "rr bot hint")
            assert res.ephemeral and "turned hints off" in res.text, res.text
            res = await h.slash(guest, "rr settings")
            assert "Hints (`/rr bot hint`): off." in res.text, res.text
            assert "Standing order" in res.text and "watching" not in res.text
            # a spectator reads the table's settings, not standing orders as if theirs (R12.1)
            res = await h.slash(h.user("eve"), "rr settings")
            assert "Hints (`/rr bot hint`): off." in res.text and "Turn time limit" in res.text
            assert "You are watching" in res.text and "Standing order" not in res.text, res.text
            status = await h.slash(other, "rr status")
            assert f"{name} used 1 hint" in status.text  # the refused one is not counted
    asyncio.run(scenario())


def test_the_end_of_the_game_tells_who_used_hints(tmp_path):
    """Issue 23: the end-of-game post says who used hints ("ann used 1 hint")."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4),
                           settle_timeout=60) as h:
            ann = h.user("ann")
            table = Table(h)
            await h.slash(ann, "rr new", bots=1, bot_level="random")
            await h.click(ann, message=table.lobby_message(), label="Start")
            row, _ = await table.bot.service.tables.current(h.channel.id)
            table.game_id = row.id
            res = await h.slash(ann, "rr bot hint")
            assert res.text.startswith("Hint (the expert AI)"), res.text
            before = len(h.messages(h.channel))
            await table.play(random.Random(3))
            _row, g = await table.game()
            assert g.over
            posts = [m.content for m in h.messages(h.channel)[before:]]
            name = row.seats[0]["name"]
            assert any(f"{name} used 1 hint" in p for p in posts[-6:]), posts[-6:]
    asyncio.run(scenario())


def test_a_full_log_still_ends_with_who_used_hints(tmp_path):
    """Issue 23: who used hints is part of `/rr log` however many events fill it — the
    events make room for those lines, not the other way round (4 players with long names
    whose every character is escaped)."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=9),
                           settle_timeout=120) as h:
            users = [h.user(f"p{k}") for k in range(4)]
            for k, u in enumerate(users):
                u.global_name = u.nick = f"_*~|`>{k}" * 4  # 28 typed, 52 shown escaped
            table = Table(h)
            await table.open(users[0], users[1:], players=4)
            row, g = await table.game()
            asker = table.user(row, g.waiting_for()[0])
            assert "Estimated chance to win:" in (await h.slash(asker, "rr bot hint")).text
            rng = random.Random(3)
            longest = 0
            for _ in range(80):
                await table.step(rng)
                log = await h.slash(users[1], "rr log")
                assert len(log.text) <= 1900
                assert log.text.splitlines()[-1].endswith("used 1 hint"), log.text[-300:]
                longest = max(longest, len(log.text))
            assert longest > 1700  # the events did fill the message
    asyncio.run(scenario())
