"""AI strength and speed: win rates with 95 % Wilson intervals, ms per decision and per game.

    .venv/bin/python bench/ai.py [--games 400] [--first 0] [--workers 2] [--only NAME ...]
                                 [--budget 0.9] [--work 200] [--out scores.jsonl]

Each configuration plays `--games` seeded games (seed = game number, so runs are
reproducible) with one AI level per seat; the seat of interest rotates through the table
so no seat advantage is measured. Reported per configuration: wins of the seat of interest
(a draw counts as half), the Wilson 95 % interval, the median and p90 wall time of a whole
game (every seat's thinking included, engine time too), the median CPU time of a game (the
worker's own, so other processes on the machine inflate it less) and the median / p90 wall
ms of one `choose` per level. Medians, because the machine is shared: other processes add a tail.
For the expert also the CPU ms of one searched decision (median / p99 / max: its count
budget, not the clock, sets its work, so the CPU time is what would be the wall time on a
quiet machine) and how many decisions the wall-clock cap cut short (0 = the run made the
same choices it would make on any machine).

Paired tests: when a row and its greedy twin run on the same seeds (hard-expert with
solo-hard, 4p-expert-greedy with 4p-greedy — the same seats, seeds and opponents, only the
seat of interest's AI differs), an exact McNemar test on the games where the two scored
differently (two-sided binomial on the discordant pairs); for 4p-expert-greedy also the
one-sided exact binomial test against the fair share of 25 %.

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
from ai.expert import ExpertPlayer  # noqa: E402
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

BUDGET = 0.9  # expert seconds per decision (set per worker from --budget; 0: no cap)
WORK = 200  # expert simulated answers per decision (set per worker from --work)
TWINS = {"hard-expert": "solo-hard", "4p-expert-greedy": "4p-greedy"}


def binom_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p), exactly."""
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k, n + 1))


def mcnemar(a: list[float], b: list[float]) -> tuple[int, int, float]:
    """Exact McNemar test of paired scores: (games a did better, games b did better,
    two-sided p)."""
    better = sum(x > y for x, y in zip(a, b, strict=True))
    worse = sum(x < y for x, y in zip(a, b, strict=True))
    n = better + worse
    p = min(1.0, 2 * binom_tail(max(better, worse), n, 0.5)) if n else 1.0
    return better, worse, p


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


def _expert(seed: int) -> ExpertPlayer:
    """`--budget 0` lifts the wall-clock cap: the expert's choices then depend on its seed
    and `--work` alone, the same on a loaded machine (as `python -m sim` always plays it)."""
    return ExpertPlayer(seed, budget=BUDGET or math.inf, work=WORK)


def play_one(args: tuple[str, int]) -> tuple[float, float, float, dict[str, list[float]]]:
    """One game of configuration `name`; (score of the seat of interest, wall seconds, CPU
    seconds of this process, per-level decision times in ms; for the expert also
    "expert-cpu", the CPU ms of each searched decision, and "capped")."""
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
        t, c = clock(), time.process_time()
        text = bots[seat].choose(v, seat)
        per.setdefault(seats[seat], []).append((clock() - t) * 1000)
        if seats[seat] == "expert" and bots[seat].searched(v, v["decisions"][str(seat)]["kind"]):
            per.setdefault("expert-cpu", []).append((time.process_time() - c) * 1000)
        g.apply(seat, text)
    total, cpu = clock() - t0, time.process_time() - c0
    capped = [float(b.capped) for b in bots if getattr(b, "level", "") == "expert"]
    if capped:
        per["capped"] = capped
    res = g.state["result"]
    if shift in res["winners"]:
        score = 1.0 / len(res["winners"]) if res["draw"] else 1.0
    else:
        score = 0.0
    return score, total, cpu, per


def _init(budget: float, work: int) -> None:
    global BUDGET, WORK
    BUDGET, WORK = budget, work


def run(name: str, games: range, workers: int, budget: float, out: Path | None = None,
        scores: dict[str, list[float]] | None = None, work: int = WORK) -> str:
    with multiprocessing.Pool(workers, initializer=_init, initargs=(budget, work)) as pool:
        results = pool.map(play_one, [(name, k) for k in games], chunksize=1)
    if scores is not None:
        scores[name] = [r[0] for r in results]
    if out is not None:  # per-seed scores: two levels on the same seeds compare pairwise
        with out.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"config": name, "first": games.start,
                                "scores": [r[0] for r in results]}) + "\n")
    wins = sum(r[0] for r in results)
    n = len(games)
    lo, hi = wilson(wins, n)
    times = [r[1] * 1000 for r in results]
    cpu = [r[2] * 1000 for r in results]
    per: dict[str, list[float]] = {}
    for r in results:
        for lv, xs in r[3].items():
            per.setdefault(lv, []).extend(xs)
    capped = int(sum(per.pop("capped", [])))
    search = per.pop("expert-cpu", [])
    dec = "; ".join(f"{lv} {statistics.median(xs):.2f} / {quantile(xs, 0.9):.2f}"
                    for lv, xs in sorted(per.items()))
    if search:
        dec += (f"; expert searched, CPU {statistics.median(search):.0f} / "
                f"{quantile(search, 0.99):.0f} / {max(search):.0f} (max), {len(search)} "
                f"decisions, {capped} cut by the cap")
    return (f"| {name} | {n} | {100 * wins / n:.1f} % | {100 * lo:.1f}–{100 * hi:.1f} % "
            f"| {statistics.median(times):.0f} / {quantile(times, 0.9):.0f} "
            f"| {statistics.median(cpu):.0f} | {dec} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--first", type=int, default=0, help="first seed (a run can be split)")
    ap.add_argument("--workers", type=int, default=2, help="at most 2 on the shared machine")
    ap.add_argument("--only", nargs="*", default=DEFAULT, choices=list(CONFIGS))
    ap.add_argument("--budget", type=float, default=0.9,
                    help="expert wall-clock cap, seconds per decision (0: none, reproducible)")
    ap.add_argument("--work", type=int, default=WORK,
                    help="expert count budget: simulated answers per searched decision")
    ap.add_argument("--out", type=Path, help="append per-seed scores (JSON lines) here")
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, {args.workers} workers,"
          f" {args.games} games per row, expert budget {args.work} answers, wall cap "
          f"{args.budget or 'none'} s")
    print("| configuration | games | wins (seat of interest) | 95 % Wilson CI "
          "| game ms median / p90 | game CPU ms median | ms per decision median / p90 |")
    print("|---|---|---|---|---|---|---|")
    games = range(args.first, args.first + args.games)
    scores: dict[str, list[float]] = {}
    for name in args.only:
        print(run(name, games, args.workers, args.budget, args.out, scores, args.work),
              flush=True)
    for name, twin in TWINS.items():
        if name in scores and twin in scores:
            better, worse, p = mcnemar(scores[name], scores[twin])
            print(f"{name} vs {twin} on the same {len(games)} seeds: {sum(scores[name]):g} vs "
                  f"{sum(scores[twin]):g} wins; expert better in {better}, greedy in {worse}; "
                  f"exact McNemar two-sided p = {p:.2g}")
    if "4p-expert-greedy" in scores:
        xs = scores["4p-expert-greedy"]
        p = binom_tail(round(sum(xs)), len(xs), 0.25)
        print(f"4p-expert-greedy: {sum(xs):g} of {len(xs)} against a fair 25 %: exact "
              f"binomial one-sided p = {p:.2g}")


if __name__ == "__main__":
    main()
