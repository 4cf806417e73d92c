"""The animated recap's peak memory (issue 24, the community audit): a 30-round solo game
(about 210 phases, the longest recap there is) drawn and written, each run in a fresh
process, its peak resident size read from the kernel (`ru_maxrss`).

    .venv/bin/python bench/recap_memory.py [--runs 3] [--seed 5]

Memory is what bounds the bot here, not time: it draws recaps in worker processes under a
unit's `MemoryMax` (docs/deploy.md). The figure includes the interpreter and Pillow
(about 60 MB); the GIF's bytes are printed too, so a run can be compared with another
commit's (same seed: the same bytes).
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def one(seed: int) -> None:
    """Play the game with the greedy AI, draw its recap, print size, digest and peak MB."""
    sys.path.insert(0, str(ROOT))
    from ai import make_player
    from engine import Game, view
    from render.recap import recap_gif
    from service.replay import replay
    g = Game.new(["Ann"], seed=seed)
    bot = make_player("greedy", seed * 8)  # seated as `python -m sim` seats it
    for _ in range(20_000):
        if g.over:
            break
        g.apply(0, bot.choose(view(g.state, 0), 0))
    steps, title = replay(g.setup, g.state["log"]).recap(1, "en")
    data = recap_gif(steps, title)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{len(steps)} {len(data)} {hashlib.sha256(data).hexdigest()[:12]} {peak:.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        one(a.seed)
        return
    peaks = []
    for _ in range(a.runs):
        out = subprocess.run([sys.executable, __file__, "--one", "--seed", str(a.seed)],
                             capture_output=True, text=True, check=True, timeout=600)
        steps, size, digest, peak = out.stdout.split()
        peaks.append(float(peak))
    print(f"recap of a {steps}-phase solo game (seed {a.seed}): {int(size) / 1e6:.2f} MB "
          f"(sha256 {digest}…); peak resident {statistics.median(peaks):.0f} MB "
          f"(median of {a.runs} processes)")


if __name__ == "__main__":
    main()
