"""A board's header strip: seat, name, start flag, gold, honor marks, threat, medal count.

Icons are shapes rather than emoji (the font has none, and shapes survive a small preview);
the header names each number too, except a table-style header where the player's name
would get less than 40 % of the width.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from PIL import Image

from engine.cards import CardSet
from render import boxes
from render import text as T
from render import theme as th
from render import view as V
from render.draw import Canvas
from render.layout import MIN_TEXT, BoardGeom


@lru_cache(maxsize=256)
def _icon(kind: str, size: int, bg: th.RGB) -> Image.Image:
    c = Canvas(size, size, bg)
    draw_icon(c, kind, 0, 0, size)
    return c.image()


def draw_icon(c: Canvas, kind: str, x: float, y: float, size: float) -> None:
    """Header icons: coin (gold), star (honor marks), triangle (threat), medal, start flag.

    Shapes, not words, so a number stays identified when its label has to go.
    """
    r = size / 2

    def pt(px: float, py: float) -> tuple[float, float]:
        return x + px, y + py

    if kind == "gold":
        c.ellipse((x + 1, y + 1, x + size - 1, y + size - 1), fill=th.GOLD, outline=(150, 110, 0),
                  width=size * 0.08)
        c.ellipse((x + size * 0.28, y + size * 0.28, x + size * 0.72, y + size * 0.72),
                  outline=(170, 125, 0), width=size * 0.06)
    elif kind == "honor":
        pts = []
        for i in range(10):
            a = math.radians(-90 + i * 36)
            rr = r * (0.95 if i % 2 == 0 else 0.42)
            pts.append(pt(r + rr * math.cos(a), r + 0.06 * size + rr * math.sin(a)))
        c.polygon(pts, fill=(190, 150, 255), outline=th.WHITE, width=size * 0.05)
    elif kind == "threat":
        c.polygon([pt(r, size * 0.06), pt(size * 0.97, size * 0.92), pt(size * 0.03, size * 0.92)],
                  fill=th.THREAT_RED, outline=th.WHITE, width=size * 0.06)
        # the "!" drawn as shapes: it is part of the icon, not a word to read
        c.rect((x + r - size * 0.05, y + size * 0.38, x + r + size * 0.05, y + size * 0.68),
               fill=th.WHITE)
        c.ellipse((x + r - size * 0.055, y + size * 0.74, x + r + size * 0.055,
                   y + size * 0.85), fill=th.WHITE)
    elif kind == "medal":
        c.polygon([pt(r * 0.55, 0), pt(r * 0.95, 0), pt(r * 1.1, r), pt(r * 0.7, r)],
                  fill=(70, 110, 200))
        c.polygon([pt(r * 1.45, 0), pt(r * 1.05, 0), pt(r * 0.9, r), pt(r * 1.3, r)],
                  fill=(200, 60, 60))
        c.ellipse((x + r * 0.45, y + r * 0.75, x + r * 1.55, y + r * 1.85 - 1),
                  fill=(205, 140, 70), outline=th.WHITE, width=size * 0.05)
    elif kind == "start":
        c.line([pt(size * 0.25, size * 0.05), pt(size * 0.25, size * 0.95)], th.WHITE,
               size * 0.09)
        c.polygon([pt(size * 0.28, size * 0.08), pt(size * 0.92, size * 0.3),
                   pt(size * 0.28, size * 0.52)], fill=th.HL_NEW)


def draw_header(im: Image.Image, ox: int, oy: int, view: Mapping[str, Any], seat: int,
            p: dict[str, Any], g: BoardGeom, lang: str, cs: CardSet) -> None:
    """Name, seat colour, start player flag; gold, honor marks, public threat, medal count.

    Medal values are never drawn, not even the viewer's: the image may be posted in public
    (R14.1). Only the count, which everyone sees on the table, appears. An eliminated
    player's header turns dark red (R9.3), readable even where the board is too small.
    """
    s, h = g.s, g.header_h
    cy = oy + h / 2
    bg = th.HEADER
    if p.get("eliminated"):
        bg = th.HEADER_OUT
        im.paste(bg, (ox, oy, ox + g.width, oy + h))
    big = g.font(0.3) if not g.compact else round(h * 0.6)
    small = math.ceil(MIN_TEXT)  # the words by the numbers, readable at phone width
    # seat disc with the seat number
    r = max(round(h * 0.3) if not g.compact else round(h * 0.36), math.ceil(MIN_TEXT / 1.2))
    disc = _seat_disc(seat, 2 * r, bg)
    im.paste(disc, (ox + g.pad, round(cy) - r))
    boxes.add((ox + g.pad, round(cy) - r, ox + g.pad + 2 * r, round(cy) + r))  # seat number
    x = ox + g.pad + 2 * r + round(s * 0.08)
    # stats from the right edge leftwards
    items: list[tuple[str, str, str]] = [
        ("threat", "threat", str(V.threat_public(p, cs))),
        ("honor", "honor", str(V.honor_marks(p))),
        ("gold", "gold", str(V.as_int(p.get("gold")))),
    ]
    if V.medal_count(p):
        items.insert(0, ("medal", "medals", str(V.medal_count(p))))
    icon = round(h * 0.42) if not g.compact else round(h * 0.56)
    # labels ("Gold 7"); in the table style only while the name keeps 40 % of the header
    labels = not g.compact or _stats_width(items, big, small, icon, s, lang) < (
        g.width - 2 * g.pad) * 0.6
    right = ox + g.width - g.pad
    for kind, wkey, num in items:
        nw = T.width(num, big, T.BOLD)
        right -= nw
        T.draw(im, (right, cy), num, big, th.HEADER_INK, weight=T.BOLD)
        right -= round(s * 0.04)
        if labels:
            lab = th.word(wkey, lang)
            right -= T.width(T.clean(lab), small)
            T.draw(im, (right, cy), lab, small, (200, 204, 214))
            right -= round(s * 0.04)
        right -= icon
        im.paste(_icon(kind, icon, bg), (right, round(cy - icon / 2)))
        right -= round(s * 0.14)
    if view.get("start_player") == seat and len(V.players(view)) > 1:
        im.paste(_icon("start", icon, bg), (right - icon, round(cy - icon / 2)))
        right -= icon + round(s * 0.08)
    name, size = T.fit(V.name(p, seat), right - x - round(s * 0.05), big,
                       max(g.font(0.2), math.ceil(MIN_TEXT)), T.BOLD)
    T.draw(im, (x, cy), name, size, th.HEADER_INK, weight=T.BOLD)


def _stats_width(items: list[tuple[str, str, str]], big: int, small: int, icon: int, s: int,
                 lang: str) -> int:
    """Width of the labelled stats, as the loop in `draw_header` lays them out."""
    w = 0
    for _kind, wkey, num in items:
        w += T.width(num, big, T.BOLD) + icon + round(s * 0.04) + round(s * 0.14)
        w += T.width(T.clean(th.word(wkey, lang)), small) + round(s * 0.04)
    return w


@lru_cache(maxsize=32)
def _seat_disc(seat: int, size: int, bg: th.RGB) -> Image.Image:
    c = Canvas(size, size, bg)
    c.ellipse((0.5, 0.5, size - 0.5, size - 0.5), fill=th.seat_color(seat), outline=th.WHITE,
              width=size * 0.06)
    c.text((size / 2, size / 2), str(seat + 1), size * 0.6, th.INK, bold=True, align="m")
    return c.image()
