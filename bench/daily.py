"""The daily challenge under open-loop load, through the test harness's fake Discord (issues 10, 18, 22).

    .venv/bin/python bench/daily.py [--rate 1000] [--duration 60] [--probes 2] [--servers 500]
                                    [--even] [--par] [--profile out.pstats]

1. The rush after 00:00 UTC: `/rr daily play` by new players in a server channel, arriving
   at `--rate` starts a minute for `--duration` seconds (Poisson arrivals, or evenly spaced
   with `--even`), each delivered at its time whatever the bot is still doing (open loop,
   bench/openloop.py). Every start claims the ranked attempt, builds the game and posts its
   table and question to the player's DM. Meanwhile `/rr daily leaderboard` arrives
   `--probes` times a second.
2. The day-boundary job (`cogs.daily_job.day_once`) one day later with `--servers` servers
   configured for announcements: closing the day's unfinished attempts, announcing the new
   challenge and the podium to every server. With `--par`, the par computation (the greedy
   and expert AIs playing the day, in worker threads) is part of the job; without it a stored
   par is used. (The rush's own day is given a stored par either way, or, with `--par`, the
   test bot's fast random AI plays it when the first player asks.) While the job runs, `/rr daily leaderboard` arrives `--probes` times a
   second, each measured as it happens.

Per interaction, from its scheduled arrival: ack (the defer reached Discord), answer (the
player's private answer), and missed windows (no accepted initial response within the
harness's RESPONSE_DEADLINE, 3 s). Percentiles are nearest-rank; a shared machine adds
noise: run it twice and give the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import datetime as dt
import itertools
import os
import pstats
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]

from bot_driver import Clock, make_bot  # noqa: E402
from harness import RESPONSE_DEADLINE, Harness  # noqa: E402
from openloop import Delivery, Feeder, log_errors_but_misses, schedule  # noqa: E402

from cogs.daily_job import day_once  # noqa: E402

MIDNIGHT = dt.datetime(2026, 11, 23, 0, 5, tzinfo=dt.UTC).timestamp()
PAR = {"greedy": {"score": {"won": True, "rounds": 9, "fainted": 0, "marks": 1}, "trace": []}}
PLAY, BOARD, BOARD_JOB = "daily play", "leaderboard (rush)", "leaderboard (day job)"


async def rush(rate_per_min: float, duration: float, probes: float, servers: int, par: bool,
               poisson: bool, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    load_before = os.getloadavg()
    clock = Clock(MIDNIGHT)
    starts = schedule(rate_per_min / 60, duration, poisson=poisson, rng=rng)
    with tempfile.TemporaryDirectory() as tmp:
        async with Harness(lambda: make_bot(Path(tmp) / "d.db", clock), settle_timeout=1800) as h:
            host = h.bot.daily  # type: ignore[attr-defined]
            if not par:
                await host.store.set_par(host.days.today().isoformat(), PAR)
            users = [h.user(f"p{k}") for k in range(len(starts))]
            prober = h.user("prober")
            # Payloads built before the clock starts: the load generator's own work stays
            # out of the measured minute (it shares the bot's process and cores).
            plays = [h.slash_payload(u, "rr daily play") for u in users]

            def board() -> Delivery:
                return h.slash_payload(prober, "rr daily leaderboard"), prober, h.channel, None

            arrivals = [(t, PLAY, (lambda p=p, u=u: (p, u, h.channel, None)))
                        for t, p, u in zip(starts, plays, users, strict=True)]
            arrivals += [(t, BOARD, board)
                         for t in schedule(probes, duration, poisson=False, rng=rng)]
            arrivals.sort(key=lambda a: a[0])
            feed = Feeder(h)
            t0 = time.perf_counter()
            await feed.run(arrivals)
            fed = time.perf_counter() - t0
            expired = await feed.drain(timeout=1800)
            wall = time.perf_counter() - t0
            started = len([u for u in users
                           if await host.store.attempt(u.id, host.days.today().isoformat(), True)])
            out: dict[str, Any] = {
                "play": feed.stats(PLAY), "board": feed.stats(BOARD), "fed": fed, "wall": wall,
                "started": started, "players": len(users), "late_feeds": feed.late_feeds,
                "expired_errors": len(expired), "load_before": load_before}

            for k in range(servers):  # servers' announcement channels (one harness guild)
                ch = h.text_channel(f"news{k}")
                await host.store.set_guild_channel(10_000 + k, ch.id, "en")
            clock.now += 24 * 3600
            if par:  # the production AIs (greedy, expert), not the test bot's random one
                host.par.levels = None
            else:
                await host.store.set_par(host.days.today().isoformat(), PAR)
            job_feed = Feeder(h)
            t1 = time.perf_counter()
            job = asyncio.create_task(day_once(h.bot))  # type: ignore[arg-type]
            ended: list[float] = []
            job.add_done_callback(lambda _: ended.append(time.perf_counter()))
            if probes > 0:  # until the job ends, however long it takes
                await job_feed.run(((k / probes, BOARD_JOB, board) for k in itertools.count(1)),
                                   until=job.done)
            out["sent"] = await job
            out["job"] = ended[0] - t1
            expired += await job_feed.drain(timeout=600)
            out["board_job"] = job_feed.stats(BOARD_JOB)
            out["expired_errors"] = len(expired)
            return out


def report(rate: float, duration: float, poisson: bool, par: bool, res: dict[str, Any]) -> None:
    print(f"daily bench: {rate:g} starts/min for {duration:g} s "
          f"({'Poisson' if poisson else 'evenly spaced'} arrivals, open loop), "
          f"{os.cpu_count()} CPUs, GIL switch interval {sys.getswitchinterval() * 1000:g} ms, "
          f"load average before {' '.join(f'{x:.2f}' for x in res['load_before'])}, "
          f"after {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(res["play"].line())
    print(res["board"].line())
    print(f"started {res['started']}/{res['players']}; arrivals fed in {res['fed']:.1f} s "
          f"({res['late_feeds']} handed over >10 ms late: the bot's loop was busy), all answered "
          f"after {res['wall']:.1f} s")
    print(f"day job: {res['job']:.1f} s ({'with' if par else 'without'} par), {res['sent']}")
    print(res["board_job"].line())
    print(f"late responses refused by the fake Discord (404 10062/10015): "
          f"{res['expired_errors']}; window = harness RESPONSE_DEADLINE {RESPONSE_DEADLINE:g} s")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--rate", type=float, default=1000.0, help="daily starts a minute")
    ap.add_argument("--duration", type=float, default=60.0, help="seconds of arrivals")
    ap.add_argument("--probes", type=float, default=2.0, help="leaderboards a second")
    ap.add_argument("--servers", type=int, default=500)
    ap.add_argument("--par", action="store_true")
    ap.add_argument("--even", action="store_true", help="evenly spaced, not Poisson")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", help="write a cProfile of the run (bot and load) here")
    ap.add_argument("--switch-interval", type=float,
                    help="sys.setswitchinterval for the run (seconds; Python's default 0.005): "
                         "how long a worker thread may keep the GIL the event loop waits for")
    a = ap.parse_args(argv)
    if a.switch_interval:
        sys.setswitchinterval(a.switch_interval)
    log_errors_but_misses()
    args = (a.rate, a.duration, a.probes, a.servers, a.par, not a.even, a.seed)
    if a.profile:
        prof = cProfile.Profile()
        res = prof.runcall(asyncio.run, rush(*args))
        prof.dump_stats(a.profile)
    else:
        res = asyncio.run(rush(*args))
    report(a.rate, a.duration, not a.even, a.par, res)
    if a.profile:
        pstats.Stats(a.profile).sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
