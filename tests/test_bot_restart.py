"""Never lose a game: kill the bot at the instant it first tells anyone about an action,
start a new bot on what was on disk at that instant, and play on to the end.

The "kill" copies the SQLite files (database + WAL, as a crash would leave them) from inside
the fake Discord's handler of the bot's first reply about an action — the earliest moment a
user could have seen it. The new instance must have that action, verify setup + log against
the stored state, keep the timers, and accept a button posted before the restart while its
question is still open.
"""

from __future__ import annotations

import asyncio
import random
import shutil
from pathlib import Path

from bot_driver import Clock, Table, make_bot
from harness import Harness

from engine import Game


def crash_copy(src: Path, dst: Path) -> None:
    """What a killed process leaves behind: the database file and its write-ahead log."""
    shutil.copyfile(src, dst)
    wal = Path(f"{src}-wal")
    if wal.exists():
        shutil.copyfile(wal, Path(f"{dst}-wal"))


def test_kill_at_first_reply_and_restart_resumes_game_timers_and_buttons(tmp_path):
    live, crashed = tmp_path / "live.db", tmp_path / "crashed.db"
    clock = Clock()
    kept: dict = {}

    async def first_life():
        async with Harness(lambda: make_bot(live, clock, seed=11)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            table = Table(h)
            await table.open(ann, [bob], players=2)
            rng = random.Random(8)
            for _ in range(25):
                await table.step(rng)
            builtin = h.server._followup_create

            def followup(request):
                body = request.json or {}
                if "copied" not in kept and str(body.get("content", "")).startswith("✅"):
                    crash_copy(live, crashed)
                    kept["copied"] = body["content"]
                return builtin(request)

            h.http.route("POST", "/webhooks/{webhook_id}/{webhook_token}", followup)
            await table.step(rng)
            assert "copied" in kept
            row, g = await table.game()
            kept.update(server=h.server, game_id=row.id, version=row.version,
                        timers=await table.bot.store.timers(row.id))

    async def second_life():
        async with Harness(lambda: make_bot(crashed, clock, seed=99),
                           server=kept["server"]) as h:
            table = Table(h)
            table.game_id = kept["game_id"]
            assert await table.bot._verifier == 1  # loaded and verified at startup
            row, g = await table.game()
            log = await table.bot.store.log(row.id)
            # the action the first bot was replying about had been committed before the reply
            action = kept["copied"].split("`")[1]
            assert any(text == action for _, text in log), (action, log[-3:])
            assert row.version == kept["version"]
            assert Game.replay(row.setup, log).to_json() == row.state
            assert await table.bot.store.timers(row.id) == kept["timers"]
            # a button posted before the restart still answers its open question
            clicked = False
            for seat in g.waiting_for():
                dec = g.decision(seat)
                found = table.find_button(table.user(row, seat), row.id, seat, dec["id"])
                if found and dec["kind"] in ("pick", "actions", "recruit", "support", "ready"):
                    res = await table.click(table.user(row, seat), found)
                    assert res.text.startswith("✅"), res.text
                    clicked = True
                    break
            assert clicked, "no open question had a button from before the restart"
            # timers resumed: past the limit, the new bot's ticker gives the default answer
            row, g = await table.game()
            # the loaded Game is the service's cached object, advanced in place by the tick:
            # keep what is compared, not the object
            version, moves = row.version, len(await table.bot.store.log(row.id))
            clock.now += 25 * 3600
            assert await table.bot.tick_once() >= 1
            said = [m.text for m in h.messages() if not m.ephemeral][-8:]
            assert any("ran out of time" in t for t in said), said
            row, g2 = await table.game()
            assert row.version > version and len(await table.bot.store.log(row.id)) > moves
            await table.play(random.Random(3))
            row, g = await table.game()
            assert g.over and row.status == "over"

    asyncio.run(first_life())
    asyncio.run(second_life())
