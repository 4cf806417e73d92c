"""The game service: every interface (Discord cogs, console mode) plays through this.

It owns the rules of *hosting* (lobby, seats, who may act, time limits, removal of absent
players) and the guarantees (an action is committed before anyone is told; one channel —
so one game — one lock; a version check inside the transaction). It contains no game
rules: it asks the engine. Errors it raises are `ServiceError`s with a message for the user.

A channel's newest game is its game: a lobby or a game in progress is played; a finished
game can still be looked at (`viewable`) until a new lobby is opened in that channel.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import random
import time
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import DIFFICULTY_DISCARDS, ActionError, Event, Game, StaleDecision, View
from engine.messages import Items, phrase
from store import (
    AlreadyApplied,
    Commit,
    GameRow,
    GameStore,
    MetaChange,
    Settings,
    StoreBusy,
    StoreUncertain,
    TimerRow,
    VersionConflict,
)

from .errors import ServiceError
from .hints import HintsMixin
from .meta import count_timeout, timeouts, vote_to_remove, votes_to_remove
from .refusals import end_phrase, say
from .seats import SeatsMixin, ai_level, channel_settings, check_bots, check_level
from .shards import Shards

log = logging.getLogger("rr.service")

DEFAULT_LIMIT_S = 24 * 3600
MIN_LIMIT_S, MAX_LIMIT_S = 60, 7 * 24 * 3600
KICK_AFTER_TIMEOUTS = 2
MAX_AUTO = 200  # bound on trivial answers resolved after one action


class Quarantined(ServiceError):
    """The game is damaged in storage and set aside: nothing can be played in it (its log,
    the source of truth, R15, cannot be trusted), but it can be abandoned. `reason` says
    what was found: {"kind": "unreadable"|"log_gap"|"log_mismatch"|"replay"|"error", …}."""

    def __init__(self, row: GameRow, reason: dict[str, Any]) -> None:
        self.row, self.reason = row, reason
        super().__init__(f"Game #{row.id} is damaged and set aside: {damage_words(reason)}. "
                         "Nothing can be played in it; it can be abandoned, or the database "
                         "restored from a backup.", code="quarantined")


class _Damage(Exception):
    def __init__(self, **reason: Any) -> None:
        super().__init__(reason)
        self.reason = reason


def damage_words(reason: dict[str, Any]) -> str:
    """What was found, in English (for the log and the console)."""
    kind = reason.get("kind")
    if kind == "unreadable":
        return f"its stored {', '.join(reason.get('what', []))} could not be read"
    if kind == "log_gap":
        return f"action {reason.get('seq')} of its action log is missing"
    if kind == "log_mismatch":
        return (f"its action log has {reason.get('rows')} actions but its stored state records "
                f"{reason.get('recorded')}")
    if kind == "replay":
        return f"its action log no longer replays ({reason.get('error', '?')})"
    return "it could not be loaded"


class GameOver(ServiceError):
    """A play command in a channel whose game has ended; the game is still viewable."""

    def __init__(self, row: GameRow, game: Game) -> None:
        self.row, self.game = row, game
        self.result: Mapping[str, Any] = game.result or {}
        self.names = [s["name"] for s in row.seats]
        who = tuple(self.names[s] for s in self.result.get("winners", []))
        key = ("svc.over_loss" if not who else "svc.over_draw" if self.result.get("draw")
               else "svc.over_win")
        params = {"who": Items(who), "reason": end_phrase(self.result)}
        super().__init__(say("en", key, params), code="over", key=key, params=params)


def _stage_hook(g: Game, stages: list[tuple[str, int, View]],
                base: int) -> Callable[[str, int], None]:
    """Record the spectator view each time a card or phase ends (events so far: base + n).

    The engine reports the end once it has already stepped into the next phase, so the view
    carries `after` (what just ended) for the image's title and row (render/central.py).
    """
    def hook(what: str, n: int) -> None:
        view = g.view(None)
        view["after"] = what
        stages.append((what, base + n, view))
    return hook


Told = Mapping[str, Any]
"""An event as the service tells it: an engine Event (engine.types), marked `auto` when the
service answered for the player, or the service's own `undo`; read with `.get`."""


