"""Rules tests: the command row and the five command cards (R6, R7, R7.1)."""

from __future__ import annotations

import pytest
from rules_helpers import (
    at,
    card,
    cost,
    decision,
    expect_error,
    hand,
    layout,
    main_card,
    of_type,
    puzzle,
    settle,
    unit,
)

from engine import Game, IllegalAction

ROW = ["advance", "raid", "rest", "reward", "recruit"]


def round_one(players: int | list[dict], start: int = 0, row: list[str] | None = None,
              player: dict[int, dict] | None = None) -> Game:
    """A puzzle at the start of round 1, before anyone has chosen (R6.1)."""
    boards = [{} for _ in range(players)] if isinstance(players, int) else players
    g = puzzle(boards, phase="placement", step="next", round=0, start_player=start,
               row=list(row or ROW), player=player)
    settle(g)
    return g


# ---- R6 -----------------------------------------------------------------------------------------

def test_r6_players_choose_in_turn_from_the_start_player_clockwise():
    """R6.1 (p.8): starting with the start player, clockwise, each player chooses once."""
    g = round_one(3, start=1)
    assert g.waiting_for() == [1]
    g.apply(1, "pick reward")
    assert g.waiting_for() == [2]
    g.apply(2, "pick raid")  # nobody has units: Raid needs no answers
    assert g.waiting_for() == [0]
    assert g.decision(0)["kind"] == "pick"


def test_r6_chosen_card_moves_to_the_front_after_earlier_choices():
    """R6.2 (p.8): the first chosen card goes to the very front of the row, the next one
    right after it."""
    g = round_one(2, row=["advance", "raid", "rest", "reward", "recruit"])
    g.apply(0, "pick reward")
    assert g.state["row"] == ["reward", "advance", "raid", "rest", "recruit"]
    g.apply(1, "pick rest")
    assert g.state["row"][:2] == ["reward", "rest"]


def test_r6_a_card_already_executed_this_round_cannot_be_chosen():
    """R6.1 (p.8): a card executed this round cannot be chosen again."""
    g = round_one(2)
    g.apply(0, "pick reward")
    msg = expect_error(g, 1, "pick reward", IllegalAction, "R6.1")
    assert "Reward" in msg and "Advance" in msg  # says what is still available


def test_r6_leader_gets_the_large_effect_followers_the_small_one():
    """R6.3 (p.8): the chooser is the LEADER (large effect), everyone else FOLLOWER (small
    effect), all resolved at once: Reward gives the leader 4 gold, the others 2."""
    g = round_one(3, start=2)
    g.apply(2, "pick reward")
    assert [p["gold"] for p in g.state["players"]] == [4, 4, 6]


def test_r6_unchosen_cards_run_auto_left_to_right_except_the_last():
    """R6.4–6.5 (p.8): when all have chosen, the unchosen cards are executed AUTO in row order,
    everybody taking the small effect; the last card of the row is never executed."""
    g = round_one(1, row=["rest", "advance", "reward", "recruit", "raid"])
    ev = g.apply(0, "pick raid")
    cards = [(e["card"], e["auto"]) for e in of_type(ev, "card")]
    assert cards == [("raid", False), ("rest", True), ("advance", True), ("reward", True)]
    assert g.state["players"][0]["gold"] == 2 + 2  # AUTO Reward: small effect only
    assert g.state["players"][0]["honor"] == 1  # AUTO Rest: nobody takes the honor token
    assert "recruit" not in g.state["executed"]


def test_r6_exactly_four_command_cards_are_executed_with_any_player_count():
    """R6.5 (p.8): P chosen cards plus the first 4−P unchosen ones: always four."""
    for n in (1, 2, 3, 4):
        g = round_one(n)
        ev = []
        picks = ["reward", "rest", "raid", "advance"]
        for k in range(n):
            ev += g.apply(g.waiting_for()[0], f"pick {picks[k]}")
        executed = [e["card"] for e in of_type(ev, "card")]
        assert len(executed) == 4, (n, executed)
        assert sum(1 for e in of_type(ev, "card") if not e["auto"]) == n
        assert of_type(ev, "phase")[0]["phase"] == "invasion"  # no fifth card before it


