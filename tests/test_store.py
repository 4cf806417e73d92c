"""The store: one job per call on its own thread, so many games committing at once never
mix their transactions; a refused commit leaves nothing behind; timers keep the deadline of
a decision already timed. Every test runs on both backends (SQLite, PostgreSQL: the `db`
fixture in conftest.py)."""

from __future__ import annotations

import asyncio
import json

import pytest

from store import Store, VersionConflict


async def _games(store: Store, n: int) -> list[int]:
    ids = []
    for k in range(n):
        row = await store.create_lobby(1, 1000 + k, 1, "Ann", {"players": 1})
        await store.start(row.id, row.seats, {"seed": k}, json.dumps({"v": 0}))
        ids.append(row.id)
    return ids


def test_many_games_commit_at_once_without_mixing(db):
    """Sixty commits from thirty games in one burst, every second one with a stale version:
    the good ones land whole (row, log, timers), the stale ones leave no trace."""
    async def main():
        store = await db.open()
        ids = await _games(store, 30)

        async def commit(gid: int, version: int, tag: str):
            return await store.commit_actions(
                gid, version, [(0, 7, f"{tag} a"), (0, None, f"{tag} b")],
                json.dumps({"tag": tag}), "active", [(0, 5, 100.0 + gid, 75.0)],
                lambda meta: meta.update(tag=tag))

        calls = []
        for gid in ids:
            calls += [commit(gid, 0, f"good{gid}"), commit(gid, 3, f"stale{gid}")]
        results = await asyncio.gather(*calls, return_exceptions=True)
        for gid, good, stale in zip(ids, results[::2], results[1::2], strict=True):
            assert isinstance(stale, VersionConflict)
            assert good.row.id == gid and good.row.version == 2
            assert good.row.meta == {"tag": f"good{gid}"}
            assert good.timers == [{"game_id": gid, "seat": 0, "decision_id": 5,
                                    "deadline": 100.0 + gid, "remind_at": 75.0, "reminded": 0}]
            row = await store.get(gid)
            assert row.state == json.dumps({"tag": f"good{gid}"}) and row.version == 2
            assert await store.log(gid) == [[0, f"good{gid} a"], [0, f"good{gid} b"]]
        await store.close()
    asyncio.run(main())


def test_timers_keep_the_deadline_of_a_decision_already_asked(db):
    async def main():
        store = await db.open()
        (gid,) = await _games(store, 1)
        done = await store.commit_actions(gid, 0, [(0, 1, "x")], "{}", "active",
                                          [(0, 10, 500.0, 400.0), (1, 11, 500.0, 400.0)])
        await store.mark_reminded(gid, 0, 10)
        # seat 0 is still asked decision 10 (its deadline and reminder stay), seat 1 gets
        # a new question (new deadline), seat 2 is asked for the first time
        done = await store.commit_actions(gid, done.row.version, [(1, 2, "y")], "{}", "active",
                                          [(0, 10, 900.0, 800.0), (1, 12, 900.0, 800.0),
                                           (2, 13, 900.0, 800.0)])
        assert [(t["seat"], t["decision_id"], t["deadline"], t["reminded"])
                for t in done.timers] == [(0, 10, 500.0, 1), (1, 12, 900.0, 0), (2, 13, 900.0, 0)]
        # a seat no longer asked loses its timer; a finished game has none
        done = await store.commit_actions(gid, done.row.version, [(2, 3, "z")], "{}", "active",
                                          [(2, 13, 950.0, 850.0)])
        assert [(t["seat"], t["deadline"]) for t in done.timers] == [(2, 900.0)]
        done = await store.commit_actions(gid, done.row.version, [(2, 3, "w")], "{}", "over",
                                          [(2, 14, 950.0, 850.0)])
        assert done.timers == [] and await store.timers(gid) == []
        assert done.row.status == "over"
        await store.close()
    asyncio.run(main())


def test_a_failed_transaction_is_rolled_back_and_the_store_goes_on(db):
    async def main():
        store = await db.open()
        (gid,) = await _games(store, 1)
        with pytest.raises(Exception):  # noqa: B017 - any failure inside the transaction
            await store.commit_actions(gid, 0, [(0, 1, "x")], "{}", "active",
                                       [(0, 1, None, None)])  # deadline NOT NULL: fails
        row = await store.get(gid)
        assert row.version == 0 and await store.log(gid) == []
        done = await store.commit_actions(gid, 0, [(0, 1, "x")], "{}", "active", [])
        assert done.row.version == 1 and await store.log(gid) == [[0, "x"]]
        await store.close()
        with pytest.raises(RuntimeError, match="open"):
            await store.get(gid)
    asyncio.run(main())
