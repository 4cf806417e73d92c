"""One card for a lookup command: name in both languages, stats, and its range diagram.

Ranges are drawn the way they act on the board (R8.2, CARDS.md): a unit faces the monsters,
so its forward (f > 0) points LEFT, toward the magic circles; a monster's forward points
RIGHT, toward the castle. Sideways −1 is toward lane A (up). Patterns are never rotated.
"""

from __future__ import annotations

from PIL import Image

import i18n
from render import theme as th
from render import view as V
from render.draw import Canvas, arrow_head, fit, text_w, threat_badge

W, H = 720, 405
UNIT_RANGE: th.RGB = (245, 150, 60)
HEAL_RANGE: th.RGB = (90, 190, 110)

def _say(mid: str, lang: str, fallback: str = "") -> str:
    """A card face's text from the catalogue (`card.*`); `fallback` where it has none."""
    text = i18n.t(lang, mid)
    return fallback if text == mid else text


def resolve(key: str) -> str:
    """A card key; a typed name (English, Japanese, any case) is accepted too."""
    cs = V.cards()
    if key in cs.units or key in cs.monsters or key in cs.commands:
        return key
    return cs.resolve(str(key)) or str(key)


def card_image(card_key: str, *, lang: str = "en") -> Image.Image:
    key = resolve(card_key)
    cs = V.cards()
    c = Canvas(W, H, th.PAPER)
    if key in cs.units:
        _unit(c, key, lang)
    elif key in cs.monsters:
        _monster(c, key, lang)
    elif key in cs.commands:
        _command(c, key, lang)
    else:
        c.text((W / 2, H / 2), f"? {card_key}", 36, th.INK, bold=True, align="m")
    return c.image()


def _title(c: Canvas, key: str, kind: str, lang: str, band: th.RGB, ink: th.RGB) -> None:
    c.rect((0, 0, W, 92), fill=band)
    other = th.word("second_lang", lang)  # the language a card face names second
    t, sz = fit(V.cards().name(key, lang), W * 0.62, 46, 28, bold=True)
    c.text((24, 40), t, sz, ink, bold=True)
    c.text((24, 76), V.cards().name(key, other), 20, ink)
    c.text((W - 24, 40), kind, 22, ink, bold=True, align="r")


def _stat(c: Canvas, x: float, y: float, label: str, value: str) -> float:
    c.text((x, y), label, 20, th.INK_SOFT)
    c.text((x, y + 36), value, 40, th.INK, bold=True)
    return x + 92


def _unit(c: Canvas, key: str, lang: str) -> None:
    uc = V.cards().units[key]
    kind = th.word("levelup" if uc.levelled else "unit", lang)
    _title(c, key, kind, lang, th.HEADER, th.WHITE)
    x: float = 28
    r = 22
    c.ellipse((x, 130 - r, x + 2 * r, 130 + r), fill=th.GOLD, outline=(150, 110, 0), width=2)
    c.text((x + r, 130), str(uc.cost), 28, th.INK, bold=True, align="m")
    c.text((x + 2 * r + 10, 130), th.word("cost", lang), 20, th.INK_SOFT)
    x = _stat(c, 28, 180, "HP", str(uc.hp))
    _stat(c, x, 180, th.word("mov", lang), str(uc.mov))
    sk = uc.skill
    known = i18n.template("en", f"card.skill.{sk.kind}") != f"card.skill.{sk.kind}"
    name = _say(f"card.skill.{'long' if sk.long else sk.kind}", lang) if known else sk.kind
    if sk.kind == "dice":
        name += f" {sk.mod:+d}"
    elif sk.kind in ("heal", "allocated"):
        name += f" ×{sk.n}"
    lines = _wrap(name, 300, 24)
    for i, line in enumerate(lines[:3]):
        c.text((28, 290 + i * 32), line, 24, th.INK, bold=True)
    heal = sk.kind == "heal"
    if sk.range_any or sk.kind == "command":
        label = th.word("any_friend" if heal or sk.kind == "command" else "anywhere", lang)
        _any_diagram(c, HEAL_RANGE if heal else UNIT_RANGE, label)
    else:
        _diagram(c, [(f, s_) for f, s_ in sk.range], list(sk.gaps), facing_left=True,
                 color=HEAL_RANGE if heal else UNIT_RANGE, numbered=False,
                 star=sk.kind == "area", own=th.UNIT_CARD,
                 caption=th.word("forward_unit", lang), gap_label=th.word("gap", lang))


def _monster(c: Canvas, key: str, lang: str) -> None:
    mc = V.cards().monsters[key]
    band = th.MONSTER_RED if mc.red else th.MONSTER_BLUE
    _title(c, key, f"{th.word('monster', lang)} · {th.word('level', lang)} {mc.level}", lang,
           band, th.WHITE)
    c.rect((22, 106, 96, 160), fill=band, radius=10)
    threat_badge(c, 59, 133, 20, mc.threat, mc.red)
    c.text((108, 133), th.word("threat_red" if mc.red else "threat_blue", lang), 22, th.INK,
           bold=True)
    x = _stat(c, 28, 190, "HP", str(mc.hp))
    x = _stat(c, x, 190, th.word("def", lang), str(mc.defense))
    x = _stat(c, x, 190, th.word("mov", lang), str(mc.mov))
    _stat(c, x, 190, th.word("atk", lang), str(mc.atk))
    for i, line in enumerate(_wrap(_say("card.range.star" if mc.area else "card.range.numbered", lang), 330, 21)[:3]):
        c.text((28, 300 + i * 30), line, 21, th.INK)
    _diagram(c, list(mc.range), [], facing_left=False, color=th.THREAT_RED if mc.red else
             th.THREAT_BLUE, numbered=not mc.area, star=mc.area, own=band,
             caption=th.word("forward_monster", lang))


