"""Persistence: games per channel, action logs, timers, the outbox, applied interaction keys,
leases. Two backends behind one interface: SQLite (db.py, the default — a file, nothing to
install) and PostgreSQL (pg.py, for several processes sharing one database); `make_store`
picks one from the single setting `RR_DB`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .db import (
    AlreadyApplied,
    Commit,
    GameRow,
    Marked,
    MetaChange,
    NewGame,
    Notice,
    Store,
    StoreBusy,
    StoreUnavailable,
    StoreUncertain,
    VersionConflict,
    new_key,
)

if TYPE_CHECKING:
    from .pg import PgStore

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres(db: str) -> bool:
    return db.startswith(POSTGRES_SCHEMES)


def make_store(db: str, **options: Any) -> Store | PgStore:
    """The store `db` names (not yet opened): a `postgresql://…` URL is PostgreSQL; anything
    else is an SQLite file path. asyncpg is imported only when it is asked for."""
    if is_postgres(db):
        from .pg import PgStore

        return PgStore(db, **options)
    return Store(db, **options)


__all__ = ["AlreadyApplied", "Commit", "GameRow", "Marked", "MetaChange", "NewGame", "Notice",
           "Store", "StoreBusy", "StoreUnavailable", "StoreUncertain", "VersionConflict", "is_postgres", "make_store",
           "new_key"]
