"""Sharded bot processes on one database, as real OS processes (tests/shard_worker.py: a
RookBot behind the gateway-level harness each), on SQLite and on PostgreSQL (the `db`
fixture): servers hosted by different processes progress on their own; an answer reaching
a process that does not host the server is refused and changes nothing; every time limit
is applied once, by the host; two processes racing on one decision apply one answer; a
process killed with SIGKILL mid-game loses nothing and its restart plays on; the daily day
job's lease is taken over by another process after its time to live, and each day's
announcement is posted exactly once. Every wait is bounded; every process is stopped."""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import Iterator
from typing import Any

import pytest
from shard_worker import Proc

pytestmark = pytest.mark.slow  # real processes: `bash rr test -m 'not slow'` skips them


def guild_on(shard: int, count: int, n: int = 0) -> int:
    """A server id that Discord's formula, (id >> 22) % count, puts on `shard`."""
    return ((1_000_000 + n) * count + shard) << 22


USERS = {"ann": 900_001 << 22, "bob": 900_002 << 22, "cat": 900_003 << 22}
NEWS = {"news_a": 800_001 << 22, "news_b": 800_002 << 22}


def world(guild: int, channel: int, index: int) -> dict[str, Any]:
    return {"guild": guild, "channel": channel, "users": USERS, "channels": NEWS,
            "index": index}


@pytest.fixture
def procs() -> Iterator[list[Proc]]:
    started: list[Proc] = []
    yield started
    for p in started:
        p.stop()


def start(procs: list[Proc], db: Any, **spec: Any) -> Proc:
    p = Proc({"db": db.url, **spec})
    procs.append(p)
    return p