def test_r6_then_the_enemy_phase_begins():
    """R6.6: after the fourth command card the Enemy phase (Invasion) is resolved."""
    g = round_one(1)
    ev = g.apply(0, "pick reward")
    phases = [e["phase"] for e in of_type(ev, "phase")]
    assert phases[:2] == ["invasion", "summon"]


# ---- R7 -----------------------------------------------------------------------------------------

def test_r7_advance_leader_gains_a_gold_and_both_sides_get_two_actions():
    """R7 Advance (p.10): LEADER +1 gold at the moment of choosing, then up to 2 unit
    actions; FOLLOWER up to 2 unit actions."""
    two = {"2A": unit("warrior_star"), "2B": unit("cleric_star")}
    g = round_one([two, two])
    g.apply(0, "pick advance")
    assert [p["gold"] for p in g.state["players"]] == [3, 2]
    assert g.decision(0)["left"] == 2 and g.decision(1)["left"] == 2
    g.apply(1, "act 2A to 3A")
    g.apply(1, "act 2B to 3B")
    assert g.decision(1) is None  # two actions used


def test_r7_raid_leader_two_actions_follower_one():
    """R7 Raid (p.10): LEADER up to 2 unit actions, FOLLOWER up to 1; no gold."""
    two = {"2A": unit("warrior_star"), "2B": unit("cleric_star")}
    g = round_one([two, two])
    g.apply(0, "pick raid")
    assert g.decision(0)["left"] == 2 and g.decision(1)["left"] == 1
    assert [p["gold"] for p in g.state["players"]] == [2, 2]
    g.apply(1, "act 2A to 3A")
    assert g.decision(1) is None


def test_r7_rest_leader_takes_an_honor_token_then_everyone_readies_two():
    """R7 Rest (p.15): the LEADER first takes 1 honor token; then each player readies up to 2
    acted units [decision: 2 for everyone]."""
    acted = {"1A": unit("warrior_star", acted=True), "1B": unit("cleric_star", acted=True),
             "1C": unit("thief_star", acted=True)}
    g = round_one([acted, acted])
    g.apply(0, "pick rest")
    assert [p["honor"] for p in g.state["players"]] == [2, 1]
    assert g.decision(0)["n"] == 2 and g.decision(1)["n"] == 2
    expect_error(g, 1, "ready 1A 1B 1C", IllegalAction, "at most 2")
    g.apply(1, "ready 1A 1C")
    assert [g.state["players"][1]["board"][k]["acted"] for k in range(3)] == [False, True, False]


def test_r7_ready_only_acted_units():
    """R7: readying removes an action marker, so only an acted unit can be readied."""
    g = puzzle([{"1A": unit("warrior_star", acted=True), "1B": unit("cleric_star")}, {}],
               decisions={0: decision("ready", card="rest", n=2)}, **main_card("rest", 0, 2))
    expect_error(g, 0, "ready 1B", IllegalAction, "no acted unit")
    g.apply(0, "ready 1A")
    assert g.state["players"][0]["board"][0]["acted"] is False


def test_r7_a_ready_is_logged_in_board_order_however_it_was_typed():
    """R7 Rest, R15 (rules 3): `ready 3B 1A` and `ready 1A 3B` are one answer, logged as one
    (the review and the hints compare answers by their text); a game stored before rules 3
    keeps what was typed, so it replays to the state it stored."""
    for rules, logged in ((3, "ready 1A 3B"), (2, "ready 3B 1A")):
        g = puzzle([{"1A": unit("warrior_star", acted=True),
                     "3B": unit("cleric_star", acted=True)}, {}],
                   decisions={0: decision("ready", card="rest", n=2)}, **main_card("rest", 0, 2),
                   setup={"players": ["P0", "P1"], "seed": 1, "rules": rules})
        g.apply(0, "ready 3B 1A")
        assert g.log[-1] == [0, logged]
        assert not g.state["players"][0]["board"][0]["acted"]


