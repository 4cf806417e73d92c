"""Images readable at phone width (issue 20).

"Readable" is measured: Discord shows an image at most ~400 px wide on a phone, so every
text an image carries — names, numbers, stat labels, deck counts, highlight tags — must
have capitals at least `MIN_CAP` px tall once the image is scaled to 400 px wide. 7 px
capitals are about a 9.6 px font, what a phone's smallest interface text (a timestamp) is.
Measured from the font size each text is drawn at (render/boxes.py `writing`), for every
player count and the single board, in both languages.
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from collections.abc import Callable
from typing import Any

from PIL import Image

import render
from engine import Game, visible
from render import boxes
from render import samples as S
from render.api import board_image
from render.card import card_image
from render.table import table_image
from render.text import PHONE_W, READ_CAP
from render.view import cards

MIN_CAP = READ_CAP  # px, capitals of every text once the image is PHONE_W (400 px) wide


def fresh_caches() -> None:
    """Forget every cached layer and sprite, so each text of the next image is drawn (and
    measured) again. Glyph masks may stay: they do not decide sizes."""
    for m in pkgutil.iter_modules(render.__path__):
        mod = importlib.import_module(f"render.{m.name}")
        for fn in vars(mod).values():
            if hasattr(fn, "cache_clear") and getattr(fn, "__module__", "") == mod.__name__:
                fn.cache_clear()


def too_small(make: Callable[[], Image.Image]) -> list[tuple[str, float]]:
    """Texts of an image whose capitals are under MIN_CAP px at phone width."""
    fresh_caches()
    with boxes.writing() as written:
        im = make()
    k = PHONE_W / im.width
    return sorted({(t, round(cap * k, 1)) for t, cap, _kind, _box in written
                   if cap * k < MIN_CAP - 1e-6}, key=lambda x: x[1])


def test_every_text_on_boards_and_tables_is_readable_at_phone_width():
    """Issue 20: names, numbers, stat words (DEF MOV ATK), the mercenaries' "HP3 MOV1", the
    deck boxes' "discard 3" and "face down 2", header words, queue and castle chips, the
    row cards and every highlight tag: for the single board and 1–4 player tables, in
    both languages, with the last phase's events drawn."""
    busy = S.one_board_view(S.busy_player(0, "Alice"))
    for lang in ("en", "ja"):
        small = too_small(lambda lang=lang: board_image(busy, 0, lang=lang,
                                                        highlights=S.SAMPLE_EVENTS))
        assert not small, ("board", lang, small)
        for n in (1, 2, 3, 4):
            for late in (False, True):
                view = S.table_view(n, late)
                small = too_small(lambda view=view, lang=lang: table_image(
                    view, lang=lang, highlights=S.SAMPLE_EVENTS))
                assert not small, (n, late, lang, small)


def test_every_card_image_is_readable_at_phone_width():
    """`/rr card`: stats, skill text and the range diagram's legend ("× = gap")."""
    cs = cards()
    for key in [*cs.units, *cs.monsters, *cs.commands]:
        for lang in ("en", "ja"):
            small = too_small(lambda key=key, lang=lang: card_image(key, lang=lang))
            assert not small, (key, lang, small)


def test_the_tags_of_real_game_moments_are_readable_and_whole():
    """Tags are measured as drawn in real games (2 and 4 players), not only the sample."""
    seen = 0
    for players in (2, 4):
        g = Game.new([f"P{i}" for i in range(players)], seed=11)
        rng = random.Random(11)
        for _ in range(150):
            if g.over:
                break
            seat = rng.choice(g.waiting_for())
            ev = g.apply(seat, rng.choice(g.legal_actions(seat)))
            with boxes.writing() as written:
                im = table_image(g.view(None), highlights=visible(ev, None))
            k = PHONE_W / im.width
            tags = [(t, cap * k) for t, cap, kind, _box in written if kind == "label"]
            assert all(cap >= MIN_CAP for _t, cap in tags), tags
            seen += len(tags)
    assert seen > 20


