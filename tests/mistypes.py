"""Lines a person might type by mistake, for the tests that check nothing typed breaks a
game (tests/test_console_play.py, tests/test_bot_mistyped.py): a legal answer with a word
dropped, swapped for an odd one, inserted, repeated or cut short, or odd words alone."""

from __future__ import annotations

import random

ODD_WORDS = ["", ":", "P1:", "Ann:", "'", '"', "x" * 120, "🙂" * 30, "\u200b", "\u202e",
             "-1", "0", "99999999999999999999", "nan", "{name}", "%s", "\\", "/", "★", "①",
             "ＡＣＴ", "all", "to", "to to", "attack", "heal", "command", "area", "fullmove",
             "levelup", "willpower", "keep", "done", "merc", "pick", "place", "recruit", "act",
             "rolls", "autosave", "完了", "攻撃", "回復", "ナイト", "クレリック★", "warrior",
             "dragon", "0A", "7A", "2Z", "２Ｂ", "b2", "6B", "1A,2B", "2B 3B", "R11"]


def mistyped(rng: random.Random, words: list[str], odd: list[str] = ODD_WORDS) -> str:
    """`words` (a legal answer, split) with one to three slips; odd words alone when there
    are none, and three times in ten anyway."""
    if not words or rng.random() < 0.3:
        return " ".join(rng.choice(odd) for _ in range(rng.randint(1, 4)))
    words = list(words)
    for _ in range(rng.randint(1, 3)):
        k = rng.randrange(len(words))
        how = rng.random()
        if how < 0.25 and len(words) > 1:
            del words[k]
        elif how < 0.5:
            words[k] = rng.choice(odd)
        elif how < 0.7:
            words.insert(k, rng.choice(odd))
        elif how < 0.85:
            words += words[k:]
        else:
            words[k] = words[k].swapcase() if rng.random() < 0.5 else words[k][:-1]
    return " ".join(words)
