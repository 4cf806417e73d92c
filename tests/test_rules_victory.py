"""Rules tests: winning and losing: solo (R13), 2–4 players (R14), the round cap (R15)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rules_helpers import (
    actions,
    card,
    hp,
    layout,
    main_card,
    monster,
    puzzle,
    settle,
    summon,
    unit,
)

from engine import Game, visible
from engine.cards import default_cards
from engine.flow import SOLO_FINAL
from service.narrate import narrate
from service.refusals import reason

ROOT = Path(__file__).resolve().parent.parent


def result(g: Game) -> dict[str, Any]:
    assert g.over, "the game should be over"
    return g.state["result"]


# ---- R13 solo -----------------------------------------------------------------------------------

def solo_act(board: dict[str, Any], deck: list[str] | None = None, **top: Any) -> Game:
    """Solo: the player resolves Advance as LEADER (Swordmaster attacks need no dice)."""
    kw = {**main_card("advance", 0, 1),
          "monster_deck": [card(k, f"m{n}") for n, k in enumerate(deck or [])], **top}
    return puzzle([board], decisions={0: actions("advance", 2)}, **kw)


def test_r13_1_solo_wins_when_every_monster_is_defeated():
    """R13.1 (p.25): with the monster deck empty and no monster on the board or in a queue, the
    solo player wins (checked at the end of the command, R14.3 decision)."""
    last = hp("goblin") - 1  # each Goblin has 1 HP left
    g = solo_act({"2B": unit("swordmaster"), "3B": monster("goblin", dmg=last),
                  "3C": monster("goblin", dmg=last), "1A": unit("cleric_star")})
    g.apply(0, "act 2B attack 3B,3C")
    assert not g.over  # the card is not finished: the player may still act
    g.apply(0, "done")
    assert result(g)["winners"] == [0]


@pytest.mark.parametrize("extra", [
    {"monster_deck": [card("goblin", "m9")]},
    {"players": [{"board": {"2B": unit("swordmaster"), "3B": monster("goblin"),
                            "3C": monster("goblin")},
                  "queues": {"A": [card("goblin", "q1")]}}]},
])
def test_r13_1_no_solo_win_while_monsters_remain_in_the_deck_or_a_queue(extra):
    """R13.1: a monster left in the deck or in a waiting queue is not defeated yet."""
    g = solo_act({"2B": unit("swordmaster"), "3B": monster("goblin"), "3C": monster("goblin")},
                 **extra)
    g.apply(0, "act 2B attack 3B,3C")
    assert g.state["executed"][:1] == ["advance"]  # the card has ended…
    assert not g.over  # …without a win


def test_r13_2_difficulty_discards_from_the_unit_deck_before_the_first_reveal():
    """R13.2 (p.25): Easy 0, Normal 3, Hard 6 cards go from the top of the unit deck to the
    discard pile [decision: before the mercenaries are first revealed]."""
    easy = Game.new(["solo"], seed=21, options={"difficulty": "easy"})
    order = [m["id"] for m in easy.state["mercenaries"]] + [c["id"] for c in
                                                            easy.state["unit_deck"]]
    assert easy.state["discard"] == []
    for level, n in (("normal", 3), ("hard", 6)):
        g = Game.new(["solo"], seed=21, options={"difficulty": level})
        assert [c["id"] for c in g.state["discard"]] == order[:n]
        assert [m["id"] for m in g.state["mercenaries"]] == order[n:n + 3]
        assert len(g.state["unit_deck"]) == 34 - 4 - n - 3


def test_r13_2_difficulty_is_a_solo_option():
    """R13.2: the difficulty option is for 1 player only."""
    with pytest.raises(ValueError, match="only for 1 player"):
        Game.new(["a", "b"], seed=1, options={"difficulty": "hard"})


def _running_out(rules: int) -> Game:
    """Round 6's reset of a Normal game: two cards left in the deck, five discarded."""
    g = puzzle([{}], phase="end", step="reset", round=6, options={"difficulty": "normal"},
               unit_deck=[card("archer", "a1"), card("knight", "k1")],
               discard=[card("bard", f"b{k}") for k in range(5)],
               setup={"players": ["P0"], "seed": 7, "rules": rules})
    settle(g)
    return g


