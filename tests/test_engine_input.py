"""What players type, however they type it (docs/notation.md): full-width input from a
Japanese IME, absurdly deep or long input, and card names in custom card sets.

Bad input gets a short, specific answer and changes nothing; good input typed full-width
means exactly what its ASCII spelling means and is logged in ASCII (R15 replay).
"""

from __future__ import annotations

import copy
import json

import pytest
from rules_helpers import actions, at, dice_seed, expect_error, main_card, monster, puzzle, unit

from engine import Game, IllegalAction, NotationError, parse
from engine.cards import DATA_FILE, parse_cardset
from engine.errors import EXCERPT
from engine.notation import MAX_COMMANDS

# ---- full-width input (issue 7) --------------------------------------------------------------


@pytest.mark.parametrize("typed, ascii_", [
    ("ａｃｔ　２Ｂ　ａｒｅａ", "act 2B area"),
    ("act ２Ｂ area", "act 2B area"),
    ("ＡＣＴ ２ｂ ＴＯ ３ｂ ＡＴＴＡＣＫ ５Ｂ", "act 2B to 3B attack 5B"),
    ("act 2A heal 1A，1A", "act 2A heal 1A,1A"),
    ("act 2A heal 1A　，　1A", "act 2A heal 1A,1A"),
    ("act 2A heal 1A、1A", "act 2A heal 1A,1A"),
    ("ｒｅａｄｙ　１Ａ　２Ｃ", "ready 1A 2C"),
    ("ｌｅｖｅｌｕｐ ２Ａ", "levelup 2A"),
    ("ｋｅｅｐ", "keep"),
    ("ａｕｔｏｓａｖｅ ｏｎ", "autosave on"),
    ("ｒｏｌｌｓ　ａｌｗａｙｓ", "rolls always"),
    ("act 1B command ２B attack ５B", "act 1B command 2B attack 5B"),
    # a copy and paste's zero-width space, joiner and byte-order mark (the new-player audit)
    ("\u200bact 2B\u200d to 3B\ufeff", "act 2B to 3B"),
])
def test_full_width_actions_mean_their_ascii_spelling(typed: str, ascii_: str) -> None:
    """Issue 7: what a Japanese IME types (full-width letters, digits, spaces and commas, or
    the ideographic comma 、) is the same action as its ASCII spelling, canonical in ASCII."""
    assert parse(typed) == parse(ascii_)
    assert str(parse(typed)) == ascii_ and str(parse(typed)).isascii()


def test_full_width_answers_are_played_and_logged_in_ascii() -> None:
    """R4.4 placement and R6.1 pick typed full-width are accepted; the log keeps the
    canonical ASCII text, so setup + log replays the game (R15)."""
    g = Game.new(["Ann", "Bob"], seed=7)
    g.apply(0, "ｐｌａｃｅ　ｼｰﾌ　２ｂ")
    g.apply(1, "place ウォーリア★ ２Ａ")
    start = g.state["start_player"]
    g.apply(start, "ｐｉｃｋ　進撃")
    assert g.state["log"][:3] == [[0, "place thief_star 2B"], [1, "place warrior_star 2A"],
                                  [start, "pick advance"]]
    assert Game.replay(g.state["setup"], g.state["log"]).to_json() == g.to_json()
    assert g.reach(0, "２Ｂ") == g.reach(0, "2B")  # the help overlay takes squares too


def test_full_width_attack_resolves_like_ascii() -> None:
    """R8.2: `ａｃｔ ２Ｂ ａｔｔａｃｋ ３Ｂ` is a dice attack on 3B."""
    g = puzzle([{"2B": unit("warrior_star"), "3B": monster("goblin")}, {}],
               decisions={0: actions()}, dice={0: dice_seed((4, 4))},
               **main_card("advance", 0, 2))
    g.apply(0, "ａｃｔ　２Ｂ　ａｔｔａｃｋ　３Ｂ")
    assert at(g, "3B") is None and g.state["log"][-1] == [0, "act 2B attack 3B"]


# ---- deep input (issue 8) --------------------------------------------------------------------


def test_command_chains_are_bounded_with_a_clear_error() -> None:
    """Issue 8: a Bard's Command chain (R8.2) a thousand levels deep raised RecursionError.
    Chains up to MAX_COMMANDS parse (more units than a board holds would be needed to go
    further); one more, or a thousand more, is a NotationError naming the limit."""
    ok = "act 2B " + "command 2A " * MAX_COMMANDS + "attack 5B"
    assert str(parse(ok)) == ok.strip()
    for n in (MAX_COMMANDS + 1, 1000, 100_000):
        with pytest.raises(NotationError, match=f"at most {MAX_COMMANDS} 'command'"):
            parse("act 2B " + "command 2A " * n + "attack 5B")


