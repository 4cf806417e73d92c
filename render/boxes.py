"""Where names, numbers and labels end up on an image, for placing labels and for tests.

Every text the renderer draws and every pip row or threat shape is *ink* (a name or a
number a player reads); highlight tags, move arrows, outlines and the "Lv2" badge are
*labels*. Labels must never cover ink (issue 7): the highlight layer places its tags
away from the ink of the board it annotates, and `capture()` lets a test collect both kinds
for a whole image and check that no label box meets an ink box.

Collection is off unless a `capture()` is open in this thread's context, so drawing pays one
ContextVar read per text.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

Box = tuple[float, float, float, float]
Mark = tuple[str, Box]  # ("ink" | "label", (x0, y0, x1, y1))
# (text, cap height in the image's pixels, "ink" | "label", its box on the canvas drawn on:
# a cached sprite's or the highlight layer's own coordinates)
Written = tuple[str, float, str, Box]

_SINK: ContextVar[list[Mark] | None] = ContextVar("rr_render_boxes", default=None)
_KIND: ContextVar[str] = ContextVar("rr_render_box_kind", default="ink")
_WRITTEN: ContextVar[list[Written] | None] = ContextVar("rr_render_written", default=None)


@contextmanager
def capture() -> Iterator[list[Mark]]:
    """Collect the marks drawn inside the block (image coordinates of what is drawn)."""
    marks: list[Mark] = []
    token = _SINK.set(marks)
    try:
        yield marks
    finally:
        _SINK.reset(token)


@contextmanager
def background() -> Iterator[None]:
    """What is drawn inside the block is background, not ink: a cached layer (the board's
    square names, axis and castle) is drawn once per process, so marks taken from it would
    exist only in the first image drawn — a label's check would depend on what was drawn
    before. Its texts are still `written` (their sizes must be readable)."""
    token = _SINK.set(None)
    try:
        yield
    finally:
        _SINK.reset(token)


@contextmanager
def labelling() -> Iterator[None]:
    """Text drawn inside the block belongs to a label (a badge's own text is not ink)."""
    token = _KIND.set("label")
    try:
        yield
    finally:
        _KIND.reset(token)


@contextmanager
def writing() -> Iterator[list[Written]]:
    """Collect every text drawn inside the block with its cap height (issue 20: a text is
    readable at phone width when its capitals are tall enough once the image is scaled to
    400 px wide). Cached layers and sprites record only when they are drawn, so a test
    that wants every text of an image clears the renderer's caches first."""
    written: list[Written] = []
    token = _WRITTEN.set(written)
    try:
        yield written
    finally:
        _WRITTEN.reset(token)


def wrote(text: str, cap: float, box: Box) -> None:
    sink = _WRITTEN.get()
    if sink is not None:
        sink.append((text, cap, _KIND.get(), box))


def active() -> bool:
    return _SINK.get() is not None


def add(box: Box, kind: str | None = None) -> None:
    sink = _SINK.get()
    if sink is not None:
        sink.append((kind or _KIND.get(), box))


def extend(marks: tuple[Mark, ...] | list[Mark], dx: float, dy: float) -> None:
    """Re-add marks recorded in a sprite's own coordinates at its place in the image."""
    sink = _SINK.get()
    if sink is not None:
        sink.extend((k, (b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy)) for k, b in marks)


def meets(a: Box, b: Box) -> bool:
    """Whether two boxes overlap (touching edges do not count)."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
