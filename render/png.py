"""PNG files of palette images, compressed by ISA-L instead of Pillow's zlib.

Why not `Image.save(..., "PNG")`: compressing the pixels was two thirds of an image's CPU in
the bot's drawing processes (issue 22: a 2-player table 4.9 ms of ~7.5 ms at zlib level 3).
Intel's ISA-L deflate (the `isal` package) does the same job about four times faster for a
file of the same size (level 1: 1.2 ms, 74 KB against 73 KB), and Pillow offers no way to
swap its compressor. A PNG of an 8-bit palette image is four chunks (ISO/IEC 15948 §11):
the header, the palette, the zlib stream of the rows (each after a filter-type byte; type 0,
"none", is what Pillow writes for palette images too, and what suits flat colours) and the
end; Pillow's own `putchunk` writes each with its length and CRC.
"""

from __future__ import annotations

import io
import struct

from isal import isal_zlib
from PIL import Image, PngImagePlugin

SIGNATURE = b"\x89PNG\r\n\x1a\n"
LEVEL = 1  # ISA-L's levels are 0–3; 1 and 2 give the same size here, 3 is 2.6× slower


def palette_png(im: Image.Image) -> bytes:
    """The PNG of an image in mode "P": same pixels and palette on decoding, deterministic."""
    if im.mode != "P":
        raise ValueError(f"palette_png needs a mode 'P' image, not {im.mode!r}")
    width, height = im.size
    colours = bytes(im.getpalette() or [])[:768]
    # One column more on the left, outside the image: `crop` fills it with index 0, which
    # is the filter-type byte 0 at the start of every row.
    rows = im.crop((-1, 0, width, height)).tobytes()
    out = io.BytesIO()
    out.write(SIGNATURE)
    # width, height, bit depth 8, colour type 3 (palette), deflate, adaptive filters, no
    # interlace (§11.2.2).
    PngImagePlugin.putchunk(out, b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0))
    PngImagePlugin.putchunk(out, b"PLTE", colours)
    PngImagePlugin.putchunk(out, b"IDAT", isal_zlib.compress(rows, LEVEL))
    PngImagePlugin.putchunk(out, b"IEND", b"")
    return out.getvalue()
