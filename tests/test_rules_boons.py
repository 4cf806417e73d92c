"""Rules tests: boons (R12): honor marks, timing (R12.1), Level Up (R12.2), Willpower (R12.3),
Full Move (R12.4)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rules_helpers import (
    actions,
    at,
    card,
    decision,
    dice_seed,
    expect_error,
    hand,
    hp,
    invade,
    layout,
    main_card,
    monster,
    of_type,
    puzzle,
    unit,
)

from engine import Game, IllegalAction, NotationError


def act_game(board: dict[str, Any], rolls: tuple[tuple[int, int], ...] = (), honor: int = 1,
             defeated: int = 0, levelups: int = 0, **top: Any) -> Game:
    """Seat 0 resolves Advance as LEADER with the given marks; its rolls come out as `rolls`."""
    dice = {0: dice_seed(*rolls)} if rolls else None
    pl = {"honor": honor, "levelups": levelups,
          "defeated": [card("goblin", f"d{k}") for k in range(defeated)]}
    return puzzle([board, {}], decisions={0: actions("advance", 2)}, player={0: pl},
                  dice=dice, **main_card("advance", 0, 2), **top)


def marks(g: Game, seat: int = 0) -> int:
    p = g.state["players"][seat]
    return p["honor"] + len(p["defeated"])


# ---- R12 honor marks ----------------------------------------------------------------------------

def test_r12_marks_are_tokens_and_defeated_cards_spent_tokens_first():
    """R12 (p.24): honor marks are honor tokens and defeated monster cards, one each, spent in
    any mix; spent marks leave the game [decision: tokens are spent first, then cards]."""
    g = act_game({"2B": unit("warrior_star")}, honor=1, defeated=2)
    g.apply(0, "levelup 2B")
    p = g.state["players"][0]
    assert p["honor"] == 0 and len(p["defeated"]) == 1
    assert [c["card"] for c in g.state["removed"]] == ["goblin"]


# ---- R12.1 timing -------------------------------------------------------------------------------

def test_r12_1_levelup_is_allowed_at_any_time():
    """R12.1 (p.24: 「レベルアップの宣言はいつでもできます」): at the player's own pick and ready
    decisions, and while the game waits on someone else — then the unit is replaced at once
    and the other player's question stays as it was (until the twenty-third session's audit
    it was refused: "nothing to decide"). Its price still applies (R12.2)."""
    g = puzzle([{"2B": unit("warrior_star")}, {"2B": unit("cleric_star")}],
               phase="main", round=1, turn_order=[0, 1], turn=0,
               decisions={0: decision("pick", options=["advance", "reward"])},
               player={0: {"honor": 2}, 1: {"honor": 2}})
    asked = g.decision(0)
    g.apply(1, "levelup 2B")
    assert layout(g, 1)["2B"] == "cleric" and g.state["players"][1]["honor"] == 0
    assert g.decision(0) == asked and g.decision(1) is None
    expect_error(g, 1, "levelup 2B", IllegalAction, "Only ★ units level up")  # a Cleric is no ★ unit
    g.apply(0, "levelup 2B")
    assert layout(g)["2B"] == "warrior" and g.decision(0)["kind"] == "pick"
    replayed = Game.replay(g.setup, g.state["log"])  # the log replays it (R15)
    assert layout(replayed, 1)["2B"] == "cleric"


def test_r12_1_the_level_ups_a_player_may_declare_are_listed_asked_or_not():
    """R12.1: what `/rr levelup` suggests — every ★ unit the player can pay for, whether the
    game waits on them or on someone else; nothing once the marks run short (R12.2)."""
    g = puzzle([{"2B": unit("warrior_star")}, {"2B": unit("cleric_star"), "1A": unit("thief_star")}],
               phase="main", round=1, turn_order=[0, 1], turn=0,
               decisions={0: decision("pick", options=["advance", "reward"])},
               player={0: {"honor": 2}, 1: {"honor": 2}})
    assert g.legal_actions(1) == []  # nothing asked of seat 1 …
    assert sorted(str(a) for a in g.levelups(1)) == ["levelup 1A", "levelup 2B"]  # … yet
    g.apply(1, "levelup 1A")
    assert g.levelups(1) == []  # 0 marks left
    assert [str(a) for a in g.levelups(0)] == ["levelup 2B"]
    g2 = puzzle([{"2B": unit("thief_star", acted=True)}, {}], player={0: {"honor": 2}},
                decisions={0: decision("ready", card="rest", n=2)}, **main_card("rest", 0, 2))
    g2.apply(0, "levelup 2B")
    assert at(g2, "2B")["card"] == "thief" and at(g2, "2B")["acted"] is True


def test_r12_1_willpower_offered_after_a_miss():
    """R12.1/R12.3 [decision]: after a roll whose reroll could raise the damage, the player is
    asked: a miss (1 damage) on a fresh Golem (HP 2)."""
    g = act_game({"2B": unit("warrior_star"), "3B": monster("golem")}, rolls=((3, 4),))
    g.apply(0, "act 2B attack 3B")
    d = g.decision(0)
    assert d["kind"] == "roll" and d["can_reroll"] is True and d["result"] == "miss"


def test_r12_1_willpower_offered_after_a_hit_that_a_critical_would_beat_when_asked_always():
    """R12.1 [decision] / p.25 ('if you don't like the result'): a hit (2 damage) on a fresh
    Dullahan (HP 3) can still become a critical (3). With the standing order `rolls always`
    Willpower is offered; by default (`rolls miss`) the hit is applied at once, since asking
    after almost every hit would stall the game for a 1-in-36 chance."""
    g = act_game({"2B": unit("warrior_star"), "3B": monster("dullahan")}, rolls=((4, 4),))
    g.apply(0, "rolls always")
    g.apply(0, "act 2B attack 3B")
    d = g.decision(0)
    assert d["kind"] == "roll" and d["result"] == "hit" and d["can_reroll"] is True
    g.apply(0, "keep")
    assert at(g, "3B")["dmg"] == 2
    default = act_game({"2B": unit("warrior_star"), "3B": monster("dullahan")}, rolls=((4, 4),))
    assert default.state["players"][0]["rolls"] == "miss"
    ev = default.apply(0, "act 2B attack 3B")
    assert default.decision(0) is None  # no roll question (and no un-acted unit left)
    assert of_type(ev, "rolled")[0]["result"] == "hit" and at(default, "3B")["dmg"] == 2


def test_r12_1_rolls_miss_still_asks_after_a_miss_and_a_fumble():
    """R12.1 [decision]: the default `rolls miss` asks exactly where a boon matters most: a
    miss (1 damage) and a fumble (0) on a fresh Dullahan (HP 3)."""
    for dice, result in (((2, 3), "miss"), ((1, 1), "fumble")):
        g = act_game({"2B": unit("warrior_star"), "3B": monster("dullahan")}, rolls=(dice,))
        g.apply(0, "act 2B attack 3B")
        d = g.decision(0)
        assert d["kind"] == "roll" and d["result"] == result and d["can_reroll"] is True


def test_r12_1_rolls_standing_order_is_logged_and_replays():
    """R15: `rolls` is a standing order like `autosave`: accepted with or without a decision,
    logged in canonical form, so setup + log reproduces the questions asked."""
    g = Game.new(["a", "b"], seed=5)
    g.apply(1, "ROLLS Always")
    assert g.state["log"][-1] == [1, "rolls always"]
    assert g.state["players"][1]["rolls"] == "always"
    assert g.state["players"][0]["rolls"] == "miss"
    again = Game.replay(g.state["setup"], g.state["log"])
    assert again.to_json() == g.to_json()
    expect_error(g, 0, "rolls sometimes", NotationError, "rolls miss.*rolls always")


def test_r12_1_a_saved_game_without_the_rolls_key_loads_with_the_default():
    """docs/state.md: a state saved before `rolls` existed loads as `rolls miss`."""
    g = Game.new(["a"], seed=5)
    data = json.loads(g.to_json())
    del data["players"][0]["rolls"]
    assert Game.from_json(data).state["players"][0]["rolls"] == "miss"


@pytest.mark.parametrize("target, roll, why", [
    (monster("golem"), (4, 4), "a hit already defeats the 2-HP Golem"),
    (monster("goblin", dmg=hp("goblin") - 1), (1, 2), "1 HP left: a miss already defeats it"),
    (monster("dullahan", dmg=hp("dullahan") - 1), (1, 2), "1 HP left: 1 damage is all it can take"),
    (monster("dragon"), (6, 6), "a critical cannot be bettered"),
])
def test_r12_1_willpower_not_offered_when_no_reroll_could_deal_more(target, roll, why):
    """R12.1 [decision]: no question when a reroll could not raise the damage actually dealt
    (damage capped by the HP left); the damage is applied at once."""
    g = act_game({"2B": unit("warrior_star"), "3B": target}, rolls=(roll,))
    g.apply(0, "act 2B attack 3B")
    assert g.decision(0) is None or g.decision(0)["kind"] != "roll", why


def test_r12_1_willpower_offered_after_a_fumble_and_needs_a_mark():
    """R12.1: a fumble (0 damage) can be rerolled when the player has a mark; without any
    mark nothing is asked and the fumble stands."""
    g = act_game({"2B": unit("warrior_star"), "3B": monster("goblin")}, rolls=((1, 1),))
    g.apply(0, "act 2B attack 3B")
    assert g.decision(0)["kind"] == "roll" and g.decision(0)["result"] == "fumble"
    g0 = act_game({"2B": unit("warrior_star"), "3B": monster("goblin")}, rolls=((1, 1),),
                  honor=0)
    g0.apply(0, "act 2B attack 3B")
    assert g0.decision(0) is None and at(g0, "3B")["dmg"] == 0


def test_r12_1_levelup_offered_at_a_roll_when_the_higher_modifier_would_hit():
    """R12.1 [decision]: Level Up is offered at a roll decision when the level-up card's
    modifier would raise the damage: Warrior★ (+1) rolls 7 against DEF 9; Warrior (+2) would
    make 9. With a roll of 6 it would not, so only Willpower is offered."""
    g = act_game({"2B": unit("warrior_star"), "3B": monster("golem")}, rolls=((3, 4),),
                 honor=2)
    g.apply(0, "act 2B attack 3B")
    assert g.decision(0)["can_levelup"] is True
    g2 = act_game({"2B": unit("warrior_star"), "3B": monster("golem")}, rolls=((2, 4),),
                  honor=2)
    g2.apply(0, "act 2B attack 3B")
    assert g2.decision(0)["can_levelup"] is False and g2.decision(0)["can_reroll"] is True


def test_r12_1_p24_level_up_right_after_the_roll_raises_the_attack():
    """R12.1 / R12.2 (p.24): 'a unit whose modifier rises can level up right after the dice are
    rolled and gain +1 attack': Warrior★'s 7+1 = 8 misses the Golem (DEF 9); levelling up
    makes it 7+2 = 9, a hit: 2 damage defeats the Golem."""
    g = act_game({"2B": unit("warrior_star"), "3B": monster("golem")}, rolls=((3, 4),),
                 honor=2)
    g.apply(0, "act 2B attack 3B")
    g.apply(0, "levelup 2B")
    assert at(g, "3B") is None
    assert layout(g)["2B"] == "warrior"
    assert [c["card"] for c in g.state["players"][0]["defeated"]] == ["golem"]


def test_r12_1_autosave_standing_order_levels_up_to_survive_an_enemy_attack():
    """R12.1 (p.24: level up to gain HP and avoid fainting) with the engine's standing order
    for the Enemy phase: with autosave on, a Warrior★ (HP 4, 2 cubes) hit for 2 by a Golem
    becomes a Warrior (HP 5) and survives; without it, it faints."""
    board = {"3B": monster("golem"), "2B": unit("warrior_star", dmg=2)}
    g = puzzle([board], player={0: {"honor": 2, "autosave": True}})
    invade(g)
    assert at(g, "2B")["card"] == "warrior" and at(g, "2B")["dmg"] == 4
    assert g.state["players"][0]["honor"] == 0
    g2 = puzzle([board], player={0: {"honor": 2}})
    invade(g2)
    assert hand(g2) == ["warrior_star"]


def test_r12_1_autosave_does_not_spend_marks_when_levelling_cannot_save():
    """R12.1: the standing order levels up only when that saves the unit (3 cubes + 2 ≥ 5)."""
    g = puzzle([{"3B": monster("golem"), "2B": unit("warrior_star", dmg=3)}],
               player={0: {"honor": 2, "autosave": True}})
    invade(g)
    assert hand(g) == ["warrior_star"] and g.state["players"][0]["honor"] == 2


def test_r12_1_autosave_is_for_the_enemy_phase_only():
    """R12.1: standing orders cover the Enemy phase, where nobody is asked; in the Main phase
    the player decides for itself, so a Bard's command that makes a Warrior★ faint is not
    turned into an automatic Level Up."""
    g = act_game({"1A": unit("bard"), "2B": unit("warrior_star", dmg=3)}, honor=2)
    g.apply(0, "autosave on")
    g.apply(0, "act 1A command 2B")
    assert hand(g) == ["warrior_star"] and marks(g) == 2


def test_r12_1_autosave_can_be_set_any_time():
    """R12.1 standing orders: 'autosave on' needs no pending decision."""
    g = puzzle([{}, {}])
    g.apply(1, "autosave on")
    assert g.state["players"][1]["autosave"] is True


# ---- R12.2 Level Up -----------------------------------------------------------------------------

def test_r12_2_level_up_keeps_square_cubes_and_marker_and_discards_the_star_card():
    """R12.2 (p.24): the ★ unit is replaced by the level-up card of its job; square, cubes and
    action marker carry over; the ★ card goes to the discard pile; no gold is paid."""
    g = act_game({"3C": unit("cleric_star", dmg=2, acted=True, uid="u7")}, honor=2)
    g.apply(0, "levelup 3C")
    u = at(g, "3C")
    assert (u["card"], u["dmg"], u["acted"]) == ("cleric", 2, True)
    assert g.state["discard"] == [{"id": "u7", "card": "cleric_star"}]
    assert len(g.state["levelup_piles"]["cleric"]) == 3
    assert g.state["players"][0]["gold"] == 2  # no gold paid
    assert marks(g) == 0


def test_r12_2_price_is_2_for_the_first_two_level_ups_then_3():
    """R12.2 (p.24): 2 honor marks for each player's 1st and 2nd level-up, 3 from the 3rd."""
    g = act_game({"1A": unit("warrior_star"), "1B": unit("cleric_star"),
                  "1C": unit("thief_star"), "2A": unit("sorcerer_star")}, honor=8)
    for sq, left in (("1A", 6), ("1B", 4), ("1C", 1)):
        g.apply(0, f"levelup {sq}")
        assert marks(g) == left
    msg = expect_error(g, 0, "levelup 2A", IllegalAction, "costs 3 honor marks")
    assert "you have 1" in msg


def test_r12_2_only_star_units_on_the_board_and_only_while_the_pile_lasts():
    """R12.2 (p.24): only a ★ (basic job) unit on the board can level up, and not when that
    job's level-up pile is empty."""
    piles = {"warrior": [], "cleric": [card("cleric", "lc")], "sorcerer": [], "thief": []}
    g = act_game({"1A": unit("warrior_star"), "1B": unit("knight"), "1C": unit("cleric")},
                 honor=5, levelup_piles=piles)
    expect_error(g, 0, "levelup 1A", IllegalAction, "pile is empty")
    expect_error(g, 0, "levelup 1B", IllegalAction, "Only ★ units")
    expect_error(g, 0, "levelup 1C", IllegalAction, "Only ★ units")
    expect_error(g, 0, "levelup 2C", IllegalAction, "no unit on 2C")


def test_r12_2_not_enough_marks():
    """R12.2: Level Up needs its price in honor marks."""
    g = act_game({"1A": unit("warrior_star")}, honor=1)
    expect_error(g, 0, "levelup 1A", IllegalAction, "costs 2 honor marks and you have 1")


# ---- R12.3 Willpower ----------------------------------------------------------------------------

def test_r12_3_willpower_rerolls_for_one_mark_and_the_new_result_stands():
    """R12.3 (p.25): 1 mark, the two dice are rolled again; the reroll cannot be rerolled and
    its result stands, fumble included."""
    g = act_game({"2B": unit("warrior_star"), "3B": monster("golem"),
                  "1A": unit("cleric_star")}, rolls=((3, 4), (1, 1)), honor=2)
    g.apply(0, "act 2B attack 3B")
    ev = g.apply(0, "reroll")
    assert of_type(ev, "willpower")
    rolled = of_type(ev, "rolled")
    assert rolled[-1]["dice"] == [1, 1] and rolled[-1]["rerolled"] is True
    assert at(g, "3B")["dmg"] == 0  # the fumble stands
    assert marks(g) == 1  # one mark spent, one left, but no second reroll was offered
    assert g.decision(0)["kind"] == "actions"


def test_r12_3_a_reroll_cannot_be_rerolled():
    """R12.3 (p.25): a reroll cannot itself be rerolled, even with marks left."""
    g = act_game({"2B": unit("warrior_star"), "3B": monster("golem"),
                  "1A": unit("cleric_star")}, rolls=((3, 4), (2, 4)), honor=4)
    g.apply(0, "act 2B attack 3B")
    g.apply(0, "reroll")  # 6+1 = 7: a miss again; Level Up (4 marks) would not reach 9 either
    assert g.decision(0)["kind"] == "actions"
    assert at(g, "3B")["dmg"] == 1
    g2 = act_game({"2B": unit("warrior_star"), "3B": monster("golem")},
                  rolls=((3, 4), (3, 4)), honor=4)
    g2.apply(0, "act 2B attack 3B")
    g2.apply(0, "reroll")  # 8 again: Level Up could still help, so the roll question stays
    d = g2.decision(0)
    assert d["kind"] == "roll" and d["rerolled"] is True and d["can_reroll"] is False
    expect_error(g2, 0, "reroll", IllegalAction, "cannot be rerolled")


def test_r12_3_keep_applies_the_roll():
    """R12.3: declining Willpower keeps the roll's damage."""
    g = act_game({"2B": unit("warrior_star"), "3B": monster("golem")}, rolls=((3, 4),))
    g.apply(0, "act 2B attack 3B")
    g.apply(0, "keep")
    assert at(g, "3B")["dmg"] == 1 and marks(g) == 1


# ---- R12.4 Full Move ----------------------------------------------------------------------------

def test_r12_4_full_move_adds_one_mov_for_one_mark():
    """R12.4 (p.25): 1 mark, declared as the unit starts its action: +1 MOV for that action
    (MOV 2 becomes 3)."""
    g = act_game({"1B": unit("thief_star"), "1A": unit("cleric_star")}, honor=1)
    expect_error(g, 0, "act 1B to 4B", IllegalAction, "MOV 2")
    g.apply(0, "act 1B fullmove to 4B")
    assert layout(g)["4B"] == "thief_star" and marks(g) == 0


def test_r12_4_full_move_is_at_most_plus_one_and_needs_a_mark():
    """R12.4 (p.25): never +2 (a MOV-1 unit reaches 2 squares, not 3); impossible without a
    mark."""
    g = act_game({"1B": unit("warrior_star")}, honor=3)
    expect_error(g, 0, "act 1B fullmove to 3A", IllegalAction, "MOV 2")
    g0 = act_game({"1B": unit("warrior_star")}, honor=0)
    expect_error(g0, 0, "act 1B fullmove to 2A", IllegalAction, "costs 1 honor mark")
    expect_error(g0, 0, "act 1B fullmove", Exception, "Full Move adds a step")


def test_r12_1_level_up_after_a_reroll_that_still_misses_is_the_players_choice():
    """R12.1 (p.24, Level Up 'at any time', e.g. after seeing a roll): after a Willpower
    reroll that still misses, `keep` and `levelup` are both answers, so the decision is not
    trivial and no interface may answer `keep` for the player; the Level Up turns the miss
    into a hit (Warrior★ 3+4+1 = 8 vs DEF 9; Warrior 3+4+2 = 9)."""
    g = act_game({"2B": unit("warrior_star"), "3B": monster("golem")},
                 rolls=((3, 4), (3, 4)), honor=3)
    g.apply(0, "act 2B attack 3B")
    g.apply(0, "reroll")
    assert sorted(str(a) for a in g.legal_actions(0)) == ["keep", "levelup 2B"]
    assert g.trivial_action(0) is None
    g.apply(0, "levelup 2B")
    assert at(g, "3B") is None  # 2 damage: the Golem (HP 2) is defeated
