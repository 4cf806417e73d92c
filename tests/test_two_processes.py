"""Issue 17: two processes running the same shard (a rolling deploy, a mistaken setting) on
one database — both backends through the `db` fixture. The other process is a second
store and service on the same database; a race is made certain, not hoped for, by running
the other process's work in the gap between this process's read and its write (`Between`).

Checked, as a player or operator notices it:
1. each reminder is posted once, though both processes' passes found it due;
2. a removal vote recorded in one process survives a time-out counted in the other
   (different keys of the game's meta), and two players' votes cast at once in the two
   processes both count — the second one removes the absent player (R9.3's resignation);
3. a tick that loses a race logs no ERROR (nor a traceback), and every time limit is
   answered exactly once: by the winner, or by this pass once the winner's move left the
   question open (R15's default answer).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from bot_driver import Clock, Table, make_bot
from harness import Harness

from service import GameService, ServiceError

HOUR = 3600
ANN, BOB, CAT = 11, 22, 33
CHANNEL = 100


class Between:
    """A store whose first write (of those named) first waits for `other` — the other
    process's work landing between this process's read of the game and its write."""

    WRITES = ("set_meta", "update_meta", "commit_actions")

    def __init__(self, store: Any, other: Callable[[], Awaitable[Any]]) -> None:
        self._store = store
        self._other: Callable[[], Awaitable[Any]] | None = other
        self.ran = False

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._store, name)
        if name not in self.WRITES:
            return attr

        async def after_the_other(*args: Any, **kwargs: Any) -> Any:
            other, self._other = self._other, None
            if other is not None:
                await other()
                self.ran = True
            return await attr(*args, **kwargs)
        return after_the_other


def reminders_posted(h: Harness) -> list[str]:
    return [m.content for m in h.messages() if m.content.startswith("⏰")]


def test_two_processes_ticking_one_game_post_its_reminder_once(db):
    """Point 1: both passes read the timer as due; the other process claims the reminder
    first. Only the claimer tells it — one ⏰ in the channel, not two."""
    clock = Clock()

    async def scenario() -> None:
        async with Harness(lambda: make_bot(db.url, clock, seed=2)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            table = Table(h)
            await table.open(ann, [bob], players=2, hours=1)
            res = await table.slash(ann, "rr place", card="thief", square="2B")
            assert res.text.startswith("✅"), res.text
            other = GameService(await db.open(), clock=clock)
            other.tables.notify = True  # the other process queues its announcements like this one
            try:
                mine = h.bot.service  # type: ignore[attr-defined]
                read_due = mine.limits.due
                claimed: list[Any] = []

                async def due_then_the_other_ticks(now: float) -> Any:
                    due = await read_due(now)  # this pass has read the timers …
                    claimed.extend((await other.limits.tick())[1])  # … the other's pass is faster
                    return due
                mine.limits.due = due_then_the_other_ticks
                clock.now += 0.8 * HOUR  # Bob's reminder is due
                await h.bot.tick_once()  # type: ignore[attr-defined]
                mine.limits.due = read_due
                assert len(claimed) == 1 and claimed[0].notice is not None
                # the other process tells what it claimed (its outbox row; the same Discord)
                for notice in await other.store.notices():
                    await h.bot.announcer.redeliver(notice)  # type: ignore[attr-defined]
                await h.settle()
                assert len(reminders_posted(h)) == 1, reminders_posted(h)
                assert reminders_posted(h)[0].startswith("⏰ " + bob.mention)
                assert await other.store.notices() == []
                assert await h.bot.tick_once() == 0  # type: ignore[attr-defined]
                assert len(reminders_posted(h)) == 1
            finally:
                await other.store.close()
    asyncio.run(scenario())


async def _three_players(db: Any, clock: Clock, absent: int = 2) -> tuple[Any, GameService]:
    """A 3-player game on its first question (everyone places), in which Cat (seat 2) has
    already timed out `absent` times — a removal vote is open against her."""
    store = await db.open()
    svc = GameService(store, clock=clock, seed_source=lambda: 11)
    await svc.lobby.new_lobby(1, CHANNEL, ANN, "Ann", players=3, time_limit_s=HOUR)
    await svc.lobby.join(CHANNEL, BOB, "Bob")
    await svc.lobby.join(CHANNEL, CAT, "Cat")
    out = await svc.lobby.start(CHANNEL, ANN)
    assert out.game.waiting_for() == [0, 1, 2]
    if absent:
        await db.sql("UPDATE games SET meta=? WHERE id=?",
                     json.dumps({"timeouts": {"2": absent}}), out.row.id)
    return store, svc


def test_a_vote_in_one_process_survives_a_time_out_counted_in_the_other(db):
    """Point 2, different keys: Ann's vote against Cat is recorded by one process while the
    other applies Bob's and Cat's time limits — between that process's read of the game and
    its commit. The vote is kept, the time-outs are counted, and Bob's vote then completes
    the removal (R9.3)."""
    clock = Clock()

    async def scenario() -> None:
        store, mine = await _three_players(db, clock)
        await mine.play.act(CHANNEL, ANN, "place thief 2B")
        other_store = await db.open()
        try:
            async def ann_votes() -> None:
                with pytest.raises(ServiceError, match=r"Vote recorded \(1/2\)"):
                    await mine.play.remove_player(CHANNEL, ANN, 2)
            between = Between(other_store, ann_votes)
            other = GameService(between, clock=clock)  # type: ignore[arg-type]
            clock.now += 1.1 * HOUR
            outcomes, _ = await other.limits.tick()
            assert between.ran and len(outcomes) == 2  # Bob's and Cat's default answers
            row = await store.get(outcomes[-1].row.id)
            assert row.meta["kick"] == {"2": [0]}, row.meta  # Ann's vote survived
            assert row.meta["timeouts"] == {"1": 1, "2": 3}
            out = await mine.play.remove_player(CHANNEL, BOB, 2)
            assert out.game.player(2)["eliminated"]
        finally:
            await other_store.close()
            await store.close()
    asyncio.run(scenario())


def test_two_votes_cast_at_once_in_two_processes_both_count(db):
    """Point 2, the same counter: Ann votes in one process while Bob's vote is on its way
    in the other (read before Ann's landed). Both count: Bob's is the second of the two
    needed and removes Cat at once."""
    clock = Clock()

    async def scenario() -> None:
        store, mine = await _three_players(db, clock)
        other_store = await db.open()
        try:
            async def ann_votes() -> None:
                with pytest.raises(ServiceError, match=r"Vote recorded \(1/2\)"):
                    await mine.play.remove_player(CHANNEL, ANN, 2)
            between = Between(other_store, ann_votes)
            other = GameService(between, clock=clock)  # type: ignore[arg-type]
            out = await other.play.remove_player(CHANNEL, BOB, 2)
            assert between.ran
            assert out.game.player(2)["eliminated"]
            row = await store.get(out.row.id)
            assert row.meta["kick"] == {"2": [0, 1]}
        finally:
            await other_store.close()
            await store.close()
    asyncio.run(scenario())


def test_concurrent_meta_changes_from_two_stores_all_land(db):
    """Point 2 at the store: two stores (two processes' connections) change one game's meta
    at the same moment, many times — a shared counter and keys of their own."""
    async def main() -> None:
        a, b = await db.open(busy_s=5.0), await db.open(busy_s=5.0)  # a loaded machine
        try:
            row = await a.create_lobby(1, 7, ANN, "Ann", {"players": 2})

            def bump(meta: dict[str, Any]) -> None:
                meta["count"] = meta.get("count", 0) + 1

            def mark(who: str, k: int) -> Callable[[dict[str, Any]], None]:
                return lambda meta: meta.setdefault(who, []).append(k)
            n = 15
            await asyncio.gather(*(s.update_meta(row.id, f) for k in range(n)
                                   for s, f in ((a, bump), (b, bump),
                                                (a, mark("a", k)), (b, mark("b", k)))))
            meta = (await b.get(row.id)).meta
            assert meta["count"] == 2 * n
            assert sorted(meta["a"]) == sorted(meta["b"]) == list(range(n))
        finally:
            await a.close()
            await b.close()
    asyncio.run(main())


def _errors(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def test_a_tick_that_loses_a_race_logs_no_error_and_each_time_limit_is_answered_once(
        db, caplog):
    """Point 3: both processes time Bob out; the other commits first. This pass's commit
    is refused by the game's version — normal, logged at INFO without a traceback — and
    Bob's time-out is applied and counted once."""
    clock = Clock()
    caplog.set_level(logging.DEBUG)

    async def scenario() -> None:
        store, mine = await _three_players(db, clock, absent=0)
        await mine.play.act(CHANNEL, ANN, "place thief 2B")
        await mine.play.act(CHANNEL, CAT, "place thief 2B")
        clock.now += 1.1 * HOUR
        other_store = await db.open()
        try:
            theirs: list[Any] = []

            async def the_other_ticks() -> None:
                theirs.extend((await mine.limits.tick())[0])
            between = Between(other_store, the_other_ticks)
            other = GameService(between, clock=clock)  # type: ignore[arg-type]
            outcomes, reminders = await other.limits.tick()
            assert between.ran and outcomes == [] and reminders == []
            assert [o.actor for o in theirs] == [1]
            row = await store.get(theirs[0].row.id)
            assert row.version == theirs[0].row.version  # nothing else was committed
            assert row.meta["timeouts"] == {"1": 1}
            assert await mine.limits.tick() == ([], [])  # nothing left to do
        finally:
            await other_store.close()
            await store.close()
    asyncio.run(scenario())
    assert _errors(caplog) == []
    assert "another process moved the game first" in caplog.text


def test_a_tick_that_loses_a_race_to_another_move_still_answers_the_rest(db, caplog):
    """Point 3, the winner's move is not the time-out: Ann answers at the last moment in the
    other process, so this pass's time-out for her is refused (no ERROR); Bob's, in the same
    pass, is still applied — and Ann's answer is hers, not a time-out."""
    clock = Clock()
    caplog.set_level(logging.DEBUG)

    async def scenario() -> None:
        store, mine = await _three_players(db, clock, absent=0)
        await mine.play.act(CHANNEL, CAT, "place thief 2B")
        clock.now += 1.1 * HOUR
        other_store = await db.open()
        try:
            async def ann_answers() -> None:
                await mine.play.act(CHANNEL, ANN, "place thief 2B")
            between = Between(other_store, ann_answers)
            other = GameService(between, clock=clock)  # type: ignore[arg-type]
            outcomes, _ = await other.limits.tick()
            assert between.ran and [o.actor for o in outcomes] == [1]
            row = await store.get(outcomes[0].row.id)
            assert row.meta["timeouts"] == {"1": 1}  # Ann answered: no time-out of hers
            assert ANN in await store.authors(row.id)
        finally:
            await other_store.close()
            await store.close()
    asyncio.run(scenario())
    assert _errors(caplog) == []


def test_a_seat_handed_to_the_ai_by_two_processes_is_handed_and_counted_once(db):
    """Point 2 with zombie mode (README, "Zombie mode"): both processes find Bob out of
    time; the other hands his seat to the AI first. This one then changes nothing: the
    time-out counts once and only the other tells the channel that the AI took over."""
    clock = Clock()

    async def scenario() -> None:
        store = await db.open()
        mine = GameService(store, clock=clock, seed_source=lambda: 11)
        await mine.lobby.new_lobby(1, CHANNEL, ANN, "Ann", players=2, time_limit_s=HOUR)
        await mine.lobby.join(CHANNEL, BOB, "Bob")
        await mine.ai.set_zombie(CHANNEL, ANN, "random", can_manage=False)
        await mine.lobby.start(CHANNEL, ANN)
        await mine.play.act(CHANNEL, ANN, "place thief 2B")
        clock.now += 1.1 * HOUR
        other_store = await db.open()
        try:
            theirs: list[Any] = []

            async def the_other_ticks() -> None:
                theirs.extend((await mine.limits.tick())[0])
            between = Between(other_store, the_other_ticks)
            other = GameService(between, clock=clock)  # type: ignore[arg-type]
            outcomes, _ = await other.limits.tick()
            assert between.ran
            assert [o.notes for o in theirs] == [["zombie"]]  # told once, by the winner
            assert all("zombie" not in o.notes for o in outcomes)
            row = await store.get(theirs[0].row.id)
            assert row.meta["timeouts"] == {"1": 1} and row.meta["zombie"] == {"1": "random"}
        finally:
            await other_store.close()
            await store.close()
    asyncio.run(scenario())


class LobbyBetween(Between):
    """`Between` for a lobby's seats: the other's work lands before this one's write."""

    WRITES = ("update_lobby",)


def test_two_players_joining_one_lobby_in_two_processes_are_both_seated(db):
    """A lobby join that lands in the other process between this one's read of the lobby
    and its write (a rolling deploy's overlap) is kept: both players are seated, as each
    was told (the multi-process audit: the later write put back the seats it had read,
    and the first joiner, told "joined", was not in the game)."""
    async def scenario() -> None:
        store, other_store = await db.open(), await db.open()
        try:
            mine = GameService(store, clock=Clock())
            await mine.lobby.new_lobby(1, CHANNEL, ANN, "Ann", players=3, time_limit_s=HOUR)

            async def bob_joins_there() -> None:
                await mine.lobby.join(CHANNEL, BOB, "Bob")
            between = LobbyBetween(other_store, bob_joins_there)
            other = GameService(between, clock=Clock())  # type: ignore[arg-type]
            row = await other.lobby.join(CHANNEL, CAT, "Cat")
            assert between.ran
            stored = await store.open_game(CHANNEL)
            assert [s["user"] for s in stored.seats] == [ANN, BOB, CAT]
            assert [s["user"] for s in row.seats] == [ANN, BOB, CAT]
            with pytest.raises(ServiceError, match="already"):  # and none twice
                await other.lobby.join(CHANNEL, BOB, "Bob")
        finally:
            await store.close()
            await other_store.close()
    asyncio.run(scenario())



def test_a_join_landing_in_another_process_while_the_host_starts_is_in_the_game(db):
    """A join the other process writes between this one's read of the lobby and its start
    is in the game it starts, as its player was told (the multi-process audit: the start
    wrote the seats it had read, and the joiner, told "joined", was left out)."""
    async def scenario() -> None:
        store, other_store = await db.open(), await db.open()
        try:
            mine = GameService(store, clock=Clock())
            await mine.lobby.new_lobby(1, CHANNEL, ANN, "Ann", players=3, time_limit_s=HOUR)
            await mine.lobby.join(CHANNEL, BOB, "Bob")

            start, joined = other_store.start, []

            async def cat_joins_there_first(*args: Any, **kwargs: Any) -> Any:
                if not joined:
                    joined.append(await mine.lobby.join(CHANNEL, CAT, "Cat"))
                return await start(*args, **kwargs)
            other_store.start = cat_joins_there_first  # (a store the ratings tables know)
            out = await GameService(other_store, clock=Clock()).lobby.start(CHANNEL, ANN)
            assert joined
            stored = await store.open_game(CHANNEL)
            assert stored.status == "active"
            assert [s["user"] for s in stored.seats] == [ANN, BOB, CAT]
            assert len(out.game.state["players"]) == 3
        finally:
            await store.close()
            await other_store.close()
    asyncio.run(scenario())
