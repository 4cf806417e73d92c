"""The whole table: every player's board plus the central row.

Arrangement is chosen for a phone preview about 500 px wide: every player count stacks its
boards in one column at a single board's width (769 px), so a square keeps the width it has
on the single-board image (~60 px in the preview). One or two players get full boards;
three or four get table-style boards: squares shorter than wide, one shared axis strip on
top, and pieces drawn with only what reads at a glance (big names, threat shapes, HP pips,
acted token). The image is then portrait (4 players: 769×1119) instead of a landscape grid
of boards at a third of that scale, whose names and pips blurred at preview size.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PIL import Image

from render import theme as th
from render import view as V
from render.board import axis_strip, draw_board
from render.central import draw_central, panel_height
from render.layout import BOARD_SQUARE, TABLE_SQUARE, BoardGeom, board_geom

GAP = 6
AXIS_H = 24
BACK: th.RGB = (200, 190, 170)


def table_geom(n: int) -> BoardGeom:
    """Board geometry for n players: full boards for 1–2, table-style boards for 3–4."""
    return board_geom(BOARD_SQUARE, False) if n <= 2 else board_geom(TABLE_SQUARE, True)


def board_origins(n: int) -> tuple[list[tuple[int, int]], int, int, int]:
    """Top-left corner of each seat's board; then the central panel's y, width, image height.

    Boards stack in one column; table-style boards have no axis row of their own, so one
    shared strip of column numbers heads the column.
    """
    g = table_geom(max(1, n))
    top = AXIS_H if g.compact else 0
    width = g.width
    origins = [(0, top + i * (g.height + GAP)) for i in range(n)]
    cy = top + max(1, n) * (g.height + GAP)
    return origins, cy, width, cy + panel_height(width)


def table_image(view: Mapping[str, Any], *, lang: str = "en",
                highlights: Sequence[Mapping[str, Any]] | None = None) -> Image.Image:
    n = len(V.players(view))
    g = table_geom(max(1, n))
    origins, cy, width, height = board_origins(n)
    im = Image.new("RGB", (width, height), BACK)
    if g.compact:
        im.paste(axis_strip(g, AXIS_H, lang, BACK), (0, 0))
    for seat, (x, y) in enumerate(origins):
        draw_board(im, x, y, view, seat, g, lang, highlights)
    draw_central(im, 0, cy, width, view, lang)
    return im
