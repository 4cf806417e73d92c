"""AI seats: how fast AI players answer, and that their thinking never stalls the event loop.

    .venv/bin/python bench/seats.py [--games 10] [--level greedy] [--moves 15] [--seed 1]

G games in one process (service + SQLite file, no Discord), each one person and three AI
players of LEVEL. In rounds, every unfinished game gets one answer of its person (a random
legal action) and then `play_ai` answers every AI decision that follows — all games at once,
as a busy bot would. Meanwhile a heartbeat task asks to wake every 5 ms and records how late
it wakes: the event loop's stall, which is what delays every acknowledgement in the bot.

Each configuration runs three times: AI choices in worker processes (the bot's way), in
worker threads (the service's default: they still compete with the loop for the GIL) and,
for the ratio, on the event loop itself. Percentiles are nearest-rank.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from service import GameService  # noqa: E402
from service import ai_seats as S  # noqa: E402
from store import Store  # noqa: E402

BEAT_S = 0.005


def quantile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def pool() -> ProcessPoolExecutor:
    return ProcessPoolExecutor(S.AI_AT_ONCE, mp_context=multiprocessing.get_context("spawn"))


class OnTheLoop(Executor):
    """The comparison: each choice computed right where it is asked, on the event loop."""

    def submit(self, fn: Callable[..., object], /, *args: object,
               **kwargs: object) -> Future[object]:
        done: Future[object] = Future()
        try:
            done.set_result(fn(*args, **kwargs))
        except BaseException as e:
            done.set_exception(e)
        return done


async def run(games: int, level: str, moves: int, seed: int, where: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        store = await Store(str(Path(tmp) / "b.db")).open()
        svc = GameService(store, seed_source=lambda: seed)
        if where == "processes":
            svc.ai.pool = pool
        elif where == "loop":
            svc.ai.pool = OnTheLoop
        for k in range(games):
            await svc.lobby.new_lobby(1, k, 1000 + k, f"P{k}", players=4, bots=3, bot_level=level)
            await svc.lobby.start(k, 1000 + k)
        stalls: list[float] = []
        stop = asyncio.Event()

        async def heartbeat() -> None:
            loop = asyncio.get_running_loop()
            while not stop.is_set():
                t0 = loop.time()
                await asyncio.sleep(BEAT_S)
                stalls.append((loop.time() - t0 - BEAT_S) * 1000)

        answered = 0

        async def told(_out: object) -> None:
            nonlocal answered
            answered += 1

        rng = random.Random(seed)
        beat = asyncio.create_task(heartbeat())
        t0 = time.perf_counter()
        for _ in range(moves):
            async def one(k: int) -> None:
                try:
                    row, g = await svc.tables.current(k)
                except Exception:
                    return
                if g.over or 0 not in g.waiting_for():
                    return
                await svc.play.act(k, 1000 + k, str(rng.choice(g.legal_actions(0))))
                await svc.ai.play_ai(k, told)
            await asyncio.gather(*(one(k) for k in range(games)))
        wall = time.perf_counter() - t0
        stop.set()
        await beat
        svc.ai.close()
        await store.close()
    return {"answers": answered, "per_s": answered / wall,
            "stall_p50": quantile(stalls, .5), "stall_p99": quantile(stalls, .99),
            "stall_max": max(stalls, default=0.0)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--level", default="greedy")
    ap.add_argument("--moves", type=int, default=15)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--at-once", type=int, default=S.AI_AT_ONCE, help="AI choices at once")
    args = ap.parse_args()
    S.AI_AT_ONCE = args.at_once
    for where in ("processes", "threads", "loop"):
        r = asyncio.run(run(args.games, args.level, args.moves, args.seed, where))
        print(json.dumps({"level": args.level, "games": args.games, "ai": where,
                          "at_once": args.at_once,
                          **{k: round(v, 1) for k, v in r.items()}}))


if __name__ == "__main__":
    main()
