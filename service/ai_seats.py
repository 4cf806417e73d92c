"""AI seats (issue 9): the room where an AI answers for a seat — a bot seat from the lobby
on, or a person's seat in zombie mode (service/seats.py says which seats and at what level).

Whenever an AI-played seat is asked something, `play_ai` answers it: the choice is computed
in a worker thread (or the bot's worker processes, `pool`) from `engine.view(state, seat)`
only, then committed through the same path as a person's answer (`Play.commit`: validated,
logged, timed, narrated by the interface). A broken AI never hurts the game: an exception, a
refused answer or a choice that takes longer than `AI_THINK_S` falls back to the engine's
default (`timeout`) answer.

An AI never stalls a game (issue 17). A store fault while its answer is committed (SQLite
busy or locked, a PostgreSQL connection lost or a row lock timing out: `store.faults`) says
nothing about the answer, so the same answer is committed again, after a jittered
exponential backoff (`AI_RETRY_FIRST_S` doubling up to `AI_RETRY_MAX_S`), until it lands
or the question has moved on (another answer, the seat given back, the game over) — the
version check makes a retry after a commit that did land a no-op. Past `AI_RETRY_FOR_S`
the run stops retrying; the time-limit pass picks the seat up again at its next tick, since
an AI-played seat's reminder is due at once (`Tables.timers_for`), as it does after a
restart or an answer lost in any other way. Each retry is a WARNING, without a traceback.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Literal, TypeVar

import ai
from engine import Game
from store import GameRow, TimerRow

from .errors import ServiceError
from .meta import seat_back
from .outcomes import Outcome
from .play import Play
from .seats import ai_level, check_level, has_ai, zombie_level, zombie_on_timeout
from .tables import Tables
from .workers import ProcessExpired, Workers

log = logging.getLogger("rr.seats")

AI_THINK_S = 20.0  # an AI taking longer than this gives the default answer instead
MAX_AI_ANSWERS = 500  # bound per `play_ai` call (a 4-player game of random AIs: ~150)
AI_AT_ONCE = 2  # AI choices computed at the same time, all games together
AI_RETRY_FIRST_S = 0.2  # the first wait before an answer the store could not take is retried
AI_RETRY_MAX_S = 15.0  # the backoff's bound
AI_RETRY_FOR_S = 300.0  # retried this long in one run; then the next tick takes over
AI_RETRIES = 100  # and at most this many times (the bound of the loop itself)


class _StoreFault(Exception):
    """The store could not take the AI's answer (`answer`, to be committed again)."""

    def __init__(self, answer: str, cause: BaseException) -> None:
        super().__init__(f"{type(cause).__name__}: {cause}")
        self.answer = answer


def retry_delay(attempt: int) -> float:
    """The wait before retry number `attempt` (0, 1, …): doubling from AI_RETRY_FIRST_S up
    to AI_RETRY_MAX_S, with half of it random ("equal jitter"), so AI runs that met the
    same fault do not all come back at the same instant."""
    step = min(AI_RETRY_MAX_S, AI_RETRY_FIRST_S * 2.0 ** min(attempt, 30))
    return step / 2 + random.uniform(0, step / 2)


def ai_seed(row: GameRow, seat: int, log_len: int) -> int:
    """Reproducible per game, seat and moment, different from one decision to the next."""
    base = int((row.setup or {}).get("seed", 0))
    return (base * 1_000_003 + seat * 7_919 + log_len) % 2**31


def choose(level: str, seed: int, snapshot: str, cards: Any, seat: int) -> str:
    """In a worker (thread or process): the seat's own view of a private copy of the state,
    and the AI's choice from it."""
    view = Game(json.loads(snapshot), cards).view(seat)
    return ai.make_player(level, seed).choose(view, seat)


def process_pool() -> Executor:
    """AI_AT_ONCE worker processes (service/workers.py); each imports the engine and the
    AI once, on its first choice. A choice or a hint given up on (AI_THINK_S, HINT_S: its
    `wait_for` cancels it) is stopped with its process, which a fresh one replaces: a think
    that never ended held a worker for good, and two of them every AI choice after."""
    return Workers(AI_AT_ONCE, AI_THINK_S)


T = TypeVar("T")


