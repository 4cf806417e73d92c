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

from engine.cards import MonsterCard, UnitCard
from render import boxes
from render import theme as th
from render.draw import Canvas, check_mark, fit_condensed, hp_pips, pips_width, threat_badge

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
    return card.ja if lang == "ja" else card.en


def _card_box(size: int) -> tuple[float, float, float, float]:
    i = max(2.0, size * 0.03)
    return i, i, size - i, size - i


@_sprite
def unit_sprite(uc: UnitCard | None, key: str, dmg: int, acted: bool, owner: int | None,
                bg: RGB, size: int, lang: str) -> Image.Image:
    """A unit card: owner band, name, HP pips, MOV, level-up badge, acted marker (R8).

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
    # a levelled card's "Lv2" badge sits on the band's right end; the name keeps clear of it
    lv = size * 0.3 if uc and uc.levelled else 0.0
    t, sz, sx = fit_condensed(name, w - size * 0.06 - lv, size * 0.2, size * 0.14, bold=True,
                              condense=0.66)
    c.text((x0 + (w - lv) / 2, y0 + band + size * 0.13), t, sz, th.INK, bold=True, align="m",
           sx=sx)
    pip, pip_y, bottom_y = size * 0.12, y0 + size * 0.47, y1 - size * 0.15
    pw = pips_width(hp, pip, w - size * 0.1)
    hp_pips(c, x0 + (w - pw) / 2, pip_y, w - size * 0.1, hp, dmg, pip, th.PIP_UNIT, th.CUBE)
    if uc:
        lab = th.word("mov", lang)
        lw = c.text((x0 + size * 0.06, bottom_y), lab, size * 0.12, th.INK_SOFT)
        c.text((x0 + size * 0.06 + lw + size * 0.03, bottom_y), str(uc.mov), size * 0.19,
               th.INK, bold=True)
    r = size * 0.13
    cx, cy = x1 - r - size * 0.04, y1 - r - size * 0.04
    if uc and uc.levelled:
        _level_badge(c, x1 - size * 0.02, y0 + size * 0.1, size)
    if acted:
        c.ellipse((cx - r, cy - r, cx + r, cy + r), fill=th.INK, outline=th.WHITE,
                  width=size * 0.015)
        check_mark(c, cx, cy, r * 0.9, th.WHITE, max(1.5, size * 0.035))
    return c.image()


def _level_badge(c: Canvas, right: float, cy: float, size: int) -> None:
    """A gold "Lv2" tab on a levelled-up unit (R12.2), top right, clear of name and MOV."""
    h, w = size * 0.19, size * 0.27
    box = (right - w, cy - h / 2, right, cy + h / 2)
    c.rect(box, fill=th.LEVEL, outline=th.INK, width=1, radius=h * 0.3)
    with boxes.labelling():
        c.text((right - w / 2, cy), "Lv2", h * 0.7, th.INK, bold=True, align="m")
    boxes.add(box, "label")


@_sprite
def monster_sprite(mc: MonsterCard | None, key: str, dmg: int, bg: RGB, size: int,
                   lang: str) -> Image.Image:
    """A monster card: name, threat (colour + shape), HP pips, DEF / MOV / ATK (R9)."""
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
    t, sz, sx = fit_condensed(name, w - size * 0.08, size * 0.2, size * 0.14, bold=True,
                              condense=0.66)
    c.text((x0 + w / 2, y0 + size * 0.16), t, sz, th.WHITE, bold=True, align="m", sx=sx)
    if mc is None:
        return c.image()
    pip = size * 0.13
    pw = pips_width(mc.hp, pip, w - size * 0.1)
    hp_pips(c, x0 + (w - pw) / 2, y0 + size * 0.4, w - size * 0.1, mc.hp, dmg, pip,
            th.PIP_MONSTER, th.CUBE, ring=th.INK)
    # bottom row: threat shape, then DEF / MOV / ATK (the threat counts toward winning, R14.2)
    badge_w = w * 0.27
    r = size * 0.12
    threat_badge(c, x0 + badge_w / 2 + size * 0.015, y1 - size * 0.2, r, mc.threat, red)
    col = (w - badge_w) / 3
    for i in (1, 2):
        xx = x0 + badge_w + col * i
        c.line([(xx, y1 - size * 0.38), (xx, y1 - size * 0.05)], (90, 104, 130), 1)
    stats = (("def", mc.defense), ("mov", mc.mov), ("atk", mc.atk))
    for i, (k, v) in enumerate(stats):
        cx = x0 + badge_w + col * (i + 0.5)
        t, sz, sx = fit_condensed(th.word(k + "_short", lang), col - 3, size * 0.12,
                                  size * 0.1, condense=0.75)
        c.text((cx, y1 - size * 0.31), t, sz, (200, 208, 224), align="m", sx=sx)
        t, sz, sx = fit_condensed(str(v), col - 2, size * 0.23, size * 0.17, bold=True,
                                  condense=0.7)
        c.text((cx, y1 - size * 0.13), t, sz, th.WHITE, bold=True, align="m", sx=sx)
    return c.image()


def _tile_name(c: Canvas, name: str, x0: float, x1: float, cy: float, h: float,
               fill: RGB) -> None:
    """A tile's name: as tall as the row allows, squeezed before it is shrunk or cut."""
    t, sz, sx = fit_condensed(name, x1 - x0, h * 0.36, h * 0.28, bold=True, tight=True,
                              condense=0.62)
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
    _tile_name(c, card_name(mc, key, lang), x0 + 4, x1 - 4, y0 + h * 0.27, h, th.WHITE)
    if mc is None:
        return c.image()
    row = y1 - h * 0.25
    r = h * 0.18
    cx = x0 + 4 + r * 1.22
    threat_badge(c, cx, row, r, mc.threat, red)
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
    """A small monster token for a waiting queue or the castle: threat shape + name."""
    red = bool(mc and mc.red)
    c = Canvas(w, h, bg)
    c.rect((1, 1, w - 1, h - 1), fill=th.MONSTER_RED if red else th.MONSTER_BLUE,
           outline=th.INK, width=1, radius=h * 0.2)
    if h >= w * 0.6:  # tall chip (castle): shape on top, name below
        r = min(w, h) * 0.2
        threat_badge(c, w / 2, h * 0.32, r, mc.threat if mc else 0, red)
        t, sz, sx = fit_condensed(card_name(mc, key, lang), w - 6, h * 0.24, h * 0.17, bold=True)
        c.text((w / 2, h * 0.74), t, sz, th.WHITE, bold=True, align="m", sx=sx)
        return c.image()
    r = h * 0.3
    threat_badge(c, 2 + h * 0.42, h / 2, r, mc.threat if mc else 0, red)
    x = 2 + h * 0.42 + r * 1.3 + 2
    t, sz, sx = fit_condensed(card_name(mc, key, lang), w - x - 3, h * 0.6, h * 0.42,
                              bold=True, tight=True, condense=0.68)
    c.text((x, h / 2), t, sz, th.WHITE, bold=True, sx=sx)
    return c.image()
