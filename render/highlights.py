"""What just happened: the last phase's events drawn over a board.

A player who was away reads the story from the picture: the path a unit walked, the roll
it made, damage dealt, monsters defeated or summoned, monster moves and attacks, fainted
units, invasions. Events are the engine's dicts; unknown types and malformed fields are
skipped, never fatal. Nothing here covers a name or a number (render/boxes.py): tags go to
the nearest free spot, move arrows through free strips, attacks and summons are frames on
the square's edge. The overlay is drawn at 1× (not supersampled like the cached sprites)
because it changes with every image and supersampling it would cost more than the board.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from PIL import Image

from engine.cards import CardSet
from render import boxes
from render import theme as th
from render import view as V
from render.draw import Canvas, arrow_head, composite, fit_condensed, text_w
from render.layout import MIN_TEXT, BoardGeom

Event = Mapping[str, Any]  # engine.Event, or one read back from a stored log
Box = boxes.Box
def events_for(events: Sequence[Event] | None, seat: int) -> list[Event]:
    """Events of one board: those naming this player, or naming no player at all.

    Damage and healing on one square are summed into one event, so an area attack followed
    by a roll on the same monster shows one readable "-3" instead of stacked labels.
    """
    out: list[Event] = []
    totals: dict[tuple[str, str], dict[str, Any]] = {}
    # a piece that fainted or was defeated is told by that tag; a "-2" beside it would only
    # crowd its square (issue 20)
    gone = {str(e.get("square")).upper() for e in events or [] if isinstance(e, dict)
            and e.get("type") in ("fainted", "defeated")}
    for e in events or []:
        if not isinstance(e, dict):
            continue
        p = e.get("player")
        if not (p is None or (isinstance(p, int) and p == seat)):
            continue
        if e.get("type") in ("damaged", "healed"):
            if str(e.get("square")).upper() in gone:
                continue
            k = (str(e.get("type")), str(e.get("square")).upper())
            if k in totals:
                totals[k]["amount"] = V.as_int(totals[k].get("amount")) + V.as_int(e.get("amount"))
                continue
            e = totals[k] = dict(e)
        out.append(e)
    return out


def draw_highlights(im: Image.Image, ox: int, oy: int, g: BoardGeom, view: Mapping[str, Any],
                    seat: int, events: Sequence[Event] | None, lang: str,
                    ink: list[Box] | None = None, backdrop: Sequence[Box] = ()) -> None:
    """Composite the highlights of `seat` onto the board drawn at (ox, oy).

    `ink` are the image boxes of this board's names and numbers (render/boxes.py): every tag
    is placed off them — with a gap, so a "-2" never reads as part of a "5" beside it — and
    every arrow runs through a strip free of them, so a highlight never hides what it is
    about (issues 7, 20). `backdrop` are the faint square names: no tag or arrow covers them
    either, nor does a tag cover another tag or an arrow. A tag with no free place near its
    square is left out: the story under the image tells it.
    """
    evs = events_for(events, seat)
    if not evs:
        return
    top = g.header_h
    ov = Canvas(g.width, g.height - top, (255, 255, 255, 0), mode="RGBA", ss=1)
    def here(bs: Sequence[Box]) -> list[Box]:
        return [(b[0] - ox, b[1] - oy - top, b[2] - ox, b[3] - oy - top) for b in bs]

    hl = _Highlighter(ov, g, top, lang, V.cards(view), here(ink or []), here(backdrop))
    # areas first, then lines, then labels: later layers stay on top
    with boxes.capture() as marks, boxes.labelling():
        for layer in (0, 1, 2):
            # tags that must sit on their own square or cell go first, while it is free
            for e in sorted(evs, key=lambda e: e.get("type") not in _OWN_SQUARE):
                hl.draw(e, layer)
    boxes.extend([(k if k in ("dropped", "tag", "arrow", "arrowhead") else "label", b)
                  for k, b in marks],
                 ox, oy + top)
    composite(im, ov, ox, oy + top)


_OWN_SQUARE = ("fainted", "defeated", "invaded", "queued")


@functools.cache
def _offsets(s: float, sh: float) -> tuple[tuple[float, float], ...]:
    """Tag centres to try around an anchor, nearest first (up to ~1.5 squares away). Kept
    per square size: sorting them for every image was a tenth of a bot image's CPU."""
    out = [(i * s / 4, j * sh / 4) for i in range(-7, 8) for j in range(-6, 7)]
    out.sort(key=lambda d: (d[0] / s) ** 2 + (d[1] / sh) ** 2)
    return tuple(out)


