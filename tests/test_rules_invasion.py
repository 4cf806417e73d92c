"""Rules tests: Enemy phase ⑤ Invasion (R9), monster attacks (R9.1), monster movement (R9.2),
elimination (R9.3). The rulebook's worked examples are on p.17, p.19 and p.20."""

from __future__ import annotations

from rules_helpers import (
    at,
    card,
    hand,
    hp,
    invade,
    layout,
    monster,
    of_type,
    puzzle,
    settle,
    unit,
)

from engine import Game


def acted_from(ev: list[dict]) -> list[str]:
    """The square each monster acted from, in order (attack or move)."""
    return [e["from"] for e in ev if e.get("type") in ("monster_attacked", "monster_moved")
            and not e.get("bonus")]


# ---- R9: order and choice -----------------------------------------------------------------------

def test_r9_p17_invasion_walkthrough():
    """R9 worked example (p.17): ① no unit in range: the Goblin moves 2; ② the Dullahan deals 1
    damage to the Thief★ in its range; ③ the Skeleton deals 2 damage to the Warrior★ in its
    range; ④ no unit in range: the Golem moves 1. (The figure is not in the text: the squares
    are chosen so that the scan order 1A, 1B, … 6C gives exactly that sequence.)"""
    g = puzzle([{"3A": monster("goblin"), "3C": monster("dullahan"), "4B": monster("skeleton"),
                 "5A": monster("golem"), "2C": unit("thief_star"), "1B": unit("warrior_star")}])
    ev = invade(g)
    assert acted_from(ev) == ["3A", "3C", "4B", "5A"]
    assert layout(g) == {"1A": "goblin", "3C": "dullahan", "4B": "skeleton", "4A": "golem",
                         "2C": "thief_star", "1B": "warrior_star"}
    assert at(g, "2C")["dmg"] == 1  # ② Dullahan ATK 1
    assert at(g, "1B")["dmg"] == 2  # ③ Skeleton ATK 2, on its range square ③
    moved = {e["card"]: (e["from"], e["to"]) for e in of_type(ev, "monster_moved")}
    assert moved == {"goblin": ("3A", "1A"), "golem": ("5A", "4A")}


def test_r9_monsters_act_in_square_order_castle_side_first():
    """R9 (p.17): monsters act one at a time in the order 1A, 1B, 1C, 2A, … 6C."""
    g = puzzle([{"4B": monster("golem"), "2C": monster("golem"), "6A": monster("golem"),
                 "2A": monster("golem"), "3C": monster("golem")}])
    assert acted_from(invade(g)) == ["2A", "2C", "3C", "4B", "6A"]


def test_r9_each_monster_acts_at_most_once():
    """R9 [decision]: a monster that moved is not given a second turn when the scan reaches its
    new square: a Goblin (MOV 2) on 5A moves once, to 3A, not on to 1A."""
    g = puzzle([{"5A": monster("goblin")}])
    ev = invade(g)
    assert len(of_type(ev, "monster_moved")) == 1
    assert layout(g) == {"3A": "goblin"}


def test_r9_a_monster_with_a_unit_in_range_attacks_instead_of_moving():
    """R9 ① (p.18): with a unit in range the monster attacks and does not move."""
    g = puzzle([{"3B": monster("goblin"), "2B": unit("warrior_star")}])
    ev = invade(g)
    assert of_type(ev, "monster_moved") == []
    assert layout(g)["3B"] == "goblin" and at(g, "2B")["dmg"] == 1


# ---- R9.1: attacks ------------------------------------------------------------------------------

def test_r9_1_p19_skeleton_hits_only_the_unit_on_its_lowest_numbered_square():
    """R9.1 numbered range (p.19): the Skeleton has a monster on ①, the Warrior★ on ② and
    another unit on ③: only the Warrior★ on ② is attacked (monsters do not shield units)."""
    g = puzzle([{"4B": monster("skeleton"), "3B": monster("golem"), "2B": unit("warrior_star"),
                 "1B": unit("cleric_star")}])
    ev = invade(g)
    attacks = {e["from"]: e["targets"] for e in of_type(ev, "monster_attacked")}
    assert attacks["4B"] == ["2B"]
    assert at(g, "1B")["dmg"] == 0  # the unit on ③ is left alone
    # The Golem on 3B acted first (2 damage), the Skeleton added 2: the Warrior★ fainted.
    assert hand(g) == ["warrior_star"]


def test_r9_1_p19_skeleton_priority_without_other_damage():
    """R9.1 (p.19): the same priority, isolated: Skeleton on 5B, nothing on ① (4B), Warrior★ on
    ② (3B), Cleric★ on ③ (2B): only the Warrior★ takes the 2 damage."""
    g = puzzle([{"5B": monster("skeleton"), "3B": unit("warrior_star"),
                 "2B": unit("cleric_star")}])
    invade(g)
    assert at(g, "3B")["dmg"] == 2 and at(g, "2B")["dmg"] == 0


