"""Rules tests: what the game is, geometry, components, setup and the round (R1–R5)."""

from __future__ import annotations

from collections import Counter

from rules_helpers import (
    actions,
    card,
    expect_error,
    layout,
    main_card,
    monster,
    of_type,
    pieces,
    puzzle,
    settle,
    unit,
)

from engine import Game, IllegalAction

STARS = ["warrior_star", "cleric_star", "sorcerer_star", "thief_star"]


def monsters_on(g: Game, seat: int) -> dict[str, tuple[str, str]]:
    return {sq: (p["id"], p["card"]) for sq, p in pieces(g, seat).items() if "owner" not in p}


# ---- R1 -----------------------------------------------------------------------------------------

def test_r1_every_board_gets_the_same_monsters_in_the_same_lanes():
    """R1: monsters are summoned onto every board identically: same monster, same lane, same
    moment (p.1, p.21). After round 0 of a 4-player game all four boards match."""
    g = Game.new(["a", "b", "c", "d"], seed=11)
    first = monsters_on(g, 0)
    assert len(first) == 2
    for seat in (1, 2, 3):
        assert monsters_on(g, seat) == first


def test_r1_not_cooperative_only_the_declaring_player_wins():
    """R1: competitive, not co-operative (p.1): when the deck is exhausted the player whose
    threat is 8 or less wins alone; the other player does not share the win."""
    g = puzzle([{"5A": monster("goblin")},
                {"5A": monster("dragon"), "5B": monster("lich")}],
               monster_deck=[], decisions={0: actions()}, **main_card("advance", 0, 2))
    g.apply(0, "done")
    assert g.over
    assert g.state["result"]["winners"] == [0]
    assert g.state["result"]["draw"] is False


# ---- R2 -----------------------------------------------------------------------------------------

def test_r2_units_are_placed_only_on_the_home_area():
    """R2: columns 1–2 are the home area; units are only ever placed there (initial
    placement): column 3 is refused, 1A and 2C are fine."""
    g = Game.new(["a"], seed=3)
    msg = expect_error(g, 0, "place thief 3B", IllegalAction, "home area")
    assert "3B" in msg
    g2 = Game.new(["a"], seed=3)
    g2.apply(0, "place thief 1A")
    assert layout(g2)["1A"] == "thief_star"


def test_r2_units_may_move_out_of_home_but_never_onto_a_magic_circle():
    """R2 (p.11): units may move anywhere except the magic circles of column 6."""
    g = puzzle([{"4B": unit("thief_star"), "3C": unit("warrior_star")}],
               decisions={0: actions()}, **main_card("advance", 0, 1))
    expect_error(g, 0, "act 4B to 6B", IllegalAction, "magic circle")
    g.apply(0, "act 4B to 5A")
    assert layout(g)["5A"] == "thief_star"


def test_r2_column_one_is_the_castle_side_monsters_walk_toward_it():
    """R2: columns are numbered from the castle side; monsters move from column 6 toward
    column 1 (a Goblin, MOV 2, on 6A ends on 4A)."""
    from rules_helpers import invade

    g = puzzle([{"6A": monster("goblin")}, {"6A": monster("goblin")}])
    invade(g)
    assert layout(g) == {"4A": "goblin"}


# ---- R3 -----------------------------------------------------------------------------------------

