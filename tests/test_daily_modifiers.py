"""Daily-challenge modifiers are engine setup options; each one changes the starting position
as its name says, and setup + log still replays the game (R15)."""

import json
from pathlib import Path

import pytest

from engine import Game, IllegalAction

DATA = json.loads((Path(__file__).parent.parent / "service/data/daily_modifiers.json")
                  .read_text(encoding="utf-8"))
MODIFIERS = {m["id"]: m for m in DATA["modifiers"]}


def solo(**options):
    return Game.new(["Ann"], seed=11, options=options)


@pytest.mark.parametrize("mod", DATA["modifiers"], ids=lambda m: m["id"])
def test_every_listed_modifier_builds_a_replayable_game(mod):
    assert mod["en"] and mod["ja"]
    g = solo(difficulty="normal", **mod["options"])
    assert g.state["setup"]["options"]["difficulty"] == "normal"
    for k, v in mod["options"].items():
        assert g.state["options"][k] == v
    seat = g.waiting_for()[0]
    g.apply(seat, str(g.legal_actions(seat)[0]))
    again = Game.replay(g.state["setup"], g.state["log"])
    assert again.to_json() == g.to_json()


def test_start_gold_and_honor_change_every_players_purse():
    g = Game.new(["Ann", "Bob"], seed=3, options={"start_gold": 4, "start_honor": 3})
    assert [p["gold"] for p in g.state["players"]] == [4, 4]  # instead of 2 (R4.1)
    assert [p["honor"] for p in g.state["players"]] == [3, 3]  # instead of 1 (R4.1)


def test_an_omitted_command_card_is_never_offered_or_executed():
    g = solo(**MODIFIERS["no_rest"]["options"])
    assert sorted(g.state["row"]) == ["advance", "raid", "recruit", "reward"]
    offered = set()
    for _ in range(3000):
        if g.over:
            break
        seat = g.waiting_for()[0]
        dec = g.decision(seat)
        if dec["kind"] == "pick":
            offered |= set(dec["options"])
        g.apply(seat, str(g.legal_actions(seat)[-1]))
    assert "rest" not in offered and offered
    with pytest.raises(IllegalAction):
        g2 = solo(**MODIFIERS["no_rest"]["options"])
        while g2.decision(0)["kind"] != "pick":
            g2.apply(0, str(g2.legal_actions(0)[0]))
        g2.apply(0, "pick rest")


def test_opening_monster_is_the_first_summoned():
    ev: list = []
    g = Game.new(["Ann"], seed=5, options={"opening_monster": "golem"}, events=ev)
    summoned = [e["card"] for e in ev if e["type"] == "summoned"]
    assert summoned[0] == "golem"  # drawn by the first summon of round 0 (R10.3)
    plain: list = []
    Game.new(["Ann"], seed=5, events=plain)
    first = [e["card"] for e in plain if e["type"] == "summoned"][0]
    assert g.cards.monsters[first].level == 1  # without it, level 1 is on top (R3)
    assert len(g.state["monster_deck"]) + len(summoned) == 12  # no card added or lost


def test_an_empty_levelup_pile_refuses_level_up():
    g = solo(start_honor=5, **MODIFIERS["no_cleric"]["options"])
    assert g.state["levelup_piles"]["cleric"] == []
    g.apply(0, "place cleric 2B")
    while g.decision(0) and g.decision(0)["kind"] == "place":
        g.apply(0, str(g.legal_actions(0)[0]))
    with pytest.raises(IllegalAction, match="(?i)pile|empty"):  # R12.2
        g.apply(0, "levelup 2B")


@pytest.mark.parametrize("options", [{"start_gold": -1}, {"start_gold": "4"},
                                     {"omit_commands": ["dance"]},
                                     {"opening_monster": "kraken"},
                                     {"empty_levelup": ["bard"]}, {"golden": True}])
def test_a_malformed_modifier_is_refused_not_ignored(options):
    with pytest.raises(ValueError):
        solo(**options)


def test_too_few_command_cards_for_the_table_are_refused():
    with pytest.raises(ValueError, match="R6.5"):
        Game.new(["A", "B", "C", "D"], seed=1, options={"omit_commands": ["rest"]})
