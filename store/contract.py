"""The store contract: what every backend promises, declared once, so service/, cogs/,
console/ and bot.py type against it and never against one backend (issue 21).

`GameStore` is implemented by `store.db.Store` (SQLite) and `store.pg.PgStore`
(PostgreSQL); `DailyStore` by `store.daily.SqliteDailyStore` and
`store.daily_pg.PgDailyStore`. mypy checks each against its protocol where
`store.make_store` / `store.daily_store` return them, and tests/test_store_contract.py checks
that no backend grows a public method the contract does not name.

The promises behind the signatures (both backends keep them; db.py tells why):
- A move (`start`, `commit_actions`, `rewrite_log`, and a daily `start_daily`) is one
  transaction guarded by the game's version: of two racing writes exactly one lands, the
  other raises VersionConflict and writes nothing.
- A transaction `key` (an interaction) applies once: a second time raises AlreadyApplied.
- A write refused for a lock held elsewhere, or a lost connection, raises StoreBusy having
  written nothing; a COMMIT whose fate could not be read back raises StoreUncertain. Both
  are in `faults`, with the backend's own transient errors, for callers that retry.
- `meta` is only ever changed by a `MetaChange` run on the meta as stored, under the game's
  write lock: two writers' changes both land.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, Self

from .rows import (
    Attempt,
    AttemptStatus,
    Commit,
    DailyNotice,
    Entry,
    GameMeta,
    GameRow,
    GameStatus,
    Marked,
    MetaChange,
    NewGame,
    Notice,
    Progress,
    Seat,
    Settings,
    Tell,
    Timer,
    TimerRow,
)

BUSY_S = 0.5  # how long a write waits for a lock whose holder commits nothing meanwhile
LEASE_S = 600.0  # the committing process delivers a notice; the worker takes over after this
CLAIM_S = 60.0  # an outbox claim (`claim_notice`) lasts this long, renewed every third of it
# PostgreSQL (store/pg.py): how many connections each process's pool holds at most, and how
# long a job waits for one when all are held before it is refused with StoreBusy. The
# defaults; an operator sets them with RR_PG_POOL_SIZE / RR_PG_ACQUIRE_SECONDS (bot.py).
POOL_SIZE = 10
ACQUIRE_S = 2.0
LEASE_MAX_S = 24 * 3600.0  # the longest a named lease (`try_lease`) is held past its renewal:
# an expiry further ahead is damage (a clock that jumped ahead, a hand edit), and the lease free


class VersionConflict(Exception):
    """Someone else's answer landed first; the caller's view of the game is out of date."""


class StoreBusy(Exception):
    """Another process held the database's write lock for longer than `BUSY_S` without
    committing anything (or the lock changed hands for `CONTENDED_S` without this write
    getting it), or the database could not be reached; nothing was written (the caller
    may try again)."""


class StoreUnavailable(Exception):
    """The database could not be opened (not an SQLite file, a folder that cannot be
    written, …): nothing was written, the message says why. The store's own type, so that
    no caller has to know sqlite3's exceptions."""


class NewerSchema(StoreUnavailable):
    """The database was written by a newer release (its schema is past this one's
    `migrations.LATEST`): this release must not write to it — the newer one may keep data
    in a shape this one would break. Upgrade the bot, or use another database."""


class UnrecordedSchema(StoreUnavailable):
    """The database holds tables that its `schema_version` record says were never made (the
    record was dropped or emptied, or another program made them): applying the step again
    would fail half-way with the engine's own "already exists", which names a table and not
    the problem. Nothing was written; restore the database from a backup."""


class StoreUncertain(Exception):
    """COMMIT failed and the store could not read back whether it had landed."""


class AlreadyApplied(Exception):
    """This key (an interaction) was applied before: nothing was written this time."""

    def __init__(self, game_id: int, version: int, text: str) -> None:
        super().__init__(f"already applied to game {game_id} (version {version})")
        self.game_id, self.version, self.text = game_id, version, text


class AttemptTaken(Exception):
    """The day's ranked attempt is someone else's already (another request or process
    claimed it first, or it is over): nothing was written."""


