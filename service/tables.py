"""The tables: every room of the service (service/games.py) reaches a channel's game here.

A channel's newest game is its game: a lobby or a game in progress is played; a finished
game can still be looked at (`viewable`) until a new lobby is opened in that channel. This
room owns what all the others share: one lock per channel (so one game, one lock), the games
as this process last verified or committed them (one read per action), the check that a
stored game is whole before anyone plays it (else it is quarantined), the timers a game
implies, and the gate every host's command passes ("the open game, hosted here, and the
caller its host or a manager": `hosted`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Any, NoReturn

from engine import ActionError, Game, UnknownCardsVersion, UnknownRulesVersion
from engine.messages import Items, phrase
from store import GameMeta, GameRow, GameStore, MetaChange, StoreBusy, StoreUncertain, TimerRow
from store.rows import LATEST_SLACK_S, is_time, is_whole
from store.rows import MAX_LIMIT_S as MAX_LIMIT_S  # the limits a stored game may have
from store.rows import MIN_LIMIT_S as MIN_LIMIT_S

from .errors import ServiceError
from .levels import SOLO_LEVELS
from .outcomes import Timer, deadlines_of
from .refusals import end_phrase, say
from .seats import ai_played, plain_names, refuse_ai_seat
from .shards import Shards

log = logging.getLogger("rr.service")

DEFAULT_LIMIT_S = 24 * 3600


class Quarantined(ServiceError):
    """The game is damaged in storage and set aside: nothing can be played in it (its log,
    the source of truth, R15, cannot be trusted), but it can be abandoned. `reason` says
    what was found: {"kind": "unreadable"|"log_gap"|"log_mismatch"|"replay"|"newer"|"error",
    …} ("newer": a newer release started it — not damage, but this release cannot play it)."""

    def __init__(self, row: GameRow, reason: dict[str, Any]) -> None:
        self.row, self.reason = row, reason
        if reason.get("kind") == "newer":  # nothing is wrong with it but this release
            key = "svc.newer_active" if row.status == "active" else "svc.newer"
            super().__init__(say("en", key, {"id": row.id}), code="quarantined", key=key,
                             params={"id": row.id})
            return
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
        self.names = plain_names(row)
        who = tuple(self.names[s] for s in self.result.get("winners", []))
        key = ("svc.over_loss" if not who else "svc.over_draw" if self.result.get("draw")
               else "svc.over_win")
        params = {"who": Items(who), "reason": end_phrase(self.result)}
        super().__init__(say("en", key, params), code="over", key=key, params=params)


STORE_REFUSALS = ("busy", "uncertain")  # the codes `store_refusal` and `fault_refusal` give


def store_refusal(e: BaseException) -> ServiceError | None:
    """Store failures a player should hear about in words (nothing, or maybe, was saved)."""
    if isinstance(e, StoreBusy):
        return ServiceError.of("svc.busy", code="busy")
    if isinstance(e, StoreUncertain):
        return ServiceError.of("svc.uncertain", code="uncertain")
    return None


def fault_refusal(e: BaseException) -> ServiceError:
    """Any of the store's `faults` in words: busy or uncertain as above, else (a connection
    lost, a disk full, a read cut off) that the database cannot be reached just now —
    nothing was changed, since a fault that is no StoreUncertain left no write behind."""
    return store_refusal(e) or ServiceError.of("svc.unreachable", code="busy")


def stale_other() -> ServiceError:
    """Another process (or interaction) moved the game first: this answer is out of date."""
    return ServiceError.of("svc.stale_other", code="stale")


class Tables:
    """The channels' games as this process sees them; shared by every room."""

    def __init__(self, store: GameStore, clock: Callable[[], float]) -> None:
        self.store = store
        self.clock = clock
        self._locks: dict[int, asyncio.Lock] = {}
        self._cache: dict[int, tuple[int, Game]] = {}
        self._deadlines: dict[int, tuple[int, dict[int, float]]] = {}
        # Write what must be told into the outbox with every move (the bot delivers it and
        # marks it delivered); an interface that tells synchronously (the console) leaves
        # this off.
        self.notify = False
        # Told when a game is set aside (reason) or verified again after a repair (None),
        # with the outbox notice written with it (`notify`); the bot posts it in the game's
        # channel. Failures there are logged, not raised: the notice is told again.
        self.on_quarantine: Callable[[GameRow, dict[str, Any] | None, int | None],
                                     Awaitable[None]] | None = None
        # This process's shards (service/shards.py): which games it may answer and time.
        # The default, one process alone, hosts every game.
        self.shards = Shards()

    def lock(self, channel_id: int) -> asyncio.Lock:
        """One lock per channel: a channel has at most one open game, so this is also that
        game's lock. Taken before the game is read, so one read per action suffices."""
        return self._locks.setdefault(channel_id, asyncio.Lock())

    # ---- the gates of the host's commands ------------------------------------------------
    async def hosted(self, channel_id: int, user_id: int, can_manage: bool,
                     refusal: str, *, host_gone: bool = False) -> GameRow:
        """The channel's open game (lobby or in play), hosted by this process, for its host
        or someone who may manage the channel; else `refusal` (a `svc.*` key) for anyone
        else. `host_gone`: the host has left the server, so a lobby is also its seated
        players' (nobody else could start or close it). Called under the channel's lock."""
        row = await self.store.open_game(channel_id)
        if row is None:
            raise ServiceError.of("svc.no_game")
        self.shards.check(row.guild_id)
        heir = host_gone and row.status == "lobby" and row.seat_of(user_id) is not None
        if user_id != row.host_id and not can_manage and not heir:
            raise ServiceError.of(refusal)
        return row

    async def lobby(self, channel_id: int) -> GameRow:
        """The channel's lobby, hosted by this process (a game already started is refused)."""
        row = await self.store.open_game(channel_id)
        if row is None:
            raise ServiceError.of("svc.no_game_new")
        self.shards.check(row.guild_id)
        if row.damage:
            raise Quarantined(row, {"kind": "unreadable", "what": row.damage})
        if row.status != "lobby":
            raise ServiceError.of("svc.started")
        if not seat_count(row.settings) or not solo_level(row.settings):
            # every lobby action reads the count (a join: KeyError); Start the level
            raise Quarantined(row, {"kind": "unreadable", "what": ["settings"]})
        return row

    def seat(self, row: GameRow, user_id: int) -> int:
        """The caller's seat, which they play themselves (not one an AI plays for them)."""
        seat = row.seat_of(user_id)
        if seat is None:
            raise ServiceError.of("svc.not_player", code="not_player")
        refuse_ai_seat(row, seat)
        return seat

    # ---- loading -------------------------------------------------------------------------
    async def current(self, channel_id: int, *, mine: bool = True) -> tuple[GameRow, Game]:
        """The channel's game in progress (one read). A finished one raises `GameOver`.
        `mine`: it is about to be answered, so it must be a game this process hosts."""
        row = await self.store.latest_game(channel_id)
        if row is not None and mine:
            self.shards.check(row.guild_id)
        if row is not None and row.status in ("active", "over"):
            row, g = await self.load_row(row)  # (another process's last move may end it)
            if row.status == "over":
                raise GameOver(row, g)
            return row, g
        if row is not None and row.status == "lobby":
            raise ServiceError.of("svc.not_started", lobby=phrase("svc.lobby_open"))
        raise ServiceError.of("svc.no_game_new")

    async def viewable(self, channel_id: int) -> tuple[GameRow, Game]:
        """The game to look at: the one in progress, else the last one if it has ended
        (until a new lobby is opened in the channel)."""
        try:
            return await self.current(channel_id, mine=False)
        except GameOver as e:
            return e.row, e.game

    async def load(self, row: GameRow, *, recheck: bool = False) -> Game:
        """The game of a row (`load_row`), for a caller that only reads it."""
        return (await self.load_row(row, recheck=recheck))[1]

    async def load_row(self, row: GameRow, *,
                       recheck: bool = False) -> tuple[GameRow, Game]:
        """The game of a row, verified once per process: replay of setup + log must equal
        the stored state (the log wins if only the states differ). With the row it was
        verified against: a newer one than `row` when another process committed a move
        between the row's read and the log's, so that an answer is committed on the version
        it was judged on (with `row`'s it was refused as out of date, nobody having
        answered first).

        A game that cannot be verified — unreadable JSON, a lost log row (a gap, or fewer
        rows than the stored state records), a log that no longer replays — is quarantined
        (stored, so it stays set aside across restarts) and `Quarantined` is raised: playing
        on would silently rewind or corrupt it. `recheck` (startup) verifies a quarantined
        game again and lifts the quarantine when its rows were restored or repaired."""
        cached = self._cache.get(row.id)
        if cached and cached[0] == row.version and not row.damage and not recheck:
            return row, cached[1]
        g: Game | None = None
        damage: _Damage | None = None
        stale = False
        for _attempt in range(3):
            log_, seqs, held = await self.store.log_check(row.id)
            if held is not None and not recheck:
                raise Quarantined(row, held)
            try:
                g, stale = _verified(row, log_, seqs)
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
            await self._set_aside(row, damage)
        if held is not None:
            told = await self.store.release(row.id, {"kind": "resumed"} if self.notify else None)
            log.warning("game %s verified again: quarantine lifted", row.id)
            await self._tell(row, None, told)
        if stale:
            await self._refresh(row, g)
        if row.status == "active":
            await self.check_timers(row, g)
        self._cache[row.id] = (row.version, g)
        return row, g

    async def _refresh(self, row: GameRow, g: Game) -> None:
        """An older release stored the state in an older shape (a finished game of 7077c97
        lacks its result's code): the log is the game, so the state is written again as the
        log replays to, once, instead of being found stale on every process's first load
        (the upgrade audit). A cache only: if it cannot be written now (a read-only file,
        a busy database, a move in between), the game plays on from its log regardless."""
        try:
            done = await self.store.refresh_state(row.id, row.version, g.to_json())
        except (*self.store.faults, *self.store.damaged) as e:  # the store's: only a cache
            log.info("game %s: its state could not be rewritten (%s); using the log",
                     row.id, e)
            return
        log.info("game %s: stored state was an older release's; %s", row.id,
                 "rewritten from its log" if done else "the game has moved on since")

    async def _set_aside(self, row: GameRow, damage: _Damage) -> NoReturn:
        """Refuse a game that cannot be verified: a damaged one is quarantined (stored, so
        it stays set aside across restarts) and its channel told once."""
        self.forget(row.id)
        if damage.reason.get("kind") == "newer":
            # Not damage: nothing is stored, so the release that started it (in a rolling
            # upgrade, another process now) plays it on at once (the verification audit: a
            # stored set-aside held it there too).
            raise Quarantined(row, damage.reason) from damage
        marked = await self.store.quarantine(
            row.id, damage.reason, {"kind": "set_aside"} if self.notify else None) \
            if row.status == "active" else None
        if marked is not None:
            log.error("game %s (channel %s) quarantined: %s. Nothing can be played in it; "
                      "its channel can `/rr abandon` it, or restore the database from a "
                      "backup (or repair the game's rows) and restart the bot to resume it",
                      row.id, row.channel_id, damage_words(damage.reason))
            await self._tell(row, damage.reason, marked.notice)
        raise Quarantined(row, damage.reason) from damage

    async def held(self, row: GameRow) -> dict[str, Any] | None:
        """Why the game is set aside (its rows unreadable, or quarantined), else None."""
        if row.damage:
            return {"kind": "unreadable", "what": row.damage}
        return await self.store.quarantined(row.id)

    async def write_settings(self, row: GameRow) -> None:
        """Store `row.settings` as changed by a host's setting (time limit, zombie mode,
        hints); refused for a game set aside: its settings as read may be the empty ones a
        damaged row reads as, and writing them would erase the seat count, language and
        daily record and lift the quarantine at the next restart (the fault-injection
        audit)."""
        held = await self.held(row)
        if held is not None:
            raise Quarantined(row, held)
        await self.store.set_settings(row.id, row.settings)

    async def _tell(self, row: GameRow, reason: dict[str, Any] | None,
                    notice: int | None) -> None:
        if self.on_quarantine is None:
            return
        try:
            await self.on_quarantine(row, reason, notice)
        except Exception:
            log.exception("game %s: telling its channel about its quarantine failed", row.id)

    # ---- in memory -----------------------------------------------------------------------
    def remember(self, row: GameRow, g: Game, timers: list[TimerRow]) -> None:
        """The game and its deadlines as just committed (valid while the version holds)."""
        self._cache[row.id] = (row.version, g)
        self._deadlines[row.id] = (row.version, deadlines_of(timers))

    def forget(self, game_id: int) -> None:
        """Drop what this process keeps in memory of a game: one closed or replaced by a
        write (an abandon, a new lobby, the daily host's resign or day end), or one whose
        move was not stored (the next load reads the truth)."""
        self._cache.pop(game_id, None)
        self._deadlines.pop(game_id, None)

    def peek(self, game_id: int) -> Game | None:
        """The game as this process last committed it, without touching the database (for
        suggestions that must be instant); None when it is not in memory."""
        cached = self._cache.get(game_id)
        return cached[1] if cached else None

    async def deadlines(self, row: GameRow) -> dict[int, float]:
        """Deadline per waiting seat: from memory when this process committed that version."""
        known = self._deadlines.get(row.id)
        if known and known[0] == row.version:
            return known[1]
        return deadlines_of(await self.store.timers(row.id))

    # ---- timers (R15) --------------------------------------------------------------------
    def timers(self, row: GameRow, g: Game) -> list[Timer]:
        """A timer for every decision asked now, with the deadline a new question gets; the
        store keeps the deadline (and reminder) of a decision it already timed, so a
        decision keeps the deadline it got when it was first asked."""
        return self.timers_for(row.settings, g, ai_played(row))

    def timers_for(self, settings: Mapping[str, Any], g: Game,
                   ai_seats: Collection[int]) -> list[Timer]:
        """A person's reminder is due at 75 % of the time limit; an AI-played seat's at
        once, so that every time-limit pass (and the first one after a restart) hands a seat
        whose AI has not answered yet back to `AiSeats.play_ai` — an AI never waits for a
        reminder (`AiSeats.on_timer`)."""
        limit = float(settings.get("time_limit_s", DEFAULT_LIMIT_S))
        now = self.clock()
        return [(s, g.decision(s)["opened"], now + limit,  # type: ignore[index]
                 now if s in ai_seats else now + limit * 0.75) for s in g.waiting_for()]

    async def give_back(self, row: GameRow, g: Game, seat: int, change: MetaChange) -> GameMeta:
        """`change` (the seat played by its person again, `/rr back`) made to the game's
        meta; and `seat`'s open question, when its deadline has passed, given a whole time
        limit from now, in the same transaction. A seat given back before its AI answered
        the question that ran out would otherwise time out again at the next pass, handed
        straight back to the AI with a second time-out counted (the timers audit) — and so
        it was after a crash between two writes (the fault-injection audit). A deadline
        still ahead stays. Returns the meta as stored after it."""
        stored = {t["seat"]: t for t in await self.store.timers(row.id)}
        if seat in stored and is_time(stored[seat]["deadline"]) \
                and stored[seat]["deadline"] <= self.clock() and g.decision(seat) is not None:
            after = json.loads(json.dumps(row.meta))
            change(after)  # the timers a person's seat gets (its reminder at 75 %)
            timers = await self.store.repair_timers(
                row.id, row.version, [seat],
                self.timers(dataclasses.replace(row, meta=after), g), meta=change)
            if timers is not None:  # (None: the game moved on meanwhile; that move timed it)
                self._deadlines[row.id] = (row.version, deadlines_of(timers))
                got = await self.store.get(row.id)
                return got.meta if got is not None else after
        return await self.store.update_meta(row.id, change)

    async def check_timers(self, row: GameRow, g: Game) -> None:
        """The stored timers must be those the game implies: one per waiting seat, for the
        decision it is asked now, with a deadline that is a time. A row that disagrees (a
        partial restore, a hand edit) would show no deadline and never time its seat out,
        so the timers are rebuilt from the game: rows that agree keep their deadline, the
        others get a whole time limit from now; the repair is logged."""
        stored = await self.store.timers(row.id)
        asked = {s: g.decision(s)["opened"] for s in g.waiting_for()}  # type: ignore[index]
        latest = self.clock() + MAX_LIMIT_S + LATEST_SLACK_S
        bad = [t for t in stored if not timer_agrees(t, asked, latest)]
        missing = sorted(set(asked) - {t["seat"] for t in stored})
        if not bad and not missing:
            return
        timers = await self.store.repair_timers(row.id, row.version, [t["seat"] for t in bad],
                                                self.timers(row, g))
        if timers is None:  # the game moved on meanwhile: that move wrote its timers
            return
        log.warning("game %s: timers disagreed with the game (%d wrong row(s), seat(s) %s "
                    "untimed); rebuilt from it", row.id, len(bad), missing)
        self._deadlines[row.id] = (row.version, deadlines_of(timers))


