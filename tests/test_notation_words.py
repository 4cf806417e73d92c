"""An answer shown to a person (a hint, the review's "the expert would have", a tutorial
button) names cards as the rulebook does, in the reader's language — and typed back, it is
the same answer (docs/notation.md: a card's key or its name in either language). The
console lists its answers to type (`legal`, its examples) the same way."""

from __future__ import annotations

import copy
import random

import pytest

from ai import make_player
from engine import Game, parse
from service.notation import action_words


@pytest.mark.parametrize("players", [1, 2])
def test_every_shown_answer_names_its_cards_and_plays_back_as_itself(players: int) -> None:
    g = Game.new(["Ann", "Bob"][:players], seed=11 + players,
                 options={"difficulty": "normal"} if players == 1 else None)
    bots = [make_player("greedy", s) for s in range(players)]
    rng = random.Random(players)
    seen_names = 0
    for _ in range(160):
        if g.over:
            break
        seat = g.waiting_for()[0]
        legal = g.legal_actions(seat)
        for a in rng.sample(legal, min(6, len(legal))):
            text = str(a)
            for lang in ("en", "ja"):
                shown = action_words(text, g.cards, lang)
                assert shown.split(" ")[0] == text.split(" ")[0]  # the verb is never a card
                if a.card:  # the key never shows: the card's name does
                    assert a.card not in shown.split(" ")[1:] or \
                        g.cards.name(a.card, lang) == a.card
                    assert g.cards.name(a.card, lang) in shown
                    seen_names += 1
                trial = Game(copy.deepcopy(g.state), g.cards)
                trial.apply(seat, shown)
                assert trial.state["log"][-1][1] == text, (shown, text)
        g.apply(seat, bots[seat].choose(g.view(seat), seat))
    assert seen_names > 20  # the games offered cards to name (place, recruit, pick)


def test_the_verb_recruit_is_not_the_command_card_recruit() -> None:
    """`recruit` is a verb and the name of a command card (R7.1, 募兵): only the card is
    translated."""
    cs = Game.new(["Ann"], seed=1).cards
    assert action_words("recruit archer 2C", cs, "ja") == "recruit アーチャー 2C"
    assert action_words("pick recruit", cs, "ja") == "pick 募兵"
    assert action_words("place thief_star 2A", cs, "en") == "place Thief★ 2A"
    assert str(parse("recruit アーチャー 2C").verb) == "recruit"


def test_a_level_up_card_in_hand_is_shown_and_typed_back_as_itself() -> None:
    """A level-up card that fainted goes back to the hand (R9.1, R12.2) and is named
    `Warrior`, where the starting card is `Warrior★`: the name alone would fit both, so the
    game decides by what the hand holds — the shown answer recruits the level-up card."""
    g = Game.new(["Ann", "Bob"], seed=9)
    bots = [make_player("greedy", s) for s in range(2)]
    levelled = {"warrior", "cleric", "sorcerer", "thief"}
    for _ in range(400):
        seat = g.waiting_for()[0]
        offers = [a for a in g.legal_actions(seat) if a.card in levelled]
        if offers:
            break
        g.apply(seat, bots[seat].choose(g.view(seat), seat))
    assert offers, "no level-up card came back to a hand in this game"
    for a in offers:
        for lang in ("en", "ja"):
            shown = action_words(str(a), g.cards, lang)
            assert g.cards.name(str(a.card), lang) in shown and "★" not in shown
            trial = Game(copy.deepcopy(g.state), g.cards)
            trial.apply(seat, shown)
            assert trial.state["log"][-1][1] == str(a), (shown, str(a))
