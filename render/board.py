"""One player's board: static layer, header, pieces, queues, castle, elimination.

`draw_board` draws into any image at any origin, so the table reuses it for every seat.
The static layer (grid, square names, magic circles, home tint, castle, queue cells) is
drawn once per (size, style, language) and pasted; pieces are cached sprites.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from PIL import Image

from engine.cards import CardSet
from render import text as T
from render import theme as th
from render import view as V
from render.draw import Canvas
from render.highlights import draw_highlights
from render.layout import BoardGeom
from render.pieces import monster_chip, monster_sprite, unit_sprite


def square_bg(col: int) -> th.RGB:
    """Home area (columns 1–2) tinted; column 6 holds the magic circles (R2)."""
    if col <= 2:
        return th.HOME
    if col == 6:
        return th.MAGIC
    return th.SQUARE


@lru_cache(maxsize=16)
def static_layer(g: BoardGeom, lang: str) -> Image.Image:
    """Everything on a board that does not depend on the game state."""
    c = Canvas(g.width, g.height, th.PAPER)
    s = g.s
    c.rect((0, 0, g.width, g.header_h), fill=th.HEADER)
    ax = g.header_h + g.axis_h / 2
    fs = g.font(0.2 if not g.compact else 0.24)
    for col in V.COLUMNS:
        x0, _, x1, _ = g.square_box(col, 0)
        c.text(((x0 + x1) / 2, ax), str(col), fs, th.INK_SOFT, bold=True, align="m")
    q_mid = g.pad + g.queue_w / 2
    c.text((q_mid, ax), th.word("queue", lang), g.font(0.16), th.INK_SOFT, align="m")
    cb = g.castle_box()
    c.text(((cb[0] + cb[2]) / 2, ax), th.word("castle", lang), g.font(0.16), th.INK_SOFT,
           align="m")
    gx0, gy0, gx1, gy1 = g.grid_box()
    c.rect((gx0 - 1, gy0 - 1, gx1 + 1, gy1 + 1), fill=th.GRID_LINE)
    for lane in range(3):
        qb = g.queue_box(lane)
        c.rect(qb, fill=th.QUEUE_BG, outline=th.GRID_LINE, width=1, radius=s * 0.06)
        _, y0, _, y1 = g.square_box(1, lane)
        c.text((g.grid_x - g.lane_w / 2 - 1, (y0 + y1) / 2), V.LANES[lane], fs, th.INK_SOFT,
               bold=True, align="m")
        for col in V.COLUMNS:
            box = g.square_box(col, lane)
            c.rect(box, fill=square_bg(col))
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            if col == 6:
                _magic_circle(c, cx, cy, s * 0.4)
            c.text((cx, cy), V.square_name(col, lane), g.font(0.22), (150, 140, 122), bold=True,
                   align="m")
    _castle(c, g)
    return c.image()


def _magic_circle(c: Canvas, cx: float, cy: float, r: float) -> None:
    for rr, w in ((r, r * 0.06), (r * 0.78, r * 0.04)):
        c.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), outline=th.MAGIC_RING, width=w)
    pts = [(cx + r * 0.78 * math.sin(math.radians(a)), cy - r * 0.78 * math.cos(math.radians(a)))
           for a in range(0, 720, 144)]
    c.line(pts, th.MAGIC_RING, r * 0.03)


def _castle(c: Canvas, g: BoardGeom) -> None:
    """A stone wall facing the board, with a gate: where invaders end up (R9.2)."""
    x0, y0, x1, y1 = g.castle_box()
    merlon = (x1 - x0) * 0.2
    c.rect((x0 + merlon, y0, x1, y1), fill=th.CASTLE)
    for i, y in enumerate(range(int(y0), int(y1), int(g.s * 0.22))):  # merlons on the left
        if i % 2 == 0:
            c.rect((x0, y, x0 + merlon + 1, min(y1, y + g.s * 0.22)), fill=th.CASTLE)
    brick = g.s * 0.16
    y = y0 + brick
    while y < y1:
        c.line([(x0 + merlon, y), (x1, y)], th.CASTLE_DARK, 1)
        y += brick
    mid = (y0 + y1) / 2
    gw = (x1 - x0 - merlon) * 0.55
    gx = x0 + merlon + (x1 - x0 - merlon - gw) / 2
    c.rect((gx, mid - gw * 0.6, gx + gw, mid + gw * 0.8), fill=th.CASTLE_DARK,
           radius=gw * 0.45)


def draw_board(im: Image.Image, ox: int, oy: int, view: dict[str, Any], seat: int,
               g: BoardGeom, lang: str, highlights: list[dict[str, Any]] | None = None) -> None:
    """Draw seat's board into `im` with its top-left corner at (ox, oy).

    Highlights go on before the elimination banner, so the story of how a player was
    eliminated shows without covering the verdict.
    """
    im.paste(static_layer(g, lang), (ox, oy))
    cs = V.cards(view)
    p = V.player(view, seat)
    _header(im, ox, oy, view, seat, p, g, lang, cs)
    for i, piece in enumerate(V.board(p)):
        if piece is None:
            continue
        col, lane = i // 3 + 1, i % 3
        box = g.square_box(col, lane)
        sz = box[2] - box[0]
        key = V.card_key(piece)
        if V.is_monster(piece, cs):
            spr = monster_sprite(cs.monsters.get(key), key, V.as_int(piece.get("dmg")),
                                 square_bg(col), sz, g.compact, lang)
        else:
            owner = piece.get("owner", seat)
            spr = unit_sprite(cs.units.get(key), key, V.as_int(piece.get("dmg")),
                              bool(piece.get("acted")), owner if isinstance(owner, int) else None,
                              square_bg(col), sz, g.compact, lang)
        im.paste(spr, (ox + box[0], oy + box[1]))
    _queues(im, ox, oy, p, g, lang, cs)
    _castle_cards(im, ox, oy, p, g, lang, cs)
    if highlights:
        draw_highlights(im, ox, oy, g, view, seat, highlights, lang)
    if p.get("eliminated"):
        _eliminated(im, ox, oy, g, lang)


def chip_size(g: BoardGeom) -> tuple[int, int]:
    return g.queue_w - 6, round(g.s * (0.28 if not g.compact else 0.3))


def _queues(im: Image.Image, ox: int, oy: int, p: dict[str, Any], g: BoardGeom,
            lang: str, cs: CardSet) -> None:
    """Waiting queues, oldest on top: the next to be summoned (R10.4)."""
    cw, ch = chip_size(g)
    for lane, keys in enumerate(V.queues(p).values()):
        x0, y0, _, y1 = g.queue_box(lane)
        slots = max(1, (y1 - y0 - 4) // (ch + 2))
        shown = keys if len(keys) <= slots else keys[: slots - 1]
        for i, key in enumerate(shown):
            im.paste(monster_chip(cs.monsters.get(key), key, cw, ch, th.QUEUE_BG, lang),
                     (ox + x0 + 3, oy + y0 + 3 + i * (ch + 2)))
        if len(shown) < len(keys):
            T.draw(im, (ox + x0 + g.queue_w / 2, oy + y0 + 3 + len(shown) * (ch + 2) + ch / 2),
                   f"+{len(keys) - len(shown)}", g.font(0.2), th.INK, weight=T.BOLD, align="m")


def _castle_cards(im: Image.Image, ox: int, oy: int, p: dict[str, Any], g: BoardGeom,
                  lang: str, cs: CardSet) -> None:
    """Invaded monsters stand in the castle and still count as threat (R9.2, R14.2)."""
    keys = V.castle(p)
    if not keys:
        return
    x0, y0, x1, y1 = g.castle_box()
    cw, ch = x1 - x0 - 4, round(g.s * 0.62)
    top = (y0 + y1) / 2 - (len(keys) * (ch + 3)) / 2
    for i, key in enumerate(keys[:4]):
        im.paste(monster_chip(cs.monsters.get(key), key, cw, ch, th.CASTLE, lang),
                 (ox + x0 + 2, oy + round(top) + i * (ch + 3)))


def _eliminated(im: Image.Image, ox: int, oy: int, g: BoardGeom, lang: str) -> None:
    """Grey out the board and lay a red banner across it (R9.3)."""
    x0, y0, x1, y1 = g.pad, g.grid_y, g.width - g.pad, g.grid_y + 3 * g.s
    box = (ox + x0, oy + y0, ox + x1, oy + y1)
    region = im.crop(box)
    grey = Image.new("RGB", region.size, (200, 200, 200))
    im.paste(Image.blend(region, grey, 0.6), box[:2])
    h = round(g.s * 0.6)
    my = oy + (y0 + y1) // 2
    im.paste(th.ELIMINATED, (ox + x0, my - h // 2, ox + x1, my + h // 2))
    T.draw(im, (ox + (x0 + x1) / 2, my), th.word("eliminated", lang), g.font(0.4),
           th.WHITE, weight=T.BOLD, align="m")


# --- header -----------------------------------------------------------------------------


@lru_cache(maxsize=256)
def _icon(kind: str, size: int) -> Image.Image:
    """Header icons on the header colour: coin, honor star, threat triangle, medal, flag."""
    c = Canvas(size, size, th.HEADER)
    r = size / 2
    if kind == "gold":
        c.ellipse((1, 1, size - 1, size - 1), fill=th.GOLD, outline=(150, 110, 0), width=size * 0.08)
        c.ellipse((size * 0.28, size * 0.28, size * 0.72, size * 0.72), outline=(170, 125, 0),
                  width=size * 0.06)
    elif kind == "honor":
        pts = []
        for i in range(10):
            a = math.radians(-90 + i * 36)
            rr = r * (0.95 if i % 2 == 0 else 0.42)
            pts.append((r + rr * math.cos(a), r + 0.06 * size + rr * math.sin(a)))
        c.polygon(pts, fill=(190, 150, 255), outline=th.WHITE, width=size * 0.05)
    elif kind == "threat":
        c.polygon([(r, size * 0.06), (size * 0.97, size * 0.92), (size * 0.03, size * 0.92)],
                  fill=th.THREAT_RED, outline=th.WHITE, width=size * 0.06)
        c.text((r, size * 0.62), "!", size * 0.55, th.WHITE, bold=True, align="m")
    elif kind == "medal":
        c.polygon([(r * 0.55, 0), (r * 0.95, 0), (r * 1.1, r), (r * 0.7, r)], fill=(70, 110, 200))
        c.polygon([(r * 1.45, 0), (r * 1.05, 0), (r * 0.9, r), (r * 1.3, r)], fill=(200, 60, 60))
        c.ellipse((r * 0.45, r * 0.75, r * 1.55, r * 1.85 - 1), fill=(205, 140, 70),
                  outline=th.WHITE, width=size * 0.05)
    elif kind == "start":
        c.line([(size * 0.25, size * 0.05), (size * 0.25, size * 0.95)], th.WHITE, size * 0.09)
        c.polygon([(size * 0.28, size * 0.08), (size * 0.92, size * 0.3), (size * 0.28, size * 0.52)],
                  fill=th.HL_NEW)
    return c.image()


def _header(im: Image.Image, ox: int, oy: int, view: dict[str, Any], seat: int,
            p: dict[str, Any], g: BoardGeom, lang: str, cs: CardSet) -> None:
    """Name, seat colour, start player flag; gold, honor marks, public threat, medal count.

    Medal values are never drawn, not even the viewer's: the image may be posted in public
    (R14.1). Only the count, which everyone sees on the table, appears.
    """
    s, h = g.s, g.header_h
    cy = oy + h / 2
    big = g.font(0.42 if g.compact else 0.3)
    small = g.font(0.17)
    # seat disc with the seat number
    r = round(h * 0.3)
    disc = _seat_disc(seat, 2 * r)
    im.paste(disc, (ox + g.pad, round(cy) - r))
    x = ox + g.pad + 2 * r + round(s * 0.08)
    # stats from the right edge leftwards
    items: list[tuple[str, str, str]] = [
        ("threat", "threat", str(V.threat_public(p, cs))),
        ("honor", "honor", str(V.honor_marks(p))),
        ("gold", "gold", str(V.as_int(p.get("gold")))),
    ]
    if V.medal_count(p):
        items.insert(0, ("medal", "medals", str(V.medal_count(p))))
    right = ox + g.width - g.pad
    icon = round(h * (0.5 if g.compact else 0.42))
    for kind, wkey, num in items:
        nw = T.width(num, big, T.BOLD)
        right -= nw
        T.draw(im, (right, cy), num, big, th.HEADER_INK, weight=T.BOLD)
        right -= round(s * 0.04)
        if not g.compact:
            lab = th.word(wkey, lang)
            right -= T.width(T.clean(lab), small)
            T.draw(im, (right, cy), lab, small, (200, 204, 214))
            right -= round(s * 0.04)
        right -= icon
        im.paste(_icon(kind, icon), (right, round(cy - icon / 2)))
        right -= round(s * (0.12 if g.compact else 0.14))
    if view.get("start_player") == seat and len(V.players(view)) > 1:
        im.paste(_icon("start", icon), (right - icon, round(cy - icon / 2)))
        right -= icon + round(s * 0.08)
    name, size = T.fit(V.name(p, seat), right - x - round(s * 0.05), big, g.font(0.2), T.BOLD)
    T.draw(im, (x, cy), name, size, th.HEADER_INK, weight=T.BOLD)


@lru_cache(maxsize=32)
def _seat_disc(seat: int, size: int) -> Image.Image:
    c = Canvas(size, size, th.HEADER)
    c.ellipse((0.5, 0.5, size - 0.5, size - 0.5), fill=th.seat_color(seat), outline=th.WHITE,
              width=size * 0.06)
    c.text((size / 2, size / 2), str(seat + 1), size * 0.6, th.INK, bold=True, align="m")
    return c.image()
