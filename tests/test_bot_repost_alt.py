"""A re-posted table says what it shows (issue 20): `/rr daily play` on a running game posts
the table again, and its alt text (read aloud to a blind player) names the phase the game
is in and its round — not "The table after , round 0" with nothing between "after" and
the comma."""

from __future__ import annotations

import asyncio
import datetime as dt

from bot_driver import Clock, make_bot
from harness import Harness

from cogs.announce import table_alt

NOON = dt.datetime(2026, 11, 23, 12, tzinfo=dt.UTC).timestamp()


def test_a_reposted_daily_table_names_its_phase_and_round_in_the_alt_text(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NOON))) as h:
            ann = h.user("ann")
            await h.slash(ann, "rr daily play")
            dm = h.dm_channel(ann)
            before = len(h.messages(dm))
            again = await h.slash(ann, "rr daily play")  # resumed: the table posted again
            assert "goes on" in again.text
            files = [f for m in h.messages(dm)[before:] for f in m.files]
            assert files, "the table is posted again"
            alt = files[-1].description or ""
            assert "after ," not in alt and "Placement" in alt and "round 0" in alt, alt
    asyncio.run(scenario())


def test_the_alt_text_after_placement_says_round_0():
    """R4: placement belongs to round 0; the view kept as it ended is already in round 1."""
    view = {"round": 1, "phase": "main", "after": "placement", "players": [{"name": "Ann"}]}
    assert table_alt(view, "Placement", "en").startswith("The table after Placement, round 0")
    assert "ラウンド0、" in table_alt(view, "配置", "ja")
    now = table_alt({"round": 3, "phase": "main", "players": []}, "", "ja")
    assert now.startswith("ラウンド3、") and "の後" not in now
