"""Rules tests: decisions, typed errors, undo, determinism and simultaneity (R15), and the
engine decisions about timeouts (R4.4 placement, R6 pick)."""

from __future__ import annotations

import random
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
    layout,
    main_card,
    monster,
    of_type,
    puzzle,
    unit,
)

from engine import (
    Game,
    GameFinished,
    IllegalAction,
    NotationError,
    NotYourDecision,
    StaleDecision,
)
from service.refusals import words


def play(g: Game, steps: int, seed: int = 0) -> None:
    """Answer pending decisions with random legal actions (skills preferred)."""
    r = random.Random(seed)
    for _ in range(steps):
        if g.over:
            return
        seat = r.choice(g.waiting_for())
        legal = g.legal_actions(seat)
        busy = [a for a in legal if a.verb != "levelup" and (a.verb != "act" or a.skill)]
        g.apply(seat, str(r.choice(busy or legal)))


# ---- R15 determinism ----------------------------------------------------------------------------

def test_r15_setup_plus_log_replays_the_game_exactly():
    """R15: a game is fully determined by its setup and its ordered list of actions."""
    g = Game.new(["a", "b", "c"], seed=99)
    play(g, 120, seed=3)
    again = Game.replay(g.state["setup"], g.state["log"])
    assert again.to_json() == g.to_json()


def test_r15_each_players_dice_come_from_their_own_stream():
    """R15: the order in which simultaneous actions arrive never changes anyone's rolls."""
    def game() -> Game:
        board = {"2B": unit("warrior_star"), "3B": monster("golem"), "1A": unit("cleric_star")}
        return puzzle([board, board], decisions={0: actions(), 1: actions()},
                      player={0: {"honor": 0}, 1: {"honor": 0}},
                      dice={0: dice_seed((4, 4)), 1: dice_seed((1, 2))},
                      **main_card("advance", 0, 2))

    rolls = {}
    for order in ((0, 1), (1, 0)):
        g = game()
        seen = {}
        for seat in order:
            ev = g.apply(seat, "act 2B attack 3B")
            seen[seat] = of_type(ev, "rolled")[0]["dice"]
        rolls[order] = seen
    assert rolls[(0, 1)] == rolls[(1, 0)] == {0: [4, 4], 1: [1, 2]}


# ---- R15 simultaneity and timeouts ----------------------------------------------------------------

def test_r15_followers_answer_at_the_same_time():
    """R15 / R6.3 (p.10): every player resolves its part of a card at once: both LEADER and
    FOLLOWER are asked together, in any order."""
    board = {"2B": unit("thief_star")}
    g = puzzle([board, board, board], phase="main", round=1, turn_order=[0, 1, 2], turn=0,
               decisions={0: decision("pick", options=["advance", "raid"])})
    g.apply(0, "pick raid")
    assert g.waiting_for() == [0, 1, 2]
    g.apply(2, "act 2B to 3B")
    g.apply(0, "done")
    assert g.waiting_for() == [1]


@pytest.mark.parametrize("kind, dec, board, check", [
    ("actions", actions(), {"2B": unit("thief_star"), "5B": monster("goblin")},
     lambda g: at(g, "2B")["acted"] is False),
    ("ready", decision("ready", card="rest", n=2), {"2B": unit("thief_star", acted=True)},
     lambda g: at(g, "2B")["acted"] is True),
    ("recruit", decision("recruit", card="recruit", mercenaries=True, again=False), {},
     lambda g: layout(g) == {} and g.state["players"][0]["gold"] == 5),
])
def test_r15_timeout_is_pass_no_change(kind, dec, board, check):
    """R15: a player who times out gets the default answer: pass / no change."""
    cardname = {"actions": "advance", "ready": "rest", "recruit": "recruit"}[kind]
    g = puzzle([board, {}], decisions={0: dec},
               player={0: {"gold": 5, "hand": [card("thief_star", "t")]}},
               **main_card(cardname, 0, 2))
    ev = g.apply(0, "timeout")
    assert of_type(ev, "timeout")[0]["decision"] == kind
    assert g.decision(0) is None or g.decision(0)["kind"] != kind
    assert check(g)


