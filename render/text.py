"""Text: the vendored Noto Sans JP font, glyph coverage, and cached text sprites.

Every string drawn by the renderer goes through `clean()` first, so a character the font has
no glyph for (an emoji in a display name, say) becomes `?` instead of an empty box or an
exception. Coverage comes from the font's own `cmap` table, parsed once here: Pillow offers
no reliable "has glyph" test, and fontTools is not a dependency.

Rasterised text is cached as small "L" masks keyed by (text, size, weight); drawing a label
is then one `paste`, which is what keeps a board under its time budget. FreeType faces are
not safe to use from two threads at once, so every call into a face holds `_FT_LOCK`; the
cached masks are never mutated, so reading them needs no lock.
"""

from __future__ import annotations

import math
import struct
import threading
import unicodedata
from bisect import bisect_right
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from render import boxes

FONT_FILE = Path(__file__).with_name("fonts") / "NotoSansJP[wght].ttf"
REGULAR, BOLD = 400, 700
# Glyphs are rasterised at one of these sizes and the mask scaled to the size asked for.
# Each FreeType face of this variable CJK font costs ~5 MB once kana are drawn, and exact
# sizes would make dozens of faces; a scaled-down mask looks like supersampled text.
LADDER = (24, 48, 96, 192)
CAP = 0.73  # the font's capital (and digit) height per pixel of font size: "H" is 726/1000
# Readable at phone width (issue 20): Discord shows an image at most ~400 px wide on a
# phone, and there a text needs capitals >= 7 px (a ~9.6 px font, a phone's smallest
# interface text such as a timestamp) to be read without zooming.
PHONE_W = 400
READ_CAP = 7.0
Color = tuple[int, int, int] | tuple[int, int, int, int]

_FT_LOCK = threading.Lock()


# --- glyph coverage ---------------------------------------------------------------------


def _cmap_ranges(data: bytes) -> list[tuple[int, int]]:
    """Code point ranges (inclusive) mapped by a TrueType/OpenType font's Unicode cmap."""
    num_tables = struct.unpack_from(">H", data, 4)[0]
    cmap_off = None
    for i in range(num_tables):
        tag, _cs, off, _ln = struct.unpack_from(">4sIII", data, 12 + 16 * i)
        if tag == b"cmap":
            cmap_off = off
    if cmap_off is None:
        return []
    n = struct.unpack_from(">H", data, cmap_off + 2)[0]
    subtables: dict[int, int] = {}
    for i in range(n):
        plat, enc, off = struct.unpack_from(">HHI", data, cmap_off + 4 + 8 * i)
        if (plat, enc) in ((3, 10), (0, 4), (3, 1), (0, 3)):
            fmt = struct.unpack_from(">H", data, cmap_off + off)[0]
            subtables.setdefault(fmt, cmap_off + off)
    if 12 in subtables:
        base = subtables[12]
        groups = struct.unpack_from(">I", data, base + 12)[0]
        out = []
        for g in range(groups):
            start, end, glyph = struct.unpack_from(">III", data, base + 16 + 12 * g)
            if glyph == 0 and start == end:
                continue
            out.append((start, end))
        return _merge(out)
    if 4 in subtables:
        base = subtables[4]
        segs = struct.unpack_from(">H", data, base + 6)[0] // 2
        ends = struct.unpack_from(f">{segs}H", data, base + 14)
        starts = struct.unpack_from(f">{segs}H", data, base + 16 + 2 * segs)
        return _merge([(s, e) for s, e in zip(starts, ends, strict=True) if s != 0xFFFF])
    return []


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted(ranges):
        if out and s <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


@lru_cache(maxsize=1)
def _coverage() -> tuple[list[int], list[int]]:
    ranges = _cmap_ranges(FONT_FILE.read_bytes())
    return [s for s, _ in ranges], [e for _, e in ranges]


def has_glyph(ch: str) -> bool:
    """True if the vendored font maps this character to a glyph."""
    starts, ends = _coverage()
    cp = ord(ch)
    i = bisect_right(starts, cp) - 1
    return i >= 0 and cp <= ends[i]


def clean(text: object) -> str:
    """Make any value safe to draw: a str with every glyph present in the font.

    Joiners, variation selectors and other invisible format characters are dropped (they
    glue emoji sequences together); control characters become spaces; any other character
    the font lacks becomes a single `?` per run, so "Alice 🐉🔥" reads "Alice ?".
    """
    return _clean(text if isinstance(text, str) else str(text))


@lru_cache(maxsize=4096)
def _clean(text: str) -> str:
    s = unicodedata.normalize("NFC", text)
    out: list[str] = []
    for ch in s:
        if has_glyph(ch):
            out.append(ch)
            continue
        cat = unicodedata.category(ch)
        if cat in ("Cf", "Mn", "Me", "Sk") or 0xFE00 <= ord(ch) <= 0xFE0F:
            continue  # invisible glue of an emoji sequence
        if cat.startswith("C") or cat.startswith("Z"):
            out.append(" ")
            continue
        if not (out and out[-1] == "?"):
            out.append("?")
    return "".join(out).strip() or "?"


# --- fonts and sprites ------------------------------------------------------------------


def readable(image_w: int) -> float:
    """The smallest font size (px, in steps of a third: sprites are drawn 3× supersampled)
    whose capitals are `READ_CAP` tall once an image `image_w` px wide is shown PHONE_W
    wide."""
    return math.ceil(READ_CAP * image_w / PHONE_W / CAP * 3) / 3


