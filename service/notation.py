"""An action as a person reads it, and as a person may type it: the notation
(docs/notation.md) with its words and card names in the reader's language.

Why one place: a hint, the review, the tutorial's buttons and the echo of an accepted answer
all show an answer the player may type back. A Japanese player acts through `/rr 行動`, so
`act 2B to 3B attack 5B` read back to them named a command they never saw (the Japanese
audit): the notation's words are shown in the reader's language (`行動 2B → 3B 攻撃 5B`) and
accepted in every language the catalogues hold (`words_typed`, before the engine parses; the
engine and the log keep the one English notation). Card names are shown as the rulebook
calls them (`シーフ★`), which the engine accepts in either language already.

A verb is read only as the first word and the other words only after it, so `recruit` (a
verb) and 募兵 (the command card Recruit, which `pick` names) never stand for each other.
Only exact keys are names: `warrior` is the level-up Warrior, where a typed "warrior" would
resolve to the Warrior★ — the text given is the canonical one, keys and all.
"""

from __future__ import annotations

import functools
import unicodedata

import i18n
from engine import CardSet
from engine.notation import VERBS, unformatted

# The words after a verb (docs/notation.md): `act`'s, `recruit merc`, `autosave`'s, `rolls`'.
PARTICLES: tuple[str, ...] = ("fullmove", "to", "attack", "area", "heal", "command", "merc",
                              "on", "off", "miss", "always")

NOTATION_WORDS = frozenset((*VERBS, *PARTICLES))

# Words an earlier release showed, still read when typed: `ready` was 準備 (the rulebook says
# 未行動に戻す; 準備 is also its Setup), now 未行動 (the Discord audit).
FORMER: dict[str, str] = {"準備": "ready"}


def _key(word: str) -> str:
    return f"notation.{word}"


def shown(word: str, lang: str) -> str:
    """One notation word in `lang` (the word itself where the catalogue has none)."""
    said = i18n.t(lang, _key(word))
    return word if said == _key(word) else said


@functools.cache
def _typed() -> tuple[dict[str, str], dict[str, str]]:
    """Every language's spelling of the verbs and of the other words → the notation's own,
    folded as `words_typed` folds what is typed."""
    verbs: dict[str, str] = {}
    others: dict[str, str] = {}
    for lang in i18n.LANGS:
        for w in VERBS:
            verbs[_fold(shown(w, lang))] = w
        for w in PARTICLES:
            others[_fold(shown(w, lang))] = w
    others["->"] = "to"  # the arrow as a keyboard types it (the fresh-machine audit)
    verbs.update(FORMER)
    return verbs, others


def _fold(word: str) -> str:
    return unicodedata.normalize("NFKC", word).casefold()


def action_words(action: str, cards: CardSet, lang: str) -> str:
    """`action` (canonical notation) with its words and card keys in `lang`."""
    verb, *rest = action.split(" ")
    out = [shown(verb, lang)]
    for word in rest:  # `name` gives back a word that is no card's key (a square)
        out.append(shown(word, lang) if word in PARTICLES else cards.name(word, lang))
    return " ".join(out)


def particle_typed(word: str) -> str:
    """One word after the verb as typed, in the notation's own spelling (`傭兵` → `merc`)."""
    return _typed()[1].get(_fold(word), word)


def words_typed(text: str) -> str:
    """`text` as typed, with the notation's words of any language as the notation's own
    (`行動 2B → 3B 攻撃 5B` → `act 2B to 3B attack 5B`); everything else as it was, for the
    engine to read (card names, squares) or to refuse in its own words."""
    words = unformatted(text).split()  # (a pasted zero-width space is no part of a word)
    if not words:
        return text
    verbs, others = _typed()
    out = [verbs.get(_fold(words[0]), words[0])]
    out += [others.get(_fold(w), w) for w in words[1:]]
    return " ".join(out)
