"""What the story tells a new player (issue 20): who heals, who attacks, one word for honor
marks, and what a standing setting changes — each read as both interfaces show it."""

from __future__ import annotations

import json
from pathlib import Path

from rules_helpers import (
    actions,
    card,
    cost,
    decision,
    hp,
    invade,
    main_card,
    monster,
    puzzle,
    unit,
)

import i18n
from engine import default_cards, visible
from service import narrate as _narrate


def _lines(ev: list, lang: str, names: tuple[str, ...] = ("Ann",), seat: int | None = None,
           ) -> list[str]:
    """The story as `seat` reads it (None: the public story)."""
    return [str(line) for line in
            _narrate.narrate(visible(ev, seat), list(names), default_cards(), lang, limit=10_000)]


def test_a_heal_skill_names_its_healer_and_the_healed_unit() -> None:
    """Issue 20 / R8.2 heal ×N: "Cleric★ on 2B heals Swordmaster on 3C: 1 (HP 3/3)" — the
    healer and the unit healed are both named, in both languages."""
    full = hp("swordmaster")
    g = puzzle([{"2B": unit("cleric_star"), "2C": unit("swordmaster", dmg=1)}],
               decisions={0: actions()})
    ev = g.apply(0, "act 2B heal 2C")
    assert f"Ann: Cleric★ on 2B heals Swordmaster on 2C: 1 (HP {full}/{full})." in _lines(ev, "en")
    assert (f"Ann: 2Bのクレリック★が2CのソードマスターのHPを1回復（HP {full}/{full}）。"
            in _lines(ev, "ja"))


def test_a_heal_of_two_on_one_unit_is_told_once() -> None:
    """R8.2 heal ×N: the levelled Cleric's three points, two on one Warrior★, read as one
    heal of 2 with the HP it ends with, and one of 1 on the Cleric itself — not as three
    heals (the new-player audit read a ×2 heal on one unit as two)."""
    full = hp("warrior_star")
    g = puzzle([{"1A": unit("cleric", dmg=1), "5C": unit("warrior_star", dmg=2)}],
               decisions={0: actions()})
    ev = g.apply(0, "act 1A heal 1A,5C,5C")
    en = [line for line in _lines(ev, "en") if " heals " in line]
    assert en == [f"Ann: Cleric on 1A heals itself: 1 (HP {hp('cleric')}/{hp('cleric')}).",
                  f"Ann: Cleric on 1A heals Warrior★ on 5C: 2 (HP {full}/{full})."], en
    ja = [line for line in _lines(ev, "ja") if "回復" in line]
    assert ja[1] == f"Ann: 1Aのクレリックが5Cのウォーリア★のHPを2回復（HP {full}/{full}）。", ja


def test_an_allocated_attack_names_its_attacker_on_every_hit() -> None:
    """Issue 20 / R8.2 allocated ×N: each point of damage is told with the Swordmaster who
    dealt it, not as damage out of nowhere."""
    g = puzzle([{"2B": unit("swordmaster"), "3B": monster("skeleton"), "2C": monster("goblin")}],
               decisions={0: actions()})
    ev = g.apply(0, "act 2B attack 3B,2C")
    en = _lines(ev, "en")
    hits = [line for line in en if "damage" in line]
    assert len(hits) == 2 and all(line.startswith("Ann: Swordmaster on 2B hits ") for line in hits)
    ja = " ".join(_lines(ev, "ja"))
    assert ja.count("2Bのソードマスターの攻撃") == 2


def test_leading_rest_gains_an_honor_mark_in_the_rulebooks_words() -> None:
    """Issue 20: one word for honor marks everywhere (R12): the Rest leader's gain is an
    honor mark (栄誉マーク), never an "honor token"."""
    ev = [{"type": "honor", "player": 0, "amount": 1}]
    assert _lines(ev, "en") == ["Ann +1 honor mark."]
    assert "栄誉マーク" in _lines(ev, "ja")[0] and "トークン" not in _lines(ev, "ja")[0]


