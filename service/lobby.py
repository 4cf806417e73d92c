"""The lobby: a channel's game from `/rr new` to its start, and its end by abandon.

A lobby seats its host, the people who join and the AI players the host adds (bot seats,
service/seats.py); the host starts it: the setup, the answers resolved on their own, the
timers and the opening announcement are one store transaction. A host that prepares its
games itself (the daily challenge, service/daily_attempts.py) builds the same `opening` and
commits it in a transaction of its own.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Collection, Mapping
from functools import partial
from typing import Any

from engine import Event, Game
from engine.flow import RULES_VERSION
from engine.rng import KEY_BYTES
from store import (
    Commit,
    GameRow,
    Seat,
    Settings,
    StoreBusy,
    StoreUncertain,
    VersionConflict,
    ratings_store,
)

from .errors import ServiceError
from .levels import SOLO_LEVELS, level_options
from .outcomes import Abandoned, Opening, Outcome, Told, auto_answers, deadlines_of
from .seats import (
    add_bots,
    ai_played,
    channel_settings,
    check_bots,
    check_level,
    current_name,
    plain_names,
    unclashed,
)
from .tables import (
    DEFAULT_LIMIT_S,
    MAX_LIMIT_S,
    MIN_LIMIT_S,
    Quarantined,
    Tables,
    stale_other,
    store_refusal,
)

log = logging.getLogger("rr.service")


class Lobby:
    """`new_lobby`, `join`, `leave`, `add_bot`, `remove_bot`, `start` (or `opening` then
    `opened`), `abandon`."""

    def __init__(self, tables: Tables, seed_source: Callable[[], int] | None = None,
                 cards_data: dict[str, Any] | None = None) -> None:
        self.tables = tables
        self.cards_data = cards_data  # a custom card set for new games (kept in their setup)
        # Seeds chosen by hand (tests, the console's --seed) deal with splitmix64 from that
        # seed: it is public anyway. Without one, every game gets a fresh 256-bit key for the
        # keyed generator: a 31-bit seed could be searched from the first rounds' public
        # table, and with it every deck order, face-down chip, secret medal and die to come.
        self.seed_source = seed_source

    async def new_lobby(self, guild_id: int | None, channel_id: int, user_id: int, name: str,
                        players: int = 4, difficulty: str | None = None,
                        time_limit_s: int = DEFAULT_LIMIT_S, lang: str = "en",
                        bots: int = 0, bot_level: str = "random") -> GameRow:
        """A lobby with the host seated, and `bots` AI players of `bot_level` (seats.py)."""
        tables = self.tables
        if not 1 <= players <= 4:
            raise ServiceError.of("svc.players")
        if difficulty is not None and difficulty not in SOLO_LEVELS:
            raise ServiceError.of("svc.difficulty")
        check_bots(players, difficulty, bots, bot_level)
        tables.shards.check(guild_id)
        if difficulty is not None and players != 1:
            raise ServiceError.of("svc.difficulty_solo")
        if not MIN_LIMIT_S <= time_limit_s <= MAX_LIMIT_S:
            raise ServiceError.of("svc.time_limit")
        latest = await tables.store.latest_game(channel_id)
        if latest is not None and latest.status == "active":
            held = await tables.store.quarantined(latest.id)
            if held is not None:  # say why, and that abandoning it frees the channel
                raise Quarantined(latest, held)
        if latest is not None and latest.status in ("lobby", "active"):
            raise ServiceError.of("svc.has_game")
        if latest is not None:  # a finished game stops being the channel's game: forget it
            tables.forget(latest.id)
        settings: Settings = {"players": players, "difficulty": difficulty,
                              "time_limit_s": time_limit_s, "lang": lang}
        settings.update(_kept_settings(latest))
        # the AI players are written with the lobby: a crash between two writes left a
        # lobby without them, and the host's second try was refused (the channel's game)
        seats: list[Seat] = [{"user": user_id, "name": name}]
        add_bots(seats, settings, bots, bot_level)
        try:
            row = await tables.store.create_lobby(guild_id, channel_id, user_id, name, settings,
                                                  seats[1:])
        except VersionConflict as e:
            raise ServiceError.of("svc.has_game_short") from e
        return row

    async def join(self, channel_id: int, user_id: int, name: str) -> GameRow:
        def seat(row: GameRow) -> None:
            if row.seat_of(user_id) is not None:
                raise ServiceError.of("svc.already_in")
            if len(row.seats) >= row.settings["players"]:
                raise ServiceError.of("svc.full", n=row.settings["players"])
            row.seats.append({"user": user_id, "name": distinct(name, row)})
        async with self.tables.lock(channel_id):
            return await self._change(channel_id, seat)

    async def _change(self, channel_id: int, change: Callable[[GameRow], None]) -> GameRow:
        """`change` (which may refuse) made to the channel's lobby as stored and written,
        under the channel's lock. Written only over the lobby it was made to: when another
        process changed the seats in between (two processes on one shard), the change is
        made again to the lobby as it now is, so neither's is lost (the multi-process audit:
        a join there was overwritten, its player told "joined")."""
        for _ in range(3):
            row = await self.tables.lobby(channel_id)
            change(row)
            try:
                await self.tables.store.update_lobby(row)
            except VersionConflict:
                continue
            return row
        raise stale_other()

    async def leave(self, channel_id: int, user_id: int) -> GameRow:
        """Out of the lobby. After a game has ended there is nothing to leave, and the
        refusal says the game is over (`GameOver`), as `status` shows it, not "no game here"
        (the English new-player audit); a spectator of a game begun is told they are not
        playing in it."""
        async with self.tables.lock(channel_id):
            found = await self.tables.store.open_game(channel_id)
            if found is None:
                await self.tables.current(channel_id, mine=False)  # raises: over, or none
            elif found.status == "active" and found.seat_of(user_id) is None:
                # a spectator of a game begun: not "already started", which reads as if
                # they had a seat to leave too late (the Discord audit)
                raise ServiceError.of("svc.not_player", code="not_player")
            return await self._change(channel_id, partial(_unseat, user_id))

    async def add_bot(self, channel_id: int, user_id: int, level: str,
                      count: int = 1) -> GameRow:
        """The host seats AI players in the lobby."""
        def seat(row: GameRow) -> None:
            if user_id != row.host_id:
                raise ServiceError.of("svc.host_ai")
            if row.settings.get("difficulty") is not None:
                raise ServiceError.of("svc.solo_host")
            add_bots(row.seats, row.settings, count, level)
        async with self.tables.lock(channel_id):
            return await self._change(channel_id, seat)

    async def remove_bot(self, channel_id: int, user_id: int) -> GameRow:
        """The host takes the last AI player out of the lobby."""
        def unseat(row: GameRow) -> None:
            if user_id != row.host_id:
                raise ServiceError.of("svc.host_ai")
            bots = [k for k, s in enumerate(row.seats) if s.get("ai")]
            if not bots:
                raise ServiceError.of("svc.no_ai")
            row.seats.pop(bots[-1])
        async with self.tables.lock(channel_id):
            return await self._change(channel_id, unseat)

    async def start(self, channel_id: int, user_id: int, *, seed: int | None = None,
                    options: dict[str, Any] | None = None,
                    rng_key: bytes | None = None, rules: int | None = None,
                    host_gone: bool = False) -> Outcome:
        """Start the lobby's game; `seed` and `options` (engine setup options) are given by
        hosts that prepare the game themselves (the daily challenge), else drawn fresh.
        `rng_key`: the game draws with the engine's keyed generator (the daily challenge);
        `rules`: the rules' readings it is played under (a daily day's: `Challenge.rules`).
        `host_gone`: the host has left the server; the refusal says how to go on."""
        async with self.tables.lock(channel_id):
            for _ in range(3):
                row = await self.tables.lobby(channel_id)
                if user_id != row.host_id:
                    raise _not_host(row, host_gone)
                if row.settings.get("difficulty") is not None and len(row.seats) != 1:
                    raise ServiceError.of("svc.solo_host")
                op = self.opening(plain_names(row), row.settings, seed=seed,
                                  options=options, rng_key=rng_key, ai_seats=ai_played(row),
                                  rules=rules)
                done = await self._commit_start(row, op)
                if done is not None:
                    return self.opened(done, op)
            raise stale_other()

    async def _commit_start(self, row: GameRow, op: Opening) -> Commit | None:
        """The setup, the answers resolved on their own (logged like any others), the
        timers and the announcement: one transaction, over the lobby's seats as read. None
        when another process changed them since (a join there was left out of the game
        while its player was told "joined"; the multi-process audit): start again."""
        # A server with ratings off when the game starts: its start post says it is not
        # rated, and it stays so (the switch turned on later moves nothing)
        off = row.guild_id is not None and \
            await ratings_store(self.tables.store).ratings_off(row.guild_id)
        try:
            return await self.tables.store.start(
                row.id, row.seats, op.game.setup, op.game.to_json(), op.entries, op.timers,
                notice=op.notice, meta={**row.meta, "ratings_off": True} if off else None,
                lobby=row.version)
        except VersionConflict as e:
            fresh = await self.tables.store.get(row.id)
            if fresh is not None and fresh.status == "lobby":
                return None
            raise ServiceError.of("svc.started") from e
        except (StoreBusy, StoreUncertain) as e:
            raise store_refusal(e) from e  # type: ignore[misc]

    def opening(self, names: list[str], settings: Mapping[str, Any], *,
                seed: int | None = None, options: dict[str, Any] | None = None,
                rng_key: bytes | None = None, ai_seats: Collection[int] = (),
                rules: int | None = None) -> Opening:
        """A new game set up and its first trivial answers resolved, in memory only: what
        `start` commits from a lobby, and what a host that prepares its games itself (the
        daily challenge) commits in a transaction of its own, then hands to `opened`.
        `rng_key`: the game draws with the engine's keyed generator (the daily challenge);
        `rules`: the rules' readings (the daily's day names them; else this release's);
        `ai_seats`: the seats an AI plays (their reminders are due at once,
        `Tables.timers_for`)."""
        options = dict(options or {})
        level = settings.get("difficulty")
        if len(names) == 1 and level is not None:  # a solo level is its setup options
            for key, value in level_options(level).items():
                options.setdefault(key, value)
        setup_ev: list[Event] = []
        if seed is None and self.seed_source is not None:
            seed = self.seed_source()
        elif seed is None and rng_key is None:  # a game nobody chose a seed for: keyed
            seed, rng_key = 0, secrets.token_bytes(KEY_BYTES)  # (the seed plays no part)
        g = Game.new(names, seed=seed or 0, options=options, cards_data=self.cards_data,
                     events=setup_ev, key=rng_key, rules=rules or RULES_VERSION)
        ev: list[Told] = list(setup_ev)
        auto_answers(g, ev)
        entries: list[tuple[int, int | None, str]] = [(s, None, t) for s, t in g.log]
        prompts = g.waiting_for()
        notice = {"kind": "start", "to": len(entries), "prompts": prompts} \
            if self.tables.notify else None
        return Opening(g, ev, entries, prompts, self.tables.timers_for(settings, g, ai_seats),
                       notice)

    def opened(self, done: Commit, op: Opening) -> Outcome:
        """The game `op` as committed (`done`): kept in memory, and what to announce."""
        self.tables.remember(done.row, op.game, done.timers)
        return Outcome(done.row, op.game, op.events, None, "start", prompts=op.prompts,
                       finished=["setup"], deadlines=deadlines_of(done.timers),
                       notice=done.notice)

    async def abandon(self, channel_id: int, user_id: int, can_manage: bool,
                      by: str = "", *, confirmed: bool = True,
                      host_gone: bool = False) -> Abandoned:
        """The host (or a manager) ends the channel's lobby or game; nobody wins. A game
        begun ends only `confirmed` (checked under the channel's lock, so a Start landing
        meanwhile is not abandoned unasked). `by` names who, for the channel's notice,
        queued with the status where an interface tells from the outbox
        (`Tables.notify`): a crash right after still tells it. `host_gone`: the host has
        left the server, so a player seated in the lobby may close it (the community
        audit: else the channel was blocked until a moderator came by)."""
        async with self.tables.lock(channel_id):
            row = await self.tables.hosted(channel_id, user_id, can_manage, "svc.host_abandon",
                                           host_gone=host_gone)
            if row.status == "active" and not confirmed:
                raise ServiceError.of("svc.abandon_begun")
            notice = {"kind": "abandoned", "by": by} if self.tables.notify else None
            notice_id = await self.tables.store.set_status(row.id, "abandoned", notice)
            self.tables.forget(row.id)
        return Abandoned(row, by, notice_id)

    async def channel_gone(self, channel_id: int, game_id: int) -> bool:
        """The game's channel was deleted (Discord said so): nobody can answer in it again,
        so the game is abandoned, untold (there is nowhere to tell it), instead of timing
        its seats out at every limit for the rest of its rounds (the timers audit). A lobby
        there is closed the same way (one write: its status, and no timers to drop): its
        buttons and commands are gone with the channel, and it stayed open for good. True
        when it was ended here."""
        async with self.tables.lock(channel_id):
            row = await self.tables.store.get(game_id)
            if row is None or row.status not in ("lobby", "active") or \
                    row.channel_id != channel_id:
                return False
            await self.tables.store.set_status(row.id, "abandoned")
            self.tables.forget(row.id)
        log.warning("game %s: its channel %s is gone (deleted); the %s is abandoned",
                    game_id, channel_id, "game" if row.status == "active" else "lobby")
        return True

    async def channel_deleted(self, channel_id: int) -> bool:
        """Discord said the channel was deleted (its gateway event, before any post met the
        404): its game in play, or its lobby, ends as `channel_gone` says, at once — a held
        game was else kept, and tried every hour, for good. True when it was ended here."""
        row = await self.tables.store.open_game(channel_id)
        if row is None or row.settings.get("daily"):
            return False
        return await self.channel_gone(channel_id, row.id)


def _kept_settings(latest: GameRow | None) -> Settings:
    """What a new lobby keeps from the channel's last game (seats.channel_settings); when
    that game's settings cannot be read, or name an AI level that does not exist, the new
    game starts with the defaults and the operator is told."""
    if latest is None:
        return {}
    if "settings" in latest.damage:
        log.warning("channel %s: the settings of its last game (#%s) could not be read; a new "
                    "game starts with the defaults", latest.channel_id, latest.id)
    kept = channel_settings(latest)
    if "zombie" in kept:
        try:
            check_level(str(kept["zombie"]))
        except ServiceError:
            log.warning("channel %s: zombie level %r of its last game (#%s) is unknown; a new "
                        "game starts without zombie mode", latest.channel_id, kept["zombie"],
                        latest.id)
            del kept["zombie"]
    return kept


def distinct(name: str, row: GameRow) -> str:
    """`name` for the lobby's next seat, numbered when a seated player already reads the
    same (`unclashed`; as they go by now, `current_name`)."""
    return unclashed(name, len(row.seats) + 1, plain_names(row))


def _not_host(row: GameRow, host_gone: bool) -> ServiceError:
    """Start pressed by a player who is not the host: who the host is, so a newcomer knows
    whom to ask (new-player audit: 'Only the host can start' left them guessing). The host
    always keeps a seat (`_unseat`)."""
    if host_gone:
        return ServiceError.of("svc.host_gone")
    seat = row.seat_of(row.host_id)
    return ServiceError.of("svc.host_start", host=current_name(row, seat) if seat is not None
                           else "?")


def _unseat(user_id: int, row: GameRow) -> None:
    """A player (not the host) out of the lobby `row`, else refused."""
    seat = row.seat_of(user_id)
    if seat is None:
        raise ServiceError.of("svc.not_in")
    if user_id == row.host_id:
        raise ServiceError.of("svc.host_leave")
    row.seats.pop(seat)
