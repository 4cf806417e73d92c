"""One player's board: static layer, header, pieces, queues, castle, elimination.

`draw_board` draws into any image at any origin, so the table reuses it for every seat.
The static layer (grid, square names, magic circles, home tint, castle, queue cells) is
drawn once per (size, style, language) and pasted; pieces are cached sprites.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from PIL import Image

from engine.cards import CardSet
from render import boxes
from render import text as T
from render import theme as th
from render import view as V
from render.draw import Canvas, text_w
from render.header import draw_header
from render.highlights import draw_highlights
from render.layout import MIN_TEXT, BoardGeom
from render.pieces import monster_chip, monster_sprite, monster_tile, unit_sprite, unit_tile


def square_bg(col: int) -> th.RGB:
    """Home area (columns 1–2) tinted; column 6 holds the magic circles (R2)."""
    if col <= 2:
        return th.HOME
    if col == 6:
        return th.MAGIC
    return th.SQUARE


def draw_axis(c: Canvas, g: BoardGeom, y: float, lang: str) -> None:
    """Column numbers 6…1 over the squares, "Queue" and "Castle" over theirs, centred on y."""
    fs = max(MIN_TEXT, g.font(0.2 if not g.compact else 0.22))
    for col in V.COLUMNS:
        x0, _, x1, _ = g.square_box(col, 0)
        c.text(((x0 + x1) / 2, y), str(col), fs, th.INK_SOFT, bold=True, align="m")
    small = MIN_TEXT
    c.text((g.pad + g.queue_w / 2, y), th.word("queue", lang), small, th.INK_SOFT, align="m")
    cb = g.castle_box()
    c.text(((cb[0] + cb[2]) / 2, y), th.word("castle", lang), small, th.INK_SOFT, align="m")


@lru_cache(maxsize=8)
def axis_strip(g: BoardGeom, h: int, lang: str, bg: th.RGB) -> Image.Image:
    """The axis row alone: the table draws it once above boards that have none."""
    c = Canvas(g.width, h, bg)
    with boxes.background():  # cached: its marks would exist in the first image only
        draw_axis(c, g, h / 2, lang)
    return c.image()


@lru_cache(maxsize=16)
def static_layer(g: BoardGeom, lang: str) -> Image.Image:
    """Everything on a board that does not depend on the game state. Background to the
    labels' checks (`boxes.background`): the square names are kept separately
    (`square_names`)."""
    with boxes.background():
        return _static_layer(g, lang)


def _static_layer(g: BoardGeom, lang: str) -> Image.Image:
    c = Canvas(g.width, g.height, th.PAPER)
    s = min(g.s, g.sh)
    c.rect((0, 0, g.width, g.header_h), fill=th.HEADER)
    if g.axis_h:
        draw_axis(c, g, g.header_h + g.axis_h / 2, lang)
    fs = g.font(0.2 if not g.compact else 0.24)
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


@lru_cache(maxsize=8)
def square_names(g: BoardGeom) -> dict[tuple[int, int], tuple[float, float, float, float]]:
    """Where the faint square names (3B, …) of the static layer are, by (column, lane):
    background, not ink, but an arrow through one or a tag cutting one hides where the
    story happened (issue 20)."""
    size = g.font(0.22)
    out = {}
    for lane in range(3):
        for col in V.COLUMNS:
            x0, y0, x1, y1 = g.square_box(col, lane)
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            w = text_w(V.square_name(col, lane), size, bold=True)
            out[col, lane] = (cx - w / 2, cy - size * 0.37, cx + w / 2, cy + size * 0.38)
    return out


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
    y: float  # whole pixels for the merlons, then a brick course
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


def draw_board(im: Image.Image, ox: int, oy: int, view: Mapping[str, Any], seat: int,
               g: BoardGeom, lang: str, highlights: Sequence[Mapping[str, Any]] | None = None) -> None:
    """Draw seat's board into `im` with its top-left corner at (ox, oy).

    Highlights go on before the elimination banner, so the story of how a player was
    eliminated shows without covering the verdict.
    """
    im.paste(static_layer(g, lang), (ox, oy))
    cs = V.cards(view)
    p = V.player(view, seat)
    if not highlights and not boxes.active():  # nobody needs to know where the ink is
        _draw_body(im, ox, oy, view, seat, p, g, lang, cs)
        if p.get("eliminated"):
            _eliminated(im, ox, oy, g, lang)
        return
    with boxes.capture() as marks:  # this board's names and numbers: highlights keep off them
        _draw_body(im, ox, oy, view, seat, p, g, lang, cs)
    boxes.extend(marks, 0, 0)
    board = V.board(p)
    names = [(ox + b[0], oy + b[1], ox + b[2], oy + b[3])  # a piece hides its square's name
             for (col, lane), b in square_names(g).items()
             if not (0 <= (col - 1) * 3 + lane < len(board) and board[(col - 1) * 3 + lane])]
    for b in names:
        boxes.add(b, "square")
    if highlights:
        ink = [b for k, b in marks if k == "ink"]
        ink += [b for k, b in marks if k == "label"]  # badges: a tag must not hide them either
        if p.get("eliminated"):
            ink.append(_banner_box(ox, oy, g))
        draw_highlights(im, ox, oy, g, view, seat, highlights, lang, ink, names)
    if p.get("eliminated"):
        _eliminated(im, ox, oy, g, lang)


def _draw_body(im: Image.Image, ox: int, oy: int, view: Mapping[str, Any], seat: int,
               p: dict[str, Any], g: BoardGeom, lang: str, cs: CardSet) -> None:
    """Header, pieces, queues and castle (everything a player reads on a board)."""
    draw_header(im, ox, oy, view, seat, p, g, lang, cs)
    for lane in range(3):  # the lane letters of the static layer
        _, y0, _, y1 = g.square_box(1, lane)
        cx, cy, r = ox + g.grid_x - g.lane_w / 2 - 1, oy + (y0 + y1) / 2, g.lane_w * 0.35
        boxes.add((cx - r, cy - r, cx + r, cy + r))
    for i, piece in enumerate(V.board(p)):
        if piece is None:
            continue
        col, lane = i // 3 + 1, i % 3
        box = g.square_box(col, lane)
        w, h = box[2] - box[0], box[3] - box[1]
        key = V.card_key(piece)
        dmg = V.as_int(piece.get("dmg"))
        if V.is_monster(piece, cs):
            mc = cs.monsters.get(key)
            spr = (monster_tile(mc, key, dmg, square_bg(col), w, h, lang) if g.compact else
                   monster_sprite(mc, key, dmg, square_bg(col), w, lang))
        else:
            uc = cs.units.get(key)
            owner = piece.get("owner", seat)
            owner = owner if isinstance(owner, int) else None
            acted = bool(piece.get("acted"))
            spr = (unit_tile(uc, key, dmg, acted, owner, square_bg(col), w, h, lang)
                   if g.compact else
                   unit_sprite(uc, key, dmg, acted, owner, square_bg(col), w, lang))
        im.paste(spr.image, (ox + box[0], oy + box[1]))
        boxes.extend(spr.marks, ox + box[0], oy + box[1])
    _queues(im, ox, oy, p, g, lang, cs)
    _castle_cards(im, ox, oy, p, g, lang, cs)


def chip_size(g: BoardGeom) -> tuple[int, int]:
    """A queue chip: as tall as a readable name needs (issue 20); the queue cell shows what
    fits and counts the rest ("+n")."""
    if g.compact:
        return g.queue_w - 6, round(MIN_TEXT * 1.5)
    return g.queue_w - 6, round(g.s * 0.33)


def _queues(im: Image.Image, ox: int, oy: int, p: dict[str, Any], g: BoardGeom,
            lang: str, cs: CardSet) -> None:
    """Waiting queues, oldest on top: the next to be summoned (R10.4)."""
    cw, ch = chip_size(g)
    for lane, keys in enumerate(V.queues(p).values()):
        x0, y0, _, y1 = g.queue_box(lane)
        slots = max(1, (y1 - y0 - 4) // (ch + 2))
        if len(keys) > slots:  # room for the count line under the chips
            slots = max(1, (y1 - y0 - 4 - round(MIN_TEXT)) // (ch + 2))
        shown = keys[:slots]
        for i, key in enumerate(shown):
            chip = monster_chip(cs.monsters.get(key), key, cw, ch, th.QUEUE_BG, lang)
            at = (ox + x0 + 3, oy + y0 + 3 + i * (ch + 2))
            im.paste(chip.image, at)
            boxes.add((at[0], at[1], at[0] + cw, at[1] + ch))  # a chip is its name
        if len(shown) < len(keys):
            # the rest as a count; a hidden red boss still shows as a red diamond (R9.2)
            hidden = keys[len(shown):]
            boss = any(k in cs.monsters and cs.monsters[k].red for k in hidden)
            y = oy + y0 + 3 + len(shown) * (ch + 2) + MIN_TEXT / 2
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
    shown = keys[:4]
    cw = x1 - x0 - 4
    ch = min(round(g.s * 0.62), (y1 - y0 - 4) // len(shown) - 3)
    top = (y0 + y1) / 2 - (len(shown) * (ch + 3)) / 2
    for i, key in enumerate(shown):
        chip = monster_chip(cs.monsters.get(key), key, cw, ch, th.CASTLE, lang)
        at = (ox + x0 + 2, oy + round(top) + i * (ch + 3))
        im.paste(chip.image, at)
        boxes.add((at[0], at[1], at[0] + cw, at[1] + ch))


def _banner_box(ox: int, oy: int, g: BoardGeom) -> tuple[int, int, int, int]:
    """The red "eliminated" banner across a board (R9.3)."""
    h = round(min(g.s, g.sh) * 0.6)
    my = oy + (g.grid_y + g.grid_y + 3 * g.sh) // 2
    return ox + g.pad, my - h // 2, ox + g.width - g.pad, my + h // 2


def _eliminated(im: Image.Image, ox: int, oy: int, g: BoardGeom, lang: str) -> None:
    """Grey out the board and lay a red banner across it (R9.3)."""
    x0, y0, x1, y1 = g.pad, g.grid_y, g.width - g.pad, g.grid_y + 3 * g.sh
    box = (ox + x0, oy + y0, ox + x1, oy + y1)
    region = im.crop(box)
    grey = Image.new("RGB", region.size, (200, 200, 200))
    im.paste(Image.blend(region, grey, 0.6), box[:2])
    h = round(min(g.s, g.sh) * 0.6)
    my = oy + (y0 + y1) // 2
    im.paste(th.ELIMINATED, (ox + x0, my - h // 2, ox + x1, my + h // 2))
    T.draw(im, (ox + (x0 + x1) / 2, my), th.word("eliminated", lang), round(h * 0.66),
           th.WHITE, weight=T.BOLD, align="m")
