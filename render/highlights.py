"""What just happened: the last phase's events drawn over a board.

A player who was away reads the story from the picture: the path a unit walked, the roll
it made, damage dealt, monsters defeated or summoned, monster moves and attacks, fainted
units, invasions. Events are the engine's dicts; unknown types and malformed fields are
skipped, never fatal. The overlay is translucent, so the cards under it stay readable; it is
drawn at 1× (not supersampled like the cached sprites) because it changes with every image
and supersampling it would cost more than the rest of the board.
"""

from __future__ import annotations

from typing import Any

from PIL import Image

from engine.cards import CardSet
from render import theme as th
from render import view as V
from render.draw import Canvas, arrow_head, composite, fit, text_w
from render.layout import BoardGeom

Event = dict[str, Any]
_RESULT_WORDS = {
    "hit": ("hit", "命中"), "miss": ("miss", "ミス"),
    "critical": ("critical", "クリティカル"), "fumble": ("fumble", "ファンブル"),
}


def events_for(events: list[Event] | None, seat: int) -> list[Event]:
    """Events of one board: those naming this player, or naming no player at all.

    Damage and healing on one square are summed into one event, so an area attack followed
    by a roll on the same monster shows one readable "-3" instead of stacked labels.
    """
    out: list[Event] = []
    totals: dict[tuple[str, str], Event] = {}
    for e in events or []:
        if not isinstance(e, dict):
            continue
        p = e.get("player")
        if not (p is None or (isinstance(p, int) and p == seat)):
            continue
        if e.get("type") in ("damaged", "healed"):
            k = (str(e.get("type")), str(e.get("square")).upper())
            if k in totals:
                totals[k]["amount"] = V.as_int(totals[k].get("amount")) + V.as_int(e.get("amount"))
                continue
            e = totals[k] = dict(e)
        out.append(e)
    return out


def draw_highlights(im: Image.Image, ox: int, oy: int, g: BoardGeom, view: dict[str, Any],
                    seat: int, events: list[Event] | None, lang: str) -> None:
    """Composite the highlights of `seat` onto the board drawn at (ox, oy)."""
    evs = events_for(events, seat)
    if not evs:
        return
    top = g.header_h
    ov = Canvas(g.width, g.height - top, (255, 255, 255, 0), mode="RGBA", ss=1)
    hl = _Highlighter(ov, g, top, lang, V.cards(view))
    # areas first, then lines, then labels: later layers stay on top
    for layer in (0, 1, 2):
        for e in evs:
            hl.draw(e, layer)
    composite(im, ov, ox, oy + top)


