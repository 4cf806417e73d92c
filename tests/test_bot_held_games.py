"""Held time limits (R15) at their edges: a held game whose channel was deleted or whose
server removed the bot, an AI seat waiting when a hold is lifted, and the repost after it.

A game's time limits are held while Discord refuses the bot's posts in its channel
(tests/test_bot_permissions.py); these are the cases that hold left stuck or noisy."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from bot_driver import Clock, Table, make_bot
from harness import Harness
from test_bot_ai_turns import ai_run_lost
from test_bot_newcomer import placed_two_player
from test_bot_permissions import DAY, give_back, passes, take_away

from service.limits import PROBE_S
from service.seats import zombie_level

HOUR = 3600


def posts_to(h: Harness, channel_id: int) -> int:
    """How many posts the bot tried in the channel (taken or refused)."""
    return len(h.http.find("POST", f"/channels/{channel_id}/messages"))


def pinged(h: Harness, since: int) -> list[int]:
    """The people the bot's channel posts after the first `since` may notify."""
    sent = h.http.find("POST", "/channels/{channel_id}/messages")[since:]
    return [u for r in sent for u in ((r.json or {}).get("allowed_mentions") or {})
            .get("users", [])]


async def held_game(h: Harness, clock: Clock) -> tuple[Table, Any, Any]:
    """Ann's 2-player game with Bob, held: Send Messages taken away and the reminder and
    time-outs refused over three passes of the ticker."""
    table, ann, bob = await placed_two_player(h)
    take_away(h, send_messages=False)
    await passes(table, clock, 3)
    row, _g = await table.game()
    assert row.meta.get("held") is not None and row.status == "active", row.meta
    return table, ann, bob


def test_a_held_game_whose_channel_was_deleted_ends_at_the_hourly_try(tmp_path):
    """A held game's channel deleted (while the bot was down, or unseen): the hourly try
    met 404 Unknown Channel and left the game held for good, trying a post there every
    hour. It ends as a game whose channel is gone does (the timers audit): abandoned,
    its timers gone, nothing more posted there."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=4)) as h:
            table, _ann, _bob = await held_game(h, clock)
            del h.server.channels[h.channel.id]
            clock.now += PROBE_S
            await table.bot.tick_once()
            row, _g = await table.game()
            assert row.status == "abandoned", (row.status, row.meta)
            assert not await table.bot.store.timers(row.id)
            tried = posts_to(h, h.channel.id)
            for _ in range(3):
                clock.now += PROBE_S
                await table.bot.tick_once()
            assert posts_to(h, h.channel.id) == tried
    asyncio.run(scenario())


def test_a_game_ends_when_discord_says_its_channel_was_deleted(tmp_path):
    """A moderator deletes a held game's channel: Discord says so at once (CHANNEL_DELETE),
    and nobody can answer there again. The game is abandoned then, its timers gone —
    not kept held, tried every hour, until a post met the 404."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=4)) as h:
            table, _ann, _bob = await held_game(h, clock)
            del h.server.channels[h.channel.id]
            await h.gateway("CHANNEL_DELETE", h.channel.payload())
            row, _g = await table.game()
            assert row.status == "abandoned", (row.status, row.meta)
            assert not await table.bot.store.timers(row.id)
    asyncio.run(scenario())


