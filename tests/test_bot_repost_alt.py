"""A re-posted table says what it shows (issue 20): `/rr daily play` on a running game posts
the table again, and its alt text (read aloud to a blind player) names the phase the game
is in and its round — not "The table after , round 0" with nothing between "after" and
the comma."""

from __future__ import annotations

import asyncio
import datetime as dt
import random

from bot_driver import Clock, Table, make_bot
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


def test_the_last_table_of_a_game_says_the_phase_it_ended_in(tmp_path):
    """R13, the Discord new-player audit: a solo game lost at ⑤ Invasion posted its last
    table (standing at ⑤, "Game over") with the alt text "The table after Advance" — the
    last card resolved before it, not what the image shows."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(NOON), seed=3)) as h:
            ann = h.user("ann")
            table = Table(h)
            await table.open(ann, [], players=1)
            rng = random.Random(4)
            for _ in range(800):
                if await table.step(rng) is None:
                    break
            row, g = await table.game()
            assert g.over and g.result is not None
            ended = g.result["ended_in"]
            files = [f for m in h.messages(table.channel) for f in m.files
                     if f.filename.startswith("table-")]
            alt = files[-1].description or ""
            phase = {"invasion": "Invasion", "main": "Main phase", "auto": "Main phase (AUTO)",
                     "summon": "Summon", "end": "End phase"}[ended]
            assert alt.startswith("The table as the game ended in ") and phase in alt, alt
    asyncio.run(scenario())
