"""Rules tests: unit skills (R8.2): dice, long-range, allocated, area, heal, command."""

from __future__ import annotations

import json
from typing import Any

from rules_helpers import (
    actions,
    at,
    dice_seed,
    expect_error,
    hand,
    hp,
    layout,
    main_card,
    monster,
    of_type,
    puzzle,
    unit,
)

from engine import Game, IllegalAction
from engine.cards import DATA_FILE


def act_game(board: dict[str, Any], roll: tuple[int, int] | None = None, honor: int = 0,
             left: int = 2, **top: Any) -> Game:
    """Seat 0 resolves Advance as LEADER; its next roll is `roll`. Honor 0 by default so that
    no Willpower question interrupts (R12.3 is tested in test_rules_boons)."""
    dice = {0: dice_seed(roll)} if roll else None
    return puzzle([board, {}], decisions={0: actions("advance", left)},
                  player={0: {"honor": honor}}, dice=dice, **main_card("advance", 0, 2), **top)


def defeated(g: Game, seat: int = 0) -> list[str]:
    return [c["card"] for c in g.state["players"][seat]["defeated"]]


# ---- dice attack (p.12) -------------------------------------------------------------------------

def test_r8_2_p12_warrior_vs_golem_attack_8_is_a_small_hit():
    """R8.2 dice attack, the rulebook's worked example (p.12 ①–③): Warrior★ (+1) attacks the
    adjacent Golem (DEF 9); the dice show 7, attack 8 < 9: 1 damage, one cube on the Golem."""
    g = act_game({"2B": unit("warrior_star"), "3B": monster("golem"), "1A": unit("cleric_star")},
                 roll=(3, 4), honor=1)
    ev = g.apply(0, "act 2B attack 3B")
    rolled = of_type(ev, "rolled")[0]
    assert (rolled["total"], rolled["result"], rolled["def"]) == (8, "miss", 9)
    g.apply(0, "keep")  # the Willpower offer (1 honor) is declined
    assert at(g, "3B")["dmg"] == 1
    assert defeated(g) == []


def test_r8_2_p12_warrior_vs_golem_attack_9_defeats_it():
    """R8.2 (p.12 ④): had the attack been 9 or more (≥ DEF), 2 damage: the Golem's cubes reach
    its HP 2, it is removed from the board and kept face down as an honor mark."""
    g = act_game({"2B": unit("warrior_star"), "3B": monster("golem")}, roll=(4, 4))
    ev = g.apply(0, "act 2B attack 3B")
    assert of_type(ev, "rolled")[0]["total"] == 9
    assert at(g, "3B") is None
    assert defeated(g) == ["golem"]
    p = g.state["players"][0]
    assert p["honor"] + len(p["defeated"]) == 1  # one honor mark, the Golem card


def test_r8_2_double_six_is_a_critical_three_damage():
    """R8.2 ⑤ (p.12): a double six is a critical: 3 damage regardless of DEF (Dragon DEF 10)."""
    g = act_game({"2B": unit("warrior_star"), "3B": monster("dragon")}, roll=(6, 6))
    g.apply(0, "act 2B attack 3B")
    assert at(g, "3B")["dmg"] == 3


def test_r8_2_double_one_is_a_fumble_no_damage():
    """R8.2 ⑤ (p.12): a double one is a fumble: 0 damage (even on a 1-HP Goblin, which any
    other roll would defeat)."""
    g = act_game({"2B": unit("warrior_star"), "3B": monster("goblin")}, roll=(1, 1))
    g.apply(0, "act 2B attack 3B")
    assert at(g, "3B") == {"id": at(g, "3B")["id"], "card": "goblin", "dmg": 0}


def test_r8_2_dice_attack_chooses_one_monster_in_range():
    """R8.2 (p.12): one monster on a range square; Warrior★ reaches its four orthogonal
    neighbours (behind included) but not a diagonal; the range is never rotated (p.11)."""
    g = act_game({"3B": unit("warrior_star"), "2B": monster("goblin"), "4A": monster("goblin"),
                  "4B": monster("goblin")}, roll=(3, 4))
    expect_error(g, 0, "act 3B attack 4A", IllegalAction, "4A is not in range")
    expect_error(g, 0, "act 3B attack 4B,2B", IllegalAction, "exactly one monster")
    expect_error(g, 0, "act 3B attack 3A", IllegalAction, "not in range|no monster")
    g.apply(0, "act 3B attack 2B")  # the one behind it
    assert at(g, "2B") is None and at(g, "4B")["dmg"] == 0


