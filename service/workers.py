"""Worker processes for the bot's slow, pure work — an AI's choice, a hint, a review's
judgements — in which a job that runs past its time, or is given up on, is stopped with
the process running it (pebble), and a fresh process takes its place.

Why not the standard library's `ProcessPoolExecutor`: it cannot stop a job once it runs.
A job that never ended (a bug, a position the search cannot leave) kept its process busy
for good after the bot had stopped waiting — the AI's default answer given, the review
refused in words — and each such job took one of the machine's two cores away until a
restart (docs/deploy.md). Here a job is stopped at `job_s`, or when its future is
cancelled (`asyncio.wait_for` giving up cancels it), and its future raises TimeoutError
(stopped at its time), `CancelledError`, or `ProcessExpired` (the process died under it:
killed, out of memory)."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any, TypeVar

from pebble import ProcessExpired, ProcessPool

__all__ = ["ProcessExpired", "Workers"]

T = TypeVar("T")


class Workers(Executor):
    """`processes` worker processes ("spawn": the bot's threads must not be forked) at
    `niceness`, each job stopped after `job_s` seconds of running. An Executor, so
    `loop.run_in_executor` hands jobs to it like to any pool."""

    def __init__(self, processes: int, job_s: float, *, niceness: int = 0) -> None:
        self.job_s = job_s
        self._pool = ProcessPool(max_workers=processes,
                                 initializer=os.nice if niceness else None,
                                 initargs=(niceness,) if niceness else (),
                                 context=multiprocessing.get_context("spawn"))

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        return self._pool.schedule(fn, args=args, kwargs=kwargs, timeout=self.job_s)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """`cancel_futures`: the jobs queued are dropped and those running stopped, with
        their processes (the bot's close: nothing waits for them); else they finish."""
        if cancel_futures:
            self._pool.stop()  # type: ignore[no-untyped-call]
        else:
            self._pool.close()  # type: ignore[no-untyped-call]
        if wait:
            self._pool.join()
