"""review.py's table on PostgreSQL: the same methods and answers (one statement each), so
every bot process of a deployment reads the same stored review."""

from __future__ import annotations

import time
from typing import Any

from .contract import ReviewStore
from .pg import Con, PgStore
from .review import dumps, stays
from .rows import json_object


class PgReviewStore(ReviewStore):
    def __init__(self, store: PgStore) -> None:
        self.store = store

    async def get(self, game_id: int) -> dict[str, Any] | None:
        async def read(con: Con) -> str | None:
            r = await con.fetchval("SELECT review FROM game_reviews WHERE game_id=$1", game_id)
            return None if r is None else str(r)
        return json_object(await self.store.run_read(read))

    async def save(self, game_id: int, review: dict[str, Any], *,
                   unreadable: bool = False) -> None:
        text = dumps(review)

        async def write(con: Con) -> None:
            added = await con.fetchval("INSERT INTO game_reviews (game_id, review, created_at)"
                                       " VALUES ($1,$2,$3) ON CONFLICT (game_id) DO NOTHING"
                                       " RETURNING game_id", game_id, text, time.time())
            if added is not None:
                return
            old = await con.fetchval("SELECT review FROM game_reviews WHERE game_id=$1"
                                     " FOR UPDATE", game_id)
            if old is not None and not stays(str(old), review, unreadable=unreadable):
                await con.execute("UPDATE game_reviews SET review=$2, created_at=$3"
                                  " WHERE game_id=$1", game_id, text, time.time())
        await self.store.run_write(write)
