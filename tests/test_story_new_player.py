"""What the story tells a new player (issue 20): who heals, who attacks, one word for honor
marks, and what a standing setting changes — each read as both interfaces show it."""

from __future__ import annotations

from rules_helpers import actions, hp, monster, puzzle, unit

from engine import default_cards, visible
from service import narrate as _narrate


def _lines(ev: list, lang: str, names: tuple[str, ...] = ("Ann",)) -> list[str]:
    return [str(line) for line in
            _narrate.narrate(visible(ev, None), list(names), default_cards(), lang, limit=10_000)]


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
