"""The day's board and a player's record: finished ranked attempts ranked best first (the
whole world's, or one server's members), a player's standing in it, and their streaks.
Read-only over the daily store, except that a server's membership learnt from Discord is
remembered (`seen_in`)."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Awaitable, Callable

from store import Attempt, DailyStore

from . import daily, daily_standings
from .daily_calendar import Calendar
from .daily_score import Score
from .daily_standings import Entry, Standing, Stats, ranked

log = logging.getLogger("rr.daily")
MEMBER_CHECKS = 50  # a server board asks Discord about at most this many players per look

MemberCheck = Callable[[int], Awaitable[bool | None]]
"""Is this user a member of the board's server? True/False as Discord answered; None when
it could not tell (an error): not listed this time, asked again next time."""


Hidden = Callable[[], Awaitable[set[int]]]
"""Everyone who hid their profile (`/rr-stats privacy`): left off every board shown."""


class DailyBoard:
    def __init__(self, store: DailyStore, days: Calendar, hidden: Hidden | None = None) -> None:
        self.store = store
        self.days = days
        self.hidden = hidden
        self._not_members: dict[tuple[str, int], set[int]] = {}  # (day, guild) → asked: no

    async def listing(self, day: dt.date, guild_id: int | None,
                      is_member: MemberCheck | None = None,
                      viewer: int | None = None) -> list[tuple[int, Entry]]:
        """The board as it is shown (a page, a server's podium): `leaderboard` without the
        players who hid their profile — they were told they are left off leaderboards —
        but with the viewer's own row whatever they chose, ranked among those listed."""
        board = await self.leaderboard(day, guild_id, is_member)
        hidden = await self.hidden() if self.hidden is not None else set()
        if not hidden:
            return board
        return ranked(e for _, e in board if e.user not in hidden or e.user == viewer)

    async def leaderboard(self, day: dt.date, guild_id: int | None,
                          is_member: MemberCheck | None = None) -> list[tuple[int, Entry]]:
        """Finished ranked attempts, best first, one rank each (`ranked`: the earlier
        finish breaks a tie); a day not yet over shows only what is finished.

        A server's board lists that server's members. Membership is known from the
        interactions a player made there (`seen_in`) and, for everyone else who finished
        the day, asked of Discord one player at a time (`is_member`: the REST member
        lookup, which needs no privileged intent), best first and at most
        `MEMBER_CHECKS` per look; a yes is stored, a no is remembered for the day."""
        board = ranked(self._entries(await self.store.results(day.isoformat(), None)))
        if guild_id is None:
            return board
        known = await self.store.members(guild_id)
        if is_member is not None:
            known |= await self._check_members(day, guild_id, [e.user for _, e in board
                                                                if e.user not in known],
                                               is_member)
        return ranked(e for _, e in board if e.user in known)

    async def standing(self, day: dt.date, user_id: int) -> Standing | None:
        """The user's rank among everyone who finished the day so far (the global board)."""
        return daily_standings.standing(await self.leaderboard(day, None), user_id)

    async def _check_members(self, day: dt.date, guild_id: int, users: list[int],
                             is_member: MemberCheck) -> set[int]:
        for old in [k for k in self._not_members if k[0] != day.isoformat()]:
            del self._not_members[old]  # a "no" is remembered for one day's board only
        strangers = self._not_members.setdefault((day.isoformat(), guild_id), set())
        found: set[int] = set()
        asked = 0
        for user in users:
            if user in strangers:
                continue
            if asked == MEMBER_CHECKS:
                break
            asked += 1
            answer = await is_member(user)
            if answer:
                await self.store.seen_in(guild_id, user)
                found.add(user)
            elif answer is False:
                strangers.add(user)
        return found

    @staticmethod
    def _entries(attempts: list[Attempt]) -> list[Entry]:
        """The board's rows; a stored score that cannot be read is left out (and logged),
        never fatal to the board."""
        out = []
        for a in attempts:
            if a.score is None:
                continue
            try:
                score = Score.from_json(a.score)
            except ValueError:
                log.warning("daily %s user %s: unreadable score skipped", a.day, a.user_id)
                continue
            out.append(Entry(a.user_id, score, a.finished_at or a.started_at, a.name))
        return out

    async def stats(self, user_id: int) -> Stats:
        results: dict[dt.date, Score | None] = {}
        for a in await self.store.history(user_id):
            day = daily.attempt_day(a.day)
            if day is None:
                continue
            if a.status == "finished" and a.score is not None:
                try:
                    results[day] = Score.from_json(a.score)
                except ValueError:
                    log.warning("daily %s user %s: unreadable score skipped", a.day, user_id)
            elif a.status == "unfinished":
                results[day] = None
        # today as `play` claims it: a clock behind the day's close cut today's off the streaks
        return daily_standings.stats(results, await self.days.open_day(self.store))