def _overlapping(found: Iterable[Box], area: Box) -> list[Box]:
    """The boxes of `found` that reach into `area` (a tag's search looks at those only)."""
    lx, ly, hx, hy = area
    return [k for k in found if k[2] > lx and k[0] < hx and k[3] > ly and k[1] < hy]


Run = tuple[str, list[tuple[float, float]]]  # "h" or "v", and the centres it passes


def _runs(cs: list[tuple[float, float]]) -> list[Run]:
    """The square centres of a path cut into its straight runs (each turn starts a run
    at the square it turns in)."""
    runs: list[Run] = []
    for a, b in zip(cs, cs[1:], strict=False):
        d = "h" if a[1] == b[1] else "v"
        if runs and runs[-1][0] == d:
            runs[-1][1].append(b)
        else:
            runs.append((d, [a, b]))
    return runs


def _clear(b: Box, near: list[Box], names: list[Box], gap: float) -> bool:
    """Box `b` keeps a `gap` from every box of `near` and cuts none of `names` (a name
    wholly under it is fine)."""
    b0, b1, b2, b3 = b
    if any(k0 < b2 + gap and b0 - gap < k2 and k1 < b3 + gap and b1 - gap < k3
           for k0, k1, k2, k3 in near):
        return False
    return not any(k0 < b2 and b0 < k2 and k1 < b3 and b1 < k3
                   and not (b0 <= k0 and k2 <= b2 and b1 <= k1 and k3 <= b3)
                   for k0, k1, k2, k3 in names)


