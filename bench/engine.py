"""Engine speed: random-legal full games per second, and the cost of single calls.

    .venv/bin/python bench/engine.py [--games 300] [--players 1 4] [--seed 1]

A game is driven as a bot would: pick a random pending seat, ask `legal_actions`, apply a
random one, until the game is over. Reported per player count: the median and p90 time of a
whole game (what the "full 4-player game under 20 ms median" target is about), games per
second and the mean length; then the median / p90 of one `apply`, one `legal_actions`, one
`view` and one `to_json` (what an interface pays per answer: answer, re-prompt, show, store).

Medians are used because this runs on a shared 2-core machine: other processes add a long
tail that would swamp a mean; run it twice and expect a few percent of noise.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import Game  # noqa: E402

TARGET_MS = 20.0  # a full 4-player random game, median


def quantile(xs: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of a non-empty list."""
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def greedy(rng: random.Random, legal: list) -> object:
    """A policy that fights and recruits, so games last longer (reference figures only)."""
    fight = [a for a in legal if a.verb == "act" and a.skill and a.skill.kind != "heal"]
    if fight and rng.random() < 0.9:
        return rng.choice(fight)
    grow = [a for a in legal if a.verb in ("recruit", "ready", "support", "place")]
    if grow and rng.random() < 0.9:
        return rng.choice(grow)
    return rng.choice(legal)


def play(players: int, seed: int, policy: str, calls: dict[str, list[float]] | None = None
         ) -> tuple[float, int, int]:
    """One full game; returns (seconds, answers, rounds). With `calls`, also times single
    calls (that slows the game a little, so game timings are taken without it)."""
    rng = random.Random(seed)
    names = ["Ann", "Bob", "Cid", "Dee"][:players]
    clock = time.perf_counter
    t0 = clock()
    g = Game.new(names, seed=seed)
    steps = 0
    while not g.over:
        seat = rng.choice(g.waiting_for())
        if calls is None:
            legal = g.legal_actions(seat)
            a = rng.choice(legal) if policy == "random" else greedy(rng, legal)
            g.apply(seat, a)
        else:
            t = clock()
            legal = g.legal_actions(seat)
            calls["legal_actions"].append(clock() - t)
            a = rng.choice(legal) if policy == "random" else greedy(rng, legal)
            t = clock()
            g.apply(seat, a)
            calls["apply"].append(clock() - t)
            t = clock()
            g.view(seat)
            calls["view"].append(clock() - t)
            t = clock()
            g.to_json()
            calls["to_json"].append(clock() - t)
        steps += 1
    return clock() - t0, steps, g.state["round"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=300, help="games per player count and policy")
    ap.add_argument("--players", type=int, nargs="+", default=[1, 4])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--greedy", action="store_true", help="also time the longer greedy games")
    a = ap.parse_args(argv)

    cpu = platform.processor() or platform.machine()
    print(f"Rook & Raiders engine bench: Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs ({cpu}), {a.games} games per line")
    for w in range(20):  # warm caches (card set, name index) before timing
        play(4, 10_000 + w, "random")
    print(f"{'players':>7} {'policy':>7} {'median ms':>10} {'p90 ms':>8} {'games/s':>8} "
          f"{'answers':>8} {'rounds':>7}")
    medians: dict[tuple[int, str], float] = {}
    for policy in ("random", "greedy") if a.greedy else ("random",):
        for n in a.players:
            times, steps, rounds = [], [], []
            gc.collect()
            for k in range(a.games):
                dt, s, r = play(n, a.seed * 1_000_003 + k, policy)
                times.append(dt * 1000)
                steps.append(s)
                rounds.append(r)
            med = statistics.median(times)
            medians[(n, policy)] = med
            print(f"{n:>7} {policy:>7} {med:>10.2f} {quantile(times, 0.9):>8.2f} "
                  f"{1000 * len(times) / sum(times):>8.0f} {statistics.mean(steps):>8.1f} "
                  f"{statistics.mean(rounds):>7.1f}")

    calls: dict[str, list[float]] = {"apply": [], "legal_actions": [], "view": [],
                                     "to_json": []}
    for k in range(max(20, a.games // 5)):
        play(4, a.seed * 7_919 + k, "random", calls)
    print("single calls over 4-player random games:")
    for name, xs in calls.items():
        us = [x * 1e6 for x in xs]
        print(f"  {name:>13}: median {statistics.median(us):7.1f} us, "
              f"p90 {quantile(us, 0.9):7.1f} us ({len(us)} calls)")
    if (4, "random") in medians:
        med = medians[(4, "random")]
        verdict = "met" if med < TARGET_MS else "MISSED"
        print(f"target: full 4-player random game median < {TARGET_MS:.0f} ms: {med:.2f} ms, "
              f"{verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
