"""The worker processes of AI choices, hints and reviews (service/workers.py): a job that
runs past its time, or that the bot gave up waiting for, is stopped with its process, and
the pool goes on serving. With the standard library's pool a job that never ended kept its
process busy until a restart: an AI seat's default answer was given, a review refused in
words, and a core of the machine stayed lost."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import cast

import pytest
import workers_jobs as jobs

import cogs.drawing
from cogs import announce
from service.workers import ProcessExpired, Workers

pytestmark = pytest.mark.process


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a process that exited but is not yet reaped by its parent is no longer running
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(") ")[-1][:1] not in ("Z", "X")


async def gone(pid: int, within: float = 10.0) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        if not alive(pid):
            return True
        await asyncio.sleep(0.05)
    return False


def test_a_job_past_its_time_is_stopped_with_its_process(tmp_path):
    async def main() -> None:
        pool = Workers(1, 1.0)
        loop = asyncio.get_running_loop()
        try:
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(loop.run_in_executor(pool, jobs.hang,
                                                            str(tmp_path / "pid")), 30)
            assert await gone(int((tmp_path / "pid").read_text()))
            assert await loop.run_in_executor(pool, jobs.double, 21) == 42  # a fresh worker
        finally:
            pool.shutdown(cancel_futures=True)
    asyncio.run(main())


def test_a_job_given_up_on_is_stopped_at_once(tmp_path):
    """`asyncio.wait_for` giving up (an AI choice after AI_THINK_S, a hint after HINT_S)
    cancels the job: its process is stopped then, not at the pool's own limit."""
    async def main() -> None:
        pool = Workers(1, 600.0)
        loop = asyncio.get_running_loop()
        try:
            job = loop.run_in_executor(pool, jobs.hang, str(tmp_path / "pid"))
            for _ in range(200):  # until it runs (a spawned worker starts in a second or so)
                if (tmp_path / "pid").exists():
                    break
                await asyncio.sleep(0.05)
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(job, 0.2)
            assert await gone(int((tmp_path / "pid").read_text()))
            assert await loop.run_in_executor(pool, jobs.double, 5) == 10
        finally:
            pool.shutdown(cancel_futures=True)
    asyncio.run(main())


def test_a_worker_that_dies_is_replaced_and_its_job_says_so(tmp_path):
    async def main() -> None:
        pool = Workers(1, 60.0, niceness=10)
        loop = asyncio.get_running_loop()
        try:
            with pytest.raises(ProcessExpired):
                await loop.run_in_executor(pool, jobs.die, str(tmp_path / "pid"))
            assert await loop.run_in_executor(pool, jobs.double, 1) == 2
            assert await loop.run_in_executor(pool, jobs.niceness) >= 10  # the review's
        finally:
            pool.shutdown(cancel_futures=True)
    asyncio.run(main())


def test_closing_stops_a_running_job(tmp_path):
    """The bot's close (`shutdown(cancel_futures=True)`): nothing waits for a job, and no
    process is left running it."""
    async def main() -> None:
        pool = Workers(1, 600.0)
        loop = asyncio.get_running_loop()
        job = loop.run_in_executor(pool, jobs.hang, str(tmp_path / "pid"))
        for _ in range(200):
            if (tmp_path / "pid").exists():
                break
            await asyncio.sleep(0.05)
        pool.shutdown(wait=True, cancel_futures=True)
        assert await gone(int((tmp_path / "pid").read_text()))
        with pytest.raises(BaseException):  # noqa: B017 (cancelled or stopped: either way, over)
            await asyncio.wait_for(job, 5)
    asyncio.run(main())


def test_a_channel_drawing_that_never_ends_is_stopped_and_the_next_is_drawn(tmp_path,
                                                                             monkeypatch):
    """The announcer's drawing processes are `Workers` too: a board image or a recap that
    never finished kept the bot's one drawing process (2 cores) busy until a restart, and
    every later image of every game waited behind it. It is stopped at DRAW_JOB_S; the
    announcement goes without its image (`table_file`), and the next image is drawn."""
    monkeypatch.setattr(cogs.drawing, "DRAW_JOB_S", 1.0)

    async def main() -> None:
        teller = announce.Announcer(cast(announce.Stage, None), processes=True)
        try:
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(teller.draw(jobs.hang, str(tmp_path / "pid")), 60)
            assert await gone(int((tmp_path / "pid").read_text()))
            assert await teller.draw(jobs.double, 4) == 8
        finally:
            teller.close()
    asyncio.run(main())


def test_a_drawing_whose_process_died_is_drawn_again_once(tmp_path):
    """A drawing process killed under its job (out of memory): the image is drawn again in
    the process that took its place, so the channel still gets it."""
    async def main() -> None:
        teller = announce.Announcer(cast(announce.Stage, None), processes=True)
        try:
            assert await asyncio.wait_for(
                teller.draw(jobs.die_once, str(tmp_path / "marker")), 60) == 7
        finally:
            teller.close()
    asyncio.run(main())
