"""A player's rating over time (issue 24, `/rr-stats profile`): the rating after each rated
game as a line, with the model's uncertainty (±2σ) as a band behind it, in the board
images' palette.

Plain numbers in, PNG out (like render/stats.py): the chart knows nothing of games or
people, so it cannot show anything the profile's text does not.
"""

from __future__ import annotations

from collections.abc import Sequence

import i18n
from render import theme as th
from render.api import encode
from render.draw import Canvas

W, H = 560, 260
LEFT, RIGHT, TOP, BOTTOM = 52, 16, 46, 34
BAND = (200, 190, 170)  # ±2σ, the tables' back: 7 from the paper (ΔE2000) read as no band; now 12
SMALL = 14  # the axis: capitals 7.3 px once the chart is shown 400 px wide (text.READ_CAP)


def rating_chart_png(points: Sequence[tuple[float, float]], *, start: tuple[float, float],
                     provisional_games: int, lang: str = "en") -> bytes:
    """PNG bytes: `start` (mu, sigma) before the first game, then (mu, sigma) after each
    rated game; the games still provisional are drawn in the softer ink."""
    series = [start, *points]
    c = Canvas(W, H, th.PAPER)
    c.rect((0, 0, W, 34), fill=th.HEADER)
    c.text((14, 17), i18n.t(lang, "image.rating_title"), 18, th.HEADER_INK, bold=True)
    lo = min(mu - 2 * s for mu, s in series)
    hi = max(mu + 2 * s for mu, s in series)
    lo, hi = (lo - 1, hi + 1) if hi - lo < 2 else (lo, hi)
    x0, x1, y0, y1 = LEFT, W - RIGHT, TOP, H - BOTTOM
    n = max(1, len(series) - 1)

    def x(k: int) -> float:
        return x0 + (x1 - x0) * k / n

    def y(v: float) -> float:
        return y1 - (y1 - y0) * (v - lo) / (hi - lo)

    for k in range(5):  # the value axis: five labelled lines
        v = lo + (hi - lo) * k / 4
        c.line([(x0, y(v)), (x1, y(v))], th.GRID_LINE, 0.5)
        c.text((x0 - 6, y(v)), f"{v:.0f}", SMALL, th.INK_SOFT, align="r")
    upper = [(x(k), y(mu + 2 * s)) for k, (mu, s) in enumerate(series)]
    lower = [(x(k), y(mu - 2 * s)) for k, (mu, s) in enumerate(series)]
    if len(series) > 1:
        c.polygon(upper + lower[::-1], fill=BAND)
        for k in range(1, len(series)):
            ink = th.INK_SOFT if k <= provisional_games - 1 else th.SEATS[1]
            c.line([(x(k - 1), y(series[k - 1][0])), (x(k), y(series[k][0]))], ink, 2.5)
    for k, (mu, _s) in enumerate(series):
        c.ellipse((x(k) - 3, y(mu) - 3, x(k) + 3, y(mu) + 3), fill=th.INK)
    c.text((x0, H - 14), i18n.t(lang, "image.rating_axis", n=len(series) - 1), SMALL,
           th.INK_SOFT)
    return encode(c.image())
