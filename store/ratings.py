"""Tables of finished channel games, ratings, and the players' and servers' choices about
them (issue 24; what is kept and why: docs/ratings.md).

A finished game is *settled* once: its `finished_games` row (primary key: the game id), a
`finished_seats` row per seat, and — for a rated game — every rating it moves and a
`rating_changes` row per change, all in one transaction (`settle`). Whoever settles second
(a second process delivering the same game-over post, a retried announcement) inserts
nothing, changes no rating and reads back the changes the first one stored, so a rating is
moved exactly once and everyone is shown the same before → after.

The rating arithmetic is not here: the caller passes it (`Rate`, a pure function of the
ratings as stored inside the transaction), as `MetaChange` is passed to the game writes,
so the store stays free of the model and the model sees the ratings under the write lock.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from .db import Store
from .rows import Columns, is_flag, is_time, report_set_aside, set_aside_row

EVERYWHERE = 0  # the scope of the bot-wide rating (a server's scope is its id)
log = logging.getLogger("rr.store")
T = TypeVar("T")
UNREADABLE = (ValueError, TypeError, KeyError, OverflowError, RecursionError)
"""What parsing a damaged row raises (SQLite keeps any text in any column: a hand edit, a
restore gone wrong). Such a row is logged and left out of what it was read for, so it
stays its own problem: one player's profile, not every history that would list it."""


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float
    sigma: float
    games: int  # rated games behind it


@dataclass(frozen=True, slots=True)
class SeatResult:
    seat: int
    user_id: int
    place: int  # 1 = first; winners share 1
    won: bool
    units: dict[str, int]  # units it brought in: "card" (hand) or "merc:card" (mercenary)
    name: str = ""  # the display name it played under (kept with the rating: leaderboards)


@dataclass(frozen=True, slots=True)
class Finished:
    """A finished channel game as settled: who sat where and how they placed."""

    game_id: int
    guild_id: int | None
    channel_id: int
    unrated: str | None  # None: rated; else why ("ai", "zombie", "solo", "off", "local")
    ended_at: float
    seats: tuple[SeatResult, ...]


@dataclass(frozen=True, slots=True)
class Change:
    scope: int
    user_id: int
    before: Rating
    after: Rating


@dataclass(frozen=True, slots=True)
class Played:
    """One finished game as a history lists it (names as they sat, from the game row)."""

    game_id: int
    guild_id: int | None
    channel_id: int
    unrated: str | None
    ended_at: float
    names: list[str]
    seats: tuple[SeatResult, ...]


@dataclass(frozen=True, slots=True)
class Point:
    """A rating after one rated game (a profile's chart)."""

    at: float
    game_id: int
    rating: Rating


Rate = Callable[[dict[int, Rating]], dict[int, Rating]]
"""The ratings of a game's players (user → as stored, or fresh) → their ratings after it.
Run inside the settling transaction, so it must be quick and pure."""


# What a stored rating can be: openskill starts at mu 25, sigma 25/3 and moves a few points
# a game. Far outside (1e308, a sigma of 1e-300, 2**63 games) is damage, set aside like a
# NaN: the rating model overflowed on it and rolled back every settle of that player's
# games (the fault-injection audits: never rated, never in history, for the whole table).
MU_MAX, SIGMA_MIN, SIGMA_MAX, GAMES_MAX = 1e4, 1e-6, 1e4, 10**9


def plausible(rating: Rating) -> bool:
    """A rating within `MU_MAX` / `SIGMA_MIN`–`SIGMA_MAX` / `GAMES_MAX` (a NaN fails every
    comparison)."""
    return (abs(rating.mu) <= MU_MAX and SIGMA_MIN <= rating.sigma <= SIGMA_MAX
            and 0 <= rating.games <= GAMES_MAX)


def rating_of(r: Columns, prefix: str = "") -> Rating:
    rating = Rating(float(r[f"mu{prefix}"]), float(r[f"sigma{prefix}"]),
                    int(r[f"games{prefix}"]))
    if not plausible(rating):
        raise ValueError(f"not a rating: {rating}")
    return rating


def user_rating(r: Columns) -> tuple[int, Rating]:
    return int(r["user_id"]), rating_of(r)


def point_of(r: Columns) -> Point:
    """A point of a player's rating chart; one out of a rating's range is left out (the
    chart could not draw a NaN: the player's profile failed for everyone)."""
    point = Point(float(r["at"]), int(r["game_id"]),
                  Rating(float(r["mu_after"]), float(r["sigma_after"]),
                         int(r["games_before"]) + 1))
    if not (math.isfinite(point.at) and plausible(point.rating)):
        raise ValueError(f"not a rating point: {point}")
    return point


