"""A closed day's score distribution (the daily review): how everyone who finished scored,
with the reader's own score and the bots' marked, in the stats card's palette.

Scores sit in outcome bands a million points apart (docs/daily.md: a resign below 1,000,000,
a loss from 1,000,000, a win from 2,000,000), so a histogram over the whole range would be
mostly empty. Bars are BIN-point steps, and only bands that hold a score are drawn; a gap
between two bands is one thin rule. It takes plain numbers, never a game or a name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import i18n
from render import text as T
from render import theme as th
from render.api import encode
from render.draw import Canvas

W = 560
BIN = 50_000  # points per bar: five rounds or monsters (docs/daily.md)
BAND = 1_000_000  # the outcome bands
TOP = 70
SMALL = 14  # the smallest text: capitals 7.3 px once shown 400 px wide (text.READ_CAP)


def bins(scores: Sequence[int], marks: Sequence[int] = ()) -> list[tuple[int, int] | None]:
    """(bin start, count) from the lowest to the highest bin of each band that holds a
    score or a mark, bands in order; None between two bands (the gap)."""
    counts = Counter(s // BIN * BIN for s in scores)
    held = sorted({v // BIN * BIN for v in (*scores, *marks)})
    out: list[tuple[int, int] | None] = []
    for band in sorted({b // BAND for b in held}):
        inside = [b for b in held if b // BAND == band]
        if out:
            out.append(None)
        out += [(b, counts.get(b, 0)) for b in range(inside[0], inside[-1] + BIN, BIN)]
    return out


def scores_png(scores: Sequence[int], *, number: int, mine: int | None = None,
               bots: Mapping[str, int] | None = None, lang: str = "en") -> bytes:
    """PNG bytes: one horizontal bar per BIN points, the count at its end; the bar holding
    `mine` in the seat colour and tagged "you", the bars holding a bot's score tagged with
    its level's name."""
    bots = dict(bots or {})
    marks = [v for v in (mine, *bots.values()) if v is not None]
    rows = bins(scores, marks)
    bar_h, gap = 22, 5
    h = TOP + max(1, len(rows)) * (bar_h + gap) + 36
    c = Canvas(W, h, th.PAPER)
    c.rect((0, 0, W, 44), fill=th.HEADER)
    c.text((16, 22), i18n.t(lang, "stats.scores_title", n=number), 20, th.HEADER_INK,
           bold=True)
    c.text((16, TOP - 14), i18n.tn(lang, "stats.scores_count", len(scores)), 14, th.INK_SOFT)
    if not rows:
        c.text((16, TOP + 14), i18n.t(lang, "stats.scores_none"), 16, th.INK_SOFT)
        return encode(c.image())
    most = max((r[1] for r in rows if r is not None), default=1) or 1
    x0, x1 = 120, W - 150
    for k, row in enumerate(rows):
        y = TOP + k * (bar_h + gap)
        if row is None:
            c.rect((16, y + bar_h / 2 - 1, W - 16, y + bar_h / 2 + 1), fill=th.INK_SOFT)
            continue
        start, n = row
        c.text((x0 - 8, y + bar_h / 2), f"{start:,}", SMALL, th.INK, align="r")
        tags = []
        if mine is not None and mine // BIN * BIN == start:
            tags.append(i18n.t(lang, "stats.scores_you"))
        tags += [i18n.t(lang, "stats.scores_bot", level=i18n.t(lang, f"level.{level}"))
                 for level, v in bots.items() if v // BIN * BIN == start]
        fill = th.SEATS[1] if tags and mine is not None and mine // BIN * BIN == start \
            else th.HEADER
        bw = (x1 - x0) * n / most
        if n:
            c.rect((x0, y, x0 + max(bw, 26.0), y + bar_h), fill=fill, radius=3)
            c.text((x0 + max(bw, 26.0) - 6, y + bar_h / 2), str(n), SMALL,
                   th.INK if fill == th.SEATS[1] else th.WHITE, bold=True,
                   align="r")
        if tags:
            tx = x0 + max(bw, 26.0) + 8  # squeezed (then cut) to end inside the card
            tag, size, sx = T.fit_condensed("◀ " + " · ".join(tags), int(W - 6 - tx), SMALL,
                                            SMALL, T.BOLD, condense=0.62)
            c.text((tx, y + bar_h / 2), tag, size, th.INK, bold=True, sx=sx)
    c.text((16, h - 18), i18n.t(lang, "stats.scores_axis", step=f"{BIN:,}"), SMALL, th.INK_SOFT)
    return encode(c.image())
