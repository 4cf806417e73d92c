"""Persistence on SQLite (a writer and a reader thread, one connection each): games per
channel, action logs, timers, the outbox, applied interaction keys (see db.py)."""

from .db import (
    AlreadyApplied,
    Commit,
    GameRow,
    Notice,
    Store,
    StoreBusy,
    StoreUncertain,
    VersionConflict,
    new_key,
)

__all__ = ["AlreadyApplied", "Commit", "GameRow", "Notice", "Store", "StoreBusy",
           "StoreUncertain", "VersionConflict", "new_key"]
