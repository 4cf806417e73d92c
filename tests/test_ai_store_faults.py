"""Issue 17, the service side: an AI's turn never waits for a reminder. A store fault while
its answer is committed — SQLite "database is locked" at BEGIN, a PostgreSQL connection cut
at COMMIT, another program holding the game's row lock, a COMMIT whose fate is unknown —
is retried with a jittered exponential backoff until the answer lands or the question moves
on; the answer lands exactly once, each retry is a WARNING without a traceback, and an AI
seat's reminder is due at once so the time-limit pass resumes any AI still waiting.
Every test runs on both backends (the `db` fixture) unless it names one."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from typing import Any, ClassVar

import asyncpg
import pytest

from service import GameService
from service import ai_seats as A
from service import seats as S


class Locked(sqlite3.Connection):
    """SQLite as another process holding the write lock makes it: the next `fail` writes
    meet "database is locked" at BEGIN (counted in `met`)."""

    fail: ClassVar[int] = 0
    met: ClassVar[int] = 0

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        if sql == "BEGIN IMMEDIATE" and Locked.fail > 0:
            Locked.fail -= 1
            Locked.met += 1
            raise sqlite3.OperationalError("database is locked")
        return super().execute(sql, *args)


class CutPg(asyncpg.Connection):
    """PostgreSQL whose connection dies as COMMIT is sent, `Locked.fail` times (the issue's
    fault: what follows may meet the dead transaction's row lock until the server notices)."""

    async def execute(self, sql: str, *args: Any, **kw: Any) -> str:  # type: ignore[override]
        if sql == "COMMIT" and Locked.fail > 0:
            Locked.fail -= 1
            Locked.met += 1
            self.terminate()
            raise asyncpg.ConnectionDoesNotExistError("connection lost (injected)")
        return await super().execute(sql, *args, **kw)


class FastClock:
    """The service's clock, and the retries' sleep: waiting only moves this clock on."""

    def __init__(self) -> None:
        self.now = 1_000_000.0
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


async def _game_with_a_bot(db, clock: FastClock, **store: Any):
    """Ann and one random AI, started; the AI is asked to place and has not answered yet."""
    Locked.fail = Locked.met = 0
    options = {"connection_class": CutPg} if db.pg else {"factory": Locked}
    st = await db.open(**options, **store)
    svc = GameService(st, clock=clock, seed_source=lambda: 5)
    svc.ai.sleep = clock.sleep
    await svc.lobby.new_lobby(1, 7, 11, "Ann", players=2, bots=1, bot_level="random")
    await svc.lobby.start(7, 11)
    row, g = await svc.tables.current(7)
    assert 1 in g.waiting_for() and S.ai_level(row, 1) == "random"
    return st, svc


def _told(into: list):
    async def on_outcome(out) -> None:
        into.append(out)
    return on_outcome


def _spy_commits(svc: GameService) -> list[int | None]:
    """The decision ids the service committed an answer to, in order."""
    applied: list[int | None] = []
    real_apply = svc.play.commit

    async def spy(row, g, seat, user_id, text, decision_id, *a, **kw):
        out = await real_apply(row, g, seat, user_id, text, decision_id, *a, **kw)
        applied.append(decision_id)
        return out
    svc.play.commit = spy  # type: ignore[method-assign]
    return applied


def _retries(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "rr.seats" and "retried in" in r.message]


@pytest.mark.parametrize("faults", [1, 4])
def test_the_ais_answer_is_retried_through_store_faults_and_lands_once(db, caplog, faults):
    """Before: the AI's commit met the fault, its fallback met it again, `play_ai` raised and
    the seat waited for its reminder (75 % of the time limit: 18 hours by default)."""
    caplog.set_level(logging.INFO)

    async def main():
        clock = FastClock()
        st, svc = await _game_with_a_bot(db, clock)
        row, g = await svc.tables.current(7)
        before, decision = len(g.log), g.decision_id(1)
        applied = _spy_commits(svc)
        Locked.fail = faults
        told: list = []
        started = time.monotonic()
        answered = await svc.ai.play_ai(7, _told(told))
        assert time.monotonic() - started < 10  # real time: seconds, not a reminder's hours
        assert Locked.met == faults and answered >= 1
        row, g = await svc.tables.current(7)
        log = await st.log(row.id)
        ai_rows = [e for e in log[before:] if int(e[0]) == 1]
        assert g.decision_id(1) != decision and ai_rows, "the AI's answer landed"
        assert told[0].actor == 1 and "ai:random" in told[0].notes
        # exactly once: that decision was committed once, and the log is the state's
        assert applied.count(decision) == 1
        assert [list(e) for e in g.log] == log
        assert told[0].text != "timeout"  # its own answer, not the fallback
        # bounded, growing, jittered waits; all in the fast clock, a few seconds at most
        assert len(clock.waits) == faults and sum(clock.waits) < 2 * A.AI_RETRY_FIRST_S * 2**faults
        for k, w in enumerate(clock.waits):
            step = min(A.AI_RETRY_MAX_S, A.AI_RETRY_FIRST_S * 2**k)
            assert step / 2 <= w <= step
        # each retry a WARNING without a traceback; nothing logged as an ERROR
        retries = _retries(caplog)
        assert len(retries) == faults
        assert all(r.levelno == logging.WARNING and r.exc_info is None for r in retries)
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        await st.close()
    asyncio.run(main())


def test_a_question_that_moved_on_while_the_store_failed_is_not_answered_twice(db, caplog):
    """The AI's answer could not be stored; meanwhile the decision was answered another way
    (here: the AI's own answer, landed by another run). The retry sees the version moved
    and commits nothing: one answer per decision, whatever the retries."""
    async def main():
        clock = FastClock()
        st, svc = await _game_with_a_bot(db, clock)
        row, g = await svc.tables.current(7)
        decision = g.decision_id(1)
        landed: list = []

        async def sleep_and_let_another_answer(seconds: float) -> None:
            await clock.sleep(seconds)
            if not landed:  # another process, another path: answers the AI's decision
                other = GameService(st, clock=clock, seed_source=lambda: 5)
                r, g2 = await other.tables.current(7)
                landed.append(await other.play.commit(r, g2, 1, None, "timeout", decision))
        svc.ai.sleep = sleep_and_let_another_answer
        applied = _spy_commits(svc)
        Locked.fail = 1
        await svc.ai.play_ai(7, _told([]))
        row, g = await svc.tables.current(7)
        assert landed and Locked.met == 1
        # the decision got exactly one answer, the other one: the AI's retry saw that it
        # had moved on and committed nothing for it
        assert decision not in applied
        assert [list(e) for e in g.log] == await st.log(row.id)
        await st.close()
    asyncio.run(main())


def test_a_store_down_for_longer_than_the_retry_budget_leaves_the_seat_to_the_ticker(db, caplog):
    """A long outage: the run stops retrying after AI_RETRY_FOR_S (WARNING, no traceback,
    nothing raised), and because an AI seat's reminder is due at once, the very next
    time-limit pass hands the seat back to the AI (it never waits for a reminder)."""
    caplog.set_level(logging.INFO)

    async def main():
        clock = FastClock()
        st, svc = await _game_with_a_bot(db, clock)
        row, g = await svc.tables.current(7)
        timers = {t["seat"]: t for t in await st.timers(row.id)}
        assert timers[1]["remind_at"] <= clock.now  # the AI seat: due at once
        assert timers[0]["remind_at"] > clock.now + 3600  # the person: at 75 % of the limit
        Locked.fail = 10**6
        assert await svc.ai.play_ai(7, _told([])) == 0
        assert A.AI_RETRY_FOR_S <= sum(clock.waits) <= A.AI_RETRY_FOR_S + A.AI_RETRY_MAX_S
        assert max(clock.waits) <= A.AI_RETRY_MAX_S
        gave_up = [r for r in caplog.records if "still fails" in r.message]
        assert len(gave_up) == 1 and gave_up[0].levelno == logging.WARNING
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        # the outage ends; the time-limit pass (no time has to pass) resumes the AI
        Locked.fail = 0
        outcomes, reminders = await svc.limits.tick()
        assert [o.text for o in outcomes] == ["ai"] and reminders == []
        told: list = []
        await svc.ai.play_ai(7, _told(told))
        assert told and told[0].actor == 1
        row, g = await svc.tables.current(7)
        assert 1 not in g.waiting_for()
        await st.close()
    asyncio.run(main())


def test_another_program_holding_the_games_row_lock_only_delays_the_ai(pg_url, caplog):
    """PostgreSQL: after a connection cut at COMMIT the server may keep the dead
    transaction's row lock a while; any holder of the row lock refuses the AI's write after
    `lock_timeout` (StoreBusy). The AI retries until the lock is gone."""
    from conftest import Db

    caplog.set_level(logging.INFO)

    async def main():
        db = Db("postgresql", pg_url)
        clock = FastClock()
        st, svc = await _game_with_a_bot(db, clock, busy_s=0.05)
        row, _g = await svc.tables.current(7)
        holder = await asyncpg.connect(pg_url)
        await holder.execute("BEGIN")
        await holder.execute("SELECT 1 FROM games WHERE id=$1 FOR UPDATE", row.id)
        released: list[float] = []

        async def sleep_then_release(seconds: float) -> None:
            await clock.sleep(seconds)
            if len(clock.waits) == 2 and not released:
                await holder.execute("ROLLBACK")
                released.append(clock.now)
        svc.ai.sleep = sleep_then_release
        told: list = []
        await svc.ai.play_ai(7, _told(told))
        await holder.close()
        assert released and len(clock.waits) == 2
        assert told and told[0].actor == 1
        assert all(r.exc_info is None for r in _retries(caplog)) and len(_retries(caplog)) == 2
        await st.close()
    asyncio.run(main())
