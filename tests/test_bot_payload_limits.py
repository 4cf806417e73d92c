"""Discord's documented limits, checked on worst-case inputs (the limits audit).

The harness refuses every payload over a limit as Discord does (tests/harness/checks.py)
and fails the test even when the bot swallows the refusal (`OverLimit`), or when a message's
text would ping @everyone, @here or a role (`UnsafePing`). Here the longest inputs a player
can make — four 32-character display names with markdown, mentions, wide scripts and bidi
overrides, a whole game's log, Japanese — go through every read command, and a shortened
message is checked to be cut where a player can still read it.
"""

from __future__ import annotations

import asyncio

import discord
import pytest
from bot_driver import Clock, make_bot
from harness import Harness, OverLimit, UnsafePing

# ---------------------------------------------------------------------------- the checker

def test_the_harness_fails_a_swallowed_overflow_and_a_ping_of_everyone(tmp_path) -> None:
    """The checker itself: a 2001-character post or a post that would ping @everyone is a
    test failure even when the bot catches Discord's refusal and only logs it."""
    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock())) as h:
            channel = h.bot.get_partial_messageable(h.channel.id)
            with pytest.raises(discord.HTTPException) as refused:
                await channel.send("x" * 2001)
            assert refused.value.code == 50035
            assert h.raise_errors(expect_error=OverLimit)
            await channel.send("@everyone look", allowed_mentions=discord.AllowedMentions.all())
            assert h.raise_errors(expect_error=UnsafePing)
            await channel.send("@everyone look")  # the bot's default pings nobody
            assert not h.raise_errors()
    asyncio.run(scenario())


def test_the_checker_knows_modal_and_select_limits() -> None:
    """Limits the checker did not know: a modal's title and a text input's label (45
    characters each), and a select's max_values above its options' count."""
    from harness import _validate_message_payload
    from harness.checks import modal_problems

    row = {"type": 1, "components": [{"type": 4, "custom_id": "t", "label": "L" * 46,
                                      "style": 1}]}
    assert len(modal_problems({"title": "T" * 46, "custom_id": "m", "components": [row]})) == 2
    assert not modal_problems({"title": "T" * 45, "custom_id": "m", "components": [
        {"type": 1, "components": [{"type": 4, "custom_id": "t", "label": "ok", "style": 1}]}]})
    select = {"type": 3, "custom_id": "s", "max_values": 3,
              "options": [{"label": "a", "value": "a"}, {"label": "b", "value": "b"}]}
    errors = _validate_message_payload(
        {"components": [{"type": 1, "components": [select]}]}, [], creating=True)
    assert "components.max_values" in errors
