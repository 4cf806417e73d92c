"""Several processes writing to one SQLite file: how many answers are refused as "busy".

    .venv/bin/python bench/sqlite_procs.py [--procs 4] [--moves 300] [--games 5]
                                           [--think-ms 0] [--db FILE]

Starts `--procs` real processes on one SQLite file (a temporary one unless `--db`), as
sharded bot processes share it. Each opens the store (store/db.py, `synchronous=FULL` as in
production), starts `--games` games of its own and answers them in turn, `--moves` answers
in all; an answer is what the bot's store does for one move — a read of the game, the
move's commit (version-checked UPDATE, log row, timers, outbox row, interaction key) and its
announcement marked delivered. `--think-ms` is a pause between a process's answers (0: the
worst case, every process writing back to back, far more than a bot's answers, which spend
most of their time on Discord, the engine and images).

Prints one line per process (answers, "busy" refusals, write latency p50/p99/max) and a
summary line, then `@@` and the same as JSON (tests/test_sqlite_processes.py reads it).
Exit 1 if any answer was refused.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from store import Store, StoreBusy  # noqa: E402

START_S = 120.0  # the longest a run may take on a loaded 2-core machine, per 1,000 answers


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


async def worker(path: str, index: int, games: int, moves: int, think_s: float
                 ) -> dict[str, Any]:
    """One process's answers; every StoreBusy is counted, nothing else is forgiven."""
    store = await Store(path).open()
    state = json.dumps({"pad": "x" * 6000})  # about a real state's size
    busy, took, ids, channel = 0, [], [], index * 10_000
    while len(ids) < games:  # opening the games: a refusal counts, and a new one is opened
        channel += 1
        try:
            row = await store.create_lobby(1, channel, 1, "Ann", {"players": 1})
            ids.append((await store.start(row.id, row.seats, {"seed": 1}, state)).row.id)
        except StoreBusy:
            busy += 1
            if busy > moves:
                raise
    t0 = time.perf_counter()
    for m in range(moves):
        gid = ids[m % len(ids)]
        t = time.perf_counter()
        row = await store.get(gid)
        assert row is not None
        try:
            done = await store.commit_actions(gid, row.version, [(0, 1, f"move {m}")], state,
                                              "active", [(0, m, 1e12, 1e12)],
                                              notice={"kind": "move", "to": m})
            assert done.notice is not None
            await store.delivered(done.notice)
        except StoreBusy:
            busy += 1
        took.append(time.perf_counter() - t)
        if think_s:
            await asyncio.sleep(think_s)
    wall = time.perf_counter() - t0
    await store.close()
    return {"index": index, "answers": moves, "busy": busy, "wall": wall,
            "p50": statistics.median(took), "p99": pct(took, 99), "max": max(took)}


def run(path: str, procs: int, games: int, moves: int, think_ms: float) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--worker", "--db", path, "--games", str(games),
           "--moves", str(moves), "--think-ms", str(think_ms)]
    started = [subprocess.Popen([*cmd, "--index", str(k + 1)], stdout=subprocess.PIPE,
                                text=True) for k in range(procs)]
    limit = START_S * max(1.0, procs * moves / 1000)
    results = []
    try:
        for p in started:
            out, _ = p.communicate(timeout=limit)
            lines = [ln for ln in out.splitlines() if ln.startswith("@@")]
            if p.returncode != 0 or not lines:
                raise RuntimeError(f"a worker ended with exit code {p.returncode}")
            results.append(json.loads(lines[-1][2:]))
    finally:
        for p in started:
            if p.poll() is None:
                p.kill()
                p.wait(10)
    answers = sum(r["answers"] for r in results)
    wall = max(r["wall"] for r in results)
    return {"procs": procs, "answers": answers, "busy": sum(r["busy"] for r in results),
            "per_s": answers / wall, "max": max(r["max"] for r in results),
            "p99": max(r["p99"] for r in results), "workers": results}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--procs", type=int, default=4)
    ap.add_argument("--moves", type=int, default=300, help="answers per process")
    ap.add_argument("--games", type=int, default=5, help="games per process")
    ap.add_argument("--think-ms", type=float, default=0.0)
    ap.add_argument("--db", help="the SQLite file (default: a new temporary one)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--index", type=int, default=0, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        res = asyncio.run(worker(a.db, a.index, a.games, a.moves, a.think_ms / 1000))
        print("@@" + json.dumps(res), flush=True)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        res = run(a.db or f"{tmp}/procs.db", a.procs, a.games, a.moves, a.think_ms)
    for w in res["workers"]:
        print(f"process {w['index']}: {w['answers']} answers, {w['busy']} busy; write "
              f"p50 {w['p50'] * 1000:.1f} ms, p99 {w['p99'] * 1000:.0f} ms, "
              f"max {w['max'] * 1000:.0f} ms")
    print(f"{res['procs']} processes: {res['answers']} answers, {res['busy']} refused as busy, "
          f"{res['per_s']:.0f} answers/s, slowest write {res['max'] * 1000:.0f} ms")
    print("@@" + json.dumps({k: v for k, v in res.items() if k != "workers"}), flush=True)
    return 1 if res["busy"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
