"""Settling a finished game (issue 24): the favourites' replay and the rating transaction.

Plays the longest of a few 4-player AI games (bench/recap.py's `long_game`), times the
replay that counts each seat's units and mercenaries (`service.ratings.units_brought`, run
in a worker thread at the game's end), then settles N games of four players on a fresh
SQLite store (`synchronous=FULL`, as the bot runs) or `--db postgresql://…`: one
transaction each, two scopes (the server's rating and the bot's).

    .venv/bin/python bench/ratings.py [--seeds N] [--games N] [--db URL]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from recap import long_game  # noqa: E402

from service.ratings import FRESH, rate_by, units_brought  # noqa: E402
from service.replay import replay  # noqa: E402
from store import (
    make_store,  # noqa: E402
    ratings_store,
)
from store.ratings import EVERYWHERE, Finished, SeatResult  # noqa: E402

GUILD = 9


async def settle_times(db: str, games: int) -> list[float]:
    store = await make_store(db).open()
    times = []
    try:
        tables = ratings_store(store)
        for k in range(games):
            lobby = await store.create_lobby(GUILD, 10_000 + k, 1, "Ann", {})
            game = Finished(lobby.id, GUILD, 10_000 + k, None, time.time(), tuple(
                SeatResult(s, s + 1, s + 1, s == 0, {"thief": 1}) for s in range(4)))
            start = time.perf_counter()
            await tables.settle(game, [EVERYWHERE, GUILD], FRESH, rate_by(game))
            times.append(time.perf_counter() - start)
    finally:
        await store.close()
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--db", help="a postgresql:// URL (default: a new SQLite file)")
    args = ap.parse_args()
    seed, setup, log = long_game("greedy", args.seeds)
    replays = []
    for _ in range(3):
        start = time.perf_counter()
        units_brought(replay(setup, log).frames, 4)
        replays.append(time.perf_counter() - start)
    print(f"favourites: replay of a {len(log)}-answer 4-player game (seed {seed}): "
          f"best {min(replays) * 1000:.0f} ms of 3")
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or str(Path(tmp) / "bench.db")
        times = asyncio.run(settle_times(db, args.games))
    print(f"settle ({'postgresql' if args.db else 'sqlite'}, {args.games} games of 4, two "
          f"scopes): median {statistics.median(times) * 1000:.1f} ms, "
          f"max {max(times) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
