"""An action as a person reads it: the notation (docs/notation.md) with each card key shown
as the card's name in the reader's language.

Why one place: a hint, the review and the tutorial all show an answer the player may type
back, and the notation accepts a card's key or its name in either language. So the name is
both what the rulebook calls the card (`シーフ★`, not `thief_star`) and a valid way to type
it (tests/test_notation_words.py plays every shown answer back). The verb stays as it is:
`recruit` is a verb and also a command card's name (募兵), and a verb is never a card.
Only exact keys are names: `warrior` is the level-up Warrior, where a typed "warrior" would
resolve to the Warrior★ — the text given is the canonical one, keys and all.
"""

from __future__ import annotations

from engine import CardSet


def action_words(action: str, cards: CardSet, lang: str) -> str:
    """`action` (canonical notation) with its card keys as names in `lang`."""
    verb, *rest = action.split(" ")
    out = [verb]
    for word in rest:  # `name` gives back a word that is no card's key (a square, `to`)
        out.append(cards.name(word, lang))
    return " ".join(out)
