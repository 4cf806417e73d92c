"""tutorial.py's progress table on PostgreSQL: the same methods and answers (one statement
each), so every bot process of a deployment sees a learner at the same step."""

from __future__ import annotations

import time

from .contract import TutorialStore
from .pg import Con, PgStore
from .rows import Progress


class PgTutorialStore(TutorialStore):
    def __init__(self, store: PgStore) -> None:
        self.store = store

    async def progress(self, user_id: int) -> Progress | None:
        async def read(con: Con) -> Progress | None:
            r = await con.fetchrow("SELECT lesson, step FROM tutorial_progress"
                                   " WHERE user_id=$1", user_id)
            return None if r is None else Progress(user_id, str(r["lesson"]), int(r["step"]))
        return await self.store.run_read(read)

    async def save(self, user_id: int, lesson: str, step: int) -> None:
        async def write(con: Con) -> None:
            await con.execute("INSERT INTO tutorial_progress (user_id, lesson, step, updated_at)"
                              " VALUES ($1,$2,$3,$4) ON CONFLICT (user_id) DO UPDATE SET"
                              " lesson=excluded.lesson, step=excluded.step,"
                              " updated_at=excluded.updated_at",
                              user_id, lesson, step, time.time())
        await self.store.run_write(write)

    async def advance(self, user_id: int, lesson: str, step: int) -> bool:
        async def write(con: Con) -> bool:
            done = await con.execute("UPDATE tutorial_progress SET step=$1, updated_at=$2"
                                     " WHERE user_id=$3 AND lesson=$4 AND step=$5",
                                     step + 1, time.time(), user_id, lesson, step)
            return bool(done == "UPDATE 1")
        return await self.store.run_write(write)

    async def forget(self, user_id: int) -> None:
        async def write(con: Con) -> None:
            await con.execute("DELETE FROM tutorial_progress WHERE user_id=$1", user_id)
        await self.store.run_write(write)
