"""The bot's settings, typed: what `bot.load_config` reads from the environment and
`RookBot` runs by. Kept apart from bot.py (the entry point) so the bot's cogs can name the
type without importing the entry point that imports them."""

from __future__ import annotations

from dataclasses import dataclass

from store import ACQUIRE_S, POOL_SIZE


@dataclass(frozen=True, slots=True)
class Config:
    token: str | None
    db_path: str = "rookraiders.db"  # RR_DB: an SQLite file or a postgresql:// URL
    log_level: str = "INFO"
    tick_seconds: float = 30.0  # how often time limits are checked
    # Today's par computed when the bot starts (cogs/bot.py): on in production
    # (load_config); off for bots built in tests, whose AIs would run for a minute.
    daily_par_at_start: bool = False
    daily_par_levels: tuple[str, ...] | None = None  # the AIs playing par (None: greedy, expert)
    daily_par_plays: int | None = None  # games per par AI for the odds (None: the default)
    shard_count: int | None = None  # None: the only process (service/shards.py)
    shard_ids: tuple[int, ...] = ()
    lease_seconds: float = 60.0  # how long the day job's lease outlives its last renewal
    # How often the daily day job runs (par, closing yesterday, news, reminders; each once a
    # day by stored flags): a pass is cheap when nothing is due.
    day_seconds: float = 300.0
    # PostgreSQL only (RR_PG_POOL_SIZE, RR_PG_ACQUIRE_SECONDS): the connections this
    # process's pool holds at most, and how long a command waits for a free one before it
    # is answered "the database is busy; nothing was changed" (store/pg.py).
    pg_pool_size: int = POOL_SIZE
    pg_acquire_s: float = ACQUIRE_S
