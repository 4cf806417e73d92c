"""The squares a lesson is about, framed over a board (the tutorial, issue 23).

A learner reads a step's words and looks for the squares they name: a thick frame on each
(and a faint wash, so a framed empty square still stands out from the home-area tint) says
where to look without covering any piece, name or number inside the square. The squares
come from the lesson (service/data/tutorial.json); the renderer only paints them. The last
answer's events are drawn as after any phase (render/highlights.py), so the learner sees
what their move did.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from PIL import Image

from render import theme as th
from render.board import draw_board
from render.draw import Canvas, composite
from render.layout import BOARD_SQUARE, board_geom

FOCUS = th.HL_NEW  # the yellow of "look here"


def focus_image(view: Mapping[str, Any], seat: int, squares: Iterable[str], *,
                lang: str = "en", highlights: Sequence[Mapping[str, Any]] | None = None
                ) -> Image.Image:
    """One board with `squares` framed; unknown square names are skipped (a picture with a
    frame missing beats a failed lesson)."""
    g = board_geom(BOARD_SQUARE, False)
    im = Image.new("RGB", (g.width, g.height), th.PAPER)
    draw_board(im, 0, 0, view, seat, g, lang, highlights)
    s = g.s
    ov = Canvas(g.width, g.height, (255, 255, 255, 0), mode="RGBA", ss=2)
    for q in sorted({str(q).upper() for q in squares}):
        b = g.box_of(q)
        if b is None:
            continue
        w = s * 0.07  # on the square's edge, mostly outside it: the piece's stats are
        out = w * 0.75  # drawn down to its bottom edge, and a frame inside would cover them
        ov.rect((b[0] + 2, b[1] + 2, b[2] - 2, b[3] - 2), fill=(*FOCUS, 40))
        ov.rect((b[0] - out, b[1] - out, b[2] + out, b[3] + out), outline=(*FOCUS, 255),
                width=w, radius=s * 0.07)
    composite(im, ov, 0, 0)
    return im