def test_r8_2_thief_range_is_not_rotated():
    """R8.2 / p.11: the Thief★ cannot turn its range sideways to hit a monster above it."""
    g = act_game({"2B": unit("thief_star"), "2A": monster("goblin"), "4B": monster("goblin")},
                 roll=(3, 4))
    expect_error(g, 0, "act 2B attack 2A", IllegalAction, "2A is not in range")


def test_r8_2_p7_front_column_thief_or_sorcerer_reaches_a_magic_circle_in_one_action():
    """R8.2 / R8.1 (p.7): a Thief★ or Sorcerer★ placed on the home area's front column reaches
    a magic circle in one action: the Thief★ moves 2 (to column 4) and hits column 6, the
    Sorcerer★ moves 1 (to column 3) and its area covers column 6."""
    g = act_game({"2B": unit("thief_star"), "6B": monster("goblin"), "1A": unit("knight")},
                 roll=(3, 4))
    g.apply(0, "act 2B to 4B attack 6B")
    assert at(g, "6B") is None
    g2 = act_game({"2C": unit("sorcerer_star"), "6C": monster("golem"), "6B": monster("golem")})
    g2.apply(0, "act 2C to 3C area")
    assert at(g2, "6C")["dmg"] == 1 and at(g2, "6B")["dmg"] == 1
    g3 = act_game({"1C": unit("sorcerer_star"), "6C": monster("golem")}, honor=1)
    g3.apply(0, "act 1C fullmove to 3C area")  # R12.4: one more square with Full Move
    assert at(g3, "6C")["dmg"] == 1 and g3.state["players"][0]["honor"] == 0


# ---- long range (p.13) --------------------------------------------------------------------------

def test_r8_2_long_range_hits_past_monsters_and_units_but_never_a_gap_square():
    """R8.2 long-range (p.13): the target may stand behind another monster or a friendly unit;
    a white (gap) square of the pattern cannot be targeted."""
    g = act_game({"2B": unit("thief_star"), "3B": monster("goblin"), "4B": monster("goblin"),
                  "2C": unit("thief_star"), "3C": unit("warrior_star"), "5C": monster("goblin")},
                 roll=(3, 4), left=2)
    msg = expect_error(g, 0, "act 2B attack 3B", IllegalAction, "gap square")
    assert "3B" in msg
    g.apply(0, "act 2B attack 4B")  # past the Goblin on 3B
    assert at(g, "4B") is None and at(g, "3B")["dmg"] == 0
    g2 = act_game({"2C": unit("thief_star"), "3C": unit("warrior_star"), "5C": monster("goblin")},
                  roll=(3, 4))
    g2.apply(0, "act 2C attack 5C")  # past the friendly Warrior★ on 3C
    assert at(g2, "5C") is None


def test_r8_2_a_non_long_dice_attack_is_blocked_by_a_piece_between():
    """R8.2 [engine decision]: a dice attack that is not long-range cannot reach past a piece on
    a straight line. No default card has such a range, so a card set gives the Knight a
    two-square forward dice range: from 1B it may hit 3B only while 2B is empty."""
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    data["units"]["knight"]["skill"]["range"] = [[1, 0], [2, 0]]
    setup = {"players": ["P0", "P1"], "seed": 7, "cards": data}
    g = act_game({"1B": unit("knight"), "2B": unit("warrior_star"), "3B": monster("goblin")},
                 roll=(3, 4), setup=setup)
    expect_error(g, 0, "act 1B attack 3B", IllegalAction, "cannot reach past")
    g2 = act_game({"1B": unit("knight"), "3B": monster("goblin")}, roll=(3, 4), setup=setup)
    g2.apply(0, "act 1B attack 3B")
    assert at(g2, "3B") is None


# ---- allocated (p.13) ---------------------------------------------------------------------------

