"""Renderer tests: elements appear where they should, secrets never show, output is stable.

Images are checked by sampling pixels of the decoded PNG in regions computed from the
renderer's own layout (render.layout), comparing a view with and without an element. The
encoder maps every colour to the nearest of one fixed palette's (render/palette.py), so a
pixel is a step off what was drawn; comparisons use mean differences with a tolerance,
never exact pixels.
"""

from __future__ import annotations

import copy
import io
import threading
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

import render
from engine.cards import default_cards
from render import samples as S
from render import text as T
from render.layout import BOARD_SQUARE, board_geom
from render.table import board_origins, table_geom

G = board_geom(BOARD_SQUARE, False)


def decode(data: bytes) -> Image.Image:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return Image.open(io.BytesIO(data)).convert("RGB")


def diff(a: Image.Image, b: Image.Image, box: tuple[int, int, int, int]) -> float:
    """Mean absolute channel difference of two images inside a box."""
    d = ImageChops.difference(a.crop(box), b.crop(box))
    return sum(ImageStat.Stat(d).mean) / 3


def changed(a: Image.Image, b: Image.Image, threshold: int = 40) -> tuple[int, int, int, int] | None:
    """Bounding box of the pixels that really changed (palette jitter filtered out)."""
    d = ImageChops.difference(a, b).convert("L")
    return d.point(lambda v: 255 if v > threshold else 0).getbbox()


def mean(im: Image.Image, box: tuple[int, int, int, int]) -> tuple[float, float, float]:
    r, g, b = ImageStat.Stat(im.crop(box)).mean
    return r, g, b


def square(name: str) -> tuple[int, int, int, int]:
    b = G.box_of(name)
    assert b is not None
    return b


def solo(p: dict) -> dict:
    return S.one_board_view(p)


def board_with(*placements: tuple[str, dict], **fields: object) -> dict:
    p = S.empty_player("Alice")
    for sq, piece in placements:
        S.put(p, sq, piece)
    p.update(fields)
    return solo(p)


def img(view: dict, seat: int = 0, **kw: object) -> Image.Image:
    return decode(render.board_png(view, seat, **kw))


# --- where things are (R2) --------------------------------------------------------------


def test_unit_square_differs_from_empty_square():
    """A unit is drawn on its own square and nowhere else on the grid (R2)."""
    empty = img(board_with())
    one = img(board_with(("2B", S.unit("u1", "knight", 0))))
    assert diff(empty, one, square("2B")) > 40
    for other in ("3B", "1B", "2A", "2C", "6B"):
        assert diff(empty, one, square(other)) < 2


def test_geometry_column_1_is_on_the_castle_side():
    """R2: column 1 touches the castle on the right, column 6 (magic circles) is leftmost."""
    b1, b6 = square("1A"), square("6A")
    assert b6[0] < b1[0]
    assert b1[2] < G.castle_box()[0] <= G.castle_box()[2] <= G.width
    assert G.queue_box(0)[2] < b6[0]
    # lanes run top to bottom
    assert square("3A")[1] < square("3B")[1] < square("3C")[1]
    empty = img(board_with())
    right = img(board_with(("1A", S.unit("u1", "warrior_star", 0))))
    bbox = changed(empty, right)
    assert bbox is not None and bbox[0] >= b1[0] - 1 and bbox[2] <= b1[2] + 1
    assert bbox[1] >= b1[1] - 1 and bbox[3] <= b1[3] + 1


def test_acted_marker_changes_the_square():
    """R8: an acted unit carries a marker; readying it removes the marker."""
    fresh = img(board_with(("2B", S.unit("u1", "knight", 0))))
    acted = img(board_with(("2B", S.unit("u1", "knight", 0, acted=True))))
    assert diff(fresh, acted, square("2B")) > 10
    assert diff(fresh, acted, square("3B")) < 2


