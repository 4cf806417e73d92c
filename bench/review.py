"""The game review (issue 23): how long a 2-player game takes, and how stable its top three
mistakes are run to run.

    .venv/bin/python bench/review.py time [--rounds 10] [--samples N] [--recheck N] [--workers 2]
    .venv/bin/python bench/review.py stability [--games 10] [--first 1] [--samples N ...] [--recheck N]
                                               [--slips P] [--dump FILE]

`time` plays 2-player greedy games (seeds 1, 2, …) until one lasts at least `--rounds`
rounds, then reviews both seats as people in `--workers` worker processes (as the bot
does: service/review.py `review_pool`), printing the wall time, the workers' CPU time and
the decisions judged. On a loaded machine the wall time says little: CPU time ÷ cores is the
figure for an idle 2-core machine.

`stability` reviews each of `--games` 2-player greedy games twice with two different search
seeds and counts the games where every seat's named mistakes (`SeatReview.mistakes`: one
decision of each of the three costliest rounds) are the same decisions (in any
order), the games where they are of the same rounds, and the large mistakes (10 points or
more) one review shows and the other puts under 2 points, for each `--samples`;
`--recheck` is how many of each seat's costliest decisions are judged again with
RECHECK_FACTOR times the samples (0: none; service/review_looks.py).
`--slips P`: each answer of those games is, with probability P, a random legal one instead
of greedy's — a player who makes a few clear mistakes, where greedy alone makes many
middling ones of one size (docs/review.md, "Stability"). `--dump FILE`: every review (of the
last `--samples`) as JSON (`"game-seed"`: the stored review), to try other ways of naming
mistakes on the same judgements without judging again.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ai import make_player  # noqa: E402
from engine import Game, view  # noqa: E402
from service.review import review_pool  # noqa: E402
from service.review_looks import RECHECK, SAMPLES, review_game  # noqa: E402
from service.review_record import SeatReview  # noqa: E402

MAX_ANSWERS = 20_000


def game(seed: int, slips: float = 0.0) -> tuple[dict[str, Any], list[list[Any]], int]:
    """A 2-player game greedy plays against itself (each answer, with probability `slips`,
    a random legal one instead): setup, log, rounds."""
    g = Game.new(["Ann", "Bob"], seed=seed)
    bots = [make_player("greedy", seed * 8 + s) for s in range(2)]
    rng = random.Random(seed)
    for _ in range(MAX_ANSWERS):
        if g.over:
            break
        s = g.waiting_for()[0]
        if slips and rng.random() < slips:
            g.apply(s, str(rng.choice(g.legal_actions(s))))
        else:
            g.apply(s, bots[s].choose(view(g.state, s), s))
    return dict(g.setup), [list(e) for e in g.state["log"]], g.round


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timing(rounds: int, samples: int, recheck: int, workers: int) -> None:
    seed = 1
    setup, log, n = game(seed)
    while n < rounds and seed < 40:
        seed += 1
        setup, log, n = game(seed)
    import service.review as R

    R.WORKERS = workers
    pool = review_pool(True)
    pool.submit(int, 0).result()  # the workers started (as in a running bot)
    cpu0, t0 = children_cpu(), time.perf_counter()
    rev = review_game(seed, setup, log, [0, 1], seed=7, samples=samples, recheck=recheck,
                      pool=pool)
    wall = time.perf_counter() - t0
    pool.shutdown(wait=True)
    cpu = children_cpu() - cpu0
    count = sum(len(s.points) for s in rev.seats)
    print(f"game seed {seed}: {n} rounds, {len(log)} answers, {count} decisions judged, "
          f"{samples} samples, {recheck} rechecked per seat")
    print(f"wall {wall:.1f} s with {workers} workers; workers' CPU {cpu:.1f} s "
          f"(an idle 2-core machine: about {cpu / 2:.1f} s)")
    for s in rev.seats:
        print(f"  seat {s.seat}: accuracy {s.accuracy:.0f}, top "
              + ", ".join(f"#{p.index} {p.kind} {p.played}→{p.best} {100 * p.cost:.1f}"
                          for p in s.mistakes()))


def costs(s: SeatReview) -> str:
    """A seat's costliest decisions as `index:points`, in log order."""
    return "[" + " ".join(f"{p.index}:{100 * p.cost:.1f}"
                          for p in sorted(s.mistakes(), key=lambda p: p.index)) + "]"