def test_r15_timeout_at_support_heals_nothing():
    """R15 / R11.1: a supported player who times out heals nothing."""
    g = puzzle([{"1A": unit("knight", dmg=2)}, {}], phase="end", step="fatigue", round=2,
               decisions={0: decision("support")})
    g.apply(0, "timeout")
    assert at(g, "1A")["dmg"] == 2


def test_r15_timeout_at_a_roll_keeps_it_without_spending_marks():
    """R15 / R12.3: a roll decision that times out keeps the roll; no Willpower is spent."""
    g = puzzle([{"2B": unit("warrior_star"), "3B": monster("golem"), "1A": unit("knight")}, {}],
               decisions={0: actions()}, dice={0: dice_seed((3, 4))},
               **main_card("advance", 0, 2))
    g.apply(0, "act 2B attack 3B")
    assert g.decision(0)["kind"] == "roll"
    g.apply(0, "timeout")
    assert at(g, "3B")["dmg"] == 1 and g.state["players"][0]["honor"] == 1


def test_r4_4_placement_timeout_places_the_first_hand_card_on_2b():
    """R4.4 [decision]: initial placement is mandatory (p.7); its timeout default places the
    first card of the hand on 2B."""
    g = Game.new(["a", "b"], seed=6)
    first = g.state["players"][1]["hand"][0]["card"]
    g.apply(1, "timeout")
    assert layout(g, 1) == {**{sq: c for sq, c in layout(g, 1).items() if sq[0] == "6"},
                            "2B": first}
    assert first not in hand(g, 1)


def test_r4_4_placement_cannot_be_declined():
    """R4.4 [decision] (p.7, no 'may'): initial placement is mandatory; 'done' is refused and
    never offered."""
    g = Game.new(["a"], seed=6)
    expect_error(g, 0, "done", IllegalAction, "place a unit")
    assert {a.verb for a in g.legal_actions(0)} == {"place"}


def test_r4_4_placement_timeout_falls_back_2a_2c_1b_1a_1c():
    """R4.4 [decision]: 2B, else 2A, 2C, 1B, 1A, 1C, in that order."""
    taken = {"2B": unit("knight"), "2A": unit("knight"), "2C": unit("knight")}
    g = puzzle([taken], phase="placement", step="placing", round=0,
               player={0: {"hand": [card("sorcerer_star", "s"), card("thief_star", "t")]}},
               decisions={0: decision("place")})
    g.apply(0, "timeout")
    assert layout(g)["1B"] == "sorcerer_star" and hand(g) == ["thief_star"]


def test_r6_pick_timeout_skips_the_choice_and_auto_runs_all_but_the_last():
    """R6 / R15 [decision]: a player who times out on choosing passes; after the choices, AUTO
    executes every unchosen card but the last (still four cards in all)."""
    g = puzzle([{}, {}], phase="placement", step="next", round=0,
               row=["advance", "raid", "rest", "reward", "recruit"])
    from rules_helpers import settle

    settle(g)
    ev = g.apply(0, "timeout")
    assert g.waiting_for() == [1]
    ev += g.apply(1, "pick reward")
    executed = [(e["card"], e["auto"]) for e in of_type(ev, "card")]
    assert executed == [("reward", False), ("advance", True), ("raid", True), ("rest", True)]


# ---- typed errors -------------------------------------------------------------------------------

def fresh() -> Game:
    return puzzle([{"2B": unit("thief_star"), "5B": monster("goblin")}, {}],
                  decisions={0: actions()}, **main_card("advance", 0, 2))