def test_a_game_ends_when_discord_says_its_thread_was_deleted(tmp_path):
    """The same for a game in a thread (THREAD_DELETE): a thread a moderator locked, then
    deleted, left its game held and tried every hour for good."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=4)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            thread = h.thread("rr-thread", owner=ann)
            table = Table(h, thread)
            await table.open(ann, [bob], players=2)
            take_away(h, manage_threads=False)
            h.set_thread(thread, locked=True)
            await passes(table, clock, 2)
            row, _g = await table.game()
            assert row.meta.get("held") is not None, row.meta
            del h.server.channels[thread.id]
            await h.gateway("THREAD_DELETE", {"id": str(thread.id),
                                              "guild_id": str(h.server.guild_id),
                                              "parent_id": str(h.channel.id),
                                              "type": thread.type})
            row, _g = await table.game()
            assert row.status == "abandoned", (row.status, row.meta)
            assert not await table.bot.store.timers(row.id)
    asyncio.run(scenario())


async def lobby_in(h: Harness, table: Table, host: Any, guest: Any) -> int:
    """`host`'s lobby in the table's channel, `guest` joined, not started; its game id."""
    res = await h.slash(host, "rr new", channel=table.channel, players=3)
    assert res.ephemeral, res.text
    lobby = table.lobby_message()
    joined = await h.click(guest, table.lobby_button(lobby, "join"), message=lobby)
    assert joined.ephemeral and "joined" in joined.text, joined.text
    row = await table.bot.store.open_game(table.channel.id)
    assert row is not None and row.status == "lobby" and len(row.seats) == 2, row
    return row.id


@pytest.mark.parametrize("where", ["channel", "thread"])
def test_a_lobby_closes_when_discord_says_its_channel_was_deleted(tmp_path, where):
    """A lobby (a game not started) whose channel or thread a moderator deletes: its Join
    and Start buttons and every command there are gone with it, yet it stayed open for good
    — its seated players listed in a lobby nobody can reach or leave, the channel's open
    game (`/rr status`) a lobby forever. It is closed as a game in play there is ended
    (abandoned, untold: there is nowhere to tell it); nothing is posted to the deleted
    channel."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=4)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            channel = h.thread("rr-thread", owner=ann) if where == "thread" else h.channel
            table = Table(h, channel)
            game_id = await lobby_in(h, table, ann, bob)
            tried = posts_to(h, channel.id)
            del h.server.channels[channel.id]
            if where == "thread":
                await h.gateway("THREAD_DELETE", {"id": str(channel.id),
                                                  "guild_id": str(h.server.guild_id),
                                                  "parent_id": str(h.channel.id),
                                                  "type": channel.type})
            else:
                await h.gateway("CHANNEL_DELETE", channel.payload())
            row = await table.bot.store.get(game_id)
            assert row is not None and row.status == "abandoned", row
            assert await table.bot.store.open_game(channel.id) is None
            assert posts_to(h, channel.id) == tried
    asyncio.run(scenario())


def test_a_deleted_channel_elsewhere_leaves_a_lobby_open(tmp_path):
    """Another channel's deletion closes nothing here: the lobby stays open, as `/rr status`
    there says."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=4)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            table = Table(h)
            game_id = await lobby_in(h, table, ann, bob)
            other = h.thread("elsewhere", owner=ann)
            del h.server.channels[other.id]
            await h.gateway("THREAD_DELETE", {"id": str(other.id),
                                              "guild_id": str(h.server.guild_id),
                                              "parent_id": str(h.channel.id),
                                              "type": other.type})
            row = await table.bot.store.get(game_id)
            assert row is not None and row.status == "lobby", row
            status = await table.slash(bob, "rr status")
            assert "lobby is still open" in status.text, status.text
    asyncio.run(scenario())


def test_a_server_that_removed_the_bot_gets_no_hourly_post_and_its_game_waits(tmp_path):
    """The bot removed from the server (GUILD_DELETE): its game's posts were refused
    (Missing Access) and the hourly try made one more refused post, with its image drawn,
    every hour for good. Now the game is held and kept — nobody lost it, and a moderator
    may add the bot back — but no post is tried there while the bot is not in the server.
    Added back, a command in the channel lets the game go on, each question with its full
    time limit (R15)."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=4)) as h:
            table, ann, _bob = await placed_two_player(h)
            row, g = await table.game()
            waiting = g.waiting_for()
            h.server.user_install_only = True  # the bot's install (its membership) is gone
            await h.gateway("GUILD_DELETE", {"id": str(h.server.guild_id)})
            await passes(table, clock, 2)  # the reminder refused: the game is held
            row, g = await table.game()
            assert row.status == "active" and row.meta.get("held") is not None, row.meta
            tried = posts_to(h, h.channel.id)
            for _ in range(5):
                clock.now += PROBE_S
                await table.bot.tick_once()
            assert posts_to(h, h.channel.id) == tried  # no hourly refused post
            row, g = await table.game()
            assert row.status == "active" and g.waiting_for() == waiting
            assert not row.meta.get("timeouts"), row.meta
            h.server.user_install_only = False  # added back
            await h.gateway("GUILD_CREATE", h.server.guild_payload())
            await table.slash(ann, "rr status")
            row, _g = await table.game()
            assert "held" not in row.meta, row.meta
            posts = [m for m in h.messages(h.channel) if not m.ephemeral]
            assert any("the game goes on" in m.text for m in posts), [m.text for m in posts]
            timers = await table.bot.store.timers(row.id)
            assert timers and all(t["deadline"] == clock.now + DAY for t in timers), timers
    asyncio.run(scenario())