class GameStore(Protocol):
    """Games per channel, their action logs, timers, the outbox, applied interaction keys
    and leases."""

    backend: str  # "sqlite" | "postgresql": what an operator's log line names
    path: str  # where the games are (a file, or a URL: never log it unredacted)
    faults: tuple[type[Exception], ...]  # failures after which a caller may simply retry
    # a database file or page found damaged (no retry helps; the operator must restore it):
    # checked after `faults`, whose classes may derive from these
    damaged: tuple[type[Exception], ...]
    resets: int  # connections thrown away after a failure (diagnostics, tests)

    async def open(self) -> Self:
        """Connect and bring the schema up to date (store/migrations.py)."""

    async def close(self) -> None: ...

    # ---- games
    async def open_game(self, channel_id: int) -> GameRow | None:
        """The lobby or active game of a channel, if any."""

    async def latest_game(self, channel_id: int) -> GameRow | None:
        """The channel's newest game whatever its status."""

    async def get(self, game_id: int) -> GameRow | None: ...

    async def active_games(self) -> list[GameRow]: ...

    async def unknown_status(self) -> list[tuple[int, int, str]]:
        """(game id, channel id, status) of rows whose status is none of the four: no
        query of a game reads them (a hand edit, a bad restore), so they would vanish
        without a word; the bot names them at startup."""
        ...

    async def create_lobby(self, guild_id: int | None, channel_id: int, host_id: int,
                           host_name: str, settings: Settings,
                           ai: Sequence[Seat] = ()) -> GameRow:
        """VersionConflict when the channel has an open game already. `ai`: the AI players
        seated after the host, written with the lobby (one transaction)."""

    async def update_lobby(self, row: GameRow) -> None:
        """The lobby's seats and settings become `row`'s, if it is still the lobby read
        (`row.version`, which this moves on); else VersionConflict, nothing written: another
        process changed its seats meanwhile (a join there would be lost), or started it."""

    async def update_meta(self, game_id: int, change: MetaChange) -> GameMeta:
        """`change` on the meta as stored now, in one transaction; the meta after it."""

    async def update_meta_told(self, game_id: int, change: MetaChange,
                               notice: dict[str, Any]) -> tuple[GameMeta, int | None]:
        """`update_meta`, and when `change` changed anything, `notice` queued in the outbox
        in the same transaction (its id; None when nothing changed: nothing to tell)."""

    async def set_settings(self, game_id: int, settings: Settings) -> None: ...

    async def refresh_state(self, game_id: int, version: int, state: str) -> bool:
        """Replace the stored state, a cache of setup + log (R15), with the one its log
        replays to, when an older release wrote it in an older shape; nothing else changes
        (not the version: no move was made). False, writing nothing, when the game is no
        longer at `version`."""
        ...

    async def set_status(self, game_id: int, status: GameStatus,
                         notice: dict[str, Any] | None = None) -> int | None:
        """An ended game (over, abandoned) loses its timers in the same transaction; a
        `notice` to tell of it is queued in the outbox in it too (its id returned), so a
        crash right after cannot leave the channel untold."""

    async def start(self, game_id: int, seats: list[Seat], setup: Mapping[str, Any],
                    state: str, entries: Sequence[Entry] = (), timers: Sequence[Timer] = (),
                    *, key: str | None = None,
                    notice: dict[str, Any] | None = None,
                    meta: GameMeta | None = None, lobby: int | None = None) -> Commit:
        """The lobby becomes a game in one transaction (setup, first answers, timers,
        announcement); VersionConflict when it has started already or, `lobby` given, when
        its seats are no longer those of that version (a join another process wrote since
        would be left out of the game)."""

    async def commit_actions(self, game_id: int, expected_version: int,
                             entries: Sequence[Entry], state: str, status: GameStatus,
                             timers: Sequence[Timer], meta: MetaChange | None = None, *,
                             key: str | None = None, notice: dict[str, Any] | None = None,
                             ended: dict[str, Any] | None = None) -> Commit:
        """A move: answers, state, timers, meta change and announcement, one transaction;
        `ended`: a second announcement, told after the move's (a resign that leaves only AI
        seats, committed with the status `abandoned`)."""

    async def rewrite_log(self, game_id: int, expected_version: int, log: list[list[Any]],
                          state: str, timers: Sequence[Timer], *, key: str | None = None,
                          notice: dict[str, Any] | None = None) -> Commit:
        """Undo: the log loses an entry; every entry that stays keeps its author."""

    async def log(self, game_id: int) -> list[list[Any]]:
        """The action log, [seat, text] per entry, in order."""

    async def authors(self, game_id: int) -> list[int | None]:
        """Who made each logged action (None: an automatic answer or a time limit)."""

    async def timed_out_at(self, game_id: int, seat: int) -> float | None:
        """When `seat`'s latest time-out was logged (None: it never timed out): an answer
        typed before it was for a question that time-out closed."""

    async def applied(self, key: str) -> AlreadyApplied | None: ...

    async def forget_applied(self, before: float) -> None: ...

    async def log_check(self, game_id: int) -> tuple[list[list[Any]], list[int],
                                                     dict[str, Any] | None]:
        """The log, its sequence numbers and the game's quarantine, in one read."""

    # ---- damaged games, set aside
    async def quarantine(self, game_id: int, reason: dict[str, Any],
                         notice: dict[str, Any] | None = None) -> Marked | None:
        """Marked when the game was not set aside already (so it is reported once), with
        `notice` queued in the outbox in the same transaction (so a failed or lost post is
        told again); None when it was."""

    async def quarantined(self, game_id: int) -> dict[str, Any] | None: ...

    async def release(self, game_id: int, notice: dict[str, Any] | None = None) -> int | None:
        """Back in play; `notice` (the channel told so) queued with it: its outbox id."""

    # ---- timers
    async def timers(self, game_id: int) -> list[TimerRow]: ...

    async def repair_timers(self, game_id: int, version: int, drop: Sequence[int],
                            timers: Sequence[Timer], meta: MetaChange | None = None
                            ) -> list[TimerRow] | None:
        """Rebuilt in one transaction, with `meta` (a change to the game's meta) made in the
        same one, unless the game moved on from `version` (None: neither is written)."""

    async def due_timers(self, now: float) -> list[TimerRow]: ...

    async def mark_reminded(self, game_id: int, seat: int, decision_id: int,
                            notice: dict[str, Any] | None = None) -> Marked | None:
        """Claimed by this pass (Marked) or by another one first (None)."""

    async def next_deadline(self) -> float | None: ...

    async def untimed_games(self) -> list[int]:
        """Active games, not set aside, without a single timer row: every such game waits
        for someone, so its timers were lost (a hand edit moved or deleted them), and the
        time-limit pass rebuilds them (service/limits.py `sweep`)."""

    # ---- leases: one holder of a named job across processes
    async def try_lease(self, name: str, holder: str, ttl_s: float) -> bool: ...

    async def release_lease(self, name: str, holder: str) -> None: ...

    async def lease_holder(self, name: str) -> str | None: ...

    # ---- the outbox
    async def notices(self, now: float | None = None, limit: int = 1000, *,
                      created_before: float | None = None) -> list[Notice]: ...

    async def delivered(self, notice_id: int) -> None: ...

    async def retry_later(self, notice_id: int, parts_done: int, not_before: float, *,
                          counted: bool = True) -> None:
        """From message `parts_done` after `not_before`; the notice's claim is let go.
        `counted`: the try counts toward the notice's attempts. Not counted: it waits for
        its game, set aside, not for Discord — and is due at once if the game is no longer
        set aside when this is written (released meanwhile: `release` made it due before)."""
        ...

    async def claim_notice(self, notice_id: int, holder: str, until: float,
                           now: float) -> bool:
        """Take or renew the notice for `holder` until `until` (one process tells a notice:
        the others' passes skip it while the claim holds); False when another process's
        claim holds, or the notice is gone (told). A claim whose time passed (its holder
        died or stalled) is anyone's."""
        ...

    async def set_aside_notice(self, notice_id: int, reason: str) -> None:
        """The notice leaves the outbox for `set_aside` (kept whole, with `reason`, for the
        operator): one no release can tell, never retried nor silently dropped."""
        ...


