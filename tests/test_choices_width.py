"""Suggestions and the act command accept what a Japanese IME types: full-width squares."""

from cogs.choices import narrow
from cogs.play import _fold


def test_full_width_typing_narrows_suggestions_like_ascii():
    pairs = [("Knight on 2B", "2B"), ("Archer on 3C", "3C")]
    assert narrow(pairs, "２ｂ") == narrow(pairs, "2b") == [("Knight on 2B", "2B")]


def test_a_destination_typed_full_width_is_the_same_square():
    assert _fold("２Ｂ") == _fold("2b") == "2B"
    assert _fold("３Ｂ") != _fold("2B")
