"""Time limits (R15): the default answer at a deadline, a reminder before it.

Each waiting seat has a timer (service/tables.py, `Tables.timers`); the interface runs
`tick` on every pass of its ticker. A seat an AI plays is handed to the AI seats room
instead of timing out, and a person's time-out in a channel with zombie mode hands their
seat to the AI (service/ai_seats.py, `AiSeats.on_timer`).

A seat is never timed out on a question the bot could not post: while Discord refuses the
bot's posts in a game's channel for want of permissions, the interface says so (`hold`)
and the game's time limits are held — its meta's `held` (the time the hold began), in the
store, so every process sharing it skips the game. When the bot can post there again
(`resume`), each open question gets its full time limit again.
"""

from __future__ import annotations

import logging

from store import GameMeta, GameRow, TimerRow
from store.rows import LATEST_SLACK_S, is_whole

from .ai_seats import AiSeats
from .errors import ServiceError
from .outcomes import Outcome, Reminder
from .play import Play
from .tables import (
    MAX_LIMIT_S,
    MIN_LIMIT_S,
    Quarantined,
    Tables,
    timer_agrees,
)

log = logging.getLogger("rr.service")


PROBE_S = 3600.0  # a held game's channel is tried again this often (`to_probe`)
SWEEP_S = 3600.0  # active games without any timer are looked for this often (`sweep`)


