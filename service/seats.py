"""AI seats: the hosting rules for seats an AI plays (issue 9).

Two kinds of AI seat, one rule for both:
- a *bot seat* is filled by an AI from the lobby on (`{"user": -k, "name": "Bot k (level)",
  "ai": level}` in the game's seats, so it is persisted with the game);
- a *zombie seat* is a person's seat an AI plays since they ran out of time, when the channel
  allows it (`settings["zombie"]` = level); kept in `meta["zombie"]` (seat → level) until the
  person types `/rr back`.

Whenever an AI-played seat is asked something, `play_ai` answers it: the choice is computed
in a worker thread from `engine.view(state, seat)` only, then committed through the same
path as a person's answer (`_apply`: validated, logged, timed, narrated by the interface).
A broken AI never hurts the game: an exception, a refused answer or a choice that takes
longer than `AI_THINK_S` falls back to the engine's default (`timeout`) answer.

An AI never stalls a game (issue 17). A store fault while its answer is committed (SQLite
busy or locked, a PostgreSQL connection lost or a row lock timing out: `store.faults`) says
nothing about the answer, so the same answer is committed again, after a jittered
exponential backoff (`AI_RETRY_FIRST_S` doubling up to `AI_RETRY_MAX_S`), until it lands
or the question has moved on (another answer, the seat given back, the game over) — the
version check makes a retry after a commit that did land a no-op. Past `AI_RETRY_FOR_S`
the run stops retrying; the time-limit pass picks the seat up again at its next tick, since
an AI-played seat's reminder is due at once (`GameService._timers_for`), as it does after a restart or
an answer lost in any other way. Each retry is a WARNING, without a traceback.
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import random
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any, Literal

import ai
import i18n
from engine import Game, View
from store import GameRow, MetaChange, Settings, TimerRow

from .errors import ServiceError
from .meta import SeatToAi, seat_back

if TYPE_CHECKING:
    from store import GameStore

    from .games import Outcome
    from .shards import Shards

log = logging.getLogger("rr.seats")

AI_THINK_S = 20.0  # an AI taking longer than this gives the default answer instead
MAX_AI_ANSWERS = 500  # bound per `play_ai` call (a 4-player game of random AIs: ~150)
AI_AT_ONCE = 2  # AI choices computed at the same time, all games together
AI_RETRY_FIRST_S = 0.2  # the first wait before an answer the store could not take is retried
AI_RETRY_MAX_S = 15.0  # the backoff's bound
AI_RETRY_FOR_S = 300.0  # retried this long in one run; then the next tick takes over
AI_RETRIES = 100  # and at most this many times (the bound of the loop itself)


class _StoreFault(Exception):
    """The store could not take the AI's answer (`answer`, to be committed again)."""

    def __init__(self, answer: str, cause: BaseException) -> None:
        super().__init__(f"{type(cause).__name__}: {cause}")
        self.answer = answer


def retry_delay(attempt: int) -> float:
    """The wait before retry number `attempt` (0, 1, …): doubling from AI_RETRY_FIRST_S up
    to AI_RETRY_MAX_S, with half of it random ("equal jitter"), so AI runs that met the
    same fault do not all come back at the same instant."""
    step = min(AI_RETRY_MAX_S, AI_RETRY_FIRST_S * 2 ** min(attempt, 30))
    return step / 2 + random.uniform(0, step / 2)


def level_name(level: str, lang: str) -> str:
    """An AI level as players read it (catalogue `level.*`; an unknown one as it is)."""
    text = i18n.t(lang, f"level.{level}")
    return level if text == f"level.{level}" else text


def check_level(level: str) -> str:
    if level not in ai.LEVELS:
        raise ServiceError.of("svc.ai_level", level=level, levels=", ".join(ai.LEVELS))
    return level


def check_bots(players: int, difficulty: str | None, bots: int, level: str) -> None:
    """`/rr new` with AI players: a known level, room for them, and no solo difficulty."""
    if not bots:
        return
    if difficulty is not None:
        raise ServiceError.of("svc.difficulty_ai")
    check_level(level)
    if not 0 < bots < players:
        raise ServiceError.of("svc.ai_room", n=players, k=players - 1)