def test_r13_2_the_solo_option_reshuffles_and_the_round_after_the_deck_ran_out_is_the_last():
    """R11.3 / R13.2, the rules audit: the option rule (p.27 ③) names the round after the
    unit deck runs out the last, and says nothing against p.23's 「山札がなくなった場合、
    捨て札をシャッフルして新たな山札に」 — the original wins. The deck runs out in round 6's
    reset (its last two cards revealed), the discards become the deck at once, the row is
    full, and round 7 is the final round."""
    st = _running_out(4).state
    assert [m["id"] for m in st["mercenaries"][:2]] == ["a1", "k1"]
    assert st["mercenaries"][2] is not None and st["mercenaries"][2]["card"] == "bard"
    assert len(st["unit_deck"]) == 4 and st["discard"] == []
    assert st["final_round"] == 7


def test_r13_2_a_game_of_rules_3_keeps_its_short_row():
    """A solo option game stored before rules 4 replays as it was played: the deck was not
    rebuilt and the last round's row stayed short (R15: its log gives the state it stored)."""
    st = _running_out(3).state
    assert [m["id"] if m else None for m in st["mercenaries"]] == ["a1", "k1", None]
    assert st["unit_deck"] == [] and len(st["discard"]) == 5
    assert st["final_round"] == 7


def test_r13_2_standard_solo_still_reshuffles():
    """R11.3 / R13.2: without the option the discard pile becomes the new deck."""
    g = puzzle([{}], phase="end", step="reset", round=6,
               unit_deck=[card("archer", "a1")], discard=[card("bard", f"b{k}") for k in range(5)])
    settle(g)
    assert all(g.state["mercenaries"]) and g.state["final_round"] is None


def test_r13_2_final_round_lost_if_monsters_remain_after_its_main_phase():
    """R13.2 (p.25): in the final round, if the monsters are not all defeated by the end of the
    Main phase, the player loses (before any Invasion)."""
    g = puzzle([{"6A": monster("goblin")}], phase="auto", round=7, final_round=7,
               options={"difficulty": "hard"}, monster_deck=[],
               chosen=["reward"], executed=["reward", "rest", "raid", "advance"])
    settle(g)
    assert result(g)["winners"] == [] and result(g)["reason"] == SOLO_FINAL
    assert layout(g) == {"6A": "goblin"}
    # told as the rule says it: the Main phase ran out, not the round (the console audit:
    # "the final round ended" while ⑤–⑦ never ran); the stored English stays as it was
    assert reason(result(g), "en") == ("monsters were left after the final round's Main "
                                       "phase (R13.2)")
    assert "メインフェイズ" in reason(result(g), "ja")


def test_r13_2_the_round_before_the_final_round_is_played_normally():
    """R13.2: before the final round the Main phase ending with monsters left is fine."""
    g = puzzle([{"6A": monster("goblin")}], phase="auto", round=6, final_round=7,
               options={"difficulty": "hard"}, monster_deck=[card("golem", "m1")])
    settle(g)
    assert not g.over and g.state["round"] == 7


# ---- R14 2–4 players ----------------------------------------------------------------------------

def duel(boards: list[dict[str, Any]], players: list[dict[str, Any]] | None = None,
         deck: list[str] | None = None) -> Game:
    """Two players resolving Advance (seat 0 LEADER): both still have to answer."""
    pl = {s: p for s, p in enumerate(players or [])}
    return puzzle(boards, player=pl, decisions={0: actions(), 1: actions()},
                  monster_deck=[card(k, f"m{n}") for n, k in enumerate(deck or [])],
                  **main_card("advance", 0, 2))


