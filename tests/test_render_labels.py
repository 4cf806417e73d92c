"""Labels never cover names or numbers (issue 7): highlight tags, move arrows, outlines and
the "Lv2" badge stay off every card name, HP pip row, stat number, header text and queue or
castle chip, over many real game moments in both languages; and each image after a phase is
titled by the phase that ended."""

from __future__ import annotations

import random
from typing import Any

from engine import Game, visible
from engine.cards import default_cards
from render import boxes
from render import samples as S
from render.api import board_image
from render.central import stage_name
from render.pieces import unit_sprite, unit_tile
from render.table import table_image

Stage = tuple[dict[str, Any], list[dict[str, Any]]]


def _stages(seed: int, players: int, steps: int = 400) -> list[Stage]:
    """(spectator view as a card or phase ended, that stage's public events), as the bot
    posts them (service.games keeps the view with `after`)."""
    g = Game.new([f"Player {i}" for i in range(players)], seed=seed)
    rng = random.Random(seed)
    out: list[Stage] = []
    for _ in range(steps):
        if g.over:
            break
        seat = rng.choice(g.waiting_for())
        kept: list[tuple[str, int, dict[str, Any]]] = []

        def keep(what: str, n: int, kept: list = kept) -> None:
            kept.append((what, n, {**g.view(None), "after": what}))

        ev = g.apply(seat, rng.choice(g.legal_actions(seat)), on_resolved=keep)
        start = 0
        for _what, end, view in kept:
            out.append((view, visible(ev[start:end], None)))
            start = end
    return out


def _collisions(marks: list[boxes.Mark]) -> list[tuple[boxes.Box, boxes.Box]]:
    ink = [b for k, b in marks if k == "ink"]
    return [(lab, b) for k, lab in marks if k == "label" for b in ink if boxes.meets(lab, b)]


def test_labels_never_cover_names_or_numbers_over_many_game_moments():
    drawn = dropped = images = 0
    for seed in (0, 1):
        for players in (1, 2, 3, 4):
            for i, (view, events) in enumerate(_stages(seed, players)):
                if i % 3 and not any(e["type"] in ("rolled", "monster_moved") for e in events):
                    continue
                lang = "ja" if (i + seed) % 2 else "en"
                with boxes.capture() as marks:
                    table_image(view, lang=lang, highlights=events)
                bad = _collisions(marks)
                assert not bad, (seed, players, i, lang, view.get("after"), bad[:3])
                drawn += sum(k == "label" for k, _ in marks)
                dropped += sum(k == "dropped" for k, _ in marks)
                images += 1
    assert images > 100 and drawn > 20 * images  # tags, arrows and frames were drawn
    assert dropped < drawn / 50  # and only rarely had to be left out for lack of room


def test_the_sample_story_board_keeps_its_labels_off_the_pieces():
    busy = S.one_board_view(S.busy_player(0, "Alice"))
    for lang in ("en", "ja"):
        with boxes.capture() as marks:
            board_image(busy, 0, lang=lang, highlights=S.SAMPLE_EVENTS)
        assert not _collisions(marks)
        assert sum(k == "label" for k, _ in marks) > 30
        assert not [m for m in marks if m[0] == "dropped"]


def test_lv2_badge_leaves_mov_and_the_name_readable_on_an_acted_levelled_unit():
    """R12.2: a levelled unit carries "Lv2"; an acted one also its check token (R8.3)."""
    cs = default_cards()
    for key in ("warrior", "cleric", "sorcerer", "thief"):
        for lang in ("en", "ja"):
            for acted in (False, True):
                spr = unit_sprite(cs.units[key], key, 1, acted, 0, (240, 230, 210), 94, lang)
                assert any(k == "label" for k, _ in spr.marks)  # the badge is there
                assert not _collisions(list(spr.marks))
                tile = unit_tile(cs.units[key], key, 1, acted, 0, (240, 230, 210), 94, 56, lang)
                assert not _collisions(list(tile.marks))


def test_each_phase_image_is_titled_by_the_phase_that_ended():
    """R5: after ⑤ the state is already in ⑥; the image after ⑤ must still say Invasion,
    and after ⑦ the row is next round's (R11.4) with no check marks of this round."""
    seen = set()
    for view, _events in _stages(3, 2):
        after = view["after"]
        title = stage_name(view, "en")
        if after == "invasion":
            assert "Invasion" in title and "Summon" not in title
        elif after == "summon":
            assert "Summon" in title
        elif after == "end":
            assert "End" in title
        seen.add(after)
    assert {"invasion", "summon", "end"} <= seen
    assert stage_name({"phase": "summon", "after": "invasion", "players": []}, "ja") == "⑤ 侵略"
