"""The ratings tables on PostgreSQL: the same methods and answers as ratings.py. Settling
is one transaction there too; the game's `finished_games` row is its key (a second process
inserting it waits for the first to commit, then inserts nothing and reads its changes),
and the ratings a game moves are locked (SELECT … FOR UPDATE, in user order) so two games
ending at once with a player in common both count, one after the other."""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Sequence

from .pg import Con, PgStore
from .ratings import (
    DAMAGED_RATING,
    HISTORY_COLUMNS,
    RATING_UPSERT,
    UNSETTLED,
    Change,
    Finished,
    Played,
    Point,
    Rate,
    Rating,
    RatingStore,
    SeatResult,
    Seen,
    change_of,
    changes_for,
    ended_of,
    history_filter,
    last_seat_name,
    names_of,
    played_of,
    players_seat,
    point_of,
    rating_of,
    readable,
    seat_of,
    switch_off,
    user_rating,
)
from .rows import report_set_aside, set_aside_row


async def _changes(con: Con, game_id: int) -> list[Change]:
    return readable(await con.fetch(
        "SELECT * FROM rating_changes WHERE game_id=$1 ORDER BY scope, user_id", game_id),
        change_of, "rating_changes")


async def _seats(con: Con, game_id: int) -> tuple[SeatResult, ...]:
    return tuple(readable(await con.fetch(
        "SELECT * FROM finished_seats WHERE game_id=$1 ORDER BY seat", game_id),
        seat_of, "finished_seats"))


