"""The `expert` level: determinized Monte-Carlo rollouts with `greedy` as the policy.

Where a choice shapes the whole round — the command card (R6, R7) and the initial
placement (R4.4) — the expert samples the hidden parts of its view (ai/determinize.py),
plays each of greedy's best few candidates out with greedy for every seat until its own
next command choice (or the game's end), and keeps the candidate with the best mean
outcome. Every candidate is played on the same samples (common random numbers), so the
comparison is between the choices, not the luck. The rest of the decisions (unit actions,
rolls, recruits) are greedy's: its one-step lookahead already weighs them well and a
rollout there would eat the time budget. `budget` is the wall-clock seconds per decision.
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

from engine import Action, CardSet, Game

from .determinize import determinize
from .evaluate import LOSS, evaluate
from .greedy import GreedyPlayer
from .model import View, cards_of, game_of

WIN = 500.0
SEARCHED = ("pick", "place")


class ExpertPlayer:
    """Greedy everywhere, Monte-Carlo search where the round is decided."""

    level = "expert"

    def __init__(self, seed: int = 0, budget: float = 1.0, width: int = 5,
                 max_samples: int = 64) -> None:
        self.rng = random.Random(seed)
        self.greedy = GreedyPlayer(seed)
        self.policy = GreedyPlayer(seed + 1)
        self.budget = budget
        self.width = width
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
        """Greedy's best `width` answers (all of them for a command choice: at most 5)."""
        if dec["kind"] == "pick":
            return [a for a in legal if a.verb == "pick"]
        scored = sorted(((self.greedy.value(cs, view, seat, a), str(a), a) for a in legal),
                        reverse=True)
        return [a for _, _, a in scored[: self.width]]

    def search(self, view: View, seat: int, dec: dict[str, Any], legal: list[Action]
               ) -> Action:
        t0 = time.perf_counter()
        cs = cards_of(view)
        cands = self.candidates(cs, view, seat, dec, legal)
        if len(cands) == 1:
            return cands[0]
        totals = [0.0] * len(cands)
        n = 0
        # Each sample plays every candidate; stop when the next sample would not fit.
        per_sample = 0.0
        while n < self.max_samples:
            spent = time.perf_counter() - t0
            if n and spent + per_sample > self.budget:
                break
            start = time.perf_counter()
            sample = determinize(cs, view, seat, self.rng)
            seed = self.rng.getrandbits(32)
            for k, a in enumerate(cands):
                totals[k] += self.rollout(cs, sample, seat, a, seed)
            n += 1
            per_sample = max(per_sample, time.perf_counter() - start)
        best = max(range(len(cands)), key=lambda k: (totals[k], -k))
        return cands[best]

    def rollout(self, cs: CardSet, sample: dict[str, Any], seat: int, a: Action,
                seed: int) -> float:
        """Play `a`, then greedy for everyone until `seat` must choose a command card again
        (or the game ends); the value reached, from `seat`'s point of view."""
        g = Game(_copy(sample), cs)
        g.apply(seat, a)
        self.policy.rng.seed(seed)
        rounds = g.state["round"]
        for _ in range(400):
            if g.over:
                break
            dec = g.state["decisions"]
            mine = dec.get(str(seat))
            if mine is not None and mine["kind"] == "pick" and g.state["round"] > rounds:
                break
            who = int(next(iter(dec)))
            # The sample is already a guess, so the policy may read it whole.
            g.apply(who, self.policy.choose(g.state, who))
        if g.over:
            res = g.state["result"]
            if seat in res["winners"]:
                return WIN / (len(res["winners"]) if res["draw"] else 1)
            return LOSS
        return evaluate(cs, g.state, seat)


def _copy(st: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(st))
