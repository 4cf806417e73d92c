"""One fixed 256-colour palette for every image the renderer writes (issue 22).

Why fixed: choosing a palette for each image (Pillow's fast octree) cost more CPU than
drawing the image (4-player table: 12.8 ms to choose, 4.9 ms to draw, 7 ms for zlib). The
renderer paints a small set of theme colours and their anti-aliased blends, so one palette
learned once from the sample gallery serves every image as well as a palette of its own did
(gallery and recap frames: mean error 0.74 against 0.72 of 255 per channel, largest 33
against 45), and mapping to a palette that is kept lets Pillow reuse its colour cache:
1.4 ms for that table.

`palette.bin` (768 bytes) is learned by `python -m render --palette` from the gallery's
images. tests/test_render.py checks that it still serves every sample and chart that well,
so a new colour in the drawing code that it serves badly fails a test; then learn it again.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from PIL import Image

from render import theme as th

PALETTE_FILE = Path(__file__).with_name("palette.bin")
_DATA = PALETTE_FILE.read_bytes()
_local = threading.local()


def _fixed() -> Image.Image:
    """This thread's palette image. Pillow fills a palette's colour cache while it maps
    pixels, with the GIL released, so threads that draw at once do not share one."""
    pal: Image.Image | None = getattr(_local, "palette", None)
    if pal is None:
        pal = Image.new("P", (1, 1))
        pal.putpalette(_DATA)
        _local.palette = pal
    return pal


def quantized(im: Image.Image) -> Image.Image:
    """`im` as a palette image in the fixed palette: each pixel its nearest colour, no
    dithering (flat areas stay flat, so PNG and GIF compress them well)."""
    rgb = im if im.mode == "RGB" else im.convert("RGB")
    return rgb.quantize(palette=_fixed(), dither=Image.Dither.NONE)


def learn(images: Sequence[Image.Image]) -> bytes:
    """The 256 colours (RGB bytes) that serve `images` best by the fast octree, learned from
    all of them at once, stacked."""
    rgb = [im.convert("RGB") for im in images]
    sheet = Image.new("RGB", (max(im.width for im in rgb), sum(im.height for im in rgb)),
                      th.PAPER)
    y = 0
    for im in rgb:
        sheet.paste(im, (0, y))
        y += im.height
    pal = sheet.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    colours = pal.getpalette() or []
    return bytes(colours[:768]).ljust(768, b"\0")