def test_a_deep_chain_sent_to_a_game_changes_nothing() -> None:
    """The refusal happens before anything recursive in the engine sees the chain."""
    g = puzzle([{"2B": unit("bard"), "2A": unit("bard"), "5B": monster("goblin")}, {}],
               decisions={0: actions()}, **main_card("advance", 0, 2))
    expect_error(g, 0, "act 2B " + "command 2A command 2B " * 500 + "attack 5B",
                 NotationError, "nested commands")


def test_huge_input_is_handled_in_one_pass() -> None:
    """Whitespace and commas in any amount: the tokenizer is linear (the old regex was
    quadratic on a long run of spaces), and the answer is still a short syntax error."""
    with pytest.raises(NotationError) as info:
        parse("ready " + " " * 20_000 + "x")
    assert len(info.value.message) < 200
    assert parse("ready 1A" + " , " * 20_000 + "2C") == parse("ready 1A,2C")


# ---- errors quote a short excerpt (issue 7) ----------------------------------------------------

EMOJI = "🐉" * 5000


@pytest.mark.parametrize("text", [
    EMOJI, f"place thief {EMOJI}", f"act {EMOJI}", f"act 2B to 3B {EMOJI}",
    f"act 2B attack 5B {EMOJI}", f"act 2B attack {EMOJI}",
])
def test_syntax_errors_quote_a_short_excerpt(text: str) -> None:
    """Issue 7: 5,000 emoji gave a 20 KB error line; the message quotes at most a short
    excerpt of the bad token, marked as cut."""
    with pytest.raises(NotationError) as info:
        parse(text)
    msg = info.value.message
    assert "🐉" in msg and "…" in msg and msg.count("🐉") < EXCERPT and len(msg) < 200


def test_refusals_quote_a_short_excerpt_of_a_card_name() -> None:
    """R4.4 / R6.1: an unknown card name is quoted short in the refusal."""
    g = Game.new(["Ann", "Bob"], seed=7)
    for text in (f"place {EMOJI} 2B",):
        msg = expect_error(g, 0, text, IllegalAction, "There is no")
        assert len(msg) < 300
    g.apply(0, "place thief 2B")
    g.apply(1, "place thief 2B")
    msg = expect_error(g, g.state["start_player"], f"pick {EMOJI}", IllegalAction,
                       "cannot pick")
    assert len(msg) < 300
    with pytest.raises(IllegalAction) as info:
        g.reach(0, EMOJI)
    assert len(info.value.message) < 100


# ---- custom card sets (issue 7) ----------------------------------------------------------------


def test_card_sets_made_in_a_loop_each_resolve_their_own_names() -> None:
    """Issue 7: the name index was cached by id() of the card set, and a new set reusing a
    freed set's id got the old index (194 of 200 sets in a loop). Each set now resolves its
    own names, and only its own."""
    base = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    for k in range(200):
        data = copy.deepcopy(base)
        data["units"]["thief_star"]["en"] = f"Rogue{k}★"
        cs = parse_cardset(data)
        assert cs.resolve(f"rogue{k}") == "thief_star", k
        assert cs.resolve(f"rogue{k - 1}") is None
        del cs


def test_a_custom_set_game_resolves_its_names_after_other_sets_are_gone() -> None:
    """The same through a game, as a host with a custom set would play it (R4.4 placement)."""
    base = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    for k in range(20):
        data = copy.deepcopy(base)
        data["units"]["thief_star"]["en"] = f"Scout{k}★"
        g = Game.new(["Ann"], seed=k, cards_data=data)
        g.apply(0, f"place scout{k} 2B")
        assert g.state["log"][-1] == [0, "place thief_star 2B"]


def test_a_state_nested_too_deeply_is_a_value_error() -> None:
    """Loading a hand-written state never ends in RecursionError: a state whose values nest
    deeper than Python recurses is refused as a bad file (ValueError), like any other."""
    deep = '{"players": [{"name": ' + "[" * 900 + "]" * 900 + "}]}"
    with pytest.raises(ValueError, match="nested too deeply"):
        Game.from_json(deep)
    with pytest.raises(ValueError, match="nested too deeply"):
        Game.from_json("[" * 100_000 + "]" * 100_000)


def test_a_rolls_action_built_by_code_must_name_a_known_mode() -> None:
    """An interface handing `Game.apply` an `Action` (not text) cannot set an unknown `rolls`
    mode: refused, nothing changed."""
    from engine import Action

    g = Game.new(["Ann"], seed=1)
    before = g.to_json()
    with pytest.raises(NotationError, match="rolls miss"):
        g.apply(0, Action("rolls", mode="sometimes"))
    assert g.to_json() == before
