"""Colours, and the few words the images carry (from the catalogue, i18n/*.po).

Colour choices are for a phone screen and for colour-blind players: seat colours come from
the Okabe–Ito palette, and anything that matters in colour is repeated in shape (red threat
is a diamond, blue a circle; damage is a square cube, remaining HP a round pip). Measured,
not judged by eye: tests/test_render_colour_vision.py keeps every pair of colours that
carries meaning at least ΔE2000 10 apart for normal, protan, deutan and tritan vision
(Machado 2009 simulation), as the fixed palette writes them.
"""

from __future__ import annotations

from collections.abc import Iterable

import i18n

RGB = tuple[int, int, int]

PAPER: RGB = (244, 239, 228)
INK: RGB = (34, 34, 40)
INK_SOFT: RGB = (80, 74, 64)  # >= 4.5:1 (WCAG) on every ground it is written on
WHITE: RGB = (255, 255, 255)
GRID_LINE: RGB = (168, 156, 134)
SQUARE: RGB = (233, 224, 204)
HOME: RGB = (205, 224, 236)
MAGIC: RGB = (226, 212, 238)
MAGIC_RING: RGB = (140, 96, 180)
HEADER: RGB = (48, 54, 70)
HEADER_INK: RGB = (250, 250, 250)
HEADER_OUT: RGB = (112, 28, 32)
QUEUE_BG: RGB = (222, 212, 190)
CASTLE: RGB = (150, 150, 160)
CASTLE_DARK: RGB = (110, 110, 122)

UNIT_CARD: RGB = (255, 253, 246)
UNIT_ACTED: RGB = (196, 194, 190)
MONSTER_BLUE: RGB = (30, 52, 92)
MONSTER_RED: RGB = (104, 24, 30)
# White threat numbers read on both (WCAG 4.5:1 for small text: 5.35 and 5.01).
THREAT_BLUE: RGB = (36, 104, 204)
THREAT_RED: RGB = (214, 40, 40)
# teal, not green: green pips beside the red damage cubes were 8.8 apart for a deutan eye
PIP_UNIT: RGB = (0, 150, 150)
PIP_MONSTER: RGB = (240, 240, 240)
CUBE: RGB = (214, 40, 40)
GOLD: RGB = (240, 190, 40)
LEVEL: RGB = (246, 200, 60)
ELIMINATED: RGB = (200, 30, 30)

# Okabe–Ito: orange, bluish green, reddish purple, sky blue (distinct for colour-blind eyes).
SEATS: tuple[RGB, ...] = ((230, 159, 0), (0, 158, 115), (204, 121, 167), (86, 180, 233))

# Highlight colours (events of the last phase, reach overlay).
HL_PATH: RGB = (0, 150, 255)
HL_MONSTER: RGB = (255, 120, 0)
HL_ATTACK: RGB = (230, 30, 30)
HL_NEW: RGB = (255, 210, 0)  # "look here": the current row card, the start flag, a focus
# a piece or queue that just arrived (summoned, recruited, placed, queued): pink, because
# the yellow it was is the gold frame of a levelled unit on a table (ΔE 4 for everyone)
HL_ARRIVED: RGB = (240, 60, 160)
HL_ARRIVED_TAG: RGB = (196, 30, 120)  # the "NEW" tag: white reads on it (5.5:1)
HL_MOVE: RGB = (40, 180, 90)
HL_SKILL: RGB = (235, 90, 20)
# a roll's frames: one Raid can show all four beside an area attack, a level-up and a
# faint, so each is told from those too (amber critical was under ΔE 10 from the hit, the
# area and the level-up for protan/deutan eyes; purple fumble was the fainted purple)
RESULT: dict[str, RGB] = {
    "hit": (40, 160, 70),
    "critical": (0, 170, 230),
    "miss": (110, 110, 120),
    "fumble": (60, 40, 60),
}


def luminance(c: RGB) -> float:
    """WCAG 2 relative luminance of an sRGB colour."""
    def lin(v: int) -> float:
        x = v / 255
        return x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4
    return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2])


def contrast(a: RGB, b: RGB) -> float:
    """WCAG 2 contrast ratio of two colours (1 to 21; 4.5 for small text)."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def ink_on(fill: RGB) -> RGB:
    """White or ink, whichever reads better on `fill`."""
    return WHITE if contrast(WHITE, fill) >= contrast(INK, fill) else INK


def seat_color(seat: object) -> RGB:
    """Colour of a seat; anything that is not a small int gets neutral grey."""
    if isinstance(seat, int) and not isinstance(seat, bool) and seat >= 0:
        return SEATS[seat % len(SEATS)]
    return (150, 150, 150)


def language(lang: str) -> str:
    """The catalogue images are drawn in (an unknown language draws English)."""
    return i18n.lang_or_default(lang)


def listing(items: Iterable[object], lang: str) -> str:
    """A list of names as the reader's language writes one (the catalogue's separator)."""
    return i18n.join(lang, items)


def word(key: str, lang: str) -> str:
    """A word on the images (`image.<key>` in i18n/*.po; `ja` or anything else = English)."""
    mid = f"image.{key}"
    text = i18n.t(lang, mid)
    return key if text == mid else text


def round_title(rnd: int, what: str, lang: str) -> str:
    """A table's title, "Round 4 · Raid" (`image.round_title`: Japanese writes it
    ラウンド4・奇襲, no spaces, as the recap's captions do)."""
    return i18n.t(lang, "image.round_title", round=rnd, what=what)


def phase_name(phase: object, lang: str) -> str:
    """A phase's name (`phase.<key>`: the one table the bot and the console use too)."""
    mid = f"phase.{phase}"
    text = i18n.t(lang, mid)
    return str(phase) if text == mid else text
