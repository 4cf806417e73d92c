"""One bot process playing the daily challenge, for `bench/kill_loop.py --mode daily`.

    python tests/daily_worker.py '{"db": …, "guild": …, "channel": …, "users": {…}, "offset": s}'

The bot process of tests/shard_worker.py (a real `RookBot` behind the gateway-level
harness, JSON commands in, `@@` JSON answers out) with the daily challenge's own commands,
each played as the player would: `/rr daily play` from the server, one answer in the daily
game in the player's DMs (buttons and slash commands, `Worker.step`), `/rr daily resign`.
Each answer says what the player was told (`said`), which is what the kill loop counts as
acknowledged. The players' DMs are pinned to fixed ids like the server's channels, so a
restarted process posts where the last one did (`settings["daily"]["post_channel"]`).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from bot_driver import Table, accepted  # noqa: E402
from harness import FakeChannel, Harness  # noqa: E402
from shard_worker import OffsetClock, Worker, main  # noqa: E402

from cogs.i18n import t  # noqa: E402
from service.daily_slots import slot  # noqa: E402

DM_BASE = 1 << 40  # a player's DM with the bot: DM_BASE + their user id (any fixed id will do)


def said(text: str) -> str:
    """What the player was told, in the kill loop's words: started, resumed, resigned, or
    refused (anything else: a refusal, or nothing to resign)."""
    for key in ("started", "resumed", "resigned"):
        if text.startswith(t(f"daily_{key}", "en")):
            return key
    return "refused"


class DailyWorker(Worker):
    def __init__(self, h: Harness, spec: dict[str, Any], clock: OffsetClock) -> None:
        super().__init__(h, spec, clock)
        server = h.server
        for uid in spec["users"].values():
            user = server.users[int(uid)]
            dm = FakeChannel(DM_BASE + user.id, f"dm-{user.name}", type=1, recipient=user)
            server.dm_channels[user.id] = dm
            server.channels[dm.id] = dm

    async def run(self, cmd: dict[str, Any]) -> dict[str, Any]:
        op = cmd["cmd"]
        if op == "daily_play":
            res = await self.h.slash(self.user(cmd["user"]), "rr daily play")
            return {"said": said(res.text), "text": res.text}
        if op == "daily_resign":
            res = await self.h.slash(self.user(cmd["user"]), "rr daily resign", confirm=True)
            return {"said": said(res.text), "text": res.text}
        if op == "daily_step":  # one answer in the ranked game, in the player's DMs
            user = self.user(cmd["user"])
            row = await self.bot.store.open_game(slot(user.id, True))
            if row is None or row.status != "active":
                return {"said": "nothing"}
            table = Table(self.h, self.h.dm_channel(user))
            table.game_id = row.id
            step = await self.step(table)
            return {"said": "accepted" if step is not None else "nothing", "game": row.id}
        return await super().run(cmd)

    async def step(self, table: Table | None = None) -> Any:
        """One answer. A command card is picked with its button, or — the button being in
        the dead process's Discord after a restart — with `/rr pick` and one of the cards
        offered (a static choice, so no autocomplete to ask)."""
        table = table or self.table
        row, g = await table.game()
        seat = g.waiting_for()[0] if not g.over else 0
        dec = g.decision(seat) or {}
        user = table.user(row, seat)
        if dec.get("kind") == "pick" and table.find_button(
                user, row.id, seat, dec["id"], "pick") is None:
            res = await table.slash(user, "rr pick", card=self.rng.choice(dec["options"]))
            assert accepted(res), res.text
            return res
        return await super().step(table)


if __name__ == "__main__":
    import logging

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    asyncio.run(main(json.loads(sys.argv[1]), DailyWorker))
