"""Store costs: durability, round trips per move, and a competing writer.

    .venv/bin/python bench/store.py [--moves 400] [--pg URL | --no-pg]

1. A move's commit (`commit_actions`: version-checked UPDATE, log append, timers, outbox
   row, interaction key) with `synchronous=NORMAL` and `FULL` (the store's choice): median
   and p90 in ms; and the write that marks its notice delivered (never synced on its own). FULL syncs the WAL at every commit, so a power cut cannot lose a move
   that players were told about; NORMAL may lose the last commits (not on a process crash).
2. Round trips to the store's threads per move through `Play.act` (a read of the
   channel's game, then the one write job).
3. Another process holds the write lock: how long reads of other games take meanwhile,
   and how long a write waits before it is refused (`StoreBusy`).

4. The same move's commit on PostgreSQL (store/pg.py): median and p90, and the ratio to
   SQLite FULL. Without `--pg`, a throwaway server is started on loopback the way the tests
   do it (tests/pg_server.py), but with fsync on, as in production — so both figures
   include the flush to disk; pass `--pg postgresql://…` to measure a server of your own.
5. Many games committing at once (`--games`, each its moves one after another, all games
   in parallel from one process): moves per second on SQLite FULL (one writer thread; the
   writes waiting for it share one commit, store/db.py "Group commit") and PostgreSQL (row locks: games commit side by side, and the server flushes
   several commits with one fsync).

Medians on a shared 2-core machine; run twice and expect noise of a few percent.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service import GameService  # noqa: E402
from store import GameStore, Store, StoreBusy, make_store  # noqa: E402


def ms(values: list[float]) -> str:
    values = sorted(values)
    return (f"median {statistics.median(values) * 1000:.3f} ms, "
            f"p90 {values[int(len(values) * 0.9)] * 1000:.3f} ms")


async def commits(path: str, synchronous: str | None, moves: int
                  ) -> tuple[list[float], list[float]]:
    """Per move: its commit, then its notice marked delivered. `synchronous` None: `path`
    is a PostgreSQL URL."""
    store: GameStore = await (make_store(path) if synchronous is None
                        else Store(path, synchronous=synchronous)).open()
    row = await store.create_lobby(1, 1, 1, "Ann", {"players": 1})
    state = json.dumps({"pad": "x" * 6000})  # about a real state's size
    done = await store.start(row.id, row.seats, {"seed": 1}, state)
    version, took, marks = done.row.version, [], []
    for k in range(moves):
        t = time.perf_counter()
        done = await store.commit_actions(row.id, version, [(0, 1, f"move {k}")], state,
                                          "active", [(0, k, 1e12, 1e12)],
                                          notice={"kind": "move", "from": k, "to": k + 1})
        took.append(time.perf_counter() - t)
        version = done.row.version
        t = time.perf_counter()
        await store.delivered(done.notice)  # type: ignore[arg-type]
        marks.append(time.perf_counter() - t)
    await store.close()
    return took, marks


async def burst(path: str, games: int, moves: int) -> float:
    """Moves per second with `games` games committing at once, `moves` each in turn."""
    store: GameStore = await make_store(path).open()
    state = json.dumps({"pad": "x" * 6000})
    ids = []
    for k in range(games):
        row = await store.create_lobby(1, 10_000 + k, 1, "Ann", {"players": 1})
        await store.start(row.id, row.seats, {"seed": k}, state)
        ids.append(row.id)

    async def play(gid: int) -> None:
        version = 0
        for m in range(moves):
            done = await store.commit_actions(gid, version, [(0, 1, f"move {m}")], state,
                                              "active", [(0, m, 1e12, 1e12)],
                                              notice={"kind": "move", "to": m + 1})
            version = done.row.version
    t = time.perf_counter()
    await asyncio.gather(*(play(g) for g in ids))
    took = time.perf_counter() - t
    await store.close()
    return games * moves / took


async def round_trips(path: str, moves: int) -> tuple[float, float]:
    """(reads, writes) per accepted move: the jobs `Play.act` hands the store."""
    store = await Store(path).open()
    svc = GameService(store, seed_source=lambda: 3)
    svc.tables.notify = True
    counts = {"read": 0, "write": 0}
    read, write = store.run_read, store.run_write

    async def counted_read(fn: Any, *args: Any, **kw: Any) -> Any:
        counts["read"] += 1
        return await read(fn, *args, **kw)

    async def counted_write(fn: Any, *args: Any, **kw: Any) -> Any:
        counts["write"] += 1
        return await write(fn, *args, **kw)

    n, channel = 0, 0
    while n < moves:
        channel += 1
        await svc.lobby.new_lobby(None, channel, 1, "Ann", players=1)
        g = (await svc.lobby.start(channel, 1)).game
        store.run_read, store.run_write = counted_read, counted_write  # type: ignore[method-assign]
        while not g.over and n < moves:
            seat = g.waiting_for()[0]
            g = (await svc.play.act(channel, seat + 1, str(g.legal_actions(seat)[0]))).game
            n += 1
        store.run_read, store.run_write = read, write  # type: ignore[method-assign]
    await store.close()
    return counts["read"] / n, counts["write"] / n


async def competing(path: str) -> tuple[list[float], float]:
    store = await Store(path).open()
    ids = []
    for k in range(2):
        row = await store.create_lobby(1, 100 + k, 1, "Ann", {"players": 1})
        await store.start(row.id, row.seats, {"seed": k}, "{}")
        ids.append(row.id)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    t0 = time.perf_counter()
    write = asyncio.ensure_future(store.commit_actions(ids[0], 0, [(0, 1, "x")], "{}",
                                                       "active", []))
    await asyncio.sleep(0.01)
    reads = []
    for _ in range(50):
        t = time.perf_counter()
        await store.get(ids[1])
        reads.append(time.perf_counter() - t)
    try:
        await write
    except StoreBusy:
        pass
    refused = time.perf_counter() - t0
    other.execute("ROLLBACK")
    other.close()
    await store.close()
    return reads, refused


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=400)
    ap.add_argument("--pg", help="a PostgreSQL URL (default: start a throwaway server)")
    ap.add_argument("--no-pg", action="store_true", help="SQLite only")
    ap.add_argument("--games", type=int, default=50, help="games committing at once")
    args = ap.parse_args(argv)
    medians = {}
    with tempfile.TemporaryDirectory(dir=Path(__file__).resolve().parents[1]) as d:
        for mode in ("NORMAL", "FULL"):
            took, marks = asyncio.run(commits(f"{d}/{mode}.db", mode, args.moves))
            medians[mode] = statistics.median(took)
            if mode == "FULL":
                medians["burst"] = asyncio.run(burst(f"{d}/burst.db", args.games, 10))
            print(f"commit of a move, synchronous={mode:6}: {ms(took)}; its notice marked "
                  f"delivered (no sync of its own): {ms(marks)}")
        reads, writes = asyncio.run(round_trips(f"{d}/rt.db", 200))
        print(f"store round trips per move (Play.act): {reads:.2f} read + "
              f"{writes:.2f} write")
        waits, refused = asyncio.run(competing(f"{d}/busy.db"))
        print(f"competing writer holds the lock: reads of another game {ms(waits)}; "
              f"the blocked write refused after {refused * 1000:.0f} ms")
    print(f"{args.games} games committing at once, SQLite FULL: {medians['burst']:.0f} moves/s")
    if not args.no_pg:
        postgres(args.pg, args.moves, medians["FULL"], args.games, medians["burst"])
    return 0


def postgres(url: str | None, moves: int, sqlite_full: float, games: int,
             sqlite_burst: float) -> None:
    server = None
    if url is None:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        import pg_server

        server = pg_server.start(durable=True)
        if isinstance(server, str):
            print(f"PostgreSQL: not measured ({server})")
            return
        url = server.url
    try:
        took, marks = asyncio.run(commits(url, None, moves))
        rate = asyncio.run(burst(url, games, 10))
    finally:
        if server is not None:
            server.stop()
    print(f"commit of a move, PostgreSQL{' (local throwaway server, fsync on)' if server else ''}:"
          f" {ms(took)}; its notice marked delivered: {ms(marks)}; "
          f"median {statistics.median(took) / sqlite_full:.1f}x SQLite FULL's")
    print(f"{games} games committing at once, PostgreSQL: {rate:.0f} moves/s "
          f"({rate / sqlite_burst:.1f}x SQLite FULL's)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
