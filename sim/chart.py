"""A PNG that shows a setting's balance at a glance: win rates with their 95 % intervals and
the spread of game length. Several summaries stack, so before/after sit one above the other:

    python -m sim.chart before.json after.json -o compare.png
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

W, ROW_H, PAD = 960, 260, 16
BG, INK, GRID = (250, 250, 247), (30, 30, 30), (210, 210, 205)
BAR, CI, FAIR, RND = (70, 120, 190), (20, 20, 20), (200, 60, 60), (90, 160, 110)


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # a Pillow without FreeType: the bitmap font still reads
        return ImageFont.load_default()


def _bars(d: ImageDraw.ImageDraw, box: tuple[int, int, int, int],
          items: list[tuple[str, dict[str, Any]]], fair: float | None) -> None:
    """Win-rate bars (0–100 %) with CI whiskers; a red line at the fair share."""
    x0, y0, x1, y1 = box
    small = _font(12)
    for pct in (0, 25, 50, 75, 100):
        y = y1 - (y1 - y0) * pct / 100
        d.line([(x0, y), (x1, y)], fill=GRID)
        d.text((x0 - 30, y - 7), f"{pct}%", fill=INK, font=small)
    if fair is not None:
        y = y1 - (y1 - y0) * fair
        d.line([(x0, y), (x1, y)], fill=FAIR, width=2)
    n = max(len(items), 1)
    slot = (x1 - x0) / n
    for k, (label, r) in enumerate(items):
        cx = x0 + slot * (k + 0.5)
        bw = min(60, slot * 0.6)
        top = y1 - (y1 - y0) * r["rate"]
        d.rectangle([cx - bw / 2, top, cx + bw / 2, y1], fill=BAR)
        lo = y1 - (y1 - y0) * r["ci95"][0]
        hi = y1 - (y1 - y0) * r["ci95"][1]
        d.line([(cx, lo), (cx, hi)], fill=CI, width=2)
        d.line([(cx - 6, lo), (cx + 6, lo)], fill=CI, width=2)
        d.line([(cx - 6, hi), (cx + 6, hi)], fill=CI, width=2)
        d.text((cx - bw / 2, top - 16), f"{100 * r['rate']:.1f}%", fill=INK, font=small)
        d.text((cx - bw / 2, y1 + 4), label, fill=INK, font=small)


def _rounds(d: ImageDraw.ImageDraw, box: tuple[int, int, int, int], s: dict[str, Any],
            cap: int) -> None:
    """Histogram of game length in rounds (1 … cap), the median marked."""
    x0, y0, x1, y1 = box
    small = _font(12)
    hist = {int(k): v for k, v in s["rounds"]["histogram"].items()}
    cap = max([cap, *hist])  # a game longer than the axis is drawn, never dropped
    top = max(hist.values(), default=1)
    bw = (x1 - x0) / cap
    for r in range(1, cap + 1):
        v = hist.get(r, 0)
        h = (y1 - y0) * v / top
        d.rectangle([x0 + bw * (r - 1) + 1, y1 - h, x0 + bw * r - 1, y1],
                    fill=FAIR if r == cap and v else RND)
        if r == 1 or r % 5 == 0:
            d.text((x0 + bw * (r - 1), y1 + 4), str(r), fill=INK, font=small)
    med = s["rounds"]["median"]
    xm = x0 + bw * (med - 0.5)
    d.line([(xm, y0), (xm, y1)], fill=INK, width=2)
    d.text((xm + 4, y0), f"median {med}", fill=INK, font=small)
    d.text((x1 - 190, y1 + 18), f"round cap reached {100 * s['round_cap_share']:.1f}%",
           fill=INK, font=small)


def draw_chart(panels: list[tuple[str, dict[str, Any]]], cap: int = 30) -> Image.Image:
    """One row per summary: its win rates on the left, its rounds on the right."""
    img = Image.new("RGB", (W, ROW_H * max(len(panels), 1)), BG)
    d = ImageDraw.Draw(img)
    title = _font(15)
    for i, (label, s) in enumerate(panels):
        y = i * ROW_H
        d.text((PAD, y + 6), f"{label}: {s['games']} games", fill=INK, font=title)
        box_l = (PAD + 34, y + 44, W // 2 - PAD, y + ROW_H - 40)
        box_r = (W // 2 + PAD, y + 44, W - PAD, y + ROW_H - 40)
        if "win_rate" in s:
            _bars(d, box_l, [("win rate", s["win_rate"])], None)
        else:
            items = [(f"turn {k + 1}", r) for k, r in enumerate(s["win_by_turn_position"])]
            _bars(d, box_l, items, s["fair_share"])
        _rounds(d, box_r, s, cap)
        if i:
            d.line([(0, y), (W, y)], fill=GRID, width=2)
    return img


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m sim.chart",
                                 description="Chart one or more `python -m sim --json` files.")
    ap.add_argument("files", nargs="+")
    ap.add_argument("-o", "--out", required=True)
    ns = ap.parse_args(argv)
    panels = []
    cap = 30
    for f in ns.files:
        doc = json.loads(Path(f).read_text(encoding="utf-8"))
        cap = max(cap, doc["config"]["round_cap"])
        panels.append((Path(f).stem, doc["summary"]))
    draw_chart(panels, cap).save(ns.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
