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
from render.header import draw_header
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
    draw_header(im, ox, oy, view, seat, p, g, lang, cs)
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
            # the rest as a count; a hidden red boss still shows as a red diamond (R9.2)
            hidden = keys[len(shown):]
            boss = any(k in cs.monsters and cs.monsters[k].red for k in hidden)
            y = oy + y0 + 3 + len(shown) * (ch + 2) + ch / 2
            label, fs = f"+{len(hidden)}", g.font(0.2)
            lw = T.width(label, fs, T.BOLD) + (T.width("◆", fs, T.BOLD) + 3 if boss else 0)
            x = ox + x0 + (g.queue_w - lw) / 2
            x += T.draw(im, (x, y), label, fs, th.INK, weight=T.BOLD) + 3
            if boss:
                T.draw(im, (x, y), "◆", fs, th.THREAT_RED, weight=T.BOLD)


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
