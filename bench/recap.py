"""The animated recap of a long 4-player game (issue 24): time and size.

Plays 4-player games with AI seats (greedy, seeds 1..--seeds), keeps the one with the most
phases, then times its recap: replaying the log into phase frames, drawing every table with
its caption, quantizing to one palette and writing the GIF; the same frames as animated
WebP (lossy and lossless) for comparison (`--webp`). `--out DIR` writes the GIF and a few
frames as PNG to look at.

    .venv/bin/python bench/recap.py [--seeds N] [--webp] [--out DIR]

Target: under render.recap.LIMIT (8 MiB, Discord's smallest upload limit); drawn off the
event loop (seconds are fine: it is posted after the game-over post).
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path
from typing import Any

from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ai import make_player  # noqa: E402
from engine import Game, view  # noqa: E402
from render.recap import LIMIT, durations, encode_gif, frames, recap_gif  # noqa: E402
from service.replay import replay  # noqa: E402

NAMES = ["Ann", "Bob", "Cid", "Dee"]
MAX_ANSWERS = 20_000


def long_game(level: str, seeds: int) -> tuple[int, dict[str, Any], list[list[Any]]]:
    """The AI-played 4-player game with the longest log among seeds 1..seeds."""
    best: tuple[int, dict[str, Any], list[list[Any]]] | None = None
    for seed in range(1, seeds + 1):
        g = Game.new(NAMES, seed=seed)
        bots = [make_player(level, seed * 8 + s) for s in range(4)]
        for _ in range(MAX_ANSWERS):
            if g.over:
                break
            s = g.waiting_for()[0]
            g.apply(s, bots[s].choose(view(g.state, s), s))
        log = [list(e) for e in g.state["log"]]
        if best is None or len(log) > len(best[2]):
            best = (seed, dict(g.setup), log)
    assert best is not None
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--level", default="greedy")
    ap.add_argument("--webp", action="store_true")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    seed, setup, log = long_game(args.level, args.seeds)
    t0 = time.perf_counter()
    rp = replay(setup, log, NAMES)
    t1 = time.perf_counter()
    print(f"game: seed {seed}, {len(log)} answers, round {rp.frames[-1].round}, "
          f"{len(rp.frames)} phase frames; replay {(t1 - t0) * 1000:.0f} ms")
    for lang in ("en", "ja"):
        steps, title = rp.recap(seed, lang)
        t = time.perf_counter()
        data = recap_gif(steps, title, lang=lang)
        total = time.perf_counter() - t
        print(f"GIF {lang}: {len(data) / 1e6:.2f} MB ({len(data) / LIMIT:.0%} of the limit), "
              f"{total:.2f} s drawn + encoded, {total / (len(steps) + 1) * 1000:.0f} ms/frame")
        if args.out and lang == "en":
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / "recap.gif").write_bytes(data)
            im = Image.open(io.BytesIO(data))
            for k in (0, 1, im.n_frames // 2, im.n_frames - 1):
                im.seek(k)
                im.convert("RGB").save(args.out / f"frame-{k:03d}.png")
    steps, title = rp.recap(seed, "en")
    t = time.perf_counter()
    images = frames(steps, title)
    drawn = time.perf_counter() - t
    t = time.perf_counter()
    gif = encode_gif(images)
    print(f"split: drawing {drawn:.2f} s, palette + GIF {time.perf_counter() - t:.2f} s "
          f"({len(gif) / 1e6:.2f} MB)")
    if args.webp:
        for label, opts in (("WebP lossy q80", {"quality": 80, "method": 4}),
                            ("WebP lossless", {"lossless": True, "quality": 0, "method": 0})):
            t = time.perf_counter()
            buf = io.BytesIO()
            images[0].save(buf, "WEBP", save_all=True, append_images=images[1:],
                           duration=durations(len(images)), loop=0, **opts)
            print(f"{label}: {len(buf.getvalue()) / 1e6:.2f} MB, "
                  f"{time.perf_counter() - t:.2f} s to encode")


if __name__ == "__main__":
    main()
