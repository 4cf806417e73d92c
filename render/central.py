"""The central row of the table: command cards, phase cards, mercenaries, decks, round.

Layout scales with the panel width, because the panel spans one board (1–2 players) or two
(3–4 players) and must read at the same preview width either way. Card faces are cached
sprites per (card, state, size); only numbers and names are drawn per image.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from PIL import Image

from engine.cards import UnitCard
from render import text as T
from render import theme as th
from render import view as V
from render.draw import Canvas, check_mark, fit_condensed, text_w
from render.layout import MIN_TEXT
from render.pieces import card_name

PHASE_CARDS = ("invasion", "summon", "end")
PHASE_MARKS = {"invasion": "⑤", "summon": "⑥", "end": "⑦"}
CARD_FACE: th.RGB = (250, 246, 236)
PHASE_FACE: th.RGB = (214, 222, 236)
DONE_FACE: th.RGB = (196, 194, 190)
PANEL: th.RGB = (226, 218, 200)


@lru_cache(maxsize=256)
def row_card(name: str, done: bool, phase: bool, current: bool, leader: int | None, w: int,
             h: int) -> Image.Image:
    """A command or phase card in the row: done = executed this round; current = pawn on it."""
    c = Canvas(w, h, PANEL)
    face = DONE_FACE if done else (PHASE_FACE if phase else CARD_FACE)
    c.rect((1, 1, w - 1, h - 1), fill=face, outline=th.HL_NEW if current else th.INK,
           width=max(1.5, h * 0.07) if current else 1, radius=h * 0.12)
    t, sz, sx = fit_condensed(name, w * 0.9, max(MIN_TEXT, h * 0.36), MIN_TEXT, bold=True,
                              tight=True, condense=0.62)
    c.text((w / 2, h * (0.36 if done or current else 0.5)), t, sz,
           (90, 90, 90) if done else th.INK, bold=True, align="m", sx=sx)
    if done:
        r = h * 0.17
        c.ellipse((w / 2 - r, h * 0.78 - r, w / 2 + r, h * 0.78 + r), fill=th.INK)
        check_mark(c, w / 2, h * 0.78, r * 0.85, th.WHITE, max(1.5, h * 0.045))
    if current:
        _pawn(c, w - h * 0.28, h * 0.72, h * 0.2)
        if leader is not None:
            r = max(h * 0.18, MIN_TEXT / 1.4)
            c.ellipse((h * 0.1, h * 0.72 - r, h * 0.1 + 2 * r, h * 0.72 + r),
                      fill=th.seat_color(leader), outline=th.INK, width=1)
            c.text((h * 0.1 + r, h * 0.72), str(leader + 1), MIN_TEXT, th.INK, bold=True,
                   align="m")
    return c.image()


def _pawn(c: Canvas, cx: float, cy: float, r: float) -> None:
    """The round's pawn: on the card being resolved now (R5)."""
    c.polygon([(cx - r * 0.9, cy + r * 1.1), (cx + r * 0.9, cy + r * 1.1), (cx + r * 0.35, cy - r * 0.1),
               (cx - r * 0.35, cy - r * 0.1)], fill=th.HL_NEW, outline=th.INK, width=1)
    c.ellipse((cx - r * 0.55, cy - r * 1.05, cx + r * 0.55, cy + r * 0.05), fill=th.HL_NEW,
              outline=th.INK, width=1)


@lru_cache(maxsize=128)
def merc_card(uc: UnitCard | None, key: str | None, w: int, h: int, lang: str) -> Image.Image:
    """A mercenary on offer: name and cost (R7.1); an empty dashed slot once taken."""
    c = Canvas(w, h, PANEL)
    if key is None:
        c.rect((2, 2, w - 2, h - 2), outline=th.INK_SOFT, width=1, radius=h * 0.12)
        t, sz, sx = fit_condensed(th.word("taken", lang), w - 8, MIN_TEXT, MIN_TEXT,
                                  condense=0.62)
        c.text((w / 2, h / 2), t, sz, th.INK_SOFT, align="m", sx=sx)
        return c.image()
    c.rect((1, 1, w - 1, h - 1), fill=th.UNIT_CARD, outline=th.INK, width=1, radius=h * 0.12)
    t, sz, sx = fit_condensed(card_name(uc, key, lang), w * 0.92, max(MIN_TEXT, h * 0.34),
                              MIN_TEXT, bold=True, tight=True, condense=0.62)
    c.text((w / 2, h * 0.3), t, sz, th.INK, bold=True, align="m", sx=sx)
    if uc:
        # cost coin, then HP and MOV, centred together under the name
        r = max(h * 0.19, MIN_TEXT / 1.4)
        stats, ssz, ssx = fit_condensed(f"HP{uc.hp} {th.word('mov', lang)}{uc.mov}",
                                        w * 0.94 - r * 2.5, MIN_TEXT, MIN_TEXT, bold=True,
                                        condense=0.62)
        total = r * 2.5 + text_w(stats, ssz, bold=True) * ssx
        cx, cy = (w - total) / 2 + r, h * 0.72
        c.ellipse((cx - r, cy - r, cx + r, cy + r), fill=th.GOLD, outline=(150, 110, 0), width=1)
        c.text((cx, cy), str(uc.cost), r * 1.4, th.INK, bold=True, align="m")
        c.text((cx + r * 1.5, cy), stats, ssz, th.INK, bold=True, sx=ssx)
    return c.image()


