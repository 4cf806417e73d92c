"""Renderer speed: median time per image, and its ratio to the floor.

The floor is encoding a blank image of the same size (nothing drawn, nothing to compress),
measured both as RGB and as a palette image, the mode the renderer writes. Caches are warm
before timing (the bot renders many images per process); the first, cold call is listed too.

    .venv/bin/python bench/render.py [--runs N] [--cpu]

Targets (issue): 4-player table drawn and encoded < 40 ms; one board < 10 ms; 4-player table
< 300 KB.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import render  # noqa: E402
from render import api as render_api  # noqa: E402
from render import samples as S  # noqa: E402


def median_ms(fn: Callable[[], object], runs: int,
              clock: Callable[[], float] = time.perf_counter) -> float:
    times = []
    for _ in range(runs):
        t = clock()
        fn()
        times.append(clock() - t)
    return statistics.median(times) * 1000


def blank_png(size: tuple[int, int], mode: str) -> bytes:
    """A blank image written as the renderer writes ("P") or as Pillow's RGB PNG at zlib 3."""
    im = Image.new("RGB", size, (244, 239, 228))
    if mode == "P":
        return render_api.encode(im)
    buf = io.BytesIO()
    im.save(buf, "PNG", compress_level=3)
    return buf.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=101)
    ap.add_argument("--cpu", action="store_true",
                    help="time this process's CPU (time.process_time) instead of the wall "
                         "clock: steadier on a machine other work loads")
    args = ap.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter
    busy = S.one_board_view(S.busy_player(0, "Alice"))
    cases: list[tuple[str, Callable[[], bytes]]] = [
        ("board (busy)", lambda: render.board_png(busy, 0)),
        ("board + highlights", lambda: render.board_png(busy, 0, highlights=S.SAMPLE_EVENTS)),
        ("board ja", lambda: render.board_png(busy, 0, lang="ja")),
    ]
    for n in (1, 2, 3, 4):
        v = S.table_view(n, late=True)
        cases.append((f"table {n}p (late)", lambda v=v: render.table_png(v)))
    t4 = S.table_view(4, late=True)
    cases.append(("table 4p + highlights",
                  lambda: render.table_png(t4, highlights=S.SAMPLE_EVENTS)))
    cases.append(("reach", lambda: render.reach_png(busy, 0, "4B", ["3B", "5C"],
                                                    ["6B", "5B"])))
    uncached = render_api._card_png.__wrapped__  # card_png caches its bytes per process
    cases.append(("card (drawn each time)", lambda: uncached("dragon", "en")))
    cases.append(("card (cached bytes)", lambda: render.card_png("dragon")))

    head = f"{'image':24} {'size':>10} {'KB':>6} {'cold ms':>8} {'median ms':>10} " \
           f"{'blank RGB':>10} {'ratio':>6} {'blank P':>8} {'ratio':>6}"
    print(f"runs per case: {args.runs}\n{head}\n{'-' * len(head)}")
    for name, fn in cases:
        t = clock()
        data = fn()
        cold = (clock() - t) * 1000
        size = Image.open(io.BytesIO(data)).size
        med = median_ms(fn, args.runs, clock)
        rgb = median_ms(lambda size=size: blank_png(size, "RGB"), args.runs, clock)
        pal = median_ms(lambda size=size: blank_png(size, "P"), args.runs, clock)
        print(f"{name:24} {size[0]:>4}x{size[1]:<5} {len(data) / 1024:>6.0f} {cold:>8.1f} "
              f"{med:>10.2f} {rgb:>10.2f} {med / rgb:>6.2f} {pal:>8.2f} {med / pal:>6.2f}")
    print("\nratio = median / encoding a blank image of the same size (RGB, or palette: the "
          "mode written).\ntargets: table 4p < 40 ms and < 300 KB; board < 10 ms.")


if __name__ == "__main__":
    main()