def test_r9_1_p19_dullahan_hits_every_unit_in_its_area_and_no_monster():
    """R9.1 ★ range (p.19): the Dullahan has one monster and two units in its range: the
    Warrior★ and the Sorcerer★ take 1 damage each, the monster none."""
    g = puzzle([{"3B": monster("dullahan"), "2A": monster("golem"), "1A": unit("cleric_star"),
                 "2B": unit("warrior_star"), "2C": unit("sorcerer_star")}])
    ev = invade(g)
    attacks = {e["from"]: e["targets"] for e in of_type(ev, "monster_attacked")}
    assert sorted(attacks["3B"]) == ["2B", "2C"]
    assert at(g, "2B")["dmg"] == 1 and at(g, "2C")["dmg"] == 1
    assert at(g, "2A")["dmg"] == 0


def test_r9_1_wraith_priority_forward_then_sides():
    """R9.1: a numbered range is a priority list: the Wraith's ① forward square beats ②/③."""
    g = puzzle([{"4B": monster("wraith"), "3B": unit("knight"), "4A": unit("warrior_star"),
                 "4C": unit("warrior_star")}])
    invade(g)
    assert at(g, "3B")["dmg"] == 2
    assert at(g, "4A")["dmg"] == 0 and at(g, "4C")["dmg"] == 0
    g2 = puzzle([{"4B": monster("wraith"), "4A": unit("warrior_star"),
                  "4C": unit("warrior_star")}])
    invade(g2)
    assert at(g2, "4A")["dmg"] == 2 and at(g2, "4C")["dmg"] == 0  # ② (side toward A) next


def test_r9_1_a_fainted_unit_returns_to_its_owners_hand_clean():
    """R9.1 (p.20): at cubes ≥ HP the unit faints: it leaves the board, cubes and marker go
    back, the card returns to the hand (mercenaries and levelled units too)."""
    archer = unit("archer", dmg=hp("archer") - 2, acted=True, uid="u30")  # a Golem hits 2
    g = puzzle([{"3A": monster("golem"), "2A": archer,
                 "3B": monster("golem"), "2B": unit("warrior", dmg=3, uid="l5")}],
               player={0: {"hand": [card("cleric_star", "u2")]}})
    invade(g)
    p = g.state["players"][0]
    assert "owner" not in (at(g, "2A") or {}) and "owner" not in (at(g, "2B") or {})
    assert p["hand"] == [{"id": "u2", "card": "cleric_star"}, {"id": "u30", "card": "archer"},
                         {"id": "l5", "card": "warrior"}]


def test_r9_1_a_fainted_unit_is_recruited_again_fresh():
    """R9.1: a fainted unit can be recruited again later (R7.1), un-acted, without cubes."""
    from rules_helpers import decision, main_card

    g = puzzle([{}, {}], player={0: {"gold": 5, "hand": [card("warrior", "l5")]}},
               decisions={0: decision("recruit", card="recruit", mercenaries=True,
                                      again=False)},
               **main_card("recruit", 0, 2))
    g.apply(0, "recruit warrior 1A")
    assert at(g, "1A") == {"id": "l5", "card": "warrior", "owner": 0, "dmg": 0, "acted": False}
    assert g.state["players"][0]["gold"] == 2  # a level-up card costs its own cost (3)


def test_r9_1_a_unit_survives_below_its_hp():
    """R9.1: a unit faints only when its cubes reach its HP (Warrior★ HP 4: 2 + 1 survives)."""
    g = puzzle([{"3B": monster("goblin"), "2B": unit("warrior_star", dmg=2)}])
    invade(g)
    assert at(g, "2B")["dmg"] == 3


# ---- R9 step 2: the bonus move ------------------------------------------------------------------

def test_r9_p20_skeleton_bonus_move_jumps_the_golem_onto_the_warriors_square():
    """R9 step 2, worked example (p.20): ① the Golem's attack leaves the Warrior★ with 2
    damage; the Skeleton's attack brings it to 4 and it faints; ② the Skeleton makes its bonus
    move; ③ MOV 1, but it jumps the Golem and stops where the Warrior★ stood."""
    g = puzzle([{"2B": unit("warrior_star"), "3B": monster("golem"), "4B": monster("skeleton")}])
    ev = invade(g)
    assert hand(g) == ["warrior_star"]
    assert layout(g) == {"2B": "skeleton", "3B": "golem"}
    bonus = [e for e in of_type(ev, "monster_moved") if e["bonus"]]
    assert [(e["card"], e["from"], e["to"]) for e in bonus] == [("skeleton", "4B", "2B")]


