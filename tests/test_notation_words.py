"""An answer shown to a person (a hint, the review's "the expert would have", a tutorial
button) names cards as the rulebook does, in the reader's language — and typed back, it is
the same answer (docs/notation.md: a card's key or its name in either language). The
console lists its answers to type (`legal`, its examples) the same way."""

from __future__ import annotations

import copy
import random

import pytest

import i18n
from ai import make_player
from cogs.play import card_token
from console.app import COMMANDS
from console.board import legal_lines
from engine import Game, parse
from service.notation import NOTATION_WORDS, action_words, shown, words_typed


@pytest.mark.parametrize("players", [1, 2])
def test_every_shown_answer_names_its_cards_and_plays_back_as_itself(players: int) -> None:
    g = Game.new(["Ann", "Bob"][:players], seed=11 + players,
                 options={"difficulty": "normal"} if players == 1 else None)
    bots = [make_player("greedy", s) for s in range(players)]
    rng = random.Random(players)
    seen_names = 0
    for _ in range(160):
        if g.over:
            break
        seat = g.waiting_for()[0]
        legal = g.legal_actions(seat)
        for a in rng.sample(legal, min(6, len(legal))):
            text = str(a)
            for lang in ("en", "ja"):
                shown = action_words(text, g.cards, lang)
                verb = text.split(" ")[0]  # the verb is never a card: the reader's word for it
                assert shown.split(" ")[0] == (verb if lang == "en" else i18n.t(lang, f"notation.{verb}"))
                if a.card:  # the key never shows: the card's name does
                    assert a.card not in shown.split(" ")[1:] or \
                        g.cards.name(a.card, lang) == a.card
                    assert g.cards.name(a.card, lang) in shown
                    seen_names += 1
                trial = Game(copy.deepcopy(g.state), g.cards)
                trial.apply(seat, words_typed(shown))
                assert trial.state["log"][-1][1] == text, (shown, text)
        g.apply(seat, bots[seat].choose(g.view(seat), seat))
    assert seen_names > 20  # the games offered cards to name (place, recruit, pick)


def test_the_verb_recruit_is_not_the_command_card_recruit() -> None:
    """`recruit` is a verb and the name of a command card (R7.1, 募兵): only the card is
    translated."""
    cs = Game.new(["Ann"], seed=1).cards
    assert action_words("recruit archer 2C", cs, "ja") == "募兵 アーチャー 2C"
    assert action_words("pick recruit", cs, "ja") == "選択 募兵"
    assert action_words("place thief_star 2A", cs, "en") == "place Thief★ 2A"
    assert words_typed("募兵 アーチャー 2C") == "recruit アーチャー 2C"
    assert words_typed("選択 募兵") == "pick 募兵"  # the card keeps its name: the engine reads it
    assert str(parse("recruit アーチャー 2C").verb) == "recruit"


def test_a_japanese_reader_reads_and_types_the_notation_in_japanese() -> None:
    """The Japanese audit: a player acting through `/rr 行動` read `act 1C fullmove to 2B
    attack 2A` back, and typing the skill as the suggestions showed it (「攻撃 6B」) was
    refused. The notation's words are the reader's, and typed in either language they are
    the same answer (full-width too, as an IME types)."""
    cs = Game.new(["Ann"], seed=1).cards
    shown = action_words("act 1C fullmove to 2B attack 2A", cs, "ja")
    assert shown == "行動 1C 全力移動 → 2B 攻撃 2A"
    assert words_typed(shown) == "act 1C fullmove to 2B attack 2A"
    assert words_typed("行動　２Ｂ　攻撃　６Ｂ") == "act ２Ｂ attack ６Ｂ"
    assert words_typed("募兵 傭兵 バード 1A") == "recruit merc バード 1A"
    assert words_typed("自動レベルアップ オフ") == "autosave off"
    assert words_typed("行動\u200b 2B → 3B") == "act 2B to 3B"  # a pasted zero-width space
    assert words_typed("act 1C -> 2C") == "act 1C to 2C"  # the arrow as a keyboard types it
    assert words_typed("act 2B to 3B heal 3B") == "act 2B to 3B heal 3B"  # English as it was
    assert action_words("done", cs, "en") == "done"