def placement_view() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The spectator view kept as placement ended (how the bot posts it), and its events."""
    g = Game.new(["Ann", "Bob"], seed=5)
    rng = random.Random(5)
    kept: list[tuple[str, int, dict[str, Any]]] = []
    while not kept:
        seat = g.waiting_for()[0]

        def keep(what: str, n: int) -> None:
            kept.append((what, n, {**g.view(None), "after": what}))

        ev = g.apply(seat, rng.choice(g.legal_actions(seat)), on_resolved=keep)
    what, n, view = kept[0]
    assert what == "placement"
    return view, visible(ev[:n], None)


def test_the_placement_image_is_titled_round_0():
    """R4: placement is round 0; the state has stepped into round 1 when it ends."""
    view, events = placement_view()
    assert view["round"] == 1
    for lang, want, wrong in (("en", "Round 0 · Placement", "Round 1"),
                              ("ja", "ラウンド0・", "ラウンド1")):  # no spaces in Japanese
        with boxes.writing() as written:
            table_image(view, lang=lang, highlights=events)
        texts = [t for t, _cap, _kind, _box in written]
        assert any(want in t for t in texts), texts
        assert not any(wrong in t for t in texts)


def chart_drawers() -> list[tuple[str, Callable[[], Image.Image]]]:
    """The charts the bot posts (daily stats, daily scores, rating, review), both languages."""
    import io

    from render.rating_chart import rating_chart_png
    from render.review import Panel, review_png
    from render.scores import scores_png
    from render.stats import stats_png

    def png(data: bytes) -> Image.Image:
        return Image.open(io.BytesIO(data)).convert("RGB")

    out: list[tuple[str, Callable[[], Image.Image]]] = []
    for lang in ("en", "ja"):
        out += [
            (f"stats {lang}", lambda lang=lang: png(stats_png(
                played=123, won=87, win_percent=70, win_streak=3, best_win_streak=15,
                played_streak=12, best_played_streak=40, best_points=2_331_452,
                rounds_to_win={5: 3, 6: 10, 7: 20}, highlight=7, lang=lang))),
            (f"rating {lang}", lambda lang=lang: png(rating_chart_png(
                [(27.0, 7.5), (29.0, 6.0), (31.5, 5.1)], start=(25.0, 8.3),
                provisional_games=2, lang=lang))),
            (f"scores {lang}", lambda lang=lang: png(scores_png(
                [900_000, 1_043_000, 1_020_000, 1_500_000, 2_250_000], number=23,
                mine=1_043_000, bots={"greedy": 1_043_000, "expert": 2_250_000},
                lang=lang))),
            (f"review {lang}", lambda lang=lang: png(review_png(
                [Panel("Ann", 0, [(1, 0.5), (2, 0.7), (3, 0.2)], [2]),
                 Panel("たろう", 1, [(1, 0.5), (2, 0.3), (3, 0.8)], [1])], lang=lang))),
        ]
    return out


def test_every_text_on_the_charts_is_readable_at_phone_width():
    """The daily stats card, the daily scores, the rating chart and the review chart are
    posted like the boards and shown at most 400 px wide on a phone: the axis numbers, the
    "best: 15" under a streak, the bars' counts need capitals of MIN_CAP px there too
    (the rating chart's axis had 5.7 px, the stats card's "best: 15" 6.7 px)."""
    for name, make in chart_drawers():
        small = too_small(make)
        assert not small, (name, small)


def test_no_text_on_the_charts_runs_off_the_image():
    """A tag beside the longest bar of the daily scores ("◀ you · bot (greedy)", in Japanese
    "◀ あなた・ボット（欲張り）") ran past the card's right edge and lost its end."""
    for name, make in chart_drawers():
        fresh_caches()
        with boxes.writing() as written:
            im = make()
        out = [(t, box) for t, _cap, _kind, box in written
               if box[0] < 0 or box[1] < 0 or box[2] > im.width or box[3] > im.height]
        assert not out, (name, im.size, out)


def luminance(c: tuple[int, ...]) -> float:
    """WCAG 2 relative luminance of an sRGB colour."""
    def lin(v: int) -> float:
        x = v / 255
        return x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4
    return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2])


