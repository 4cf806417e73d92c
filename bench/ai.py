"""AI strength and speed: win rates with 95 % Wilson intervals, ms per decision and per game.

    .venv/bin/python bench/ai.py [--games 400] [--workers 2] [--only NAME ...] [--budget 0.9]
                                 [--out scores.jsonl]

Each configuration plays `--games` seeded games (seed = game number, so runs are
reproducible) with one AI level per seat; the seat of interest rotates through the table
so no seat advantage is measured. Reported per configuration: wins of the seat of interest
(a draw counts as half), the Wilson 95 % interval, the median and p90 wall time of a whole
game (every seat's thinking included, engine time too), the median CPU time of a game (the
worker's own, so other processes on the machine inflate it less) and the median / p90 wall
ms of one `choose` per level. Medians, because the machine is shared: other processes add a tail.

Configurations (NAME):
  solo-greedy / solo-easy / solo-normal / solo-hard   greedy alone (R13.1, R13.2)
  solo-random                                          the baseline
  2p-greedy-random / 4p-greedy-random                 one greedy seat against random ones
  4p-greedy                                            four greedy seats (speed)
  hard-expert / 4p-expert-greedy                       expert alone on Hard; vs 3 greedy
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ai import make_player  # noqa: E402
from engine import Game, view  # noqa: E402

NAMES = ["Ann", "Bob", "Cid", "Dee"]

# name: (levels with the seat of interest first, solo difficulty or None)
CONFIGS: dict[str, tuple[list[str], str | None]] = {
    "solo-greedy": (["greedy"], None),
    "solo-easy": (["greedy"], "easy"),
    "solo-normal": (["greedy"], "normal"),
    "solo-hard": (["greedy"], "hard"),
    "solo-random": (["random"], None),
    "2p-greedy-random": (["greedy", "random"], None),
    "4p-greedy-random": (["greedy", "random", "random", "random"], None),
    "4p-greedy": (["greedy"] * 4, None),
    "hard-expert": (["expert"], "hard"),
    "4p-expert-greedy": (["expert", "greedy", "greedy", "greedy"], None),
}
DEFAULT = ["solo-greedy", "solo-easy", "solo-normal", "solo-hard", "solo-random",
           "2p-greedy-random", "4p-greedy-random", "4p-greedy"]

BUDGET = 0.9  # expert seconds per decision (set per worker from --budget)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % with z = 1.96)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def quantile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def _player(level: str, seed: int):  # noqa: ANN202 - a Player
    return _expert(seed) if level == "expert" else make_player(level, seed)


def _expert(seed: int):  # noqa: ANN202
    from ai.expert import ExpertPlayer

    return ExpertPlayer(seed, budget=BUDGET)


def play_one(args: tuple[str, int]) -> tuple[float, float, float, dict[str, list[float]]]:
    """One game of configuration `name`; (score of the seat of interest, wall seconds, CPU
    seconds of this process, per-level decision times in ms)."""
    name, game = args
    levels, difficulty = CONFIGS[name]
    n = len(levels)
    shift = game % n  # the seat of interest rotates around the table
    seats = [levels[(s - shift) % n] for s in range(n)]
    bots = [_player(lv, game * 10 + s) for s, lv in enumerate(seats)]
    options = {"difficulty": difficulty} if difficulty else None
    clock = time.perf_counter
    t0, c0 = clock(), time.process_time()
    g = Game.new(NAMES[:n], seed=game, options=options)
    per: dict[str, list[float]] = {}
    for _ in range(20_000):
        if g.over:
            break
        seat = g.waiting_for()[0]
        v = view(g.state, seat)
        t = clock()
        text = bots[seat].choose(v, seat)
        per.setdefault(seats[seat], []).append((clock() - t) * 1000)
        g.apply(seat, text)
    total, cpu = clock() - t0, time.process_time() - c0
    res = g.state["result"]
    if shift in res["winners"]:
        score = 1.0 / len(res["winners"]) if res["draw"] else 1.0
    else:
        score = 0.0
    return score, total, cpu, per


def _init(budget: float) -> None:
    global BUDGET
    BUDGET = budget


def run(name: str, games: int, workers: int, budget: float, out: Path | None = None) -> str:
    with multiprocessing.Pool(workers, initializer=_init, initargs=(budget,)) as pool:
        results = pool.map(play_one, [(name, k) for k in range(games)], chunksize=1)
    if out is not None:  # per-seed scores: two levels on the same seeds compare pairwise
        with out.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"config": name, "scores": [r[0] for r in results]}) + "\n")
    wins = sum(r[0] for r in results)
    lo, hi = wilson(wins, games)
    times = [r[1] * 1000 for r in results]
    cpu = [r[2] * 1000 for r in results]
    per: dict[str, list[float]] = {}
    for r in results:
        for lv, xs in r[3].items():
            per.setdefault(lv, []).extend(xs)
    dec = "; ".join(f"{lv} {statistics.median(xs):.2f} / {quantile(xs, 0.9):.2f}"
                    for lv, xs in sorted(per.items()))
    return (f"| {name} | {games} | {100 * wins / games:.1f} % | {100 * lo:.1f}–{100 * hi:.1f} % "
            f"| {statistics.median(times):.0f} / {quantile(times, 0.9):.0f} "
            f"| {statistics.median(cpu):.0f} | {dec} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--workers", type=int, default=2, help="at most 2 on the shared machine")
    ap.add_argument("--only", nargs="*", default=DEFAULT, choices=list(CONFIGS))
    ap.add_argument("--budget", type=float, default=0.9, help="expert seconds per decision")
    ap.add_argument("--out", type=Path, help="append per-seed scores (JSON lines) here")
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, {args.workers} workers,"
          f" {args.games} games per row, expert budget {args.budget} s")
    print("| configuration | games | wins (seat of interest) | 95 % Wilson CI "
          "| game ms median / p90 | game CPU ms median | ms per decision median / p90 |")
    print("|---|---|---|---|---|---|---|")
    for name in args.only:
        print(run(name, args.games, args.workers, args.budget, args.out), flush=True)


if __name__ == "__main__":
    main()