def test_r8_2_allocated_damage_split_or_together_without_dice():
    """R8.2 allocated ×2 (p.13): the Swordmaster deals 1 damage twice, to two monsters or both
    to one; no dice are rolled."""
    board = {"2B": unit("swordmaster"), "3B": monster("golem"),
             "3A": monster("skeleton", dmg=hp("skeleton") - 2), "1A": unit("cleric_star")}
    g = act_game(board)
    dice_before = g.state["rng"]["dice0"]
    g.apply(0, "act 2B attack 3B,3A")
    assert at(g, "3B")["dmg"] == 1 and at(g, "3A")["dmg"] == board["3A"]["dmg"] + 1
    assert g.state["rng"]["dice0"] == dice_before
    g2 = act_game(board)
    g2.apply(0, "act 2B attack 3A,3A")
    assert at(g2, "3A") is None and defeated(g2) == ["skeleton"]
    assert at(g2, "3B")["dmg"] == 0


def test_r8_2_allocated_points_must_all_be_placed_on_monsters_in_range():
    """R8.2 (p.13): the N points go to monsters in range; a point cannot go to a monster
    already defeated by an earlier point."""
    g = act_game({"2B": unit("swordmaster"), "3B": monster("golem"),
                  "3A": monster("goblin", dmg=hp("goblin") - 1), "5B": monster("goblin")})
    expect_error(g, 0, "act 2B attack 3B", IllegalAction, "name 2 target squares")
    expect_error(g, 0, "act 2B attack 3A,3A", IllegalAction, "defeated before that point")
    expect_error(g, 0, "act 2B attack 3B,5B", IllegalAction, "5B holds no monster in range")


# ---- area (p.13) --------------------------------------------------------------------------------

def test_r8_2_area_attack_hits_every_monster_in_range_and_no_unit():
    """R8.2 area ★ (p.13): no dice, no choice: every monster in range takes 1 damage, units in
    range are unaffected. Sorcerer★ on 1B reaches 3B, 4A, 4B, 4C."""
    g = act_game({"1B": unit("sorcerer_star"), "3B": monster("golem"),
                  "4A": monster("goblin", dmg=hp("goblin") - 1),
                  "4C": monster("dullahan"), "4B": unit("warrior_star", dmg=1),
                  "2B": monster("goblin"), "5B": monster("goblin")})
    g.apply(0, "act 1B area")
    assert at(g, "3B")["dmg"] == 1 and at(g, "4C")["dmg"] == 1
    assert at(g, "4A") is None  # the Goblin's last HP: defeated
    assert at(g, "4B")["dmg"] == 1  # the unit in range is untouched
    assert at(g, "2B")["dmg"] == 0 and at(g, "5B")["dmg"] == 0  # out of range


def test_r8_2_area_attack_needs_a_monster_in_range():
    """R8.2: an area skill with no monster in its range cannot be used."""
    g = act_game({"1B": unit("sorcerer_star"), "2B": monster("goblin")})
    expect_error(g, 0, "act 1B area", IllegalAction, "No monster is in range")


# ---- heal (p.14) --------------------------------------------------------------------------------

def test_r8_2_heal_removes_cubes_split_among_units_in_range_itself_included():
    """R8.2 heal ×2 (p.14): remove 2 cubes, split among friendly units in range; Cleric★'s
    pattern includes its own square."""
    g = act_game({"2B": unit("cleric_star", dmg=1), "2A": unit("warrior_star", dmg=3),
                  "1C": unit("thief_star", dmg=1)})
    expect_error(g, 0, "act 2B heal 1C", IllegalAction, "1C holds no unit of yours in range")
    expect_error(g, 0, "act 2B heal 2B,2B", IllegalAction, "only 1 damage")
    expect_error(g, 0, "act 2B heal 2A,2A,2A", IllegalAction, "up to 2")
    g.apply(0, "act 2B heal 2B,2A")
    assert at(g, "2B")["dmg"] == 0 and at(g, "2A")["dmg"] == 2


def test_r8_2_levelled_cleric_heals_three_anywhere_itself_included():
    """R8.2 / p.14: Cleric (Lv.2) heals 1 three times, anywhere on the board, itself included."""
    g = act_game({"1A": unit("cleric", dmg=1), "5C": unit("warrior_star", dmg=2)})
    g.apply(0, "act 1A heal 1A,5C,5C")
    assert at(g, "1A")["dmg"] == 0 and at(g, "5C")["dmg"] == 0


