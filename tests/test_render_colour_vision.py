"""Images told apart by colour-blind players (about 1 man in 12 is protan or deutan; tritan
is rarer): every pair of colours whose difference carries meaning — two players' colours on
one table, a blue monster and a red boss (R14.1, R14.2), a highlight and the square it is
drawn on, two highlights one phase can show together, two series of a chart — must stay at
least MIN_DE (CIEDE2000) apart under a simulated protanopia, deuteranopia and tritanopia
(Machado et al. 2009, severity 1.0; tests/cvd.py) as well as for normal vision.

Measured on what the player receives: each colour is taken as the image's fixed palette
writes it (render/palette.py: two colours the palette merges are 0 apart), and the pair is
only measured once the rendered PNG is seen to carry both colours, so the table cannot drift
from the drawing code. `PYTHONPATH=.:tests python tests/test_render_colour_vision.py` prints
the whole table.

Colour is never the only cue where it matters most; the second test checks the cues that
survive without colour at all (greyscale).
"""

from __future__ import annotations

import dataclasses
import io
import math
from collections.abc import Callable
from functools import cache

from cvd import MACHADO, VISIONS, blend, de2000, distances, lab
from PIL import Image, ImageChops
from test_render_readable import fresh_caches

import render
from render import boxes, palette
from render import samples as S
from render import text as T
from render import theme as th
from render.layout import MIN_TEXT
from render.pieces import monster_chip, monster_sprite, monster_tile
from render.rating_chart import BAND, rating_chart_png
from render.reach import MOVE_TINT
from render.review import BAD, Panel, review_png
from render.scores import scores_png
from render.stats import stats_png
from render.table import board_origins, table_geom
from render.view import cards

MIN_DE = 10.0  # ΔE2000: told apart at a glance, for a small mark on a phone
MIN_PX = 12  # a colour counts as drawn on an image from this many pixels
FAINTED = (120, 60, 150)  # render/highlights.py `_fainted`

BUSY = S.one_board_view(S.busy_player(0, "Alice"))
RAID_EVENTS = S.RAID_EVENTS  # one Raid: all four roll results, an area, a level-up, a faint
# The Enemy phase (R9): a monster attacks, a unit levels up rather than faint (R12.1), one
# faints elsewhere, a monster moves.
ENEMY_EVENTS = [
    {"type": "monster_attacked", "player": 0, "from": "4A", "targets": ["3A"]},
    {"type": "levelup", "player": 0, "square": "2B"},
    {"type": "fainted", "player": 0, "square": "2A", "card": "warrior_star"},
    {"type": "monster_moved", "player": 0, "card": "golem", "from": "5A", "to": "4A"},
    {"type": "damaged", "player": 0, "square": "3A", "amount": 2},
]
# Recruit and Summon: a new piece's frame on a table whose levelled units have gold frames.
RECRUIT_EVENTS = [{"type": "recruited", "player": 0, "square": "3B"},
                  {"type": "summoned", "player": 0, "square": "5A"}]