class DailyStore(Protocol):
    """The daily challenge's tables (attempts, results, par, server settings, reminders,
    the daily outbox) in the game store's own database: a ranked attempt is claimed in the
    transaction that creates its game (`start_daily`)."""

    async def open(self) -> Self:
        """The tables exist already: the game store's migrations made them when it opened
        (store/migrations.py, step 2)."""
        return self

    # ---- the bot's secret
    async def secret(self, generate: bytes) -> bytes: ...

    async def fingerprint(self, mine: str) -> str: ...

    async def keyed_from(self, today: str) -> str: ...

    async def stored_secret(self) -> tuple[str | None, str | None]: ...

    async def stored_keyed_from(self) -> str | None:
        """The first keyed day as stored (None: not yet), read without storing anything."""

    # ---- attempts
    async def attempt(self, user_id: int, day: str, ranked: bool) -> Attempt | None: ...

    async def claim(self, user_id: int, day: str, ranked: bool, name: str,
                    guild_id: int | None) -> Attempt | None: ...

    async def start_daily(self, user_id: int, day: str, ranked: bool, name: str,
                          guild_id: int | None, game: NewGame, *,
                          replace: int | None = None) -> tuple[Commit, Attempt]:
        """The claim and its game, started, in one transaction: AttemptTaken or
        VersionConflict (nothing written) when another request got there first."""

    async def end_attempt(self, user_id: int, day: str, ranked: bool, status: AttemptStatus,
                          score: dict[str, Any] | None, share: str | None, *,
                          game_id: int | None = None, version: int | None = None,
                          tell: Tell | None = None) -> bool: ...

    async def seen_in(self, guild_id: int, user_id: int) -> None: ...

    async def set_game(self, user_id: int, day: str, ranked: bool, game_id: int) -> None: ...

    async def finish(self, user_id: int, day: str, ranked: bool, status: AttemptStatus,
                     score: dict[str, Any] | None, share: str | None) -> bool:
        """Close a playing attempt once (finished with its score, or unfinished at the day's
        end); False if it was already closed. `end_attempt` without a game or a notice."""
        return await self.end_attempt(user_id, day, ranked, status, score, share)

    async def playing(self, day: str | None = None) -> list[Attempt]: ...

    async def results(self, day: str, guild_id: int | None = None) -> list[Attempt]: ...

    async def members(self, guild_id: int) -> set[int]: ...

    async def old_scores(self) -> list[Attempt]: ...

    async def rescore(self, user_id: int, day: str, ranked: bool,
                      score: dict[str, Any]) -> bool: ...

    async def history(self, user_id: int) -> list[Attempt]: ...

    # ---- days
    async def par(self, day: str) -> dict[str, Any] | None: ...

    async def set_par(self, day: str, par: dict[str, Any]) -> None: ...

    async def keep_par(self, day: str, par: dict[str, Any]) -> dict[str, Any]:
        """Store `par` unless the day has one, and return the day's par: two processes that
        computed a day at once agree on the first stored."""
        ...

    async def day_flag(self, day: str, flag: str) -> bool: ...

    async def take_day_flag(self, day: str, flag: str) -> bool: ...

    # ---- server settings and reminders
    async def set_guild_channel(self, guild_id: int, channel_id: int | None,
                                lang: str) -> None: ...

    async def guild_channel(self, guild_id: int) -> int | None: ...

    async def set_reminder(self, user_id: int, channel_id: int | None, lang: str | None = None,
                           hour: int | None = None) -> None: ...

    async def reminder(self, user_id: int) -> tuple[int, str | None, int] | None: ...

    async def reminders_due(self, day: str, hour: int = 23) -> list[tuple[int, int]]: ...

    # ---- the daily outbox
    async def queue_news(self, day: str, now: float) -> int: ...

    async def queue_reminders(self, day: str, hour: int, now: float) -> int: ...

    async def queue_recaps(self, day: str, now: float) -> int:
        """Take the closed day's `recapped` flag and queue, in the same transaction, one
        "recap" row per ranked game of that day (`rows.recap_rows`): each player's recap is
        queued once, whichever process or pass asks. 0 if the flag was taken."""
        ...

    async def daily_notices(self, now: float) -> list[DailyNotice]: ...

    async def take_notices(self, now: float) -> list[DailyNotice]: ...

    async def notice_sent(self, notice_id: int) -> None: ...

    async def notice_retry(self, notice_id: int, not_before: float) -> None: ...

    async def touch(self, game_id: int) -> None: ...

    async def last_game_at(self, slots: list[int]) -> dict[int, float]: ...


