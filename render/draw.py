"""Small drawing primitives shared by boards, tables and cards.

Pillow draws shapes without anti-aliasing, so sprites are drawn at `SS`× size and reduced:
`Canvas` hides that factor (callers give 1× coordinates). Sprites are cached by their
callers, so the supersampling is paid once per distinct sprite, not per image.
"""

from __future__ import annotations

import math

from PIL import Image, ImageDraw

from render import boxes
from render import text as T
from render.layout import MIN_TEXT
from render.theme import INK, RGB, THREAT_BLUE, THREAT_RED, WHITE

SS = 3


class Canvas:
    """An RGB image drawn at SS× scale with 1× coordinates; `image()` reduces it."""

    def __init__(self, w: int, h: int, bg: RGB | tuple[int, int, int, int], mode: str = "RGB",
                 ss: int = SS):
        self.w, self.h, self.ss = w, h, ss
        self.im = Image.new(mode, (w * ss, h * ss), bg)
        self.d = ImageDraw.Draw(self.im)

    def _b(self, box: tuple[float, float, float, float]) -> list[int]:
        return [round(v * self.ss) for v in box]

    def rect(self, box: tuple[float, float, float, float], fill: T.Color | None = None,
             outline: T.Color | None = None, width: float = 1, radius: float = 0) -> None:
        b = self._b(box)
        b[2] -= 1
        b[3] -= 1
        w = max(1, round(width * self.ss)) if outline is not None else 0
        if radius:
            self.d.rounded_rectangle(b, round(radius * self.ss), fill=fill, outline=outline, width=w)
        else:
            self.d.rectangle(b, fill=fill, outline=outline, width=w)

    def ellipse(self, box: tuple[float, float, float, float], fill: T.Color | None = None,
                outline: T.Color | None = None, width: float = 1) -> None:
        w = max(1, round(width * self.ss)) if outline is not None else 0
        self.d.ellipse(self._b(box), fill=fill, outline=outline, width=w)

    def polygon(self, pts: list[tuple[float, float]], fill: T.Color | None = None,
                outline: T.Color | None = None, width: float = 1) -> None:
        w = max(1, round(width * self.ss)) if outline is not None else 0
        self.d.polygon([(x * self.ss, y * self.ss) for x, y in pts], fill=fill, outline=outline, width=w)

    def line(self, pts: list[tuple[float, float]], fill: T.Color, width: float = 1) -> None:
        self.d.line([(x * self.ss, y * self.ss) for x, y in pts], fill=fill, width=max(1, round(width * self.ss)),
                    joint="curve")

    def text(self, xy: tuple[float, float], s: object, size: float, fill: T.Color, *,
             bold: bool = False, align: str = "l", valign: str = "m", sx: float = 1.0) -> int:
        """Draw text at 1× coordinates; returns its 1× width. `sx` condenses it."""
        w = T.draw(self.im, (xy[0] * self.ss, xy[1] * self.ss), s, round(size * self.ss), fill,
                   weight=T.BOLD if bold else T.REGULAR, align=align, valign=valign, sx=sx,
                   scale=self.ss)
        return round(w / self.ss)

    def image(self) -> Image.Image:
        return self.im.reduce(self.ss) if self.ss > 1 else self.im


def text_w(s: object, size: float, bold: bool = False) -> int:
    """1× width of text that a Canvas would draw at `size`."""
    return round(T.width(T.clean(s), round(size * SS), T.BOLD if bold else T.REGULAR) / SS)


def fit(s: object, max_w: float, size: float, min_size: float, bold: bool = False,
        tight: bool = False) -> tuple[str, float]:
    """`text.fit` in Canvas (1×) units."""
    t, sz = T.fit(s, round(max_w * SS), round(size * SS), round(min_size * SS),
                  T.BOLD if bold else T.REGULAR, tight)
    return t, sz / SS


def fit_condensed(s: object, max_w: float, size: float, min_size: float, bold: bool = False,
                  tight: bool = False, condense: float = 0.78) -> tuple[str, float, float]:
    """`text.fit_condensed` in Canvas (1×) units: (text, size, horizontal scale)."""
    t, sz, sx = T.fit_condensed(s, round(max_w * SS), round(size * SS), round(min_size * SS),
                                T.BOLD if bold else T.REGULAR, tight, condense)
    return t, sz / SS, sx