@pytest.mark.parametrize("lifted_by", ["command", "hourly try"])
def test_an_ai_seat_waiting_when_the_hold_is_lifted_answers_at_once(tmp_path, monkeypatch,
                                                                    lifted_by):
    """An AI seat's answer was still to come when the game was held (its run lost: here its
    trigger never ran), and the time-limit pass skips a held game. When the bot could post
    again (a command there shows it, or the hourly try goes through), the AI waited for the
    next pass (up to 30 s) while the channel read that the game goes on; it answers at
    once, as after any move that asks it."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=6)) as h:
            async with ai_run_lost(h, monkeypatch) as (table, ann):
                take_away(h, send_messages=False)
                await table.slash(ann, "rr status")  # shows the permission gone: held
            await table.bot.tick_once()  # the pass skips the held game's AI seat
            row, g = await table.game()
            assert row.meta.get("held") is not None and 1 in g.waiting_for(), row.meta
            give_back(h, send_messages=True)
            if lifted_by == "command":
                await table.slash(ann, "rr status")  # the bot can post: the game goes on
            else:
                clock.now += PROBE_S
                await table.bot.tick_once()
            await h.settle()
            row, g = await table.game()
            assert "held" not in row.meta, row.meta
            assert g.waiting_for() == [0], g.waiting_for()  # the AI placed, no pass needed
    asyncio.run(scenario())


def test_the_repost_after_a_hold_does_not_ping_a_seat_the_ai_plays(tmp_path, monkeypatch):
    """Zombie mode: Bob ran out of time and an AI plays his seat; its answer is still to
    come when the game is held. When the bot can post again, the table and open questions
    are posted again — and Bob was pinged for the question his AI answers, as if it were
    his turn. Nobody is pinged for a seat an AI plays (it answers at once)."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=2),
                           settle_timeout=30) as h:
            ann, bob = h.user("ann"), h.user("bob")
            table = Table(h)
            await table.open(ann, [bob], players=2, hours=1)
            await h.slash(ann, "rr settings", zombie="random")
            res = await table.slash(ann, "rr place", card="thief", square="2B")
            assert res.text.startswith("✅"), res.text
            with monkeypatch.context() as m:
                m.setattr("cogs.seats.AiRunner.kick", lambda self, channel_id: None)
                clock.now += 1.1 * HOUR  # Bob's time runs out: the AI takes his seat
                await table.bot.tick_once()
                row, g = await table.game()
                assert zombie_level(row, 1) == "random" and g.waiting_for() == [1]
                take_away(h, send_messages=False)
                await table.slash(ann, "rr status")  # held
                row, _g = await table.game()
                assert row.meta.get("held") is not None, row.meta
                give_back(h, send_messages=True)
                before = len(h.http.find("POST", "/channels/{channel_id}/messages"))
                await table.slash(ann, "rr status")  # the game goes on: reposted
            posts = [m for m in h.messages(h.channel) if not m.ephemeral]
            assert any("the game goes on" in m.text for m in posts), [m.text for m in posts]
            assert bob.id not in pinged(h, before), pinged(h, before)
            assert not any(bob.mention in p.text for p in posts
                           if "the game goes on" in p.text or "Your turn" in p.text)
    asyncio.run(scenario())


def test_a_game_set_aside_while_its_held_channel_goes_on_deadlocks_nothing(tmp_path):
    """Two tasks meet in a held game's channel: one holds the service's lock and finds the
    game damaged (set aside: its channel told so, in the channel's turn), while a post in
    that turn was taken, which lifts the hold (under the service's lock). Each waited for
    what the other held, for good: every later command and post there hung. Now the set-
    aside post waits for the turn in a task of its own and the lock is let go: the game
    goes on and the set-aside post follows."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=4)) as h:
            table, _ann, _bob = await held_game(h, clock)
            give_back(h, send_messages=True)
            bot, channel = table.bot, h.channel.id
            row, _g = await table.game()
            locked, in_turn = asyncio.Event(), asyncio.Event()
            tried = posts_to(h, channel)

            async def command() -> None:  # as a move finding its game damaged does
                async with bot.service.tables.lock(channel):
                    locked.set()
                    await in_turn.wait()
                    await bot.service.tables.on_quarantine(
                        row, {"kind": "unreadable", "what": ["setup"]}, None)

            async def post() -> None:  # as an announcement's post, taken, does
                await locked.wait()
                async with bot.announcer.turn(channel):
                    in_turn.set()
                    await asyncio.sleep(0.01)  # (the command waits for the turn meanwhile)
                    await bot.announcer.posting(channel, refused=False, took=True)

            await asyncio.wait_for(asyncio.gather(command(), post()), 10)
            await h.settle()
            row, _g = await table.game()
            assert row.meta.get("held") is None, row.meta  # the game goes on
            assert posts_to(h, channel) > tried + 1  # its "goes on" line and the set-aside
    asyncio.run(scenario())
