"""The four public entry points; see the package docstring for the contract."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from PIL import Image

from render import theme as th
from render.board import draw_board
from render.layout import BOARD_SQUARE, board_geom


def encode(im: Image.Image) -> bytes:
    """PNG at the default compression level, as a 256-colour palette image.

    The images are flat colours plus anti-aliased text, so a fast octree palette is visually
    lossless here, while it makes the PNG about 3× smaller and encoding twice as fast as RGB
    (zlib dominates and sees a third of the bytes). Level 9 / `optimize` would cost about
    4× for ~3 % smaller files, so the default level stays. Deterministic: same image, same
    bytes.
    """
    pal = im.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    buf = io.BytesIO()
    pal.save(buf, "PNG")
    return buf.getvalue()


def _lang(lang: str) -> str:
    return th.language(lang)


def board_image(view: Mapping[str, Any], seat: int, *, lang: str = "en",
                highlights: Sequence[Mapping[str, Any]] | None = None) -> Image.Image:
    g = board_geom(BOARD_SQUARE, False)
    im = Image.new("RGB", (g.width, g.height), th.PAPER)
    draw_board(im, 0, 0, view, seat, g, _lang(lang), highlights)
    return im


def board_png(view: Mapping[str, Any], seat: int, *, lang: str = "en",
              highlights: Sequence[Mapping[str, Any]] | None = None) -> bytes:
    """One player's board (R2 geometry) as PNG bytes."""
    return encode(board_image(view, seat, lang=lang, highlights=highlights))


def table_png(view: Mapping[str, Any], *, lang: str = "en",
              highlights: Sequence[Mapping[str, Any]] | None = None) -> bytes:
    """Every player's board plus the central row, as PNG bytes."""
    from render.table import table_image

    return encode(table_image(view, lang=_lang(lang), highlights=highlights))


def reach_png(view: Mapping[str, Any], seat: int, square: str, move: list[str], skill: list[str],
              *, lang: str = "en") -> bytes:
    """A board with one unit's movement and skill squares overlaid (computed by the engine)."""
    from render.reach import reach_image

    return encode(reach_image(view, seat, square, move, skill, lang=_lang(lang)))


def focus_png(view: Mapping[str, Any], seat: int, squares: Sequence[str], *, lang: str = "en",
              highlights: Sequence[Mapping[str, Any]] | None = None) -> bytes:
    """A board with the squares a tutorial step is about framed (render/focus.py)."""
    from render.focus import focus_image

    return encode(focus_image(view, seat, squares, lang=_lang(lang), highlights=highlights))


def card_png(card_key: str, *, lang: str = "en") -> bytes:
    """One card: name, stats and range diagram. A typed name (en/ja) works as a key too."""
    return _card_png(str(card_key), _lang(lang))


@lru_cache(maxsize=128)
def _card_png(card_key: str, lang: str) -> bytes:
    """Cards never change during a process, so their PNG bytes (immutable) are cached."""
    from render.card import card_image

    return encode(card_image(card_key, lang=lang))
