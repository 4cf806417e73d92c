"""Suggestions and the act command accept what a Japanese IME types: full-width squares."""

from rules_helpers import decision, monster, puzzle, unit

from cogs.choices import act_targets, narrow
from cogs.play import _fold


def test_full_width_typing_narrows_suggestions_like_ascii():
    pairs = [("Knight on 2B", "2B"), ("Archer on 3C", "3C")]
    assert narrow(pairs, "２ｂ") == narrow(pairs, "2b") == [("Knight on 2B", "2B")]


def test_a_destination_typed_full_width_is_the_same_square():
    assert _fold("２Ｂ") == _fold("2b") == "2B"
    assert _fold("３Ｂ") != _fold("2B")



def test_a_skill_suggestion_is_in_the_readers_words_and_sends_notation():
    """R8 skills, the Japanese audit: the `/rr 行動 対象:` suggestions read "area" and
    "attack 6B (Goblin)" to a Japanese player. Their names are the reader's words now; the
    value the client sends is still the notation the engine reads."""
    g = puzzle([{"3A": unit("sorcerer_star"), "3B": unit("thief_star"),
                 "6B": monster("goblin")}],
               decisions={0: decision("actions", card="advance", left=2)})
    area = act_targets(g, 0, "3A", None, False, "ja")
    assert [value for _, value in area] == ["area"] and [n for n, _ in area] == ["範囲攻撃"]
    shot = act_targets(g, 0, "3B", None, False, "ja")
    assert ("攻撃 6B（ゴブリン）", "attack 6B") in shot, shot
    assert ("attack 6B (Goblin)", "attack 6B") in act_targets(g, 0, "3B", None, False, "en")


def test_a_suggestion_whose_value_is_over_discords_100_is_left_out_never_cut():
    """Discord takes a choice's value up to 100 characters. A value over it was cut to
    100, so picking the suggestion sent the command something else than what it named (a
    `ready` of many units losing its last squares). Such a suggestion is left out (the
    player can still type it); a long name is shortened, its value kept whole."""
    long_value = " ".join(["1A", "1B", "1C", "2A", "2B", "2C"] * 6)  # 107 characters
    assert len(long_value) > 100
    pairs = [("all of them", long_value), ("x" * 150, "2B"), ("Archer on 3C", "3C")]
    out = narrow(pairs, "")
    assert out == [("x" * 100, "2B"), ("Archer on 3C", "3C")], out
    assert all(len(n) <= 100 and len(v) <= 100 for n, v in out)
    assert narrow([("all", long_value)], "all") == []
