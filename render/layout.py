"""Where things go on a board image: every coordinate derives from the square size.

Geometry (R2): column 6 (magic circles) is drawn on the LEFT, column 1 touches the castle on
the RIGHT; lanes A, B, C run top to bottom. Waiting queues (R10.4) sit off the left edge,
the castle (R9.2) off the right edge. One size parameter `s` (pixels per square) scales the
whole board, so the table can draw the same board smaller than the single-board image.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from render.text import readable
from render.view import parse_square

Box = tuple[int, int, int, int]

BOARD_SQUARE = 96  # single-board image: about 0.65 of its size at a 500 px preview
# Table boards for 3–4 players: stacked in one column at the single board's width, with
# squares as wide as the board's but shorter, drawn in the compact (table) piece style.
TABLE_SQUARE = 96
TABLE_SQUARE_H = 58


@dataclass(frozen=True, slots=True)
class BoardGeom:
    """Pixel layout of one board image of square size `s` (width) by `sh` (height).

    `compact` = table style: squares shorter than wide, no axis row (the table draws one
    shared axis strip above its boards).
    """

    s: int
    sh: int
    compact: bool
    pad: int
    header_h: int
    axis_h: int
    queue_w: int
    lane_w: int
    castle_w: int
    grid_x: int
    grid_y: int
    width: int
    height: int

    def square_box(self, col: int, lane: int) -> Box:
        """Inner box of a square (grid lines excluded), column 6 leftmost (R2)."""
        x = self.grid_x + (6 - col) * self.s
        y = self.grid_y + lane * self.sh
        return x + 1, y + 1, x + self.s - 1, y + self.sh - 1

    def box_of(self, square: object) -> Box | None:
        p = parse_square(square)
        return self.square_box(*p) if p else None

    def center_of(self, square: object) -> tuple[int, int] | None:
        b = self.box_of(square)
        return ((b[0] + b[2]) // 2, (b[1] + b[3]) // 2) if b else None

    def queue_box(self, lane: int) -> Box:
        """The waiting-queue cell of a lane, left of the magic circle (R10.4)."""
        y = self.grid_y + lane * self.sh
        return self.pad, y + 1, self.pad + self.queue_w, y + self.sh - 1

    def castle_box(self) -> Box:
        """The castle strip right of column 1 (R9.2)."""
        x = self.grid_x + 6 * self.s
        return x + 2, self.grid_y, x + 2 + self.castle_w, self.grid_y + 3 * self.sh

    def grid_box(self) -> Box:
        return self.grid_x, self.grid_y, self.grid_x + 6 * self.s, self.grid_y + 3 * self.sh

    def font(self, k: float) -> int:
        """A font size as a fraction of the square size (keeps proportions at any scale)."""
        return max(9, round(self.s * k))


@lru_cache(maxsize=8)
def board_geom(s: int = BOARD_SQUARE, compact: bool = False) -> BoardGeom:
    """The layout for square size `s`; cached because it is a pure function of it."""
    sh = TABLE_SQUARE_H * s // TABLE_SQUARE if compact else s
    pad = max(4, round(s * 0.08))
    header_h = round(s * (0.62 if not compact else 0.44))
    axis_h = round(s * 0.26) if not compact else 0
    queue_w = round(s * 0.8)
    lane_w = round(s * 0.22)
    castle_w = round(s * 0.8)
    grid_x = pad + queue_w + lane_w
    grid_y = header_h + axis_h
    width = grid_x + 6 * s + 2 + castle_w + pad
    height = grid_y + 3 * sh + (pad if not compact else 4)
    return BoardGeom(s, sh, compact, pad, header_h, axis_h, queue_w, lane_w, castle_w,
                     grid_x, grid_y, width, height)


# Every board and table image is one board wide; no text on them is drawn smaller than this
# (issue 20: its capitals are 7 px tall when the image is shown 400 px wide).
MIN_TEXT = readable(board_geom(BOARD_SQUARE).width)