LARGE = 0.10  # a mistake of this many points of chance or more …
NOTHING = 0.02  # … that the other review puts under this is a miss


def misses(x: SeatReview, y: SeatReview) -> tuple[int, int]:
    """Of one seat's two reviews: the decisions that cost at least LARGE in either, and
    those of them the other puts under NOTHING — a mistake a player would be shown by one
    review and not by the other (docs/review.md, "Stability")."""
    cx, cy = ({p.index: p.cost for p in r.points} for r in (x, y))
    large = [i for i in cx if max(cx[i], cy[i]) >= LARGE]
    return len(large), sum(min(cx[i], cy[i]) < NOTHING for i in large)


def stability(games: int, samples_list: list[int], recheck: int, workers: int,
              first: int = 1, slips: float = 0.0, dump: Path | None = None) -> None:
    import service.review as R

    R.WORKERS = workers
    played = [game(seed, slips) for seed in range(first, first + games)]
    for samples in samples_list:
        pool = review_pool(True)  # its own workers: their CPU is counted once they exit
        same = rounds = large = missed = 0
        kept: dict[str, Any] = {}
        t0, cpu0 = time.perf_counter(), children_cpu()
        for seed, (setup, log, _n) in enumerate(played, first):
            a = review_game(seed, setup, log, [0, 1], seed=1, samples=samples, recheck=recheck,
                            pool=pool)
            b = review_game(seed, setup, log, [0, 1], seed=2, samples=samples, recheck=recheck,
                            pool=pool)
            kept[f"{seed}-1"], kept[f"{seed}-2"] = a.to_json(), b.to_json()
            agree = all({p.index for p in x.mistakes()} == {p.index for p in y.mistakes()}
                        for x, y in zip(a.seats, b.seats, strict=True))
            same += agree
            rounds += all({p.round for p in x.mistakes()} == {p.round for p in y.mistakes()}
                          for x, y in zip(a.seats, b.seats, strict=True))
            for x, y in zip(a.seats, b.seats, strict=True):
                n, m = misses(x, y)
                large, missed = large + n, missed + m
            print(f"  samples {samples} game {seed}: {'same' if agree else 'differs'} "
                  + " | ".join(f"{costs(x)} {costs(y)}"
                               for x, y in zip(a.seats, b.seats, strict=True)), flush=True)
        pool.shutdown(wait=True)
        if dump is not None:
            dump.write_text(json.dumps(kept))
        print(f"samples {samples}, recheck {recheck}: named mistakes the same in {same} of "
              f"{games} games (the same rounds in {rounds}); of {large} decisions costing "
              f"{100 * LARGE:.0f} points or more in one review, {missed} under "
              f"{100 * NOTHING:.0f} in the other "
              f"({time.perf_counter() - t0:.0f} s wall, "
              f"{children_cpu() - cpu0:.0f} s of the workers' CPU)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("time", "stability"))
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--first", type=int, default=1, help="the first game's seed")
    ap.add_argument("--samples", type=int, nargs="+", default=[SAMPLES])
    ap.add_argument("--recheck", type=int, default=RECHECK)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--slips", type=float, default=0.0,
                    help="stability: the share of random answers in the games reviewed")
    ap.add_argument("--dump", type=Path, default=None,
                    help="stability: write every review to this JSON file")
    ap.add_argument("--niceness", type=int, default=None,
                    help="the workers' niceness (default: the bot's, service/review.py)")
    ns = ap.parse_args()
    if ns.niceness is not None:
        import service.review as R

        R.NICENESS = ns.niceness
    if ns.what == "time":
        timing(ns.rounds, ns.samples[0], ns.recheck, ns.workers)
    else:
        stability(ns.games, ns.samples, ns.recheck, ns.workers, ns.first, ns.slips, ns.dump)


if __name__ == "__main__":
    main()
