"""Members who change during a game: a seated player who leaves the server (or is kicked
or banned) mid-game, as the others and the server's moderators meet it."""

from __future__ import annotations

import asyncio
from typing import Any

import discord
from bot_driver import Clock, Table, make_bot
from harness import FakeUser, Harness

from engine import Game


def public(h):
    return [m for m in h.messages() if not m.ephemeral and m.dm_user_id is None]


async def three_playing(h: Harness) -> tuple[Table, FakeUser, FakeUser, FakeUser]:
    """Ann's 3-player game in #general with Bob and Cat, begun."""
    ann, bob, cat = h.user("ann"), h.user("bob"), h.user("cat")
    table = Table(h)
    await table.open(ann, [bob, cat], players=3)
    return table, ann, bob, cat


async def cat_is_out(h: Harness, table: Table, res: Any) -> Game:
    """The removal took: the remover is told, the channel hears it, and Cat's seat is out
    of a game that goes on (R9.3)."""
    assert res.ephemeral and res.text.startswith("✅"), res.text
    assert any("Cat has left the game" in m.text for m in public(h)[-5:])
    _, g = await table.game()
    assert g.state["players"][2]["eliminated"] and not g.over
    return g


def test_a_player_who_left_the_server_is_removed_by_vote_without_waiting_for_timeouts(tmp_path):
    """Cat leaves the server on the first day of a game of 24-hour turns. Before, Ann's
    `/rr remove player: Cat` was refused ("a player can be removed after 2 timeouts …; Cat
    has 0"): the table waited two full time limits per turn of hers — days — for someone who
    could no longer play, before a vote was even allowed. Discord says she is no longer a
    member (a user option resolves no member for her), so the vote is open at once; the
    majority of the others still decides."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=2)) as h:
            table, ann, bob, cat = await three_playing(h)
            cat.in_guild = False  # she left (kicked, banned: the same to Discord)
            res = await table.slash(ann, "rr remove", player=cat)
            assert res.ephemeral and "Vote recorded (1/2)" in res.text, res.text
            res = await table.slash(bob, "rr remove", player=cat)
            await cat_is_out(h, table, res)
    asyncio.run(scenario())


def test_a_member_still_here_needs_the_timeouts_first(tmp_path):
    """Bob is still in the server: a vote against him before he has timed out twice is
    refused as before (a removal is for a player who is gone)."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=2)) as h:
            table, ann, bob, cat = await three_playing(h)
            res = await table.slash(ann, "rr remove", player=bob)
            assert res.ephemeral and "after 2 timeouts" in res.text, res.text
            assert "can no longer see this channel can be voted out at once" in res.text
    asyncio.run(scenario())


def test_a_moderator_removes_a_departed_player_at_once(tmp_path):
    """A moderator (Manage Channels) who does not play, asked by the table to clear a seat
    whose player left the server. Before, `/rr remove` answered "You are not playing in this
    game": the one tool a moderator had was `/rr abandon`, ending days of the others' play.
    Now the moderator removes the departed player at once (no vote: they may end the whole
    game anyway), and the channel hears it; a member who is neither a player nor a moderator
    is still told they are not playing."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=2)) as h:
            ann, bob, cat = h.user("ann"), h.user("bob"), h.user("cat")
            mod, fan = h.user("mod", manage_channels=True), h.user("fan")
            table = Table(h)
            await table.open(ann, [bob, cat], players=3)
            cat.in_guild = False
            res = await table.slash(fan, "rr remove", player=cat)
            assert res.ephemeral and "not playing in this game" in res.text, res.text
            res = await table.slash(mod, "rr remove", player=bob)  # still here: not yet
            assert res.ephemeral and "after 2 timeouts" in res.text, res.text
            res = await table.slash(mod, "rr remove", player=cat)
            g = await cat_is_out(h, table, res)
            assert not g.state["players"][1]["eliminated"]
    asyncio.run(scenario())


def test_a_lobby_message_deleted_by_a_moderator_is_posted_again(tmp_path):
    """A moderator tidying the channel deletes the lobby post (Join/Start buttons and the
    roster with it). Before, Bob's `/rr lobby join` answered "joined" while the roster was
    edited into a message that no longer existed (a 404, logged): nobody saw who had joined
    and nobody else had a Join button. Now the lobby is posted anew, with Bob in it and its
    buttons, and the later joins edit that one."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=2)) as h:
            ann, bob, cat = h.user("ann"), h.user("bob"), h.user("cat")
            table = Table(h)
            await table.h.slash(ann, "rr new", channel=table.channel, players=3)
            first = table.lobby_message()
            h.server.messages[first.id].deleted = True  # the moderator's delete

            def lobbies():
                return [m for m in h.messages(table.channel) if not m.deleted and any(
                    c.custom_id and c.custom_id.startswith("rr:lobby:") for c in m.buttons)]
            res = await table.slash(bob, "rr lobby join")
            assert res.ephemeral and "joined" in res.text, res.text
            assert len(lobbies()) == 1, lobbies()
            again = lobbies()[0]
            assert again.id != first.id and "Ann, Bob" in again.text
            joined = await h.click(cat, table.lobby_button(again, "join"), message=again)
            assert "joined" in joined.text, joined.text
            assert len(lobbies()) == 1 and "Ann, Bob, Cat" in h.server.messages[again.id].text
    asyncio.run(scenario())