@lru_cache(maxsize=64)
def info_box(w: int, h: int) -> Image.Image:
    c = Canvas(w, h, PANEL)
    c.rect((1, 1, w - 1, h - 1), fill=(246, 240, 226), outline=th.GRID_LINE, width=1,
           radius=h * 0.12)
    return c.image()


def panel_height(width: int) -> int:
    u = width / 8
    return round(u * 0.42) + round(u * 0.58) + round(u * 0.08) + round(u * 0.8) + round(u * 0.1)


def draw_central(im: Image.Image, ox: int, oy: int, width: int, view: Mapping[str, Any],
                 lang: str) -> None:
    """Title line, then the 8-card row, then mercenaries and deck sizes."""
    u = width / 8
    im.paste(PANEL, (ox, oy, ox + width, oy + panel_height(width)))
    _title(im, ox, oy, width, view, lang)
    y1 = oy + round(u * 0.42)
    _card_row(im, ox, y1, width, view, lang)
    _supply_row(im, ox, y1 + round(u * 0.58) + round(u * 0.08), width, view, lang)


def _title(im: Image.Image, ox: int, oy: int, width: int, view: Mapping[str, Any],
           lang: str) -> None:
    """Round and phase on the left; the start player (or the result) on the right."""
    u = width / 8
    pad = round(u * 0.06)
    ty = oy + round(u * 0.24)
    big = max(math.ceil(MIN_TEXT), round(u * 0.2))
    # kept as placement ended, the state is in round 1 already; placement is round 0 (R4)
    rnd = 0 if view.get("after") == "placement" else V.as_int(view.get("round"))
    title = th.round_title(rnd, stage_name(view, lang), lang)
    x = ox + pad + T.draw(im, (ox + pad, ty), title, big, th.INK, weight=T.BOLD)
    result = V.as_dict(view.get("result"))
    right_text = ""
    if result:
        winners = [V.name(V.player(view, s), s) for s in V.as_list(result.get("winners"))
                   if isinstance(s, int)]
        right_text = th.word("monsters_won", lang) if not winners else \
            (th.word("draw", lang) + ": " if result.get("draw") else
             th.word("winner", lang) + ": ") + th.listing(winners, lang)
    elif len(V.players(view)) > 1 and isinstance(view.get("start_player"), int):
        sp = view["start_player"]
        right_text = f"{th.word('start', lang)}: {sp + 1} {V.name(V.player(view, sp), sp)}"
    if right_text:
        avail = ox + width - pad - x - round(u * 0.3)
        t, sz = T.fit(right_text, avail, big, math.ceil(MIN_TEXT), T.BOLD)
        T.draw(im, (ox + width - pad, ty), t, sz, th.INK, weight=T.BOLD, align="r")


def stage_name(view: Mapping[str, Any], lang: str) -> str:
    """What the image shows the end of: the card or phase named by `after` (set on views
    kept as a phase ends, when the state has already moved on), else the current phase."""
    after = view.get("after")
    if isinstance(after, str) and after in PHASE_CARDS:
        return f"{PHASE_MARKS[after]} {th.phase_name(after, lang)}"
    if isinstance(after, str) and after in V.cards(view).commands:
        return V.cards(view).name(after, lang)
    if after == "placement":
        return th.phase_name("placement", lang)
    return th.phase_name(view.get("phase"), lang)


