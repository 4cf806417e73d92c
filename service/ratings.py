"""Ratings, profiles and the history of finished channel games (issue 24; docs/ratings.md).

The model is OpenSkill's Bradley-Terry with partial pairing: a free-for-all of any size is
rated from the order the players finished in, each player against the ones placed next to
it, and players who share a place are tied — a Rook & Raiders result: two to four players,
winners sharing first, the others by `places`. Plackett-Luce, which OpenSkill recommends
for free-for-all, was the first choice; in openskill 6.2.0 it treats every player tied at
a rank as "itself", so a shared result moved the wrong way (places 1, 1, 3, 4: the third
gained as much as the winners), and its fix is not released (docs/ratings.md).

A rating is (mu, sigma) — the skill and how unsure the model still is of it. It is shown as
mu with one decimal, marked "?" while *provisional*: fewer than `PROVISIONAL_GAMES` rated
games. Why five: the update to mu is proportional to sigma², and sigma starts at 25/3 ≈
8.33; after five 2–4 player games between newcomers it is 7.1–7.3, below 7.5 — 90 % of
where it started — so one more result moves the rating at most about 80 % as much as a
newcomer's first game did: from then on it no longer jumps with each result (measured with
openskill 6.2.0, docs/ratings.md).

Rated: a finished channel game of two or more people, every seat a person's from start to
end. AI seats from the lobby, an AI standing in for a player who ran out of time (zombie
mode, even if they came back), a solo game, a daily game or a server that turned ratings
off make it unrated — said when the game starts. The move that ends a game claims its
settling in the same transaction (`unsettled_games`); the game-over post settles it to show
the changes, and `settle_due` (every time-limit pass, and at startup) settles any claim
left — a post Discord never took, a store fault, a crash — so a game's rating never hangs
on its delivery (store/ratings.py: once per game id, whichever process gets there first).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openskill.models import BradleyTerryPart

from engine import Game
from engine.state import threat
from store import (
    GameRow,
    GameStore,
    StoreBusy,
    StoreUnavailable,
    StoreUncertain,
    ratings_store,
)
from store.ratings import (
    EVERYWHERE,
    Change,
    Finished,
    Played,
    Point,
    Rate,
    Rating,
    RatingStore,
    SeatResult,
)

from .meta import meta_flag, zombies
from .replay import Frame, replay
from .tables import Quarantined

log = logging.getLogger("rr.ratings")
MODEL = BradleyTerryPart()
FRESH = Rating(MODEL.mu, MODEL.sigma, 0)
PROVISIONAL_GAMES = 5
BOARD_PAGE = 10
HISTORY_PAGE = 5
FAVOURITES = 3  # units and mercenaries named on a profile
SETTLE_BATCH = 20  # unsettled games taken by one pass (the rest: the next pass)


def provisional(r: Rating) -> bool:
    return r.games < PROVISIONAL_GAMES


def shown(r: Rating) -> str:
    """A rating as players read it: mu, one decimal, "?" while provisional."""
    return f"{r.mu:.1f}{'?' if provisional(r) else ''}"


def delta(c: Change) -> str:
    d = c.after.mu - c.before.mu
    return f"{'+' if d >= 0 else '−'}{abs(d):.1f}"


def played_name(g: Played, seat: int) -> str:
    """A history line's name of a seat; "?" for a damaged row's seat (no such name)."""
    return g.names[seat] if 0 <= seat < len(g.names) else "?"


def played_day(g: Played) -> str:
    """A history line's date (UTC); "?" for a damaged row's time (out of any calendar), so
    the line, and the page of lines, still reads."""
    try:
        return dt.datetime.fromtimestamp(g.ended_at, dt.UTC).date().isoformat()
    except (OverflowError, OSError, ValueError):
        return "?"


def unrated_reason(row: GameRow, ratings_off: bool) -> str | None:
    """Why a channel game does not count for ratings, or None when it does."""
    if row.settings.get("daily") or len(row.seats) < 2:
        return "solo"
    if row.guild_id is None:  # a console game: one terminal types for every seat
        return "local"
    if any(int(s["user"]) <= 0 or s.get("ai") for s in row.seats):
        return "ai"
    if zombies(row.meta) or meta_flag(row.meta, "ai_stood_in"):
        return "zombie"
    if ratings_off or meta_flag(row.meta, "ratings_off"):  # off now, or when it started
        return "off"
    return None


def places(result: Mapping[str, Any], seats: int, out_at: Mapping[int, int] | None = None,
           threats: Sequence[int] | None = None) -> list[int]:
    """Each seat's place (1 = first): winners share first; then the players still standing,
    in the engine's ranking, those of equal `threats` sharing a place; then those knocked
    out (R9.3) or gone (a resign, a removal), the last out first — `out_at` says when each
    went (the step of the game; one step, one shared place). The rulebook ranks below the
    winner only "if you must, by lower threat" (p.26, R14.4): the engine's further order of
    equal threats by honor marks and gold, then by seat, is its own, and rated two players
    the rules cannot tell apart as a win and a loss. The engine's ranking orders the
    knocked-out by seat alone, and a player out in round 1 must not be placed above one who
    held on to round 6. A game nobody won (the monsters did) is a draw between all: no
    player beat another."""
    winners = {int(s) for s in result.get("winners", [])}
    if not winners:
        return [1] * seats
    out_at = out_at or {}
    ranking = [int(s) for s in result.get("ranking", range(seats))]
    others = [s for s in ranking if s not in winners and 0 <= s < seats]
    order = {s: (0, k) if s not in out_at else (1, -out_at[s]) for k, s in enumerate(others)}
    others.sort(key=order.__getitem__)
    out = [1 if s in winners else 0 for s in range(seats)]
    for k, s in enumerate(others):
        tied = k > 0 and ties(order[others[k - 1]], order[s], threats, others[k - 1], s)
        out[s] = out[others[k - 1]] if tied else len(winners) + k + 1
    return [p or seats for p in out]


def ties(before: tuple[int, int], this: tuple[int, int], threats: Sequence[int] | None,
         seat_before: int, seat: int) -> bool:
    """Whether a seat shares the place of the one placed just before it (`places`): both
    out in the same step, or both standing on one threat."""
    if this[0] == 1:
        return before == this
    return threats is not None and before[0] == 0 and threats[seat] == threats[seat_before]


def units_brought(frames: Sequence[Frame], seats: int) -> list[dict[str, int]]:
    """Per seat, the units it put on its board (placed or recruited) and the mercenaries
    it hired ("merc:card"), from the game's public events (a profile's favourites)."""
    out: list[dict[str, int]] = [{} for _ in range(seats)]
    for frame in frames:
        for event in frame.events:
            e: Mapping[str, Any] = event
            if e.get("type") in ("placed", "recruited") and 0 <= int(e["player"]) < seats:
                key = f"merc:{e['card']}" if e.get("mercenary") else str(e["card"])
                out[int(e["player"])][key] = out[int(e["player"])].get(key, 0) + 1
    return out


def out_at(frames: Sequence[Frame]) -> dict[int, int]:
    """When each player left the game: the step (card or phase) of its elimination event."""
    out: dict[int, int] = {}
    for k, frame in enumerate(frames):
        for event in frame.events:
            e: Mapping[str, Any] = event
            if e.get("type") == "eliminated":
                out[int(e["player"])] = k
    return out


def gone(frames: Sequence[Frame]) -> dict[int, bool]:
    """Each player who left the game: whether it resigned (or was removed) rather than
    knocked out (R9.3)."""
    out: dict[int, bool] = {}
    for frame in frames:
        for event in frame.events:
            e: Mapping[str, Any] = event
            if e.get("type") == "eliminated":
                out[int(e["player"])] = bool(e.get("resigned"))
    return out


def placed(row: GameRow, g: Game,
           log: Sequence[Sequence[Any]]) -> tuple[Sequence[Frame], list[int]]:
    """The finished game replayed, and each seat's place (`places`): what the ratings move
    by and the game-over post says, read the one way."""
    assert row.setup is not None
    frames = replay(row.setup, log).frames
    threats = [threat(g.cards, p) for p in g.state["players"]]
    return frames, places(g.result or {}, len(row.seats), out_at(frames), threats)


def standings(row: GameRow, g: Game, log: Sequence[Sequence[Any]]) -> list[tuple[int, int, str]]:
    """The game-over post's places (R9.3, R14.4): (place, seat, how) best first, `how` ""
    for a winner or a player still standing, "eliminated" or "resigned" for one who left —
    the places the ratings move by (`places`). None where the winner line says it all: two
    seats, nobody won, or everyone shares the win."""
    result: Mapping[str, Any] = g.result or {}
    n = len(row.seats)
    winners = {int(s) for s in result.get("winners", [])}
    if n < 3 or not winners or len(winners) == n:
        return []
    frames, where = placed(row, g, log)
    left = gone(frames)
    how = {s: "" if s in winners or s not in left else "resigned" if left[s] else "eliminated"
           for s in range(n)}
    return sorted(((where[s], s, how[s]) for s in range(n)), key=lambda p: (p[0], p[1]))


def finished_of(row: GameRow, g: Game, log: Sequence[Sequence[Any]], unrated: str | None,
                now: float) -> Finished:
    result: Mapping[str, Any] = g.result or {}
    n = len(row.seats)
    frames, where = placed(row, g, log)
    winners = {int(s) for s in result.get("winners", [])}
    units = units_brought(frames, n)
    return Finished(row.id, row.guild_id, row.channel_id, unrated, now, tuple(
        SeatResult(s, int(row.seats[s]["user"]), where[s], s in winners, units[s],
                   str(row.seats[s].get("name", "")))
        for s in range(n)))


def rate_by(game: Finished) -> Rate:
    """The model's update for `game`'s places, as a function of the ratings before it."""
    place = {s.user_id: s.place for s in game.seats}

    def rate(before: dict[int, Rating]) -> dict[int, Rating]:
        users = sorted(before)
        teams = [[MODEL.rating(mu=before[u].mu, sigma=before[u].sigma)] for u in users]
        after = MODEL.rate(teams, ranks=[float(place[u]) for u in users])
        return {u: Rating(t[0].mu, t[0].sigma, before[u].games + 1)
                for u, t in zip(users, after, strict=True)}
    return rate


@dataclass(frozen=True, slots=True)
class Profile:
    games: int
    wins: int
    by_players: dict[int, tuple[int, int]]  # players at the table → (games, wins)
    units: list[tuple[str, int]]  # favourite units (card key, times brought in)
    mercenaries: list[tuple[str, int]]
    server: Rating | None
    everywhere: Rating | None
    points: list[Point] = field(default_factory=list)  # the server's (else the bot's) chart


class Ratings:
    """The ratings of one store (either backend), for every interface."""

    def __init__(self, store: GameStore) -> None:
        self.store = store
        self.tables: RatingStore = ratings_store(store)

    async def unrated(self, row: GameRow) -> str | None:
        off = row.guild_id is not None and await self.tables.ratings_off(row.guild_id)
        return unrated_reason(row, off)

    async def settle(self, row: GameRow, g: Game, log: Sequence[Sequence[Any]],
                     now: float) -> tuple[str | None, list[Change]]:
        """Settle a finished channel game once (whoever asks first) and return why it is
        unrated (None: rated) and its rating changes — the same to every caller."""
        # the replay behind the favourites runs off the event loop
        game = await asyncio.to_thread(finished_of, row, g, log, await self.unrated(row), now)
        scopes = [EVERYWHERE] + ([row.guild_id] if row.guild_id else [])
        changes = await self.tables.settle(game, scopes, FRESH, rate_by(game))
        # as it was settled (by this call or an earlier one: the server's switch may have
        # moved since), so every post of the game says the same
        stored = await self.tables.finished(row.id)
        return (stored.unrated if stored is not None else game.unrated), changes

    async def settle_due(self, load: Callable[[GameRow], Awaitable[Game]],
                         limit: int = SETTLE_BATCH) -> int:
        """Settle the games that ended and are still unsettled (the claim their last move
        wrote), whatever became of their game-over post, each dated by its end (a game a
        restart settles days later was still played that day). `load` verifies a stored game
        (service/tables.py); a damaged one cannot be replayed and is left unsettled, logged.
        A store fault stops the pass: the claims stay for the next one. Returns how many
        were settled."""
        done = 0
        store_trouble: tuple[type[BaseException], ...] = (
            StoreBusy, StoreUncertain, StoreUnavailable, asyncio.CancelledError,
            *self.store.faults)
        for game_id, ended_at in await self.tables.unsettled(limit):
            row = await self.store.get(game_id)
            if row is None or row.status != "over" or row.setup is None:
                log.warning("game %s: ended but no longer a finished game; not settled",
                            game_id)
                await self.tables.drop_unsettled(game_id)
                continue
            try:
                g = await load(row)
                await self.settle(row, g, g.state["log"], ended_at)
            except Quarantined as e:
                if e.reason.get("kind") == "newer":  # a newer release ended it: it settles it
                    log.info("game %s: ended by a newer release; left for it to settle",
                             game_id)
                    continue
                log.warning("game %s: damaged, so not settled", game_id)  # nor replayed
                await self.tables.drop_unsettled(game_id)
                continue
            except store_trouble:
                # the store's trouble (a disk full, a lost connection), not this game's: the
                # claims wait for the next pass (the fault-injection audits: one transient
                # error dropped a game's rating and history for good)
                raise
            except Exception:  # this game's own fault: never a queue stuck behind one row
                log.exception("game %s: could not be settled; its claim is dropped", game_id)
                await self.tables.drop_unsettled(game_id)
                continue
            done += 1
        return done

    async def profile(self, user_id: int, guild_id: int | None) -> Profile:
        seats = await self.tables.seats_of(user_id)
        by_players: dict[int, tuple[int, int]] = {}
        units: dict[str, int] = {}
        for players, s in seats:
            g, w = by_players.get(players, (0, 0))
            by_players[players] = (g + 1, w + int(s.won))
            for k, n in s.units.items():
                units[k] = units.get(k, 0) + n
        best = sorted(units.items(), key=lambda kv: (-kv[1], kv[0]))
        server = await self.tables.rating(guild_id, user_id) if guild_id else None
        everywhere = await self.tables.rating(EVERYWHERE, user_id)
        points = await self.tables.points(guild_id if server is not None and guild_id
                                          else EVERYWHERE, user_id)
        return Profile(len(seats), sum(int(s.won) for _, s in seats), dict(sorted(
            by_players.items())),
            [(k, n) for k, n in best if not k.startswith("merc:")][:FAVOURITES],
            [(k.removeprefix("merc:"), n) for k, n in best if k.startswith("merc:")]
            [:FAVOURITES], server, everywhere, points)

    async def board(self, guild_id: int) -> list[tuple[int, Rating]]:
        """A server's ratings, best first: established ratings by mu, then provisional
        ones (a lucky first game does not top the board)."""
        return sorted(await self.tables.board(guild_id),
                      key=lambda ur: (provisional(ur[1]), -ur[1].mu, ur[0]))
