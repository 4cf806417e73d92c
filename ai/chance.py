"""A sampled game's value as a chance to win, fitted to how games end (issue 23).

The hints and the review play each answer on for a round or two and score a game still
running by the static evaluation (ai/evaluate.py). That evaluation reads the seat's own
board: in mid-game it is negative whenever monsters stand on it, whatever the game's
prospects. Squashed alone (1 / (1 + e^(−value / 40))) it said 10 % in the third round of a
standard solo game that greedy goes on to win 95 % of the time, and 32 % in the first
round of a Hard game it wins 10 % of the time (`python -m sim.calibrate --check`, fifteenth
session). So the squash is a logistic fitted per setting — solo by difficulty, or the
number of players — on the evaluation and the game's time (rounds left to the solo
deadline, else the round), from greedy games played on to their end
(`python -m sim.calibrate` writes `chance.json`).

For one decision every candidate has the same setting and time, so a better rollout is
never a lower chance (the slope is checked positive). The expert still chooses by its mean
value; a hint keeps to its ranking (ai/advise.py), and the review's means over samples, as
after any change of scale, may order two near-equal candidates the other way.
Values outside the evaluation's range are the rollouts' own results: a won game (ai/expert.py
`WIN`, or its share of a shared win) is 1, a lost one (`LOSS` less its shortfall) is 0.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Final

from .evaluate import LOSS, rounds_left
from .model import View

SCALE: Final = 40.0  # the evaluation in units of this before the fitted logistic
WON: Final = 125.0  # a rollout value this high is a won game's (WIN 500, a 4-way share 125)
DATA_FILE: Final = Path(__file__).with_name("chance.json")


def _load() -> dict[str, tuple[float, float, float, float]]:
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    fits = {k: (float(a), float(b), float(c), float(d)) for k, (a, b, c, d) in data["fits"].items()}
    assert all(b > 0 for _, b, _, _ in fits.values()), "a fitted chance must rise with the value"
    return fits


FITS: Final = _load()


def setting_of(view: View) -> str:
    """The fitted setting a game belongs to: `solo-<difficulty>` (`solo-standard` without
    the option rule, R13.2), else `<n>p`."""
    n = len(view["players"])
    if n == 1:
        return f"solo-{view['options'].get('difficulty') or 'standard'}"
    return f"{n}p"


def time_of(view: View) -> float:
    """The game's time at a decision, in tens of rounds: the rounds left to the solo
    deadline where there is one (R13.2), else the round."""
    left = rounds_left(view)
    return (left if left is not None else int(view["round"])) / 10


def scaled(value: float) -> float:
    """An evaluation in units of `SCALE`, bounded as the fit saw it (sim/calibrate.py)."""
    return max(-15.0, min(15.0, value / SCALE))


def fitted(setting: str, time: float, value: float) -> float:
    """The chance to win of a rollout worth `value`, in `setting` at `time` (see above)."""
    if value >= WON:
        return 1.0
    if value <= LOSS:
        return 0.0
    a, b, c, d = FITS.get(setting, FITS["solo-standard"])
    z = scaled(value)
    return 1.0 / (1.0 + math.exp(-(a + b * z + c * time + d * time * time)))


class Chance:
    """Rollout values → chances to win, for the decisions of one view (one setting, one
    time)."""

    def __init__(self, view: View) -> None:
        self.setting = setting_of(view)
        self.time = time_of(view)

    def __call__(self, value: float) -> float:
        return fitted(self.setting, self.time, value)

    @staticmethod
    def decided(value: float) -> bool:
        """A rollout value that is a game's end (or a position the evaluation already
        calls won or lost): a chance of exactly 0 or 1, the noisiest kind of sample."""
        return value >= WON or value <= LOSS

    def mean(self, values: list[float]) -> float:
        """The share of sampled rollouts won, a running one counted by its chance."""
        return sum(self(v) for v in values) / len(values)
