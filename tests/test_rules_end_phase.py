"""Rules tests: End phase ⑦ (R11): support, fatigue recovery, mercenary reset, command reset,
start player. The rulebook's worked support example is on p.23."""

from __future__ import annotations

from typing import Any

from rules_helpers import (
    at,
    card,
    expect_error,
    monster,
    of_type,
    puzzle,
    settle,
    unit,
)

from engine import Game, IllegalAction

ROW = ["advance", "raid", "rest", "reward", "recruit"]


def with_monsters(n: int, queued: int = 0, hurt: bool = True) -> dict[str, Any]:
    """A player with `n` monsters on the board (lane C, from 6C down) plus `queued` in lane A's
    queue, and a damaged Knight on 1A (so that support would matter)."""
    b: dict[str, Any] = {f"{6 - k}C": monster("golem") for k in range(n)}
    b["1A"] = unit("knight", dmg=2 if hurt else 0)
    return {"board": b, "queues": {"A": [card("goblin", f"q{k}") for k in range(queued)]}}


def end_game(players: list[dict[str, Any]], **top: Any) -> Game:
    g = puzzle([{} for _ in players], phase="end", step="support", round=3, row=list(ROW),
               players=players, **top)
    settle(g)
    return g


def supported(g: Game) -> list[int]:
    return [s for s in g.waiting_for() if g.decision(s)["kind"] == "support"]


# ---- R11.1 support ------------------------------------------------------------------------------

def test_r11_1_p23_four_players_4_3_3_2_only_the_player_with_4_is_supported():
    """R11.1 worked example (p.23): 4 players with 4, 3, 3, 2 monsters (board plus waiting
    queue): two may be supported, but the tie for second would let three in, so only the player
    with 4 is supported."""
    g = end_game([with_monsters(3), with_monsters(3, queued=1), with_monsters(2, queued=1),
                  with_monsters(2)])  # counts 3, 4, 3, 2
    assert supported(g) == [1]


def test_r11_1_four_players_two_supported_and_queues_count():
    """R11.1 (p.23): with 4 players the top two are supported; monsters in the waiting queues
    count like those on the board."""
    g = end_game([with_monsters(1, queued=4), with_monsters(4), with_monsters(3),
                  with_monsters(2)])
    assert supported(g) == [0, 1]


def test_r11_1_four_players_tie_for_first_of_two_is_fine():
    """R11.1 (p.23): two players tied for first with 4 players fit the two places."""
    g = end_game([with_monsters(4), with_monsters(2), with_monsters(4), with_monsters(3)])
    assert supported(g) == [0, 2]


def test_r11_1_two_or_three_players_one_supported_tie_for_first_supports_nobody():
    """R11.1 (p.23): 2–3 players: one player is supported; a tie for first leaves that rank out
    (and nobody else gets it)."""
    g = end_game([with_monsters(2), with_monsters(5), with_monsters(3)])
    assert supported(g) == [1]
    g = end_game([with_monsters(5), with_monsters(5), with_monsters(3)])
    assert supported(g) == []
    assert g.state["round"] == 4  # nobody was asked: the End phase ran through


def test_r11_1_count_only_players_still_in_the_game():
    """R11.1 / R9.3 (p.19): support follows the number of players still in the game: a
    4-player game with one eliminated supports only one player."""
    out = with_monsters(6)
    out["eliminated"] = True
    g = end_game([with_monsters(4), with_monsters(3), with_monsters(2), out])
    assert supported(g) == [0]


def test_r11_1_support_heals_one_damage_optionally_and_needs_a_damaged_unit():
    """R11.1 (p.23): the supported player may heal 1 HP of one unit ('may': 'done' declines);
    a supported player with no damaged unit is simply skipped."""
    g = end_game([with_monsters(3), with_monsters(1)])
    assert supported(g) == [0]
    expect_error(g, 0, "support 2B", IllegalAction, "no damaged unit")
    g.apply(0, "support 1A")
    assert at(g, "1A")["dmg"] == 1
    g2 = end_game([with_monsters(3, hurt=False), with_monsters(1)])
    assert supported(g2) == []


def test_r11_1_no_support_with_one_player():
    """R11.1 (p.23): support is skipped with 1 player."""
    g = end_game([with_monsters(5)])
    assert supported(g) == []


# ---- R11.2 fatigue recovery -----------------------------------------------------------------------

def test_r11_2_each_player_readies_up_to_two_acted_units_after_support():
    """R11.2 (p.23): after support, every player may ready up to 2 acted units, all at once."""
    acted = {"1A": unit("knight", acted=True, dmg=1), "1B": unit("knight", acted=True),
             "1C": unit("knight", acted=True)}
    g = end_game([{"board": {**acted, "6A": monster("golem")}}, {"board": dict(acted)}])
    assert supported(g) == [0]
    g.apply(0, "support 1A")
    assert [g.decision(s)["kind"] for s in (0, 1)] == ["ready", "ready"]
    assert g.decision(0)["card"] == "fatigue" and g.decision(0)["n"] == 2
    expect_error(g, 1, "ready 1A 1B 1C", IllegalAction, "at most 2")
    g.apply(1, "ready 1A 1B")
    g.apply(0, "ready 1C")
    assert [at(g, sq, 1)["acted"] for sq in ("1A", "1B", "1C")] == [False, False, True]
    assert [at(g, sq, 0)["acted"] for sq in ("1A", "1B", "1C")] == [True, True, False]