class TutorialStore(Protocol):
    """Where each learner stands in the tutorial (issue 23): one row per user, in the game
    store's own database (migration 11). One statement a call, so nothing is half-written."""

    async def progress(self, user_id: int) -> Progress | None: ...

    async def save(self, user_id: int, lesson: str, step: int) -> None: ...

    async def advance(self, user_id: int, lesson: str, step: int) -> bool:
        """Step on from (lesson, step) only if the user still stands there: of two racing
        answers one moves on, and an answer judged before a skip or restart never undoes it."""
        ...

    async def forget(self, user_id: int) -> None: ...


class ReviewStore(Protocol):
    """Each finished game's review by the expert (issue 23), as JSON: one row per game, in
    the game store's own database (migration 13). The first review stored for a game stays:
    two processes that computed one at once both read back the same; one of an older format
    (`service/review_record.py` FORMAT) is replaced by the next computed."""

    async def get(self, game_id: int) -> dict[str, Any] | None:
        """The stored review, or None (none yet, or unreadable: computed again)."""
        ...

    async def save(self, game_id: int, review: dict[str, Any], *,
                   unreadable: bool = False) -> None:
        """Keep `review` unless a readable one of its format or a newer one is stored
        already (then nothing is written); `unreadable`: the caller could not read the one
        of its format stored (replaced too)."""
        ...
