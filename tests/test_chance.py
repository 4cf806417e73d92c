"""The chance to win that hints and reviews show (issue 23, ai/chance.py): fitted to how
games end, so a player is not told 10 % in a game greedy wins 19 times in 20."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from ai.advise import advise
from ai.chance import FITS, LOSS, WON, Chance, fitted
from ai.greedy import GreedyPlayer
from engine import Game
from sim.calibrate import SETTINGS, main, points


@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_the_chance_rises_with_the_position_and_keeps_a_rollouts_result(setting):
    """Within one decision (one setting, one time) a better evaluation is never a lower
    chance, so a hint's suggestion never reads worse than the obvious answer; a won
    rollout (ai/expert.py WIN, or a share) is 1 and a lost one (R13.1, R14) 0."""
    assert setting in FITS
    for time in (0.0, 0.3, 0.6, 1.0, 1.4):
        values = [LOSS + 1 + 10 * k for k in range(int((WON - LOSS) / 10))]
        chances = [fitted(setting, time, v) for v in values]
        assert all(0.0 <= c <= 1.0 for c in chances)
        assert chances == sorted(chances), (setting, time)
        assert fitted(setting, time, WON) == 1.0 == fitted(setting, time, 500.0)
        assert fitted(setting, time, LOSS) == 0.0 == fitted(setting, time, LOSS - 40)


@pytest.mark.slow  # six greedy games, each position played on to the end: ~3 s
def test_the_fitted_chance_is_closer_to_how_games_end_than_the_squash():
    """Other seeds than the fit's (which used 1–150): standard solo games (R13.1), where the
    old squash of the evaluation read about a third though greedy wins almost all, and Hard
    (R13.2), where it read too high early on. The fitted chance's mean squared error against
    the games' ends is smaller in both."""
    for setting, seeds in (("solo-standard", range(9001, 9004)), ("solo-hard", range(9001, 9004))):
        pts = points(setting, seeds)
        assert len(pts) >= 15, (setting, len(pts))
        squash = sum((1 / (1 + math.exp(-z)) - won) ** 2 for _, z, won in pts) / len(pts)
        fit = sum((fitted(setting, t, z * 40.0) - won) ** 2 for t, z, won in pts) / len(pts)
        assert fit < squash, (setting, fit, squash)


@pytest.mark.parametrize(("options", "low", "high"), [
    (None, 0.7, 1.0),  # standard solo (R13.1): greedy wins about 93 %; the squash said 44 %
    ({"difficulty": "hard"}, 0.0, 0.35),  # Hard (R13.2): greedy wins about 10 %
])
def test_the_first_command_cards_hint_says_how_such_games_go(options, low, high):
    """The chance a hint shows at a solo game's first command card is near the share of such
    games greedy wins (docs/balance.md), in the easiest setting and in a hard one."""
    g = Game.new(["Ann"], seed=11, options=options)
    p = GreedyPlayer(11)
    while g.decision_kind(0) != "pick":
        g.apply(0, p.choose(g.view(0), 0))
    a = advise(g.view(0), 0, seed=3, budget=60.0)
    assert low <= a.p_before <= a.p_after <= high, a
    assert Chance(g.view(0)).setting == ("solo-hard" if options else "solo-standard")


def test_calibrate_answers_bad_input_in_one_line_and_writes_nothing(tmp_path, capsys):
    """`python -m sim.calibrate`: a points file that is not one, or lacks a setting, is a
    one-line refusal; ai/chance.json is left as it was."""
    before = (Path(__file__).parents[1] / "ai" / "chance.json").read_bytes()
    bad = tmp_path / "points.json"
    for text, code in (('{"2p": ', 2), ('{"2p": [1, 2]}', 2), ('{"2p": [[0.1, -1.0, 1.0]]}', 1)):
        bad.write_text(text)
        assert main(["--points", str(bad)]) == code
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err, err
    assert main(["--games", "0"]) == 2
    assert (Path(__file__).parents[1] / "ai" / "chance.json").read_bytes() == before
