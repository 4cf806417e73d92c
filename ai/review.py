"""One decision of a finished game judged by the expert's own rollouts (issue 23, the game
review; service/review.py reviews a whole game with it).

From the position the player answered in — their own view only, as an AI sees a game —
the expert's candidates (ai/expert.py `ExpertPlayer.candidates`: greedy's best few where the
expert searches, greedy's single best where it does not) and the answer the player actually
gave are each played out by `ExpertPlayer.rollout` on the SAME sampled hidden parts
(ai/determinize.py) and the SAME dice (common random numbers), so the differences between
them are the choices', not the luck's. A rollout's value becomes a chance to win as the
hints' do (ai/chance.py, fitted to how games end): a won rollout counts 1, a lost one 0.

What the expert "would have done" is the candidate with the best mean chance on these
samples, i.e. the expert's search answer given this review's samples; it is its greedy
answer outright where the expert does not search (readying, rolls, early unit actions).
The player's cost is how far their answer's mean chance falls short of that one's (0 when
they chose it, never negative). Nothing here reads a secret: the view and the card set only.
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass

from engine import Action, CardSet, Game, parse

from .chance import Chance
from .determinize import determinize
from .evaluate import rounds_left
from .expert import ExpertPlayer
from .model import View, cards_of

# How far each answer is played out: until the seat's command card ROUNDS rounds later, so
# the next round's Invasion is always seen (a castle lost a round after the answer, R9,
# R13.1; tests/test_review.py); to the game's end where the expert itself searches to it
# (the last rounds before a solo deadline, R13.2). docs/review.md, "How a decision is judged".
ROUNDS = 2


@dataclass(frozen=True, slots=True)
class Judged:
    """One decision judged: the answer given and its estimated chance to win afterwards,
    the expert's answer and its chance, and the cost (best − played, ≥ 0)."""

    played: str
    p_played: float
    best: str
    p_best: float
    upper: float = 0.0  # how large the cost may be: `doubt`

    @property
    def cost(self) -> float:
        return max(0.0, self.p_best - self.p_played)


def doubt(played: list[float], others: list[list[float]]) -> float:
    """How costly the answer given may still be after these samples: over the other
    candidates, the largest mean paired difference plus two standard errors (0 with one
    sample or none).

    Why: a first pass of a few samples often scores a late mistake as no mistake at all —
    the answer given happens to do best on those samples — and then never looks again
    (docs/review.md, "Stability"). Where the samples disagree that much, the paired
    differences vary widely, so the bound stays high and the second pass looks again; where
    every sample agrees, it is the cost itself."""
    n = len(played)
    if n < 2:
        return 0.0
    best = 0.0
    for xs in others:
        d = [x - y for x, y in zip(xs, played, strict=True)]
        best = max(best, statistics.fmean(d) + 2.0 * statistics.stdev(d) / math.sqrt(n))
    return best


def candidates(expert: ExpertPlayer, cs: CardSet, view: View, seat: int,
               legal: list[Action]) -> list[Action]:
    """The answers the expert would weigh here: its searched candidates, or greedy's one
    best answer where it does not search (that IS its answer there)."""
    dec = view["decisions"][str(seat)]
    cands = expert.candidates(cs, view, seat, dec, legal)
    if not expert.searched(view, dec["kind"]):
        cands = cands[:1]
    return cands


def judge(view: View, seat: int, played: str, seed: int, samples: int,
          decided_samples: int = 0) -> Judged:
    """`played` (a legal answer of `seat` in its own `view`) against the expert's answer,
    each played out `samples` times on shared samples and dice — or `decided_samples` times
    when one of the first `samples` rollouts reached the game's end. Deterministic per
    seed; the first `samples` samples are the same either way.

    Why more there: a rollout that ends the game scores 0 or 1, so a few samples of an
    answer that changes the outcome one time in five often show no difference at all (four
    samples: 0.8⁴ ≈ 41 %) and a first pass never looks at it again (docs/review.md,
    "Stability")."""
    cs = cards_of(view)
    legal = Game(view, cs).legal_actions(seat)
    expert = ExpertPlayer(seed, defend=True)
    cands = [str(a) for a in candidates(expert, cs, view, seat, legal)]
    if played not in cands:
        cands.append(played)
    by_text = {str(a): a for a in legal}
    rng = random.Random(seed)
    chance = Chance(view)
    values: dict[str, list[float]] = {t: [] for t in cands}
    left = rounds_left(view)
    # the other boards played (ai/expert.py `plays_others`), through the next round as
    # elsewhere (to the end in the 2-player race would double a review's time, docs/review.md)
    full = expert.plays_others(view, seat)
    to_end = left is not None and left <= expert.finish
    n, target, decided = 0, samples, False
    while n < target:
        sample = determinize(cs, view, seat, rng)
        dice = rng.getrandbits(32)
        for text in cands:
            out = expert.rollout(cs, sample, seat, by_text.get(text) or parse(text),
                                 dice, math.inf, to_end, ROUNDS, full=full)
            assert out is not None  # no deadline: a rollout always finishes
            decided = decided or chance.decided(out[0])
            values[text].append(chance(out[0]))
        n += 1
        if n == samples and decided:
            target = max(samples, decided_samples)
    means = {t: sum(v) / n for t, v in values.items()}
    # ties go to the expert's own order (its first candidate is greedy's best)
    best = max(cands, key=lambda t: (means[t], -cands.index(t)))
    upper = doubt(values[played], [v for t, v in values.items() if t != played])
    return Judged(played, means[played], best, means[best], upper)
