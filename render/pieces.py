"""Card sprites: units and monsters as they sit on a square, and small monster chips.

A sprite depends only on its arguments (card, damage, acted, owner, background, size,
style, language), so each is drawn once and cached; a board is then a handful of pastes.
Two styles: the full sprite for a single board (name, HP, MOV/DEF/ATK readable at a phone's
preview width) and the tile for the 3–4 player table, a wide, short square where only a big
name, the threat shape, HP pips and the acted token are drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, wraps
from typing import Any, NamedTuple

from PIL import Image

from engine.cards import MonsterCard, UnitCard, local_name
from render import boxes
from render import theme as th
from render.draw import Canvas, check_mark, fit_condensed, hp_pips, pips_width, text_w, threat_badge
from render.layout import MIN_TEXT

RGB = th.RGB


class Sprite(NamedTuple):
    """A drawn piece and where its names/numbers (ink) and badges (labels) are, in its own
    coordinates: the highlight layer keeps its tags off the ink (render/boxes.py)."""

    image: Image.Image
    marks: tuple[boxes.Mark, ...]


def _sprite(fn: Callable[..., Image.Image]) -> Callable[..., Sprite]:
    """Cache a piece drawing together with the marks it made while drawn."""
    @wraps(fn)
    def draw(*args: Any) -> Sprite:
        with boxes.capture() as marks:
            im = fn(*args)
        return Sprite(im, tuple(marks))
    return lru_cache(maxsize=1024)(draw)


def card_name(card: UnitCard | MonsterCard | None, key: str, lang: str) -> str:
    """Display name; a card the set does not know shows its key."""
    if card is None:
        return key
    return local_name(card.names, lang)


def _card_box(size: int) -> tuple[float, float, float, float]:
    i = max(2.0, size * 0.03)
    return i, i, size - i, size - i


@_sprite
def unit_sprite(uc: UnitCard | None, key: str, dmg: int, acted: bool, owner: int | None,
                bg: RGB, size: int, lang: str) -> Image.Image:
    """A unit card: owner band, name, HP pips, MOV, level-up badge, acted marker (R8).

    Every word and number is at least `MIN_TEXT` (readable at phone width, issue 20): a
    levelled card's "Lv2" sits at the end of the pip row (the name keeps the whole width),
    the acted check token at the end of the MOV row.

    Takes the card itself (a frozen, hashable dataclass), so the cache key covers its stats
    and a game with a custom card set never reuses a default-set sprite.
    """
    hp = uc.hp if uc else 0
    c = Canvas(size, size, bg)
    x0, y0, x1, y1 = _card_box(size)
    w = x1 - x0
    c.rect((x0, y0, x1, y1), fill=th.UNIT_ACTED if acted else th.UNIT_CARD, outline=th.INK,
           width=max(1, size * 0.015), radius=size * 0.08)
    band = size * 0.1
    c.rect((x0, y0, x1, y0 + band), fill=th.seat_color(owner), radius=size * 0.08)
    c.rect((x0, y0 + band * 0.5, x1, y0 + band), fill=th.seat_color(owner))
    name = card_name(uc, key, lang)
    t, sz, sx = fit_condensed(name, w - size * 0.06, max(MIN_TEXT, size * 0.21), MIN_TEXT,
                              bold=True, tight=True, condense=0.62)
    c.text((x0 + w / 2, y0 + band + size * 0.13), t, sz, th.INK, bold=True, align="m", sx=sx)
    pip, pip_y, bottom_y = size * 0.12, y0 + size * 0.46, y1 - size * 0.16
    room = w - size * 0.1
    if uc and uc.levelled:
        room -= _level_badge(c, x1 - size * 0.04, pip_y) + size * 0.04
        pw = pips_width(hp, pip, room)
        px = x0 + size * 0.05
    else:
        pw = pips_width(hp, pip, room)
        px = x0 + (w - pw) / 2
    hp_pips(c, px, pip_y, room, hp, dmg, pip, th.PIP_UNIT, th.CUBE)
    r = size * 0.13
    cx, cy = x1 - r - size * 0.04, y1 - r - size * 0.04
    if uc:
        num = str(uc.mov)
        nsz = max(MIN_TEXT, size * 0.21)
        nw = text_w(num, nsz, bold=True)
        left = x0 + size * 0.06
        room_lab = (cx - r - size * 0.04 if acted else x1 - size * 0.06) - left - nw - 3
        lab, lsz, lsx = fit_condensed(th.word("mov", lang), room_lab, MIN_TEXT, MIN_TEXT,
                                      condense=0.7)
        lw = c.text((left, bottom_y), lab, lsz, th.INK_SOFT, sx=lsx)
        c.text((left + lw + 3, bottom_y), num, nsz, th.INK, bold=True)
    if acted:
        c.ellipse((cx - r, cy - r, cx + r, cy + r), fill=th.INK, outline=th.WHITE,
                  width=size * 0.015)
        check_mark(c, cx, cy, r * 0.9, th.WHITE, max(1.5, size * 0.035))
        boxes.add((cx - r, cy - r, cx + r, cy + r))  # the acted token is read: ink (R8.3)
    return c.image()


def _level_badge(c: Canvas, right: float, cy: float) -> float:
    """A gold "Lv2" tab on a levelled-up unit (R12.2), right of its HP pips, clear of the
    name and MOV; returns its width."""
    tw = text_w("Lv2", MIN_TEXT, bold=True)
    h, w = MIN_TEXT * 1.2, tw + 6
    box = (right - w, cy - h / 2, right, cy + h / 2)
    c.rect(box, fill=th.LEVEL, outline=th.INK, width=1, radius=h * 0.3)
    with boxes.labelling():
        c.text((right - w / 2, cy), "Lv2", MIN_TEXT, th.INK, bold=True, align="m")
    boxes.add(box, "label")
    return w


@_sprite
def monster_sprite(mc: MonsterCard | None, key: str, dmg: int, bg: RGB, size: int,
                   lang: str) -> Image.Image:
    """A monster card: name, threat (colour + shape) and HP pips, DEF / MOV / ATK (R9),
    every word and number at least `MIN_TEXT` (issue 20)."""
    red = bool(mc and mc.red)
    c = Canvas(size, size, bg)
    x0, y0, x1, y1 = _card_box(size)
    w = x1 - x0
    body = th.MONSTER_RED if red else th.MONSTER_BLUE
    c.rect((x0, y0, x1, y1), fill=body, outline=th.INK, width=max(1, size * 0.015),
           radius=size * 0.08)
    if red:  # a boss: a second, inner frame as well as the diamond
        i = size * 0.045
        c.rect((x0 + i, y0 + i, x1 - i, y1 - i), outline=th.THREAT_RED, width=size * 0.02,
               radius=size * 0.06)
    name = card_name(mc, key, lang)
    t, sz, sx = fit_condensed(name, w - size * 0.08, max(MIN_TEXT, size * 0.2), MIN_TEXT,
                              bold=True, tight=True, condense=0.62)
    c.text((x0 + w / 2, y0 + size * 0.15), t, sz, th.WHITE, bold=True, align="m", sx=sx)
    if mc is None:
        return c.image()
    # the threat (it counts toward winning, R14.2) leads the HP row
    r, row = size * 0.12, y0 + size * 0.4
    rr = r * 1.22 if red else r
    left = x0 + size * 0.04
    threat_badge(c, left + rr, row, r, mc.threat, red, font=MIN_TEXT)
    left += 2 * rr + size * 0.04
    room = x1 - size * 0.04 - left
    pip = size * 0.13
    pw = pips_width(mc.hp, pip, room, pip * 0.7)
    hp_pips(c, left + (room - pw) / 2, row, room, mc.hp, dmg, pip, th.PIP_MONSTER, th.CUBE,
            ring=th.INK, min_d=pip * 0.7)
    # bottom row: DEF / MOV / ATK, each word over its number
    col = w / 3
    for i in (1, 2):
        xx = x0 + col * i
        c.line([(xx, y1 - size * 0.4), (xx, y1 - size * 0.05)], (90, 104, 130), 1)
    stats = (("def", mc.defense), ("mov", mc.mov), ("atk", mc.atk))
    for i, (k, v) in enumerate(stats):
        cx = x0 + col * (i + 0.5)
        t, sz, sx = fit_condensed(th.word(k + "_short", lang), col - 4, MIN_TEXT, MIN_TEXT,
                                  condense=0.62)
        c.text((cx, y1 - size * 0.29), t, sz, (200, 208, 224), align="m", sx=sx)
        t, sz, sx = fit_condensed(str(v), col - 3, max(MIN_TEXT, size * 0.23), MIN_TEXT,
                                  bold=True, condense=0.7)
        c.text((cx, y1 - size * 0.1), t, sz, th.WHITE, bold=True, align="m", sx=sx)
    return c.image()


def _tile_name(c: Canvas, name: str, x0: float, x1: float, cy: float, h: float,
               fill: RGB) -> None:
    """A tile's name: as tall as the row allows, squeezed before it is shrunk or cut."""
    t, sz, sx = fit_condensed(name, x1 - x0, max(MIN_TEXT, h * 0.36), MIN_TEXT, bold=True,
                              tight=True, condense=0.62)
    c.text(((x0 + x1) / 2, cy), t, sz, fill, bold=True, align="m", sx=sx)