def test_r14_1_one_medal_per_boss_two_in_all_and_none_in_solo():
    """R14.1 (p.26): each boss defeated grants a medal, so a player can earn two; medals are
    not used in solo."""
    board = {"2B": unit("swordmaster"), "3B": monster("dragon", dmg=hp("dragon") - 1),
             "3A": monster("lich", dmg=hp("lich") - 1), "1C": unit("knight")}
    g = duel([board, {}], deck=["goblin"])
    g.state["medal_pool"] = [-1, -3, -4]
    g.apply(0, "act 2B attack 3B,3A")
    assert sorted(g.state["players"][0]["medals"]) == sorted(
        set([-1, -3, -4]) - set(g.state["medal_pool"]))
    assert len(g.state["players"][0]["medals"]) == 2
    solo = solo_act(board, deck=["goblin"], medal_pool=[-1, -3])
    solo.apply(0, "act 2B attack 3B,3A")
    assert solo.state["players"][0]["medals"] == [] and len(solo.state["medal_pool"]) == 2
    assert len(solo.state["players"][0]["defeated"]) == 2


def test_r14_2_threat_counts_board_queues_castle_and_medals():
    """R14.2 (p.26): threat = monsters on the board + in the waiting queues + in the castle +
    medal values (negative); other players see it without the hidden medals."""
    g = puzzle([{"3B": monster("golem")}, {}],
               player={0: {"queues": {"A": [card("goblin", "q")]},
                           "castle": [card("skeleton", "c")], "medals": [-2]}})
    assert g.view(0)["players"][0]["threat"] == 3 + 1 + 2 - 2
    assert g.view(1)["players"][0]["threat_public"] == 6
    assert "threat" not in g.view(1)["players"][0]


def test_r14_3_declaring_needs_the_monster_deck_to_be_empty():
    """R14.3 (p.26): with monsters still in the deck nobody declares, however low the threat."""
    g = duel([{}, {}], deck=["goblin"])
    g.apply(0, "done")
    g.apply(1, "done")
    assert not g.over


def test_r14_3_threat_8_or_less_wins_bosses_need_not_be_defeated():
    """R14.3 (p.26): once the deck is empty, threat 8 or less declares victory, even with a
    boss still on the board (Dragon 6 + Goblin 1 = 7); 9 is not enough."""
    g = duel([{"5A": monster("dragon"), "5B": monster("goblin")},
              {"5A": monster("lich"), "5B": monster("golem")}])
    g.apply(0, "done")
    g.apply(1, "done")
    assert result(g)["winners"] == [0]


def test_r14_3_medals_lower_the_threat():
    """R14.1 / R14.3 (p.26): medal values count: 10 with a −2 medal is 8, a win."""
    g = duel([{"5A": monster("lich"), "5B": monster("golem"), "5C": monster("goblin")},
              {"5A": monster("lich"), "5B": monster("golem"), "5C": monster("goblin")}],
             players=[{"medals": [-2]}, {"medals": [-1]}])
    g.apply(0, "done")
    g.apply(1, "done")
    assert result(g)["winners"] == [0]


def test_r14_3_the_game_ends_at_the_end_of_the_command_and_others_may_still_declare():
    """R14.3 (p.26): the game ends at the end of the command during which the first
    declaration was made; every player who gets to 8 or less by then declares too. Seat 0 is
    at 8 already; seat 1 brings itself to 8 with its own action in the same command."""
    g = duel([{"5A": monster("lich"), "5B": monster("skeleton")},
              {"2B": unit("swordmaster"), "3B": monster("goblin", dmg=hp("goblin") - 1),
               "5A": monster("lich"),
               "5B": monster("skeleton")}],
             players=[{"gold": 1}, {"gold": 1}])
    g.apply(0, "done")
    assert not g.over  # the command is not finished: seat 1 still acts
    g.apply(1, "act 2B attack 3B")
    res = result(g)
    assert sorted(res["winners"]) == [1]  # R14.4: seat 1 now has one more honor mark


def test_r14_3_checked_at_the_end_of_the_summon_phase_card():
    """R14.3 [decision]: declarations are checked at the end of every command and phase card:
    the Summon that empties the deck can end the game."""
    g = puzzle([{}, {}], phase="summon", monster_deck=[card("goblin", "m1"),
                                                       card("golem", "m2")],
               chips={"down": ["A", "A"], "up": ["B", "B", "C", "C"]})
    summon(g)
    res = result(g)
    assert res["draw"] is True and res["winners"] == [0, 1]  # both at 4, equal marks, gold


