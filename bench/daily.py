"""The daily challenge under load, through the test harness's fake Discord (issue 10).

    .venv/bin/python bench/daily.py [--players 1000] [--window 60] [--servers 500] [--par]

1. `--players` users each run `/rr daily play` in a server channel, their interactions
   spread evenly over `--window` seconds (the rush after 00:00 UTC): every start claims
   the ranked attempt, builds the game, posts its table and question to the player's DM.
   Measured per interaction from the gateway payload to the recorded callback (ack: Discord's
   3-second window) and to the first followup (the player's answer).
2. The day-boundary job (`cogs.daily.day_once`) one day later with `--servers` servers
   configured for announcements: closing the day's unfinished attempts, announcing the new
   challenge and the podium to every server. With `--par`, the par computation (the greedy
   and expert AIs playing the day, in worker threads) is timed too; without it a stored par
   is used. During the job, one `/rr daily leaderboard` per second measures whether the bot
   stays responsive.

Percentiles are nearest-rank; a shared machine adds noise: run it twice.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import importlib.util
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from bot_driver import Clock, make_bot  # noqa: E402
from harness import Harness  # noqa: E402

from cogs.daily import day_once  # noqa: E402

_spec = importlib.util.spec_from_file_location("bench_bot", ROOT / "bench" / "bot.py")
assert _spec and _spec.loader
bench_bot = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_bot)
Meter, quantile, payload_slash = bench_bot.Meter, bench_bot.quantile, bench_bot.payload_slash

NOON = dt.datetime(2026, 11, 23, 0, 5, tzinfo=dt.UTC).timestamp()
PAR = {"greedy": {"score": {"won": True, "rounds": 9, "fainted": 0, "marks": 1}, "trace": []}}


def summary(name: str, xs: list[float]) -> str:
    ms = [x * 1000 for x in xs]
    return (f"{name}: n={len(ms)} p50={quantile(ms, .5):.0f} ms p90={quantile(ms, .9):.0f} ms "
            f"p99={quantile(ms, .99):.0f} ms max={max(ms, default=float('nan')):.0f} ms")


async def rush(players: int, window: float, servers: int, par: bool) -> dict[str, Any]:
    clock = Clock(NOON)
    with tempfile.TemporaryDirectory() as tmp:
        async with Harness(lambda: make_bot(Path(tmp) / "d.db", clock), settle_timeout=600) as h:
            meter = Meter(h)
            host = h.bot.daily  # type: ignore[attr-defined]
            if not par:
                await host.store.set_par(host.today().isoformat(), PAR)
            users = [h.user(f"p{k}") for k in range(players)]
            t0 = time.perf_counter()

            per_s = max(1, round(players / window))  # one burst a second over the window
            for first in range(0, players, per_s):
                tick = time.perf_counter()
                batch = users[first:first + per_s]
                await h.gather(*(h.interact(payload_slash(h, u, h.channel, "rr daily play"), u,
                                            h.channel, expect_response=False) for u in batch))
                await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - tick)))
            await h.settle()
            wall = time.perf_counter() - t0
            started = len([u for u in users
                           if await host.store.attempt(u.id, host.today().isoformat(), True)])
            print(summary("daily play ack", list(meter.ack.values())))
            print(summary("daily play answer", list(meter.answer.values())))
            print(f"started {started}/{players} in {wall:.1f} s; missed 3-s windows: "
                  f"{meter.missed}")
            for k in range(servers):  # servers' announcement channels (one harness guild)
                ch = h.text_channel(f"news{k}")
                await host.store.set_guild_channel(10_000 + k, ch.id, "en")
            clock.now += 24 * 3600
            if not par:
                await host.store.set_par(host.today().isoformat(), PAR)
            meter.reset()
            meter.missed = 0
            probe_user = users[0]
            done = asyncio.Event()

            t1 = time.perf_counter()
            job_task = asyncio.create_task(day_once(h.bot))  # type: ignore[arg-type]
            while not job_task.done():  # one leaderboard a second while the job runs
                p = payload_slash(h, probe_user, h.channel, "rr daily leaderboard")
                await h.gather(h.interact(p, probe_user, h.channel, expect_response=False))
                await asyncio.wait({job_task}, timeout=1.0)
            sent = job_task.result()
            job = time.perf_counter() - t1
            done.set()
            await h.settle()
            print(f"day job: {job:.1f} s ({'with' if par else 'without'} par), {sent}")
            print(summary("leaderboard during the job, ack", list(meter.ack.values())))
            print(f"missed 3-s windows during the job: {meter.missed}")
            return {"wall": wall, "job": job, "sent": sent}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=1000)
    ap.add_argument("--window", type=float, default=60.0)
    ap.add_argument("--servers", type=int, default=500)
    ap.add_argument("--par", action="store_true")
    a = ap.parse_args(argv)
    asyncio.run(rush(a.players, a.window, a.servers, a.par))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