def wait_for(check: Any, timeout: float, what: str) -> float:
    """Poll `check()` until true; seconds it took (bounded)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if check():
            return time.monotonic() - t0
        time.sleep(0.2)
    raise AssertionError(f"{what}: not within {timeout} s")


async def news_channels(db: Any, channels: dict[int, int], days: list[str]) -> None:
    """Before any process starts: each server's daily news channel, and the days' par
    known (the AIs' par games are another test's subject, and slow)."""
    from store import daily_store

    store = await db.open()
    try:
        daily = await daily_store(store).open()
        for guild, channel in channels.items():
            await daily.set_guild_channel(guild, channel, "en")
        for day in days:
            await daily.set_par(day, {})
    finally:
        await store.close()


def test_three_processes_each_host_their_servers_and_time_them_once(db, procs):
    a = start(procs, db, shard_count=3, shard_ids=[0], seed=1,
              **world(guild_on(0, 3), 700_001 << 22, 1))
    b = start(procs, db, shard_count=3, shard_ids=[1], seed=2,
              **world(guild_on(1, 3), 700_002 << 22, 2))
    # c runs shard 2, but server A's events reach it (shard settings that disagree)
    c = start(procs, db, shard_count=3, shard_ids=[2], seed=3,
              **world(guild_on(0, 3), 700_001 << 22, 3))
    game_a = a.ask("open", host="ann")["game"]
    game_b = b.ask("open", host="bob")["game"]
    assert game_a != game_b
    for _ in range(2):  # both servers play at the same time, each in its own process
        a.send("steps", n=4)
        b.send("steps", n=4)
        sa, sb = a.answer(), b.answer()
        assert sa["steps"] == 4 and sb["steps"] == 4
    before_a, before_b = a.ask("state"), b.ask("state")
    assert before_a["replays"] and before_b["replays"]  # R15: stored state == setup + log
    assert len(before_a["log"]) >= 8 and len(before_b["log"]) >= 8

    # an answer to A's game reaching c is refused, privately, and changes nothing
    refused = c.ask("slash", user="ann", command="rr done")
    assert not refused["accepted"] and refused["ephemeral"]
    assert "hosted by another process of the bot (shard 0 of 3)" in refused["text"]
    refused = c.ask("slash", user="cat", command="rr new", options={"players": 2})
    assert not refused["accepted"] and "hosted by another process" in refused["text"]
    assert a.ask("state") == before_a

    # eight days later every process ticks at once: each waiting decision times out once
    # (R15: the default answer), applied by the process hosting its server
    for p in (a, b, c):
        p.ask("advance", seconds=8 * 86400)
    for p in (a, b, c):
        p.send("tick")
    made = [p.answer()["made"] for p in (a, b, c)]
    assert made[0] >= 1 and made[1] >= 1 and made[2] == 0
    after_a, after_b = a.ask("state"), b.ask("state")
    for before, after in ((before_a, after_a), (before_b, after_b)):
        assert after["log"][:len(before["log"])] == before["log"]
        new = after["log"][len(before["log"]):]
        assert [t for _, t in new].count("timeout") == 1, new
        assert after["replays"]
    for p in (a, b, c):  # the next deadlines are a day away: nothing more is due
        p.send("tick")
    assert [p.answer()["made"] for p in (a, b, c)] == [0, 0, 0]
    assert a.ask("state") == after_a and b.ask("state") == after_b


def test_two_processes_racing_on_one_decision_apply_one_answer(db, procs):
    # two processes both running shard 0 (a rolling restart where the new one came up
    # before the old one went): the store's version guard still lets one answer through
    spec = {"shard_count": 1, "shard_ids": [0], **world(guild_on(0, 1), 700_003 << 22, 0)}
    a = start(procs, db, seed=4, **{**spec, "index": 1})
    a2 = start(procs, db, seed=5, **{**spec, "index": 2})
    a.ask("open", host="ann")
    races = 0
    for _ in range(40):
        pending = a.ask("pending")
        if pending["kind"] == "pick" and len(pending["buttons"]) >= 2:
            before = a.ask("state")
            first, second = pending["buttons"][:2]
            a.send("click", user="ann", custom_id=first)
            a2.send("click", user="ann", custom_id=second)
            answers = [a.answer(), a2.answer()]
            assert sorted(r["accepted"] for r in answers) == [False, True], answers
            loser = next(r for r in answers if not r["accepted"])
            assert loser["ephemeral"] and "out of date" in loser["text"], loser
            after = a2.ask("state")
            new = [t for _, t in after["log"][len(before["log"]):]]
            picks = [t for t in new if t.startswith("pick")]
            assert len(picks) == 1, new  # one answer to that decision, not two
            assert after["replays"]
            races += 1
            if races == 3:
                break
        assert a.ask("steps", n=1)["steps"] == 1
    assert races == 3


def test_kill_9_mid_game_loses_nothing_and_the_day_job_moves_once(db, procs):
    ttl = 4.5  # the day job's lease; renewed every ttl/3 = 1.5 s
    common = {"shard_count": 2, "lease_seconds": ttl, "day_seconds": 0.5}
    spec_a = {**common, "shard_ids": [0], "seed": 6,
              **world(guild_on(0, 2), 700_004 << 22, 1)}
    today = dt.datetime.now(dt.UTC).date()
    days = [(today + dt.timedelta(days=k)).isoformat() for k in range(3)]
    asyncio.run(news_channels(db, {guild_on(0, 2): NEWS["news_a"],
                                   guild_on(1, 2): NEWS["news_b"]}, days))
    a = start(procs, db, **spec_a)
    wait_for(lambda: a.ask("lease")["held"], 30, "the first process takes the day job")
    b = start(procs, db, **common, shard_ids=[1], seed=7,
              **world(guild_on(1, 2), 700_005 << 22, 2))
    assert not b.ask("lease")["held"]

    def posts(p: Proc, day: str) -> int:
        return sum(day in text for ch in NEWS.values()
                   for text in p.ask("posts", channel=ch)["posts"])
    wait_for(lambda: posts(a, days[0]) == 2, 30, "today's announcement in both servers")

    a.ask("open", host="ann")
    b.ask("open", host="bob")
    a.ask("steps", n=3)
    assert posts(a, days[0]) == 2  # the holder's later passes did not repeat it
    known = a.ask("state")
    a.send("steps", n=60, progress=True)
    told = len(known["log"])
    while (line := a.read())["progress"] < 3:  # kill -9 in the middle of its answers
        told = line["log"]
    told = line["log"]
    a.kill()
    killed = time.monotonic()
    b.send("steps", n=3)  # the other server plays on meanwhile
    assert b.answer()["steps"] == 3
    assert not b.ask("lease")["held"]  # the dead holder's lease has not expired yet

    # the restarted process resumes the game: every answer it had given is there
    a2 = start(procs, db, **{**spec_a, "index": 3})
    resumed = a2.ask("state")
    assert resumed["log"][:len(known["log"])] == known["log"]
    assert len(resumed["log"]) >= told and resumed["replays"]
    assert a2.ask("steps", n=5)["steps"] == 5 and a2.ask("state")["replays"]

    took = wait_for(lambda: b.ask("lease")["held"] or a2.ask("lease")["held"], 3 * ttl,
                    "the day job taken over") + (time.monotonic() - killed)
    assert took <= 2 * ttl + 5  # expiry (≤ ttl after the last renewal) + one renewal + load
    holder, other = (b, a2) if b.ask("lease")["held"] else (a2, b)
    assert not other.ask("lease")["held"]
    time.sleep(2)  # a few day passes of the new holder: yesterday's news is not repeated
    assert posts(b, days[0]) + posts(a2, days[0]) == 0

    for p in (b, a2):  # the next day: its announcement once in each server, by one process
        p.ask("advance", seconds=86400)
    wait_for(lambda: posts(holder, days[1]) == 2, 30, "tomorrow's announcement")
    time.sleep(2)
    assert posts(holder, days[1]) == 2 and posts(other, days[1]) == 0
    assert b.ask("state")["replays"]