def channel_settings(latest: GameRow | None) -> Settings:
    """Settings a new lobby keeps from the channel's previous game: zombie mode and hints
    (on or off) are the channel's choice, not one game's."""
    kept: Settings = {}
    if latest is not None and latest.settings.get("zombie"):
        kept["zombie"] = latest.settings["zombie"]
    if latest is not None and latest.settings.get("hints") is False:
        kept["hints"] = False
    return kept


def bot_level(row: GameRow, seat: int) -> str | None:
    """The level of a bot seat (an AI from the lobby on), else None."""
    level = row.seats[seat].get("ai") if 0 <= seat < len(row.seats) else None
    return str(level) if level else None


def zombie_level(row: GameRow, seat: int) -> str | None:
    """The level of the AI standing in for a person who ran out of time, else None."""
    level = row.meta.get("zombie", {}).get(str(seat))
    return str(level) if level else None


def ai_level(row: GameRow, seat: int) -> str | None:
    """Who answers this seat now: an AI level, or None for its person."""
    return bot_level(row, seat) or zombie_level(row, seat)


def has_ai(row: GameRow) -> bool:
    return bool(row.meta.get("zombie")) or any(s.get("ai") for s in row.seats)


def ai_waiting(row: GameRow, g: Game) -> bool:
    """Whether an AI-played seat is being asked something (so `play_ai` has work)."""
    return not g.over and has_ai(row) and any(ai_level(row, s) for s in g.waiting_for())


def bot_name(k: int, level: str, lang: str) -> str:
    return i18n.t(lang, "seat.bot_name", k=k, level=level_name(level, lang))


def seat_name(row: GameRow, seat: int, *, image: bool = False) -> str:
    """A seat's name as posts (🤖 marks) or images (no emoji in the font) show it."""
    name = str(row.seats[seat]["name"])
    if bot_level(row, seat):
        return name if image else f"🤖 {name}"
    if zombie_level(row, seat):
        return i18n.t(str(row.settings.get("lang", "en")), "seat.zombie_image", name=name) \
            if image else f"{name} 🤖"
    return name


def seat_names(row: GameRow, *, image: bool = False) -> list[str]:
    return [seat_name(row, s, image=image) for s in range(len(row.seats))]


def marked_view(row: GameRow, view: View) -> View:
    """The view with AI-played seats' names marked, for the table image."""
    if not has_ai(row):
        return view
    players = [p.copy() for p in view["players"]]
    for s, p in enumerate(players):
        if s < len(row.seats):
            p["name"] = seat_name(row, s, image=True)
    marked = view.copy()
    marked["players"] = players
    return marked


def _ai_seed(row: GameRow, seat: int, log_len: int) -> int:
    """Reproducible per game, seat and moment, different from one decision to the next."""
    base = int((row.setup or {}).get("seed", 0))
    return (base * 1_000_003 + seat * 7_919 + log_len) % 2**31


def _choose(level: str, seed: int, snapshot: str, cards: Any, seat: int) -> str:
    """In a worker (thread or process): the seat's own view of a private copy of the state,
    and the AI's choice from it."""
    view = Game(json.loads(snapshot), cards).view(seat)
    return ai.make_player(level, seed).choose(view, seat)


def process_pool() -> Executor:
    """AI_AT_ONCE worker processes, started fresh ("spawn": the bot's threads must not be
    forked); each imports the engine and the AI once, on its first choice."""
    return ProcessPoolExecutor(AI_AT_ONCE, mp_context=multiprocessing.get_context("spawn"))