def test_r9_bonus_move_is_a_move_never_a_second_attack():
    """R9 step 2 (p.20): after a faint the monster moves once even with another unit in range;
    one bonus move only, even when an area attack made several units faint."""
    g = puzzle([{"4B": monster("dragon"), "3A": unit("sorcerer_star", dmg=1),
                 "3C": unit("sorcerer_star", dmg=1), "2B": unit("knight")}])
    ev = invade(g)
    assert sorted(hand(g)) == ["sorcerer_star", "sorcerer_star"]
    assert at(g, "2B")["dmg"] == 2  # hit once, by the area attack only
    assert len(of_type(ev, "monster_attacked")) == 1
    assert [(e["from"], e["to"], e["bonus"]) for e in of_type(ev, "monster_moved")] == [
        ("4B", "3B", True)]


def test_r9_no_bonus_move_without_a_faint():
    """R9 step 2: if nobody fainted, the monster's turn ends after its attack."""
    g = puzzle([{"3B": monster("golem"), "2B": unit("warrior_star")}])
    ev = invade(g)
    assert of_type(ev, "monster_moved") == [] and layout(g)["3B"] == "golem"


# ---- R9.2: movement -----------------------------------------------------------------------------

def test_r9_2_monsters_move_forward_their_full_mov():
    """R9.2 ① (p.18): forward only, always as far as they can: Goblin 2, Golem 1."""
    g = puzzle([{"6A": monster("goblin"), "6C": monster("golem")}])
    invade(g)
    assert layout(g) == {"4A": "goblin", "5C": "golem"}


def test_r9_2_monsters_jump_monsters_in_a_row():
    """R9.2 ② (p.18): when the square where the move ends holds a monster, the mover keeps
    going to the first free square past it, past a whole row of them. The two Dullahans stay
    (each attacks a Knight diagonally ahead), then the Skeleton (MOV 1) jumps both."""
    g = puzzle([{"2A": unit("knight"), "3A": unit("knight"), "3B": monster("dullahan"),
                 "4B": monster("dullahan"), "5B": monster("skeleton")}])
    ev = invade(g)
    assert layout(g)["2B"] == "skeleton"
    assert [(e["from"], e["to"]) for e in of_type(ev, "monster_moved")] == [("5B", "2B")]


def test_r9_2_a_jump_counts_from_the_full_mov_square():
    """R9.2 (p.18): a Goblin (MOV 2) whose landing square holds a monster jumps one further."""
    g = puzzle([{"2A": unit("knight"), "3B": monster("dullahan"), "5B": monster("goblin")}])
    invade(g)
    assert layout(g)["2B"] == "goblin"


def test_r9_2_a_unit_blocks_the_monster_stops_short_of_it():
    """R9.2 ③ (p.18): a monster never shares or passes a unit's square; it moves as far as it
    can short of the unit (Goblin MOV 2 on 6B, unit on 4B: it ends on 5B)."""
    g = puzzle([{"6B": monster("goblin"), "4B": unit("knight")}])
    invade(g)
    assert layout(g)["5B"] == "goblin"


def test_r9_2_with_no_free_square_short_of_the_unit_the_monster_stays():
    """R9.2 ③ (p.18): if every square ahead up to the unit is taken, the move is cancelled."""
    g = puzzle([{"6B": monster("goblin"), "5B": monster("golem"), "4B": unit("knight")}])
    invade(g)
    assert layout(g)["6B"] == "goblin" and layout(g)["5B"] == "golem"


def test_r9_2_jump_target_beyond_a_unit_stops_next_to_the_unit():
    """R9.2 [decision, consistent with p.18]: Goblin (MOV 2) on 6B, a monster on 4B, a unit on
    3B: the jump would need 3B, the unit is there: it stops on the free square nearest the unit
    on its side, 5B."""
    g = puzzle([{"6B": monster("goblin"), "4B": monster("golem"), "3B": unit("knight")}])
    invade(g)
    assert layout(g)["5B"] == "goblin"


def test_r9_2_solo_any_invasion_of_the_castle_loses():
    """R9.2 ④ / R13.1 (p.18, p.25): moving past column 1 invades the castle; with 1 player any
    invasion, even a blue one, loses the game."""
    g = puzzle([{"1A": monster("goblin")}])
    invade(g)
    assert g.over and g.state["result"]["winners"] == []
    assert "invaded" in g.state["result"]["reason"]