def _base(size: int) -> int:
    """The ladder size a glyph of `size` px is rasterised at (never smaller than asked)."""
    for b in LADDER:
        if size <= b:
            return b
    return LADDER[-1]


@lru_cache(maxsize=16)
def font(size: int, weight: int = REGULAR) -> ImageFont.FreeTypeFont:
    """The font at a pixel size and weight; each (size, weight) is its own face object.

    Callers go through `_base`, so only the LADDER sizes are ever opened.

    The variable font's default instance is Thin, so the weight axis is set here, once, and
    the object is never changed afterwards (that is what makes it shareable).
    """
    with _FT_LOCK:
        f = ImageFont.truetype(str(FONT_FILE), size, layout_engine=ImageFont.Layout.BASIC)
        f.set_variation_by_axes([weight])
    return f


@lru_cache(maxsize=8192)
def sprite(text: str, size: int, weight: int = REGULAR,
           sx: float = 1.0) -> tuple[Image.Image, int, int]:
    """A text mask and its offset from the baseline-left origin: (mask, dx, dy).

    `text` must already be clean. `sx` < 1 condenses it horizontally (see `fit`). Cached:
    names and numbers repeat from image to image.
    """
    base = _base(size)
    f = font(base, weight)
    with _FT_LOCK:
        left, top, right, bottom = f.getbbox(text, anchor="ls")
        w, h = max(1, right - left), max(1, bottom - top)
        mask = Image.new("L", (int(w), int(h)), 0)
        ImageDraw.Draw(mask).text((-left, -top), text, fill=255, font=f, anchor="ls")
    k = size / base
    if k != 1.0 or sx != 1.0:
        mask = mask.resize((max(1, round(w * k * sx)), max(1, round(h * k))),
                           Image.Resampling.LANCZOS)
    return mask, round(left * k * sx), round(top * k)


@lru_cache(maxsize=8192)
def width(text: str, size: int, weight: int = REGULAR) -> int:
    """Advance width of already-clean text, in pixels."""
    base = _base(size)
    f = font(base, weight)
    with _FT_LOCK:
        return int(round(f.getlength(text) * size / base))


def draw(
    im: Image.Image,
    xy: tuple[float, float],
    text: object,
    size: int,
    fill: Color,
    *,
    weight: int = REGULAR,
    align: str = "l",
    valign: str = "m",
    sx: float = 1.0,
    record: bool = True,
    scale: float = 1.0,
) -> int:
    """Draw text; returns its width. `align` l/m/r; `valign` m (middle of capitals) or s
    (baseline). Middle-of-capitals centring looks right for Latin and kana alike. `sx`
    condenses horizontally. Its ink box (the glyphs' own box, divided by `scale` when the
    image is drawn supersampled) goes to `render.boxes` while a capture is open."""
    t = clean(text)
    w = round(width(t, size, weight) * sx)
    x, y = xy
    if align == "m":
        x -= w / 2
    elif align == "r":
        x -= w
    if valign == "m":
        y += size * 0.36
    mask, dx, dy = sprite(t, size, weight, round(sx, 3))
    px, py = int(round(x)) + dx, int(round(y)) + dy
    im.paste(fill, (px, py, px + mask.width, py + mask.height), mask)
    if t.strip():
        ink = (px / scale, py / scale, (px + mask.width) / scale, (py + mask.height) / scale)
        boxes.wrote(t, size * CAP / scale, ink)
        if record:
            boxes.add(ink)
    return w


def fit(text: object, max_w: int, size: int, min_size: int, weight: int = REGULAR,
        tight: bool = False) -> tuple[str, int]:
    """Largest size in [min_size, size] at which `text` fits `max_w`; if even `min_size` is
    too wide, the text is cut and marked "…" (names stay recognisable by their start).

    `tight` is for cramped labels: this font's "…" is a full em wide, so a cut Latin name
    ends with "." instead ("Skele.") and a cut Japanese one with nothing ("スケル").
    """
    t, s, _ = fit_condensed(text, max_w, size, min_size, weight, tight, 1.0)
    return t, s


def fit_condensed(text: object, max_w: int, size: int, min_size: int, weight: int = REGULAR,
                  tight: bool = False, condense: float = 0.78) -> tuple[str, int, float]:
    """Like `fit`, but may also squeeze the text horizontally down to `condense`.

    For a card name in a square, height is what survives a phone preview: "Swordmaster" at
    a large size squeezed to 80 % reads better than the same word at a small size. Returns
    (text, size, horizontal scale).
    """
    t = clean(text)
    for s in range(size, min_size - 1, -1):
        w = width(t, s, weight)
        if w <= max_w:
            return t, s, 1.0
        if w * condense <= max_w:
            return t, s, round(max_w / w, 3)
    s = min_size

    def mark(u: str) -> str:
        if not tight:
            return "…"
        return "." if u and u[-1].isascii() and u[-1].isalnum() else ""

    while len(t) > 1 and width(t.rstrip() + mark(t.rstrip()), s, weight) * condense > max_w:
        t = t[:-1]
    t = t.rstrip() + mark(t.rstrip())
    return t, s, round(min(1.0, max_w / max(1, width(t, s, weight))), 3)
