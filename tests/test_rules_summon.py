"""Rules tests: Enemy phase ⑥ Summon (R10): order, placement, adjacent summon, waiting queues.
The rulebook's worked examples are on p.22."""

from __future__ import annotations

from typing import Any

from rules_helpers import card, invade, layout, monster, of_type, puzzle, summon, unit

from engine import Game

OTHER_CHIPS = ["B", "B", "C", "C"]


def summon_game(boards: list[dict[str, Any]], deck: list[str], lanes: list[str],
                **top: Any) -> Game:
    """Monster deck `deck` (top first); the next face-down chips are all of `lanes` (the chip
    is drawn at random among the face-down ones, so giving one letter fixes it)."""
    up = ["A", "A", "B", "B", "C", "C"]
    for ln in lanes:
        up.remove(ln)
    return puzzle(boards, monster_deck=[card(k, f"m{n}") for n, k in enumerate(deck)],
                  chips={"down": list(lanes), "up": up}, phase="summon", **top)


def queue(g: Game, lane: str, seat: int = 0) -> list[str]:
    return [c["card"] for c in g.state["players"][seat]["queues"][lane]]


# ---- R10.3 the procedure ------------------------------------------------------------------------

def test_r10_3_two_summons_each_on_every_board_in_the_chips_lane():
    """R10.3 (p.21): reveal a chip, draw the top monster, every player places that monster in
    the chip's lane; twice per round (R10.1)."""
    g = summon_game([{}, {}], ["dullahan", "golem", "goblin"], ["A", "C"])
    summon(g)
    for seat in (0, 1):
        assert set(layout(g, seat).values()) == {"dullahan", "golem"}
    assert layout(g, 0) == layout(g, 1)
    assert {p["id"] for p in g.state["players"][0]["board"] if p} == {"m0", "m1"}
    assert [c["card"] for c in g.state["monster_deck"]] == ["goblin"]
    assert sorted(g.state["chips"]["up"]) == ["A", "A", "B", "B", "C", "C"]


def test_r10_3_chip_lane_decides_where_the_monster_goes():
    """R10.3: the revealed chip's letter is the lane."""
    g = summon_game([{}], ["dullahan", "golem"], ["B", "B"])
    summon(g)
    assert layout(g) == {"6B": "dullahan", "5B": "golem"}


def test_r10_3_all_chips_face_up_are_turned_down_and_shuffled_first():
    """R10.3 ① (p.21): if all six chips are face up, turn them all face down and shuffle
    before revealing one."""
    g = puzzle([{}], monster_deck=[card("goblin", "m1")], phase="summon",
               chips={"down": [], "up": ["A", "A", "B", "B", "C", "C"]})
    ev = summon(g)
    assert of_type(ev, "chips_reshuffled")
    assert len(g.state["chips"]["up"]) == 1 and len(g.state["chips"]["down"]) == 5


# ---- R10.2 placing ------------------------------------------------------------------------------

def test_r10_2_p22_adjacent_summon_one_square_ahead():
    """R10.2 adjacent summon (p.22): a Skeleton that attacked from its magic circle still stands
    on 6A; the Dullahan summoned to lane A goes one square ahead, to 5A."""
    g = summon_game([{"6A": monster("skeleton"), "4A": unit("knight")}], ["dullahan"], ["A"])
    summon(g)
    assert layout(g)["5A"] == "dullahan"


def test_r10_2_p22_adjacent_summon_past_a_row_of_monsters():
    """R10.2 (p.22): with monsters lined up, the adjacent summon goes further ahead."""
    g = summon_game([{"6A": monster("skeleton"), "5A": monster("golem")}], ["dullahan"], ["A"])
    summon(g)
    assert layout(g)["4A"] == "dullahan"


