"""Rules tests: unit actions (R8) and unit movement (R8.1)."""

from __future__ import annotations

from typing import Any

from rules_helpers import (
    actions,
    at,
    dice_seed,
    expect_error,
    layout,
    main_card,
    monster,
    puzzle,
    unit,
)

from engine import Game, IllegalAction, NotationError


def act_game(board: dict[str, Any], left: int = 2, honor: int = 1, **top: Any) -> Game:
    """Seat 0 is LEADER of Advance with `left` unit actions; seat 1 has not chosen yet."""
    return puzzle([board, {}], decisions={0: actions("advance", left)},
                  player={0: {"honor": honor}}, **main_card("advance", 0, 2), **top)


# ---- R8 -----------------------------------------------------------------------------------------

def test_r8_only_an_unacted_unit_may_act():
    """R8.1 step 1 (p.10): choose an un-acted unit (no action marker)."""
    g = act_game({"2B": unit("warrior_star", acted=True), "2A": unit("cleric_star")})
    msg = expect_error(g, 0, "act 2B to 3B", IllegalAction, "already acted")
    assert "Warrior" in msg
    expect_error(g, 0, "act 1C to 1B", IllegalAction, "no unit on 1C")


def test_r8_a_unit_that_only_moved_is_acted():
    """R8 step 3 [decision]: a unit that only moved gets an action marker too."""
    g = act_game({"2B": unit("thief_star"), "2A": unit("cleric_star")})
    g.apply(0, "act 2B to 3C")
    assert at(g, "3C")["acted"] is True
    assert at(g, "2A")["acted"] is False


def test_r8_move_then_skill_never_skill_then_move():
    """R8 step 2 (p.10): move first, then the skill; using the skill ends the movement, so a
    move written after the skill is not an action."""
    g = act_game({"2B": unit("thief_star"), "2A": unit("cleric_star"), "5C": monster("goblin")},
                 dice={0: dice_seed((3, 4))})
    expect_error(g, 0, "act 2B attack 5C to 3C", NotationError, "Unexpected 'to")
    expect_error(g, 0, "act 2B attack 5C", IllegalAction, "not in range")  # not from 2B
    g.apply(0, "act 2B to 2C attack 5C")  # moved 2B→2C, then hit 5C (3 ahead) from there
    assert layout(g)["2C"] == "thief_star"
    assert at(g, "5C") is None
    assert [c["card"] for c in g.state["players"][0]["defeated"]] == ["goblin"]


def test_r8_each_action_of_a_command_uses_a_different_unit():
    """R8 (p.10): an acted unit cannot act again within the same command."""
    g = act_game({"2B": unit("thief_star"), "2A": unit("cleric_star")})
    g.apply(0, "act 2B to 3B")
    assert g.decision(0)["left"] == 1
    expect_error(g, 0, "act 3B to 4B", IllegalAction, "already acted")


def test_r8_unused_actions_are_lost_when_declined():
    """R8 step 4 (p.10): a player may decline remaining actions; they are lost."""
    g = act_game({"2B": unit("thief_star"), "2A": unit("cleric_star")})
    g.apply(0, "act 2B to 3B")
    g.apply(0, "done")
    assert g.decision(0) is None
    assert at(g, "2A")["acted"] is False


def test_r8_the_command_ends_after_its_number_of_actions():
    """R7/R8: Advance gives 2 actions: after two, the player is not asked for a third."""
    g = act_game({"2B": unit("thief_star"), "2A": unit("cleric_star"),
                  "1C": unit("warrior_star")})
    g.apply(0, "act 2B to 3B")
    g.apply(0, "act 2A to 3A")
    assert g.decision(0) is None
    assert at(g, "1C")["acted"] is False


def test_r8_an_action_must_do_something():
    """R8: an action is a move and/or a skill; naming a unit alone is not an action."""
    g = act_game({"2B": unit("thief_star")})
    expect_error(g, 0, "act 2B", IllegalAction, "does nothing")


# ---- R8.1 ---------------------------------------------------------------------------------------

def test_r8_1_moves_are_orthogonal_steps_up_to_mov():
    """R8.1 ① (p.11): up to MOV squares, one orthogonal step at a time; a MOV-1 unit cannot
    move diagonally, a MOV-2 unit may turn between its steps but not go 3 squares."""
    g = act_game({"2B": unit("warrior_star"), "1B": unit("thief_star")})
    expect_error(g, 0, "act 2B to 3C", IllegalAction, r"at most 1 square \(MOV 1\)")
    expect_error(g, 0, "act 1B to 4B", IllegalAction, r"MOV 2")
    g.apply(0, "act 1B to 2C")  # right, then down
    assert layout(g)["2C"] == "thief_star"


def test_r8_1_may_not_end_on_a_unit_but_may_pass_through_one():
    """R8.1 ② (p.11): a move may not end on a friendly unit, but a multi-step move may pass
    through one."""
    g = act_game({"1B": unit("thief_star"), "2B": unit("warrior_star")})
    expect_error(g, 0, "act 1B to 2B", IllegalAction, "Warrior★ stands on 2B")
    g.apply(0, "act 1B to 3B")
    assert layout(g) == {"2B": "warrior_star", "3B": "thief_star"}


def test_r8_1_a_mov_1_unit_needs_full_move_to_hop_over_a_friend():
    """R8.1 ② (p.11): a MOV-1 unit passes a friendly unit only with Full Move (R12.4)."""
    board = {"1B": unit("warrior_star"), "2B": unit("cleric_star")}
    g = act_game(board)
    expect_error(g, 0, "act 1B to 3B", IllegalAction, "MOV 1")
    g.apply(0, "act 1B fullmove to 3B")
    assert layout(g)["3B"] == "warrior_star"


def test_r8_1_may_not_enter_or_pass_a_monster():
    """R8.1 ③ (p.11): a unit neither stops on nor passes a square holding a monster."""
    g = act_game({"2B": unit("thief_star"), "3B": monster("goblin"), "3A": monster("goblin")})
    expect_error(g, 0, "act 2B to 3B", IllegalAction, "Goblin stands on 3B")
    expect_error(g, 0, "act 2B to 4B", IllegalAction, "Goblin stands on 3B")
    g.apply(0, "act 2B to 3C")  # round the side is free
    assert layout(g)["3C"] == "thief_star"


def test_r8_1_may_not_leave_the_board():
    """R8.1 ④ (p.11): no move off the board (there is no such square to name)."""
    g = act_game({"1A": unit("thief_star")})
    expect_error(g, 0, "act 1A to 0A", NotationError, "not a square")
    expect_error(g, 0, "act 1A to 1D", NotationError, "not a square")


def test_r8_1_damage_cubes_move_with_the_unit():
    """R8.1 (p.11): damage cubes (and markers) travel with the unit."""
    g = act_game({"2B": unit("warrior_star", dmg=2), "2A": unit("cleric_star")})
    g.apply(0, "act 2B to 3B")
    assert at(g, "3B")["dmg"] == 2 and at(g, "2B") is None
