"""The four public entry points; see the package docstring for the contract."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from PIL import Image

from render import palette
from render import theme as th
from render.board import draw_board
from render.card import card_image
from render.focus import focus_image
from render.layout import BOARD_SQUARE, board_geom
from render.png import palette_png
from render.reach import reach_image
from render.table import table_image


def encode(im: Image.Image) -> bytes:
    """PNG of a 256-colour image in the renderer's fixed palette, compressed by ISA-L.

    The images are flat colours plus anti-aliased text, so a palette is visually lossless
    here, while it makes the PNG about 3× smaller and the compressor's work a third (it sees
    a third of the bytes). The palette is fixed (render/palette.py): choosing one per image
    cost more than drawing the image. The bot draws an image for most answers, and Pillow's
    zlib (level 3) was two thirds of an image's CPU; ISA-L does it in a quarter of the time
    for a file of the same size (render/png.py, issue 22). Deterministic: same image, same
    bytes.
    """
    return palette_png(palette.quantized(im))


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
    return encode(table_image(view, lang=_lang(lang), highlights=highlights))


def reach_png(view: Mapping[str, Any], seat: int, square: str, move: list[str], skill: list[str],
              *, lang: str = "en") -> bytes:
    """A board with one unit's movement and skill squares overlaid (computed by the engine)."""
    return encode(reach_image(view, seat, square, move, skill, lang=_lang(lang)))


def focus_png(view: Mapping[str, Any], seat: int, squares: Sequence[str], *, lang: str = "en",
              highlights: Sequence[Mapping[str, Any]] | None = None) -> bytes:
    """A board with the squares a tutorial step is about framed (render/focus.py)."""
    return encode(focus_image(view, seat, squares, lang=_lang(lang), highlights=highlights))


def card_png(card_key: str, *, lang: str = "en") -> bytes:
    """One card: name, stats and range diagram. A typed name (en/ja) works as a key too."""
    return _card_png(str(card_key), _lang(lang))


@lru_cache(maxsize=128)
def _card_png(card_key: str, lang: str) -> bytes:
    """Cards never change during a process, so their PNG bytes (immutable) are cached."""
    return encode(card_image(card_key, lang=lang))
