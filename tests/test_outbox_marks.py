"""Issue 22, "fewer store round trips per interaction": the outbox's "delivered" marks of a
burst of announcements are written together (store/marks.py), on both backends — and the
outbox keeps its promise: a notice leaves it only once its mark is committed, and a mark
that could not be written leaves its notice to be told again, never lost."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from store import StoreBusy

BURST = 40


async def _notices(store: Any, n: int) -> list[int]:
    """`n` games, one committed move each: `n` notices waiting in the outbox."""
    ids = []
    for k in range(n):
        row = await store.create_lobby(1, 3000 + k, 1, "Ann", {"players": 1})
        await store.start(row.id, row.seats, {"seed": k}, json.dumps({"v": 0}))
        done = await store.commit_actions(row.id, 0, [(0, 7, "x")], json.dumps({"v": 1}),
                                          "active", [(0, 1, 100.0, 50.0)],
                                          notice={"kind": "move", "from": 0, "to": 1})
        ids.append(done.notice)
    return ids


def _counted_writes(store: Any) -> list[int]:
    """Count the store's write jobs (each one a transaction and a hand-off to its thread or
    connection) from now on."""
    jobs: list[int] = []
    write = store.run_write

    async def counting(*args: Any, **kwargs: Any) -> Any:
        jobs.append(1)
        return await write(*args, **kwargs)

    store.run_write = counting
    return jobs


def test_a_burst_of_delivered_marks_takes_a_few_store_jobs_not_one_each(db):
    """Before: 40 announcements told at once were 40 write jobs, queued one by one with
    every game's moves (on SQLite the one writer thread); now the marks handed in while one
    job is under way go together in the next."""
    async def main() -> None:
        store = await db.open()
        try:
            ids = await _notices(store, BURST)
            assert {n.id for n in await store.notices()} == set(ids)
            jobs = _counted_writes(store)
            await asyncio.gather(*(store.delivered(n) for n in ids))
            assert await store.notices() == [], "every told notice left the outbox"
            assert len(jobs) <= 3, f"{len(jobs)} write jobs for {BURST} marks"
        finally:
            await store.close()
    asyncio.run(main())


def test_a_mark_that_could_not_be_written_leaves_its_notice_to_be_told_again(db):
    """The store refuses one job (busy): every mark in it hears so (the announcer logs it)
    and its notices stay in the outbox; marks handed in after it are written as usual. (A
    guard of the outbox's promise: it holds before this change too.)"""
    async def main() -> None:
        store = await db.open()
        try:
            ids = await _notices(store, 6)
            write, failed = store.run_write, []

            async def busy_once(*args: Any, **kwargs: Any) -> Any:
                if not failed:
                    failed.append(1)
                    await asyncio.sleep(0.05)  # the others' marks come in meanwhile
                    raise StoreBusy("another program holds the write lock")
                return await write(*args, **kwargs)

            store.run_write = busy_once
            first = await asyncio.gather(*(store.delivered(n) for n in ids[:3]),
                                         return_exceptions=True)
            refused = [n for n, e in zip(ids[:3], first, strict=True) if isinstance(e, StoreBusy)]
            assert refused and all(e is None or isinstance(e, StoreBusy) for e in first)
            await asyncio.gather(*(store.delivered(n) for n in ids[3:]))
            # told again at the next pass, not lost; the others are gone
            assert [n.id for n in await store.notices()] == refused
        finally:
            await store.close()
    asyncio.run(main())


def test_marks_handed_in_as_the_store_closes_are_written(db):
    """A clean shutdown (the bot's `close`) waits for the marks already handed in: their
    announcements went out, so the next process must not tell them again. (Before, on
    PostgreSQL such a mark failed with "pool is closing" and the notice was told twice.)"""
    async def main() -> None:
        store = await db.open()
        ids = await _notices(store, 5)
        marks = [asyncio.ensure_future(store.delivered(n)) for n in ids]
        await asyncio.sleep(0)  # handed in, not yet written
        await store.close()
        await asyncio.gather(*marks)
        again = await db.open()
        try:
            assert await again.notices() == []
        finally:
            await again.close()
    asyncio.run(main())