def _verified(row: GameRow, log_: list[list[Any]],
              seqs: list[int]) -> tuple[Game, bool]:
    """Replay setup + log, checking first that nothing is missing; raises `_Damage`. The
    flag: the stored state differs from the replayed one while the log is whole (an older
    release's shape of the state), so it is worth writing again."""
    if row.damage or row.setup is None:
        raise _Damage(kind="unreadable", what=row.damage or ["setup"])
    gap = next((k for k, seq in enumerate(seqs) if seq != k), None)
    if gap is not None:
        raise _Damage(kind="log_gap", seq=gap)
    try:
        g = Game.replay(row.setup, log_)
    except (UnknownRulesVersion, UnknownCardsVersion) as e:  # not damage: a newer release's
        raise _Damage(kind="newer", error=str(e)) from e
    except ActionError as e:
        raise _Damage(kind="replay", error=e.message) from e
    except Exception as e:  # a damaged setup can fail anywhere in the engine
        raise _Damage(kind="replay", error=type(e).__name__) from e
    if len(row.seats) != len(g.state["players"]):  # one seat per player: every post, log
        raise _Damage(kind="unreadable", what=["seats"])  # and ping reads its seat's row
    if row.state is not None and g.to_json() != row.state:
        try:
            recorded = json.loads(row.state)["log"]
        except (ValueError, TypeError, KeyError, RecursionError) as e:
            raise _Damage(kind="unreadable", what=["state"]) from e
        if [list(x) for x in recorded] != log_:  # rows lost at the end (or changed)
            raise _Damage(kind="log_mismatch", rows=len(log_), recorded=len(recorded))
        # The state is a cache of setup + log (R15): an older release wrote it (a state
        # format or a rule fixed since), the log is the game. Worth a look, not an alarm.
        log.warning("game %s: stored state differs from its replayed log; using the log",
                    row.id)
        return g, True
    return g, False


def seat_count(settings: Mapping[str, Any]) -> bool:
    """A lobby's seat count is one a table can have (R2: one to four; not `true`, which
    Python counts as 1). A lobby without one could not be joined, shown or started: the
    reliability audit met a join that raised KeyError at every press."""
    players = settings.get("players")
    return is_whole(players) and 1 <= players <= 4


def solo_level(settings: Mapping[str, Any]) -> bool:
    """A lobby's solo level is none or one this release offers: the store keeps any text
    there, and Start read an unknown one as KeyError, so the lobby could never start (its
    host read 'Something went wrong' at every press)."""
    level = settings.get("difficulty")
    return level is None or level in SOLO_LEVELS


def timer_agrees(t: Mapping[str, Any], asked: Mapping[int, int], latest: float) -> bool:
    """A stored timer that times a question the game asks now, with a deadline that is a
    time no later than the longest limit from now (`latest`)."""
    deadline, remind = t["deadline"], t["remind_at"]
    return (isinstance(t["seat"], int) and asked.get(t["seat"]) == t["decision_id"]
            and is_time(deadline) and 0 < deadline <= latest
            and (remind is None or is_time(remind)))
