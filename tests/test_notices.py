"""An outbox notice rebuilds exactly what the move told: replaying the stored setup + log
to the notice's range gives the same events, the same per-phase views (so the same images),
the same questions and deadlines as the live outcome (R15: setup + log is the game)."""

from __future__ import annotations

import asyncio
import random

from service import GameService
from service.notices import rebuild
from store import Store


def _same(live, again) -> None:
    assert again is not None
    assert again.events == live.events
    assert again.stages == live.stages  # (what ended, events so far, the view then)
    assert again.finished == live.finished and again.notes == live.notes
    assert (again.actor, again.text) == (live.actor, live.text)
    assert again.game.state == live.game.state
    assert again.deadlines == live.deadlines and again.prompts == live.prompts


def test_rebuilt_announcements_equal_the_live_ones(tmp_path):
    async def main():
        clock = [1_700_000_000.0]
        store = await Store(str(tmp_path / "n.db")).open()
        svc = GameService(store, clock=lambda: clock[0], seed_source=lambda: 21)
        svc.tables.notify = True
        await svc.lobby.new_lobby(None, 9, 1, "Ann", players=3, time_limit_s=3600)
        await svc.lobby.join(9, 2, "Bob")
        await svc.lobby.join(9, 3, "Cat")
        out = await svc.lobby.start(9, 1)
        (start,) = await store.notices()
        _same(out, await rebuild(svc.tables, start))
        await store.delivered(start.id)
        rng = random.Random(5)
        checked = {"move": 0, "timeout": 0, "undo": 0}
        for step in range(400):
            g = out.game
            if g.over:
                break
            seat = rng.choice(g.waiting_for())
            if step % 37 == 36:  # a time limit runs out
                clock[0] += 2 * 3600
                outs, _ = await svc.limits.tick()
                if not outs:
                    continue
                out = outs[-1]
                checked["timeout"] += 1
            elif g.can_undo(seat) and rng.random() < 0.5:
                authors = [a for a in await store.authors(out.row.id) if a is not None]
                out = await svc.play.undo(9, seat + 1)
                checked["undo"] += 1
                # the undo keeps who made every other action (one player action less)
                kept = [a for a in await store.authors(out.row.id) if a is not None]
                assert len(kept) == len(authors) - 1 and set(kept) <= {1, 2, 3}
            else:
                out = await svc.play.act(9, seat + 1, str(rng.choice(g.legal_actions(seat))))
                checked["move"] += 1
            pending = {n.id: n for n in await store.notices()}
            assert out.notice in pending, "every accepted answer queues its announcement"
            again = await rebuild(svc.tables, pending[out.notice])
            if out.text == "undo":
                assert again.events == out.events and again.game.state == out.game.state
            else:
                _same(out, again)
            for n in pending:
                await store.delivered(n)
        assert checked["move"] > 50 and checked["timeout"] > 0 and checked["undo"] > 0, checked
        await store.close()
    asyncio.run(main())
