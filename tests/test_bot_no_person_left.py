"""A channel game with AI seats whose last person leaves it by any way (a vote or a
moderator's removal, a castle's fall to an Invasion, R9.3): the game ends there, in the
move's own transaction, as a resign leaving only AIs already did — before, the AI seats
played the rest of it out in the channel at once, dozens of posts in a second."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from bot_driver import Clock, Table, make_bot
from harness import Harness
from test_service_seats import _collect, _play_people, _service

from service.play import status_after


def public(h: Harness) -> list:
    return [m for m in h.messages() if not m.ephemeral and m.dm_user_id is None]


def test_the_last_person_removed_with_ai_seats_left_ends_the_game_in_a_few_posts(tmp_path):
    """Ann and Bob with two AI seats. Bob leaves the server and Ann votes him out: a person
    is still in the game, which plays on as before. Then Ann is gone too and a moderator
    removes her: before, the two AIs played the whole game out in the channel in the same
    second; now the channel reads her removal and one line saying no person is left to play,
    the game is abandoned, its timers gone, and no AI plays after it."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4),
                           settle_timeout=60) as h:
            ann, bob = h.user("ann"), h.user("bob")
            mod = h.user("mod", manage_channels=True)
            table = Table(h)
            await table.open(ann, [bob], players=4, bots=2)
            await h.settle()
            bob.in_guild = False
            res = await table.slash(ann, "rr remove", player=bob)
            assert res.ephemeral and res.text.startswith("✅"), res.text
            await h.settle()
            row, g = await table.game()
            a, b = row.seat_of(ann.id), row.seat_of(bob.id)
            assert a is not None and b is not None
            assert row.status == "active" and g.player(b)["eliminated"]
            assert not g.player(a)["eliminated"] and not g.over
            assert not any("no person is left" in m.text for m in public(h))
            moves = len(g.log)

            ann.in_guild = False
            before = len(public(h))
            res = await table.slash(mod, "rr remove", player=ann)
            assert res.ephemeral and res.text.startswith("✅"), res.text
            await h.settle()
            await h.bot.tick_once()  # a time-limit pass: nothing is left to play or remind
            await h.settle()
            posts = [m.text for m in public(h)[before:]]
            assert 1 <= len(posts) <= 4, posts
            assert any("Ann has left the game" in p for p in posts), posts
            assert posts[-1].startswith("🏳️") and "no person is left to play it" in posts[-1]
            assert "Ann" in posts[-1] and "abandoned by" not in posts[-1], posts[-1]
            last = await h.bot.store.latest_game(h.channel.id)
            assert last is not None and last.status == "abandoned", last and last.status
            assert await h.bot.store.timers(last.id) == []
            assert len(await h.bot.store.log(last.id)) == moves + 1  # the removal only
    asyncio.run(scenario())


def _table(people: list[bool], out: list[bool], over: bool = False) -> tuple[Any, Any]:
    """A row and game as `status_after` reads them: `people[s]` a person plays seat s (else
    an AI), `out[s]` the seat is eliminated."""
    row = SimpleNamespace(seats=[{"name": f"P{s}", "user": s + 1 if p else -s - 1,
                                  **({} if p else {"ai": "random"})}
                                 for s, p in enumerate(people)], meta={})
    g = SimpleNamespace(over=over, player=lambda s: {"eliminated": out[s]})
    return row, g


def test_a_move_that_leaves_only_ai_seats_abandons_the_game_once():
    """The rule on commit (service/play.py `status_after`), whatever the move: an AI's
    Invasion that took the last person's castle ends the game told as no person left; one
    person out of two plays on; a game the engine ended is over; a game with no person in
    it before the move (none exist) is left as it was; a resign keeps its own wording."""
    people = [True, False, False]
    row, g = _table(people, [True, False, False])
    assert status_after(row, g, 1, False, [0]) == (
        "abandoned", {"kind": "abandoned", "by": "P0", "why": "no_person"})
    assert status_after(row, g, 1, False, []) == ("active", None)
    assert status_after(row, g, 0, True, [0]) == (
        "abandoned", {"kind": "abandoned", "by": "P0"})
    row, g = _table([True, True, False], [True, False, False])
    assert status_after(row, g, 2, False, [0, 1]) == ("active", None)
    row, g = _table(people, [True, False, False], over=True)
    assert status_after(row, g, 1, False, [0]) == ("over", None)


def test_an_invasion_that_takes_the_last_persons_castle_ends_the_game_with_that_move(tmp_path):
    """Ann alone with two AI seats, played at random (seed 5) until her castle falls
    (R9.3, 落城) in the Invasion her own `done` set off: that move, not a later one, left the
    game abandoned as no person left, and no AI answered after it."""
    async def main():
        store, svc = await _service(tmp_path)
        svc.tables.notify = True  # a channel game's rule, as the bot hosts it
        await svc.lobby.new_lobby(1, 7, 11, "Ann", players=3, bots=2, bot_level="random")
        await svc.lobby.start(7, 11)
        real, outs, told = svc.play.act, [], []

        async def act(*args: Any, **kw: Any) -> Any:
            outs.append(await real(*args, **kw))
            return outs[-1]

        svc.play.act = act  # type: ignore[method-assign]
        g = await _play_people(svc, 7, told)
        assert not g.over and g.player(0)["eliminated"]
        last = outs[-1]
        assert any(e.get("type") == "invaded" for e in last.events)
        assert last.row.status == "abandoned" and last.abandoned is not None
        assert (last.abandoned.why, last.abandoned.by) == ("no_person", "Ann")
        n = len(await store.log(last.row.id))
        await svc.ai.play_ai(7, _collect(told))  # no AI turn after it
        assert len(await store.log(last.row.id)) == n and await store.timers(last.row.id) == []
        await store.close()
    asyncio.run(main())