@_sprite
def unit_tile(uc: UnitCard | None, key: str, dmg: int, acted: bool, owner: int | None,
              bg: RGB, w: int, h: int, lang: str) -> Image.Image:
    """A unit in the table style (a wide, short square): only what reads at a glance.

    Owner band, a big name, then HP pips and the acted token on one row; a levelled-up
    card gets a gold corner. MOV and the rest are on the single-board image.
    """
    hp = uc.hp if uc else 0
    c = Canvas(w, h, bg)
    i = max(2.0, h * 0.035)
    x0, y0, x1, y1 = i, i, w - i, h - i
    rad = h * 0.1
    c.rect((x0, y0, x1, y1), fill=th.UNIT_ACTED if acted else th.UNIT_CARD, outline=th.INK,
           width=1, radius=rad)
    band = max(4.0, h * 0.09)
    c.rect((x0, y0, x1, y0 + band), fill=th.seat_color(owner), radius=rad)
    c.rect((x0, y0 + band * 0.5, x1, y0 + band), fill=th.seat_color(owner))
    if uc and uc.levelled:  # a gold frame: says Lv2 without covering the name or pips
        c.rect((x0, y0, x1, y1), outline=th.LEVEL, width=2.5, radius=rad)
    _tile_name(c, card_name(uc, key, lang), x0 + 3, x1 - 3, y0 + band + h * 0.22, h,
               th.INK)
    row = y1 - h * 0.25
    r = h * 0.19
    right = x1 - 3
    if acted:
        cx = x1 - r - 3
        c.ellipse((cx - r, row - r, cx + r, row + r), fill=th.INK, outline=th.WHITE, width=1)
        check_mark(c, cx, row, r * 0.9, th.WHITE, max(1.5, h * 0.05))
        boxes.add((cx - r, row - r, cx + r, row + r))  # the acted token is read: ink (R8.3)
        right = cx - r - 2
    pip = h * 0.24
    pw = pips_width(hp, pip, right - x0 - 6)
    hp_pips(c, x0 + 5 + max(0.0, (right - x0 - 6 - pw) / 2), row, right - x0 - 6, hp, dmg,
            pip, th.PIP_UNIT, th.CUBE)
    return c.image()


