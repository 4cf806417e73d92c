"""Issue 19: no stalls. A game between sensible players ends well before the round cap (R15);
the AI notices a stalemate and breaks it.

The frozen game: standard solo, `python -m sim` seed 64 — a Wraith attacks a Thief★ that a
Cleric★ heals every round, so the Wraith never moves (R9); `greedy` kept healing and taking
Reward until the round cap, gold unspent.
"""

from __future__ import annotations

import ai.greedy
from ai.greedy import STALEMATE, idle_rounds, stalemate
from engine import Game, board, view
from engine.cards import RELEASED_DIR
from sim.runner import Config, cards_in_use, play_game

# the frozen game was dealt with card set v7 (seed 64 froze there; v8's bosses play differently)
V7 = str(RELEASED_DIR / "v7.json")  # the released card set this test was written on

WRAITH = {"id": "m99", "card": "wraith", "dmg": 0}


def test_the_frozen_solo_game_now_ends_with_the_monsters_defeated(monkeypatch):
    """Seed 64 of standard solo used to reach the round cap (round 30, nobody wins); the AI
    now sees the stalemate, walks a unit over to the Wraith and wins well before the cap."""
    broke = []
    real = ai.greedy.breaking
    monkeypatch.setattr(ai.greedy, "breaking", lambda w: broke.append(1) or real(w))
    with cards_in_use(V7):
        rec = play_game(Config(players=1, ai=("greedy",), cards=V7), 64)
    assert rec.reason == "all_defeated" and rec.winners == [0]
    assert rec.rounds <= 20  # the cap is 30
    assert broke, "the stalemate was never noticed: the game ended for another reason"


def _stuck_view(log: list[list[object]], options: dict | None = None):
    """A solo view with the Wraith on the board and `log` as its history."""
    g = Game.new(["Ann"], seed=3, options=options)
    v = view(g.state, 0)
    v["players"][0]["board"][board.square("2A")] = dict(WRAITH)
    v["log"] = log
    return v


ROUND_HEALING = [[0, "pick reward"], [0, "act 1B heal 1A,1A"], [0, "ready 1B"]]


def test_rounds_without_an_attack_are_read_from_the_players_own_log():
    """Counted by the seat's command choices (one a round, R6) since its last attack on a
    monster (R8.2: a dice, allocated or area skill, or one a Bard commands)."""
    attacked = [[0, "pick raid"], [0, "act 1A attack 3A"]]
    assert idle_rounds(_stuck_view(attacked), 0) == 0
    assert idle_rounds(_stuck_view(attacked + ROUND_HEALING), 0) == 1
    assert idle_rounds(_stuck_view(attacked + ROUND_HEALING * 2), 0) == 2
    commanded = [[0, "pick raid"], [0, "act 2B command 1B attack 3B"]]
    assert idle_rounds(_stuck_view(ROUND_HEALING * 5 + commanded), 0) == 0
    area = [[0, "pick advance"], [0, "act 2C to 3C area"]]
    assert idle_rounds(_stuck_view(ROUND_HEALING * 5 + area), 0) == 0
    # another seat's attacks are not this seat's progress; a hidden entry is skipped
    others = [[1, "act 1A attack 3A"], [1, "recruit (hidden until everyone has chosen)"]]
    assert idle_rounds(_stuck_view(attacked + ROUND_HEALING + others), 0) == 1


def test_a_stalemate_needs_idle_rounds_a_monster_and_no_near_deadline():
    stuck = ROUND_HEALING * STALEMATE
    assert stalemate(_stuck_view(stuck), 0)
    assert not stalemate(_stuck_view(ROUND_HEALING * (STALEMATE - 1)), 0)
    quiet = _stuck_view(stuck)
    quiet["players"][0]["board"] = [x if x is None or "owner" in x else None
                                    for x in quiet["players"][0]["board"]]
    assert not stalemate(quiet, 0)  # nothing to attack: waiting is no stalemate
    # R13.2: with the final round near, the deadline itself presses for damage
    hard = _stuck_view(stuck, {"difficulty": "hard"})
    hard["final_round"] = hard["round"] + 1
    assert not stalemate(hard, 0)


def test_breaking_a_stalemate_values_the_walk_toward_a_monster():
    """Greedy with stalemate weights prefers the position where a unit stands one move
    closer to an attack square on a monster it cannot reach yet (ai/evaluate.py approach)."""
    from ai.evaluate import W, evaluate
    from ai.model import cards_of

    g = Game.new(["Ann"], seed=3)
    v = view(g.state, 0)
    b = [None] * board.SIZE
    b[board.square("2A")] = dict(WRAITH)
    # the Wraith's victim, which keeps it from moving (R9)
    b[board.square("1A")] = {"id": "u0", "card": "thief_star", "owner": 0, "dmg": 0,
                             "acted": True}
    warrior = {"id": "u1", "card": "warrior", "owner": 0, "dmg": 0, "acted": True}
    v["players"][0]["board"] = b
    cs = cards_of(v)
    far, near_ = list(b), list(b)
    far[board.square("5B")] = dict(warrior)  # 5B: three steps from 3A
    near_[board.square("4B")] = dict(warrior)  # 4B: two steps
    broken = ai.greedy.breaking(W)

    def score(bd: list, w) -> float:
        v["players"][0]["board"] = bd
        return evaluate(cs, v, 0, w)

    assert score(near_, broken) > score(far, broken)
    assert score(near_, W) == score(far, W)  # the flat ground that froze the game