def _command(c: Canvas, key: str, lang: str) -> None:
    _title(c, key, th.word("command", lang), lang, (226, 212, 170), th.INK)
    large, small = _say(f"card.{key}.leader", lang), _say(f"card.{key}.follower", lang)
    for i, (label, text_) in enumerate(((th.word("leader", lang), large),
                                        (th.word("follower", lang), small))):
        y = 140 + i * 120
        c.rect((24, y - 24, W - 24, y + 80), fill=th.UNIT_CARD, outline=th.GRID_LINE, width=2,
               radius=12)
        c.text((44, y + 4), label, 22, th.INK_SOFT, bold=True)
        c.text((44, y + 46), text_, 30, th.INK, bold=True)


def _wrap(text: str, width: float, size: float) -> list[str]:
    """Greedy wrap on spaces (Japanese: anywhere), for the few sentences cards carry."""
    words = text.split(" ") if " " in text else list(text)
    sep = " " if " " in text else ""
    lines: list[str] = []
    cur = ""
    for w in words:
        cand = f"{cur}{sep}{w}" if cur else w
        no_break = w in "）」』、。・" and not sep  # kinsoku: never start a line with these
        if text_w(cand, size, bold=True) > width and cur and not no_break:
            lines.append(cur)
            cur = w
        else:
            cur = cand
    return lines + ([cur] if cur else [])


def _diagram(c: Canvas, rng: list[tuple[int, int]], gaps: list[tuple[int, int]], *,
             facing_left: bool, color: th.RGB, numbered: bool, star: bool, own: th.RGB,
             caption: str, gap_label: str = "") -> None:
    """The range pattern on a grid around the card's own square (marked by a card)."""
    fs = [f for f, _ in rng + gaps] + [0]
    f_lo, f_hi = min(fs + [-1]), max(fs + [1])
    cols = f_hi - f_lo + 1
    cell = min(64.0, 330 / cols, 250 / 3)
    gx0 = W - 24 - cols * cell
    gy0 = 110 + (250 - 3 * cell) / 2

    def box(f: int, s: int) -> tuple[float, float, float, float]:
        col = (f_hi - f) if facing_left else (f - f_lo)
        x, y = gx0 + col * cell, gy0 + (s + 1) * cell
        return x + 2, y + 2, x + cell - 2, y + cell - 2

    for f in range(f_lo, f_hi + 1):
        for s in (-1, 0, 1):
            c.rect(box(f, s), fill=th.SQUARE, radius=6)
    i: float  # a mark's number below, then an inset in pixels
    for i, (f, s) in enumerate(rng):
        if -1 <= s <= 1:
            b = box(f, s)
            c.rect(b, fill=color, outline=th.INK, width=1.5, radius=6)
            mark = str(i + 1) if numbered else ("★" if star else "")
            if mark:
                c.text(((b[0] + b[2]) / 2, (b[1] + b[3]) / 2), mark, cell * 0.45, th.ink_on(color),
                       bold=True, align="m")
    for f, s in gaps:  # a gap square: in the pattern, never a target (p.13)
        b = box(f, s)
        c.rect(b, fill=th.WHITE, outline=th.INK_SOFT, width=1.5, radius=6)
        i = cell * 0.3
        for p, q in (((b[0] + i, b[1] + i), (b[2] - i, b[3] - i)),
                     ((b[2] - i, b[1] + i), (b[0] + i, b[3] - i))):
            c.line([p, q], th.INK_SOFT, 2)
    if gaps:
        c.text((gx0 + cols * cell / 2, gy0 - 14), f"× = {gap_label}", 18, th.INK_SOFT,
               align="m")
    b = box(0, 0)
    i = cell * (0.2 if (0, 0) in rng else 0.1)  # a self-including range shows around the card
    c.rect((b[0] + i, b[1] + i, b[2] - i, b[3] - i), fill=own, outline=th.INK, width=2, radius=5)
    _figure(c, (b[0] + b[2]) / 2, (b[1] + b[3]) / 2, cell * 0.28,
            th.INK if own == th.UNIT_CARD else th.WHITE)
    # direction arrow under the grid
    y = gy0 + 3 * cell + 26
    x0, x1 = gx0 + 10, gx0 + cols * cell - 10
    tip, tail = ((x0, y), (x1, y)) if facing_left else ((x1, y), (x0, y))
    c.line([tail, tip], th.INK_SOFT, 3)
    c.polygon(arrow_head(tip, tail, 14), fill=th.INK_SOFT)
    c.text(((x0 + x1) / 2, y + 24), caption, 18, th.INK_SOFT, align="m")


def _figure(c: Canvas, cx: float, cy: float, r: float, color: th.RGB) -> None:
    """A little standing figure: "this card stands here" in the range diagram."""
    c.ellipse((cx - r * 0.38, cy - r, cx + r * 0.38, cy - r * 0.24), fill=color)
    c.polygon([(cx - r * 0.7, cy + r), (cx + r * 0.7, cy + r), (cx + r * 0.4, cy - r * 0.1),
               (cx - r * 0.4, cy - r * 0.1)], fill=color)


def _any_diagram(c: Canvas, color: th.RGB, label: str) -> None:
    """`range: any` (p.14): the whole 6×3 board."""
    cell = 52
    gx0, gy0 = W - 24 - 6 * cell, 130
    for col in range(6):
        for s in range(3):
            x, y = gx0 + col * cell, gy0 + s * cell
            c.rect((x + 2, y + 2, x + cell - 2, y + cell - 2), fill=color, outline=th.INK,
                   width=1, radius=5)
    c.text((gx0 + 3 * cell, gy0 + 3 * cell + 30), label, 22, th.INK, bold=True, align="m")