def test_r10_2_same_draw_different_squares_on_different_boards():
    """R10.2 (p.22): placement is board by board: the same monster lands on 6B on one board
    and on 5B on a board whose magic circle is occupied."""
    g = summon_game([{}, {"6B": monster("golem")}], ["wraith"], ["B"])
    summon(g)
    assert layout(g, 0) == {"6B": "wraith"}
    assert layout(g, 1) == {"6B": "golem", "5B": "wraith"}


def test_r10_2_p22_unit_in_front_sends_monsters_to_the_waiting_queue():
    """R10.2 / waiting queue (p.22 'AA'): a unit in front blocks the adjacent summon, so the
    Dullahan and then the Dragon queue up off lane A, in that order."""
    g = summon_game([{"6A": monster("skeleton"), "5A": unit("warrior_star")}],
                    ["dullahan", "dragon"], ["A", "A"])
    summon(g)
    assert layout(g) == {"6A": "skeleton", "5A": "warrior_star"}
    assert queue(g, "A") == ["dullahan", "dragon"]


def test_r10_2_a_lane_full_of_monsters_also_queues():
    """R10.2 [decision]: with no free square up to column 1 the monster queues."""
    full = {f"{c}C": monster("golem") for c in range(1, 7)}
    g = summon_game([full], ["goblin"], ["C"])
    summon(g)
    assert queue(g, "C") == ["goblin"]


# ---- R10.4 / R10.1 queues and order --------------------------------------------------------------

def test_r10_4_p22_queue_is_summoned_first_next_round():
    """R10.4 worked example (p.22): ① in the next Invasion the Skeleton makes the Warrior★ faint
    and its bonus move takes it one square ahead; ② the next Summon first places the queued
    Dullahan (6A) then the Dragon (adjacent, past the Skeleton: 4A), and only then the round's
    summons."""
    g = summon_game([{"6A": monster("skeleton"), "5A": unit("warrior_star", dmg=2)}],
                    ["goblin", "golem"], ["A", "B"],
                    players=[{"board": {"6A": monster("skeleton"),
                                        "5A": unit("warrior_star", dmg=2)},
                              "queues": {"A": [card("dullahan", "q1"), card("dragon", "q2")]}}])
    invade(g)
    assert layout(g) == {"5A": "skeleton"}
    ev = summon(g)
    placed = [(e["square"], e["card"], e["from_queue"]) for e in of_type(ev, "summoned")]
    assert placed[:2] == [("6A", "dullahan", True), ("4A", "dragon", True)]
    assert [p[2] for p in placed[2:]] == [False, False]
    assert queue(g, "A") == []


def test_r10_4_queue_is_first_in_first_out_and_stops_at_the_first_blocked():
    """R10.4 (p.22): oldest first, until one cannot be placed; the rest keep their order."""
    g = summon_game([{}], [], [],
                    players=[{"board": {"5A": unit("knight")},
                              "queues": {"A": [card("golem", "q1"), card("dragon", "q2"),
                                               card("goblin", "q3")]}}])
    summon(g)
    assert layout(g) == {"6A": "golem", "5A": "knight"}
    assert queue(g, "A") == ["dragon", "goblin"]


def test_r10_1_queues_still_empty_when_the_deck_is_exhausted():
    """R10.1 (p.21): once the monster deck is empty nothing more is drawn (no chip revealed),
    but waiting queues are still processed."""
    g = summon_game([{}, {}], [], [],
                    players=[{"queues": {"B": [card("golem", "q1")]}}, {}])
    chips_before = dict(g.state["chips"])
    ev = summon(g)
    assert layout(g) == {"6B": "golem"}
    assert of_type(ev, "chip") == [] and g.state["chips"] == chips_before


def test_r10_1_queues_are_emptied_before_the_new_draws():
    """R10.1: the queue goes first, so the queued monster gets the magic circle and the
    round's draw in the same lane is adjacent-summoned one square ahead of it."""
    g = summon_game([{}], ["goblin"], ["B"], players=[{"queues": {"B": [card("lich", "q1")]}}])
    summon(g)
    assert layout(g) == {"6B": "lich", "5B": "goblin"}