@dataclass(slots=True)
class Outcome:
    """What one accepted action did, for the interface to announce."""

    row: GameRow
    game: Game
    events: list[Told]
    actor: int | None
    text: str
    prompts: list[int] = field(default_factory=list)  # seats newly asked something
    finished: list[str] = field(default_factory=list)  # phases/cards resolved (images due)
    notes: list[str] = field(default_factory=list)
    # One per resolved card or phase, in order: (what, end index into `events`, the spectator
    # view as it stood then) — so every phase gets its own image even when one answer set
    # several in motion.
    stages: list[tuple[str, int, View]] = field(default_factory=list)
    # The deadline of each seat's open decision, as stored (a decision keeps its first one).
    deadlines: dict[int, float] = field(default_factory=dict)
    notice: int | None = None  # the outbox row announcing it (see notices())
    duplicate: bool = False  # a redelivered interaction: nothing was applied this time

    @property
    def over(self) -> bool:
        return self.game.over


@dataclass(slots=True)
class Opening:
    """A game set up, not yet stored (`GameService.opening`)."""

    game: Game
    events: list[Told]
    entries: list[tuple[int, int | None, str]]  # the answers resolved on their own, logged
    prompts: list[int]
    timers: list[tuple[int, int, float, float | None]]
    notice: dict[str, Any] | None


@dataclass(slots=True)
class Reminder:
    row: GameRow
    seat: int
    deadline: float
    notice: int | None = None




def _store_refusal(e: Exception) -> ServiceError | None:
    """Store failures a player should hear about in words (nothing, or maybe, was saved)."""
    if isinstance(e, StoreBusy):
        return ServiceError.of("svc.busy", code="busy")
    if isinstance(e, StoreUncertain):
        return ServiceError.of("svc.uncertain", code="uncertain")
    return None