def players_seat(r: Columns) -> tuple[int, SeatResult]:
    return int(r["players"]), seat_of(r)


def readable(rows: Iterable[Columns], parse: Callable[[Columns], T], what: str) -> list[T]:
    """Each row parsed; a damaged one logged and left out (`UNREADABLE`)."""
    out: list[T] = []
    for r in rows:
        try:
            out.append(parse(r))
        except UNREADABLE as e:
            log.warning("%s: an unreadable row left out (%s)", what, e)
    return out


def seat_of(r: Columns) -> SeatResult:
    try:
        units = {str(k): int(v) for k, v in json.loads(r["units"]).items()}
    except (ValueError, TypeError, AttributeError, OverflowError,
            RecursionError):  # a damaged row: the result still counts
        units = {}
    return SeatResult(int(r["seat"]), int(r["user_id"]), int(r["place"]), bool(r["won"]),
                      units)


def _names(raw: str | None, n: int) -> list[str]:
    try:
        seats = json.loads(raw or "[]")
        names = [str(s.get("name", "?")) for s in seats]
    except (ValueError, TypeError, AttributeError, RecursionError):
        names = []
    return names + ["?"] * (n - len(names))


def change_of(r: Columns) -> Change:
    return Change(int(r["scope"]), int(r["user_id"]),
                  Rating(float(r["mu_before"]), float(r["sigma_before"]),
                         int(r["games_before"])),
                  Rating(float(r["mu_after"]), float(r["sigma_after"]),
                         int(r["games_before"]) + 1))


HISTORY_COLUMNS = ("f.game_id, f.guild_id, f.channel_id, f.unrated, f.ended_at, g.seats"
                   " AS names")


DAMAGED_RATING = ("an unreadable rating: kept here, and the player rated afresh from this game"
                  " on (the game is still settled for everyone in it)")


