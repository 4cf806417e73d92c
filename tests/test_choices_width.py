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
