"""Issue 17 through the bot's harness: a game with AI seats posts its start message (Discord
takes it: only people are named as mentionable), and an AI's turn never waits for a
reminder — a store fault while its answer is committed is retried until it lands, and the
time-limit pass picks up any AI seat still waiting."""

from __future__ import annotations

import asyncio

from bot_driver import Clock, Table, make_bot
from harness import Harness


def public(h: Harness) -> list:
    return [m for m in h.messages() if not m.ephemeral and m.dm_user_id is None]


def start_posts(h: Harness) -> list:
    return [r for r in h.http.find("POST", "/channels/{channel_id}/messages")
            if "The game begins" in str((r.json or {}).get("content"))]


def test_a_game_with_ai_seats_posts_its_start_message(tmp_path):
    """Issue 17 point 1: "🎲 The game begins! Seats: …" named the AI seats' negative ids in
    allowed_mentions.users, Discord answered 400 (50035) and the post was lost."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4),
                           settle_timeout=60) as h:
            ann, bob = h.user("ann"), h.user("bob")
            table = Table(h)
            await h.slash(ann, "rr new", players=4)
            await h.click(bob, message=table.lobby_message(), label="Join")
            await h.slash(ann, "rr bot add", level="random", count=2)
            await h.click(ann, message=table.lobby_message(), label="Start")
            sent = start_posts(h)
            assert [r.status for r in sent] == [200], [r.response for r in sent]
            body = sent[0].json
            assert body["allowed_mentions"]["users"] == [ann.id, bob.id]  # people only
            start = next(m for m in public(h) if "The game begins" in m.content)
            assert f"1. <@{ann.id}>, 2. <@{bob.id}>, 3. 🤖 Bot 1 (random), " \
                   "4. 🤖 Bot 2 (random)" in start.content
            assert "<@-" not in start.content
    asyncio.run(scenario())
