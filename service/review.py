"""The game review (issue 23): every human player's decisions judged by the expert AI.

For a finished game — or a daily attempt once its day has closed — each person's seat gets:
the estimated chance to win after each of their decisions (the chart), the three decisions
that cost the most with what the expert would have done instead and by how much, and an
accuracy figure. How each decision is judged is ai/review.py; how the figures are defined
and how stable they are run to run is docs/review.md.

Why the shape:
- The game is its setup plus its log (R15): replaying it gives the exact position of every
  answer, so nothing needs to have been kept while it was played. Each decision is judged
  from the answering seat's own view only, as an AI sees a game.
- The judging is CPU work (about a hundred decisions, each a few dozen short rollouts), so
  it runs in worker processes at low priority, like the channel images (cogs/announce.py
  `draw_pool`), never on the event loop; `progress` is called as decisions come back so an
  interface can edit a progress message.
- A review is computed once per game and stored (`game_reviews`, migration 13): asking
  again, from any process, reads it back. Two asking at once in one process share one
  computation, and each is told its progress; two processes at once both compute it and
  the first stored one stays.
- Only people's seats are reviewed: an AI seat's decisions are its level's own.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import BrokenExecutor, Executor, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

import ai.review
import i18n
from engine import Action, ActionError, CardSet, Game, View, board, cards_for, parse
from store import GameRow, ReviewStore

from .daily import attempt_day
from .errors import ServiceError
from .hints import hinted
from .lines import Line
from .lines import parse as fill
from .notation import action_words
from .tables import Quarantined
from .workers import Workers

logger = logging.getLogger("rr.review")  # (`log` names a game's log here)
SAMPLES = 4  # rollouts per candidate per decision, every decision: docs/review.md, "Stability"
DECIDED_FACTOR = 4  # … this many times a look's samples where one of them ended the game, and
LATE = 3  # … from the first look on in the game's last LATE rounds, where it was decided
RECHECK = 10  # each seat's decisions that may cost the most (`Point.upper`) looked at again …
RECHECK_FACTOR = 4  # … with this many times the samples, if they may cost anything at all:
DOUBT = 0.0001  # a hundredth of a point (`Point.upper` under it: no answer was better)
SETTLE = 3  # each seat's decisions whose naming is in doubt looked at a third time …
SETTLE_FACTOR = 4  # … with this many times the second look's samples
WORKERS = 2  # one per core of the target machine (bench/review.py)
NICENESS = 10  # like the image workers: players' answers come first
JOB_S = 600.0  # a pool that finished no job for this long is stuck (one takes seconds:
WATCH_S = 15.0  # docs/review.md); looked at this often while a review waits
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
    samples: int = SAMPLES
    seed: int = 0
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


# ---- which games, which seats -------------------------------------------------------------

def people(row: GameRow) -> list[int]:
    """The seats people played (AI seats are left out)."""
    return [s for s, seat in enumerate(row.seats) if not seat.get("ai")]


def check_reviewable(row: GameRow | None, *, channel_id: int, user_id: int,
                     today: dt.date | None = None, day_open: Callable[[dt.date], bool]
                     | None = None, game: int | None = None) -> GameRow:
    """The game asked for, if it may be reviewed here; else a refusal saying why.

    A channel game: it must be this channel's and over. A daily game: it must be the caller's
    own, and its day closed (`day_open` says whether a day still is): its review would give
    the day away. A damaged record is refused as damaged first, as every other command
    refuses it: judged on its unread (emptied) seats it was "nobody's play to review"."""
    asked = game if game is not None else (row.id if row is not None else 0)
    if row is None:
        raise ServiceError.of("svc.review_none" if game is None else "svc.review_not_here",
                              game=asked)
    if row.damage:  # its seats or settings unread: "nobody to review", "not yours" were false
        raise Quarantined(row, {"kind": "unreadable", "what": list(row.damage)})
    info = row.settings.get("daily") or {}
    if info:
        if row.seat_of(user_id) is None:
            raise ServiceError.of("svc.review_not_yours", game=row.id)
        day = attempt_day(str(info.get("day")))
        if day is None:  # whether its day has closed is unknown: its record is damaged
            raise Quarantined(row, {"kind": "unreadable", "what": ["settings"]})
        if day_open is None or day_open(day):
            raise ServiceError.of("svc.review_day_open", game=row.id, day=day.isoformat(),
                                  code="daily_review_open")
    elif row.channel_id != channel_id:
        raise ServiceError.of("svc.review_not_here", game=asked)
    if row.status != "over" or row.setup is None:
        raise ServiceError.of("svc.review_not_over", game=row.id)
    if not people(row):
        raise ServiceError.of("svc.review_no_people", game=row.id)
    return row


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


class ReviewStalled(BrokenExecutor):
    """A review pool that finished no job for far longer than any takes: a worker is
    stuck, and the pool is as good as broken (a fresh one serves the next ask)."""


async def watched(futures: Sequence[asyncio.Future[Point]], tick: Callable[[], None],
                  beat: Callable[[], float]) -> None:
    """Wait for every job of `futures` (run in a review pool), calling `tick` after each.
    When none of them finishes and the pool has finished no job at all (`beat`: when its
    last one did) for JOB_S since they were handed to it, a worker is stuck:
    `ReviewStalled`. A job's error is raised.
    Then, or when the ask is cancelled, the jobs left are cancelled: neither waited for
    nor left queued in the workers.

    Why watched: a review waited on its jobs with no bound, so one stuck worker kept that
    review (and every later ask of its game, which waits on it) waiting for good. Why the
    pool's last job, not the review's time: a review queued behind others (the bot's two
    workers) waits for minutes with nothing wrong, while every job takes seconds (the
    fault-injection audit)."""
    waiting = set(futures)
    handed = time.monotonic()  # a pool idle until now is not stuck: it had nothing to do
    try:
        while waiting:
            finished, waiting = await asyncio.wait(waiting, timeout=WATCH_S,
                                                   return_when=asyncio.FIRST_COMPLETED)
            for job in finished:
                job.result()
                tick()
            if not finished and time.monotonic() - max(beat(), handed) > JOB_S:
                raise ReviewStalled(f"no judging job finished in {JOB_S:g} s")
    except BaseException:
        for job in waiting:
            job.cancel()
        raise


def review_pool(processes: bool) -> Executor:
    """Where reviews are computed: WORKERS processes at NICENESS in the bot (service/
    workers.py: a judging job still running after JOB_S is stopped with its process, and
    its review fails in words — a stuck one had kept a core busy until a restart); threads
    in tests."""
    if processes:
        return Workers(WORKERS, JOB_S, niceness=NICENESS)
    return ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="rr-review")


# ---- hosting: computed once, stored -------------------------------------------------------

class Reviewer:
    """Reviews on a store (`store/review.py`): the stored one, or computed once off the
    event loop and stored."""

    def __init__(self, reviews: ReviewStore, processes: bool = False,
                 samples: int | None = None) -> None:
        self.reviews = reviews
        self.processes = processes
        self.samples = samples
        self._pool: Executor | None = None
        self._running: dict[int, asyncio.Future[Review]] = {}
        # each running review's progress: the judgements done and due, and who is told
        self._counts: dict[int, tuple[int, int]] = {}
        self._watchers: dict[int, list[Callable[[int, int], None]]] = {}
        self._unreadable: set[int] = set()  # games whose stored review could not be read
        self._beat = 0.0  # when the pool last finished a job, or was made (`watched`)

    async def stored(self, game: int) -> Review | None:
        data = await self.reviews.get(game)
        if data is None:
            return None
        try:
            return Review.from_json(data)
        except (ValueError, KeyError, TypeError, IndexError, AttributeError, OverflowError):
            # an unreadable stored review (any wrong shape: a list where a map belongs, a
            # number 1e400 or a chance NaN failed every ask with a traceback) is computed
            # again, and replaces it
            self._unreadable.add(game)
            return None

    async def review(self, row: GameRow, log: Sequence[Sequence[Any]],
                     authors: Sequence[int | None],
                     progress: Callable[[int, int], None] | None = None) -> Review:
        """The game's review: stored, being computed (wait for it), or computed now. `log`
        and `authors` are the store's (`log`, `authors`): who typed each entry decides
        which answers are a person's (`decisions`)."""
        done = await self.stored(row.id)
        if done is not None:
            return done
        running = self._running.get(row.id)
        if running is not None:  # a later ask is told the progress too, from where it is
            return await self._joined(row.id, running, progress)
        fut: asyncio.Future[Review] = asyncio.get_running_loop().create_future()
        self._running[row.id] = fut
        self._watchers[row.id] = [progress] if progress else []

        def told(done: int, total: int) -> None:
            self._counts[row.id] = (done, total)
            for watcher in list(self._watchers.get(row.id, ())):
                watcher(done, total)

        try:
            result = await self._compute(row, log, authors, told)
            result = await self._kept(row.id, result)
            fut.set_result(result)
            return result
        except BaseException as e:
            fut.set_exception(e)
            fut.exception()  # retrieved: a waiter may not exist
            raise
        finally:
            del self._running[row.id]
            self._watchers.pop(row.id, None)
            self._counts.pop(row.id, None)

    async def _joined(self, game: int, running: asyncio.Future[Review],
                      progress: Callable[[int, int], None] | None) -> Review:
        """Wait for a review another ask started, told its progress meanwhile. Why: the
        first ask's answer may no longer be editable (Discord's 15 minutes; cogs/review.py
        tells that player to ask again), and the new ask showed no count until the end."""
        watchers = self._watchers.setdefault(game, [])
        if progress is not None:
            watchers.append(progress)
            if game in self._counts:
                progress(*self._counts[game])
        try:
            return await asyncio.shield(running)
        finally:
            if progress in watchers:
                watchers.remove(progress)

    async def _kept(self, game: int, result: Review) -> Review:
        """`result` stored, and the review as stored: another process's, if it stored
        first. A store fault (a disk full, a lost connection) is logged and `result` shown
        anyway, not kept (the next ask computes it again): the player waited for it, and
        was told it could not be computed (the fault-injection audit)."""
        try:
            await self.reviews.save(game, result.to_json(), unreadable=game in self._unreadable)
            self._unreadable.discard(game)
            return await self.stored(game) or result
        except Exception:
            logger.exception("game %s: its review could not be stored; shown unkept", game)
            return result

    async def _compute(self, row: GameRow, log: Sequence[Sequence[Any]],
                       authors: Sequence[int | None], progress: Callable[[int, int], None] | None) -> Review:
        assert row.setup is not None
        loop = asyncio.get_running_loop()
        every = await asyncio.to_thread(decisions, row.setup, log, people(row), authors,
                                        hinted(row.meta))
        ds = judged(every)
        if self._pool is None:
            self._pool = review_pool(self.processes)
            self._beat = time.monotonic()
        pool = self._pool
        seed = row.id
        samples = self.samples if self.samples is not None else SAMPLES
        seats = people(row)
        total = most_work(ds, seats, RECHECK)
        done = 0

        def tick() -> None:
            nonlocal done
            self._beat = time.monotonic()  # the pool moves on (`watched`)
            done += 1
            if progress:
                progress(done, total)

        async def run(jobs: list[Job]) -> list[Point]:
            futures = [loop.run_in_executor(pool, judge, d, seed, n, m) for d, n, m in jobs]
            await watched(futures, tick, lambda: self._beat)
            return [f.result() for f in futures]

        try:
            points = await three_looks(ds, seats, samples, RECHECK, run)
        except BrokenExecutor:  # a worker died (killed, out of memory) or is stuck
            if self._pool is pool:  # (ReviewStalled): the pool is broken for good, so the
                pool.shutdown(wait=False, cancel_futures=True)  # next ask gets a fresh one
                self._pool = None  # (the fault-injection audit)
            raise
        if progress and done < total:
            progress(total, total)
        return Review(row.id, seat_reviews(every, points, seats), samples, seed)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=self.processes, cancel_futures=True)
            self._pool = None


