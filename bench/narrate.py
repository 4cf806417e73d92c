"""Narration speed: the words of whole games, as Discord and the console show them.

    .venv/bin/python bench/narrate.py [--games 40] [--repeat 9] [--root DIR] [--dump FILE]

Plays `--games` random-legal 4-player games once, then times (median of `--repeat` runs)
telling all their public events in English and Japanese, formatted as Discord markdown, and
asking every prompt met on the way. `--root` runs the same measurement on another checkout
(e.g. main before the catalogue) for a before/after ratio; the script adapts to narration
returning formatted strings (before) or marked lines (after).

Medians because this runs on a shared 2-core machine; expect a few percent of noise.
"""

from __future__ import annotations

import argparse
import inspect
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1]))
    ap.add_argument("--dump", help="write every line told (both languages) to this file, "
                    "to diff two checkouts' words")
    a = ap.parse_args()
    sys.path.insert(0, a.root)
    from engine import Game, default_cards, visible
    from service.narrate import narrate, prompt

    try:
        from cogs.text import markdown as formatted  # after: marked lines, by the interface
    except ImportError:
        def formatted(line: Any) -> str:  # before: narration was Discord text already
            return line or ""
    # before 2026-11-28 the format took no language (commands were named in English only)
    takes_lang = len(inspect.signature(formatted).parameters) > 1

    def markdown(line: Any, lang: str) -> str:
        return formatted(line, lang) if takes_lang else formatted(line)

    cards = default_cards()
    names = ["Ann", "Bob", "Cy", "Di"]
    stories: list[list[dict[str, Any]]] = []
    asked: list[tuple[Game, int]] = []
    rng = random.Random(1)
    for seed in range(a.games):
        g = Game.new(names, seed=seed)
        events: list[dict[str, Any]] = []
        while not g.over:
            seat = rng.choice(g.waiting_for())
            if len(asked) < 2000 and rng.random() < 0.05:
                asked.append((Game.from_json(g.to_json()), seat))
            events += g.apply(seat, rng.choice(g.legal_actions(seat)))
        stories.append(visible(events, None))

    def run() -> int:
        n = 0
        for lang in ("en", "ja"):
            for ev in stories:
                n += sum(len(markdown(x, lang)) for x in narrate(ev, names, cards, lang, limit=10**6))
            for g, seat in asked:
                n += len(markdown(prompt(g, seat, lang), lang))
        return n

    if a.dump:
        with open(a.dump, "w", encoding="utf-8") as f:
            for lang in ("en", "ja"):
                for ev in stories:
                    for x in narrate(ev, names, cards, lang, limit=10**6):
                        print(markdown(x, lang), file=f)
                for g, seat in asked:
                    print(markdown(prompt(g, seat, lang), lang), file=f)
    run()  # warm caches
    times = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    events = sum(len(s) for s in stories)
    med = statistics.median(times)
    print(f"root {a.root}: {events} events x 2 languages + {len(asked)} prompts x 2: "
          f"median {med * 1000:.1f} ms ({2 * events / med:,.0f} events/s)")


if __name__ == "__main__":
    main()