class _Highlighter:
    def __init__(self, c: Canvas, g: BoardGeom, top: int, lang: str, cs: CardSet,
                 ink: list[Box], backdrop: list[Box]) -> None:
        self.c, self.g, self.top, self.lang, self.cs = c, g, top, lang, cs
        self.s = min(g.s, g.sh)  # table squares are shorter than wide
        self.ink = ink
        self.names = backdrop
        self.keep_off = ink + backdrop  # what no arrow or tag may cover
        self.placed: list[Box] = []  # tags and arrows already on this board
        gx0, gy0, gx1, gy1 = g.grid_box()
        # tags stay over the queues, the grid and the castle (not the header or axis row)
        self.area = (g.pad, gy0 - top, g.castle_box()[2], gy1 - top)
        # capitals ~7.6 px in a 400 px wide preview; 7 px on the short table squares
        self.tag_size = MIN_TEXT * (1.0 if g.compact else 1.08)
        self.gap = max(2.0, g.s * 0.03)  # between a tag and any name or number
        self.offsets = _offsets(g.s, g.sh)
        self.taken: set[str] = set()  # squares whose tag has been placed (one per square)

    def center(self, sq: object) -> tuple[float, float] | None:
        p = self.g.center_of(sq)
        return (p[0], p[1] - self.top) if p else None

    def box(self, sq: object) -> tuple[float, float, float, float] | None:
        b = self.g.box_of(sq)
        return (b[0], b[1] - self.top, b[2], b[3] - self.top) if b else None

    def draw(self, e: Event, layer: int) -> None:
        fn = getattr(self, f"_{e.get('type')}", None)
        if fn is not None:
            try:
                fn(e, layer)
            except (TypeError, ValueError, KeyError, IndexError):
                pass  # a malformed event is left out rather than failing the image

    # --- helpers -----------------------------------------------------------------------

    def has_ink(self, b: Box) -> bool:
        return any(boxes.meets(b, k) for k in self.ink)

    def outline(self, b: tuple[float, float, float, float], color: th.RGB, w: float = 0.0,
                alpha: int = 255, inner: float | None = None) -> None:
        """A frame around a square, on the grid line and the card's margin: it never
        reaches the card's text (the card is inset from its square, render/pieces.py)."""
        inset = max(2.0, min(self.g.s, self.g.sh) * 0.03) - 1.0  # the card's own margin
        inset = inset if inner is None else inner
        out = 2.0  # into the grid line and the neighbour's margin
        x0, y0, x1, y1 = b[0] - out, b[1] - out, b[2] + out, b[3] + out
        w = out + inset
        self.c.rect((x0, y0, x1, y1), outline=(*color, alpha), width=w)  # square: cheap
        for e in ((x0, y0, x1, y0 + w), (x0, y1 - w, x1, y1), (x0, y0, x0 + w, y1),
                  (x1 - w, y0, x1, y1)):
            boxes.add(e, "label")

    def free_line(self, horizontal: bool, lo: float, hi: float, span: tuple[float, float],
                  half: float, prefer: float) -> float | None:
        """Where a line of half-width `half` can run from span[0] to span[1] (x for a
        horizontal line) without touching ink: a coordinate in [lo, hi], nearest `prefer`."""
        a, b = min(span) - half, max(span) + half
        cuts = []
        for k in self.keep_off:
            k0, k1, m0, m1 = (k[0], k[2], k[1], k[3]) if horizontal else (k[1], k[3], k[0], k[2])
            if k0 < b and a < k1:
                cuts.append((m0 - half, m1 + half))
        cuts.sort()
        best: float | None = None
        start = lo
        for c0, c1 in [*cuts, (hi, hi)]:
            if c0 > start:  # free interval [start, min(c0, hi)]
                end = min(c0, hi)
                if end >= start:
                    y = min(max(prefer, start), end)
                    if best is None or abs(y - prefer) < abs(best - prefer):
                        best = y
            start = max(start, c1)
            if start > hi:
                break
        return best

    def arrow(self, pts: list[tuple[float, float]], color: th.RGB, w: float,
              head: float) -> None:
        if len(pts) < 2:
            return
        self.c.line(pts, (255, 255, 255, 200), w * 1.9)
        self.c.line(pts, (*color, 235), w)
        tip = arrow_head(pts[-1], pts[-2], head)
        self.c.polygon(tip, fill=(*color, 255), outline=(255, 255, 255, 230), width=1)
        hw = w * 0.95
        drawn = [(min(x0, x1) - hw, min(y0, y1) - hw, max(x0, x1) + hw, max(y0, y1) + hw)
                 for (x0, y0), (x1, y1) in zip(pts, pts[1:], strict=False)]
        xs, ys = [p[0] for p in tip], [p[1] for p in tip]
        drawn.append((min(xs), min(ys), max(xs), max(ys)))
        for b in drawn[:-1]:
            boxes.add(b, "arrow")
        boxes.add(drawn[-1], "arrowhead")
        self.placed.append(drawn[-1])  # a tag may cross a shaft, never hide where it points

    def tag(self, anchor: tuple[float, float], text: str, color: th.RGB,
            toward: tuple[float, float] | None = None, max_w: float | None = None,
            home: Box | None = None, within: bool = False, quiet: bool = False) -> bool:
        """A label pill about the square (or cell) `home`, placed as near `anchor` as it can
        be without covering — or touching: a gap stays — a name, a number, another tag or
        where an arrow points, and hiding a square's name whole or not at all; nudged toward
        `toward` (e.g. the attacker). Its centre stays on `home` or at most half a square
        off its edge, or the whole pill inside it (`within`), so it never reads as another
        square's. Its text stays readable: one or two lines, squeezed to fit `max_w`, never
        shrunk below MIN_TEXT. False if nowhere fits (counted as dropped unless `quiet`:
        the caller tries another form)."""
        lines, sz = self._tag_lines(text, max_w)
        w = max(text_w(t, sz, bold=True) * sx for t, sx in lines) + self.tag_size * 0.6
        h = sz * 1.35 + (len(lines) - 1) * sz * 1.05
        ax, ay = anchor
        if toward is not None:  # start the search a third of the way to `toward`
            ax, ay = ax + (toward[0] - ax) / 3, ay + (toward[1] - ay) / 3
        spot = self._free_spot(ax, ay, w / 2, h / 2, self._tag_tiers(home, within, w / 2, h / 2))
        if spot is not None:
            self._pill(spot, lines, sz, color)
            return True
        if not quiet:
            boxes.add((ax, ay, ax, ay), "dropped")  # counted by the tests: rare is fine
        return False

    def _free_spot(self, ax: float, ay: float, hw: float, hh: float,
                   tiers: list[Box]) -> Box | None:
        """The first box of half-size (hw, hh) about (ax, ay) + one of `offsets` (nearest
        first) whose centre is in a tier (the tiers in order), inside the drawing, a gap away
        from all ink and tags, and cutting no square name (hiding one whole is fine)."""
        x0a, y0a, x1a, y1a = self.area
        rx, ry = self.g.s * 1.8 + hw, self.g.sh * 1.6 + hh  # the search's reach
        reach = (ax - rx, ay - ry, ax + rx, ay + ry)
        near = _overlapping((*self.ink, *self.placed), reach)
        # a square name is background: a tag may hide one whole, never cut one ("5E")
        names = _overlapping(self.names, reach)
        # (checked in drawing order: a square's name comes before its small numbers)
        gap = self.gap
        for cx0, cy0, cx1, cy1 in tiers:
            for dx, dy in self.offsets:
                cx, cy = ax + dx, ay + dy
                if not (cx0 <= cx <= cx1 and cy0 <= cy <= cy1):
                    continue
                b = (cx - hw, cy - hh, cx + hw, cy + hh)
                if x0a <= b[0] and b[2] <= x1a and y0a <= b[1] and b[3] <= y1a \
                        and _clear(b, near, names, gap):
                    return b
        return None

    def _tag_lines(self, text: str, max_w: float | None) -> tuple[list[tuple[str, float]], float]:
        """A tag's lines, each with its horizontal squeeze to fit `max_w`, and their size:
        a two-line tag is set at MIN_TEXT, never smaller."""
        sz, pad = self.tag_size if "\n" not in text else MIN_TEXT, self.tag_size * 0.6
        lines: list[tuple[str, float]] = []
        for line in text.split("\n"):
            sx = 1.0
            if max_w and text_w(line, sz, bold=True) + pad > max_w:
                line, _sz, sx = fit_condensed(line, max_w - pad, sz, sz, bold=True,
                                              tight=True, condense=0.62)
            lines.append((line, sx))
        return lines, sz

    def _tag_tiers(self, home: Box | None, within: bool, hw: float, hh: float) -> list[Box]:
        """Where a tag's centre may be, tried in order: inside `home` (the pill wholly in it,
        when asked), or on it or off its edge by a fifth, then by half (the pill still
        straddles its edge); anywhere in the drawing without a home."""
        if home is None:
            return [self.area]
        hx0, hy0, hx1, hy1 = home
        if within:
            return [(hx0 + hw, hy0 + hh, hx1 - hw, hy1 - hh)]
        sw, shh = hx1 - hx0, hy1 - hy0
        return [(hx0 + f * sw, hy0 + f * shh, hx1 - f * sw, hy1 - f * shh) for f in (-0.2, -0.5)]

    def _pill(self, b: Box, lines: list[tuple[str, float]], sz: float, color: th.RGB) -> None:
        self.c.rect(b, fill=(*color, 240), outline=(255, 255, 255, 255), width=1.2,
                    radius=min(b[3] - b[1], sz * 1.35) / 3)
        cy = (b[1] + b[3]) / 2 - (len(lines) - 1) * sz * 1.05 / 2
        for i, (text, sx) in enumerate(lines):
            self.c.text(((b[0] + b[2]) / 2, cy + i * sz * 1.05), text, sz, (255, 255, 255, 255),
                        bold=True, align="m", sx=sx)
        self.placed.append(b)
        boxes.add(b, "tag")

    def hline(self, xs: list[float], cy: float, w: float) -> float | None:
        """A free y for a horizontal run over x in `xs`, inside the lane centred on cy."""
        g, half = self.g, w * 1.6  # the arrow head is 3 w tall
        top = cy - g.sh / 2 + 1
        return self.free_line(True, top + half, top + g.sh - 2 - half, (min(xs), max(xs)),
                              half, cy)

    def vline(self, cx: float, y0: float, y1: float, w: float) -> float | None:
        """A free x for a vertical run from y0 to y1 inside the column centred on cx."""
        half = w * 1.6
        return self.free_line(False, cx - self.g.s / 2 + 1 + half, cx + self.g.s / 2 - 1 - half,
                              (y0, y1), half, cx)

    def route(self, squares: list[object], w: float) -> list[tuple[float, float]] | None:
        """A polyline through `squares` (orthogonal steps), from the centre of the first
        (left empty by the move) to the edge of the last (where the piece now stands): its
        straight runs go where no name or number is (a free strip of a lane, a free column of
        a square). None when there is no such way."""
        cs = [c for c in (self.center(q) for q in squares) if c]
        if len(cs) < 2:
            return None
        runs = _runs(cs)
        last = runs[-1][1]
        (ax, ay), (bx, by) = last[-2], last[-1]
        sx = (bx > ax) - (bx < ax)
        sy = (by > ay) - (by < ay)
        last[-1] = (bx - sx * (self.g.s / 2 - 2), by - sy * (self.g.sh / 2 - 2))  # its edge
        ys = self._lane_ys(runs, w)
        if ys is None:
            return None
        out: list[tuple[float, float]] = []
        for k, (d, pts) in enumerate(runs):
            if d == "h":
                if not out:
                    out.append((pts[0][0], ys[k]))
                out.append((pts[-1][0], ys[k]))
                continue
            y0, y1 = ys.get(k - 1, pts[0][1]), ys.get(k + 1, pts[-1][1])
            x = self.vline(pts[0][0], y0, y1, w)
            if x is None:
                return None
            out += [(x, y0), (x, y1)]
        return [p for i, p in enumerate(out) if i == 0 or p != out[i - 1]]

    def _lane_ys(self, runs: list[Run], w: float) -> dict[int, float] | None:
        """The y of each horizontal run (by its index), on a free strip of its lane wide
        enough for the turns at its ends; None when one has no such strip."""
        g = self.g
        ys: dict[int, float] = {}
        for k, (d, pts) in enumerate(runs):
            if d != "h":
                continue
            xs = [p[0] for p in pts]
            for j in (k - 1, k + 1):  # a turn may happen anywhere in that column
                if 0 <= j < len(runs):
                    c = runs[j][1][0][0]
                    xs += [c - g.s / 2, c + g.s / 2]
            y = self.hline(xs, pts[0][1], w)
            if y is None:
                return None
            ys[k] = y
        return ys

    def path_arrow(self, squares: list[object], color: th.RGB) -> list[tuple[float, float]] | None:
        """Draw a move: a dot where it started, an arrow into the square it reached."""
        for w in (max(2.5, self.s * 0.045), 2.0):
            pts = self.route(squares, w)
            if pts and len(pts) >= 2:
                self.arrow(pts, color, w, w * 3)
                return pts
        c = self.center(squares[-1])
        if c:
            boxes.add((c[0], c[1], c[0], c[1]), "dropped")
        return None

    # --- event types ---------------------------------------------------------------------

    def _moved(self, e: Event, layer: int) -> None:
        if layer != 1:
            return
        pts = self.path_arrow(V.as_list(e.get("path")), th.HL_PATH)
        if pts:
            r = max(3.0, self.s * 0.06)
            x, y = pts[0]
            dot = (x - r, y - r, x + r, y + r)
            if not any(boxes.meets(dot, k) for k in self.keep_off):
                self.c.ellipse((x - r, y - r, x + r, y + r), fill=(255, 255, 255, 230),
                               outline=(*th.HL_PATH, 255), width=2)
                boxes.add((x - r, y - r, x + r, y + r), "label")

    def _monster_moved(self, e: Event, layer: int) -> None:
        if layer == 1:
            self.path_arrow([e.get("from"), e.get("to")], th.HL_MONSTER)

    def shorten(self, a: tuple[float, float], b: tuple[float, float], by: float) -> tuple[float, float]:
        dx, dy = b[0] - a[0], b[1] - a[1]
        d = max(1e-6, (dx * dx + dy * dy) ** 0.5)
        by = min(by, d * 0.5)
        return b[0] - dx / d * by, b[1] - dy / d * by

    def _rolled(self, e: Event, layer: int) -> None:
        """A dice attack (R8.2): attacker and target framed in the result's colour, and the
        total with the result ("8 hit") in a tag by the target; a roll under DEF reads "5 1dmg",
        not "miss": it still deals 1 (the new-player audit read "miss" as none)."""
        res = str(e.get("result", ""))
        color = th.RESULT.get(res, th.HL_ATTACK)
        a, b = self.box(e.get("from")), self.box(e.get("target"))
        if layer == 0:
            if a:
                self.outline(a, color, self.s * 0.03, alpha=170)
            if b:
                self.outline(b, color, self.s * 0.045)
        if layer == 2 and b:
            total = e.get("total")
            label = f"{V.as_int(total)} " if total is not None else ""
            ca = self.center(e.get("from"))
            self.tag(self.center(e.get("target")) or (0, 0),
                     label + th.word(f"result.{res}", self.lang), color, toward=ca, home=b)

    def _damaged(self, e: Event, layer: int) -> None:
        c, b = self.center(e.get("square")), self.box(e.get("square"))
        if layer == 2 and c:
            self.tag(c, f"-{V.as_int(e.get('amount'))}", th.HL_ATTACK, home=b)

    def _healed(self, e: Event, layer: int) -> None:
        c, b = self.center(e.get("square")), self.box(e.get("square"))
        if layer == 2 and c:
            self.tag(c, f"+{V.as_int(e.get('amount'))}", th.HL_MOVE, home=b)

    def _area(self, e: Event, layer: int) -> None:
        """A unit's ★ area attack: every square it covered (R8.2)."""
        for q in V.as_list(e.get("squares")):
            b = self.box(q)
            if layer == 0 and b:
                self.outline(b, th.HL_SKILL, self.s * 0.045)

    def _recruited(self, e: Event, layer: int) -> None:
        self._summoned(e, layer)

    def _placed(self, e: Event, layer: int) -> None:
        self._summoned(e, layer)

    def _levelup(self, e: Event, layer: int) -> None:
        b = self.box(e.get("square"))
        if layer == 0 and b:
            self.outline(b, th.LEVEL, self.s * 0.045)

    def _defeated(self, e: Event, layer: int) -> None:
        b = self.box(e.get("square"))
        if not b:
            return
        if layer == 0 and not self.has_ink(b):  # the cross only on the square left empty
            i = self.s * 0.2
            for p, q in (((b[0] + i, b[1] + i), (b[2] - i, b[3] - i)),
                         ((b[2] - i, b[1] + i), (b[0] + i, b[3] - i))):
                self.c.line([p, q], (*th.HL_ATTACK, 170), self.s * 0.07)
            boxes.add((b[0] + i, b[1] + i, b[2] - i, b[3] - i), "label")
        if layer == 2:  # in its own square: a tag across two squares names neither
            name = self.cs.name(str(e.get("card", "")), self.lang)
            self.tag(((b[0] + b[2]) / 2, (b[1] + b[3]) / 2), name, (90, 90, 100),
                     max_w=b[2] - b[0] - 2, home=b, within=True)

    def _summoned(self, e: Event, layer: int) -> None:
        b = self.box(e.get("square"))
        if b and layer == 0:
            self.outline(b, th.HL_ARRIVED, self.s * 0.045)

    def _queued(self, e: Event, layer: int) -> None:
        lane = str(e.get("lane", ""))
        if lane not in V.LANES or len(lane) != 1:
            return
        x0, y0, x1, y1 = self.g.queue_box(V.LANES.index(lane))
        b = (x0, y0 - self.top, x1, y1 - self.top)
        if layer == 0:
            self.outline(b, th.HL_ARRIVED, inner=0.5)
        if layer == 2:
            self.tag(((b[0] + b[2]) / 2, (b[1] + b[3]) / 2), th.word("new", self.lang),
                     th.HL_ARRIVED_TAG, max_w=b[2] - b[0] - 2, home=b)

    def _monster_attacked(self, e: Event, layer: int) -> None:
        a = self.box(e.get("from"))
        if layer == 0 and a:
            self.outline(a, th.HL_ATTACK, self.s * 0.03, alpha=170)
        for t in V.as_list(e.get("targets")):
            bx = self.box(t)
            if layer == 0 and bx:
                self.outline(bx, th.HL_ATTACK, self.s * 0.045)

    def _fainted(self, e: Event, layer: int) -> None:
        b = self.box(e.get("square"))
        if not b:
            return
        if layer == 0:
            self.outline(b, (120, 60, 150), self.s * 0.045)
        if layer == 2:
            name = self.cs.name(str(e.get("card", "")), self.lang)
            cx = (b[0] + b[2]) / 2
            # two lines inside its square: the whole name, never cut (issue 20); where a
            # monster has stepped in since, one line across its edge
            said = th.word("fainted", self.lang)
            if not self.tag((cx, (b[1] + b[3]) / 2), f"{name}\n{said}", (120, 60, 150),
                            max_w=b[2] - b[0] - 2, home=b, within=True, quiet=True):
                self.tag((cx, (b[1] + b[3]) / 2), f"{name} {said}", (120, 60, 150),
                         max_w=(b[2] - b[0]) * 1.6, home=b)

    def _invaded(self, e: Event, layer: int) -> None:
        x0, y0, x1, y1 = self.g.castle_box()
        b = (x0, y0 - self.top, x1, y1 - self.top)
        if layer == 0:
            self.outline(b, th.HL_ATTACK, inner=0.5)
        if layer == 2:
            self.tag(((x0 + x1) / 2, b[1] + self.s * 0.3), th.word("invaded", self.lang),
                     th.HL_ATTACK, max_w=b[2] - b[0] - 2, home=b)
