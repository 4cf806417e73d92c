"""AI players answer only with listed legal actions, from a view (R3 hidden information)."""

import pytest

from ai import make_player
from engine import Game, view


@pytest.mark.parametrize("players", [1, 2, 4])
def test_random_player_finishes_games_without_a_refusal(players):
    names = ["Ann", "Bob", "Cid", "Dee"][:players]
    for seed in range(3):
        g = Game.new(names, seed=seed)
        bots = [make_player("random", seed * 10 + s) for s in range(players)]
        for _ in range(5000):
            if g.over:
                break
            seat = g.waiting_for()[0]
            g.apply(seat, bots[seat].choose(view(g.state, seat), seat))  # refused → raises
        assert g.over


def test_unknown_level_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown AI level"):
        make_player("godlike")