class GameService(SeatsMixin, HintsMixin):
    def __init__(self, store: GameStore, clock: Callable[[], float] = time.time,
                 seed_source: Callable[[], int] | None = None,
                 cards_data: dict[str, Any] | None = None) -> None:
        self.store = store
        self.cards_data = cards_data  # a custom card set for new games (kept in their setup)
        self.clock = clock
        self.seed_source = seed_source or (lambda: random.SystemRandom().randrange(2**31))
        self._locks: dict[int, asyncio.Lock] = {}
        self._cache: dict[int, tuple[int, Game]] = {}
        self._deadlines: dict[int, tuple[int, dict[int, float]]] = {}
        # Write what must be told into the outbox with every move (the bot delivers it and
        # marks it delivered); an interface that tells synchronously (the console) leaves
        # this off.
        self.notify = False
        # Told when a game is set aside (reason) or verified again after a repair (None);
        # the bot posts it in the game's channel. Failures there are logged, not raised.
        self.on_quarantine: Callable[[GameRow, dict[str, Any] | None],
                                     Awaitable[None]] | None = None
        # This process's shards (service/shards.py): which games it may answer and time.
        # The default, one process alone, hosts every game.
        self.shards = Shards()
        self._seats_init()

    def lock(self, channel_id: int) -> asyncio.Lock:
        """One lock per channel: a channel has at most one open game, so this is also that
        game's lock. Taken before the game is read, so one read per action suffices."""
        return self._locks.setdefault(channel_id, asyncio.Lock())

    # ---- lobby -------------------------------------------------------------------------------
    async def new_lobby(self, guild_id: int | None, channel_id: int, user_id: int, name: str,
                        players: int = 4, difficulty: str | None = None,
                        time_limit_s: int = DEFAULT_LIMIT_S, lang: str = "en",
                        bots: int = 0, bot_level: str = "random") -> GameRow:
        """A lobby with the host seated, and `bots` AI players of `bot_level` (seats.py)."""
        if not 1 <= players <= 4:
            raise ServiceError.of("svc.players")
        if difficulty is not None and difficulty not in DIFFICULTY_DISCARDS:
            raise ServiceError.of("svc.difficulty")
        check_bots(players, difficulty, bots, bot_level)
        self.shards.check(guild_id)
        if difficulty is not None and players != 1:
            raise ServiceError.of("svc.difficulty_solo")
        if not MIN_LIMIT_S <= time_limit_s <= MAX_LIMIT_S:
            raise ServiceError.of("svc.time_limit")
        latest = await self.store.latest_game(channel_id)
        if latest is not None and latest.status == "active":
            held = await self.store.quarantined(latest.id)
            if held is not None:  # say why, and that abandoning it frees the channel
                raise Quarantined(latest, held)
        if latest is not None and latest.status in ("lobby", "active"):
            raise ServiceError.of("svc.has_game")
        if latest is not None:  # a finished game stops being the channel's game: forget it
            self._forget(latest.id)
        settings: Settings = {"players": players, "difficulty": difficulty,
                              "time_limit_s": time_limit_s, "lang": lang}
        settings.update(_kept_settings(latest))
        try:
            row = await self.store.create_lobby(guild_id, channel_id, user_id, name, settings)
        except VersionConflict as e:
            raise ServiceError.of("svc.has_game_short") from e
        if bots:
            self._add_bots(row, bots, bot_level)
            await self.store.update_lobby(row)
        return row

    async def _lobby(self, channel_id: int) -> GameRow:
        row = await self.store.open_game(channel_id)
        if row is None:
            raise ServiceError.of("svc.no_game_new")
        self.shards.check(row.guild_id)
        if row.damage:
            raise Quarantined(row, {"kind": "unreadable", "what": row.damage})
        if row.status != "lobby":
            raise ServiceError.of("svc.started")
        return row

    async def join(self, channel_id: int, user_id: int, name: str) -> GameRow:
        async with self.lock(channel_id):
            row = await self._lobby(channel_id)
            if row.seat_of(user_id) is not None:
                raise ServiceError.of("svc.already_in")
            if len(row.seats) >= row.settings["players"]:
                raise ServiceError.of("svc.full", n=row.settings["players"])
            row.seats.append({"user": user_id, "name": name})
            await self.store.update_lobby(row)
            return row

    async def leave(self, channel_id: int, user_id: int) -> GameRow:
        async with self.lock(channel_id):
            row = await self._lobby(channel_id)
            seat = row.seat_of(user_id)
            if seat is None:
                raise ServiceError.of("svc.not_in")
            if user_id == row.host_id:
                raise ServiceError.of("svc.host_leave")
            row.seats.pop(seat)
            await self.store.update_lobby(row)
            return row

    async def start(self, channel_id: int, user_id: int, *, seed: int | None = None,
                    options: dict[str, Any] | None = None,
                    rng_key: bytes | None = None) -> Outcome:
        """Start the lobby's game; `seed` and `options` (engine setup options) are given by
        hosts that prepare the game themselves (the daily challenge), else drawn fresh.
        `rng_key`: the game draws with the engine's keyed generator (the daily challenge)."""
        async with self.lock(channel_id):
            row = await self._lobby(channel_id)
            if user_id != row.host_id:
                raise ServiceError.of("svc.host_start")
            if row.settings.get("difficulty") is not None and len(row.seats) != 1:
                raise ServiceError.of("svc.solo_host")
            op = self.opening([s["name"] for s in row.seats], row.settings, seed=seed,
                              options=options, rng_key=rng_key,
                              ai_seats=self._ai_played(row))
            # The setup, the answers resolved on their own (logged like any others), the
            # timers and the announcement: one transaction.
            try:
                done = await self.store.start(row.id, row.seats, op.game.setup,
                                              op.game.to_json(), op.entries, op.timers,
                                              notice=op.notice)
            except VersionConflict as e:
                raise ServiceError.of("svc.started") from e
            except (StoreBusy, StoreUncertain) as e:
                raise _store_refusal(e) from e  # type: ignore[misc]
            return self.opened(done, op)

    def opening(self, names: list[str], settings: Mapping[str, Any], *,
                seed: int | None = None, options: dict[str, Any] | None = None,
                rng_key: bytes | None = None, ai_seats: Collection[int] = ()) -> Opening:
        """A new game set up and its first trivial answers resolved, in memory only: what
        `start` commits from a lobby, and what a host that prepares its games itself (the
        daily challenge) commits in a transaction of its own, then hands to `opened`.
        `rng_key`: the game draws with the engine's keyed generator (the daily challenge);
        `ai_seats`: the seats an AI plays (their reminders are due at once, `_timers_for`)."""
        options = dict(options or {})
        if len(names) == 1:
            options.setdefault("difficulty", settings.get("difficulty"))
        setup_ev: list[Event] = []
        g = Game.new(names, seed=self.seed_source() if seed is None else seed,
                     options=options, cards_data=self.cards_data, events=setup_ev, key=rng_key)
        ev: list[Told] = list(setup_ev)
        self._auto_answers(g, ev)
        entries: list[tuple[int, int | None, str]] = [(s, None, t) for s, t in g.log]
        prompts = g.waiting_for()
        notice = {"kind": "start", "to": len(entries), "prompts": prompts} \
            if self.notify else None
        return Opening(g, ev, entries, prompts, self._timers_for(settings, g, ai_seats), notice)

    def opened(self, done: Commit, op: Opening) -> Outcome:
        """The game `op` as committed (`done`): kept in memory, and what to announce."""
        self._remember(done.row, op.game, done.timers)
        return Outcome(done.row, op.game, op.events, None, "start", prompts=op.prompts,
                       finished=["setup"], deadlines=_deadlines(done.timers),
                       notice=done.notice)

    async def abandon(self, channel_id: int, user_id: int, can_manage: bool) -> GameRow:
        async with self.lock(channel_id):
            row = await self.store.open_game(channel_id)
            if row is None:
                raise ServiceError.of("svc.no_game")
            self.shards.check(row.guild_id)
            if user_id != row.host_id and not can_manage:
                raise ServiceError.of("svc.host_abandon")
            await self.store.set_status(row.id, "abandoned")
            self._forget(row.id)
        return row

    async def set_time_limit(self, channel_id: int, user_id: int, seconds: int,
                             can_manage: bool) -> GameRow:
        """Change the turn time limit of a channel's game; decisions already asked keep
        their deadline, new ones get the new limit."""
        if not MIN_LIMIT_S <= seconds <= MAX_LIMIT_S:
            raise ServiceError.of("svc.time_limit")
        async with self.lock(channel_id):
            row = await self.store.open_game(channel_id)
            if row is None:
                raise ServiceError.of("svc.no_game")
            self.shards.check(row.guild_id)
            if user_id != row.host_id and not can_manage:
                raise ServiceError.of("svc.host_time")
            held = ({"kind": "unreadable", "what": row.damage} if row.damage
                    else await self.store.quarantined(row.id))
            if held is not None:  # writing settings would paper over the damage
                raise Quarantined(row, held)
            row.settings["time_limit_s"] = seconds
            await self.store.set_settings(row.id, row.settings)
        return row

    # ---- loading -------------------------------------------------------------------------------
    async def current(self, channel_id: int, *, mine: bool = True) -> tuple[GameRow, Game]:
        """The channel's game in progress (one read). A finished one raises `GameOver`.
        `mine`: it is about to be answered, so it must be a game this process hosts."""
        row = await self.store.latest_game(channel_id)
        if row is not None and mine:
            self.shards.check(row.guild_id)
        if row is not None and row.status == "active":
            return row, await self.load(row)
        if row is not None and row.status == "over":
            raise GameOver(row, await self.load(row))
        raise ServiceError.of("svc.not_started", lobby=phrase("svc.lobby_open")
                              if row and row.status == "lobby" else "")

    async def viewable(self, channel_id: int) -> tuple[GameRow, Game]:
        """The game to look at: the one in progress, else the last one if it has ended
        (until a new lobby is opened in the channel)."""
        try:
            return await self.current(channel_id, mine=False)
        except GameOver as e:
            return e.row, e.game

    async def load(self, row: GameRow, *, recheck: bool = False) -> Game:
        """The game of a row, verified once per process: replay of setup + log must equal
        the stored state (the log wins if only the states differ).

        A game that cannot be verified — unreadable JSON, a lost log row (a gap, or fewer
        rows than the stored state records), a log that no longer replays — is quarantined
        (stored, so it stays set aside across restarts) and `Quarantined` is raised: playing
        on would silently rewind or corrupt it. `recheck` (startup) verifies a quarantined
        game again and lifts the quarantine when its rows were restored or repaired."""
        cached = self._cache.get(row.id)
        if cached and cached[0] == row.version and not row.damage and not recheck:
            return cached[1]
        g: Game | None = None
        damage: _Damage | None = None
        for _attempt in range(3):
            log_, seqs, held = await self.store.log_check(row.id)
            if held is not None and not recheck:
                raise Quarantined(row, held)
            try:
                g = self._verified(row, log_, seqs)
                break
            except _Damage as found:
                damage = found
            # Another process sharing the database (service/shards.py) may have committed
            # a move between the row's read and the log's: then the row is only stale, not
            # damaged — read both again. The same version twice is real damage.
            fresh = await self.store.get(row.id)
            if fresh is None or fresh.version == row.version:
                break
            row = fresh
        else:  # it moved on at every read: busy, not damaged
            raise ServiceError("This prompt is out of date: the game has moved on.",
                               code="stale")
        if g is None:
            assert damage is not None
            self._forget(row.id)
            if row.status == "active" and await self.store.quarantine(row.id, damage.reason):
                log.error("game %s (channel %s) quarantined: %s. Nothing can be played in it; "
                          "its channel can `/rr abandon` it, or restore the database from a "
                          "backup (or repair the game's rows) and restart the bot to resume it",
                          row.id, row.channel_id, damage_words(damage.reason))
                await self._tell(row, damage.reason)
            raise Quarantined(row, damage.reason) from damage
        if held is not None:
            await self.store.release(row.id)
            log.warning("game %s verified again: quarantine lifted", row.id)
            await self._tell(row, None)
        if row.status == "active":
            await self._check_timers(row, g)
        self._cache[row.id] = (row.version, g)
        return g

    async def _check_timers(self, row: GameRow, g: Game) -> None:
        """The stored timers must be those the game implies: one per waiting seat, for the
        decision it is asked now, with a deadline that is a time. A row that disagrees (a
        partial restore, a hand edit) would show no deadline and never time its seat out,
        so the timers are rebuilt from the game: rows that agree keep their deadline, the
        others get a whole time limit from now; the repair is logged."""
        stored = await self.store.timers(row.id)
        asked = {s: g.decision(s)["opened"] for s in g.waiting_for()}  # type: ignore[index]
        latest = self.clock() + MAX_LIMIT_S
        bad = [t for t in stored if not _timer_agrees(t, asked, latest)]
        missing = sorted(set(asked) - {t["seat"] for t in stored})
        if not bad and not missing:
            return
        timers = await self.store.repair_timers(row.id, row.version, [t["seat"] for t in bad],
                                                self._timers(row, g))
        if timers is None:  # the game moved on meanwhile: that move wrote its timers
            return
        log.warning("game %s: timers disagreed with the game (%d wrong row(s), seat(s) %s "
                    "untimed); rebuilt from it", row.id, len(bad), missing)
        self._deadlines[row.id] = (row.version, _deadlines(timers))

    def _verified(self, row: GameRow, log_: list[list[Any]], seqs: list[int]) -> Game:
        """Replay setup + log, checking first that nothing is missing; raises `_Damage`."""
        if row.damage or row.setup is None:
            raise _Damage(kind="unreadable", what=row.damage or ["setup"])
        gap = next((k for k, seq in enumerate(seqs) if seq != k), None)
        if gap is not None:
            raise _Damage(kind="log_gap", seq=gap)
        try:
            g = Game.replay(row.setup, log_)
        except ActionError as e:
            raise _Damage(kind="replay", error=e.message) from e
        except Exception as e:  # a damaged setup can fail anywhere in the engine
            raise _Damage(kind="replay", error=type(e).__name__) from e
        if row.state is not None and g.to_json() != row.state:
            try:
                recorded = json.loads(row.state)["log"]
            except (ValueError, TypeError, KeyError) as e:
                raise _Damage(kind="unreadable", what=["state"]) from e
            if [list(x) for x in recorded] != log_:  # rows lost at the end (or changed)
                raise _Damage(kind="log_mismatch", rows=len(log_), recorded=len(recorded))
            # The state is a cache of setup + log (R15): an older release wrote it (a state
            # format or a rule fixed since), the log is the game. Worth a look, not an alarm.
            log.warning("game %s: stored state differs from its replayed log; using the log",
                        row.id)
        return g

    async def _tell(self, row: GameRow, reason: dict[str, Any] | None) -> None:
        if self.on_quarantine is None:
            return
        try:
            await self.on_quarantine(row, reason)
        except Exception:
            log.exception("game %s: telling its channel about its quarantine failed", row.id)

    def forget(self, game_id: int) -> None:
        """Drop what this process keeps in memory of a game another write just closed."""
        self._forget(game_id)

    def _forget(self, game_id: int) -> None:
        self._cache.pop(game_id, None)
        self._deadlines.pop(game_id, None)

    def peek(self, game_id: int) -> Game | None:
        """The game as this process last committed it, without touching the database (for
        suggestions that must be instant); None when it is not in memory."""
        cached = self._cache.get(game_id)
        return cached[1] if cached else None

    def seat(self, row: GameRow, user_id: int) -> int:
        seat = row.seat_of(user_id)
        if seat is None:
            raise ServiceError.of("svc.not_player", code="not_player")
        self._refuse_ai_seat(row, seat)
        return seat

    # ---- playing -------------------------------------------------------------------------------
    async def act(self, channel_id: int, user_id: int, text: str,
                  decision_id: int | None = None, key: str | None = None) -> Outcome:
        """Apply one answer of a player; commit; resolve trivial follow-ups; report.

        `key` names the interaction that asked (`i:<id>`): it is stored with the move, so a
        second delivery of it applies nothing and gets the first one's answer."""
        async with self.lock(channel_id):
            row, g = await self.current(channel_id)
            seat = self.seat(row, user_id)
            return await self._apply(row, g, seat, user_id, text, decision_id, key=key)

    async def _again(self, key: str | None, row: GameRow, g: Game, seat: int) -> Outcome | None:
        """A redelivered interaction: the answer it got the first time, nothing applied
        (one read, only on a refusal's path)."""
        if key is None:
            return None
        done = await self.store.applied(key)
        if done is None or done.game_id != row.id:
            return None
        return _duplicate(row, g, seat, done, await self.deadlines(row))

    async def _apply(self, row: GameRow, g: Game, seat: int, user_id: int | None, text: str,
                     decision_id: int | None, meta: MetaChange | None = None, *,
                     key: str | None = None, notes: list[str] | None = None) -> Outcome:
        waiting_before = {s: g.decision_id(s) for s in g.waiting_for()}
        log_start = len(g.log)
        backup = g.to_json()
        stages: list[tuple[str, int, View]] = []
        try:
            ev: list[Told] = list(g.apply(seat, text, decision_id,
                                          on_resolved=_stage_hook(g, stages, 0)))
        except StaleDecision as e:
            if (again := await self._again(key, row, g, seat)) is not None:
                return again
            raise ServiceError.of("svc.stale",
                               code="stale") from e
        except ActionError as e:
            if (again := await self._again(key, row, g, seat)) is not None:
                return again
            raise ServiceError(e.message, code=e.code, key=e.key, params=e.params) from e
        canonical = g.log[log_start][1]
        self._auto_answers(g, ev, stages)
        entries = [(s, user_id if k == 0 else None, t)
                   for k, (s, t) in enumerate(g.log[log_start:])]
        prompts = [s for s in g.waiting_for()
                   if waiting_before.get(s) != g.decision_id(s)]
        notes = list(notes or [])
        notice = {"kind": "move", "from": log_start, "to": len(g.log), "actor": seat,
                  "prompts": prompts, "notes": notes} if self.notify else None
        try:
            done = await self.store.commit_actions(
                row.id, row.version, entries, g.to_json(), "over" if g.over else "active",
                self._timers(row, g), meta, key=key, notice=notice)
        except BaseException as e:
            # Nothing was stored: forget the in-memory change so the next load is the truth.
            self._cache.pop(row.id, None)
            g.state = json.loads(backup)
            if isinstance(e, VersionConflict):
                # another process got there first — maybe with this very interaction
                if (again := await self._again(key, row, g, seat)) is not None:
                    return again
                raise ServiceError.of("svc.stale_other",
                                   code="stale") from e
            if isinstance(e, AlreadyApplied):
                return _duplicate(row, g, seat, e, await self.deadlines(row))
            if (refusal := _store_refusal(e)) is not None:  # type: ignore[arg-type]
                raise refusal from e
            raise
        new = done.row
        self._remember(new, g, done.timers)
        finished = [e["what"] for e in ev if e["type"] == "resolved"]
        return Outcome(new, g, ev, seat, canonical, prompts=prompts, finished=finished,
                       notes=notes, stages=stages, deadlines=_deadlines(done.timers),
                       notice=done.notice)

    def _auto_answers(self, g: Game, ev: list[Told],
                      stages: list[tuple[str, int, View]] | None = None) -> None:
        """Resolve decisions with one sensible answer (the engine says which), bounded."""
        for _ in range(MAX_AUTO):
            if g.over:
                return
            trivial = [(s, a) for s in g.waiting_for() if (a := g.trivial_action(s)) is not None]
            if not trivial:
                return
            s, a = trivial[0]
            hook = _stage_hook(g, stages, len(ev)) if stages is not None else None
            ev += [dict(e, auto=True) for e in g.apply(s, a, on_resolved=hook)]

    def _timers(self, row: GameRow, g: Game) -> list[tuple[int, int, float, float | None]]:
        """A timer for every decision asked now, with the deadline a new question gets; the
        store keeps the deadline (and reminder) of a decision it already timed, so a
        decision keeps the deadline it got when it was first asked."""
        return self._timers_for(row.settings, g, self._ai_played(row))

    def _timers_for(self, settings: Mapping[str, Any], g: Game,
                    ai_seats: Collection[int]) -> list[tuple[int, int, float, float | None]]:
        """A person's reminder is due at 75 % of the time limit; an AI-played seat's at
        once, so that every time-limit pass (and the first one after a restart) hands a seat
        whose AI has not answered yet back to `play_ai` — an AI never waits for a reminder
        (`_tick_ai_seat`)."""
        limit = float(settings.get("time_limit_s", DEFAULT_LIMIT_S))
        now = self.clock()
        return [(s, g.decision(s)["opened"], now + limit,  # type: ignore[index]
                 now if s in ai_seats else now + limit * 0.75) for s in g.waiting_for()]

    def _remember(self, row: GameRow, g: Game, timers: list[TimerRow]) -> None:
        """The game and its deadlines as just committed (valid while the version holds)."""
        self._cache[row.id] = (row.version, g)
        self._deadlines[row.id] = (row.version, {t["seat"]: t["deadline"] for t in timers})

    async def deadlines(self, row: GameRow) -> dict[int, float]:
        """Deadline per waiting seat: from memory when this process committed that version."""
        known = self._deadlines.get(row.id)
        if known and known[0] == row.version:
            return known[1]
        return {t["seat"]: t["deadline"] for t in await self.store.timers(row.id)}

    async def undo(self, channel_id: int, user_id: int, key: str | None = None) -> Outcome:
        async with self.lock(channel_id):
            row, g = await self.current(channel_id)
            seat = self.seat(row, user_id)
            try:
                g2 = Game(json.loads(g.to_json()), g.cards)
                g2.undo(seat)
            except ActionError as e:
                if (again := await self._again(key, row, g, seat)) is not None:
                    return again
                raise ServiceError(e.message, code=e.code, key=e.key, params=e.params) from e
            notice = {"kind": "undo", "actor": seat, "to": len(g2.log),
                      "prompts": [seat]} if self.notify else None
            try:
                done = await self.store.rewrite_log(row.id, row.version, g2.log,
                                                    g2.to_json(), self._timers(row, g2),
                                                    key=key, notice=notice)
            except VersionConflict as e:
                self._cache.pop(row.id, None)
                raise ServiceError.of("svc.stale_other",
                                   code="stale") from e
            except AlreadyApplied as e:
                return _duplicate(row, g, seat, e, await self.deadlines(row))
            except (StoreBusy, StoreUncertain) as e:
                self._cache.pop(row.id, None)
                raise _store_refusal(e) from e  # type: ignore[misc]
            row = done.row
            self._remember(row, g2, done.timers)
            return Outcome(row, g2, [{"type": "undo", "player": seat}], seat, "undo",
                           prompts=[seat], deadlines=_deadlines(done.timers),
                           notice=done.notice)

    # ---- time limits -----------------------------------------------------------------------------
    async def tick(self) -> tuple[list[Outcome], list[Reminder]]:
        """Apply the default answer (R15: pass) to every expired decision; list reminders due
        (each claimed by this pass: only those are to be told). Each game is its own job: one
        that fails (damaged, quarantined) is logged and skipped, and every other game still
        gets its time limits."""
        now = self.clock()
        outcomes: list[Outcome] = []
        reminders: list[Reminder] = []
        for game_id, timers in (await self.due(now)).items():
            try:
                done, due = await self.tick_game(game_id, timers, now)
            except Quarantined:
                continue
            except self.store.faults as e:  # busy or cut off: expected; the next pass retries
                log.warning("game %s: time limits wait for the next pass (store: %s)",
                            game_id, e)
                continue
            except Exception:
                log.exception("game %s: time limits failed; the other games go on", game_id)
                continue
            outcomes += done
            reminders += due
        return outcomes, reminders

    async def due(self, now: float) -> dict[int, list[TimerRow]]:
        """Timers due at `now` (quarantined games have none), grouped by game."""
        by_game: dict[int, list[TimerRow]] = {}
        for t in await self.store.due_timers(now):
            by_game.setdefault(int(t["game_id"]), []).append(t)
        return by_game

    async def tick_game(self, game_id: int, timers: list[TimerRow],
                        now: float) -> tuple[list[Outcome], list[Reminder]]:
        """One game's due timers: default answers past the deadline, reminders before.

        Another process may run the same game's timers at the same moment (two processes on
        one shard: a rolling deploy, a mistaken setting). Losing that race is normal and
        costs nothing: a default answer the other committed first leaves this one out of
        date (logged at INFO, no outcome — the winner told it, or, if the winner's move left
        the question open, the next pass answers it), and a reminder the other claimed
        first is the other's to tell."""
        outcomes: list[Outcome] = []
        reminders: list[Reminder] = []
        for t in timers:
            try:
                done = await self._tick_timer(game_id, t, now)
            except ServiceError as e:
                if e.code != "stale":
                    raise
                log.info("game %s seat %s: another process moved the game first; its time "
                         "limit is left to it, or to the next pass", game_id, t["seat"])
                continue
            if isinstance(done, Reminder):
                reminders.append(done)
            elif done is not None:
                outcomes.append(done)
        return outcomes, reminders

    async def _tick_timer(self, game_id: int, t: TimerRow,
                          now: float) -> Outcome | Reminder | None:
        """One due timer: a default answer, an AI's turn, a reminder this pass claimed, or
        nothing (the question moved on, or another process has it)."""
        row = await self.store.get(game_id)
        if row is None or row.status != "active" or not self.shards.runs_jobs(row):
            return None  # another process hosts it (service/shards.py): its job, not ours
        async with self.lock(row.channel_id):
            row = await self.store.get(t["game_id"])
            if row is None or row.status != "active":
                return None
            g = await self.load(row)
            dec = g.decision(t["seat"])
            if dec is None or dec["opened"] != t["decision_id"]:
                await self._check_timers(row, g)  # damaged, not only stale: rebuilt
                return None
            if (seated := await self._tick_ai_seat(row, g, t, now)) is not None:
                return seated  # an AI answers this seat (service/seats.py)
            if t["deadline"] <= now:
                return await self._apply(row, g, t["seat"], None, "timeout", None,
                                         count_timeout(t["seat"]), notes=["timeout"])
            if t["reminded"]:
                return None
            notice = {"kind": "remind", "seat": t["seat"], "decision": t["decision_id"],
                      "deadline": t["deadline"]} if self.notify else None
            marked = await self.store.mark_reminded(row.id, t["seat"], t["decision_id"],
                                                    notice)
            if marked is None:  # another pass (another process) claimed it: it tells it
                log.debug("game %s seat %s: reminder claimed by another pass", game_id,
                          t["seat"])
                return None
            return Reminder(row, t["seat"], t["deadline"], marked.notice)

    async def remove_player(self, channel_id: int, user_id: int, target_seat: int) -> Outcome:
        """Seated players vote to remove one who timed out repeatedly; a majority of the
        others removes them (they resign: eliminated, R9.3)."""
        async with self.lock(channel_id):
            row, g = await self.current(channel_id)
            voter = self.seat(row, user_id)
            if not 0 <= target_seat < len(row.seats) or target_seat == voter:
                raise ServiceError.of("svc.kick_other")
            if g.player(target_seat)["eliminated"]:
                raise ServiceError.of("svc.kick_out")
            k = timeouts(row.meta, target_seat)
            if k < KICK_AFTER_TIMEOUTS:
                raise ServiceError.of("svc.kick_early", n=KICK_AFTER_TIMEOUTS,
                                      name=row.seats[target_seat]["name"], k=k)
            # Added to the votes as stored, so a vote another process recorded meanwhile
            # counts too; a vote is kept even if the removal it completes loses a race.
            try:
                row.meta = await self.store.update_meta(row.id,
                                                        vote_to_remove(target_seat, voter))
            except StoreBusy as e:
                raise _store_refusal(e) from e  # type: ignore[misc]
            votes = votes_to_remove(row.meta, target_seat)
            # the electorate: the other seats still in play that their person plays (AIs
            # do not vote)
            others = [s for s in range(len(row.seats)) if s != target_seat
                      and not g.player(s)["eliminated"] and not ai_level(row, s)]
            need = len(set(others)) // 2 + 1
            if len(votes) < need:
                raise ServiceError.of("svc.vote", code="vote", votes=len(votes), need=need)
            return await self._apply(row, g, target_seat, None, "resign", None)



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


def _timer_agrees(t: Mapping[str, Any], asked: Mapping[int, int], latest: float) -> bool:
    """A stored timer that times a question the game asks now, with a deadline that is a
    time no later than the longest limit from now (`latest`)."""
    deadline, remind = t["deadline"], t["remind_at"]
    return (isinstance(t["seat"], int) and asked.get(t["seat"]) == t["decision_id"]
            and isinstance(deadline, int | float) and math.isfinite(deadline)
            and 0 < deadline <= latest
            and (remind is None or isinstance(remind, int | float) and math.isfinite(remind)))


def _deadlines(timers: list[TimerRow]) -> dict[int, float]:
    return {int(t["seat"]): float(t["deadline"]) for t in timers}


def _duplicate(row: GameRow, g: Game, seat: int, done: AlreadyApplied,
               deadlines: dict[int, float]) -> Outcome:
    """The answer a redelivered interaction gets: what was applied the first time, and the
    player's question as it stands now."""
    return Outcome(row, g, [], seat, done.text, prompts=[seat] if g.decision(seat) else [],
                   deadlines=deadlines, duplicate=True)
