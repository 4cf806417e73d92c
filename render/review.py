"""The game review's chart (issue 23): each person's estimated chance to win after each of
their decisions, one panel per person, the costliest decisions numbered on the line.

Drawn for a phone: 800 px wide, every text at least `text.readable(W)` so it stays legible
shown 400 px wide; the line in the seat's colour (Okabe–Ito), the turning points as numbered
discs (a number, not only a colour). It takes plain numbers and names, never a game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import i18n
from render import text as T
from render import theme as th
from render.api import encode
from render.draw import Canvas, fit_condensed

W = 800
PANEL_H = 350
HEAD = 64
MARGIN_L, MARGIN_R = 86, 24
SIZE = max(20.0, T.readable(W))  # the smallest text: legible at 400 px
TOP = 5  # the most turning points numbered
BAD = th.ELIMINATED  # the costliest decisions: a red that white digits read on (5.7:1)


@dataclass(frozen=True, slots=True)
class Panel:
    """One person: their name and seat, (round, chance after the decision) per decision in
    order, and the positions in that list of the costliest decisions, costliest first."""

    name: str
    seat: int
    points: Sequence[tuple[int, float]]
    marks: Sequence[int]


def review_png(panels: Sequence[Panel], *, lang: str = "en") -> bytes:
    """PNG bytes: one panel per person, the chance to win from 0 to 100 % over their
    decisions, round boundaries ruled, the costliest decisions numbered ①②③."""
    h = len(panels) * PANEL_H + 52
    c = Canvas(W, h, th.PAPER)
    for k, panel in enumerate(panels):
        _panel(c, panel, k * PANEL_H, lang)
    if any(p.marks for p in panels):
        _disc(c, MARGIN_L, h - 26, 1)
        c.text((MARGIN_L + 26, h - 26), i18n.t(lang, "review.chart_legend"), SIZE,
               th.INK_SOFT)
    return encode(c.image())


def _panel(c: Canvas, p: Panel, top: int, lang: str) -> None:
    c.rect((0, top, W, top + HEAD - 14), fill=th.HEADER)
    title, size, sx = _title(p.name, lang, W - 32)
    c.text((16, top + (HEAD - 14) / 2), title, size, th.HEADER_INK, bold=True, sx=sx)
    x0, x1 = MARGIN_L, W - MARGIN_R
    y0, y1 = top + HEAD + 12, top + PANEL_H - 78  # 100 % at y0, 0 % at y1
    for v in (0, 50, 100):
        y = y1 - (y1 - y0) * v / 100
        c.line([(x0, y), (x1, y)], th.GRID_LINE, 1 if v == 50 else 2)
        c.text((x0 - 10, y), f"{v}%", SIZE, th.INK, align="r")
    n = len(p.points)
    if n == 0:
        return

    def at(i: int) -> tuple[float, float]:
        x = x0 + (x1 - x0) * (i + 0.5) / n
        return x, y1 - (y1 - y0) * max(0.0, min(1.0, p.points[i][1]))

    # round boundaries: a faint rule where a round starts, its number under the axis; the
    # setup's placement (round 0) sits before round 1 unlabelled, so that round 1 keeps
    # its label (the two were too close, and the rule dropped the second)
    last = None
    label_x = -1e9
    for i, (rnd, _v) in enumerate(p.points):
        if rnd != last and rnd > 0:
            x = x0 + (x1 - x0) * i / n
            c.line([(x, y0), (x, y1)], th.SQUARE, 2)
            if x - label_x >= 34:  # labels never overlap
                c.text((x + 2, y1 + 22), str(rnd), SIZE, th.INK_SOFT)
                label_x = x
            last = rnd
    c.text((x1, y1 + 50), i18n.t(lang, "review.chart_axis"), SIZE, th.INK_SOFT, align="r")
    colour = th.seat_color(p.seat)
    c.line([at(i) for i in range(n)], colour, 4)
    if n == 1:  # one decision: a dot, since a line needs two
        x, y = at(0)
        c.ellipse((x - 8, y - 8, x + 8, y + 8), fill=colour)
    for k, i in enumerate(p.marks[:TOP]):
        if 0 <= i < n:
            _disc(c, *at(i), k + 1)


def _title(name: str, lang: str, room: float) -> tuple[str, float, float]:
    """The panel's title "<name>: chance to win after each decision" within `room`: at most
    squeezed to 62 %, and if even that is too wide the name is cut ("…"), never the words
    that say what the chart is (a 32-character name ran them off the chart)."""
    def fitted(n: str) -> tuple[str, float, float]:
        return fit_condensed(i18n.t(lang, "review.chart_title", name=n), room, SIZE + 4, SIZE,
                             bold=True, condense=0.62)

    whole = fitted(name)
    full = i18n.t(lang, "review.chart_title", name=name)
    if whole[0] == T.clean(full):
        return whole
    cut, out = T.clean(name), whole
    while len(cut) > 1:
        cut = cut[:-1].rstrip()
        out = fitted(cut + "…")
        if out[0] == T.clean(i18n.t(lang, "review.chart_title", name=cut + "…")):
            return out
    return out


def _disc(c: Canvas, x: float, y: float, k: int) -> None:
    """A turning point: a numbered disc (the number, not only the colour, says which)."""
    c.ellipse((x - 17, y - 17, x + 17, y + 17), fill=BAD, outline=th.WHITE, width=3)
    c.text((x, y), str(k), SIZE, th.WHITE, bold=True, align="c")