@_sprite
def monster_tile(mc: MonsterCard | None, key: str, dmg: int, bg: RGB, w: int, h: int,
                 lang: str) -> Image.Image:
    """A monster in the table style: colour, a big name, a big threat shape and HP pips.

    DEF / MOV / ATK stay on the single-board image, where they can be read.
    """
    red = bool(mc and mc.red)
    c = Canvas(w, h, bg)
    i = max(2.0, h * 0.035)
    x0, y0, x1, y1 = i, i, w - i, h - i
    c.rect((x0, y0, x1, y1), fill=th.MONSTER_RED if red else th.MONSTER_BLUE, outline=th.INK,
           width=1, radius=h * 0.1)
    if red:  # a boss: a second, inner frame as well as the diamond
        j = h * 0.06
        c.rect((x0 + j, y0 + j, x1 - j, y1 - j), outline=th.THREAT_RED, width=h * 0.03,
               radius=h * 0.08)
    _tile_name(c, card_name(mc, key, lang), x0 + 4, x1 - 4, y0 + h * 0.25, h, th.WHITE)
    if mc is None:
        return c.image()
    row = y1 - h * 0.26
    r = h * 0.21
    cx = x0 + 4 + r * 1.22
    threat_badge(c, cx, row, r, mc.threat, red, font=MIN_TEXT)
    left = cx + r * 1.22 + 3
    avail = x1 - 4 - left
    pip = h * 0.24
    pw = pips_width(mc.hp, pip, avail)
    hp_pips(c, left + max(0.0, (avail - pw) / 2), row, avail, mc.hp, dmg, pip, th.PIP_MONSTER,
            th.CUBE, ring=th.INK)
    return c.image()


@_sprite
def monster_chip(mc: MonsterCard | None, key: str, w: int, h: int, bg: RGB,
                 lang: str) -> Image.Image:
    """A monster token for a waiting queue or the castle: its name, on the colour of its
    kind (a red boss, R9.2); a tall chip (the castle) also shows its threat (R14.2). A
    queue chip is one line: at a readable size (issue 20) the name needs its whole width."""
    red = bool(mc and mc.red)
    c = Canvas(w, h, bg)
    c.rect((1, 1, w - 1, h - 1), fill=th.MONSTER_RED if red else th.MONSTER_BLUE,
           outline=th.THREAT_RED if red else th.INK, width=2 if red else 1, radius=h * 0.2)
    name = card_name(mc, key, lang)
    if h >= w * 0.6 and h >= 3.2 * MIN_TEXT:  # tall chip (castle): shape on top, name below
        r = h * 0.22
        threat_badge(c, w / 2, h * 0.3, r, mc.threat if mc else 0, red,
                     font=max(MIN_TEXT, r * 1.4))
        t, sz, sx = fit_condensed(name, w - 6, max(MIN_TEXT, h * 0.24), MIN_TEXT, bold=True,
                                  tight=True, condense=0.62)
        c.text((w / 2, h * 0.76), t, sz, th.WHITE, bold=True, align="m", sx=sx)
        return c.image()
    t, sz, sx = fit_condensed(name, w - 8, max(MIN_TEXT, min(h * 0.6, w * 0.3)), MIN_TEXT,
                              bold=True, tight=True, condense=0.62)
    c.text((w / 2, h / 2), t, sz, th.WHITE, bold=True, align="m", sx=sx)
    return c.image()