def threat_badge(c: Canvas, cx: float, cy: float, r: float, threat: int, red: bool,
                 font: float | None = None) -> None:
    """Threat points in a shape: red = diamond, blue = circle (colour-blind safe, R14.2).
    The number is `font` px (default 1.4 r): callers keep it readable (layout.MIN_TEXT)."""
    rr = r * 1.22 if red else r
    boxes.add((cx - rr, cy - rr, cx + rr, cy + rr))  # the shape is the number's frame: ink
    if red:
        pts = [(cx, cy - rr), (cx + rr, cy), (cx, cy + rr), (cx - rr, cy)]
        c.polygon(pts, fill=THREAT_RED, outline=WHITE, width=max(1.5, r * 0.14))
    else:
        c.ellipse((cx - r, cy - r, cx + r, cy + r), fill=THREAT_BLUE, outline=WHITE,
                  width=max(1.5, r * 0.14))
    c.text((cx, cy), str(threat), font or r * 1.4, WHITE, bold=True, align="m")


def hp_pips(c: Canvas, x: float, cy: float, max_w: float, hp: int, dmg: int, size: float,
            on: RGB, cube: RGB, ring: RGB = INK, min_d: float = 0.0) -> None:
    """HP left of max: round pips for what is left, square red cubes for damage (R8.2).

    Left-aligned at x; where the pips would be smaller than `min_d` (too many for the room,
    or above 8 HP) "left/max" is written instead, at a readable size.
    """
    hp = max(0, hp)
    dmg = max(0, min(dmg, hp))
    if hp == 0:
        return
    gap = max(1.5, size * 0.25)
    d = min(size, (max_w - (hp - 1) * gap) / hp)
    if hp > 8 or d < min_d:
        c.text((x, cy), f"{hp - dmg}/{hp}", max(MIN_TEXT, size * 1.2), on, bold=True)
        return
    boxes.add((x, cy - d / 2, x + hp * d + (hp - 1) * gap, cy + d / 2))  # HP reads as a number
    for i in range(hp):
        px = x + i * (d + gap)
        box = (px, cy - d / 2, px + d, cy + d / 2)
        if i < hp - dmg:
            c.ellipse(box, fill=on, outline=ring, width=max(1, d * 0.1))
        else:
            inset = d * 0.06
            c.rect((box[0] + inset, box[1] + inset, box[2] - inset, box[3] - inset), fill=cube,
                   outline=ring, width=max(1, d * 0.1))


def pips_width(hp: int, size: float, max_w: float, min_d: float = 0.0) -> float:
    """The width `hp_pips` draws (its "left/max" fallback measured too)."""
    if hp <= 0:
        return 0
    gap = max(1.5, size * 0.25)
    d = min(size, (max_w - (hp - 1) * gap) / hp)
    if hp > 8 or d < min_d:
        return text_w(f"{hp}/{hp}", max(MIN_TEXT, size * 1.2), bold=True)
    return hp * d + (hp - 1) * gap


def check_mark(c: Canvas, cx: float, cy: float, r: float, fill: RGB, width: float) -> None:
    c.line([(cx - r * 0.55, cy + r * 0.02), (cx - r * 0.12, cy + r * 0.45),
            (cx + r * 0.6, cy - r * 0.45)], fill, width)


def arrow_head(tip: tuple[float, float], frm: tuple[float, float], size: float) -> list[tuple[float, float]]:
    """Triangle points of an arrow head at `tip`, pointing away from `frm`."""
    ang = math.atan2(tip[1] - frm[1], tip[0] - frm[0])
    a1, a2 = ang + math.radians(150), ang - math.radians(150)
    return [tip, (tip[0] + size * math.cos(a1), tip[1] + size * math.sin(a1)),
            (tip[0] + size * math.cos(a2), tip[1] + size * math.sin(a2))]


def composite(im: Image.Image, overlay: Canvas, x: int, y: int) -> None:
    """Blend an RGBA Canvas (any ss) onto `im` at (x, y), touching only its drawn part.

    Reduced band by band: RGBA `reduce()` premultiplies through two whole-image conversions
    that cost more than the drawing. The overlay's clear colour is transparent white, so the
    unpremultiplied edges fade toward white, which the white casings already use.
    """
    src = overlay.im
    bbox = src.getbbox()
    if not bbox:
        return
    k = overlay.ss
    x0, y0 = bbox[0] // k * k, bbox[1] // k * k
    x1 = min(src.width, (bbox[2] + k - 1) // k * k)
    y1 = min(src.height, (bbox[3] + k - 1) // k * k)
    part = src.crop((x0, y0, x1, y1))
    if k > 1:
        part = Image.merge("RGBA", [b.reduce(k) for b in part.split()])
    im.paste(part, (x + x0 // k, y + y0 // k), part)
