"""Persistence on SQLite (one connection on its own thread): games per channel, action logs,
timers (see db.py)."""

from .db import Commit, GameRow, Store, VersionConflict

__all__ = ["Commit", "GameRow", "Store", "VersionConflict"]
