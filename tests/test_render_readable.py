"""Images readable at phone width (issue 20).

"Readable" is measured: Discord shows an image at most ~400 px wide on a phone, so every
text an image carries — names, numbers, stat labels, deck counts, highlight tags — must
have capitals at least `MIN_CAP` px tall once the image is scaled to 400 px wide. 7 px
capitals are about a 9.6 px font, what a phone's smallest interface text (a timestamp) is.
Measured from the font size each text is drawn at (render/boxes.py `writing`), for every
player count and the single board, in both languages.
"""

from __future__ import annotations

import random
from typing import Any

from engine import Game, visible
from render import boxes
from render.table import table_image


def placement_view() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The spectator view kept as placement ended (how the bot posts it), and its events."""
    g = Game.new(["Ann", "Bob"], seed=5)
    rng = random.Random(5)
    kept: list[tuple[str, int, dict[str, Any]]] = []
    while not kept:
        seat = g.waiting_for()[0]

        def keep(what: str, n: int) -> None:
            kept.append((what, n, {**g.view(None), "after": what}))

        ev = g.apply(seat, rng.choice(g.legal_actions(seat)), on_resolved=keep)
    what, n, view = kept[0]
    assert what == "placement"
    return view, visible(ev[:n], None)


def test_the_placement_image_is_titled_round_0():
    """R4: placement is round 0; the state has stepped into round 1 when it ends."""
    view, events = placement_view()
    assert view["round"] == 1
    for lang, want, wrong in (("en", "Round 0 · Placement", "Round 1"),
                              ("ja", "ラウンド 0", "ラウンド 1")):
        with boxes.writing() as written:
            table_image(view, lang=lang, highlights=events)
        texts = [t for t, _cap, _kind in written]
        assert any(want in t for t in texts), texts
        assert not any(wrong in t for t in texts)