def test_r14_4_ties_most_honor_marks_then_gold_then_draw():
    """R14.4 (p.26): among several declarers, most honor marks (cards + tokens) wins; then most
    gold; then a draw. The rest are ranked by lower threat."""
    base = [{}, {}, {"5A": monster("dragon"), "5B": monster("golem")}]
    cases = [
        ([{"honor": 1, "defeated": [card("goblin", "d")]}, {"honor": 1}, {}], [0], False),
        ([{"honor": 1, "gold": 5}, {"honor": 1, "gold": 6}, {}], [1], False),
        ([{"honor": 2, "gold": 5}, {"honor": 2, "gold": 5}, {}], [0, 1], True),
    ]
    for players, winners, draw in cases:
        pl = {s: p for s, p in enumerate(players)}
        g = puzzle(base, player=pl, monster_deck=[], decisions={0: actions()},
                   **main_card("advance", 0, 3))
        g.apply(0, "done")
        res = result(g)
        assert (res["winners"], res["draw"]) == (winners, draw), players
        assert res["ranking"][-1] == 2  # the player with threat 9 comes last


# ---- R15 round cap -----------------------------------------------------------------------------

def test_r15_round_cap_ends_the_game_lowest_threat_wins():
    """R15 [decision]: a game reaching the end of the capped round ends; lowest threat wins
    (then R14.4)."""
    g = puzzle([{"5A": monster("dragon"), "5B": monster("golem")},
                {"5A": monster("dragon"), "5B": monster("dullahan"), "5C": monster("goblin")}],
               phase="end", step="reset", round=2, options={"round_cap": 2},
               monster_deck=[card("golem", "m1")])
    settle(g)
    res = result(g)
    assert res["winners"] == [0] and "round cap" in res["reason"]


def test_r15_round_cap_solo_is_a_loss():
    """R15: a solo game that reaches the cap has not won."""
    g = puzzle([{"5A": monster("goblin")}], phase="end", step="reset", round=30)
    settle(g)
    assert result(g)["winners"] == []


def test_r14_3_several_declarers_are_told_with_their_medals_and_what_decided():
    """R14.3 (p.26: a declarer reveals its medal tokens) and R14.4, the group audit: the
    game-over post named the declarers and the winner, never the medals revealed, the
    threat declared, nor the honor marks and gold that chose between them."""
    base = [{}, {}, {"5A": monster("dragon"), "5B": monster("golem")}]
    players = {0: {"honor": 2, "gold": 5, "medals": [-2]}, 1: {"honor": 2, "gold": 6}, 2: {}}
    g = puzzle(base, player=players, monster_deck=[], decisions={0: actions()},
               **main_card("advance", 0, 3))
    events = g.apply(0, "done")
    assert result(g)["winners"] == [1]  # the same honor marks: more gold (R14.4)
    told = [str(x) for x in narrate(visible(events, None), ["Ann", "Bob", "Cy"], default_cards())]
    assert "Ann: threat -2 (medals -2), 2 honor marks, 5 gold." in told, told
    assert "Bob: threat 0 (medals 0), 2 honor marks, 6 gold." in told, told
    assert any("the most honor marks win, then the most gold (R14.4)" in x for x in told)


@pytest.mark.parametrize("rules", [3, 4])
def test_r13_2_a_deck_the_first_reveal_empties_makes_round_2_the_last(rules: int) -> None:
    """R13.2 [decision] (a run-out counts at a round's reset, round 1's the first), the
    verification audit: a custom set whose deck Hard's discards leave at two cards is
    emptied by round 0's reveal; rules 4 rebuilds it at once from the discards, and round 2
    must still be the last, as under rules 3."""
    data = json.loads((ROOT / "engine" / "data" / "cards" / "v8.json").read_text("utf-8"))
    data["units"] = {k: {**u, "copies": 3} for k, u in data["units"].items()
                     if k.endswith("_star")}  # 12 cards, 4 in hand, 6 discarded: 2 left
    g = Game.new(["P"], seed=7, options={"difficulty": "hard"}, cards_data=data, rules=rules)
    assert g.state["final_round"] == (2 if rules >= 4 else None)  # (rules 3: seen in round 1)
    assert all(g.state["mercenaries"]) == (rules >= 4)  # rules 4: the row is full
