"""Each finished game's review by the expert (issue 23): computed once, kept as JSON.

Why a table of its own and not the game's meta: a review is derived data (the setup and
log rebuild it, service/review.py), several kilobytes, written once after the game ended;
it must never share a write with the game's own row, whose version guards every move. The
first review stored for a game stays (`stays`): two processes that computed one at once
keep the same answer; only an unreadable one, or one of an older format, is replaced. The table lives in the game store's own
database (migration 13, store/migrations.py); `store.review_store` picks the class for the
store's backend.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

from .contract import ReviewStore
from .db import Store
from .rows import json_object


class SqliteReviewStore(ReviewStore):
    """The reviews table on SQLite, as jobs on the game store's one connection."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def get(self, game_id: int) -> dict[str, Any] | None:
        def read(con: sqlite3.Connection) -> str | None:
            r = con.execute("SELECT review FROM game_reviews WHERE game_id=?",
                            (game_id,)).fetchone()
            return None if r is None else str(r[0])
        return json_object(await self.store.run_read(read))

    async def save(self, game_id: int, review: dict[str, Any], *,
                   unreadable: bool = False) -> None:
        text = dumps(review)

        def write(con: sqlite3.Connection) -> None:
            r = con.execute("SELECT review FROM game_reviews WHERE game_id=?",
                            (game_id,)).fetchone()
            if r is None:
                con.execute("INSERT INTO game_reviews (game_id, review, created_at)"
                            " VALUES (?,?,?)", (game_id, text, time.time()))
            elif not stays(str(r[0]), review, unreadable=unreadable):
                con.execute("UPDATE game_reviews SET review=?, created_at=? WHERE game_id=?",
                            (text, time.time(), game_id))
        await self.store.run_write(write)


def dumps(review: dict[str, Any]) -> str:
    return json.dumps(review, separators=(",", ":"))


def stays(stored: str, review: dict[str, Any], *, unreadable: bool = False) -> bool:
    """Whether the stored review stays when `review` is to be saved: it does unless it is
    unreadable or of an older format than `review` (a release that judges other decisions
    bumps the format, and its reviews replace the old ones as they are asked for).
    `unreadable`: the saver could not read the stored one though it parses and names this
    format (a damaged shape): it is replaced too, only a newer format's stays (the
    fault-injection audit: such a row was recomputed on every ask, or failed it)."""
    old = json_object(stored)
    if old is None or not isinstance(old.get("format"), int):
        return False
    new = review.get("format")
    if not isinstance(new, int):
        return True
    was: int = old["format"]
    return was > new if unreadable else was >= new