class AiSeats:
    """`play_ai` (a channel's AI seats answer), `on_timer` (a due timer an AI takes),
    `set_zombie`, `reclaim` (`/rr back`); `run`, the worker pool AI thinking shares."""

    def __init__(self, tables: Tables, play: Play) -> None:
        self.tables, self.play = tables, play
        self._running: set[int] = set()
        self._look_again: set[int] = set()
        self._gate: asyncio.Semaphore | None = None
        # Where AI choices are computed: None = worker threads (asyncio.to_thread); the bot
        # sets a process pool factory (`process_pool`), so a long think does not even
        # compete with the event loop for the GIL (bench/seats.py).
        self.pool: Callable[[], Executor] | None = None
        self._executor: Executor | None = None
        # How a retry waits (tests pass a fake that only counts the time).
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    def close(self) -> None:
        """Stop the AI's worker processes, if any (nothing waits for a think in progress)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def run(self, fn: Callable[..., T], *args: Any) -> Awaitable[T]:
        """`fn(*args)` off the event loop: in the AI's worker processes when the bot set a
        pool, else in a worker thread (an AI's choice, and a hint's, service/hints.py)."""
        if self.pool is None:
            return asyncio.to_thread(fn, *args)
        if self._executor is None:
            self._executor = self.pool()
        return asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    # ---- zombie mode ---------------------------------------------------------------------
    async def set_zombie(self, channel_id: int, user_id: int, level: str | None,
                         can_manage: bool) -> GameRow:
        """Whether an AI (of `level`) takes the seat of a player who runs out of time; new
        lobbies in the channel keep the setting (see `Lobby.new_lobby`)."""
        if level is not None:
            check_level(level)
        async with self.tables.lock(channel_id):
            row = await self.tables.hosted(channel_id, user_id, can_manage, "svc.host_setting")
            row.settings["zombie"] = level
            await self.tables.write_settings(row)  # (not over a damaged row)
        return row

    async def reclaim(self, channel_id: int, user_id: int) -> GameRow:
        """`/rr back`: the person plays their own seat again from their next answer on."""
        async with self.tables.lock(channel_id):
            row, g = await self.tables.current(channel_id)
            seat = row.seat_of(user_id)
            if seat is None:
                raise ServiceError.of("svc.not_player", code="not_player")
            if zombie_level(row, seat) is None:
                raise ServiceError.of("svc.own_seat")
            # (its AI may not have answered the question that ran out yet)
            row.meta = await self.tables.give_back(row, g, seat, seat_back(seat))
            log.info("game %s: seat %s is played by its person again", row.id, seat)
            return row

    async def on_timer(self, row: GameRow, g: Game, timer: TimerRow,
                       now: float) -> Outcome | None:
        """A due timer (reminder or deadline) that an AI answers rather than the person or
        the default answer; None to let the time-limit pass do as usual. The outcome carries
        no move: telling it leads the interface to `play_ai`.

        - an AI-played seat: its answer is overdue (lost in a restart or a failed run);
        - a person's seat at its deadline, with zombie mode on: the AI takes the seat and
          answers the expired question (the time-out counts, once) — unless no other
          person plays a seat still in the game (`zombie_on_timeout`).
        """
        seat = int(timer["seat"])
        if ai_level(row, seat):
            return Outcome(row, g, [], None, "ai", notes=["ai"])
        handover = zombie_on_timeout(row, g, seat) if timer["deadline"] <= now else None
        if handover is None:
            return None
        # told from the outbox, written with the hand-over: a crash right after it still
        # tells the person that an AI took their seat (the fault-injection audit)
        notice = {"kind": "zombie", "seat": seat} if self.tables.notify else None
        if notice is None:
            row.meta, told = await self.tables.store.update_meta(row.id, handover), None
        else:
            row.meta, told = await self.tables.store.update_meta_told(row.id, handover, notice)
        if not handover.made:  # another process handed it over first, and tells it
            return Outcome(row, g, [], None, "ai", notes=["ai"])
        log.info("game %s: seat %s ran out of time; an AI takes it", row.id, seat)
        return Outcome(row, g, [], seat, "zombie", notes=["zombie"], notice=told)

    # ---- the AI's answers ----------------------------------------------------------------
    async def play_ai(self, channel_id: int,
                      on_outcome: Callable[[Outcome], Awaitable[None]]) -> int:
        """Answer every pending decision of the channel's AI-played seats, one commit each,
        handing each outcome to `on_outcome` (to be told) before the next; returns how many.

        One run per channel at a time: a call while one runs only asks it to look again, so
        two triggers never compute the same choice twice."""
        if channel_id in self._running:
            self._look_again.add(channel_id)
            return 0
        self._running.add(channel_id)
        answered = 0
        try:
            for _ in range(MAX_AI_ANSWERS):
                self._look_again.discard(channel_id)
                out = await self._ai_answer(channel_id)
                if out is None:
                    if channel_id in self._look_again:
                        continue
                    return answered
                if out is True:  # the question moved on while the AI thought: look again
                    continue
                answered += 1
                try:
                    await on_outcome(out)
                except Exception:
                    log.exception("channel %s: telling an AI answer failed", channel_id)
            log.warning("channel %s: %d AI answers in one run; the rest waits for the next "
                        "trigger", channel_id, MAX_AI_ANSWERS)
            return answered
        finally:
            self._running.discard(channel_id)
            self._look_again.discard(channel_id)

    async def _ai_answer(self, channel_id: int) -> Outcome | Literal[True] | None:
        """One AI answer committed (an Outcome), True to look again, None when none is due
        (or the store kept failing for the whole retry budget: see the module's doc)."""
        waited = 0.0
        for attempt in range(AI_RETRIES + 1):
            try:
                row, g = await self.tables.current(channel_id)
                break
            except ServiceError:
                return None
            except self.tables.store.faults as e:
                so_far = await self._retry_wait(f"channel {channel_id} (AI)", attempt, waited,
                                                _StoreFault("", e))
                if so_far is None:
                    return None
                waited = so_far
        else:
            return None
        seats = [s for s in g.waiting_for() if ai_level(row, s)] if has_ai(row) else []
        if g.over or not seats:
            return None
        seat = seats[0]
        level = ai_level(row, seat)
        assert level is not None
        decision = g.decision_id(seat)
        # A copy taken now, on the loop: the cached game may change while the AI thinks.
        snapshot, n = g.to_json(), len(g.log)
        text = await self._think(row, level, snapshot, g, seat, n)
        waited = 0.0
        for attempt in range(AI_RETRIES + 1):
            try:
                out = await self._ai_commit(channel_id, seat, level, decision, text)
            except _StoreFault as fault:
                text = fault.answer
                so_far = await self._retry_wait(f"game {row.id} seat {seat} (AI {level})",
                                                attempt, waited, fault)
                if so_far is None:
                    return None
                waited = so_far
                continue
            if out is True or out is None:
                return out
            out.notes.append(f"ai:{level}")
            log.info("game %s seat %s (AI %s): %s", out.row.id, seat, level, out.text)
            return out
        return None  # not reached: the last attempt returns or gives up

    async def _retry_wait(self, who: str, attempt: int, waited: float,
                          fault: _StoreFault) -> float | None:
        """Wait before retry `attempt` (the channel is not locked meanwhile: people play
        on) and return the time waited so far in this run; None once the run's budget is
        spent (the next time-limit pass takes over). Logged as a WARNING, no traceback: a
        busy database is weather, not a bug."""
        if attempt >= AI_RETRIES or waited >= AI_RETRY_FOR_S:
            log.warning("%s: the store still fails after %d tries (%s); the next time-limit "
                        "pass tries again", who, attempt + 1, fault)
            return None
        delay = retry_delay(attempt)
        log.warning("%s: the store could not take the answer (%s); retried in %.2f s", who,
                    fault, delay)
        await self.sleep(delay)
        return waited + delay

    async def _ai_commit(self, channel_id: int, seat: int, level: str, decision: int | None,
                         text: str) -> Outcome | Literal[True] | None:
        """One attempt to commit the AI's answer `text` to `decision`, under the channel's
        lock: the Outcome, True when the question moved on (look again), None when the
        channel has no game in play any more. A store fault raises `_StoreFault` with the
        answer to commit again (the default one, once the AI's own was refused)."""
        async with self.tables.lock(channel_id):
            try:
                row, g = await self.tables.current(channel_id)
            except ServiceError as e:
                if e.code in ("busy", "uncertain"):
                    raise _StoreFault(text, e) from e
                return True if e.code == "stale" else None
            except self.tables.store.faults as e:
                raise _StoreFault(text, e) from e
            if ai_level(row, seat) != level or g.decision_id(seat) != decision:
                return True
            for answer in dict.fromkeys((text, "timeout")):
                try:
                    return await self.play.commit(row, g, seat, None, answer, decision)
                except ServiceError as e:
                    if e.code == "stale":
                        return True
                    if e.code in ("busy", "uncertain"):
                        raise _StoreFault(answer, e) from e
                    if answer == "timeout":
                        raise
                    log.error("game %s seat %s: AI %s answered %r, refused (%s); default "
                              "answer instead", row.id, seat, level, answer, e.message)
                except self.tables.store.faults as e:
                    raise _StoreFault(answer, e) from e
        return None  # not reached: "timeout" is always a last answer

    async def _think(self, row: GameRow, level: str, snapshot: str, g: Game, seat: int,
                     n: int) -> str:
        """The AI's choice, computed off the event loop (at most AI_AT_ONCE at a time);
        the engine's default answer when the AI fails or takes too long."""
        if self._gate is None:
            self._gate = asyncio.Semaphore(AI_AT_ONCE)
        args = (level, ai_seed(row, seat, n), snapshot, g.cards, seat)
        try:
            async with self._gate:
                return await asyncio.wait_for(self.run(choose, *args), AI_THINK_S)
        except BrokenProcessPool:  # a worker died: a fresh pool for the next choice
            log.exception("game %s seat %s: AI worker process died; default answer instead",
                          row.id, seat)
            self.close()
            return "timeout"
        except ProcessExpired:  # a worker died under it: `Workers` has started another
            log.exception("game %s seat %s: AI worker process died; default answer instead",
                          row.id, seat)
            return "timeout"
        except Exception:
            log.exception("game %s seat %s: AI %s failed; default answer instead", row.id,
                          seat, level)
            return "timeout"
