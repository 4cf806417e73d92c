"""Persistence on aiosqlite: games per channel, action logs, timers (see db.py)."""

from .db import GameRow, Store, VersionConflict

__all__ = ["GameRow", "Store", "VersionConflict"]