@pytest.mark.parametrize("text, match", [
    ("", "Empty action"),
    ("fly 2B", "Unknown action 'fly'"),
    ("pick", "Use 'pick CARD'"),
    ("act 9Z to 3B", "'9Z' is not a square"),
    ("act 2B to", "'to' needs a square"),
    ("act 2B jump 3B", "Unexpected 'jump'"),
    ("act 2B Jump 3B", "Unexpected 'Jump'"),  # quoted as typed
    ("act 2B attack 6A 6B", "Unexpected '6B' at the end"),
    ("done now", "'done' takes nothing after it"),
    ("recruit archer", "Use 'recruit CARD SQUARE'"),
    ("autosave maybe", "autosave on"),
])
def test_notation_errors_are_typed_and_change_nothing(text, match):
    """Errors: text that is not an action raises NotationError with a hint; nothing changes."""
    expect_error(fresh(), 0, text, NotationError, match)


def test_wrong_kind_of_answer_is_illegal_and_says_what_is_asked():
    """Errors: a well-formed answer to a different question raises IllegalAction naming what
    the player is asked now."""
    msg = expect_error(fresh(), 0, "pick reward", IllegalAction, "take unit actions")
    assert "act / done" in msg


def test_not_your_decision():
    """Errors: a player with nothing to decide (or not in the game) gets NotYourDecision,
    which names who the game is waiting for."""
    g = fresh()
    msg = expect_error(g, 1, "done", NotYourDecision, "nothing to decide")
    assert "P0" in msg
    expect_error(g, 5, "done", NotYourDecision, "not playing")


def test_stale_decision_after_the_prompt_changed():
    """Errors: an answer given for an older prompt (decision id) raises StaleDecision; a
    Level Up or an action changes the prompt."""
    g = puzzle([{"2B": unit("thief_star"), "2A": unit("cleric_star")}, {}],
               decisions={0: actions()}, **main_card("advance", 0, 2))
    old = g.decision(0)["id"]
    g.apply(0, "act 2B to 3B", decision_id=old)
    assert g.decision(0)["id"] != old
    expect_error(g, 0, "act 2A to 3A", StaleDecision, "out of date", decision_id=old)
    g.apply(0, "act 2A to 3A", decision_id=g.decision(0)["id"])
    assert layout(g)["3A"] == "cleric_star"


def test_game_over_refuses_every_action():
    """Errors: once the game is over every action raises GameFinished."""
    g = puzzle([{"1A": monster("goblin")}], phase="invasion")
    from rules_helpers import settle

    settle(g)
    assert g.over
    expect_error(g, 0, "done", GameFinished, "over")
    with pytest.raises(GameFinished):
        g.undo(0)


@pytest.mark.parametrize("text, match", [
    ("act 2B to 6B", "magic circle"),
    ("act 2B attack 3B", "gap square"),
    ("act 2B to 2A attack 3B", "3B is not in range"),
    ("act 5B to 4B", "no unit on 5B"),
    ("levelup 2B", "costs 2 honor marks"),
    ("act 2B fullmove to 5A", "MOV 3"),
])
def test_illegal_actions_are_typed_specific_and_change_nothing(text, match):
    """Errors: rule violations raise IllegalAction with a message naming the problem; the state
    stays byte-identical."""
    g = puzzle([{"2B": unit("thief_star"), "3B": monster("goblin"), "5B": monster("goblin")},
                {}], decisions={0: actions()}, **main_card("advance", 0, 2))
    expect_error(g, 0, text, IllegalAction, match)


# ---- undo ---------------------------------------------------------------------------------------

def advancing(seed: int = 12) -> tuple[Game, int]:
    """A real game in round 1: both players placed a Thief★ on 2B and recruited a Warrior★ on
    1A; then the second player chose Advance. Returns the game and that player's seat."""
    g = Game.new(["a", "b"], seed=seed)
    g.apply(0, "place thief 2B")
    g.apply(1, "place thief 2B")
    sp = g.state["start_player"]
    g.apply(sp, "pick recruit")
    g.apply(0, "recruit warrior 1A")
    g.apply(1, "recruit warrior 1A")
    g.apply(1 - sp, "pick advance")
    return g, 1 - sp