class RatingStore:
    """The ratings tables in the game store's own database (SQLite; ratings_pg.py for
    PostgreSQL). Stateless: made on demand from the store (`ratings_store`)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # ---- settling a finished game (once) ------------------------------------------------
    async def settle(self, game: Finished, scopes: Sequence[int], fresh: Rating,
                     rate: Rate) -> list[Change]:
        """Record `game` and, when it is rated, move its players' ratings in every scope of
        `scopes` — all in one transaction, once per game id: a second call writes nothing
        and returns the changes the first one stored."""
        def write(con: sqlite3.Connection) -> list[Change]:
            cur = con.execute(
                "INSERT INTO finished_games (game_id, guild_id, channel_id, players, unrated,"
                " ended_at) VALUES (?,?,?,?,?,?) ON CONFLICT DO NOTHING",
                (game.game_id, game.guild_id, game.channel_id, len(game.seats), game.unrated,
                 game.ended_at))
            con.execute("DELETE FROM unsettled_games WHERE game_id=?", (game.game_id,))
            if cur.rowcount == 0:  # settled before (another process, an earlier attempt)
                return _changes(con, game.game_id)
            con.executemany(
                "INSERT INTO finished_seats (game_id, seat, user_id, place, won, units)"
                " VALUES (?,?,?,?,?,?)",
                [(game.game_id, s.seat, s.user_id, s.place, int(s.won), json.dumps(s.units))
                 for s in game.seats])
            if game.unrated is not None:
                return []
            users = sorted({s.user_id for s in game.seats})
            out: list[Change] = []
            for scope in scopes:
                marks = ",".join("?" * len(users))
                rows = con.execute(
                    f"SELECT * FROM ratings WHERE scope=?"  # noqa: S608
                    f" AND user_id IN ({marks})", (scope, *users)).fetchall()
                stored = dict(readable(rows, user_rating, "ratings"))
                damaged = [r for r in rows if int(r["user_id"]) not in stored]
                con.executemany("INSERT INTO set_aside (source, game_id, data, reason, at)"
                                " VALUES (?,?,?,?,?)",
                                [set_aside_row("ratings", dict(r), DAMAGED_RATING)
                                 for r in damaged])
                report_set_aside("ratings", [dict(r) for r in damaged], DAMAGED_RATING)
                before = {u: stored.get(u, fresh) for u in users}
                out += changes_for(scope, before, rate(dict(before)))
            _write_changes(con, out, game)
            return out
        return await self.store.run_write(write)

    async def changes(self, game_id: int) -> list[Change]:
        return await self.store.run_read(_changes, game_id)

    async def unsettled(self, limit: int) -> list[tuple[int, float]]:
        """Games that ended and are not settled yet, with when they ended (their claim,
        written by the move that ended them), oldest first: a settling pass takes them
        whatever became of their game-over post, and dates them by their end."""
        def read(con: sqlite3.Connection) -> list[tuple[int, float]]:
            return [(int(r[0]), ended_of(r[0], r[1], r[2])) for r in con.execute(
                UNSETTLED.format("?"), (limit,))]
        return await self.store.run_read(read)

    async def drop_unsettled(self, game_id: int) -> None:
        """A claim that can never be settled (its game is gone or no longer finished)."""
        await self.store.run_write(lambda con: con.execute(
            "DELETE FROM unsettled_games WHERE game_id=?", (game_id,)).close())

    # ---- reading ---------------------------------------------------------------------------
    async def rating(self, scope: int, user_id: int) -> Rating | None:
        def read(con: sqlite3.Connection) -> Rating | None:
            r = con.execute("SELECT mu, sigma, games FROM ratings WHERE scope=? AND user_id=?",
                            (scope, user_id)).fetchone()
            found = readable([r] if r is not None else [], rating_of, "ratings")
            return found[0] if found else None
        return await self.store.run_read(read)

    async def board(self, scope: int) -> list[tuple[int, Rating]]:
        """Every rating of a scope (a server's board; the caller sorts and pages it)."""
        def read(con: sqlite3.Connection) -> list[tuple[int, Rating]]:
            return readable(con.execute(
                "SELECT user_id, mu, sigma, games FROM ratings WHERE scope=?", (scope,)),
                user_rating, "ratings")
        return await self.store.run_read(read)

    async def points(self, scope: int, user_id: int) -> list[Point]:
        """A rating after each rated game, oldest first (the profile's chart)."""
        def read(con: sqlite3.Connection) -> list[Point]:
            return readable(con.execute(
                "SELECT game_id, at, mu_after, sigma_after, games_before FROM rating_changes"
                " WHERE scope=? AND user_id=? ORDER BY at, game_id", (scope, user_id)),
                point_of, "rating_changes")
        return await self.store.run_read(read)

    async def names(self, scope: int, users: Sequence[int]) -> dict[int, str]:
        """The name each user last played a rated game of `scope` under (a leaderboard shows
        names, not mentions: a mention of someone the reader's client has not cached shows
        as an id). A rating from before names were kept: the name of their latest seat."""
        def read(con: sqlite3.Connection) -> dict[int, str]:
            out: dict[int, str] = {}
            for u in users:
                r = con.execute("SELECT name FROM ratings WHERE scope=? AND user_id=?",
                                (scope, u)).fetchone()
                if r is not None and r[0]:
                    out[u] = str(r[0])
                    continue
                last = con.execute(
                    "SELECT s.seat, g.seats FROM finished_seats s JOIN games g"
                    " ON g.id=s.game_id WHERE s.user_id=? ORDER BY s.game_id DESC LIMIT 1",
                    (u,)).fetchone()
                if last is not None:
                    out[u] = last_seat_name(last)
            return out
        return await self.store.run_read(read)

    async def seats_of(self, user_id: int) -> list[tuple[int, SeatResult]]:
        """Every finished game of a user: (players at the table, their seat's result)."""
        def read(con: sqlite3.Connection) -> list[tuple[int, SeatResult]]:
            return readable(con.execute(
                "SELECT f.players, s.* FROM finished_seats s JOIN finished_games f"
                " ON f.game_id=s.game_id WHERE s.user_id=? ORDER BY s.game_id", (user_id,)),
                players_seat, "finished_seats")
        return await self.store.run_read(read)

    async def history(self, *, user_id: int | None = None, channel_id: int | None = None,
                      guild_id: int | None = None, limit: int = 10, offset: int = 0,
                      seen_by: Seen | None = None) -> tuple[list[Played], int]:
        """Finished games, newest first: a user's (in one server, or all) or a channel's,
        only those `seen_by` may see if given; one page of them and how many there are."""
        where, args = history_filter(user_id, channel_id, guild_id, "?", seen_by)

        def read(con: sqlite3.Connection) -> tuple[list[Played], int]:
            # counted as listed: a finished game whose game row is gone is in neither (a
            # page came back short; the fault-injection audit)
            total = con.execute(f"SELECT COUNT(*) FROM finished_games f JOIN games g"  # noqa: S608
                                f" ON g.id=f.game_id WHERE {where}", args).fetchone()[0]
            rows = con.execute(
                f"SELECT {HISTORY_COLUMNS} FROM finished_games f JOIN games g"  # noqa: S608
                f" ON g.id=f.game_id WHERE {where} ORDER BY f.game_id DESC LIMIT ? OFFSET ?",
                (*args, limit, offset)).fetchall()
            out: list[Played] = []
            for r in rows:
                seats = tuple(readable(con.execute(
                    "SELECT * FROM finished_seats WHERE game_id=? ORDER BY seat",
                    (r["game_id"],)), seat_of, "finished_seats"))
                out += readable([r], functools.partial(played_of, seats=seats),
                                "finished_games")
            return out, int(total)
        return await self.store.run_read(read)

    async def finished(self, game_id: int) -> Played | None:
        def read(con: sqlite3.Connection) -> Played | None:
            r = con.execute(f"SELECT {HISTORY_COLUMNS} FROM finished_games f JOIN games g"  # noqa: S608
                            " ON g.id=f.game_id WHERE f.game_id=?", (game_id,)).fetchone()
            if r is None:
                return None
            seats = tuple(readable(con.execute(
                "SELECT * FROM finished_seats WHERE game_id=? ORDER BY seat", (game_id,)),
                seat_of, "finished_seats"))
            found = readable([r], functools.partial(played_of, seats=seats), "finished_games")
            return found[0] if found else None
        return await self.store.run_read(read)

    # ---- choices: a hidden profile, a server without ratings ------------------------------
    async def hidden(self, user_id: int) -> bool:
        def read(con: sqlite3.Connection) -> bool:
            return con.execute("SELECT 1 FROM stats_hidden WHERE user_id=?",
                               (user_id,)).fetchone() is not None
        return await self.store.run_read(read)

    async def hidden_users(self) -> set[int]:
        """Everyone who hid their profile (left off leaderboards)."""
        def read(con: sqlite3.Connection) -> set[int]:
            return {int(r[0]) for r in con.execute("SELECT user_id FROM stats_hidden")}
        return await self.store.run_read(read)

    async def hide(self, user_id: int, hidden: bool) -> None:
        def write(con: sqlite3.Connection) -> None:
            if hidden:
                con.execute("INSERT INTO stats_hidden (user_id, at) VALUES (?, ?)"
                            " ON CONFLICT DO NOTHING", (user_id, time.time()))
            else:
                con.execute("DELETE FROM stats_hidden WHERE user_id=?", (user_id,))
        await self.store.run_write(write)

    async def ratings_off(self, guild_id: int) -> bool:
        def read(con: sqlite3.Connection) -> bool:
            r = con.execute("SELECT ratings_off FROM stats_servers WHERE guild_id=?",
                            (guild_id,)).fetchone()
            return switch_off(r[0] if r else None, guild_id)
        return await self.store.run_read(read)

    async def set_ratings_off(self, guild_id: int, off: bool) -> None:
        await self.store.run_write(lambda con: con.execute(
            "INSERT INTO stats_servers (guild_id, ratings_off) VALUES (?, ?) ON CONFLICT"
            " (guild_id) DO UPDATE SET ratings_off=excluded.ratings_off",
            (guild_id, int(off))).close())


UNSETTLED = ("SELECT u.game_id, u.ended_at, g.updated_at FROM unsettled_games u"
             " LEFT JOIN games g ON g.id=u.game_id ORDER BY u.ended_at, u.game_id LIMIT {}")
"""The claims a settling pass takes, with their game's last write (`ended_of`)."""


def ended_of(game_id: int, ended_at: object, updated_at: object) -> float:
    """When an unsettled game ended: its claim's time. One that is no time (text on SQLite,
    NaN or infinity) made the whole read raise, so no finished game anywhere was rated or
    recorded again; it is the game's last write instead (the move that ended it, unless
    something touched the row since), else now, logged."""
    for raw in (ended_at, updated_at):
        if is_time(raw):
            if raw is not ended_at:
                log.warning("unsettled_games: game %s ended at %r, which is no time; dated"
                            " by its last write", game_id, ended_at)
            return float(raw)
    log.warning("unsettled_games: game %s ended at %r, which is no time; dated now", game_id,
                ended_at)
    return time.time()


def switch_off(raw: object, guild_id: int) -> bool:
    """A server's stored ratings switch (`stats_servers.ratings_off`) as a bool. Only 0 and 1
    are ever written; anything else is damage, which used to read as "off" (any truthy text)
    and silently left every game of that server unrated. A damaged switch reads as the
    default (ratings on, as with no row at all), logged so the operator can set it again."""
    if is_flag(raw):
        return bool(raw)
    log.warning("stats_servers: the ratings switch of server %s could not be read (%r);"
                " ratings stay on (the default)", guild_id, raw)
    return False


def changes_for(scope: int, before: dict[int, Rating],
                after: dict[int, Rating]) -> list[Change]:
    return [Change(scope, u, before[u], after[u]) for u in sorted(before)]


def names_of(game: Finished) -> dict[int, str | None]:
    """The name each player sat under (None: not known, the stored one stays)."""
    return {s.user_id: s.name or None for s in game.seats}


def last_seat_name(last: Columns) -> str:
    """The name of a user's latest seat; "?" when the seat row is damaged (it broke the
    server's whole leaderboard page)."""
    try:
        return seat_name(last["seats"], int(last["seat"]))
    except UNREADABLE:
        return "?"


def seat_name(raw: str | None, seat: int) -> str:
    """The name a game row's seats JSON gives a seat ("?" for a damaged row)."""
    names = _names(raw, seat + 1)
    return names[seat]


RATING_UPSERT = (
    "INSERT INTO ratings (scope, user_id, mu, sigma, games, updated_at, name)"
    " VALUES ({}) ON CONFLICT (scope, user_id) DO UPDATE SET mu=excluded.mu,"
    " sigma=excluded.sigma, games=excluded.games, updated_at=excluded.updated_at,"
    " name=COALESCE(excluded.name, ratings.name)")


def _write_changes(con: sqlite3.Connection, changes: list[Change], game: Finished) -> None:
    now = game.ended_at
    names = names_of(game)
    for c in changes:
        con.execute(
            RATING_UPSERT.format("?,?,?,?,?,?,?"),
            (c.scope, c.user_id, c.after.mu, c.after.sigma, c.before.games + 1, now,
             names.get(c.user_id)))
        con.execute(
            "INSERT INTO rating_changes (game_id, scope, user_id, mu_before, sigma_before,"
            " games_before, mu_after, sigma_after, at) VALUES (?,?,?,?,?,?,?,?,?)",
            (game.game_id, c.scope, c.user_id, c.before.mu, c.before.sigma, c.before.games,
             c.after.mu, c.after.sigma, now))


def _changes(con: sqlite3.Connection, game_id: int) -> list[Change]:
    return readable(con.execute(
        "SELECT * FROM rating_changes WHERE game_id=? ORDER BY scope, user_id", (game_id,)),
        change_of, "rating_changes")


@dataclass(frozen=True, slots=True)
class Seen:
    """Who is reading a history: a game is theirs to see if they played in it or can see
    the channel it was played in (a private channel's games stay in it)."""

    viewer: int
    channels: frozenset[int]


def history_filter(user_id: int | None, channel_id: int | None, guild_id: int | None,
                   mark: str, seen_by: Seen | None = None) -> tuple[str, tuple[Any, ...]]:
    """The WHERE of a history (`mark`: the placeholder, `?` or `$`)."""
    conds, args = [], []
    k = 0

    def ph() -> str:
        nonlocal k
        k += 1
        return "?" if mark == "?" else f"${k}"
    if user_id is not None:
        conds.append(f"f.game_id IN (SELECT game_id FROM finished_seats WHERE user_id={ph()})")
        args.append(user_id)
    if channel_id is not None:
        conds.append(f"f.channel_id={ph()}")
        args.append(channel_id)
    if guild_id is not None:
        conds.append(f"f.guild_id={ph()}")
        args.append(guild_id)
    if seen_by is not None:
        either = [f"f.game_id IN (SELECT game_id FROM finished_seats WHERE user_id={ph()})"]
        args.append(seen_by.viewer)
        if seen_by.channels:
            either.append(f"f.channel_id IN ({', '.join(ph() for _ in seen_by.channels)})")
            args += sorted(seen_by.channels)
        conds.append("(" + " OR ".join(either) + ")")
    return " AND ".join(conds) or "1=1", tuple(args)


def played_of(r: Columns, seats: tuple[SeatResult, ...]) -> Played:
    return Played(int(r["game_id"]), r["guild_id"], int(r["channel_id"]), r["unrated"],
                  float(r["ended_at"]), _names(r["names"], len(seats)), seats)

