"""Japanese players read why an answer was refused: every refusal the engine gives during
random play (mutated, misplaced and garbage answers) has a Japanese rendering."""

from __future__ import annotations

import random

from engine import ActionError, Game
from engine.board import NAMES
from service.refusals_ja import localize

VERBS = ["pick", "place", "act", "recruit", "ready", "support", "levelup", "reroll", "keep",
         "done", "autosave", "fly", ""]
WORDS = ["advance", "raid", "thief", "archer", "warrior", "dragon", "merc", "to", "attack",
         "area", "heal", "command", "fullmove", "9Z", "on", ",", "2B,2B"]


def _garbage(rng: random.Random, g: Game, seat: int) -> str:
    legal = [str(a) for a in g.legal_actions(seat)] or ["done"]
    kind = rng.random()
    if kind < 0.4:  # a legal action with one token changed
        toks = rng.choice(legal).split()
        toks[rng.randrange(len(toks))] = rng.choice(NAMES + WORDS)
        return " ".join(toks)
    if kind < 0.7:
        return " ".join([rng.choice(VERBS)] + [rng.choice(NAMES + WORDS)
                                               for _ in range(rng.randrange(4))])
    return rng.choice(legal)  # right text, possibly the wrong player


def _refusals(games: int = 40) -> set[str]:
    seen: set[str] = set()
    for seed in range(games):
        rng = random.Random(seed)
        g = Game.new([f"P{i}" for i in range(1 + seed % 4)], seed=seed)
        for _ in range(400):
            if g.over:
                break
            for _ in range(3):
                seat = rng.randrange(len(g.state["players"]))
                try:
                    Game.from_json(g.to_json()).apply(seat, _garbage(rng, g, seat))
                except ActionError as e:
                    seen.add(e.message)
            seat = rng.choice(g.waiting_for())
            g.apply(seat, rng.choice(g.legal_actions(seat)))
    return seen


def test_every_refusal_seen_in_play_has_japanese():
    messages = _refusals()
    assert len(messages) > 40  # the harvest really covers many kinds of refusal
    untranslated = sorted(m for m in messages if localize(m, "ja") == m)
    assert untranslated == []


def test_card_names_and_squares_survive_translation():
    ja = localize("Thief★ on 2B cannot reach 5B: a Goblin stands on 4B.", "ja")
    assert ja == "2Bのシーフ★は5Bに行けません: 4Bにゴブリンがいます。"
    assert localize("The game is over.", "en") == "The game is over."
    assert localize("Something new.", "ja") == "Something new."


def test_the_end_of_a_game_reads_in_japanese():
    """R9.3/R14.3 results: the reason a game ended is translated too."""
    ja = localize("The game is over: Ann won — last player standing (R9.3).", "ja")
    assert ja == "ゲームは終了しました: Ann の勝利 — 最後に残ったプレイヤー（R9.3）。"
    ja = localize("The game is over: the monsters won — a monster invaded the castle (R13.1).",
                  "ja")
    assert "モンスターの勝利" in ja and "城に侵入" in ja


def test_new_notation_refusals_have_japanese():
    """The refusals of the `rolls` standing order and of a too deep Command chain (R8.2)."""
    from engine import NotationError, parse

    for text in ("rolls sometimes", "act 2B " + "command 2A " * 40 + "attack 5B"):
        try:
            parse(text)
        except NotationError as e:
            ja = localize(e.message, "ja")
            assert ja != e.message and "Use" not in ja and "Too many" not in ja, ja
        else:
            raise AssertionError(f"{text!r} was accepted")