BIDI_SPANNING = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def test_a_right_to_left_override_in_a_name_does_not_turn_the_channel_s_lines_around(tmp_path):
    """Cat renames herself mid-server to "Cat" + U+202E (RIGHT-TO-LEFT OVERRIDE), a known
    prank. Before, every line naming her carried the override: Discord drew the rest of the
    line after her name reversed ("Cat ‮placed a Thief" read backwards) in the lobby, the
    posts and the refusals. Now a name's bidi overrides, embeddings and isolates are left
    out wherever a name is printed (`mentions.safe`); her name still reads "Cat"."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=2)) as h:
            ann, bob, cat = h.user("ann"), h.user("bob"), h.user("cat")
            cat.global_name = cat.nick = "Cat\u202e\u2067"
            table = Table(h)
            await table.open(ann, [bob, cat], players=3)
            res = await table.slash(ann, "rr remove", player=cat)  # names her: too early
            texts = [m.text for m in h.messages()] + [res.text]
            named = [x for x in texts if "Cat" in x]
            assert named and not [x for x in named if set(x) & set(BIDI_SPANNING)], named
    asyncio.run(scenario())


def test_a_player_who_lost_access_to_the_channel_is_removed_by_vote_without_timeouts(tmp_path):
    """A role-restricted channel: Cat's role is taken away mid-game, so she can no longer see
    the channel (no button, no post, no ping reaches her). Before, the others were refused
    ("can be removed after 2 timeouts …; Cat has 0") and waited two time limits per turn of
    hers. Discord's resolved member carries her permissions in the channel: without View
    Channel she is gone from this game as much as one who left the server."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=2)) as h:
            table, ann, bob, cat = await three_playing(h)
            view = discord.Permissions(view_channel=True).value
            table.channel.overwrites[cat.id] = {"id": str(cat.id), "type": 1, "allow": "0",
                                                "deny": str(view)}
            res = await table.slash(ann, "rr remove", player=cat)
            assert res.ephemeral and "Vote recorded (1/2)" in res.text, res.text
    asyncio.run(scenario())


def test_a_lobby_whose_host_left_the_server_can_be_closed_by_its_players(tmp_path):
    """Ann opens a lobby, Bob and Cat join, and Ann leaves the server before starting. Before,
    Bob's Start said "Only the host can start the game", his `/rr abandon` "Only the host or a
    member with Manage Channels…", and `/rr new` "This channel already has a game": the
    channel was blocked until a moderator came by. Now Start says the host has left and how
    to go on, and a player in the lobby may close it and open a new one. A game begun is
    not theirs to end (the vote removes a departed player there)."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=2)) as h:
            ann, bob, cat, fan = h.user("ann"), h.user("bob"), h.user("cat"), h.user("fan")
            table = Table(h)
            await table.h.slash(ann, "rr new", channel=table.channel, players=3)
            lobby = table.lobby_message()
            for user in (bob, cat):
                await h.click(user, table.lobby_button(lobby, "join"), message=lobby)
            ann.in_guild = False
            res = await h.click(bob, table.lobby_button(lobby, "start"), message=lobby)
            assert "host has left the server" in res.text, res.text
            res = await table.slash(fan, "rr abandon")  # not in the lobby: still refused
            assert "Only the host" in res.text, res.text
            res = await table.slash(bob, "rr abandon")
            assert res.ephemeral and "abandoned" in res.text, res.text
            res = await table.slash(bob, "rr new", players=2)
            assert res.ephemeral and "Players (1/2): Bob" in res.text, res.text
    asyncio.run(scenario())


def test_two_players_with_one_display_name_are_told_apart(tmp_path):
    """Bob's server nickname is "ann", the same as Ann's (a common name, or a prank). Before,
    the lobby read "Ann, ann", the start post's summons "(Ann, ann, Cat)", `/rr status`
    "Waiting for Ann …; ann …": nobody could tell whose turn it was or who had moved. Now a
    name already seated (the same letters, whatever their case or width) is seated with its
    seat number, "ann (2)"."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=2)) as h:
            ann, bob, cat = h.user("ann"), h.user("bob"), h.user("cat")
            bob.nick = "ａｎｎ"  # full-width: the same name to a reader
            table = Table(h)
            await table.open(ann, [bob, cat], players=3)
            row, g = await table.game()
            assert [p["name"] for p in g.state["players"]] == ["Ann", "ａｎｎ (2)", "Cat"]
            status = await table.slash(ann, "rr status")
            assert "ａｎｎ (2)" in status.text, status.text
    asyncio.run(scenario())


def test_the_board_of_a_player_who_resigned_says_they_are_out(tmp_path):
    """R9.3: a player who resigned (or was removed, or knocked out) is out of the game. Their
    `/rr board` read "**Cat** — gold 7, honor marks 2, threat 10; …" like a board in play,
    with nothing to say it no longer plays; now it says so. The others' boards do not."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=2)) as h:
            table, ann, bob, cat = await three_playing(h)
            res = await table.slash(cat, "rr lobby leave", confirm=True)
            assert "resigned" in res.text, res.text
            out = await table.slash(ann, "rr board", player=cat)
            assert "Out of the game (R9.3)" in out.text, out.text
            still = await table.slash(ann, "rr board", player=bob)
            assert "Out of the game" not in still.text, still.text
    asyncio.run(scenario())
