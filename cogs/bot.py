"""RookBot: the discord.py client that hosts games — store, service, cogs, buttons, ticker.

Everything that must survive a restart lives in SQLite (games, action logs, timers,
quarantines, the outbox of announcements not yet delivered) or in the custom ids of the buttons already posted (DynamicItems that name the
game, the seat and the decision id), so a new process picks every game up where the last
one stopped: at startup it first delivers what the last one committed but had not
announced yet. The ticker (a `discord.ext.tasks` loop, stopped by `close()`) applies time
limits and retries announcements Discord did not take.

Several processes can share one database (PostgreSQL): the bot is an `AutoShardedBot`, each
process runs the shards `RR_SHARD_COUNT`/`RR_SHARD_IDS` give it and hosts the games of their
servers only — it answers, times, verifies and announces those (service/shards.py) — while
the daily day job runs under a lease in whichever process holds it (cogs/leases.py).

One broken game never hurts another: startup verification, every time-limit pass and every
announcement run one game at a time, each catching its own failure; a game that cannot be
loaded or verified is quarantined and told so in its channel (cogs/quarantine.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import discord
from discord.ext import commands, tasks

from service import GameService, Outcome, Quarantined, Reminder, ServiceError
from service.ai_seats import process_pool
from service.daily_play import DailyHost
from service.ratings import Ratings
from service.seats import ai_waiting
from service.shards import Shards
from service.tables import STORE_REFUSALS
from store import GameRow, GameStore, TimerRow, make_store

from .actions import AnsweringTree, guarded, perform
from .announce import Announcer
from .announcement import turn_of
from .config import Config
from .daily_board import DAILY_ITEMS
from .daily_job import day_once
from .daily_review import REVIEW_ITEMS
from .daily_words import tell_settled
from .delivery import channel_watch
from .host import Host
from .i18n import RookTranslator
from .leases import JobLease
from .lobby import lobby_click
from .logsafe import install as install_log_filters
from .quarantine import tell_channel
from .seats import AiRunner
from .viewer import VIEWER_ITEMS
from .views import DYNAMIC_ITEMS, Target

log = logging.getLogger("rr.bot")
# aiosqlite logs every job it runs at DEBUG (with its arguments): those can be game states
# (deck orders, everyone's medals). Never let them into a log, whatever RR_LOG_LEVEL says.
logging.getLogger("aiosqlite").setLevel(logging.INFO)

COGS = ("cogs.game", "cogs.tutorial")  # the extensions setup_hook loads
GAME_TICK_BUDGET_S = 30.0  # one game's time-limit job never runs longer than this
PASS_BUDGET_S = 300.0  # nor a whole pass (a stuck store cannot wedge the ticker)
# The collector's thresholds in production (Python's are 700, 10, 10): a young pass every
# 20,000 new containers, a middle one every 50 of those, a full one every 100 middle ones
GC_THRESHOLDS = (20_000, 50, 100)
APPLIED_KEEP_S = 7 * 24 * 3600  # interaction keys kept (Discord redelivers within minutes)


DAY_LEASE = "daily-day-job"


class RookBot(Host):
    """The bot. Tests build it with `db_path`/`store`/`service`/`clock` injected and no token;
    `bot.py` runs it with `freeze_gc` (tests leave it off: frozen objects are never freed)."""

    def __init__(self, config: Config, *, store: GameStore | None = None,
                 service: GameService | None = None, clock: Callable[[], float] | None = None,
                 seed_source: Callable[[], int] | None = None,
                 cards_data: dict[str, Any] | None = None, sync_commands: bool = True,
                 start_ticker: bool = True, freeze_gc: bool = False,
                 ai_processes: bool = False, draw_processes: bool = False) -> None:
        intents = discord.Intents.default()
        # RR_SHARD_COUNT/RR_SHARD_IDS (bot.py): this process's shards; unset, the only
        # process, running as many shards as Discord recommends
        self.hosting = Shards(config.shard_count, config.shard_ids)
        sharding: dict[str, Any] = {} if self.hosting.alone else {
            "shard_count": self.hosting.count, "shard_ids": list(self.hosting.ids)}
        super().__init__(command_prefix=commands.when_mentioned, intents=intents,
                         help_command=None,
                         allowed_mentions=discord.AllowedMentions.none(),  # cogs/mentions.py
                         tree_cls=AnsweringTree,  # every command's refusal: one handler
                         **sharding)
        self.config = config
        self.clock = clock or time.time
        self._seed_source = seed_source
        self._cards_data = cards_data
        self.store = store  # type: ignore[assignment]
        self.service = service  # type: ignore[assignment]
        self._own_store = store is None and service is None
        self.sync_commands = sync_commands
        self.start_ticker = start_ticker
        self.freeze_gc = freeze_gc
        self.ai_processes = ai_processes  # AI choices in worker processes (bot.py sets it)
        # channel images drawn in worker processes (bot.py sets it; tests: threads)
        self.announcer = Announcer(self, processes=draw_processes)
        self.ai = AiRunner(self)  # AI seats' answers (cogs/seats.py)
        self.seating = {}  # (cogs/host.py)
        self.learning = {}  # (cogs/host.py)
        self._verifier: asyncio.Task[int] | None = None
        self._notifier: asyncio.Task[int] | None = None
        # set-aside posts told after another task's turn in their channel (`_tell_set_aside`)
        self._asides: set[asyncio.Task[bool]] = set()
        self._started = time.time()
        self._outbox = asyncio.Lock()  # one sweep of the outbox at a time
        # Time limits: a pass over the due timers every `tick_seconds` (the first one once
        # startup verification is done, so deadlines that passed while the bot was down
        # are applied at once).
        self.ticker = tasks.loop(seconds=self.tick_seconds)(self._tick_pass)
        self.ticker.before_loop(self._before_ticks)
        self.tick_passes = 0  # passes the ticker has made (diagnostics, tests)
        # The daily challenge (cogs/daily.py): its host, and the day job (cogs/daily_job.py) every few minutes
        # (par, closing yesterday, server announcements, streak reminders; each once a day,
        # by stored flags, so a restart neither repeats nor loses them).
        self.daily = None
        self.day_passes = 0
        # Today's par at startup (a bot started mid-day): bot.load_config turns it on.
        self.daily_par_at_start = config.daily_par_at_start
        self.day_loop = tasks.loop(seconds=self.day_seconds)(self._day_pass)
        self.day_loop.before_loop(self._before_ticks)
        # The day job runs in one process at a time: the holder of this lease, renewed every
        # third of its time to live (cogs/leases.py).
        self.day_lease: JobLease = None  # type: ignore[assignment]
        self.lease_loop = tasks.loop(seconds=self.lease_seconds / 3)(self._lease_pass)
        install_log_filters()

    @property
    def tick_seconds(self) -> float:
        return self.config.tick_seconds

    @property
    def day_seconds(self) -> float:
        return self.config.day_seconds

    @property
    def lease_seconds(self) -> float:
        return self.config.lease_seconds

    async def _lease_pass(self) -> None:
        """Renew (or take over) the day job's lease; never raises (`JobLease.renew`)."""
        await self.day_lease.renew()

    async def _day_pass(self) -> None:
        """One pass of the day job: never raises (an exception would stop the loop). The
        loop's first call (at startup) only counts: startup's verification and outbox have
        the process to themselves, and the job runs one interval later."""
        self.day_passes += 1
        if self.day_passes == 1:
            # started mid-day: today's par, in the background (by the DM host, shard 0's
            # process, where the daily games are played; other processes on demand only)
            if self.daily_par_at_start and self.hosting.dm_host and self.daily is not None:
                self.daily.par.ensure(self.daily.days.today())
            return
        if not self.day_lease.held:  # another process runs it (or nobody can reach the db)
            return
        try:
            await day_once(self)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("daily job failed; retrying at the next pass")

    async def settle_daily(self) -> int:
        """At startup: daily games that ended while their result was not yet scored."""
        if not self.hosting.dm_host or self.daily is None:  # daily games are timed and told
            return 0  # by shard 0's process, once its daily host is open
        try:
            rows = [a.game_id for a in await self.daily.store.playing() if a.game_id]
        except Exception:
            log.exception("daily: could not list the attempts in play")
            return 0
        for game_id in rows:
            await tell_settled(self, game_id)
        return len(rows)

    async def answer(self, interaction: discord.Interaction, text: str, target: Target) -> None:
        """A game button's answer (cogs/views.py `Clicks`): the one answer path."""
        await guarded(interaction, perform(interaction, text, target))

    async def lobby_click(self, interaction: discord.Interaction, game: int, op: str) -> None:
        """A lobby button (cogs/views.py `Clicks`): join, leave or start."""
        await guarded(interaction, lobby_click(interaction, game, op))

    async def setup_hook(self) -> None:
        if self.service is None:
            if self.store is None:
                # RR_DB: an SQLite file, or a postgresql:// URL (store.make_store)
                self.store = await make_store(
                    self.config.db_path, pg_pool_size=self.config.pg_pool_size,
                    pg_acquire_s=self.config.pg_acquire_s).open()
            self.service = GameService(self.store, clock=self.clock, seed_source=self._seed_source,
                                       cards_data=self._cards_data)
        else:
            self.store = self.service.store
        self.service.tables.notify = True  # moves queue their announcements in the outbox
        self.service.tables.shards = self.hosting
        self.day_lease = JobLease(self.store, DAY_LEASE, self.lease_seconds)
        # RR_DAILY_SECRET, else a secret generated once and stored (service/daily_play.py);
        # a weak one, or one the database was not started with, stops here (SecretError)
        self.daily = await DailyHost.open(self.service)
        self.daily.par.levels = self.config.daily_par_levels
        if plays := self.config.daily_par_plays:
            self.daily.par.plays = plays
        self.announcer.set_aside = partial(tell_channel, self)
        self.service.tables.on_quarantine = self._tell_set_aside
        if self.ai_processes:
            self.service.ai.pool = process_pool
        await self.tree.set_translator(RookTranslator())
        for ext in COGS:
            await self.load_extension(ext)
        self.add_dynamic_items(*DYNAMIC_ITEMS, *DAILY_ITEMS, *REVIEW_ITEMS, *VIEWER_ITEMS)
        if self.sync_commands:
            try:
                await self.tree.sync()
            except discord.HTTPException as e:  # commands from the last sync still work
                log.warning("command sync failed: %s", e)
        if self.freeze_gc:
            # What is loaded by now (modules, the command tree, card data, fonts) lives as
            # long as the process: keep it out of the collector's full passes, which would
            # otherwise stop the event loop for tens of milliseconds (bench/bot.py: a full
            # collection during a burst delayed every acknowledgement in it by ~70 ms).
            gc.collect()
            gc.freeze()
            # What comes later (every open game's state, discord.py's caches) still made
            # the collector's passes the loop's largest stall: at 500 busy games, full
            # passes of ~360 ms each over half a million objects. The bot allocates
            # containers by the thousand per interaction and makes few cycles, so it
            # collects less often (README "Bot": the collector's time and the answers).
            gc.set_threshold(*GC_THRESHOLDS)
        self._verifier = asyncio.create_task(self.verify_games(), name="rr-verify")
        self._started = time.time()
        self._notifier = asyncio.create_task(self.deliver_notices(startup=True),
                                             name="rr-outbox")
        if self.start_ticker:
            self.lease_loop.start()
            self.ticker.start()
            self.day_loop.start()

    async def verify_games(self) -> int:
        """Load every active game once at startup: setup + log is replayed and compared with
        the stored state, and the games are warm in memory before the first click. A game
        that fails is quarantined (and told so) or logged; the others are still verified.
        Quarantined games are checked again (a restored or repaired one resumes). Yields
        between games; returns how many verified."""
        count, held = 0, 0
        try:
            rows = await self.store.active_games()
        except Exception:
            log.exception("startup verification could not list the active games")
            return 0
        for row in rows:
            if not self.hosting.runs_jobs(row):  # another process hosts it
                continue
            try:
                async with self.service.tables.lock(row.channel_id):
                    fresh = await self.store.get(row.id)
                    if fresh is not None and fresh.status == "active":
                        g = await self.service.tables.load(fresh, recheck=True)
                        count += 1
                        if ai_waiting(fresh, g):  # an AI's answer was lost in the restart
                            self.ai.kick(fresh.channel_id)
            except Quarantined:  # (not wording: counted; its channel was told once)
                held += 1
            except Exception:  # not damage (e.g. the store failed): tried again when used
                log.exception("game %s: startup verification failed; the other games go on",
                              row.id)
            await asyncio.sleep(0)
        log.info("%d active game(s) loaded and verified; %d quarantined", count, held)
        await self.name_unknown_status()
        await self.settle_daily()
        await self.settle_games()
        return count

    async def name_unknown_status(self) -> None:
        """A game row whose status is none of the four is read by no query: its channel
        says "no game here" and a new one may open there. The operator is told at every
        start which rows those are (the crash audit found one vanish without a word)."""
        try:
            odd = await self.store.unknown_status()
        except Exception:
            log.exception("startup could not look for games of an unknown status")
            return
        for game_id, channel_id, status in odd:
            log.warning("game %s (channel %s) has an unknown status %r: no command reaches "
                        "it; restore its row (status active, over or abandoned) from a "
                        "backup", game_id, channel_id, status[:40])

    async def settle_games(self) -> int:
        """Finished games still unsettled — their game-over post was never delivered, or
        its settling failed, or the process died first — settled now: a rating never
        depends on Discord taking a post (service/ratings.py `settle_due`; any process may
        do it, once per game). Never raises: the next pass tries again."""
        try:
            return await Ratings(self.store).settle_due(self.service.tables.load)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("ratings: unsettled games wait for the next pass", exc_info=True)
            return 0

    async def deliver_notices(self, *, startup: bool = False) -> int:
        """Announcements still in the outbox. At startup: everything an earlier process
        committed and no live process tells (its claim expired, or it never claimed it), at
        once; later, on every tick: the notices whose live delivery failed or was never
        finished (past their lease, back-off or claim). Each is claimed, then told on its
        own (see `Announcer.redeliver`)."""
        async with self._outbox:  # the startup sweep and a tick's never tell one twice
            try:
                pending = await self.store.notices(
                    None if startup else time.time(),
                    created_before=self._started if startup else None)
            except self.store.faults as e:  # the database restarting or busy: one line
                log.warning("outbox: pending notices wait for the next pass (store: %s)", e)
                return 0
            except Exception:
                log.exception("outbox: could not read pending notices")
                return 0
            if not self.hosting.alone:  # only the games this process hosts
                pending = [n for n in pending if await self._hosts(n.game_id)]
            held: set[int] = set()  # games with a notice another process tells now
            for notice in pending:
                # claimed first (one process tells a notice); a game's later notices wait
                # behind one another process holds, so its channel keeps their order
                if notice.game_id in held or not await self.announcer.claim(notice.id):
                    held.add(notice.game_id)
                    continue
                await self.announcer.redeliver(notice)
        if startup:
            log.info("%d pending announcement(s) delivered at startup", len(pending))
        return len(pending)

    async def _hosts(self, game_id: int) -> bool:
        """This process delivers that game's announcements (service/shards.py)."""
        try:
            row = await self.store.get(game_id)
        except Exception:
            log.warning("outbox: could not read game %s; left for the next pass", game_id)
            return False
        return row is not None and self.hosting.runs_jobs(row)

    async def on_ready(self) -> None:
        log.info("logged in as %s (%s); %d guild(s)", self.user, getattr(self.user, "id", "?"),
                 len(self.guilds))

    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        await self.channel_deleted(channel.id)

    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        await self.channel_deleted(payload.thread_id)

    async def channel_deleted(self, channel_id: int) -> None:
        """A channel or thread deleted (Discord's event): nobody can answer in it again, so
        its game in play, or its lobby, ends there (`Lobby.channel_deleted`). A game the
        event missed (the bot down, the store failing now) ends at its next post or hourly
        try, which meets the 404. Never raises."""
        try:
            await self.service.lobby.channel_deleted(channel_id)
        except asyncio.CancelledError:
            raise
        except self.store.faults as e:  # its next post or hourly try meets the 404
            log.warning("channel %s: deleted; its game ends at its next post (store: %s)",
                        channel_id, e)
        except Exception:
            log.exception("channel %s: deleted; its game could not be ended", channel_id)

    async def _before_ticks(self) -> None:
        if self._verifier is not None:
            await asyncio.wait({self._verifier})

    async def _tick_pass(self) -> None:
        """One iteration of the ticker: never raises (an exception would stop the loop)."""
        self.tick_passes += 1
        try:
            await asyncio.wait_for(self.tick_once(), timeout=PASS_BUDGET_S)
        except asyncio.CancelledError:
            raise
        except self.store.faults as e:  # the database restarting or busy: expected, one line
            log.warning("time-limit pass waits for the next tick (store: %s: %s)",
                        type(e).__name__, e)
        except Exception:
            log.exception("time-limit pass failed; retrying at the next tick")

    async def tick_once(self) -> int:
        """One pass over due timers, one game at a time: default answers and reminders, each
        announced. A game whose job fails (or runs over its budget) is logged and skipped;
        the others still time out. Each game's posts are told in a task of their own while
        the pass goes on to the next game (the timers audit: a channel Discord kept
        rate-limiting held every later game's time-out until its posts had all been tried);
        the pass ends once all are told. Returns how many answers and reminders were made."""
        now = self.service.clock()
        made = 0
        telling: list[asyncio.Task[None]] = []
        try:
            for game_id, timers in (await self.service.limits.due(now)).items():
                outcomes, reminders = await self._tick_game(game_id, timers, now)
                if outcomes or reminders:
                    made += len(outcomes) + len(reminders)
                    telling.append(asyncio.create_task(
                        self._tell_ticked(game_id, outcomes, reminders),
                        name=f"rr-tick-{game_id}"))
            await asyncio.gather(*telling)
        finally:  # (the pass cut at its budget: what is untold stays in the outbox)
            for task in telling:
                task.cancel()
        await self.deliver_notices()  # announcements Discord did not take, retried
        for channel in self.service.limits.to_probe():  # held games' channels tried again
            await self.announcer.probe(channel)
        await self.settle_games()  # games whose game-over post did not settle them
        try:
            await self.store.forget_applied(time.time() - APPLIED_KEEP_S)
        except Exception:
            log.warning("could not forget old interaction keys", exc_info=True)
        return made

    async def _tick_game(self, game_id: int, timers: list[TimerRow],
                         now: float) -> tuple[list[Outcome], list[Reminder]]:
        """One game's due timers applied (committed), within its budget; none on failure."""
        try:
            outcomes, reminders = await asyncio.wait_for(
                self.service.limits.tick_game(game_id, timers, now), timeout=GAME_TICK_BUDGET_S)
        except Quarantined:  # (not wording: set aside and told; its timers are not due)
            return [], []
        except asyncio.CancelledError:
            raise
        except self.store.faults as e:  # busy or cut off: expected, and the next pass retries
            log.warning("game %s: time limits wait for the next pass (store: %s)", game_id, e)
            return [], []
        except Exception as e:
            if isinstance(e, ServiceError) and e.code in STORE_REFUSALS:
                # the store's refusal (service/tables.store_refusal), as a move would get it
                log.warning("game %s: time limits wait for the next pass (store: %s)",
                            game_id, e.code)
                return [], []
            log.exception("game %s: time limits failed; the other games go on", game_id)
            return [], []
        return outcomes, reminders

    async def _tell_ticked(self, game_id: int, outcomes: list[Outcome],
                           reminders: list[Reminder]) -> None:
        """A game's committed time-outs and reminders told, in order (their outbox notices
        are retried when Discord fails them); a game whose channel Discord says is gone
        ends there (`Lobby.channel_gone`). Never raises."""
        try:
            with channel_watch() as gone:
                await self._tell_each(outcomes, reminders)
            row = (outcomes or reminders)[0].row
            if gone and not row.settings.get("daily"):
                await self.service.lobby.channel_gone(row.channel_id, row.id)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("game %s: announcing its time limits failed", game_id)

    async def _tell_each(self, outcomes: list[Outcome], reminders: list[Reminder]) -> None:
        """Each time-out's announcement, then each reminder (a daily game ended by a time
        limit is settled too)."""
        for out in outcomes:
            await self.announcer.announce(self.announcer.capture(out))
            if out.row.settings.get("daily") and out.game.over:  # ended by a time limit
                await tell_settled(self, out.row.id)
        for rem in reminders:  # in the channel's turn: after the AI moves held before it
            await self.announcer.tell_in_turn(turn_of(rem.row), rem.notice,
                                              partial(self.announcer.remind, rem),
                                              channel=rem.row.channel_id)

    async def _tell_set_aside(self, row: GameRow, reason: dict[str, Any] | None,
                              notice: int | None) -> None:
        """A game set aside (or back in play), told in its channel as its outbox notice: a
        post that fails is told again, not lost (the fault-injection audit). In the
        channel's turn: after the posts of the moves made before it (held AI answers).
        Called under the service's lock of the channel (the game was set aside as it was
        loaded): when another task has the turn, the post waits for it in a task of its
        own, the lock let go — waiting under the lock waited for good when that task lifts
        a held game's hold, which takes the lock (`Held.posting`), and every command and
        post in the channel hung behind them."""
        where = turn_of(row)
        told = partial(self.announcer.tell_in_turn, where, notice,
                       lambda: tell_channel(self, row, reason))
        if where is None or not self.announcer.elsewhere(where):
            await told()
            return
        task = asyncio.create_task(told(), name=f"rr-aside-{row.id}")
        self._asides.add(task)
        task.add_done_callback(self._asides.discard)

    async def close(self) -> None:
        for task in (self._verifier, self._notifier, *self._asides):
            if task is not None and not task.done():
                task.cancel()  # (a set-aside post not told yet stays in the outbox)
        for loop in (self.ticker, self.day_loop, self.lease_loop):
            ticking = loop.get_task()
            loop.cancel()
            if ticking is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await ticking
        if self.daily is not None:
            self.daily.close()
        await self.ai.close()
        await self.announcer.flush_all()  # an AI burst's held answers, before Discord closes
        if self.day_lease is not None:
            await self.day_lease.release()  # the next process takes the day job at once
        await super().close()
        self.announcer.close()
        if self.service is not None:
            self.service.ai.close()
        if self._own_store and self.store is not None:
            await self.store.close()
