"""Where a user's daily games live: a *slot* of their own instead of a channel, one for the
ranked attempt and one for practice (`slot`), and which of them a command typed or clicked
outside a server channel means."""

from __future__ import annotations

import logging

from store import Attempt, DailyStore, GameRow, GameStore
from store.rows import is_whole

from .games import GameService

log = logging.getLogger("rr.daily")


def slot(user_id: int, ranked: bool) -> int:
    """The game key of a user's ranked or practice attempt: negative, so it can never be a
    Discord channel id."""
    return -(2 * user_id + (0 if ranked else 1))


async def attempt_game(store: GameStore, att: Attempt) -> GameRow | None:
    """The game an attempt names, only when it is that attempt's own: a daily game in the
    user's slot. Everything that ends, scores or shows an attempt's game reads it here: a
    damaged `game_id` naming another game (the fault-injection audit: the day's close
    abandoned a channel's game in play, unannounced) must never reach it."""
    if att.game_id is None:
        return None
    row = await store.get(att.game_id)
    if row is not None and (row.channel_id != slot(att.user_id, att.ranked)
                            or not row.settings.get("daily")):
        log.warning("the daily attempt of user %s (%s) names game %s, which is not theirs: "
                    "left alone", att.user_id, att.day, att.game_id)
        return None
    return row


def is_slot(key: int) -> bool:
    """A game key that is a daily attempt's slot, not a channel (`slot`); a damaged one
    (text SQLite kept in the INTEGER column) is neither, where `<` raised TypeError."""
    return is_whole(key) and key < 0


class DailySlots:
    def __init__(self, games: GameService, store: DailyStore) -> None:
        self.games = games
        self.store = store

    def key_of(self, user_id: int, ranked_first: bool = True) -> list[int]:
        """The slots a user's play commands may mean outside a server channel."""
        both = [slot(user_id, True), slot(user_id, False)]
        return both if ranked_first else both[::-1]

    async def active_slot(self, user_id: int) -> int | None:
        """The daily game a typed command in a DM means. With one game in play, that one;
        with both (a past day's practice while today's ranked attempt is open), the one the
        player moved in, started or resumed (`/rr daily play|practice`) last — the game
        whose question is at the bottom of the DM (a tie: the ranked one). Buttons name
        their own game (`slot_of_game`). With none in play, the latest that ended."""
        slots = self.key_of(user_id)
        touched = await self.store.last_game_at(slots)  # moved in, started or resumed
        if touched:
            return max(slots, key=lambda k: (k in touched, touched.get(k, 0.0),
                                             k == slots[0]))
        latest = [await self.games.store.latest_game(k) for k in slots]
        found = [r for r in latest if r is not None]
        return max(found, key=lambda r: r.id).channel_id if found else None

    async def both_open(self, user_id: int) -> bool:
        """The ranked and the practice game are both in play (the DM holds two games)."""
        return len(await self.store.last_game_at(self.key_of(user_id))) == 2

    async def slot_of_game(self, user_id: int, game_id: int) -> int | None:
        """The slot of `game_id` when it is this user's daily game (a button carries its
        game): so a practice game's buttons reach the practice game while the ranked one
        is open. None when it is nobody's game of this user (someone else's, or gone)."""
        row = await self.games.store.get(game_id)
        if row is None or row.channel_id not in self.key_of(user_id):
            return None
        return row.channel_id