def test_damage_changes_the_pips():
    full = img(board_with(("2B", S.unit("u1", "knight", 0))))
    hurt = img(board_with(("2B", S.unit("u1", "knight", 0, dmg=3))))
    assert diff(full, hurt, square("2B")) > 2


def test_levelled_unit_is_marked():
    """R12.2: a level-up card looks different from its ★ card beyond the name: a "Lv2"
    badge at the right end of its HP row (clear of the name and MOV)."""
    star = img(board_with(("2B", S.unit("u1", "warrior_star", 0))))
    lv = img(board_with(("2B", S.unit("u1", "warrior", 0))))
    x0, y0, x1, y1 = square("2B")
    hp_row_end = (x1 - (x1 - x0) // 4, y0 + (y1 - y0) * 2 // 5, x1, y0 + (y1 - y0) * 11 // 20)
    assert diff(star, lv, hp_row_end) > 10


def test_red_and_blue_monsters_differ():
    """R14.2: red (boss) threat is told apart from blue, in colour and in shape."""
    v = board_with(("6A", S.monster("m1", "dragon")), ("6B", S.monster("m2", "wraith")))
    im = img(v)
    r, _, b = mean(im, square("6A"))
    assert r > b + 20
    r, _, b = mean(im, square("6B"))
    assert b > r + 20
    # same stats region, different shape: the threat badges are not the same picture
    x0, y0, x1, y1 = square("6A")
    badge = (x0, y0 + G.s * 25 // 100, x0 + G.s * 30 // 100, y0 + G.s * 55 // 100)
    x0b, y0b = square("6B")[:2]
    a = im.crop(badge)
    bb = im.crop((x0b, y0b + (badge[1] - y0), x0b + badge[2] - x0, y0b + badge[3] - y0))
    assert ImageChops.difference(a.convert("L"), bb.convert("L")).getbbox() is not None


def test_queue_is_drawn_left_of_the_board():
    """R10.4: a lane's waiting queue sits off the left edge, in that lane."""
    empty = img(board_with())
    queued = img(board_with(queues={"A": [], "B": [{"id": "m1", "card": "golem"}], "C": []}))
    assert diff(empty, queued, G.queue_box(1)) > 5
    assert diff(empty, queued, G.queue_box(0)) < 1
    assert diff(empty, queued, G.queue_box(2)) < 1


def test_castle_shows_an_invaded_monster():
    """R9.2: a blue monster that invaded stays face up in the castle, right of column 1."""
    empty = img(board_with())
    invaded = img(board_with(castle=[{"id": "m1", "card": "goblin"}]))
    assert diff(empty, invaded, G.castle_box()) > 5
    assert diff(empty, invaded, G.grid_box()) < 1


def test_eliminated_board_is_marked():
    """R9.3: an eliminated player's board is greyed and bannered."""
    alive = img(board_with(("2B", S.unit("u1", "knight", 0))))
    out = img(board_with(("2B", S.unit("u1", "knight", 0)), eliminated=True))
    assert diff(alive, out, G.grid_box()) > 20
    mid_y = (G.grid_box()[1] + G.grid_box()[3]) // 2
    r, g, b = mean(out, (G.grid_x + 10, mid_y - 5, G.grid_x + 200, mid_y + 5))
    assert r > 150 and g < 80 and b < 80
    r, g, b = mean(out, (G.width // 2, 2, G.width // 2 + 40, 8))  # the header too
    assert r > g + 50 and r > b + 50


def test_header_shows_gold_honor_threat():
    base = img(board_with())
    for field, value in (("gold", 9), ("honor", 4), ("threat_public", 12)):
        bbox = changed(base, img(board_with(**{field: value})))
        assert bbox is not None and bbox[3] <= G.header_h, field
    defeated = img(board_with(defeated=[{"id": "m1", "card": "goblin"}]))
    assert changed(base, defeated) is not None  # honor marks = honor + defeated (R12)
    assert changed(base, img(board_with(honor=2))) == changed(base, defeated)


# --- the 3–4 player table (its own compact piece style) -------------------------------


def table_img(view: dict, **kw: object) -> Image.Image:
    return decode(render.table_png(view, **kw))


def table_square(n: int, seat: int, name: str) -> tuple[int, int, int, int]:
    (ox, oy), b = board_origins(n)[0][seat], table_geom(n).box_of(name)
    assert b is not None
    return ox + b[0], oy + b[1], ox + b[2], oy + b[3]


def table_with(seat: int, *placements: tuple[str, dict], n: int = 4, **fields: object) -> dict:
    v = S.base_view(n)
    for sq, piece in placements:
        S.put(v["players"][seat], sq, piece)
    v["players"][seat].update(fields)
    return v


def test_table_unit_square_differs_from_empty_square():
    empty = table_img(table_with(2))
    one = table_img(table_with(2, ("2B", S.unit("u1", "knight", 2))))
    assert diff(empty, one, table_square(4, 2, "2B")) > 40
    for seat, other in ((2, "3B"), (2, "1B"), (2, "2A"), (1, "2B"), (3, "2B")):
        assert diff(empty, one, table_square(4, seat, other)) < 2


def test_table_acted_marker_and_damage_change_the_square():
    fresh = table_img(table_with(1, ("2B", S.unit("u1", "knight", 1))))
    acted = table_img(table_with(1, ("2B", S.unit("u1", "knight", 1, acted=True))))
    hurt = table_img(table_with(1, ("2B", S.unit("u1", "knight", 1, dmg=2))))
    assert diff(fresh, acted, table_square(4, 1, "2B")) > 10
    assert diff(fresh, hurt, table_square(4, 1, "2B")) > 2
    assert diff(fresh, acted, table_square(4, 1, "3B")) < 2


def test_table_red_and_blue_monsters_differ():
    im = table_img(table_with(0, ("6A", S.monster("m1", "dragon")),
                              ("6B", S.monster("m2", "wraith")), n=3))
    r, _, b = mean(im, table_square(3, 0, "6A"))
    assert r > b + 20
    r, _, b = mean(im, table_square(3, 0, "6B"))
    assert b > r + 20


def test_table_eliminated_board_is_marked():
    alive = table_img(table_with(3))
    out = table_img(table_with(3, eliminated=True))
    (ox, oy), g = board_origins(4)[0][3], table_geom(4)
    gx0, gy0, gx1, gy1 = g.grid_box()
    assert diff(alive, out, (ox + gx0, oy + gy0, ox + gx1, oy + gy1)) > 20
    mid = oy + (gy0 + gy1) // 2
    r, g_, b = mean(out, (ox + gx0 + 10, mid - 5, ox + gx0 + 200, mid + 5))
    assert r > 150 and g_ < 80 and b < 80
    ox0, oy0 = board_origins(4)[0][2]  # the board above is untouched
    assert diff(alive, out, (ox0, oy0, ox0 + g.width, oy0 + g.height)) < 0.5


# --- secrets (R14.1) --------------------------------------------------------------------


def test_hidden_medal_never_changes_the_image():
    """R14.1: medal values are secret; only the count is public. The viewer's own medals
    and its private `threat` (medals included) are not drawn either: images are public."""
    a = S.table_view(4, late=True)
    b = copy.deepcopy(a)
    for v, medals in ((a, [-1]), (b, [-4])):
        v["players"][0]["medals"] = medals
        v["players"][0]["medal_count"] = 1
        v["players"][0]["threat"] = v["players"][0]["threat_public"] + sum(medals)
    assert render.board_png(a, 0) == render.board_png(b, 0)
    assert render.table_png(a) == render.table_png(b)


def test_medal_count_is_shown():
    assert render.board_png(board_with(medal_count=0), 0) != render.board_png(
        board_with(medal_count=2), 0)


# --- stability, robustness --------------------------------------------------------------


def test_same_view_gives_identical_bytes():
    v = S.table_view(4, late=True)
    first = render.table_png(v, highlights=S.SAMPLE_EVENTS)
    assert render.table_png(copy.deepcopy(v), highlights=S.SAMPLE_EVENTS) == first
    bv = solo(S.busy_player(0, "Alice"))
    assert render.board_png(bv, 0) == render.board_png(copy.deepcopy(bv), 0)


def test_rendering_from_threads_matches_sequential():
    """The bot renders from worker threads: results must not depend on concurrency."""
    views = [S.table_view(n, late=True) for n in (1, 2, 3, 4)]
    expected = [render.table_png(v) for v in views]
    got: dict[int, bytes] = {}

    def work(i: int) -> None:
        got[i] = render.table_png(views[i % 4], lang="en")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(got[i] == expected[i % 4] for i in range(8))


@pytest.mark.parametrize("view", [
    {},
    {"players": [{}]},
    {"players": [{"board": [None, {"card": "nope", "dmg": "x"}, 5], "queues": {"A": "bad"},
                  "gold": None, "name": None, "castle": [None]}]},
    {"players": "junk", "row": None, "mercenaries": [None, "knight"], "chips": 3},
])
def test_missing_or_malformed_keys_do_not_crash(view):
    render.table_png(view)
    render.board_png(view, 0)


def test_japanese_names_render_with_ink():
    for name in ("たろう", "山田花子", "ゴブリン退治の勇者"):
        assert T.clean(name) == name  # every glyph is in the vendored font
        mask, _, _ = T.sprite(name, 24, T.BOLD)
        assert ImageStat.Stat(mask).sum[0] > 255 * 40  # real strokes, not empty boxes
    a = img(board_with(name="たろう"))
    b = img(board_with(name="はなこ"))
    assert diff(a, b, (0, 0, G.width // 2, G.header_h)) > 0.5


def test_card_names_have_every_glyph():
    cs = default_cards()
    for key in [*cs.units, *cs.monsters, *cs.commands]:
        for lang in ("en", "ja"):
            name = cs.name(key, lang)
            assert T.clean(name) == name, name


@pytest.mark.parametrize("name", ["Kenji 🐉🔥", "👨‍👩‍👧", "a\u0000b\u200d", "❤️", "x" * 200, 12345,
                                  ["not", "a", "str"]])
def test_unsupported_glyphs_degrade_without_crashing(name):
    cleaned = T.clean(name)
    assert cleaned and all(T.has_glyph(ch) or ch == " " for ch in cleaned)
    render.board_png(board_with(name=name), 0)


def test_emoji_becomes_question_mark():
    assert T.clean("Kenji 🐉🔥") == "Kenji ?"


# --- highlights, reach, cards -----------------------------------------------------------


def test_highlights_mark_the_squares_of_events():
    v = solo(S.busy_player(0, "Alice"))
    plain = img(v)
    hl = img(v, highlights=[{"type": "defeated", "player": 0, "square": "5A", "card": "goblin"}])
    assert diff(plain, hl, square("5A")) > 10
    assert diff(plain, hl, square("5C")) < 1


def test_unknown_or_other_players_events_are_ignored():
    v = solo(S.busy_player(0, "Alice"))
    plain = render.board_png(v, 0)
    assert render.board_png(v, 0, highlights=[{"type": "party", "player": 0}]) == plain
    other = [{"type": "summoned", "player": 1, "square": "6C", "card": "goblin"}]
    assert render.board_png(v, 0, highlights=other) == plain
    junk = [{"type": "moved", "player": 0, "path": "2B"}, {"type": "rolled"}, "x", None,
            {"type": "monster_attacked", "player": 0, "from": "9Z", "targets": None}]
    render.board_png(v, 0, highlights=junk)  # type: ignore[arg-type]


def test_every_sample_event_type_draws_something():
    v = solo(S.busy_player(0, "Alice"))
    plain = render.board_png(v, 0)
    for e in S.SAMPLE_EVENTS:
        assert render.board_png(v, 0, highlights=[e]) != plain, e["type"]


def test_reach_tints_move_and_skill_squares():
    v = solo(S.busy_player(0, "Alice"))
    base = decode(render.reach_png(v, 0, "4B", [], []))
    reach = decode(render.reach_png(v, 0, "4B", ["3B"], ["5C"]))
    assert diff(base, reach, square("3B")) > 10
    assert diff(base, reach, square("5C")) > 10
    assert diff(base, reach, square("2A")) < 1
    r, g, b = mean(reach, square("3B"))
    assert g > r and g > b  # movement is green


def test_every_card_renders_in_both_languages():
    cs = default_cards()
    for key in [*cs.units, *cs.monsters, *cs.commands]:
        en, ja = render.card_png(key), render.card_png(key, lang="ja")
        assert en != ja
        assert decode(en).size == decode(ja).size == (720, 405)
    render.card_png("no_such_card")
    assert render.card_png("Goblin") == render.card_png("goblin")


# --- sizes and layout --------------------------------------------------------------------


def test_image_sizes_and_bytes():
    t4 = render.table_png(S.table_view(4, late=True), highlights=S.SAMPLE_EVENTS)
    assert len(t4) < 300_000
    w, h = decode(t4).size
    assert w < 800 and h < 1200  # one column: as wide as a single board, about 1.4× as tall
    # at a phone's 500 px preview a table square stays as wide as a single board's
    tg = table_geom(4)
    assert tg.s * 500 / w >= 60 and tg.sh * 500 / w >= 36
    for n in (1, 2):
        w1, h1 = decode(render.table_png(S.table_view(n, late=True))).size
        assert w1 < 900 and h1 < 1100
    board = decode(render.board_png(solo(S.busy_player(0, "A")), 0))
    assert board.size == (G.width, G.height)


def test_font_is_vendored_with_its_licence():
    fonts = Path(render.__file__).with_name("fonts")
    assert (fonts / "OFL.txt").read_text().count("SIL OPEN FONT LICENSE") >= 1
    assert T.FONT_FILE.stat().st_size > 5_000_000  # the full font, not a subset


def test_gallery_writes_every_sample(tmp_path):
    from render.__main__ import gallery, write

    names = [name for name, _, _ in gallery()]
    assert len(names) == len(set(names))
    assert any(n.startswith("card_dragon") for n in names)
    assert {"table_1p_en.png", "table_4p_en.png", "board_busy_en.png"} <= set(names)
    # writing them all is the slow part; one run proves the wiring
    written = write(tmp_path)
    assert len(written) == len(names) and (tmp_path / "index.html").exists()


def test_renders_real_engine_views_and_events():
    """The renderer's input contract is `engine.view`: a real game's views and events draw."""
    from engine import Game, visible

    events: list[dict] = []
    game = Game.new(["Alice", "たろう", "Kenji 🐉"], seed=3, events=events)
    for seat in (0, 1, 2, None):
        v = game.view(seat)
        png = render.table_png(v, highlights=visible(events, seat))
        assert decode(png).size == board_origins(3)[2:]
    v = game.view(0)
    render.board_png(v, 1, lang="ja", highlights=visible(events, 0))
    for i, piece in enumerate(v["players"][0]["board"]):
        if piece and "owner" in piece:
            sq = f"{i // 3 + 1}{'ABC'[i % 3]}"
            move, skill = game.reach(0, sq)
            render.reach_png(v, 0, sq, move, skill)


def test_custom_card_set_in_the_view_is_used():
    """A game set up with typed-in printed values draws those stats, not the defaults."""
    import json

    from engine.cards import DATA_FILE

    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    data["monsters"]["goblin"]["hp"] = 4
    plain = board_with(("6A", S.monster("m1", "goblin")))
    custom = copy.deepcopy(plain)
    custom["setup"] = {"players": ["Alice"], "cards": data}
    assert diff(img(plain), img(custom), square("6A")) > 1
    broken = copy.deepcopy(plain)
    broken["setup"] = {"cards": {"monsters": "nope"}}
    assert render.board_png(broken, 0) == render.board_png(plain, 0)


def _chart_images(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Image.Image]]:
    """The charts' drawn images (before encoding), in both languages."""
    from render import rating_chart, review, scores, stats

    drawn: list[tuple[str, Image.Image]] = []
    for mod in (rating_chart, review, scores, stats):
        monkeypatch.setattr(mod, "encode", lambda im, m=mod: drawn.append((m.__name__, im)) or b"")
    for lang in ("en", "ja"):
        rating_chart.rating_chart_png([(27.0, 7.5), (29.0, 6.0), (31.5, 5.1)], start=(25.0, 8.3),
                                      provisional_games=2, lang=lang)
        review.review_png([review.Panel("Ann", 0, [(1, 0.5), (2, 0.7), (3, 0.2)], [2]),
                           review.Panel("Bob", 1, [(1, 0.5), (2, 0.3), (3, 0.8)], [1])],
                          lang=lang)
        scores.scores_png([900_000, 1_043_000, 1_500_000, 2_250_000], number=23,
                          mine=1_043_000, bots={"greedy": 2_250_000}, lang=lang)
        stats.stats_png(played=10, won=7, win_percent=70, win_streak=3, best_win_streak=5,
                        played_streak=4, best_played_streak=6, best_points=2_331_452,
                        rounds_to_win={8: 1, 10: 6}, highlight=10, lang=lang)
    return drawn


def test_the_fixed_palette_draws_every_sample_and_chart_as_faithfully_as_its_own_would(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 22: every image is written in one palette learned once (render/palette.py), not
    one chosen per image. A player must not see the difference: against the drawn colours,
    each image's mean error stays within 0.5 of what a palette of its own gives, and no pixel
    is off by more than its own palette's worst. A new colour the palette serves badly fails
    here; `python -m render --palette` learns it again."""
    from render import palette
    from render.__main__ import gallery

    images = [(name, draw()) for name, _, draw in gallery()[::3]]
    images += _chart_images(monkeypatch)

    def error(im: Image.Image, pal: Image.Image) -> tuple[float, int]:
        d = ImageChops.difference(im.convert("RGB"), pal.convert("RGB"))
        return sum(ImageStat.Stat(d).mean) / 3, max(hi for _, hi in d.getextrema())

    for name, im in images:
        own = im.convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE,
                                         dither=Image.Dither.NONE)
        own_mean, own_max = error(im, own)
        mean, worst = error(im, palette.quantized(im))
        assert mean <= own_mean + 0.5, (name, mean, own_mean)
        assert worst <= max(own_max, 48), (name, worst, own_max)


def test_every_png_decodes_to_the_pixels_drawn_and_is_no_bigger_than_pillows():
    """Issue 22: the PNGs are written by render/png.py (ISA-L's deflate, four times faster than
    Pillow's zlib). What a player's client decodes must be exactly the palette image drawn,
    every chunk's CRC valid, and the file no bigger than Pillow's own PNG of it (level 3, what
    the bot wrote before) by more than 5 %, so no post grows toward Discord's upload limit."""
    from render import palette
    from render.__main__ import gallery
    from render.png import palette_png

    for name, _, draw in gallery()[::2]:
        im = palette.quantized(draw())
        data = palette_png(im)
        Image.open(io.BytesIO(data)).verify()  # signature, chunk order and every CRC
        back = Image.open(io.BytesIO(data))
        assert back.mode == "P" and back.size == im.size, name
        assert back.convert("RGB").tobytes() == im.convert("RGB").tobytes(), name
        pillow = io.BytesIO()
        im.save(pillow, "PNG", compress_level=3)
        assert len(data) <= 1.05 * len(pillow.getvalue()), (name, len(data), len(pillow.getvalue()))
        assert palette_png(im) == data, name  # deterministic: same image, same bytes
    with pytest.raises(ValueError, match="mode 'P'"):
        palette_png(Image.new("RGB", (4, 4)))
