"""How a review judges a game: which answers are a person's decisions, and how many samples
each is looked at with (the three looks), the same for the bot, the console, the bench and
the tests (issue 23; how and why: docs/review.md, "How a decision is judged").

Why its own room: the looks are the review's cost and its stability, tuned against each
other with bench/review.py; the hosting (service/review.py) only decides where the jobs run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import replace
from typing import Any

import ai.review
from engine import Action, ActionError, Game, board, parse

from .review_record import NAMED, Decision, Point, Review, SeatReview

SAMPLES = 4  # rollouts per candidate per decision, every decision: docs/review.md, "Stability"
DECIDED_FACTOR = 4  # … this many times a look's samples where one of them ended the game, and
LATE = 3  # … from the first look on in the game's last LATE rounds, where it was decided
RECHECK = 10  # each seat's decisions that may cost the most (`Point.upper`) looked at again …
RECHECK_FACTOR = 4  # … with this many times the samples, if they may cost anything at all:
DOUBT = 0.0001  # a hundredth of a point (`Point.upper` under it: no answer was better)
SETTLE = 3  # each seat's decisions whose naming is in doubt looked at a third time …
SETTLE_FACTOR = 4  # … with this many times the second look's samples


def decisions(setup: Mapping[str, Any], log: Sequence[Sequence[Any]],
              seats: Sequence[int], authors: Sequence[int | None] | None = None,
              hints: Mapping[tuple[int, int], str] | None = None) -> list[Decision]:
    """Every answer of `seats` that a person chose: two or more legal answers, the one given
    among them, typed by someone (`authors`, the store's per entry: None where nobody did).
    Each with the seat's view before it.

    Left out, since no person chose them: the answers the service gave on its own (a
    decision with one sensible answer, `Game.trivial_action`, service/outcomes.py
    `auto_answers`), an AI's answers for a person's seat (zombie mode, after a time-out),
    default answers at a time-out, standing orders and resignations. Judging them named the
    service's and the AI's answers as the player's mistakes (the learning audit).

    An answer that followed a hint (`hints`: the suggestion by seat and decision id,
    service/hints.py `hinted`) is marked `hinted`: it is the expert's own answer, and
    judging it against the review's expert — more samples, a longer look — named the
    hint's answer a mistake where the two disagreed (the learning audit)."""
    g = Game.start(setup)
    out: list[Decision] = []
    wanted = set(seats)
    for k, (seat_raw, text_raw) in enumerate(log):
        seat, text = int(seat_raw), str(text_raw)
        dec = g.decision(seat)
        typed = authors is None or (k < len(authors) and authors[k] is not None)
        if seat in wanted and dec is not None and typed and g.trivial_action(seat) is None:
            legal = {listed(a) for a in g.legal_actions(seat)}
            try:
                action: Action | None = parse(text)
            except ActionError:  # not an answer in the notation (a standing order)
                action = None
            played = listed(action) if action is not None else text
            # a Level Up is declared beside a decision, not in answer to it (R12.1: at any
            # time; the same question stays open) — except after a roll, where it is one
            # of the answers (keep, reroll or level up to gain the higher modifier)
            beside = action is not None and action.verb == "levelup" and dec["kind"] != "roll"
            if len(legal) > 1 and played in legal and not beside:
                hint = (hints or {}).get((seat, int(dec["id"])))
                out.append(Decision(k, seat, g.round, str(dec["kind"]), g.view(seat), played,
                                    hint == played))
        g.apply(seat, text)
    return [replace(d, end_round=g.round) for d in out]


def listed(a: Action) -> str:
    """An answer as the legal answers list it: `ready` names its units in board order,
    however they were typed (the log keeps the order typed, and an answer written
    `ready 3B 2C` was neither judged nor matched to its hint, the learning audit)."""
    if a.verb == "ready":
        return str(replace(a, squares=tuple(sorted(a.squares, key=board.square))))
    return str(a)


def decision_seed(seed: int, d: Decision) -> int:
    """Each decision's own search seed, from the review's seed and its place in the log."""
    return (seed * 1_000_003 + d.index * 7_919 + d.seat) % 2**31


Job = tuple[Decision, int, int]
"""A decision to judge, its samples, and its samples where a rollout ends the game."""


def judge(d: Decision, seed: int, samples: int, decided: int) -> Point:
    """In a worker: one decision judged (ai/review.py) at `samples`, or `decided` where one
    of them ends the game."""
    j = ai.review.judge(d.view, d.seat, d.played, decision_seed(seed, d), samples, decided)
    return Point(d.index, d.round, d.kind, d.played, j.p_played, j.best, j.p_best, j.upper)


def first_look(d: Decision, samples: int) -> Job:
    """The first look at a decision: `samples`, DECIDED_FACTOR times that where a rollout
    ends the game — and that many from the start in the game's last LATE rounds.

    Why: there the game was decided, and an answer that loses it one sample in four showed
    no difference at all in four samples that did not happen to reach the end (0.75⁴ ≈ 32 %);
    with no spread, its bound stayed at its cost and it was never looked at again — a
    mistake of 15-25 points named by one review and not by the other (docs/review.md,
    "Stability")."""
    more = samples * DECIDED_FACTOR
    return d, more if d.end_round and d.end_round - d.round < LATE else samples, more


def to_recheck(ds: Sequence[Decision], points: Sequence[Point], seats: Sequence[int],
               n: int) -> list[int]:
    """Which decisions to judge again with more samples: each seat's `n` that may cost the
    most (`Point.upper`, at least `DOUBT`), as positions in `ds`.

    Why more than one look: the named mistakes are what a player reads, and judging every decision
    with enough samples to find and order them would cost several times as much. A first
    pass finds the few that matter, a second one measures them. Why by the bound, not the
    cost: a first pass of a few samples scores many a late mistake at no cost at all, and
    only the spread of its samples shows it (docs/review.md, "Stability")."""
    out: list[int] = []
    for s in seats:
        mine = [k for k, d in enumerate(ds) if d.seat == s and points[k].upper >= DOUBT]
        out += sorted(mine, key=lambda k: (-points[k].upper, k))[:n]
    return sorted(out)


def to_settle(ds: Sequence[Decision], points: Sequence[Point], seats: Sequence[int],
              n: int) -> list[int]:
    """Which decisions to look at a third time: each seat's `n` whose naming is most in
    doubt after the second look, as positions in `ds` — those that may cost NAMED
    (`Point.upper`) and may also cost less (the cost less its doubt, `2·cost − upper`, under
    NAMED), nearest the floor in units of their doubt first.

    Why: what a player reads is which decisions are named, and after the second look two
    reviews still parted mostly over a cost on either side of NAMED (docs/review.md,
    "Stability"); a decision clearly above or below it reads the same at any count, so the
    third look's samples go where they change what is named."""
    out: list[int] = []
    for s in seats:
        mine = [k for k, d in enumerate(ds) if d.seat == s and points[k].upper >= NAMED
                and 2 * points[k].cost - points[k].upper < NAMED]
        out += sorted(mine, key=lambda k: (abs(points[k].cost - NAMED)
                                           / max(points[k].upper - points[k].cost, 1e-9), k))[:n]
    return sorted(out)


async def three_looks(ds: Sequence[Decision], seats: Sequence[int], samples: int, recheck: int,
                      run: Callable[[list[Job]], Awaitable[list[Point]]]) -> list[Point]:
    """Every decision judged at `samples` (`first_look`), those `to_recheck` picks again at
    RECHECK_FACTOR times that, and those `to_settle` picks at SETTLE_FACTOR times that again,
    by `run` (jobs in, points out, in order); with `recheck` 0 the first look alone. The one
    place the looks are decided: the bot runs its jobs in worker processes off the event
    loop, the bench and tests in a pool or in line, and the two cannot drift apart."""
    points = await run([first_look(d, samples) for d in ds])

    async def again(picked: list[int], n: int) -> None:
        for k, p in zip(picked, await run([(ds[k], n, n * DECIDED_FACTOR) for k in picked]),
                        strict=True):
            points[k] = p

    if recheck:  # 0: the first look alone (a quick review where only its form matters)
        n = samples * RECHECK_FACTOR
        await again(to_recheck(ds, points, seats, recheck), n)
        await again(to_settle(ds, points, seats, SETTLE), n * SETTLE_FACTOR)
    return points


def most_work(ds: Sequence[Decision], seats: Sequence[int], n: int) -> int:
    """The jobs of a review at most (the progress shown counts up to it)."""
    return len(ds) + sum(min(n, mine) + min(SETTLE if n else 0, mine)
                         for mine in (sum(d.seat == s for d in ds) for s in seats))


def judged(every: Sequence[Decision]) -> list[Decision]:
    """The decisions a review judges: all but those that followed a hint."""
    return [d for d in every if not d.hinted]


def seat_reviews(every: Sequence[Decision], points: Sequence[Point],
                 seats: Sequence[int]) -> list[SeatReview]:
    """Each seat's judged decisions (`judged(every)`, in order with `points`), and how many
    of its answers followed a hint (not judged)."""
    ds = judged(every)
    return [SeatReview(s, [p for d, p in zip(ds, points, strict=True) if d.seat == s],
                       sum(d.seat == s and d.hinted for d in every)) for s in seats]


def review_game(game: int, setup: Mapping[str, Any], log: Sequence[Sequence[Any]],
                seats: Sequence[int], *, authors: Sequence[int | None] | None = None,
                hints: Mapping[tuple[int, int], str] | None = None, seed: int = 0, samples: int | None = None,
                recheck: int | None = None, pool: Executor | None = None,
                progress: Callable[[int, int], None] | None = None) -> Review:
    """The review of one game, synchronously (the bench, tests; never inside a running event
    loop): in `pool` when given (each decision a job), else here; the passes as the bot's
    (`three_looks`). `progress(done, total)` after each job."""
    samples = SAMPLES if samples is None else samples
    recheck = RECHECK if recheck is None else recheck
    every = decisions(setup, log, seats, authors, hints)
    ds = judged(every)
    total = most_work(ds, seats, recheck)
    done = 0

    async def run(jobs: list[Job]) -> list[Point]:
        nonlocal done
        out: list[Point] = []
        futures = [pool.submit(judge, d, seed, n, m) for d, n, m in jobs] if pool else []
        for k, (d, n, m) in enumerate(jobs):
            out.append(futures[k].result() if futures else judge(d, seed, n, m))
            done += 1
            if progress:
                progress(done, total)
        return out

    points = asyncio.run(three_looks(ds, seats, samples, recheck, run))
    if progress and done < total:
        progress(total, total)
    return Review(game, seat_reviews(every, points, seats), samples, seed)
