"""The AI levels: legal answers only, from a view only (R3), and `greedy` beats `random`.

Game counts are kept small so the suite stays fast; the strength measurements with
confidence intervals are bench/ai.py's job (README "AI players").
"""

from __future__ import annotations

import copy
import json

import pytest

from ai import LEVELS, make_player
from ai.model import cards_of, dice_odds
from engine import Game, default_cards, view
from engine.cards import DATA_FILE
from tests.engine_invariants import check_view

NAMES = ["Ann", "Bob", "Cid", "Dee"]


def play(levels: list[str], seed: int, options: dict | None = None,
         cards: dict | None = None) -> Game:
    """A whole game where seat s is played by AI `levels[s]`; the engine refuses nothing
    (an illegal answer raises and fails the test)."""
    g = Game.new(NAMES[: len(levels)], seed=seed, options=options, cards_data=cards)
    bots = [make_player(lv, seed * 10 + s) for s, lv in enumerate(levels)]
    for _ in range(5000):
        if g.over:
            return g
        seat = g.waiting_for()[0]
        v = view(g.state, seat)
        text = bots[seat].choose(v, seat)
        assert text in {str(a) for a in g.legal_actions(seat)}, f"{text!r} is not listed"
        g.apply(seat, text)
    raise AssertionError("the game did not end")


def test_every_level_is_registered():
    assert {"random", "greedy"} <= set(LEVELS)


@pytest.mark.parametrize("players", [1, 2, 4])
def test_greedy_answers_only_listed_legal_actions(players):
    for seed in range(2):
        g = play(["greedy"] * players, seed)
        assert g.state["result"]["reason"]


def test_greedy_sees_only_the_view():
    """Two games that differ only in secrets (deck orders, RNG) show the same view, and
    greedy answers both the same way: it cannot be reading what the view hides (R3)."""
    g = Game.new(["Ann"], seed=3)
    g.apply(0, "place thief_star 2B")
    other = copy.deepcopy(g.state)
    other["monster_deck"].reverse()
    other["unit_deck"].reverse()
    other["rng"] = {k: v ^ 0x5A5A for k, v in other["rng"].items()}
    v1, v2 = view(g.state, 0), view(other, 0)
    assert v1 == v2
    assert make_player("greedy", 1).choose(v1, 0) == make_player("greedy", 1).choose(v2, 0)


def test_dice_odds_follow_r8_2():
    """Double one deals 0, double six 3, else 2 at or above DEF and 1 below (R8.2)."""
    p0, p1, p2, p3 = dice_odds(0, 7)  # 2d6 ≥ 7: 21 outcomes, minus the double six
    assert (p0, p3) == (1 / 36, 1 / 36)
    assert p2 == pytest.approx(20 / 36) and p1 == pytest.approx(14 / 36)
    assert dice_odds(0, 13)[2] == 0.0  # only the critical beats DEF 13


def test_view_keeps_a_custom_card_set_and_no_secret():
    """Card data is public: a custom set stays in every view so an AI plays with the same
    cards as the engine; the view still hides every secret (R3)."""
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    data["units"]["thief_star"]["skill"]["mod"] = 3
    g = Game.new(["Ann", "Bob"], seed=2, cards_data=data)
    for seat in (0, 1, None):
        v = g.view(seat)
        assert v["setup"]["cards"] == data
        check_view(g, seat)
    plain = Game.new(["Ann"], seed=2)
    assert "cards" not in plain.view(0)["setup"]
    assert default_cards().units["thief_star"].skill.mod == 0


def test_ais_play_by_a_custom_card_set():
    """Warrior★ with MOV 2 and a Thief★ that also reaches the square in front: moves and
    targets the default set forbids. The AIs read the set from the view, so every answer
    they give is still one the engine lists (an AI on the default set would be refused)."""
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    data["units"]["warrior_star"]["mov"] = 2
    data["units"]["thief_star"]["skill"].update(range=[[1, 0], [2, 0], [3, 0]], gaps=[])
    g = play(["greedy", "random"], 5, cards=data)
    moved = [t for s, t in g.state["log"] if s == 0 and t.startswith("act")]
    assert moved
    assert cards_of(g.view(0)).units["warrior_star"].mov == 2
