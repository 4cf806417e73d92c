"""Narration: every public event a player can cause reads as a sentence, in EN and JA, and
private events never reach anyone else's lines."""

from __future__ import annotations

import random

from engine import Game, default_cards, visible
from service.narrate import narrate, prompt


def _events(seed: int, players: int, steps: int = 3000) -> tuple[Game, list[dict]]:
    g = Game.new([f"P{i}" for i in range(players)], seed=seed)
    rng = random.Random(seed)
    out: list[dict] = []
    for _ in range(steps):
        if g.over:
            break
        seat = rng.choice(g.waiting_for())
        out += g.apply(seat, rng.choice(g.legal_actions(seat)))
    return g, out


def test_every_kind_of_event_narrates_in_both_languages():
    names = ["Ann", "Bob", "Cy", "Di"]
    seen: set[str] = set()
    for seed in range(12):
        g, ev = _events(seed, 1 + seed % 4)
        for lang in ("en", "ja"):
            lines = narrate(visible(ev, None), names, default_cards(), lang, limit=10_000)
            assert all(isinstance(line, str) and line for line in lines)
        seen |= {e["type"] for e in ev}
        for seat in g.waiting_for():
            assert prompt(g, seat, "en") and prompt(g, seat, "ja")
    # the story covers the main beats of a game
    assert {"picked", "moved", "rolled", "summoned", "monster_moved", "game_over"} <= seen


def test_medal_values_only_in_their_owners_lines():
    """R14.1: a medal's value is known to its owner only."""
    ev = [{"type": "medal", "player": 0},
          {"type": "medal_value", "player": 0, "value": -4, "vis": [0]}]
    names = ["Ann", "Bob"]
    assert "-4" not in " ".join(narrate(visible(ev, 1), names, default_cards()))
    assert "-4" not in " ".join(narrate(visible(ev, None), names, default_cards()))
    assert "-4" in " ".join(narrate(visible(ev, 0), names, default_cards()))


def test_a_bards_command_is_told():
    ev = [{"type": "command", "player": 0, "from": "1B", "target": "2B"}]
    assert "2B" in narrate(ev, ["Ann"], default_cards())[0]
