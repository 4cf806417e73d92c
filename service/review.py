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
  it runs in worker processes at low priority, like the channel images (cogs/drawing.py
  `draw_pool`), never on the event loop; `progress` is called as decisions come back so an
  interface can edit a progress message.
- A review is computed once per game and stored (`game_reviews`, migration 13): asking
  again, from any process, reads it back. Two asking at once in one process share one
  computation, and each is told its progress; two processes at once both compute it and
  the first stored one stays.
- Only people's seats are reviewed: an AI seat's decisions are its level's own.

The review's rooms: service/review_record.py (what a review is, and the naming rule),
service/review_looks.py (the judging), service/review_words.py (the words); this module
hosts it (which games, where the jobs run, stored once).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import BrokenExecutor, Executor, ThreadPoolExecutor
from typing import Any

from store import GameRow, ReviewStore

from . import review_looks as looks
from .daily import attempt_day
from .errors import ServiceError
from .hints import hinted
from .review_looks import Job, decisions, judge, judged, most_work, seat_reviews, three_looks
from .review_record import Point, Review
from .tables import Quarantined
from .workers import Workers

logger = logging.getLogger("rr.review")  # (`log` names a game's log here)
WORKERS = 2  # one per core of the target machine (bench/review.py)
NICENESS = 10  # like the image workers: players' answers come first
JOB_S = 600.0  # a pool that finished no job for this long is stuck (one takes seconds:
WATCH_S = 15.0  # docs/review.md); looked at this often while a review waits


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
        samples = self.samples if self.samples is not None else looks.SAMPLES
        seats = people(row)
        total = most_work(ds, seats, looks.RECHECK)
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
            points = await three_looks(ds, seats, samples, looks.RECHECK, run)
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