def test_the_notation_words_are_one_word_each_and_no_card_or_console_command() -> None:
    """A word typed must mean one thing: per language no two notation words share a
    spelling, none is a card's name (`pick 募兵` names the card Recruit, so the card's
    names are read after the verb as names), and none is a console command (`終了` quits
    the console, so `done` is 完了 in Japanese, as the `/rr 完了` command)."""
    cs = Game.new(["Ann"], seed=1).cards
    names = {cs.name(k, lang).casefold() for lang in i18n.LANGS
             for k in (*cs.units, *cs.monsters)}
    for lang in i18n.LANGS:
        words = [i18n.t(lang, f"notation.{w}") for w in sorted(NOTATION_WORDS)]
        assert len({w.casefold() for w in words}) == len(words), lang
        assert not names & {w.casefold() for w in words}, lang
        assert not set(COMMANDS) & {w.casefold() for w in words}, lang


def test_a_level_up_card_in_hand_is_shown_and_typed_back_as_itself() -> None:
    """A level-up card that fainted goes back to the hand (R9.1, R12.2) and is named
    `Warrior`, where the starting card is `Warrior★`: the name alone would fit both, so the
    game decides by what the hand holds — the shown answer recruits the level-up card."""
    g = Game.new(["Ann", "Bob"], seed=9)
    bots = [make_player("greedy", s) for s in range(2)]
    levelled = {"warrior", "cleric", "sorcerer", "thief"}
    for _ in range(400):
        seat = g.waiting_for()[0]
        offers = [a for a in g.legal_actions(seat) if a.card in levelled]
        if offers:
            break
        g.apply(seat, bots[seat].choose(g.view(seat), seat))
    assert offers, "no level-up card came back to a hand in this game"
    for a in offers:
        for lang in ("en", "ja"):
            shown = action_words(str(a), g.cards, lang)
            assert g.cards.name(str(a.card), lang) in shown and "★" not in shown
            trial = Game(copy.deepcopy(g.state), g.cards)
            trial.apply(seat, words_typed(shown))
            assert trial.state["log"][-1][1] == str(a), (shown, str(a))


def test_the_recruit_commands_card_option_takes_a_mercenary_in_either_language() -> None:
    """The verification audit: `/rr recruit card:傭兵 アーチャー` (a mercenary as the Japanese
    notation shows it) was squeezed into one unknown card name; `merc archer` worked."""
    assert card_token("傭兵 アーチャー") == "merc アーチャー"
    assert card_token("merc  archer") == "merc archer"
    assert card_token("ソード マスター") == "ソードマスター"  # a name typed in two parts


def test_the_console_lists_answers_beginning_as_the_list_shows_them() -> None:
    """The second verification audit: `legal Ann 配置 シーフ★` (as the list shows it) and
    `legal Ann place Thief★` said nothing began so; only the key `thief_star` matched."""
    g = Game.new(["Ann"], seed=3)
    for start in ("配置 シーフ★", "place Thief★", "place thief_star", "ＰＬＡＣＥ シーフ★"):
        lines, _ = legal_lines(g, 0, "ja", words_typed(start))
        assert lines and all(line.startswith("配置 シーフ★") for line in lines), start
    assert legal_lines(g, 0, "ja", words_typed("配置 ウォーリア★"))[0] != lines


def test_ready_reads_as_the_rulebook_says_it_in_japanese():
    """R11.2 / R7: a readied unit is 未行動に戻す in the rulebook; the notation showed 準備,
    which is also the Setup's name (the Discord audit). It shows 未行動, and 準備 typed by
    someone who learned it still reads as `ready`."""
    assert shown("ready", "ja") == "未行動"
    assert words_typed("未行動 1A 1C") == "ready 1A 1C"
    assert words_typed("準備 1A") == "ready 1A"
