"""Whole games played only through Discord interactions (slash commands, autocomplete,
buttons), with the HTTP edge recorded: a solo game and a 2-player game to the end, and two
games in two channels at once."""

from __future__ import annotations

import asyncio
import random

from bot_driver import Clock, Table, make_bot
from harness import Harness

from engine import Game


def run(coro_fn, *args):
    return asyncio.run(coro_fn(*args))


async def assert_replays(table: Table) -> None:
    """The stored action log plus setup reproduces the stored state (R15)."""
    row, _ = await table.game()
    log = await table.bot.store.log(row.id)
    assert Game.replay(row.setup, log).to_json() == row.state


def public(h, channel=None):
    return [m for m in h.messages(channel) if not m.ephemeral and m.dm_user_id is None]


def test_full_solo_game_through_interactions(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3)) as h:
            ann = h.user("ann")
            table = Table(h)
            await table.open(ann, players=1, difficulty="normal")
            await table.play(random.Random(1))
            row, g = await table.game()
            assert g.over and row.status == "over"
            assert g.state["options"]["difficulty"] == "normal"
            # the game-over post, then the game's animated recap (issue 24)
            assert "Game over" in public(h)[-2].text
            assert public(h)[-1].files[0].filename == f"recap-{row.id}.gif"
            # a table image after the phases, and every interaction was answered ephemerally
            assert any(f.filename.endswith(".png") for m in public(h) for f in m.files)
            assert all(s.result.ephemeral for s in table.steps)
            kinds = {s.kind for s in table.steps}
            assert {"place", "pick", "actions"} <= kinds
            await assert_replays(table)
            # after the end, commands say so (and how it ended) instead of acting
            res = await h.slash(ann, "rr done")
            assert res.ephemeral and "The game is over" in res.text
    run(scenario)


def test_full_two_player_game_through_interactions(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=11)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            table = Table(h)
            await table.open(ann, [bob], players=2, hours=12)
            await table.play(random.Random(5))
            row, g = await table.game()
            assert g.over and row.status == "over"
            # the game-over post, then the game's animated recap (issue 24)
            assert "Game over" in public(h)[-2].text
            assert public(h)[-1].files[0].filename == f"recap-{row.id}.gif"
            seats = {s.seat for s in table.steps}
            assert seats == {0, 1}
            # both players were pinged (a new message mentioning them) at least once
            for user in (ann, bob):
                assert any(m.content.startswith(user.mention) for m in public(h))
            await assert_replays(table)
    run(scenario)


def test_two_games_in_two_channels_at_once(tmp_path):
    """Two channels, two games, one process: steps interleave, and button clicks in both
    channels arrive at the same moment; each game goes to its end on its own."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=5)) as h:
            ann, bob, cat = h.user("ann"), h.user("bob"), h.user("cat")
            second = h.text_channel("second")
            one, two = Table(h), Table(h, second)
            await one.open(ann, [bob], players=2)
            await two.open(cat, [ann], players=2)  # ann plays in both channels
            assert one.game_id != two.game_id
            rngs = {one: random.Random(1), two: random.Random(2)}
            together = 0
            for _ in range(800):
                live = [t for t in (one, two) if not (await t.game())[1].over]
                if not live:
                    break
                clicks = [c for t in live if (c := await pending_click(t)) is not None]
                if len(clicks) == 2:
                    results = await h.gather(*(h.click(u, cid, message=m) for u, m, cid in clicks))
                    assert all(r.ephemeral and r.text.startswith("✅") for r in results)
                    together += 1
                    continue
                for t in live:
                    await t.step(rngs[t])
            assert together > 0
            for t in (one, two):
                row, g = await t.game()
                assert g.over and row.channel_id == t.channel.id
                await assert_replays(t)
            # each channel only ever heard about its own game: Cat never appears in #general,
            # Bob never in #second
            assert all("Cat" not in m.text for m in public(h, one.channel))
            assert all("Bob" not in m.text for m in public(h, second))
    run(scenario)


async def pending_click(t: Table):
    """A pick or done button some waiting player of this table could click now."""
    row, g = await t.game()
    for seat in g.waiting_for():
        dec = g.decision(seat)
        if dec["kind"] in ("pick", "actions", "recruit"):
            found = t.find_button(t.user(row, seat), row.id, seat, dec["id"],
                                  "pick" if dec["kind"] == "pick" else "done")
            if found:
                return t.user(row, seat), found[0], found[1]
    return None


def test_a_game_in_a_thread_next_to_one_in_its_channel(tmp_path):
    """Threads are channels: a second game runs in a thread of a channel that has one."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=5)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            thread = h.server.add_channel("rr-thread", type=11, parent_id=h.channel.id,
                                          owner_id=ann.id)
            h.bot._connection.parsers["THREAD_CREATE"]({**thread.payload(),
                                                        "newly_created": True})
            main, side = Table(h), Table(h, thread)
            await main.open(ann, players=1)
            await side.open(bob, [ann], players=2)
            await side.play(random.Random(4))
            row, g = await side.game()
            assert g.over and row.channel_id == thread.id
            assert any("Game over" in m.text for m in public(h, thread))
            row, g = await main.game()
            assert not g.over  # the channel's own game is untouched
    run(scenario)