def _card_row(im: Image.Image, ox: int, y: int, width: int, view: Mapping[str, Any],
              lang: str) -> None:
    """The 5 command cards in row order (executed ones ticked), then the 3 phase cards; the
    pawn stands on the card being resolved (R5, R6)."""
    u = width / 8
    pad, gap, ch = round(u * 0.06), round(u * 0.05), round(u * 0.58)
    cw = (width - 2 * pad - 7 * gap) // 8
    cs = V.cards(view)
    row = [str(k) for k in V.as_list(view.get("row"))][:5]
    executed = {str(k) for k in V.as_list(view.get("executed"))}
    current = view.get("current")
    leader = view.get("leader") if isinstance(view.get("leader"), int) else None
    phase = str(view.get("phase"))
    order = ("placement", "main", "auto", "invasion", "summon", "end", "over")
    after = view.get("after")
    if after in PHASE_CARDS and phase != "over":
        # the view was kept as that phase ended: the pawn stands on it, earlier ones are done
        # (the state has moved on to the next phase already, R5)
        phase, current, leader = str(after), after, None
        if after == "end":  # R11.4 reset: the row is next round's, nothing executed on it yet
            executed = set()
    elif isinstance(after, str) and after in V.cards(view).commands:
        current, leader = after, None
    phase = _ended_in(view, phase)
    pidx = order.index(phase) if phase in order else 0
    for i, key in enumerate(row + list(PHASE_CARDS)):
        is_phase = i >= len(row)
        done = (order.index(key) < pidx or phase == "over") if is_phase else key in executed
        cur = key == current or (is_phase and key == phase and current is None)
        name = (f"{PHASE_MARKS.get(key, '')}{th.word(key, lang)}" if is_phase
                else cs.name(key, lang))
        spr = row_card(name, done and not cur, is_phase, cur, leader if cur else None, cw, ch)
        im.paste(spr, (ox + pad + i * (cw + gap), y))


def _ended_in(view: Mapping[str, Any], phase: str) -> str:
    """A finished game's row stands at the phase it ended in (`result.ended_in`, rules 3):
    a game that ends in the Main phase (R13.2, R14.3) never reached ⑤⑥⑦, so they are not
    ticked. An older game's result does not say: every phase card reads done, as before."""
    ended_in = V.as_dict(view.get("result")).get("ended_in")
    if phase == "over" and ended_in in ("placement", "main", "auto", "invasion", "summon",
                                        "end"):
        return str(ended_in)
    return phase


def _supply_row(im: Image.Image, ox: int, y: int, width: int, view: Mapping[str, Any],
                lang: str) -> None:
    """Mercenaries on offer (R7.1), then deck sizes, medal pool and summon chips (R3)."""
    u = width / 8
    pad, gap, bh = round(u * 0.06), round(u * 0.05), round(u * 0.8)
    cs = V.cards(view)
    bw = (width - 2 * pad - 6 * gap) / (3 * 1.25 + 4)
    mw = round(bw * 1.25)
    mercs = V.as_list(view.get("mercenaries"))[:3]
    mercs += [None] * (3 - len(mercs))
    x = ox + pad
    for m in mercs:
        key = V.card_key(m) if m else None
        im.paste(merc_card(cs.units.get(key) if key else None, key, mw, bh, lang), (x, y))
        x += mw + gap
    chips = V.as_dict(view.get("chips"))
    up = " ".join(str(c) for c in V.as_list(chips.get("up")))
    down = chips.get("down")
    down_n = len(down) if isinstance(down, list) else V.as_int(down)
    infos = [
        (th.word("monster_deck", lang), str(V.as_int(view.get("monster_deck_size"))), ""),
        (th.word("unit_deck", lang), str(V.as_int(view.get("unit_deck_size"))),
         f"{th.word('discard', lang)} {len(V.as_list(view.get('discard')))}"),
        (th.word("medal_pool", lang), str(V.as_int(view.get("medal_pool_size"))), ""),
        (th.word("chips", lang), up or "–", f"{th.word('face_down', lang)} {down_n}"),
    ]
    if len(V.players(view)) == 1:  # no medals in solo (R14.1): give the space to the others
        del infos[2]
        bw = (width - 2 * pad - 5 * gap - 3 * mw) / 3
    iw = round(bw)
    small = math.ceil(MIN_TEXT)  # every word and count readable at phone width (issue 20)
    for label, value, sub in infos:
        im.paste(info_box(iw, bh), (x, y))
        _line(im, x + iw / 2, y + bh * 0.2, label, iw - 6, small, th.INK_SOFT)
        vy = y + bh * (0.5 if sub else 0.62)
        vt, vs = T.fit(value, iw - 8, max(small, round(bh * 0.34)), small, T.BOLD)
        T.draw(im, (x + iw / 2, vy), vt, vs, th.INK, weight=T.BOLD, align="m")
        if sub:
            _line(im, x + iw / 2, y + bh * 0.8, sub, iw - 6, small, th.INK_SOFT)
        x += iw + gap


def _line(im: Image.Image, cx: float, cy: float, text: str, max_w: int, size: int,
          fill: th.RGB) -> None:
    """One centred line at a readable size: squeezed to fit before it is cut."""
    t, sz, sx = T.fit_condensed(text, max_w, size, size, tight=True, condense=0.62)
    T.draw(im, (cx, cy), t, sz, fill, align="m", sx=sx)