class PgRatingStore(RatingStore):
    """ratings.py's RatingStore, written for asyncpg (see there for what each method means)."""

    def __init__(self, store: PgStore) -> None:  # the same tables, on PostgreSQL
        self.pg = store

    async def settle(self, game: Finished, scopes: Sequence[int], fresh: Rating,
                     rate: Rate) -> list[Change]:
        async def write(con: Con) -> list[Change]:
            done = await con.fetchval(
                "INSERT INTO finished_games (game_id, guild_id, channel_id, players, unrated,"
                " ended_at) VALUES ($1,$2,$3,$4,$5,$6) ON CONFLICT DO NOTHING RETURNING 1",
                game.game_id, game.guild_id, game.channel_id, len(game.seats), game.unrated,
                game.ended_at)
            await con.execute("DELETE FROM unsettled_games WHERE game_id=$1", game.game_id)
            if done is None:
                return await _changes(con, game.game_id)
            await con.executemany(
                "INSERT INTO finished_seats (game_id, seat, user_id, place, won, units)"
                " VALUES ($1,$2,$3,$4,$5,$6)",
                [(game.game_id, s.seat, s.user_id, s.place, int(s.won), json.dumps(s.units))
                 for s in game.seats])
            if game.unrated is not None:
                return []
            users = sorted({s.user_id for s in game.seats})
            out: list[Change] = []
            for scope in scopes:
                # a new player's row first, so that it is locked too (two games ending at
                # once with a newcomer in common must not both start from the fresh rating)
                await con.executemany(
                    "INSERT INTO ratings (scope, user_id, mu, sigma, games, updated_at)"
                    " VALUES ($1,$2,$3,$4,0,$5) ON CONFLICT DO NOTHING",
                    [(scope, u, fresh.mu, fresh.sigma, game.ended_at) for u in users])
                rows = await con.fetch(
                    "SELECT * FROM ratings WHERE scope=$1"
                    " AND user_id = ANY($2::bigint[]) ORDER BY user_id FOR UPDATE",
                    scope, users)
                stored = dict(readable(rows, user_rating, "ratings"))
                damaged = [dict(r) for r in rows if int(r["user_id"]) not in stored]
                await con.executemany(
                    "INSERT INTO set_aside (source, game_id, data, reason, at)"
                    " VALUES ($1,$2,$3,$4,$5)",
                    [set_aside_row("ratings", r, DAMAGED_RATING) for r in damaged])
                report_set_aside("ratings", damaged, DAMAGED_RATING)
                before = {u: stored.get(u, fresh) for u in users}
                out += changes_for(scope, before, rate(dict(before)))
            names = names_of(game)
            for c in out:
                await con.execute(
                    RATING_UPSERT.format("$1,$2,$3,$4,$5,$6,$7"),
                    c.scope, c.user_id, c.after.mu, c.after.sigma, c.before.games + 1,
                    game.ended_at, names.get(c.user_id))
                await con.execute(
                    "INSERT INTO rating_changes (game_id, scope, user_id, mu_before,"
                    " sigma_before, games_before, mu_after, sigma_after, at)"
                    " VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)",
                    game.game_id, c.scope, c.user_id, c.before.mu, c.before.sigma,
                    c.before.games, c.after.mu, c.after.sigma, game.ended_at)
            return out
        return await self.pg.run_write(write)

    async def changes(self, game_id: int) -> list[Change]:
        return await self.pg.run_read(_changes, game_id)

    async def unsettled(self, limit: int) -> list[tuple[int, float]]:
        async def read(con: Con) -> list[tuple[int, float]]:
            return [(int(r[0]), ended_of(r[0], r[1], r[2])) for r in await con.fetch(
                UNSETTLED.format("$1"), limit)]
        return await self.pg.run_read(read)

    async def drop_unsettled(self, game_id: int) -> None:
        async def write(con: Con) -> None:
            await con.execute("DELETE FROM unsettled_games WHERE game_id=$1", game_id)
        await self.pg.run_write(write)

    async def names(self, scope: int, users: Sequence[int]) -> dict[int, str]:
        async def read(con: Con) -> dict[int, str]:
            out: dict[int, str] = {}
            for u in users:
                name = await con.fetchval("SELECT name FROM ratings WHERE scope=$1"
                                          " AND user_id=$2", scope, u)
                if name:
                    out[u] = str(name)
                    continue
                last = await con.fetchrow(
                    "SELECT s.seat, g.seats FROM finished_seats s JOIN games g"
                    " ON g.id=s.game_id WHERE s.user_id=$1 ORDER BY s.game_id DESC LIMIT 1", u)
                if last is not None:
                    out[u] = last_seat_name(last)
            return out
        return await self.pg.run_read(read)

    async def rating(self, scope: int, user_id: int) -> Rating | None:
        async def read(con: Con) -> Rating | None:
            r = await con.fetchrow("SELECT mu, sigma, games FROM ratings WHERE scope=$1"
                                   " AND user_id=$2", scope, user_id)
            found = readable([r] if r is not None else [], rating_of, "ratings")
            return found[0] if found else None
        return await self.pg.run_read(read)

    async def board(self, scope: int) -> list[tuple[int, Rating]]:
        async def read(con: Con) -> list[tuple[int, Rating]]:
            return readable(await con.fetch(
                "SELECT user_id, mu, sigma, games FROM ratings WHERE scope=$1", scope),
                user_rating, "ratings")
        return await self.pg.run_read(read)

    async def points(self, scope: int, user_id: int) -> list[Point]:
        async def read(con: Con) -> list[Point]:
            return readable(await con.fetch(
                "SELECT game_id, at, mu_after, sigma_after, games_before FROM rating_changes"
                " WHERE scope=$1 AND user_id=$2 ORDER BY at, game_id", scope, user_id),
                point_of, "rating_changes")
        return await self.pg.run_read(read)

    async def seats_of(self, user_id: int) -> list[tuple[int, SeatResult]]:
        async def read(con: Con) -> list[tuple[int, SeatResult]]:
            return readable(await con.fetch(
                "SELECT f.players, s.* FROM finished_seats s JOIN finished_games f"
                " ON f.game_id=s.game_id WHERE s.user_id=$1 ORDER BY s.game_id", user_id),
                players_seat, "finished_seats")
        return await self.pg.run_read(read)

    async def history(self, *, user_id: int | None = None, channel_id: int | None = None,
                      guild_id: int | None = None, limit: int = 10, offset: int = 0,
                      seen_by: Seen | None = None) -> tuple[list[Played], int]:
        where, args = history_filter(user_id, channel_id, guild_id, "$", seen_by)
        n = len(args)

        async def read(con: Con) -> tuple[list[Played], int]:
            total = await con.fetchval(
                f"SELECT COUNT(*) FROM finished_games f JOIN games g"  # noqa: S608
                f" ON g.id=f.game_id WHERE {where}", *args)  # counted as listed
            rows = await con.fetch(
                f"SELECT {HISTORY_COLUMNS} FROM finished_games f JOIN games g"  # noqa: S608
                f" ON g.id=f.game_id WHERE {where} ORDER BY f.game_id DESC"
                f" LIMIT ${n + 1} OFFSET ${n + 2}", *args, limit, offset)
            out: list[Played] = []
            for r in rows:
                seats = await _seats(con, r["game_id"])
                out += readable([r], functools.partial(played_of, seats=seats),
                                "finished_games")
            return out, int(total)
        return await self.pg.run_read(read)

    async def finished(self, game_id: int) -> Played | None:
        async def read(con: Con) -> Played | None:
            r = await con.fetchrow(f"SELECT {HISTORY_COLUMNS} FROM finished_games f"  # noqa: S608
                                   " JOIN games g ON g.id=f.game_id WHERE f.game_id=$1",
                                   game_id)
            if r is None:
                return None
            found = readable([r], functools.partial(played_of, seats=await _seats(con, game_id)),
                             "finished_games")
            return found[0] if found else None
        return await self.pg.run_read(read)

    async def hidden(self, user_id: int) -> bool:
        async def read(con: Con) -> bool:
            return await con.fetchval("SELECT 1 FROM stats_hidden WHERE user_id=$1",
                                      user_id) is not None
        return await self.pg.run_read(read)

    async def hidden_users(self) -> set[int]:
        async def read(con: Con) -> set[int]:
            return {int(r[0]) for r in await con.fetch("SELECT user_id FROM stats_hidden")}
        return await self.pg.run_read(read)

    async def hide(self, user_id: int, hidden: bool) -> None:
        async def write(con: Con) -> None:
            if hidden:
                await con.execute("INSERT INTO stats_hidden (user_id, at) VALUES ($1, $2)"
                                  " ON CONFLICT DO NOTHING", user_id, time.time())
            else:
                await con.execute("DELETE FROM stats_hidden WHERE user_id=$1", user_id)
        await self.pg.run_write(write)

    async def ratings_off(self, guild_id: int) -> bool:
        async def read(con: Con) -> bool:
            return switch_off(await con.fetchval(
                "SELECT ratings_off FROM stats_servers WHERE guild_id=$1", guild_id), guild_id)
        return await self.pg.run_read(read)

    async def set_ratings_off(self, guild_id: int, off: bool) -> None:
        async def write(con: Con) -> None:
            await con.execute(
                "INSERT INTO stats_servers (guild_id, ratings_off) VALUES ($1, $2) ON CONFLICT"
                " (guild_id) DO UPDATE SET ratings_off=excluded.ratings_off", guild_id,
                int(off))
        await self.pg.run_write(write)
