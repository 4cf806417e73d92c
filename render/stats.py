"""The daily challenge's stats card: played / win % / streaks and the distribution of rounds
needed to win (Wordle's bar chart), drawn in the board images' palette.

It takes plain numbers, never a game: the stats of a player are public to that player only
by the bot's choice of where to send them, and the image has nothing else to leak.
"""

from __future__ import annotations

from collections.abc import Mapping

import i18n
from render import theme as th
from render.api import encode
from render.draw import Canvas

W = 520
BARS_TOP = 250  # where the first bar of the distribution is drawn


def stats_png(*, played: int, won: int, win_percent: int, win_streak: int,
              best_win_streak: int, played_streak: int, best_played_streak: int,
              best_points: int | None, rounds_to_win: Mapping[int, int],
              highlight: int | None = None, lang: str = "en") -> bytes:
    """PNG bytes: played, wins, win %, best score; the two streaks (days won in a row, days
    played out in a row) each with its best; then the distribution. `highlight` marks the
    bar of today's result in the seat colour."""
    w = {k: i18n.t(lang, f"stats.{k}") for k in ("title", "played", "won", "win", "best",
                                                    "win_streak", "day_streak", "dist",
                                                    "none")}
    rows = sorted(rounds_to_win.items())
    if rows:  # a continuous axis from the fastest to the slowest win, gaps shown as 0
        lo, hi = rows[0][0], rows[-1][0]
        rows = [(r, rounds_to_win.get(r, 0)) for r in range(lo, hi + 1)]
    bar_h, gap = 26, 6
    top = BARS_TOP
    h = top + max(1, len(rows)) * (bar_h + gap) + 20
    c = Canvas(W, h, th.PAPER)
    c.rect((0, 0, W, 44), fill=th.HEADER)
    c.text((16, 22), w["title"], 22, th.HEADER_INK, bold=True)
    best = f"{best_points:,}" if best_points is not None else "–"
    for y, cols in ((76, ((str(played), w["played"]), (str(won), w["won"]),
                          (str(win_percent), w["win"]), (best, w["best"]))),
                    (146, ((f"{win_streak}", w["win_streak"]),
                           (f"{played_streak}", w["day_streak"])))):
        cw = W / len(cols)
        for k, (num, label) in enumerate(cols):
            cx = cw * k + cw / 2
            c.text((cx, y), num, 30 if len(num) < 8 else 22, th.INK, bold=True, align="m")
            c.text((cx, y + 30), label, 14, th.INK_SOFT, align="m")
    for k, n in enumerate((best_win_streak, best_played_streak)):
        c.text((W / 4 + k * W / 2, 146 + 48), i18n.t(lang, "stats.streak_best", n=n), 13,
               th.INK_SOFT, align="m")
    c.text((16, top - 22), w["dist"], 16, th.INK, bold=True)
    if not rows:
        c.text((16, top + 14), w["none"], 16, th.INK_SOFT)
        return encode(c.image())
    most = max(n for _, n in rows) or 1
    x0, x1 = 56, W - 16
    for k, (rounds, n) in enumerate(rows):
        y = top + k * (bar_h + gap)
        c.text((x0 - 10, y + bar_h / 2), str(rounds), 16, th.INK, bold=True, align="r")
        bw = max(34.0, (x1 - x0) * n / most)
        fill = th.SEATS[1] if rounds == highlight else th.HEADER
        c.rect((x0, y, x0 + bw, y + bar_h), fill=fill, radius=3)
        c.text((x0 + bw - 8, y + bar_h / 2), str(n), 15,
               th.INK if fill == th.SEATS[1] else th.WHITE, bold=True, align="r")
    return encode(c.image())