def test_undo_restores_the_state_before_an_action_that_revealed_nothing():
    """Undo: a player's last action, while it revealed nothing random and its decision is
    still open, can be taken back; the game is exactly as before."""
    g, seat = advancing()
    before = g.to_json()
    g.apply(seat, "act 2B to 3B")
    assert g.decision(seat)["kind"] == "actions"  # one action left: still open
    assert g.can_undo(seat)
    g.undo(seat)
    assert g.to_json() == before


def test_undo_refused_after_a_dice_roll():
    """Undo: an action that revealed something random (a roll) cannot be undone."""
    g = puzzle([{"2B": unit("thief_star"), "4B": monster("golem"), "1A": unit("knight")}, {}],
               decisions={0: actions()}, **main_card("advance", 0, 2))
    g.apply(0, "act 2B attack 4B")
    assert not g.can_undo(0)
    before = g.to_json()
    with pytest.raises(IllegalAction, match="Nothing to undo"):
        g.undo(0)
    assert g.to_json() == before


def test_undo_never_takes_back_another_players_action():
    """Undo: a player takes back only their own action."""
    g, seat = advancing()
    g.apply(seat, "act 2B to 3B")
    assert not g.can_undo(1 - seat)
    with pytest.raises(IllegalAction):
        g.undo(1 - seat)


def test_an_answer_can_be_changed_while_the_others_still_answer_the_same_card():
    """R6.3, undo (BGA's rule for players asked at once): the LEADER's 'done' closed their
    question, but the FOLLOWER is still acting on the same Advance, so nothing has moved on:
    the LEADER may take it back (it was refused before). Once the FOLLOWER is done and the
    card resolves, the game has moved past it and it stays."""
    g, seat = advancing()
    other = 1 - seat
    assert g.decision(other) is not None  # the FOLLOWER acts on the same card
    before = g.to_json()
    g.apply(seat, "done")
    assert g.decision(seat) is None and g.can_undo(seat)
    g.undo(seat)
    assert g.to_json() == before and g.decision(seat)["kind"] == "actions"
    g.apply(seat, "done")
    g.apply(other, "done")  # the card resolves: the step is over
    assert g.waiting_for()  # the next question is asked already
    for s in (seat, other):  # the last answer in ended the step: it stays too
        assert not g.can_undo(s)
        with pytest.raises(IllegalAction, match="Nothing to undo"):
            g.undo(s)


def test_the_last_placement_in_begins_the_round_and_cannot_be_taken_back():
    """R4.4, undo (the Discord new-player audit): the last player to place ended the
    placement and round 1's first question was asked; their placement could still be
    taken back, sending the game back to round 0 under the start player's ping."""
    for seed in range(12, 16):  # either seat starts round 1
        g = Game.new(["a", "b"], seed=seed)
        last = g.state["start_player"]  # …the other one places first
        g.apply(1 - last, "place thief 2B")
        assert g.can_undo(1 - last)
        g.apply(last, "place thief 2B")
        assert g.round == 1 and g.waiting_for() == [g.state["start_player"]]
        assert not g.can_undo(0) and not g.can_undo(1)
    for seed in range(12, 16):  # and the one who did not start, last in
        g = Game.new(["a", "b"], seed=seed)
        first = g.state["start_player"]
        g.apply(first, "place thief 2B")
        g.apply(1 - first, "place thief 2B")
        assert g.round == 1 and not g.can_undo(1 - first)


