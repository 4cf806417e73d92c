"""A typed line that begins with no verb of the notation, read for what the person meant.

Why a module of its own: a newcomer types what other games or the prompt suggest (`attack
6A`, `move 2B 3A`, `pass`, `パス`), and "neither a console command nor an action" tells them
nothing (the console audits). Each reading here only answers in words; nothing is played
for a guess.
"""

from __future__ import annotations

from engine import Game
from service.notation import action_words, particle_typed, shown

from .text import excerpt, quote, t

ACT_WORDS = ("to", "fullmove", "attack", "area", "heal", "command")  # inside `act …`
# what other games call ending one's turn (the notation's word is `done` / 完了)
ENDING = frozenset(("pass", "end", "skip", "finish", "stop", "パス", "終わり", "おわり",
                    "スキップ", "終わる", "おしまい", "終"))
# the bot's ratings, asked for at a terminal that plays every seat (its games are not rated)
RATINGS = frozenset(("ratings", "rating", "rank", "ranking", "stats", "leaderboard", "elo",
                     "レーティング", "レート", "ランキング", "戦績", "成績"))


def not_a_verb(g: Game, waiting: list[int], word: str, lang: str) -> str:
    """What a line begun with `word`, no verb, is told (`waiting`: the people deciding):
    its reading (`misread`), or that it is neither a command nor an action."""
    return misread(g, waiting, word, lang) or t("unknown", lang, word=excerpt(word, lang))


def misread(g: Game, waiting: list[int], word: str, lang: str) -> str | None:
    """What a line begun with `word`, no verb, was meant as, in words: where the word goes
    (`attack 6A`), the game's word for ending a step (`pass`: 'done'), that a number
    chooses only in the tutorial (`1`), that the console rates no game (`ratings`); None
    when it reads as none of them."""
    quoted = excerpt(word, lang)
    if word.casefold() in RATINGS:
        return t("no_ratings", lang)
    if (inner := inside_act(g, waiting, word, lang)) is not None:
        return t("inside_act", lang, word=quoted, example=inner)
    # these two read alike for anyone deciding (several at once too: a step taken together)
    if (word.casefold() in ENDING  # (typed lines come NFKC'd)
            and any(str(a) == "done" for s in waiting for a in g.legal_actions(s))):
        return t("say_done", lang, word=quoted, done=quote(shown("done", lang), lang))
    if word.isdecimal() and waiting and (acts := g.legal_actions(waiting[0])):
        # the tutorial answers each step by its number; a game does not (no numbered list)
        example = quote(action_words(str(acts[0]), g.cards, lang), lang)
        return t("number", lang, word=quoted, example=example)
    return None


def inside_act(g: Game, waiting: list[int], word: str, lang: str) -> str | None:
    """For a word of a unit's action (`attack`, `攻撃`, `move`): a legal action of the one
    person deciding that uses it, quoted, to show where it goes; else None. `move` is no
    notation word: a move is `to`."""
    inner = "to" if word.casefold() in ("move", "移動") else particle_typed(word)
    if inner not in ACT_WORDS or len(waiting) != 1:
        return None
    acts = [str(a) for a in g.legal_actions(waiting[0]) if str(a).startswith("act ")]
    fits = [a for a in acts if f" {inner} " in f"{a} "] or acts
    return quote(action_words(fits[0], g.cards, lang), lang) if fits else None