def test_r3_components_of_a_new_two_player_game():
    """R3 (p.4–6): 12 monster cards, 34 unit cards minus the starting hands (undealt ★ cards
    go into the deck), 3 mercenaries, 4 level-up cards per job, 6 face-down summon chips,
    8 medal tokens, a row of the 5 command cards; each player 2 gold, 1 honor token and one
    of each ★ starter in hand."""
    g = Game.new(["a", "b"], seed=5)
    st = g.state
    assert len(st["monster_deck"]) + len(monsters_on(g, 0)) == 12
    deck_and_mercs = st["unit_deck"] + [m for m in st["mercenaries"] if m]
    assert len(deck_and_mercs) == 34 - 8
    assert sum(1 for m in st["mercenaries"] if m) == 3
    stars_left = Counter(c["card"] for c in deck_and_mercs if c["card"] in STARS)
    assert stars_left == Counter({s: 2 for s in STARS})
    assert {j: len(p) for j, p in st["levelup_piles"].items()} == {
        "warrior": 4, "cleric": 4, "sorcerer": 4, "thief": 4}
    assert len(st["chips"]["down"]) + len(st["chips"]["up"]) == 6
    assert sorted(st["medal_pool"]) == [-4, -3, -3, -2, -2, -1, -1, -1]
    assert sorted(st["row"]) == sorted(["advance", "raid", "rest", "reward", "recruit"])
    for p in st["players"]:
        assert (p["gold"], p["honor"]) == (2, 1)
        assert sorted(c["card"] for c in p["hand"]) == sorted(STARS)


def test_r3_monster_deck_is_stacked_level_1_then_2_then_3():
    """R3 (p.4): the monster deck is shuffled per level and stacked 1 on top, then 2, then 3;
    round 0's two summons therefore come from level 1."""
    g = Game.new(["a"], seed=8)
    levels = [g.cards.monsters[c["card"]].level for c in g.state["monster_deck"]]
    assert levels == sorted(levels)
    assert Counter(levels) == Counter({1: 3, 2: 4, 3: 3})
    assert all(g.cards.monsters[c].level == 1 for _, c in monsters_on(g, 0).values())


def test_r3_views_hide_decks_chips_and_other_players_medals():
    """R3 hidden information: deck orders, face-down chips and another player's medal values
    are secret; a player sees its own medals."""
    g = puzzle([{}, {}], player={0: {"medals": [-3]}, 1: {"medals": [-4]}})
    v = g.view(0)
    for secret in ("monster_deck", "unit_deck", "medal_pool", "rng"):
        assert secret not in v
    assert v["monster_deck_size"] == 2
    assert isinstance(v["chips"]["down"], int)
    assert v["players"][0]["medals"] == [-3]
    assert "medals" not in v["players"][1] and v["players"][1]["medal_count"] == 1
    assert "-4" not in str(v)


# ---- R4 -----------------------------------------------------------------------------------------

def test_r4_round_zero_summons_twice_then_everyone_places_at_once():
    """R4.3–4.4 (p.7): round 0 summons two monsters, then every player is asked for the
    initial placement at the same time (nobody waits for another)."""
    g = Game.new(["a", "b", "c"], seed=2)
    assert g.state["round"] == 0
    assert len(monsters_on(g, 0)) == 2
    assert g.waiting_for() == [0, 1, 2]
    assert all(g.decision(s)["kind"] == "place" for s in (0, 1, 2))


def test_r4_initial_placement_is_free_and_round_one_follows():
    """R4.4 (p.7): the initial placement costs nothing; when all have placed, round 1 starts
    with the start player choosing a command card."""
    g = Game.new(["a", "b"], seed=4)
    g.apply(1, "place sorcerer 2C")
    assert g.state["round"] == 0  # still waiting for seat 0
    g.apply(0, "place thief 2B")
    for seat in (0, 1):
        assert g.state["players"][seat]["gold"] == 2
        assert len(g.state["players"][seat]["hand"]) == 3
    assert layout(g, 1)["2C"] == "sorcerer_star"
    assert g.state["round"] == 1 and g.state["phase"] == "main"
    assert g.waiting_for() == [g.state["start_player"]]
    assert g.decision(g.state["start_player"])["kind"] == "pick"


def test_r4_start_player_is_chosen_at_random():
    """R4.2 (p.7): the start player is random: over a few seeds, different seats start."""
    starts = {Game.new(["a", "b", "c", "d"], seed=s).state["start_player"] for s in range(12)}
    assert len(starts) > 1


