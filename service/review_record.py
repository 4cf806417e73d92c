"""A game's review as it is kept and read: each person's decisions judged, and which of them
are named as mistakes (issue 23; docs/review.md).

Why its own room: what a review *is* — its figures, its stored layout, the naming rule a
player reads — is shared by the judging (service/review_looks.py), the hosting that stores
it (service/review.py) and the words (service/review_words.py), and changes for reasons of
its own (a new naming rule is read from every stored review; a new layout bumps FORMAT).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import View

GOOD = 0.10  # a decision that costs this much chance to win (or more) scores 0 accuracy
TOP = 3  # the costliest decisions shown
NAMED = 0.125  # a named mistake costs at least this much: two reviews' costs of one
# decision differed by 4-5 points at the median and about 10 at the 90th percentile, so a
# cost of 5-12 points was named by one review of two and not the other
TIE = 0.10  # two costs closer than this are one size: within one review's noise (Stability)
FORMAT = 3  # the stored review's layout and reading: 2 judges only typed answers
# (`decisions`); 3 plays the other seats' units in the rollouts (ai/expert.py `defended`); a
# stored review of an older format is computed again when asked for, and replaces it


@dataclass(frozen=True, slots=True)
class Decision:
    """One answer of a person's seat to review: where it is in the log, the round, the kind
    of decision (engine decision kinds), the seat's own view before it and the answer."""

    index: int
    seat: int
    round: int
    kind: str
    view: View
    played: str
    hinted: bool = False  # the answer a hint suggested for it: the expert's, not judged
    end_round: int = 0  # the round the game ended in (`first_look`; 0: not known)


@dataclass(frozen=True, slots=True)
class Point:
    """A decision judged: the chance to win after the answer given and after the expert's."""

    index: int
    round: int
    kind: str
    played: str
    p: float
    best: str
    p_best: float
    upper: float = 0.0  # how large the cost may be (ai/review.py `doubt`); not stored

    @property
    def cost(self) -> float:
        return max(0.0, self.p_best - self.p)

    def to_json(self) -> list[Any]:
        return [self.index, self.round, self.kind, self.played, round(self.p, 4), self.best,
                round(self.p_best, 4)]

    @classmethod
    def from_json(cls, x: Sequence[Any]) -> Point:
        p, p_best = float(x[4]), float(x[6])
        if not (0.0 <= p <= 1.0 and 0.0 <= p_best <= 1.0):  # NaN too: a damaged row whose
            raise ValueError(f"no chance to win: {p!r}, {p_best!r}")  # words cannot be said
        return cls(int(x[0]), int(x[1]), str(x[2]), str(x[3]), p, str(x[5]), p_best)


@dataclass(frozen=True, slots=True)
class SeatReview:
    """One person's decisions judged, in the order they were made."""

    seat: int
    points: list[Point]
    hinted: int = 0  # answers that followed a hint, left out (`decisions`)

    @property
    def accuracy(self) -> float:
        """0–100: the mean over the decisions of 1 − cost ÷ GOOD (at least 0); 100 for a
        player who always chose as the expert would, or as well (docs/review.md)."""
        if not self.points:
            return 100.0
        return 100.0 * sum(max(0.0, 1.0 - p.cost / GOOD) for p in self.points) / len(self.points)

    def mistakes(self, n: int = TOP) -> list[Point]:
        """One decision of each of the `n` rounds that cost the most (decisions costing at
        least NAMED): the round's first answer that cost about as much as its costliest
        (within TIE); among rounds of about one cost, the earlier ones. Shown costliest
        first (the chart numbers them so).

        Why one a round: a seat's answers in one round are one plan, and when it fails they
        often cost alike (each alone would have saved the castle); three of them would say
        one thing three times, in an order the noise decides, and hide the round that went
        wrong elsewhere. Why the first among about equals: two costs closer than TIE are
        inside one review's noise, so "the costliest" of them is a coin the next review
        tosses again; the first chance to avoid the loss is the one to learn from, and it is
        the same in every review (docs/review.md, "Stability")."""
        by_round: dict[int, list[Point]] = {}
        for p in self.points:
            if p.cost >= NAMED:
                by_round.setdefault(p.round, []).append(p)
        rounds: list[tuple[float, int, Point]] = []
        for r, pts in by_round.items():
            top = max(p.cost for p in pts)
            first = min((p for p in pts if p.cost >= top - TIE), key=lambda p: p.index)
            rounds.append((top, r, first))
        rounds.sort(key=lambda t: (-t[0], t[1]))
        named: list[Point] = []
        while rounds and len(named) < n:
            cut = rounds[0][0] - TIE  # the costliest left, and every round about as costly
            tied = sorted((t for t in rounds if t[0] >= cut), key=lambda t: t[1])
            named += [p for _, _, p in tied][:n - len(named)]
            rounds = [t for t in rounds if t[0] < cut]
        return sorted(named, key=lambda p: (-p.cost, p.index))

    def marks(self) -> list[int]:
        """Where the named mistakes are among `points`, costliest first (the chart's ①②③)."""
        return [self.points.index(p) for p in self.mistakes()]


@dataclass(frozen=True, slots=True)
class Review:
    """A game's review: one SeatReview per person's seat, and how it was computed."""

    game: int
    seats: list[SeatReview]
    samples: int
    seed: int
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "game": self.game, "samples": self.samples, "seed": self.seed,
                "seats": {str(s.seat): [p.to_json() for p in s.points] for s in self.seats},
                "hinted": {str(s.seat): s.hinted for s in self.seats if s.hinted}}

    @classmethod
    def from_json(cls, x: Mapping[str, Any]) -> Review:
        if x.get("format") != FORMAT:
            raise ValueError(f"unknown review format {x.get('format')!r}")
        hinted = x.get("hinted") or {}
        seats = [SeatReview(int(k), [Point.from_json(p) for p in v], int(hinted.get(k, 0)))
                 for k, v in sorted(x["seats"].items(), key=lambda kv: int(kv[0]))]
        if any(s.seat < 0 for s in seats):  # a damaged row: seat -1 named the last seat's
            raise ValueError("a seat number below 0")  # player (the fault-injection audit)
        return cls(int(x["game"]), seats, int(x["samples"]), int(x["seed"]))