# ---- words --------------------------------------------------------------------------------

def pct(p: float) -> str:
    return f"{round(100 * p)}%"


def points_word(cost: float) -> str:
    return f"{100 * cost:.0f}"


def said(lang: str, key: str, **params: Any) -> Line:
    """A catalogue entry as a marked line (filled after it is split: a name stays a name)."""
    return fill(i18n.template(lang, key), **params)


def seat_lines(review: SeatReview, name: str, cards: CardSet, lang: str) -> list[Line]:
    """One person's review in words: accuracy, then the costliest decisions (their answers
    marked, as each interface shows an answer)."""
    followed = [fill(i18n.plural_template(lang, "review.hinted", review.hinted),
                     n=review.hinted)] if review.hinted else []
    if not review.points:  # e.g. a resignation before the first real choice
        return [said(lang, "review.seat_none", name=name), *followed]
    lines = [fill(i18n.plural_template(lang, "review.seat", len(review.points)), name=name,
                  accuracy=f"{review.accuracy:.0f}", n=len(review.points)), *followed]
    worst = review.mistakes()
    if not worst:
        lines.append(said(lang, "review.no_mistakes", points=f"{100 * NAMED:g}"))
    for k, p in enumerate(worst, 1):
        # round 0 is the setup's placement (R5), before the first round
        key = "review.mistake" if p.round > 0 else "review.mistake_setup"
        lines.append(said(lang, key, k=k, round=p.round, name=name,
                          kind=i18n.t(lang, f"decision.{p.kind}"),
                          played=action_words(p.played, cards, lang),
                          best=action_words(p.best, cards, lang),
                          before=pct(p.p), after=pct(p.p_best),
                          # the difference of the two figures shown (7 % and 34 %: 27), not
                          # the rounded difference (26: the new-player audit's sum that failed)
                          cost=f"{round(100 * p.p_best) - round(100 * p.p):.0f}"))
    return lines


def charted(review: Review) -> list[SeatReview]:
    """The seats the chart draws: those with a decision judged (an empty panel says nothing
    the words do not)."""
    return [s for s in review.seats if s.points]


def review_lines(review: Review, names: Sequence[str], setup: Mapping[str, Any], lang: str
                 ) -> list[Line]:
    """The whole review in words (the chart shows the same chances); the answers name the
    cards of the game's own set (its `setup`), in the reader's language."""
    cards = cards_for(setup)
    out = [said(lang, "review.title", game=review.game)]
    for s in review.seats:
        name = names[s.seat] if s.seat < len(names) else "?"
        out += seat_lines(s, name, cards, lang)
    # the second and third looks and a rollout that ends the game each multiply the samples
    out.append(said(lang, "review.footer", samples=review.samples,
                    most=review.samples * RECHECK_FACTOR * SETTLE_FACTOR * DECIDED_FACTOR))
    return out