def test_an_answer_stays_once_another_player_has_finished_answering_after_it():
    """Undo: an answer given while others still decide stays undoable only until one of
    them finishes too (their answer may have been made knowing it)."""
    g = Game.new(["a", "b", "c"], seed=5)
    for s in (0, 1, 2):
        g.apply(s, g.legal_actions(s)[0])
    sp = g.state["start_player"]
    g.apply(sp, "pick advance")
    waiting = g.waiting_for()
    assert len(waiting) == 3, waiting
    first, second = waiting[0], waiting[1]
    g.apply(first, "done")
    assert g.can_undo(first)
    g.apply(second, "done")
    assert g.decision(waiting[2]) is not None and not g.can_undo(first)


# ---- legal actions --------------------------------------------------------------------------------

def legal_accepted(g: Game, seat: int) -> None:
    snapshot = g.to_json()
    for a in g.legal_actions(seat):
        trial = Game.from_json(snapshot)
        trial.apply(seat, str(a))  # must not raise


def test_every_listed_legal_action_is_accepted():
    """Decisions: every action `legal_actions` offers is accepted by `apply` (moves, Full Move,
    skills, Bard commands with sub-skills, heals, allocated attacks, level-ups)."""
    board: dict[str, Any] = {
        "1A": unit("bard"), "2B": unit("swordmaster"), "2C": unit("cleric_star", dmg=1),
        "1C": unit("thief_star", dmg=1), "3B": monster("goblin"), "3C": monster("golem"),
        "4A": monster("skeleton"),
    }
    g = puzzle([board, {}], decisions={0: actions()}, player={0: {"honor": 2}},
               **main_card("advance", 0, 2))
    assert len(g.legal_actions(0)) > 50
    legal_accepted(g, 0)
    r = puzzle([{}, {}], decisions={0: decision("recruit", card="recruit", mercenaries=True,
                                                  again=False)},
               player={0: {"gold": 4, "hand": [card("warrior_star", "w"), card("warrior", "l")]}},
               mercenaries=[card("archer", "a"), None, card("knight", "k")],
               **main_card("recruit", 0, 2))
    legal_accepted(r, 0)


def test_a_player_who_resigned_cannot_undo_what_they_answered_before():
    """Undo, R9.3 (the verification audit): Bob placed while the others still placed, then
    resigned; his placement could still be taken back, leaving the log a lone 'resign' and
    the channel reading "Bob took back their last action" after "Bob has left the game"."""
    g = Game.new(["a", "b", "c"], seed=5)
    g.apply(1, g.legal_actions(1)[0])
    assert g.can_undo(1)
    g.apply(1, "resign")
    assert g.player(1)["eliminated"] and not g.can_undo(1)
    with pytest.raises(IllegalAction, match="Nothing to undo"):
        g.undo(1)


def test_a_levelled_unit_named_by_its_card_is_found_too():
    """R12.2 (the verification audit): `act warrior` with a levelled Warrior on 2B said
    "you have no Warrior★ on your board": the name folds onto the ★ card, and the Level 2
    unit is that family too."""
    g = puzzle([{"2B": unit("warrior")}], decisions={0: actions()}, **main_card("advance", 0, 2))
    with pytest.raises(IllegalAction, match="your Warrior is on 2B"):
        g.apply(0, "act warrior to 3B")


def test_a_mistyped_skill_word_is_answered_with_the_skill_meant():
    """The new-player audit: `act 2B to 4B attak 6B` answered "Unexpected 'attak' …" with no
    suggestion. The refusal names the skill meant (engine.cards.closest), in the reader's
    notation words; a word close to none keeps the plain refusal; nothing changes."""
    g = fresh()
    before = g.to_json()
    with pytest.raises(NotationError) as info:
        g.apply(0, "act 2B to 3B attak 5B")
    assert g.to_json() == before
    assert words(info.value, "en").startswith("Unexpected 'attak': did you mean 'attack'? ")
    assert words(info.value, "ja").startswith("「attak」は使えません。「攻撃」のことですか？")
    with pytest.raises(NotationError) as info:
        g.apply(0, "act 2B jump 3B")
    assert "did you mean" not in words(info.value, "en")
