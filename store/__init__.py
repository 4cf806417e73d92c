"""Persistence: games per channel, action logs, timers, the outbox, applied interaction keys,
leases, and the daily challenge's tables. Two backends behind one contract
(store/contract.py: `GameStore`, `DailyStore`): SQLite (db.py and daily.py, the default — a
file, nothing to install) and PostgreSQL (pg.py and daily_pg.py, for several processes
sharing one database); `make_store` picks one from the single setting `RR_DB`, and
`daily_store` gives the daily tables of the same database (and `tutorial_store`,
`ratings_store`, `review_store` their own tables there). Callers type against the
contract, never against one backend."""

from __future__ import annotations

from typing import Any

from .contract import (
    ACQUIRE_S,
    CLAIM_S,
    LEASE_MAX_S,
    POOL_SIZE,
    AlreadyApplied,
    AttemptTaken,
    DailyStore,
    GameStore,
    ReviewStore,
    StoreBusy,
    StoreUnavailable,
    StoreUncertain,
    TutorialStore,
    VersionConflict,
)
from .daily import SqliteDailyStore
from .db import Store
from .ratings import RatingStore
from .review import SqliteReviewStore
from .rows import (
    Attempt,
    AttemptStatus,
    Commit,
    DailyInfo,
    DailyNotice,
    DailyNoticeKind,
    DamagedSecret,
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
    new_key,
)
from .tutorial import SqliteTutorialStore

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres(db: str) -> bool:
    return db.startswith(POSTGRES_SCHEMES)


def make_store(db: str, *, pg_pool_size: int = POOL_SIZE, pg_acquire_s: float = ACQUIRE_S,
               **options: Any) -> GameStore:
    """The store `db` names (not yet opened): a `postgresql://…` URL is PostgreSQL, with a
    pool of `pg_pool_size` connections that a job waits `pg_acquire_s` for at most
    (RR_PG_POOL_SIZE, RR_PG_ACQUIRE_SECONDS); anything else is an SQLite file path, which has
    no pool, so those two are not its business. asyncpg is imported only when it is asked for
    (a deferred import of an optional dependency, not of a module of this project's loop)."""
    if is_postgres(db):
        from .pg import PgStore

        return PgStore(db, pool_size=pg_pool_size, acquire_s=pg_acquire_s, **options)
    return Store(db, **options)


def daily_store(store: GameStore) -> DailyStore:
    """The daily tables in the game store's own database, whichever backend it is: a
    ranked attempt and its game are then one transaction (`DailyStore.start_daily`)."""
    if isinstance(store, Store):
        return SqliteDailyStore(store)
    from .daily_pg import PgDailyStore
    from .pg import PgStore

    if isinstance(store, PgStore):
        return PgDailyStore(store)
    raise TypeError(f"no daily tables for a {type(store).__name__}")


def tutorial_store(store: GameStore) -> TutorialStore:
    """The tutorial's progress table in the game store's own database, whichever backend."""
    if isinstance(store, Store):
        return SqliteTutorialStore(store)
    from .pg import PgStore
    from .tutorial_pg import PgTutorialStore

    if isinstance(store, PgStore):
        return PgTutorialStore(store)
    raise TypeError(f"no tutorial table for a {type(store).__name__}")


def review_store(store: GameStore) -> ReviewStore:
    """The game reviews' table (issue 23) in the game store's own database, whichever
    backend it is."""
    if isinstance(store, Store):
        return SqliteReviewStore(store)
    from .pg import PgStore
    from .review_pg import PgReviewStore

    if isinstance(store, PgStore):
        return PgReviewStore(store)
    raise TypeError(f"no reviews table for a {type(store).__name__}")


def ratings_store(store: GameStore) -> RatingStore:
    """The ratings tables (issue 24) in the game store's own database, whichever backend."""
    if isinstance(store, Store):
        return RatingStore(store)
    from .pg import PgStore
    from .ratings_pg import PgRatingStore

    if isinstance(store, PgStore):
        return PgRatingStore(store)
    raise TypeError(f"no ratings tables for a {type(store).__name__}")


__all__ = ["ACQUIRE_S", "CLAIM_S", "AlreadyApplied", "Attempt", "AttemptStatus", "AttemptTaken", "Commit", "DailyInfo", "DailyNotice", "DailyNoticeKind", "DamagedSecret",
           "DailyStore", "GameMeta", "GameRow", "GameStatus", "GameStore", "LEASE_MAX_S", "Marked", "POOL_SIZE", "MetaChange",
           "NewGame", "Notice", "Progress", "ReviewStore", "Seat", "Settings", "Store", "StoreBusy", "StoreUnavailable", "StoreUncertain",
           "Tell", "Timer", "TimerRow", "TutorialStore", "VersionConflict", "daily_store", "is_postgres",
           "make_store", "new_key", "ratings_store", "review_store", "tutorial_store"]