class SeatsMixin:
    """AI seats of `GameService` (lobby bots, zombie mode, the AI's answers)."""

    if TYPE_CHECKING:
        store: GameStore
        clock: Callable[[], float]

        def lock(self, channel_id: int) -> asyncio.Lock: ...
        shards: Shards

        async def current(self, channel_id: int, *,
                          mine: bool = True) -> tuple[GameRow, Game]: ...
        async def _lobby(self, channel_id: int) -> GameRow: ...
        async def _apply(self, row: GameRow, g: Game, seat: int, user_id: int | None,
                         text: str, decision_id: int | None,
                         meta: MetaChange | None = None) -> Outcome: ...

    _ai_running: set[int]
    _ai_again: set[int]
    _ai_gate: asyncio.Semaphore | None
    # Where AI choices are computed: None = worker threads (asyncio.to_thread); the bot sets
    # a process pool factory (`ai_processes`), so a long think does not even compete with the
    # event loop for the GIL (bench/seats.py).
    ai_pool: Callable[[], Executor] | None
    _ai_executor: Executor | None
    # How a retry waits (tests pass a fake that only counts the time).
    ai_sleep: Callable[[float], Awaitable[None]]

    def _seats_init(self) -> None:
        self._ai_running, self._ai_again, self._ai_gate = set(), set(), None
        self.ai_pool, self._ai_executor = None, None
        self.ai_sleep = asyncio.sleep

    def close_ai(self) -> None:
        """Stop the AI's worker processes, if any (nothing waits for a think in progress)."""
        if self._ai_executor is not None:
            self._ai_executor.shutdown(wait=False, cancel_futures=True)
            self._ai_executor = None

    # ---- lobby ---------------------------------------------------------------------------
    @staticmethod
    def _add_bots(row: GameRow, count: int, level: str) -> None:
        if count <= 0:
            return
        check_level(level)
        room = row.settings["players"] - len(row.seats)
        if count > room:
            raise ServiceError.of("svc.seats_room", n=row.settings["players"], k=room)
        lang = row.settings.get("lang", "en")
        for _ in range(count):
            used = {-int(s["user"]) for s in row.seats if s.get("ai")}
            k = next(k for k in range(1, 5) if k not in used)
            row.seats.append({"user": -k, "name": bot_name(k, level, lang), "ai": level})

    async def add_bot(self, channel_id: int, user_id: int, level: str,
                      count: int = 1) -> GameRow:
        """The host seats AI players in the lobby."""
        async with self.lock(channel_id):
            row = await self._lobby(channel_id)
            if user_id != row.host_id:
                raise ServiceError.of("svc.host_ai")
            if row.settings.get("difficulty") is not None:
                raise ServiceError.of("svc.solo_host")
            self._add_bots(row, count, level)
            await self.store.update_lobby(row)
            return row

    async def remove_bot(self, channel_id: int, user_id: int) -> GameRow:
        """The host takes the last AI player out of the lobby."""
        async with self.lock(channel_id):
            row = await self._lobby(channel_id)
            if user_id != row.host_id:
                raise ServiceError.of("svc.host_ai")
            bots = [k for k, s in enumerate(row.seats) if s.get("ai")]
            if not bots:
                raise ServiceError.of("svc.no_ai")
            row.seats.pop(bots[-1])
            await self.store.update_lobby(row)
            return row

    # ---- zombie mode ---------------------------------------------------------------------
    async def set_zombie(self, channel_id: int, user_id: int, level: str | None,
                         can_manage: bool) -> GameRow:
        """Whether an AI (of `level`) takes the seat of a player who runs out of time; new
        lobbies in the channel keep the setting (see `new_lobby`)."""
        if level is not None:
            check_level(level)
        async with self.lock(channel_id):
            row = await self.store.open_game(channel_id)
            if row is None:
                raise ServiceError.of("svc.no_game")
            self.shards.check(row.guild_id)
            if user_id != row.host_id and not can_manage:
                raise ServiceError.of("svc.host_setting")
            row.settings["zombie"] = level
            await self.store.set_settings(row.id, row.settings)
        return row

    async def reclaim(self, channel_id: int, user_id: int) -> GameRow:
        """`/rr back`: the person plays their own seat again from their next answer on."""
        async with self.lock(channel_id):
            row, _g = await self.current(channel_id)
            seat = row.seat_of(user_id)
            if seat is None:
                raise ServiceError.of("svc.not_player", code="not_player")
            if zombie_level(row, seat) is None:
                raise ServiceError.of("svc.own_seat")
            row.meta = await self.store.update_meta(row.id, seat_back(seat))
            log.info("game %s: seat %s is played by its person again", row.id, seat)
            return row

    def _refuse_ai_seat(self, row: GameRow, seat: int) -> None:
        """A person whose seat an AI plays answers nothing until they take it back."""
        if bot_level(row, seat):
            raise ServiceError.of("svc.ai_seat", code="ai_seat")
        if zombie_level(row, seat):
            raise ServiceError.of("svc.zombie_seat", code="ai_seat")

    async def _tick_ai_seat(self, row: GameRow, g: Game, timer: TimerRow,
                            now: float) -> Outcome | None:
        """A due timer (reminder or deadline) that an AI answers rather than the person or
        the default answer; None to let `tick` do as usual. The outcome carries no move:
        telling it leads the interface to `play_ai`.

        - an AI-played seat: its answer is overdue (lost in a restart or a failed run);
        - a person's seat at its deadline, with zombie mode on: the AI takes the seat and
          answers the expired question (the time-out counts, once).
        """
        from .games import Outcome

        seat = int(timer["seat"])
        if ai_level(row, seat):
            return Outcome(row, g, [], None, "ai", notes=["ai"])
        handover = self._zombie_on_timeout(row, seat) if timer["deadline"] <= now else None
        if handover is None:
            return None
        row.meta = await self.store.update_meta(row.id, handover)
        if not handover.made:  # another process handed it over first, and tells it
            return Outcome(row, g, [], None, "ai", notes=["ai"])
        log.info("game %s: seat %s ran out of time; an AI takes it", row.id, seat)
        return Outcome(row, g, [], seat, "zombie", notes=["zombie"])

    @staticmethod
    def _ai_played(row: GameRow) -> set[int]:
        """The seats an AI plays now (bot seats, and zombie-mode seats handed over)."""
        return {s for s in range(len(row.seats)) if ai_level(row, s)}

    def _zombie_on_timeout(self, row: GameRow, seat: int) -> SeatToAi | None:
        """At a person's time-out in a channel with zombie mode: the change that hands their
        seat to the AI (the time-out still counts), else None."""
        level = row.settings.get("zombie")
        if not level or level not in ai.LEVELS or ai_level(row, seat):
            return None
        return SeatToAi(seat, level)

    # ---- the AI's answers ----------------------------------------------------------------
    async def play_ai(self, channel_id: int,
                      on_outcome: Callable[[Outcome], Awaitable[None]]) -> int:
        """Answer every pending decision of the channel's AI-played seats, one commit each,
        handing each outcome to `on_outcome` (to be told) before the next; returns how many.

        One run per channel at a time: a call while one runs only asks it to look again, so
        two triggers never compute the same choice twice."""
        if channel_id in self._ai_running:
            self._ai_again.add(channel_id)
            return 0
        self._ai_running.add(channel_id)
        answered = 0
        try:
            for _ in range(MAX_AI_ANSWERS):
                self._ai_again.discard(channel_id)
                out = await self._ai_answer(channel_id)
                if out is None:
                    if channel_id in self._ai_again:
                        continue
                    return answered
                if out is True:  # the question moved on while the AI thought: look again
                    continue
                answered += 1
                try:
                    await on_outcome(out)
                except Exception:
                    log.exception("channel %s: telling an AI answer failed", channel_id)
            log.warning("channel %s: %d AI answers in one run; the rest waits for the next "
                        "trigger", channel_id, MAX_AI_ANSWERS)
            return answered
        finally:
            self._ai_running.discard(channel_id)
            self._ai_again.discard(channel_id)

    async def _ai_answer(self, channel_id: int) -> Outcome | Literal[True] | None:
        """One AI answer committed (an Outcome), True to look again, None when none is due
        (or the store kept failing for the whole retry budget: see the module's doc)."""
        waited = 0.0
        for attempt in range(AI_RETRIES + 1):
            try:
                row, g = await self.current(channel_id)
                break
            except ServiceError:
                return None
            except self.store.faults as e:
                so_far = await self._retry_wait(f"channel {channel_id} (AI)", attempt, waited,
                                                _StoreFault("", e))
                if so_far is None:
                    return None
                waited = so_far
        else:
            return None
        seats = [s for s in g.waiting_for() if ai_level(row, s)] if has_ai(row) else []
        if g.over or not seats:
            return None
        seat = seats[0]
        level = ai_level(row, seat)
        assert level is not None
        decision = g.decision_id(seat)
        # A copy taken now, on the loop: the cached game may change while the AI thinks.
        snapshot, n = g.to_json(), len(g.log)
        text = await self._think(row, level, snapshot, g, seat, n)
        waited = 0.0
        for attempt in range(AI_RETRIES + 1):
            try:
                out = await self._ai_commit(channel_id, seat, level, decision, text)
            except _StoreFault as fault:
                text = fault.answer
                so_far = await self._retry_wait(f"game {row.id} seat {seat} (AI {level})",
                                                attempt, waited, fault)
                if so_far is None:
                    return None
                waited = so_far
                continue
            if out is True or out is None:
                return out
            out.notes.append(f"ai:{level}")
            log.info("game %s seat %s (AI %s): %s", out.row.id, seat, level, out.text)
            return out
        return None  # not reached: the last attempt returns or gives up

    async def _retry_wait(self, who: str, attempt: int, waited: float,
                          fault: _StoreFault) -> float | None:
        """Wait before retry `attempt` (the channel is not locked meanwhile: people play
        on) and return the time waited so far in this run; None once the run's budget is
        spent (the next time-limit pass takes over). Logged as a WARNING, no traceback: a
        busy database is weather, not a bug."""
        if attempt >= AI_RETRIES or waited >= AI_RETRY_FOR_S:
            log.warning("%s: the store still fails after %d tries (%s); the next time-limit "
                        "pass tries again", who, attempt + 1, fault)
            return None
        delay = retry_delay(attempt)
        log.warning("%s: the store could not take the answer (%s); retried in %.2f s", who,
                    fault, delay)
        await self.ai_sleep(delay)
        return waited + delay

    async def _ai_commit(self, channel_id: int, seat: int, level: str, decision: int | None,
                         text: str) -> Outcome | Literal[True] | None:
        """One attempt to commit the AI's answer `text` to `decision`, under the channel's
        lock: the Outcome, True when the question moved on (look again), None when the
        channel has no game in play any more. A store fault raises `_StoreFault` with the
        answer to commit again (the default one, once the AI's own was refused)."""
        async with self.lock(channel_id):
            try:
                row, g = await self.current(channel_id)
            except ServiceError as e:
                if e.code in ("busy", "uncertain"):
                    raise _StoreFault(text, e) from e
                return True if e.code == "stale" else None
            except self.store.faults as e:
                raise _StoreFault(text, e) from e
            if ai_level(row, seat) != level or g.decision_id(seat) != decision:
                return True
            for answer in dict.fromkeys((text, "timeout")):
                try:
                    return await self._apply(row, g, seat, None, answer, decision)
                except ServiceError as e:
                    if e.code == "stale":
                        return True
                    if e.code in ("busy", "uncertain"):
                        raise _StoreFault(answer, e) from e
                    if answer == "timeout":
                        raise
                    log.error("game %s seat %s: AI %s answered %r, refused (%s); default "
                              "answer instead", row.id, seat, level, answer, e.message)
                except self.store.faults as e:
                    raise _StoreFault(answer, e) from e
        return None  # not reached: "timeout" is always a last answer

    async def _think(self, row: GameRow, level: str, snapshot: str, g: Game, seat: int,
                     n: int) -> str:
        """The AI's choice, computed off the event loop (at most AI_AT_ONCE at a time);
        the engine's default answer when the AI fails or takes too long."""
        if self._ai_gate is None:
            self._ai_gate = asyncio.Semaphore(AI_AT_ONCE)
        args = (level, _ai_seed(row, seat, n), snapshot, g.cards, seat)
        try:
            async with self._ai_gate:
                job: Awaitable[str]
                if self.ai_pool is None:
                    job = asyncio.to_thread(_choose, *args)
                else:
                    if self._ai_executor is None:
                        self._ai_executor = self.ai_pool()
                    job = asyncio.get_running_loop().run_in_executor(self._ai_executor,
                                                                     _choose, *args)
                return await asyncio.wait_for(job, AI_THINK_S)
        except BrokenProcessPool:  # a worker died: a fresh pool for the next choice
            log.exception("game %s seat %s: AI worker process died; default answer instead",
                          row.id, seat)
            self.close_ai()
            return "timeout"
        except Exception:
            log.exception("game %s seat %s: AI %s failed; default answer instead", row.id,
                          seat, level)
            return "timeout"