def test_r7_reward_four_gold_for_the_leader_two_for_the_others_gold_is_unbounded():
    """R7 Reward (p.15): LEADER +4, FOLLOWER +2; gold is an integer past the 7-gold track."""
    g = round_one(2, player={0: {"gold": 7}})
    g.apply(0, "pick reward")
    assert [p["gold"] for p in g.state["players"]] == [11, 4]


def test_r7_recruit_leader_gold_comes_before_recruiting():
    """R7 Recruit (p.16): the LEADER receives 1 gold at the moment of choosing, before
    recruiting: with 1 gold it can then pay a 2-gold Thief★."""
    g = round_one(2, player={0: {"gold": 1, "hand": [card("thief_star", "t0")]},
                             1: {"gold": 1, "hand": [card("thief_star", "t1")]}})
    g.apply(0, "pick recruit")
    assert g.state["players"][0]["gold"] == 2
    assert g.decision(0)["kind"] == "recruit"
    assert g.decision(1) is None  # the follower cannot pay anything: not asked
    g.apply(0, "recruit thief 2B")
    assert layout(g) == {"2B": "thief_star"} and g.state["players"][0]["gold"] == 0


# ---- R7.1 ---------------------------------------------------------------------------------------

def recruit_game(players: int = 2, leader: int | None = 0, gold: int = 5, board0=None,
                 hand0=None, mercs=None, rules: int | None = None) -> Game:
    decs = {s: decision("recruit", card="recruit", mercenaries=leader is not None, again=False)
            for s in range(players)}
    boards = [dict(board0 or {})] + [{} for _ in range(players - 1)]
    pl = {s: {"gold": gold, "hand": [card("thief_star", f"t{s}")]} for s in range(players)}
    if hand0 is not None:
        pl[0]["hand"] = hand0
    return puzzle(boards, decisions=decs, player=pl,
                  mercenaries=mercs or [card("archer", "a1"), card("knight", "k1"),
                                        card("bard", "b1")],
                  **main_card("recruit", leader, players),
                  **({} if rules is None else {"setup": {
                      "players": [f"P{k}" for k in range(players)], "seed": 7, "rules": rules}}))


def test_r7_1_recruit_pays_the_cost_and_places_an_unacted_unit_on_an_empty_home_square():
    """R7.1 (p.16): one unit, un-acted, on an empty home-area square, paying its cost."""
    g = recruit_game(board0={"1A": unit("warrior_star")})
    expect_error(g, 0, "recruit thief 1A", IllegalAction, "1A is taken")
    expect_error(g, 0, "recruit thief 3A", IllegalAction, "home area")
    g.apply(0, "recruit thief 2C")
    p = g.state["players"][0]
    assert p["gold"] == 3 and hand(g) == []
    assert layout(g)["2C"] == "thief_star" and at(g, "2C")["acted"] is False


def test_r7_1_no_recruit_when_gold_is_short():
    """R7.1 (p.16): a unit whose cost exceeds the gold cannot be placed; the message says
    the cost and the gold."""
    price = cost("knight")
    g = recruit_game(gold=price - 1)
    msg = expect_error(g, 0, "recruit merc knight 1A", IllegalAction, f"costs {price} gold")
    assert f"you have {price - 1}" in msg


def test_r7_1_nobody_is_asked_when_home_is_full_or_nothing_is_affordable():
    """R7.1 (p.16): no placement when the home area is full or the gold is short."""
    full = {sq: unit("warrior_star") for sq in ("1A", "1B", "1C", "2A", "2B", "2C")}
    g = round_one([full, {}], player={0: {"gold": 9, "hand": [card("thief_star", "t")]},
                                      1: {"gold": 0, "hand": [card("thief_star", "u")]}})
    g.apply(0, "pick reward")  # 0 now 13 gold, 1 has 2
    assert g.waiting_for() == [1]
    g.apply(1, "pick recruit")
    assert 0 not in g.waiting_for()  # home full: not asked
    assert g.decision(1)["kind"] == "recruit"