def contrast(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    """WCAG 2 contrast ratio of two colours (1 to 21)."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


MIN_CONTRAST = 4.5  # WCAG AA for small text: every text here is small at phone width


def test_the_soft_ink_reads_on_every_ground_it_is_written_on():
    """Column numbers and lane letters (the only ones on 3–4 player tables sit on the table's
    back), "Queue" / "Castle", the deck boxes' words, the cards' HP / MOV / Cost, an acted
    unit's "MOV": all in `theme.INK_SOFT`, which had 4.27:1 on the paper, 3.73 on a square,
    2.75 on an acted unit and 2.66 on the table's back."""
    from render import theme as th
    from render.table import BACK

    grounds = {"paper": th.PAPER, "square": th.SQUARE, "home": th.HOME, "unit": th.UNIT_CARD,
               "acted unit": th.UNIT_ACTED, "table back": BACK, "deck box": (246, 240, 226)}
    low = {k: round(contrast(th.INK_SOFT, g), 2) for k, g in grounds.items()
           if contrast(th.INK_SOFT, g) < MIN_CONTRAST}
    assert not low, low


def low_contrast(make: Callable[[], Image.Image]) -> list[tuple[str, float, tuple[int, ...]]]:
    """Texts of an image under MIN_CONTRAST, measured on the image (palette and anti-aliasing
    included): the ground is the commonest colour just around a text, its ink the pixel
    inside that differs most."""
    fresh_caches()
    with boxes.writing() as written:
        im = make().convert("RGB")
    low = []
    for t, _cap, _kind, box in written:
        x0, y0 = max(0, round(box[0]) - 1), max(0, round(box[1]) - 1)
        x1, y1 = min(im.width - 1, round(box[2]) + 1), min(im.height - 1, round(box[3]) + 1)
        ring = [im.getpixel((x, y)) for x in range(x0, x1 + 1) for y in (y0, y1)]
        ring += [im.getpixel((x, y)) for y in range(y0, y1 + 1) for x in (x0, x1)]
        ground = max(set(ring), key=ring.count)
        inside = im.crop((x0, y0, x1 + 1, y1 + 1)).getcolors(1 << 16) or []
        best = max(contrast(c, ground) for _n, c in inside)
        if best < MIN_CONTRAST:
            low.append((t, round(best, 2), ground))
    return low


def test_every_text_on_the_charts_contrasts_with_its_ground():
    """The stats' and scores' count on the player's own (green) bar was white at 3.4:1, the
    review's numbered discs 3.9:1, the charts' grey labels 4.2:1."""
    for name, make in chart_drawers():
        low = low_contrast(make)
        assert not low, (name, low)


def test_every_text_on_the_card_images_contrasts_with_its_ground():
    """`/rr card`: a monster's range squares are numbered (it hits the lowest number), in
    white on the blue threat colour at 3.4:1 (red 4.0:1); a unit's area squares carry a white
    ★ on orange at 2.3:1."""
    cs = cards()
    for key in [*cs.units, *cs.monsters, *cs.commands]:
        for lang in ("en", "ja"):
            low = low_contrast(lambda key=key, lang=lang: card_image(key, lang=lang))
            assert not low, (key, lang, low)


def test_the_threat_numbers_read_on_their_shapes():
    """A monster's threat, white in its blue circle or red diamond on every board, table and
    card, had 3.4:1 and 4.0:1 (3.5 measured on a board)."""
    from render import theme as th

    for shape in (th.THREAT_BLUE, th.THREAT_RED):
        assert contrast(th.WHITE, shape) >= MIN_CONTRAST, shape


def test_a_long_name_leaves_the_review_panel_title_whole_inside_the_chart():
    """A 32-character name (full-width Latin and kanji, or all Japanese) ran the review
    panel's title "<name>: chance to win after each decision" off the 800 px chart: the
    words after the name were lost. Now the title ends inside the chart, its words whole
    (a long name is the part cut), still readable at phone width."""
    import io

    from render.review import Panel, review_png

    names = ["Ｗｉｌｈｅｌｍｉｎａ 山田花子 von Löwenstein-W",
             "やまだ・たろう＠ロングネーム専用サーバー管理者見習い二号", "W" * 32]
    for lang, words in (("en", ": chance to win after each decision"),
                        ("ja", ": 各判断の後の勝率")):
        for name in names:
            fresh_caches()
            with boxes.writing() as written:
                im = Image.open(io.BytesIO(review_png(
                    [Panel(name, 1, [(1, 0.5), (2, 0.7)], [1])], lang=lang)))
            titles = [(t, cap, box) for t, cap, _k, box in written if t.endswith(words)]
            assert len(titles) == 1, (lang, name, [t for t, *_ in written])
            t, cap, box = titles[0]
            assert box[0] >= 0 and box[2] <= im.width, (lang, name, box)
            assert cap * PHONE_W / im.width >= MIN_CAP, (lang, name, cap)
