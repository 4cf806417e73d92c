"""The `expert` level: determinized Monte-Carlo rollouts with `greedy` as the policy.

Where a choice shapes the whole round — the command card (R6, R7) and the initial
placement (R4.4) — the expert samples the hidden parts of its view (ai/determinize.py),
plays each of greedy's best few candidates out with greedy for every seat until its own
next command choice (or the game's end), and keeps the candidate with the best mean
outcome (greedy's best three command cards, its best four placements). Every candidate is played on the same samples (common random numbers), so the
comparison is between the choices, not the luck. The rest of the decisions (unit actions,
rolls, recruits) are greedy's: its one-step lookahead already weighs them well and a
rollout there would eat the time budget. `budget` is the wall-clock seconds per decision
(0.9 by default: at most one greedy answer more is ever spent, so a decision stays ≤ 1 s).
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

from engine import Action, CardSet, Game, State

from .determinize import determinize
from .evaluate import LOSS, evaluate
from .greedy import GreedyPlayer
from .model import View, cards_of, game_of

WIN = 500.0
SEARCHED = ("pick", "place")


class ExpertPlayer:
    """Greedy everywhere, Monte-Carlo search where the round is decided."""

    level = "expert"

    def __init__(self, seed: int = 0, budget: float = 0.9, width: int = 4, picks: int = 3,
                 max_samples: int = 64) -> None:
        self.rng = random.Random(seed)
        self.greedy = GreedyPlayer(seed)
        self.policy = GreedyPlayer(seed + 1)
        self.budget = budget
        self.width = width
        self.picks = picks
        self.max_samples = max_samples

    def choose(self, view: View, seat: int) -> str:
        dec = view["decisions"].get(str(seat))
        legal = game_of(view).legal_actions(seat)
        if dec is None or not legal:
            raise ValueError(f"seat {seat} has no pending decision in this view")
        if dec["kind"] not in SEARCHED:
            return str(self.greedy.best(view, seat, dec, legal))
        return str(self.search(view, seat, dec, legal))

    def candidates(self, cs: CardSet, view: View, seat: int, dec: dict[str, Any],
                   legal: list[Action]) -> list[Action]:
        """Greedy's best `width` answers, best first (`picks` of them for a command card)."""
        if dec["kind"] == "pick":
            scored = [(v, str(a), a) for v, a in self.greedy.pick_scores(cs, view, seat, legal)]
            width = self.picks
        else:
            scored = [(self.greedy.value(cs, view, seat, a), str(a), a) for a in legal]
            width = self.width
        return [a for _, _, a in sorted(scored, reverse=True)[:width]]

    def search(self, view: View, seat: int, dec: dict[str, Any], legal: list[Action]
               ) -> Action:
        """Mean rollout value per candidate over as many samples as the budget allows; a
        sample cut short by the clock is dropped whole, so every candidate is judged on the
        same samples."""
        deadline = time.perf_counter() + self.budget
        cs = cards_of(view)
        cands = self.candidates(cs, view, seat, dec, legal)
        if len(cands) == 1:
            return cands[0]
        totals = [0.0] * len(cands)
        n = 0
        for _ in range(self.max_samples):
            sample = determinize(cs, view, seat, self.rng)
            seed = self.rng.getrandbits(32)
            values = []
            for a in cands:
                v = self.rollout(cs, sample, seat, a, seed, deadline)
                if v is None:
                    break
                values.append(v)
            if len(values) < len(cands):
                break
            totals = [t + v for t, v in zip(totals, values, strict=True)]
            n += 1
        if n == 0:  # no complete sample in the budget: greedy's own choice
            return cands[0]
        best = max(range(len(cands)), key=lambda k: (totals[k], -k))
        return cands[best]

    def rollout(self, cs: CardSet, sample: dict[str, Any], seat: int, a: Action,
                seed: int, deadline: float) -> float | None:
        """Play `a`, then greedy for everyone until `seat` must choose a command card again
        (or the game ends); the value reached, from `seat`'s point of view. None when the
        clock ran out first."""
        g = Game(_copy(sample), cs)
        g.apply(seat, a)
        self.policy.rng.seed(seed)
        rounds = g.state["round"]
        for _ in range(400):
            if g.over:
                break
            if time.perf_counter() > deadline:
                return None
            dec = g.state["decisions"]
            mine = dec.get(str(seat))
            if mine is not None and mine["kind"] == "pick" and g.state["round"] > rounds:
                break
            who = int(next(iter(dec)))
            g.apply(who, self._rollout_answer(g, who, seat))
        res = g.result
        if res is not None:  # the game is over
            if seat in res["winners"]:
                return WIN / (len(res["winners"]) if res["draw"] else 1)
            return LOSS
        return evaluate(cs, g.state, seat)

    def _rollout_answer(self, g: Game, who: int, seat: int) -> str:
        """Greedy for the searching seat and for everyone's command choices (they decide
        which cards the seat leads or follows, R6); the other seats' own boards cannot touch
        the seat's (R1), so there they answer cheaply: ready the best units, keep rolls,
        decline the rest (R15 default answers) — several times more samples per second."""
        st = g.state
        kind = st["decisions"][str(who)]["kind"]
        # The sample is already a guess, so the policy may read it whole.
        if who == seat or kind in ("pick", "place"):
            return self.policy.choose(st, who)
        if kind == "ready":
            dec = st["decisions"][str(who)]
            return str(self.policy.best(st, who, dec, [Action("done")]))
        return "keep" if kind == "roll" else "done"


def _copy(st: View) -> State:
    out: State = json.loads(json.dumps(st))  # a sampled full state (determinize) stays one
    return out
