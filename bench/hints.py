"""Hints (issue 23): how often a hint's two chances disagree with its move, and its CPU.

Plays greedy games (solo Hard, 2 and 4 players, seeds from `--first`) and, at about a
quarter of the searched decisions (command card, placement, recruit), asks for the hint
the bot would give (`ai.advise.advise`, its default samples and 1 s cap): counts the
hints whose chance "after this move" is below "now", and the CPU each took.

    .venv/bin/python bench/hints.py [--seeds N] [--first S]

Run on a commit before d4567e4 (separate 3-sample play-outs) it showed the move lowering
the chance in 22 of 66 hints (seeds 0-5, solo Normal and 2 players); since, the figures
come from the expert's own rollouts (README "Hints").
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ai import make_player  # noqa: E402
from ai.advise import advise  # noqa: E402
from engine import Game, view  # noqa: E402

SETTINGS = ((1, {"difficulty": "hard"}), (2, None), (4, None))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--first", type=int, default=0)
    args = ap.parse_args()
    rows: list[tuple[str, float, float, float]] = []
    for seed in range(args.first, args.first + args.seeds):
        for n, opts in SETTINGS:
            g = Game.new(["A", "B", "C", "D"][:n], seed=seed, options=opts)
            bots = [make_player("greedy", seed * 10 + s) for s in range(n)]
            rng = random.Random(seed)
            while not g.over:
                seat = g.waiting_for()[0]
                v = view(g.state, seat)
                kind = g.decision_kind(seat)
                if kind in ("pick", "place", "recruit") and rng.random() < 0.25:
                    t = time.process_time()
                    a = advise(v, seat, seed=rng.getrandbits(16))
                    rows.append((kind, a.p_before, a.p_after, time.process_time() - t))
                g.apply(seat, bots[seat].choose(v, seat))
    lower = [r for r in rows if r[2] < r[1]]
    same = sum(1 for r in rows if r[2] == r[1])
    cpu = sorted(r[3] for r in rows)
    print(f"{len(rows)} hints: the move lowers the chance in {len(lower)}, "
          f"leaves it as it is in {same}, raises it in {len(rows) - len(lower) - same}")
    print(f"CPU per hint: median {statistics.median(cpu):.2f} s, "
          f"p90 {cpu[int(0.9 * (len(cpu) - 1))]:.2f} s, max {cpu[-1]:.2f} s")
    for kind, before, after, _ in lower[:10]:
        print(f"  {kind}: {100 * before:.1f} % now, {100 * after:.1f} % after")


if __name__ == "__main__":
    main()
