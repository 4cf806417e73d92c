"""After every phase (each executed command card, Invasion, Summon, End) the channel gets the
table image — also when one answer ends several of them: one post per card or phase, each
drawn from the game as it stood when that phase ended; a game that ends mid-phase (an
invasion) shows its final table too."""

from __future__ import annotations

import asyncio
import random

from bot_driver import Clock, Table, make_bot
from harness import Harness

from engine import Game, visible


async def _phases_ended(table: Table, log_before: int) -> tuple[list[str], bool]:
    """Replay the stored log to count the cards/phases the newest entries ended, and whether
    the game then ended mid-phase (an invasion after the last phase that ended)."""
    row, _ = await table.game()
    log = await table.bot.store.log(row.id)
    g = Game.replay(row.setup, log[:log_before])
    ended: list[str] = []
    events: list[dict] = []
    last = 0  # index of the first event after the last phase that ended
    for seat, text in log[log_before:]:
        base = len(events)

        def hook(what: str, n: int, base: int = base) -> None:
            nonlocal last
            ended.append(what)
            last = base + n
        events += g.apply(int(seat), text, on_resolved=hook)
    mid = g.over and any(e["type"] != "game_over" for e in visible(events[last:], None))
    return ended, mid


def test_every_phase_gets_its_own_table_image(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3)) as h:
            table = Table(h)
            await table.open(h.user("ann"), [], players=1)
            rng = random.Random(2)
            most = 0
            for _ in range(60):
                row, g = await table.game()
                if g.over:
                    break
                log_before = len(await table.bot.store.log(row.id))
                posted_before = len(h.messages(table.channel))
                await table.step(rng)
                new = h.messages(table.channel)[posted_before:]
                images = [m for m in new if m.files and  # table images (not the recap)
                          m.files[0].filename.startswith("table-")]
                ended, mid = await _phases_ended(table, log_before)
                # one image per phase, and the final table when the game ended mid-phase
                # (service/report.py: the console shows it too)
                assert len(images) == len(ended) + mid, (ended, [m.content for m in new])
                most = max(most, len(ended))
                rounds = [int(f.filename.split("-r")[1].split(".")[0])
                          for m in images for f in m.files]
                assert rounds == sorted(rounds)  # in the order the phases happened
            assert most >= 3  # some answer ended several phases at once
    asyncio.run(scenario())
