"""A whole game as one animated image: a title, then one table per phase (issue 24).

Each step is the table as it stood after a card or phase, its board changes highlighted
exactly as in the live post (the same `table_image` and highlight events), under a caption
band naming the round and what ended. The last frame is held longer so the final table can
be read before the loop starts again.

GIF, not animated WebP (bench/recap.py, a 4-player AI game of 11 rounds, 74 phases): the
tables are flat colours, so one palette shared by every frame is visually lossless, and
then Pillow's GIF writer stores only the rectangle that changed from the frame before:
1.9 MB, 0.8 s to quantize and write. Animated WebP of the same frames: lossy (quality 80)
2.9 MB in 9.5 s with softened text, lossless 17 MB. Every Discord client plays a GIF inline. A recap that still comes out over
`LIMIT` is drawn again smaller (bounded), then with fewer phases, so it can always be uploaded.

Pure function of its input, safe on a worker thread (like the rest of render/).
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from PIL import Image

from render import palette
from render import text as tx
from render import theme as th
from render.table import table_image

# Discord's upload limit without boosts or Nitro has been 8 MiB, 25 MB (2023) and 10 MiB
# (since late 2024): under 8 MiB fits all of them.
LIMIT = 8 * 1024 * 1024
STEP_MS = 1200  # one phase: long enough to see which squares are marked
TITLE_MS = 2500
LAST_MS = 6000  # the final table, held before the loop starts again
CAPTION_H = 48
CAPTION_SIZE = 28
TITLE_SIZE = 40
SHRINK = (1.0, 0.8, 0.64, 0.5)  # tried in order until the recap is under LIMIT


Step = tuple[Mapping[str, Any], Sequence[Mapping[str, Any]], str]
"""One phase of the recap: the table after it, its public events (the board's changes,
highlighted), its caption (service/replay.py `Replay.recap` gives them)."""


def _captioned(table: Image.Image, caption: str) -> Image.Image:
    im = Image.new("RGB", (table.width, table.height + CAPTION_H), th.HEADER)
    im.paste(table, (0, CAPTION_H))
    text, size = tx.fit(caption, table.width - 24, CAPTION_SIZE, 18, tx.BOLD)
    tx.draw(im, (12, CAPTION_H / 2), text, size, th.HEADER_INK, weight=tx.BOLD, record=False)
    return im


def _title(size: tuple[int, int], lines: Sequence[str]) -> Image.Image:
    im = Image.new("RGB", size, th.PAPER)
    gap = TITLE_SIZE * 2
    y = size[1] / 2 - gap * (len(lines) - 1) / 2
    for k, line in enumerate(lines):
        big = TITLE_SIZE if k == 0 else CAPTION_SIZE
        text, s = tx.fit(line, size[0] - 48, big, 18, tx.BOLD if k == 0 else tx.REGULAR)
        tx.draw(im, (size[0] / 2, y), text, s, th.INK, align="m",
                weight=tx.BOLD if k == 0 else tx.REGULAR, record=False)
        y += gap
    return im


def _drawn(steps: Sequence[Step], title: Sequence[str], lang: str) -> Iterator[Image.Image]:
    """The title (as large as the tables), then one captioned table per step, each drawn
    when it is asked for."""
    lang = th.language(lang)
    tables = (_captioned(table_image(view, lang=lang, highlights=events), caption)
              for view, events, caption in steps)
    first = next(tables, None)
    yield _title(first.size if first is not None else (769, 400), title)
    if first is not None:
        yield first
        yield from tables


def frames(steps: Sequence[Step], title: Sequence[str], *,
           lang: str = "en") -> list[Image.Image]:
    """The recap's full-size frames: the title, then one per step (RGB images)."""
    return list(_drawn(steps, title, lang))


def paletted_frames(steps: Sequence[Step], title: Sequence[str], *,
                    lang: str = "en") -> list[Image.Image]:
    """`frames`, each put in the fixed palette as soon as it is drawn: the same GIF, a third
    of the memory. A 30-round solo game has some 210 frames; held as full-size RGB images
    they took 700 MB at once, so two `/rr-recap`s of long games together outgrew the bot's
    1 GB (docs/deploy.md); one byte a pixel keeps them near 250 MB."""
    return [palette.quantized(im) for im in _drawn(steps, title, lang)]


def durations(n: int) -> list[int]:
    """Milliseconds each of `n` frames shows: the title, the phases, the final table."""
    out = [TITLE_MS] + [STEP_MS] * max(0, n - 1)
    if n > 1:
        out[-1] = LAST_MS
    return out


def encode_gif(images: Sequence[Image.Image], scale: float = 1.0) -> bytes:
    """An endlessly looping GIF of `images`, all in the renderer's one fixed palette
    (render/palette.py), so unchanged areas stay identical between frames and the writer
    stores only what changed. Images already in that palette (`paletted_frames`) are used
    as they are; made smaller, each is drawn again from its colours one at a time."""
    def fitted(im: Image.Image) -> Image.Image:
        if scale == 1.0:
            return im if im.mode == "P" else palette.quantized(im)
        rgb = im.convert("RGB")
        return palette.quantized(rgb.resize((max(1, round(im.width * scale)),
                                             max(1, round(im.height * scale))),
                                            Image.Resampling.LANCZOS))
    pal = [fitted(im) for im in images]
    buf = io.BytesIO()
    pal[0].save(buf, "GIF", save_all=True, append_images=pal[1:],
                duration=durations(len(pal)), loop=0)
    return buf.getvalue()


def recap_gif(steps: Sequence[Step], title: Sequence[str], *, lang: str = "en",
              limit: int = LIMIT) -> bytes:
    """The recap as GIF bytes under `limit`: smaller frames when the full size is not, and
    at the smallest size still over it, every other phase left out (the title and the final
    table kept) until it fits. Returned over `limit` it was refused by Discord (413), and a
    `/rr-recap` was left on 'thinking…' (the fault-injection audit)."""
    images = paletted_frames(steps, title, lang=lang)
    data = b""
    for scale in SHRINK:
        data = encode_gif(images, scale)
        if len(data) <= limit:
            return data
    while len(data) > limit and len(images) > 2:
        images = [images[0], *images[1:-1][1::2], images[-1]]
        data = encode_gif(images, SHRINK[-1])
    return data