def test_r13_1_a_solo_game_ends_at_the_first_invasion_nothing_acts_after_it():
    """R13.1 (p.25): any invasion of the castle loses a solo game, and the game ends there:
    the Goblin on 1B does not invade too (no second invasion, no second 'game over'), the
    Skeleton on 2C does not attack the Knight, nothing moves, the Summon phase never comes."""
    g = puzzle([{"1A": monster("goblin"), "1B": monster("goblin"), "2C": monster("skeleton"),
                 "1C": unit("knight"), "5A": monster("golem")}], phase="invasion", round=1)
    ev = settle(g)
    assert len(of_type(ev, "invaded")) == 1 and len(of_type(ev, "game_over")) == 1
    assert g.over and g.state["result"]["winners"] == []
    assert layout(g) == {"1B": "goblin", "2C": "skeleton", "1C": "knight", "5A": "golem"}
    assert at(g, "1C")["dmg"] == 0
    assert not of_type(ev, "monster_attacked") and not of_type(ev, "monster_moved")
    assert not of_type(ev, "summoned") and g.state["phase"] == "over"


def test_r9_3_an_eliminated_players_board_stops_at_once_the_others_play_on():
    """R9.3 (p.19) / R9.2 ④: the Lich on 1A eliminates seat 0; the Skeleton behind it on 2C
    no longer attacks seat 0's Knight, while seat 1's board is still resolved."""
    g = puzzle([{"1A": monster("lich"), "2C": monster("skeleton"), "1C": unit("knight")},
                {"3A": monster("goblin")}, {}])
    ev = invade(g)
    assert g.state["players"][0]["eliminated"] and at(g, "1C")["dmg"] == 0
    assert [e["player"] for e in of_type(ev, "monster_attacked")] == []
    assert layout(g, 1) == {"1A": "goblin"} and not g.over


def test_r9_2_first_blue_invader_is_kept_and_counts_toward_threat():
    """R9.2 ④ (p.18–19): 2–4 players, a first blue monster in the castle is kept face up and
    still counts toward threat (R14.2); the player stays in."""
    g = puzzle([{"1A": monster("golem")}, {}])
    invade(g)
    p = g.state["players"][0]
    assert p["castle"] == [{"id": "x0_0", "card": "golem"}] and not p["eliminated"]
    assert g.view(0)["players"][0]["threat"] == 3
    assert not g.over


def test_r9_2_a_second_blue_invader_eliminates():
    """R9.2 ④ (p.19): the second blue monster through the castle eliminates that player."""
    g = puzzle([{"1A": monster("goblin")}, {}, {}],
               player={0: {"castle": [card("golem", "m9")]}})
    invade(g)
    assert g.state["players"][0]["eliminated"] is True
    assert not g.over  # two players remain


def test_r9_2_a_red_invader_eliminates_at_once():
    """R9.2 ④ (p.19): a red boss in the castle eliminates the player at once; its board stops
    (the monsters behind it do not act)."""
    g = puzzle([{"1B": monster("lich"), "3C": monster("goblin")}, {}, {}])
    ev = invade(g)
    assert g.state["players"][0]["eliminated"] is True
    assert layout(g)["3C"] == "goblin"  # the board stopped
    assert [e["player"] for e in of_type(ev, "eliminated")] == [0]


# ---- R9.3: elimination --------------------------------------------------------------------------

def test_r9_3_an_eliminated_player_takes_no_more_turns_and_its_board_stops():
    """R9.3 (p.19): the game goes on without the eliminated player: no more choices for it and
    no more monsters on its board."""
    g = puzzle([{}, {"1A": monster("dragon")}, {}], phase="invasion", round=1,
               monster_deck=[card("goblin", "a"), card("goblin", "b"), card("golem", "c")])
    settle(g)
    st = g.state
    assert st["players"][1]["eliminated"]
    assert st["round"] == 2 and 1 not in st["turn_order"]
    assert layout(g, 1) == {}
    assert len(layout(g, 0)) == 2 and len(layout(g, 2)) == 2
    assert 1 not in g.waiting_for()


def test_r9_3_the_last_player_standing_wins():
    """R9.3 (p.19): when 2 become 1, the remaining player wins."""
    g = puzzle([{}, {"1A": monster("dragon")}])
    invade(g)
    assert g.over and g.state["result"]["winners"] == [0]
    assert g.state["result"]["draw"] is False


def test_r9_3_everyone_eliminated_in_the_same_phase_is_a_draw():
    """R9.3 [decision]: if every remaining player is eliminated in the same phase, the game is a
    draw between them."""
    g = puzzle([{"1A": monster("dragon")}, {"1B": monster("lich")},
                {}], player={2: {"eliminated": True}})
    invade(g)
    res = g.state["result"]
    assert res["draw"] is True and res["winners"] == [0, 1]


def test_r9_3_eliminated_player_cannot_act():
    """R9.3: an eliminated player has no decisions; answering is refused."""
    from rules_helpers import expect_error

    from engine import NotYourDecision

    g = puzzle([{}, {}, {}], player={1: {"eliminated": True}}, phase="placement", step="next",
               round=0)
    settle(g)
    expect_error(g, 1, "pick reward", NotYourDecision, "not playing|eliminated")
    assert isinstance(g, Game)
