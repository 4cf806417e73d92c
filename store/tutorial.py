"""Where each learner stands in the tutorial (issue 23): one row per user, lesson and step.

Why only two values: a step's position is rebuilt from the lesson's prepared start and the
accepted actions before it (service/tutorial.py), so nothing else needs keeping, and one
row written in one statement cannot be left half-written by a crash. The table lives in the
game store's own database (migration 11, store/migrations.py) so both backends keep it the
same way; `store.tutorial_store` picks the class for the store's backend.
"""

from __future__ import annotations

import logging
import sqlite3
import time

from .contract import TutorialStore
from .db import Store
from .rows import Progress

log = logging.getLogger("rr.store")


class SqliteTutorialStore(TutorialStore):
    """The progress table on SQLite, as jobs on the game store's one connection."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def progress(self, user_id: int) -> Progress | None:
        def read(con: sqlite3.Connection) -> Progress | None:
            r = con.execute("SELECT lesson, step FROM tutorial_progress WHERE user_id=?",
                            (user_id,)).fetchone()
            if r is None:
                return None
            if type(r[1]) is int:
                return Progress(user_id, str(r[0]), r[1])
            try:  # a fraction reads as the step below it
                step = int(r[1])
            except (ValueError, TypeError, OverflowError):  # a damaged row (any text, an
                # infinite REAL: SQLite keeps either): the lesson starts again
                log.warning("tutorial progress of user %s: step %r unreadable; the lesson "
                            "starts again", user_id, r[1])
                step = 0  # learner starts the lesson again rather than never again
            return Progress(user_id, str(r[0]), step, damaged=True)
        return await self.store.run_read(read)

    async def save(self, user_id: int, lesson: str, step: int) -> None:
        def write(con: sqlite3.Connection) -> None:
            con.execute("INSERT INTO tutorial_progress (user_id, lesson, step, updated_at)"
                        " VALUES (?,?,?,?) ON CONFLICT (user_id) DO UPDATE SET"
                        " lesson=excluded.lesson, step=excluded.step,"
                        " updated_at=excluded.updated_at", (user_id, lesson, step, time.time()))
        await self.store.run_write(write)

    async def advance(self, user_id: int, lesson: str, step: int) -> bool:
        """Step on from (lesson, step) to step + 1 only if the user still stands there: of two
        racing answers (two clicks, two processes) one moves on, and an answer judged before
        a skip or restart landed never undoes it. One statement, so nothing is half-written."""
        def write(con: sqlite3.Connection) -> bool:
            cur = con.execute("UPDATE tutorial_progress SET step=?, updated_at=?"
                              " WHERE user_id=? AND lesson=? AND step=?",
                              (step + 1, time.time(), user_id, lesson, step))
            return cur.rowcount == 1
        return await self.store.run_write(write)

    async def forget(self, user_id: int) -> None:
        def write(con: sqlite3.Connection) -> None:
            con.execute("DELETE FROM tutorial_progress WHERE user_id=?", (user_id,))
        await self.store.run_write(write)

