"""Open-loop load through the test harness, for bench/bot.py and bench/daily.py (issues 18, 22).

A closed-loop bench (send a burst, wait until the bot is quiet, send the next) lets the bot
set the pace: when it falls behind, fewer interactions arrive, and the latencies it reports
leave out the time an overloaded bot would make people wait (coordinated omission). Players
do not wait for each other. Here every interaction has a scheduled arrival time fixed before
the run (evenly spaced or Poisson at the target rate); the feeder hands each payload to
discord.py at that time whatever the bot is still doing (`Harness.deliver`), and the fake
Discord starts the interaction's response window at the *scheduled* time. If the bot's busy
event loop lets the feeder in late, that lateness is part of the latency and eats into the
window, as it would for a person who clicked then.

Measured per interaction from its scheduled arrival (loop time, the fake Discord's clock):

* ack: until the bot's initial response (a defer, a message, autocomplete choices) reached
  Discord — even one refused as too late;
* answer: until the person saw the answer (the first followup after a defer; else the
  initial response itself).

A missed window is an interaction with no accepted initial response within the harness's
`RESPONSE_DEADLINE` (Discord's 3 s, the same constant the fake Discord enforces): late or
never. Late responses make discord.py raise or log 404 / 10062 "Unknown interaction"; those
are the counted misses, not failures of the bench. Any other error is the bot's and raised.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import random
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import discord
from harness import (
    RESPONSE_DEADLINE,
    FakeChannel,
    FakeUser,
    Harness,
    InteractionResult,
    RecordedMessage,
)

Delivery = tuple[dict[str, Any], FakeUser, FakeChannel, RecordedMessage | None]
Make = Callable[[], Delivery | None] | Callable[[], Awaitable[Delivery | None]]
EXPIRED_CODES = (10062, 10015)  # Unknown interaction / Unknown Webhook (followup after it)


def quantile(xs: Sequence[float], q: float) -> float:
    """Nearest-rank quantile (nan for no data)."""
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def schedule(rate_per_s: float, duration: float, *, poisson: bool, rng: random.Random,
             start: float = 0.0) -> list[float]:
    """Arrival offsets (seconds) over `duration` at `rate_per_s`: Poisson (exponential gaps,
    as independent people arrive) or evenly spaced. Fixed before the run: the bot's speed
    cannot change when anyone arrives."""
    if rate_per_s <= 0:
        return []
    times, t = [], start
    while True:
        t += rng.expovariate(rate_per_s) if poisson else 1.0 / rate_per_s
        if t >= start + duration:
            return times
        times.append(t)


@dataclass
class Outcome:
    """One interaction as the person experienced it (seconds from the scheduled arrival)."""

    label: str
    result: InteractionResult
    deadline: float = RESPONSE_DEADLINE  # the harness's window (its server's, when set)

    @property
    def ack(self) -> float | None:
        cb = self.result.callback_at
        return None if cb is None else cb - self.result.arrived

    @property
    def answer(self) -> float | None:
        if not self.result.responded:
            return None
        at = self.result.followup_at if self.result.deferred else self.result.callback_at
        return None if at is None else at - self.result.arrived

    @property
    def missed(self) -> bool:
        ack = self.ack
        return not self.result.responded or ack is None or ack > self.deadline


@dataclass
class Stats:
    label: str
    n: int
    missed: int
    ack_ms: list[float] = field(repr=False)
    answer_ms: list[float] = field(repr=False)
    deadline: float = RESPONSE_DEADLINE

    def line(self) -> str:
        a, b = self.ack_ms, self.answer_ms
        return (f"{self.label}: n={self.n} ack p50/p99/max {quantile(a, .5):.0f}/"
                f"{quantile(a, .99):.0f}/{max(a, default=float('nan')):.0f} ms, answered "
                f"{len(b)} p50/p99 {quantile(b, .5):.0f}/{quantile(b, .99):.0f} ms, missed "
                f"{self.deadline:g}-s windows {self.missed}")


def stats(outcomes: Iterable[Outcome], label: str) -> Stats:
    mine = [o for o in outcomes if o.label == label]
    return Stats(label, len(mine), sum(o.missed for o in mine),
                 [o.ack * 1000 for o in mine if o.ack is not None],
                 [o.answer * 1000 for o in mine if o.answer is not None],
                 mine[0].deadline if mine else RESPONSE_DEADLINE)


class Feeder:
    """Delivers interactions at their scheduled loop times and keeps what happened to each."""

    def __init__(self, h: Harness) -> None:
        self.h = h
        self.outcomes: list[Outcome] = []
        self.t0 = asyncio.get_running_loop().time()
        self.late_feeds = 0  # arrivals the feeder itself handed over > 10 ms late
        # The window the fake Discord enforces (RESPONSE_DEADLINE unless a test shortened
        # it); with the window switched off, Discord's own still decides what was missed.
        self.deadline = h.server.response_deadline or RESPONSE_DEADLINE

    def restart_clock(self) -> None:
        self.t0 = asyncio.get_running_loop().time()

    def now(self) -> float:
        return asyncio.get_running_loop().time() - self.t0

    def deliver(self, label: str, at: float, item: Delivery) -> Outcome:
        """Hand one interaction to discord.py now, its window started at offset `at`."""
        payload, user, channel, message = item
        due = self.t0 + at
        if asyncio.get_running_loop().time() - due > 0.010:
            self.late_feeds += 1
        res = self.h.deliver(payload, user, channel, component_message=message, arrived=due)
        outcome = Outcome(label, res, self.deadline)
        self.outcomes.append(outcome)
        return outcome

    async def run(self, arrivals: Iterable[tuple[float, str, Make]],
                  until: Callable[[], bool] = lambda: False) -> int:
        """Deliver `(offset, label, make)` arrivals in time order, never waiting for an
        answer; `make` builds the payload at its arrival (None: skip it; it may be a
        coroutine function when it must read the game). Stops early once `until()` holds.
        Returns how many were delivered."""
        loop = asyncio.get_running_loop()
        sent = 0
        for at, label, make in arrivals:
            if until():
                break
            delay = self.t0 + at - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            made = make()
            item = await made if inspect.isawaitable(made) else made
            if item is not None:
                self.deliver(label, at, item)
                sent += 1
        return sent

    async def drain(self, timeout: float) -> list[BaseException]:
        """Wait until the bot is quiet, then take the errors its late answers caused (the
        counted misses); any other error is the bot's own and is raised."""
        await self.h.settle(timeout=timeout)
        expired = [e for e, _ in self.h.errors if is_expired(e)]
        self.h.errors[:] = [(e, o) for e, o in self.h.errors if not is_expired(e)]
        self.h.raise_errors()
        return expired

    def stats(self, label: str) -> Stats:
        return stats(self.outcomes, label)


def log_errors_but_misses() -> None:
    """Print errors only, and not discord.py's traceback for each late response (it logs a
    late autocomplete's 10062 at ERROR): those are the misses the bench counts."""
    logging.basicConfig(level=logging.ERROR)
    for handler in logging.getLogger().handlers:
        handler.addFilter(lambda r: not (r.exc_info and r.exc_info[1] is not None
                                         and is_expired(r.exc_info[1])))


def is_expired(error: BaseException) -> bool:
    """Whether an error is Discord refusing a response after the window closed (10062,
    or 10015 for a followup to an interaction that was never acknowledged)."""
    for e in _chain(error):
        if isinstance(e, discord.NotFound) and e.code in EXPIRED_CODES:
            return True
    return False


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    e: BaseException | None = error
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        yield e
        e = getattr(e, "original", None) or e.__cause__ or e.__context__
