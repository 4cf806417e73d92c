"""A unit's reach: where it can move and what its skill covers, over its board.

The engine computes both square lists (movement rules R8.1 and skill ranges R8.2 are rules,
and the renderer draws no rules); this module only paints them, with a legend strip so the
picture explains itself in a help command.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PIL import Image

from render import theme as th
from render import view as V
from render.board import draw_board
from render.draw import Canvas, composite
from render.layout import BOARD_SQUARE, board_geom

MOVE_TINT = 140  # alpha of the move squares' green


def reach_image(view: Mapping[str, Any], seat: int, square: str, move: list[str],
                skill: list[str], *, lang: str = "en") -> Image.Image:
    g = board_geom(BOARD_SQUARE, False)
    legend_h = round(g.s * 0.5)
    im = Image.new("RGB", (g.width, g.height + legend_h), th.PAPER)
    draw_board(im, 0, 0, view, seat, g, lang)
    s = g.s
    ov = Canvas(g.width, g.height, (255, 255, 255, 0), mode="RGBA", ss=2)
    moves = {str(q).upper() for q in move or [] if g.box_of(q)}
    skills = {str(q).upper() for q in skill or [] if g.box_of(q)}
    for q in sorted(moves):
        b = g.box_of(q)
        assert b is not None
        # the tint alone says "can move here" at a glance: at 95 it was 8 from the square
        # for protan and deutan eyes (tests/test_render_colour_vision.py)
        ov.rect(b, fill=(*th.HL_MOVE, MOVE_TINT), outline=(*th.HL_MOVE, 255), width=s * 0.05,
                radius=s * 0.06)
    for q in sorted(skills):
        b = g.box_of(q)
        assert b is not None
        ov.rect(b, fill=(*th.HL_SKILL, 60), outline=(*th.HL_SKILL, 255), width=s * 0.04,
                radius=s * 0.06)
        _target(ov, (b[0] + b[2]) / 2, (b[1] + b[3]) / 2 + s * 0.04, s * 0.22)
    own = g.box_of(square)
    if own:
        ov.rect((own[0] - 2, own[1] - 2, own[2] + 2, own[3] + 2), outline=(*th.HL_PATH, 255),
                width=s * 0.07, radius=s * 0.08)
    composite(im, ov, 0, 0)
    _legend(im, g.height, legend_h, view, seat, square, lang)
    return im


def _target(c: Canvas, cx: float, cy: float, r: float) -> None:
    """A crosshair ring: the skill marker, distinct from the move fill by shape as well."""
    col = (*th.HL_SKILL, 230)
    c.ellipse((cx - r, cy - r, cx + r, cy + r), outline=col, width=r * 0.14)
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        c.line([(cx + dx * r * 0.6, cy + dy * r * 0.6), (cx + dx * r * 1.25, cy + dy * r * 1.25)],
               col, r * 0.12)


def _legend(im: Image.Image, y: int, h: int, view: Mapping[str, Any], seat: int, square: str,
            lang: str) -> None:
    s = h * 2
    c = Canvas(im.width, h, th.PAPER)
    cy = h / 2
    piece = None
    p = V.parse_square(square)
    if p:
        piece = V.board(V.player(view, seat))[(p[0] - 1) * 3 + p[1]]
    x = s * 0.1
    if piece:
        name = V.cards(view).name(V.card_key(piece), lang)
        x += c.text((x, cy), f"{name} {str(square).upper()}", h * 0.42, th.INK, bold=True)
        x += s * 0.25
    for color, label, ring in ((th.HL_MOVE, th.word("move", lang), False),
                               (th.HL_SKILL, th.word("skill", lang), True)):
        box = (x, cy - h * 0.3, x + h * 0.6, cy + h * 0.3)
        c.rect(box, fill=color if not ring else th.PAPER, outline=color, width=h * 0.07,
               radius=4)
        if ring:
            _target(c, x + h * 0.3, cy, h * 0.17)
        x += h * 0.75
        x += c.text((x, cy), label, h * 0.4, th.INK, bold=True) + s * 0.25
    im.paste(c.image(), (0, y))