def test_r7_1_mercenaries_first_come_first_served_from_the_leader_clockwise():
    """R7.1 (p.16): mercenaries go first come, first served starting with the LEADER and going
    clockwise [decision: choices collected, granted in that order; a player whose mercenary
    was taken chooses again]. Seat 2 is LEADER; seats 0 and 2 want the same Archer."""
    g = recruit_game(players=3, leader=2)
    g.apply(0, "recruit merc archer 1A")  # answers first, but is after the leader
    g.apply(1, "recruit merc knight 1A")
    g.apply(2, "recruit merc archer 2B")
    assert layout(g, 2) == {"2B": "archer"}
    assert layout(g, 1) == {}  # after seat 0 in order: waits until seat 0 has chosen again
    assert layout(g, 0) == {}
    d = g.decision(0)
    assert d["kind"] == "recruit" and d["again"] is True
    expect_error(g, 0, "recruit merc archer 1A", IllegalAction, "no 'archer'")
    g.apply(0, "recruit merc bard 1A")
    assert layout(g, 0) == {"1A": "bard"}
    assert layout(g, 1) == {"1A": "knight"}
    assert g.state["players"][0]["gold"] == 5 - cost("bard")
    assert g.state["mercenaries"] == [None, None, None]  # slots stay empty until the End phase


def test_r7_1_p16_claims_are_granted_strictly_in_order_a_rechooser_comes_first():
    """R7.1 (p.16: first come, 'processed in order from the player who chose the command,
    clockwise'): seat 2 (LEADER) and seat 0 both want the Archer, seat 1 the Knight. Seat 0
    loses the Archer and chooses again *before* seat 1's claim is granted, so seat 0 may take
    the Knight; seat 1, later in order, then finds it gone and chooses again."""
    g = recruit_game(players=3, leader=2)
    g.apply(1, "recruit merc knight 1A")
    g.apply(0, "recruit merc archer 1A")
    g.apply(2, "recruit merc archer 2B")
    assert g.waiting_for() == [0] and layout(g, 1) == {}
    assert [m and m["card"] for m in g.state["mercenaries"]] == [None, "knight", "bard"]
    assert "knight" in str(g.view(1)["log"]) and "knight" not in str(g.view(0)["log"])
    g.apply(0, "recruit merc knight 1A")
    assert layout(g, 0) == {"1A": "knight"}
    d = g.decision(1)
    assert d["kind"] == "recruit" and d["again"] is True and g.waiting_for() == [1]
    g.apply(1, "recruit merc bard 2A")
    assert layout(g, 1) == {"2A": "bard"}
    assert g.state["claims"] == [] and g.state["current"] is None  # the card has ended


@pytest.mark.parametrize("rules", [4, 5])
def test_r7_1_two_players_naming_a_card_two_copies_of_are_on_offer_both_get_one(rules):
    """R7.1 (p.16): a mercenary is chosen by what it is. Two Swordmasters are on offer and
    both players name the Swordmaster: the LEADER gets one, the other player the other copy
    (rules 5). Before, the second claim named the same copy and was told it was taken first,
    with the other copy still in the row (the console audit); a game begun under rules 4
    keeps that reading, so its log replays as stored (R15)."""
    mercs = [card("swordmaster", "s1"), card("thief_star", "t9"), card("swordmaster", "s2")]
    g = recruit_game(leader=0, gold=9, mercs=mercs, rules=rules)
    g.apply(0, "recruit merc swordmaster 2B")
    g.apply(1, "recruit merc swordmaster 2B")
    assert layout(g, 0) == {"2B": "swordmaster"}
    if rules >= 5:
        assert layout(g, 1) == {"2B": "swordmaster"}
        assert (g.decision(1) or {}).get("kind") != "recruit"  # not asked again
        assert [m and m["card"] for m in g.state["mercenaries"]] == [None, "thief_star", None]
    else:
        assert layout(g, 1) == {} and (g.decision(1) or {}).get("again") is True