def test_r4_cards_may_be_named_in_japanese_or_english():
    """R4.4 / CARDS.md 'Names': input accepts either name, case- and ★-insensitively."""
    g = Game.new(["a", "b"], seed=4)
    g.apply(0, "place シーフ★ 2B")
    g.apply(1, "place SORCERER 2C")
    assert layout(g, 0)["2B"] == "thief_star" and layout(g, 1)["2C"] == "sorcerer_star"
    g.apply(g.state["start_player"], "pick 報酬")
    assert g.state["chosen"] == ["reward"]


def test_r4_initial_placement_only_from_the_hand():
    """R4.4: the unit placed comes from the player's hand (the four ★ starters)."""
    g = Game.new(["a"], seed=4)
    expect_error(g, 0, "place knight 2B", IllegalAction, "no 'knight' in your hand")


# ---- R5 -----------------------------------------------------------------------------------------

def test_r5_round_is_main_then_invasion_then_summon_then_end():
    """R5 (p.8–9): a round is the Main phase (4 command cards), then ⑤ Invasion, ⑥ Summon,
    then ⑦ End; the next round follows."""
    g = Game.new(["a", "b"], seed=9)
    ev = []
    for seat in g.waiting_for():
        ev += g.apply(seat, "timeout")
    while g.state["round"] < 2 and not g.over:
        for seat in g.waiting_for():
            ev += g.apply(seat, "timeout")
    phases = [e["phase"] for e in of_type(ev, "phase")]
    assert phases[:5] == ["main", "invasion", "summon", "end", "main"]
    cards_before_invasion = []
    for e in ev:
        if e.get("type") == "phase" and e["phase"] == "invasion":
            break
        if e.get("type") == "card":
            cards_before_invasion.append(e["card"])
    assert len(cards_before_invasion) == 4


def test_r5_the_enemy_phase_asks_nobody_anything():
    """R5 / p.9: in the Enemy phase (Invasion, Summon) players choose nothing: after the last
    command card the flow runs through both phase cards on its own; the next question is an
    End-phase one (here fatigue recovery for the acted unit)."""
    g = puzzle([{"1B": unit("knight", acted=True), "3B": monster("goblin")}], phase="auto",
               round=1, monster_deck=[card("golem", "m1"), card("golem", "m2"),
                                      card("golem", "m3")])
    ev = settle(g)
    assert [e["phase"] for e in of_type(ev, "phase")] == ["invasion", "summon", "end"]
    assert [e["what"] for e in of_type(ev, "resolved")] == ["invasion", "summon"]
    assert g.decision(0)["kind"] == "ready" and g.decision(0)["card"] == "fatigue"


def test_r5_hand_cards_listed_in_the_state_are_public():
    """R3/R7.1 (p.16): the hand is public information: another player's view shows it."""
    g = puzzle([{}, {}], player={1: {"hand": [card("knight", "u9")]}})
    assert [c["card"] for c in g.view(0)["players"][1]["hand"]] == ["knight"]


def test_r15_a_custom_card_set_in_any_key_order_replays_from_the_stored_json():
    """A group's own card file (R3) may list cards in any order: the saved game (keys sorted
    by to_json) must still replay to the same state."""
    import json as _json
    from pathlib import Path as _Path

    from engine import Game as _Game
    data = _json.loads((_Path(__file__).parent.parent / "engine/data/cards.json").read_text())
    data["monsters"] = dict(reversed(list(data["monsters"].items())))
    data["units"] = dict(reversed(list(data["units"].items())))
    g = _Game.new(["Ann", "Bob"], seed=3, cards_data=data)
    for _ in range(40):
        seat = g.waiting_for()[0]
        g.apply(seat, str(g.legal_actions(seat)[-1]))
    saved = _json.loads(g.to_json())
    again = _Game.replay(saved["setup"], saved["log"])
    assert again.to_json() == g.to_json()