def _png(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


SCENES: dict[str, Callable[[], bytes]] = {
    "table 4p": lambda: render.table_png(S.table_view(4, True), highlights=S.SAMPLE_EVENTS),
    "board, raid": lambda: render.board_png(BUSY, 0, highlights=RAID_EVENTS),
    "board, enemy": lambda: render.board_png(BUSY, 0, highlights=ENEMY_EVENTS),
    "table 3p, recruit": lambda: render.table_png(S.table_view(3, True),
                                                  highlights=RECRUIT_EVENTS),
    "board, summon": lambda: render.board_png(BUSY, 0, highlights=S.SAMPLE_EVENTS),
    "reach": lambda: render.reach_png(BUSY, 0, "4B", ["3B", "5C", "3C"], ["6B", "5B"]),
    "review chart": lambda: review_png([Panel(S.NAMES[k], k, [(1, 0.5), (2, 0.2 + 0.2 * k),
                                                              (3, 0.9)], [1])
                                        for k in range(4)]),
    "rating chart": lambda: rating_chart_png([(27.0, 7.5), (29.0, 6.0), (31.5, 5.1),
                                              (30.0, 4.6)], start=(25.0, 8.3),
                                             provisional_games=2),
    "stats card": lambda: stats_png(played=10, won=7, win_percent=70, win_streak=3,
                                    best_win_streak=5, played_streak=4, best_played_streak=6,
                                    best_points=2_331_452, rounds_to_win={8: 1, 10: 6},
                                    highlight=10),
    "scores card": lambda: scores_png([900_000, 1_043_000, 1_500_000, 2_250_000], number=23,
                                      mine=1_043_000),
}


@dataclasses.dataclass(frozen=True)
class Pair:
    """Two colours as drawn (an overlay already blended over its ground) on one scene."""

    scene: str
    what: str
    a: th.RGB
    b: th.RGB


def pairs() -> list[Pair]:
    """Every pair of colours whose difference carries meaning, on the scene showing it."""
    out: list[Pair] = []
    seats = th.SEATS
    for i in range(4):
        for j in range(i + 1, 4):
            out.append(Pair("table 4p", f"seat {i + 1} / seat {j + 1}", seats[i], seats[j]))
    for i in range(4):
        out.append(Pair("table 4p", f"seat {i + 1} band / unit card", seats[i], th.UNIT_CARD))
        out.append(Pair("table 4p", f"seat {i + 1} disc / header", seats[i], th.HEADER))
    for i in (0, 2):  # the late boards with acted units
        out.append(Pair("table 4p", f"seat {i + 1} band / acted card", seats[i],
                        th.UNIT_ACTED))
    out += [
        Pair("table 4p", "blue monster / red boss", th.MONSTER_BLUE, th.MONSTER_RED),
        Pair("table 4p", "blue threat / red threat", th.THREAT_BLUE, th.THREAT_RED),
        Pair("table 4p", "boss frame / boss body", th.THREAT_RED, th.MONSTER_RED),
        Pair("table 4p", "HP pip / damage cube", th.PIP_UNIT, th.CUBE),
        Pair("table 4p", "HP pip / unit card", th.PIP_UNIT, th.UNIT_CARD),
        Pair("table 4p", "damage cube / unit card", th.CUBE, th.UNIT_CARD),
        Pair("table 4p", "damage cube / blue monster", th.CUBE, th.MONSTER_BLUE),
        Pair("table 4p", "damage cube / red boss", th.CUBE, th.MONSTER_RED),
        Pair("table 4p", "home square / square", th.HOME, th.SQUARE),
        Pair("table 4p", "header / eliminated header", th.HEADER, th.HEADER_OUT),
    ]
    # one Raid phase's frames, each told from the others and from its ground
    raid = {"hit": th.RESULT["hit"], "critical": th.RESULT["critical"],
            "miss": th.RESULT["miss"], "fumble": th.RESULT["fumble"], "area": th.HL_SKILL,
            "level-up": th.LEVEL, "fainted": FAINTED}
    names = list(raid)
    for i, p in enumerate(names):
        for q in names[i + 1:]:
            out.append(Pair("board, raid", f"{p} frame / {q} frame", raid[p], raid[q]))
        for ground, gc in (("square", th.SQUARE), ("home", th.HOME)):
            out.append(Pair("board, raid", f"{p} frame / {ground}", raid[p], gc))
    out.append(Pair("board, raid", "damage tag / heal tag", blend(th.HL_ATTACK, 240, th.SQUARE),
                    blend(th.HL_MOVE, 240, th.HOME)))
    enemy = {"attack": th.HL_ATTACK, "level-up": th.LEVEL, "fainted": FAINTED}
    names = list(enemy)
    for i, p in enumerate(names):
        for q in names[i + 1:]:
            out.append(Pair("board, enemy", f"{p} frame / {q} frame", enemy[p], enemy[q]))
    out += [
        Pair("board, enemy", "attack frame / square", th.HL_ATTACK, th.SQUARE),
        Pair("board, enemy", "monster move arrow / square", th.HL_MONSTER, th.SQUARE),
        Pair("table 3p, recruit", "new frame / levelled unit's gold frame", th.HL_ARRIVED,
             th.LEVEL),
        Pair("table 3p, recruit", "new frame / square", th.HL_ARRIVED, th.SQUARE),
        Pair("board, summon", "new frame / queue", th.HL_ARRIVED, th.QUEUE_BG),
        Pair("board, summon", "new frame / attack frame", th.HL_ARRIVED, th.HL_ATTACK),
        Pair("board, summon", "move arrow / home square", th.HL_PATH, th.HOME),
        Pair("reach", "move square / square", blend(th.HL_MOVE, MOVE_TINT, th.SQUARE), th.SQUARE),
        Pair("reach", "move frame / skill frame", th.HL_MOVE, th.HL_SKILL),
        Pair("reach", "skill frame / blue monster", th.HL_SKILL, th.MONSTER_BLUE),
        Pair("reach", "unit's own frame / move frame", th.HL_PATH, th.HL_MOVE),
        Pair("rating chart", "rated line / provisional line", seats[1], th.INK_SOFT),
        Pair("rating chart", "rated line / ±2σ band", seats[1], BAND),
        Pair("rating chart", "±2σ band / paper", BAND, th.PAPER),
        Pair("stats card", "today's bar / other bars", seats[1], th.HEADER),
        Pair("scores card", "your bar / other bars", seats[1], th.HEADER),
    ]
    for i in range(4):
        out.append(Pair("review chart", f"seat {i + 1} line / paper", seats[i], th.PAPER))
        out.append(Pair("review chart", f"seat {i + 1} line / costly-decision disc", seats[i],
                        BAD))
    return out


@cache
def drawn(c: th.RGB) -> th.RGB:
    """The colour the fixed palette writes for `c`."""
    px = palette.quantized(Image.new("RGB", (1, 1), c)).convert("RGB").getpixel((0, 0))
    assert isinstance(px, tuple)
    return px[0], px[1], px[2]


@cache
def scene_colours(scene: str) -> dict[th.RGB, int]:
    im = _png(SCENES[scene]())
    return {c: n for n, c in im.getcolors(1 << 20) or []}


def measure() -> list[tuple[Pair, th.RGB, th.RGB, dict[str, float]]]:
    """(pair, its two colours as written, ΔE2000 per vision)."""
    rows = []
    for p in pairs():
        a, b = drawn(p.a), drawn(p.b)
        rows.append((p, a, b, distances(a, b)))
    return rows


def table(rows: list[tuple[Pair, th.RGB, th.RGB, dict[str, float]]]) -> str:
    head = f"{'scene':18} {'pair':44} " + " ".join(f"{v:>6}" for v in VISIONS)
    lines = [head]
    for p, _a, _b, d in rows:
        flag = "  FAIL" if min(d.values()) < MIN_DE else ""
        lines.append(f"{p.scene:18} {p.what:44} "
                     + " ".join(f"{d[v]:6.1f}" for v in VISIONS) + flag)
    return "\n".join(lines)


def test_colour_science_matches_published_values():
    """The measure itself: CIEDE2000 against Sharma, Wu & Dalal's test data (pairs 1, 7,
    17, 25), and Machado's matrices keep white white and grey grey (each row sums to 1)."""
    for p, q, want in (((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
                       ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
                       ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
                       ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644)):
        assert abs(de2000(p, q) - want) < 1e-4, (p, q, de2000(p, q), want)
    for rows in MACHADO.values():
        for row in rows:
            assert abs(sum(row) - 1) < 1e-5
    assert lab((1.0, 1.0, 1.0))[0] > 99.99
    assert distances((200, 40, 40), (40, 160, 40))["deutan"] < 20 < \
        distances((200, 40, 40), (40, 160, 40))["normal"]  # red/green: the classic confusion


def test_colours_that_carry_meaning_stay_apart_for_colour_blind_eyes():
    """Every pair at least MIN_DE apart for normal, protan, deutan and tritan vision, as the
    PNG's palette writes them, and each pair's colours are really on its image."""
    rows = measure()
    missing = [(p.scene, p.what, c) for p, a, b, _d in rows for c in (a, b)
               if scene_colours(p.scene).get(c, 0) < MIN_PX]
    assert not missing, missing
    close = [(p.scene, p.what, {v: round(x, 1) for v, x in d.items()})
             for p, _a, _b, d in rows if min(d.values()) < MIN_DE]
    assert not close, "\n" + table(rows)


def _grey_diff(a: Image.Image, b: Image.Image, step: int = 40) -> int:
    """Pixels whose grey level differs by more than `step` (a visible mark, not an edge's
    anti-aliasing): what tells two drawings apart with no colour at all."""
    d = ImageChops.difference(a.convert("L"), b.convert("L"))
    return sum(n for v, n in enumerate(d.histogram()) if v > step)


def test_a_red_boss_is_told_from_a_blue_monster_without_colour():
    """R14.1/R14.2: a boss matters for threat and medals, so every form of a monster says
    red in a way greyscale keeps: the same card drawn red and blue (same name, same
    numbers) differs in grey by a visible shape — the diamond and the inner frame on a
    square, the light rim on a queue or castle chip."""
    mc = cards().monsters["goblin"]
    red, blue = dataclasses.replace(mc, red=True), dataclasses.replace(mc, red=False)
    forms = {
        "board square": lambda m: monster_sprite(m, "goblin", 0, th.SQUARE, 150, "en").image,
        "table square": lambda m: monster_tile(m, "goblin", 0, th.SQUARE, 96, 58, "en").image,
        "queue chip": lambda m: monster_chip(m, "goblin", 72, 30, th.QUEUE_BG, "en").image,
        "castle chip": lambda m: monster_chip(m, "goblin", 72, 90, th.CASTLE, "en").image,
    }
    for form, draw in forms.items():
        a, b = draw(red), draw(blue)
        perimeter = 2 * (a.width + a.height)
        assert _grey_diff(a, b) >= perimeter, (form, _grey_diff(a, b), perimeter)


if __name__ == "__main__":
    print(table(measure()))


def test_each_players_colour_comes_with_their_seat_number_and_name():
    """A player's colour is never the only thing saying whose board it is: each header's
    seat disc carries the seat number in ink (seen on the image: dark strokes inside the
    disc, a different figure on each), beside the name; a review panel's line is under its
    person's name."""
    n = 4
    im = _png(render.table_png(S.table_view(n, True))).convert("L")
    g = table_geom(n)
    h = g.header_h
    r = max(round(h * 0.36) if g.compact else round(h * 0.3), math.ceil(MIN_TEXT / 1.2))
    figures = []
    for ox, oy in board_origins(n)[0]:
        cx, cy = ox + g.pad + r, oy + h / 2
        inner = im.crop((round(cx - r * 0.5), round(cy - r * 0.6), round(cx + r * 0.5),
                         round(cy + r * 0.6)))
        assert sum(inner.histogram()[:80]) >= 10, (ox, oy)  # ink strokes: the number
        figures.append(inner)
    for i in range(n):
        for j in range(i + 1, n):
            assert _grey_diff(figures[i], figures[j], 80) >= 10, (i, j)
    fresh_caches()
    with boxes.writing() as written:
        review_png([Panel(S.NAMES[k], k, [(1, 0.5), (2, 0.6)], []) for k in range(4)])
    titles = " ".join(t for t, _cap, _kind, _box in written)
    assert all(T.clean(S.NAMES[k])[:5] in titles for k in range(4)), titles