def test_r7_1_auto_recruit_allows_hand_cards_only():
    """R7.1 (p.16): when Recruit is executed AUTO nobody may take a mercenary."""
    g = recruit_game(leader=None)
    expect_error(g, 0, "recruit merc archer 1A", IllegalAction, "AUTO")
    expect_error(g, 0, "recruit archer 1A", IllegalAction, "AUTO")
    g.apply(0, "recruit thief 1A")
    assert layout(g) == {"1A": "thief_star"}


def test_r7_1_auto_recruit_through_the_row_offers_no_mercenary():
    """R7.1 (p.16) / R6.4: Recruit reached AUTO in the row asks everyone for a hand card only."""
    g = round_one(1, row=["reward", "recruit", "advance", "raid", "rest"],
                  player={0: {"hand": [card("thief_star", "t")]}})
    g.state["mercenaries"] = [card("archer", "a1"), None, None]
    g.apply(0, "pick rest")  # AUTO: Reward, then Recruit
    d = g.decision(0)
    assert d["kind"] == "recruit" and d["mercenaries"] is False
    expect_error(g, 0, "recruit merc archer 1A", IllegalAction, "AUTO")
    assert all(a.merc is False for a in g.legal_actions(0) if a.verb == "recruit")


def test_r7_1_recruiting_is_optional_and_same_names_may_repeat():
    """R7.1: recruiting is optional ('done'); several units of one name on a board are fine."""
    g = recruit_game(board0={"1A": unit("thief_star")})
    g.apply(1, "done")
    assert layout(g, 1) == {} and g.state["players"][1]["gold"] == 5
    g.apply(0, "recruit thief 1B")
    assert layout(g) == {"1A": "thief_star", "1B": "thief_star"}


def test_r7_1_a_taken_mercenary_slot_is_refilled_by_the_end_phase():
    """R7.1 / R11.3: a taken mercenary leaves an empty slot until the End phase reveals 3 new
    ones (the untaken ones are discarded)."""
    g = puzzle([{}], phase="end", step="reset", mercenaries=[None, card("knight", "k1"), None],
               unit_deck=[card("archer", f"a{k}") for k in range(5)])
    settle(g)
    assert [m["id"] for m in g.state["mercenaries"]] == ["a0", "a1", "a2"]
    assert [c["id"] for c in g.state["discard"]] == ["k1"]
    assert len(g.state["unit_deck"]) == 2


def test_r7_1_mercenary_choice_stays_private_until_everyone_has_chosen():
    """R7.1 [decision]: mercenary choices are collected together; until they are granted,
    nobody else can see which mercenary a player claimed (log entry and event)."""
    from engine import Game, visible

    g = Game.new(["Ann", "Bob"], seed=4)
    for s in g.waiting_for():
        g.apply(s, "timeout")
    leader = g.waiting_for()[0]
    g.apply(leader, "pick recruit")
    other = 1 - leader
    merc = next(m for m in g.state["mercenaries"] if m)
    g.state["players"][leader]["gold"] = 10  # afford any mercenary
    assert set(g.waiting_for()) == {0, 1}
    ev = g.apply(leader, f"recruit merc {merc['card']} 1A")
    assert not visible(ev, other) and visible(ev, leader)
    assert "recruit merc" not in str(g.view(other)["log"])
    assert f"recruit merc {merc['card']}" in str(g.view(leader)["log"])
    g.apply(other, "done")  # everyone has chosen: the claim is granted and public
    assert f"recruit merc {merc['card']}" in str(g.view(other)["log"])