class _Highlighter:
    def __init__(self, c: Canvas, g: BoardGeom, top: int, lang: str, cs: CardSet) -> None:
        self.c, self.g, self.top, self.lang, self.cs = c, g, top, lang, cs
        self.s = min(g.s, g.sh)  # table squares are shorter than wide

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

    def outline(self, b: tuple[float, float, float, float], color: th.RGB, w: float,
                alpha: int = 255) -> None:
        self.c.rect(b, outline=(*color, alpha), width=w, radius=self.s * 0.08)

    def arrow(self, pts: list[tuple[float, float]], color: th.RGB, w: float) -> None:
        if len(pts) < 2:
            return
        self.c.line(pts, (255, 255, 255, 200), w * 1.9)
        self.c.line(pts, (*color, 235), w)
        head = arrow_head(pts[-1], pts[-2], w * 3.2)
        self.c.polygon(head, fill=(*color, 255), outline=(255, 255, 255, 230), width=1)

    def tag(self, x: float, y: float, text: str, color: th.RGB, anchor: str = "m",
            size: float | None = None, max_w: float | None = None) -> None:
        """A small label pill; `anchor` l/m/r places it by its left, centre or right."""
        sz = (size or self.s * 0.17) * (1.45 if self.g.compact else 1.0)
        if max_w:
            text, sz = fit(text, max_w - sz * 0.8, sz, sz * 0.7, bold=True)
        w = text_w(text, sz, bold=True) + sz * 0.8
        x0 = x - w / 2 if anchor == "m" else (x - w if anchor == "r" else x)
        self.c.rect((x0, y - sz * 0.75, x0 + w, y + sz * 0.75), fill=(*color, 240),
                    outline=(255, 255, 255, 255), width=1.2, radius=sz * 0.5)
        self.c.text((x0 + w / 2, y), text, sz, (255, 255, 255, 255), bold=True, align="m")

    def shorten(self, a: tuple[float, float], b: tuple[float, float], by: float) -> tuple[float, float]:
        dx, dy = b[0] - a[0], b[1] - a[1]
        d = max(1e-6, (dx * dx + dy * dy) ** 0.5)
        return b[0] - dx / d * by, b[1] - dy / d * by

    # --- event types ---------------------------------------------------------------------

    def _moved(self, e: Event, layer: int) -> None:
        low = self.s * 0.2  # below the pips: the unit's name and HP stay readable
        pts = [(p[0], p[1] + low) for p in (self.center(q) for q in V.as_list(e.get("path"))) if p]
        if layer != 1 or len(pts) < 2:
            return
        r = self.s * 0.07
        x, y = pts[0]
        self.c.ellipse((x - r, y - r, x + r, y + r), fill=(255, 255, 255, 230),
                       outline=(*th.HL_PATH, 255), width=2)
        pts[-1] = self.shorten(pts[-2], pts[-1], self.s * 0.22)
        self.arrow(pts, th.HL_PATH, self.s * 0.055)

    def _monster_moved(self, e: Event, layer: int) -> None:
        a, b = self.center(e.get("from")), self.center(e.get("to"))
        if layer == 1 and a and b and a != b:
            off = self.s * 0.3  # along the top edge: leaves the monster's name readable
            pts = [(a[0], a[1] - off), self.shorten((a[0], a[1] - off), (b[0], b[1] - off),
                                                    self.s * 0.3)]
            self.arrow(pts, th.HL_MONSTER, self.s * 0.05)

    def _rolled(self, e: Event, layer: int) -> None:
        a, b = self.center(e.get("from")), self.center(e.get("target"))
        res = str(e.get("result", ""))
        color = th.RESULT.get(res, th.HL_ATTACK)
        if layer == 1 and a and b and a != b:
            self.arrow([a, self.shorten(a, b, self.s * 0.3)], color, self.s * 0.045)
        if layer == 2 and b:
            a = a or b
            dice = V.as_list(e.get("dice"))
            words = _RESULT_WORDS.get(res, (res, res))
            roll = "+".join(str(V.as_int(d)) for d in dice[:2])
            total = e.get("total")
            label = f"{roll}={V.as_int(total)} " if dice and total is not None else ""
            mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) if a and a != b else b
            self.tag(mid[0], mid[1], label + words[1 if self.lang == "ja" else 0], color,
                     size=self.s * 0.15)

    def _damaged(self, e: Event, layer: int) -> None:
        b = self.box(e.get("square"))
        if layer == 2 and b:
            self.tag(b[2] + self.s * 0.06, b[1] - self.s * 0.01,
                     f"-{V.as_int(e.get('amount'))}", th.HL_ATTACK, anchor="r", size=self.s * 0.17)

    def _healed(self, e: Event, layer: int) -> None:
        b = self.box(e.get("square"))
        if layer == 2 and b:
            self.tag(b[2] + self.s * 0.06, b[1] - self.s * 0.01,
                     f"+{V.as_int(e.get('amount'))}", th.HL_MOVE, anchor="r", size=self.s * 0.17)

    def _area(self, e: Event, layer: int) -> None:
        """A unit's ★ area attack: every square it covered (R8.2)."""
        for q in V.as_list(e.get("squares")):
            b = self.box(q)
            if layer == 0 and b:
                self.c.rect(b, fill=(*th.HL_SKILL, 50), outline=(*th.HL_SKILL, 255),
                            width=self.s * 0.05, radius=self.s * 0.08)

    def _recruited(self, e: Event, layer: int) -> None:
        self._summoned(e, layer)

    def _placed(self, e: Event, layer: int) -> None:
        self._summoned(e, layer)

    def _levelup(self, e: Event, layer: int) -> None:
        b = self.box(e.get("square"))
        if layer == 0 and b:
            self.outline(b, th.LEVEL, self.s * 0.06)

    def _defeated(self, e: Event, layer: int) -> None:
        b = self.box(e.get("square"))
        if not b:
            return
        if layer == 0:
            i = self.s * 0.2
            for p, q in (((b[0] + i, b[1] + i), (b[2] - i, b[3] - i)),
                         ((b[2] - i, b[1] + i), (b[0] + i, b[3] - i))):
                self.c.line([p, q], (*th.HL_ATTACK, 170), self.s * 0.07)
        if layer == 2:
            name = self.cs.name(str(e.get("card", "")), self.lang)
            self.tag((b[0] + b[2]) / 2, b[3] - self.s * 0.14, name, (90, 90, 100),
                     size=self.s * 0.14, max_w=b[2] - b[0])

    def _summoned(self, e: Event, layer: int) -> None:
        b = self.box(e.get("square"))
        if not b:
            return
        if layer == 0:
            self.outline(b, th.HL_NEW, self.s * 0.06)
        if layer == 2:
            self.tag(b[0] - self.s * 0.05, b[1] - self.s * 0.02, th.word("new", self.lang),
                     (200, 140, 0), anchor="l", size=self.s * 0.14)

    def _queued(self, e: Event, layer: int) -> None:
        lane = str(e.get("lane", ""))
        if lane not in V.LANES or len(lane) != 1:
            return
        x0, y0, x1, y1 = self.g.queue_box(V.LANES.index(lane))
        b = (x0, y0 - self.top, x1, y1 - self.top)
        if layer == 0:
            self.outline(b, th.HL_NEW, self.s * 0.05)
        if layer == 2:
            self.tag((b[0] + b[2]) / 2, b[3] - self.s * 0.12, th.word("new", self.lang),
                     (200, 140, 0), size=self.s * 0.13)

    def _monster_attacked(self, e: Event, layer: int) -> None:
        a = self.center(e.get("from"))
        for t in V.as_list(e.get("targets")):
            b, bx = self.center(t), self.box(t)
            if layer == 0 and bx:
                self.outline(bx, th.HL_ATTACK, self.s * 0.06)
            if layer == 1 and a and b and a != b:
                self.arrow([a, self.shorten(a, b, self.s * 0.3)], th.HL_ATTACK, self.s * 0.05)

    def _fainted(self, e: Event, layer: int) -> None:
        b = self.box(e.get("square"))
        if not b:
            return
        if layer == 0:
            self.c.rect(b, fill=(120, 60, 150, 60), outline=(120, 60, 150, 230),
                        width=self.s * 0.05, radius=self.s * 0.08)
        if layer == 2:
            name = self.cs.name(str(e.get("card", "")), self.lang)
            cx = (b[0] + b[2]) / 2
            self.tag(cx, b[1] + self.s * 0.3, name, (120, 60, 150), size=self.s * 0.14,
                     max_w=b[2] - b[0])
            self.tag(cx, b[3] - self.s * 0.2, th.word("fainted", self.lang), (120, 60, 150),
                     size=self.s * 0.14, max_w=b[2] - b[0])

    def _invaded(self, e: Event, layer: int) -> None:
        x0, y0, x1, y1 = self.g.castle_box()
        b = (x0, y0 - self.top, x1, y1 - self.top)
        if layer == 0:
            self.outline(b, th.HL_ATTACK, self.s * 0.07)
        if layer == 2:
            self.tag((x0 + x1) / 2, b[1] + self.s * 0.2, th.word("invaded", self.lang),
                     th.HL_ATTACK, size=self.s * 0.13)