# ---- command (p.14) -----------------------------------------------------------------------------

def test_r8_2_bard_command_damages_then_the_target_uses_its_skill_in_place():
    """R8.2 command (p.14): any friendly unit anywhere takes 1 damage, then uses its own skill
    once from where it stands; its acted/un-acted status does not change; the Bard becomes
    acted."""
    g = act_game({"1A": unit("bard"), "4C": unit("warrior_star"), "5C": monster("goblin")},
                 roll=(3, 4))
    g.apply(0, "act 1A command 4C attack 5C")
    assert at(g, "4C")["dmg"] == 1
    assert at(g, "4C")["acted"] is False
    assert at(g, "1A")["acted"] is True
    assert at(g, "5C") is None  # the Warrior★'s attack defeated the Goblin
    assert layout(g)["4C"] == "warrior_star"  # it did not move


def test_r8_2_bard_may_command_an_acted_unit():
    """R8.2 (p.14): an acted target can still be made to use its skill; it stays acted."""
    g = act_game({"1A": unit("bard"), "2B": unit("sorcerer_star", acted=True),
                  "5B": monster("goblin", dmg=hp("goblin") - 1)})
    g.apply(0, "act 1A command 2B area")
    assert at(g, "5B") is None
    assert at(g, "2B")["acted"] is True and at(g, "2B")["dmg"] == 1


def test_r8_2_bard_target_fainting_from_the_command_uses_no_skill():
    """R8.2 (p.14): if the 1 damage makes the target faint, nothing else happens: it returns to
    the hand, and a sub-skill for it is refused."""
    g = act_game({"1A": unit("bard"), "2B": unit("sorcerer_star", dmg=1),
                  "5B": monster("goblin")})
    expect_error(g, 0, "act 1A command 2B area", IllegalAction, "faints")
    g.apply(0, "act 1A command 2B")
    assert at(g, "2B") is None and hand(g) == ["sorcerer_star"]
    assert at(g, "5B")["dmg"] == 0


def test_r8_2_bard_may_not_command_itself_and_the_sub_skill_is_optional():
    """R8.2 [engine decisions]: the Bard cannot command itself; the commanded unit's skill is
    optional (the damage is taken anyway)."""
    g = act_game({"1A": unit("bard"), "2B": unit("warrior_star")})
    expect_error(g, 0, "act 1A command 1A", IllegalAction, "another unit")
    expect_error(g, 0, "act 1A command 3C", IllegalAction, "another unit")
    g.apply(0, "act 1A command 2B")
    assert at(g, "2B")["dmg"] == 1 and at(g, "1A")["acted"] is True


def test_r8_2_commanded_skill_is_checked_from_the_targets_square():
    """R8.2 (p.14, 'no movement'): the commanded unit's skill is judged from where it stands."""
    g = act_game({"1A": unit("bard"), "2B": unit("warrior_star"), "4B": monster("goblin")})
    expect_error(g, 0, "act 1A command 2B attack 4B", IllegalAction, "not in range")


# ---- defeat -------------------------------------------------------------------------------------

def test_r8_2_defeating_a_boss_in_a_multiplayer_game_grants_a_medal():
    """R8.2 / R14.1 (p.26): defeating a red boss in a 2–4 player game grants one random medal
    token, known to its owner only."""
    g = act_game({"2B": unit("swordmaster"), "3B": monster("dragon", dmg=hp("dragon") - 1)},
                 medal_pool=[-2])
    ev = g.apply(0, "act 2B attack 3B")
    assert defeated(g) == ["dragon"]
    assert g.state["players"][0]["medals"] == [-2]
    assert [e["vis"] for e in of_type(ev, "medal_value")] == [[0]]
    assert g.state["medal_pool"] == []


def test_r8_2_defeating_a_blue_monster_grants_no_medal():
    """R14.1: only red bosses carry a medal."""
    g = act_game({"2B": unit("swordmaster"), "3B": monster("wraith", dmg=hp("wraith") - 1)},
                 medal_pool=[-2])
    g.apply(0, "act 2B attack 3B")
    assert defeated(g) == ["wraith"] and g.state["players"][0]["medals"] == []
