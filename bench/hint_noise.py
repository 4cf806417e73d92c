"""Hints (issue 23): how much a hint's chance moves with its seed where the expert does not
search, and its CPU, at a given count of sampled games.

Three positions of greedy solo games (seed, answers played before the hint), each hinted
with 8 seeds (a hint's seed is game id + log length, so the same position asked in another
game or a move later gets another one); per sample count: the standard deviation of the
chance shown, its range, and the median CPU of a hint.

    .venv/bin/python bench/hint_noise.py [--samples 3 8]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ai import make_player  # noqa: E402
from ai.advise import advise  # noqa: E402
from engine import Game  # noqa: E402

POSITIONS = ((3, 12), (3, 29), (5, 19))  # unsearched: a unit action, a roll, a ready
SEEDS = 8


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, nargs="+", default=[3, 8])
    args = ap.parse_args()
    for seed, before in POSITIONS:
        g = Game.new(["P0"], seed=seed)
        player = make_player("greedy", seed)
        for _ in range(before):
            g.apply(0, player.choose(g.state, 0))
        view = g.view(0)
        for n in args.samples:
            chances, cpu = [], []
            for s in range(SEEDS):
                t = time.process_time()
                chances.append(advise(view, 0, 1000 + s, samples=n).p_after)
                cpu.append(time.process_time() - t)
            print(f"seed {seed} answer {before + 1} ({g.decision_kind(0)}), {n} samples: "
                  f"sd {100 * statistics.pstdev(chances):.1f} points, range "
                  f"{100 * min(chances):.0f}–{100 * max(chances):.0f} %, "
                  f"median CPU {statistics.median(cpu):.3f} s", flush=True)


if __name__ == "__main__":
    main()
