"""The whole table: every player's board plus the central row.

Arrangement is chosen for a phone preview about 500 px wide: one or two players stack their
boards in one column (full style, nearly square image); three or four players use two
columns of compact boards, so the image stays landscape instead of becoming a tall strip
that Discord would shrink. With three players the free cell carries a legend.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from PIL import Image

from render import theme as th
from render import view as V
from render.board import draw_board
from render.central import draw_central, panel_height
from render.draw import Canvas, check_mark, hp_pips, threat_badge
from render.header import draw_icon
from render.layout import BOARD_SQUARE, TABLE_SQUARE, BoardGeom, board_geom

GAP = 8
BACK: th.RGB = (200, 190, 170)


def table_geom(n: int) -> tuple[BoardGeom, int]:
    """Board geometry and number of board columns for n players."""
    if n <= 2:
        return board_geom(BOARD_SQUARE, False), 1
    return board_geom(TABLE_SQUARE, True), 2


def board_origins(n: int) -> tuple[list[tuple[int, int]], int, int, int]:
    """Top-left corner of each seat's board; then the central panel's y, width, image height."""
    g, cols = table_geom(max(1, n))
    rows = (max(1, n) + cols - 1) // cols
    width = cols * g.width + (cols - 1) * GAP
    origins = [((i % cols) * (g.width + GAP), (i // cols) * (g.height + GAP)) for i in range(n)]
    cy = rows * (g.height + GAP)
    return origins, cy, width, cy + panel_height(width)


def table_image(view: dict[str, Any], *, lang: str = "en",
                highlights: list[dict[str, Any]] | None = None) -> Image.Image:
    n = len(V.players(view))
    g, cols = table_geom(max(1, n))
    origins, cy, width, height = board_origins(n)
    im = Image.new("RGB", (width, height), BACK)
    for seat, (x, y) in enumerate(origins):
        draw_board(im, x, y, view, seat, g, lang, highlights)
    if n == 3:
        x, y = g.width + GAP, g.height + GAP
        im.paste(legend(g.width, g.height, lang), (x, y))
    draw_central(im, 0, cy, width, view, lang)
    return im


@lru_cache(maxsize=8)
def legend(w: int, h: int, lang: str) -> Image.Image:
    """What the shapes mean, for the empty cell of a three-player table."""
    c = Canvas(w, h, th.PAPER)
    rows = [
        ("header", ""),
        ("blue", th.word("threat_blue", lang)),
        ("red", th.word("threat_red", lang)),
        ("hp", "HP / " + ("damage" if lang != "ja" else "ダメージ")),
        ("acted", "acted" if lang != "ja" else "行動済"),
        ("lv", "levelled up" if lang != "ja" else "レベルアップ済"),
    ]
    step = h / (len(rows) + 0.5)
    size = step * 0.42
    for i, (kind, label) in enumerate(rows):
        cy = step * (i + 0.75)
        x = w * 0.08
        if kind == "header":  # the compact header's icons, named
            c.rect((x - 4, cy - step * 0.42, w - x + 4, cy + step * 0.42), fill=th.HEADER,
                   radius=6)
            xx = x + 4
            for icon, word in (("gold", "gold"), ("honor", "honor"), ("threat", "threat"),
                               ("medal", "medals"), ("start", "start")):
                draw_icon(c, icon, xx, cy - step * 0.25, step * 0.5)
                xx += step * 0.58
                xx += c.text((xx, cy), th.word(word, lang), size * 0.8, th.WHITE) + step * 0.3
            continue
        if kind in ("blue", "red"):
            c.rect((x - 4, cy - step * 0.4, x + step * 0.9, cy + step * 0.4), fill=th.HEADER,
                   radius=6)
            threat_badge(c, x + step * 0.43, cy, step * 0.26, 3 if kind == "blue" else 6,
                         kind == "red")
        elif kind == "hp":
            hp_pips(c, x, cy, step * 1.5, 3, 1, step * 0.28, th.PIP_UNIT, th.CUBE)
        elif kind == "acted":
            r = step * 0.3
            c.ellipse((x + step * 0.43 - r, cy - r, x + step * 0.43 + r, cy + r), fill=th.INK)
            check_mark(c, x + step * 0.43, cy, r * 0.9, th.WHITE, step * 0.07)
        else:
            c.rect((x, cy - step * 0.22, x + step * 0.9, cy + step * 0.22), fill=th.LEVEL,
                   outline=th.INK, width=1, radius=4)
            c.text((x + step * 0.45, cy), "Lv2", step * 0.3, th.INK, bold=True, align="m")
        c.text((x + step * 1.4, cy), label, size, th.INK, bold=True)
    return c.image()
