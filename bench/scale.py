"""Sharded bot processes: answers per second and their latency, for 1, 2 and 4 processes on
PostgreSQL against one process on SQLite, with 500 games in play.

    .venv/bin/python bench/scale.py [--games 500] [--seconds 20] [--procs 1 2 4]
                                    [--sqlite-procs 1] [--pg postgresql://…] [--no-sqlite]
                                    [--no-pg]

Each process is a real bot (`RookBot`, an AutoShardedBot running its share of the shards)
behind the gateway-level harness (tests/shard_worker.py): its Discord is in-process, so its
cost (payload checks, recording) is counted with the bot's, as the network would be in
production. The games are split evenly over the processes — each hosts the servers of its
shards — and every process answers random games of its own as fast as it can, one answer
at a time (a process's answers are processed one after another here; a live bot overlaps
them while it waits for Discord and the database, so these are lower bounds). An answer is
the player's whole turn through Discord: the autocomplete suggestions it used, the slash
command or button, the reply, the channel posts and the table images after each phase.

Without `--pg` a PostgreSQL server is started for the run (tests/pg_server.py), in a
temporary folder, on loopback; each configuration gets an empty schema. Prints one line per
configuration: answers/s, its ratio to one PostgreSQL process, and the p50/p90/p99 latency.
`--sqlite-procs 1 4` runs one and four processes on one SQLite file (a refused answer, such
as "the game's database is busy", stops the run with the refusal).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

from shard_worker import Proc  # noqa: E402

USERS = {f"player{k}": (900_100 + k) << 22 for k in range(25)}


def guild_on(shard: int, count: int) -> int:
    return ((2_000_000 * count) + shard) << 22


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


def run(db: str, procs: int, games: int, seconds: float) -> dict[str, Any]:
    """One configuration: `procs` processes sharing `db`, `games` games in all."""
    started: list[Proc] = []
    try:
        for k in range(procs):
            started.append(Proc({
                "db": db, "shard_count": procs, "shard_ids": [k], "seed": 100 + k,
                "guild": guild_on(k, procs), "channel": (600_000 + k) << 22,
                "users": USERS, "index": k + 1}, quiet=True))
        share = [games // procs + (k < games % procs) for k in range(procs)]
        for p, n in zip(started, share, strict=True):  # set up side by side
            p.send("bench_setup", games=n)
        for p in started:
            p.answer()
        for p in started:  # warm up: every process answers for a moment first
            p.send("bench_run", seconds=2)
        for p in started:
            p.answer()
        t0 = time.monotonic()
        for p in started:
            p.send("bench_run", seconds=seconds)
        lat: list[float] = []
        for p in started:
            lat += p.answer()["latencies"]
        wall = time.monotonic() - t0
    finally:
        for p in started:
            p.stop()
    return {"answers": len(lat), "per_s": len(lat) / wall, "p50": pct(lat, 50),
            "p90": pct(lat, 90), "p99": pct(lat, 99),
            "median": statistics.median(lat) if lat else float("nan")}


async def _schema(url: str, name: str) -> str:
    import asyncpg

    con = await asyncpg.connect(url)
    try:
        await con.execute(f"CREATE SCHEMA {name}")
    finally:
        await con.close()
    return name


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--procs", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--pg", help="a PostgreSQL server URL (default: start one for the run)")
    ap.add_argument("--sqlite-procs", type=int, nargs="+", default=[1])
    ap.add_argument("--no-sqlite", action="store_true")
    ap.add_argument("--no-pg", action="store_true")
    ns = ap.parse_args(argv)
    server: Any = None
    if ns.no_pg:
        ns.procs = []
    elif ns.pg is None:
        import pg_server

        server = pg_server.start()
        if isinstance(server, str):
            print(f"PostgreSQL: {server}", file=sys.stderr)
            return 2
    try:
        rows: list[tuple[str, dict[str, Any]]] = []
        if not ns.no_sqlite:
            for n in ns.sqlite_procs:
                with tempfile.TemporaryDirectory() as tmp:
                    rows.append((f"SQLite, {n} process{'es' if n > 1 else ''}",
                                 run(f"{tmp}/scale.db", n, ns.games, ns.seconds)))
                    print_row(*rows[-1], None)
        base = None
        for n in ns.procs:
            name = f"scale{n}_{int(time.time())}"
            if server is not None:
                url = server.url_for(asyncio.run(_schema(server.url, name)))
            else:
                asyncio.run(_schema(ns.pg, name))
                url = f"{ns.pg}{'&' if '?' in ns.pg else '?'}search_path={name}"
            res = run(url, n, ns.games, ns.seconds)
            base = base or res["per_s"]
            rows.append((f"PostgreSQL, {n} process{'es' if n > 1 else ''}", res))
            print_row(*rows[-1], base)
    finally:
        if server is not None:
            server.stop()
    return 0


def print_row(name: str, r: dict[str, Any], base: float | None) -> None:
    ratio = f"  ×{r['per_s'] / base:.2f}" if base else ""
    print(f"{name:<24} {r['answers']:>6} answers  {r['per_s']:7.1f}/s{ratio:<8}"
          f"  p50 {r['p50'] * 1000:6.0f} ms  p90 {r['p90'] * 1000:6.0f} ms"
          f"  p99 {r['p99'] * 1000:6.0f} ms", flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