# ---- R11.3 mercenary reset ------------------------------------------------------------------------

def test_r11_3_mercenaries_discarded_and_three_new_revealed():
    """R11.3 (p.23): the mercenaries still on offer go to the discard pile, 3 new ones are
    revealed from the unit deck."""
    g = end_game([{}, {}], mercenaries=[card("bard", "b1"), None, card("lancer", "l1")],
                 unit_deck=[card("archer", f"a{k}") for k in range(4)])
    assert [m["id"] for m in g.state["mercenaries"]] == ["a0", "a1", "a2"]
    assert [c["id"] for c in g.state["discard"]] == ["b1", "l1"]


def test_r11_3_an_empty_unit_deck_is_rebuilt_from_the_discard_pile():
    """R11.3 (p.23): when the unit deck runs out, the discard pile is shuffled into a new deck
    and the reveal goes on."""
    g = end_game([{}, {}], mercenaries=[card("bard", "b1"), card("bard", "b2"), None],
                 unit_deck=[card("archer", "a0")],
                 discard=[card("knight", "k1"), card("knight", "k2")])
    ids = sorted(m["id"] for m in g.state["mercenaries"])
    assert "a0" in ids and len(ids) == 3
    assert sorted(ids + [c["id"] for c in g.state["unit_deck"]]) == ["a0", "b1", "b2", "k1",
                                                                     "k2"]
    assert g.state["discard"] == []


def test_r11_3_a_deck_the_reveal_empties_is_rebuilt_at_once():
    """R11.3 (p.23: 「山札がなくなった場合、捨て札をシャッフルして新たな山札にしてください」):
    a reset that takes the deck's last 3 cards leaves it empty, so the discard pile — the
    mercenaries just discarded included — becomes the new deck at once, not at the next
    reveal (by then the discards would have grown). A game stored under the earlier reading
    (`setup.rules` 1, or none) replays as it was played."""
    def ended(rules: int) -> Game:
        g = end_game([{}, {}], mercenaries=[card("bard", "b1"), None, card("lancer", "l1")],
                     unit_deck=[card("archer", f"a{k}") for k in range(3)],
                     discard=[card("knight", "k1")],
                     setup={"players": ["P0", "P1"], "seed": 7, "rules": rules})
        assert [m["id"] for m in g.state["mercenaries"]] == ["a0", "a1", "a2"]
        return g
    now = ended(2)
    assert sorted(c["id"] for c in now.state["unit_deck"]) == ["b1", "k1", "l1"]
    assert now.state["discard"] == []
    before = ended(1)  # rebuilt only when the next reveal needs a card
    assert before.state["unit_deck"] == []
    assert sorted(c["id"] for c in before.state["discard"]) == ["b1", "k1", "l1"]


# ---- R11.4 command reset --------------------------------------------------------------------------

def test_r11_4_the_row_is_reshuffled_with_fewer_than_four_players():
    """R11.4 (p.23): the 5 command cards are shuffled into a new row (2 players here)."""
    g = end_game([{}, {}])
    assert sorted(g.state["row"]) == sorted(ROW) and g.state["row"] != ROW


def test_r11_4_the_row_stays_with_four_players():
    """R11.4 (p.23): with 4 players the row order does not matter and stays as it is."""
    g = end_game([{}, {}, {}, {}])
    assert g.state["row"] == ROW


def test_r11_4_a_four_player_game_down_to_three_reshuffles():
    """R11.4 [decision]: the skip applies only while 4 players are still in the game (with 3
    left, the row decides which card runs AUTO and which is never executed)."""
    g = end_game([{}, {}, {"eliminated": True}, {}])
    assert sorted(g.state["row"]) == sorted(ROW) and g.state["row"] != ROW


# ---- R11.5 start player ---------------------------------------------------------------------------

def test_r11_5_start_player_passes_clockwise_skipping_eliminated_players():
    """R11.5 (p.23): the start player passes to the next player clockwise (left); eliminated
    players are skipped (R9.3)."""
    g = end_game([{}, {}, {}, {}], start_player=3)
    assert g.state["start_player"] == 0 and g.waiting_for() == [0]
    g = end_game([{}, {"eliminated": True}, {}], start_player=0)
    assert g.state["start_player"] == 2 and g.state["turn_order"] == [2, 0]


def test_r11_5_solo_start_player_stays():
    """R11.5: skipped with 1 player."""
    g = end_game([{}])
    assert g.state["start_player"] == 0 and g.state["round"] == 4


def test_r11_order_support_then_fatigue_then_resets():
    """R11 (p.23): support ① comes before fatigue recovery ②, and both before the mercenary
    reset ③ and the new round."""
    acted = {"1A": unit("knight", acted=True, dmg=1), "6C": monster("golem")}
    g = end_game([{"board": dict(acted)}, {}], unit_deck=[card("archer", "a0")])
    assert g.decision(0)["kind"] == "support"
    assert g.state["mercenaries"] == [None, None, None]
    g.apply(0, "done")
    assert g.decision(0)["kind"] == "ready"
    assert g.state["mercenaries"] == [None, None, None]
    ev = g.apply(0, "done")
    kinds = [e["type"] for e in ev]
    assert kinds.index("mercenaries") < kinds.index("phase")  # reveal, then the next round
    assert of_type(ev, "phase")[0]["phase"] == "main"
    assert g.state["round"] == 4