class TimeLimits:
    """`tick` (every game's due timers), `tick_game` (one game's), `set_time_limit`."""

    def __init__(self, tables: Tables, play: Play, ai: AiSeats) -> None:
        self.tables, self.play, self.ai = tables, play, ai
        # the channels whose game this process saw held (`hold`, or skipped by the pass):
        # only those are read again when a post is taken or an interaction shows the
        # permissions there (`resume`) — every answer and post asks, and a read each was
        # the bot's busiest cost. Another process's hold is seen here at the next pass
        # over its (overdue) timers.
        self.held_channels: set[int] = set()
        self._probed: dict[int, float] = {}  # held channel → when it was last tried (`to_probe`)
        self._swept = float("-inf")  # when `sweep` last looked

    async def tick(self) -> tuple[list[Outcome], list[Reminder]]:
        """Apply the default answer (R15: pass) to every expired decision; list reminders due
        (each claimed by this pass: only those are to be told). Each game is its own job: one
        that fails (damaged, quarantined) is logged and skipped, and every other game still
        gets its time limits."""
        now = self.tables.clock()
        outcomes: list[Outcome] = []
        reminders: list[Reminder] = []
        if now - self._swept >= SWEEP_S:
            self._swept = now
            await self.sweep()
        for game_id, timers in (await self.due(now)).items():
            try:
                done, due = await self.tick_game(game_id, timers, now)
            except Quarantined:
                continue
            except self.tables.store.faults as e:  # busy or cut off: the next pass retries
                log.warning("game %s: time limits wait for the next pass (store: %s)",
                            game_id, e)
                continue
            except Exception:
                log.exception("game %s: time limits failed; the other games go on", game_id)
                continue
            outcomes += done
            reminders += due
        return outcomes, reminders

    async def sweep(self) -> None:
        """Active games left with no timer at all (a hand edit moved their rows to another
        game, or deleted them) get theirs rebuilt from the game (`Tables.check_timers`,
        logged): the pass goes by timer rows, so nobody there ever timed out (R15) until a
        restart's load check (the second fault-injection pass). A game held, set aside, or
        another process's is left alone; one that fails is logged and the others go on."""
        try:
            lost = await self.tables.store.untimed_games()
        except self.tables.store.faults as e:  # busy or cut off: the next sweep looks
            log.warning("lost timers not looked for now (store: %s)", e)
            return
        for game_id in lost:
            try:
                await self._sweep_game(game_id)
            except Quarantined:
                continue
            except self.tables.store.faults as e:
                log.warning("game %s: its lost timers wait for the next sweep (store: %s)",
                            game_id, e)
            except Exception:
                log.exception("game %s: its lost timers were not rebuilt; the next sweep tries"
                              " again", game_id)

    async def _sweep_game(self, game_id: int) -> None:
        tables = self.tables
        row = await tables.store.get(game_id)
        if row is None or row.status != "active" or held(row) or not tables.shards.runs_jobs(row):
            return
        async with tables.lock(row.channel_id):
            row, g = await tables.load_row(row)
            if row.status == "active":
                await tables.check_timers(row, g)

    async def due(self, now: float) -> dict[int, list[TimerRow]]:
        """Timers due at `now` (quarantined games have none), grouped by game. A row whose
        game id is no whole number (text or a REAL SQLite kept in its INTEGER column) names
        no game: it is left out in one warning line, where `int()` of it raised and stopped
        every game's time limits (the fault-injection audit)."""
        by_game: dict[int, list[TimerRow]] = {}
        for t in await self.tables.store.due_timers(now):
            if not is_whole(t["game_id"]):
                log.warning("a timer row names no game (game id %r); left out of the time "
                            "limits", str(t["game_id"])[:40])
                continue
            by_game.setdefault(t["game_id"], []).append(t)
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
        tables = self.tables
        row = await tables.store.get(game_id)
        if row is None or row.status != "active" or not tables.shards.runs_jobs(row):
            return None  # another process hosts it (service/shards.py): its job, not ours
        async with tables.lock(row.channel_id):
            row = await tables.store.get(t["game_id"])
            if row is not None and held(row):
                self.held_channels.add(row.channel_id)
            if row is None or row.status != "active" or held(row):
                return None  # (held: its questions could not be posted — no time runs)
            row, g = await tables.load_row(row)
            if row.status != "active":  # another process's move just ended it
                return None
            dec = g.decision(t["seat"])
            if dec is None or not timer_agrees(t, {t["seat"]: dec["opened"]},
                                               now + MAX_LIMIT_S + LATEST_SLACK_S):
                # stale, or damaged (a deadline that is no time): rebuilt from the game
                await tables.check_timers(row, g)
                return None
            if (seated := await self.ai.on_timer(row, g, t, now)) is not None:
                return seated  # an AI answers this seat (service/ai_seats.py)
            if t["deadline"] <= now:
                return await self.play.timeout(row, g, t["seat"])
            if t["reminded"] == 1:  # (only 1 is written: anything else is damage, which
                return None  # made the seat's reminder silently never come; it comes now)
            notice = {"kind": "remind", "seat": t["seat"], "decision": t["decision_id"],
                      "deadline": t["deadline"]} if tables.notify else None
            marked = await tables.store.mark_reminded(row.id, t["seat"], t["decision_id"],
                                                      notice)
            if marked is None:  # another pass (another process) claimed it: it tells it
                log.debug("game %s seat %s: reminder claimed by another pass", game_id,
                          t["seat"])
                return None
            return Reminder(row, t["seat"], t["deadline"], marked.notice)

    async def hold(self, channel_id: int) -> bool:
        """Discord refused the bot's posts in this channel for want of permissions: the
        open game's time limits are held until `resume`. True when this call began the
        hold (a game already held, a daily game or none: False)."""
        row = await self.tables.store.open_game(channel_id)
        if row is not None and held(row):
            self.held_channels.add(channel_id)
        if row is None or row.status != "active" or row.settings.get("daily") or held(row):
            return False
        began = self.tables.clock()

        def start(meta: GameMeta) -> bool:
            if meta.get("held") is not None:
                return False  # another process held it first
            meta["held"] = began
            return True

        meta = await self.tables.store.update_meta(row.id, start)
        self.held_channels.add(channel_id)
        if meta.get("held") != began:
            return False
        log.warning("game %s: the bot cannot post in channel %s; its time limits are held",
                    row.id, channel_id)
        return True

    async def resume(self, channel_id: int) -> GameRow | None:
        """The bot can post in this channel again: a held game's clocks restart, each open
        question with its full time limit (its timers rebuilt first, then the hold lifted:
        a crash between them leaves the game held, and the next sign resumes it again).
        The game resumed (to be told it goes on), or None when it was not held. Only a
        channel this process saw held is read (`held_channels`)."""
        if channel_id not in self.held_channels:
            return None
        if (row := await self.held_game(channel_id)) is None:
            return None
        tables = self.tables
        async with tables.lock(channel_id):
            row = await tables.store.get(row.id)
            if row is None or row.status != "active" or not held(row):
                self.held_channels.discard(channel_id)
                return None
            row, g = await tables.load_row(row)
            stored = await tables.store.timers(row.id)
            timers = await tables.store.repair_timers(row.id, row.version,
                                                      [int(t["seat"]) for t in stored],
                                                      tables.timers(row, g))
            if timers is None:
                return None  # moved meanwhile (another process): the next sign resumes it
            # kept in memory as after a move: a resume changes no version, so the deadlines
            # remembered for it (run out) were still what `/rr status` showed
            tables.remember(row, g, timers)

            lifted: list[bool] = []

            def lift(meta: GameMeta) -> bool:
                lifted[:] = [meta.pop("held", None) is not None]  # (False: another did)
                return lifted[0]

            row.meta = await tables.store.update_meta(row.id, lift)
            self.held_channels.discard(channel_id)
            if lifted != [True]:
                return None  # another process resumed it, and tells it
        log.info("game %s: the bot can post in channel %s again; its time limits restart",
                 row.id, channel_id)
        return row

    async def held_game(self, channel_id: int) -> GameRow | None:
        """The channel's game in play, if its time limits are held; else None, and the
        channel is no longer counted held here (`held_channels`)."""
        row = await self.tables.store.open_game(channel_id)
        if row is None or row.status != "active" or not held(row):
            self.held_channels.discard(channel_id)
            return None
        return row

    def to_probe(self) -> list[int]:
        """The held channels to try a post in again (every PROBE_S, the first PROBE_S after
        this process saw the hold): permissions given back show only in a post that goes
        through or in a command there, and a game whose players all wait for the bot's ping
        would otherwise stay held for good."""
        now = self.tables.clock()
        for gone in set(self._probed) - self.held_channels:
            del self._probed[gone]
        due = []
        for channel in sorted(self.held_channels):
            last = self._probed.setdefault(channel, now)
            if now - last >= PROBE_S:
                self._probed[channel] = now
                due.append(channel)
        return due

    async def set_time_limit(self, channel_id: int, user_id: int, seconds: int,
                             can_manage: bool) -> GameRow:
        """Change the turn time limit of a channel's game; decisions already asked keep
        their deadline, new ones get the new limit."""
        if not MIN_LIMIT_S <= seconds <= MAX_LIMIT_S:
            raise ServiceError.of("svc.time_limit")
        async with self.tables.lock(channel_id):
            row = await self.tables.hosted(channel_id, user_id, can_manage, "svc.host_time")
            row.settings["time_limit_s"] = seconds
            await self.tables.write_settings(row)  # (not over a damaged row)
        return row


def held(row: GameRow) -> bool:
    """The game's time limits are held: the bot could not post its questions (`hold`)."""
    return row.meta.get("held") is not None