def test_the_recruit_prompt_lists_the_mercenaries_on_offer_with_their_costs() -> None:
    """Issue 20 / R7.1: a leader may recruit a mercenary; the question says which are on
    offer and what each costs (a taken one leaves an empty slot, not named)."""
    g = puzzle([{}, {}], decisions={0: decision("recruit", card="recruit", mercenaries=True,
                                                  again=False)},
               player={0: {"gold": 4, "hand": [card("warrior_star", "w")]}},
               mercenaries=[card("archer", "a"), None, card("knight", "k")],
               **main_card("recruit", 0, 2))
    en = str(_narrate.prompt(g, 0, "en"))
    assert f"a mercenary: Archer ({cost('archer')} gold), Knight ({cost('knight')} gold)" in en
    ja = str(_narrate.prompt(g, 0, "ja"))
    assert f"傭兵: アーチャー（{cost('archer')}金）、ナイト（{cost('knight')}金）" in ja


def test_a_first_castle_invasion_warns_that_a_second_one_eliminates() -> None:
    """Issue 20 / R9.2 ④: with 2–4 players the first ordinary monster in the castle leaves
    the player in, and the story warns that the next one eliminates them."""
    g = puzzle([{"1A": monster("golem")}, {}])
    en = _lines(invade(g), "en", ("Ann", "Bob"))
    warn = [line for line in en if "second monster in the castle" in line]
    assert warn and "Ann" in warn[0] and "eliminates" in warn[0]
    ja = " ".join(_lines(invade(puzzle([{"1A": monster("golem")}, {}])), "ja", ("Ann", "Bob")))
    assert "2体目" in ja and "脱落" in ja
    # the second one eliminates: no warning then, the elimination is told
    g2 = puzzle([{"1A": monster("goblin")}, {}, {}], player={0: {"castle": [card("golem", "m9")]}})
    en2 = " ".join(_lines(invade(g2), "en", ("Ann", "Bob", "Cat")))
    assert "second monster in the castle" not in en2 and "Ann is eliminated" in en2


def test_the_rolls_setting_says_what_it_changes() -> None:
    """Issue 20 / R12.1: `rolls always` says it now asks after any roll a boon could improve,
    `rolls miss` that only a miss is asked about — to the player only."""
    g = puzzle([{"2B": unit("warrior_star")}], decisions={0: actions()})
    ev = g.apply(0, "rolls always")
    assert any("not only a miss" in line for line in _lines(ev, "en", seat=0))
    assert any("外れのときだけでなく" in line for line in _lines(ev, "ja", seat=0))
    assert _lines(ev, "en") == []  # nobody else is told
    ev = g.apply(0, "rolls miss")
    assert any("only after a miss" in line for line in _lines(ev, "en", seat=0))


def test_help_covers_levelup_autosave_rolls_and_rules() -> None:
    """Issue 20: the console's `help` names every command a player can type, in both
    languages (levelup, autosave, rolls, and rules for a cited rule id)."""
    for lang in ("en", "ja"):  # the notation's words as the reader is shown them
        words = i18n.t(lang, "console.help")
        for verb in ("levelup", "autosave on|off", "rolls miss|always"):
            said = " ".join("|".join(i18n.t(lang, f"notation.{w}") for w in part.split("|"))
                            for part in verb.split(" "))
            assert said in words, (lang, said)
        assert "rules" in words


def test_a_modifier_that_removes_a_command_card_says_solo_runs_three_a_round() -> None:
    """Issue 20 / R6 (p.8): without Rest or Reward the row holds four cards and its last card
    never runs, so a solo round runs three commands: the modifier's text says so."""
    mods = json.loads((Path(__file__).resolve().parents[1] / "service" / "data"
                       / "daily_modifiers.json").read_text(encoding="utf-8"))["modifiers"]
    removing = [m for m in mods if m["options"].get("omit_commands")]
    assert {m["id"] for m in removing} >= {"no_rest", "no_reward"}
    for m in removing:
        assert "three commands a round" in m["en"] and "last card never runs" in m["en"]
        assert "1ラウンドに3コマンド" in m["ja"] and "最後の1枚が実行されず" in m["ja"]
