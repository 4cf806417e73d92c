"""The game service: every interface (Discord cogs, console mode) plays through this.

It owns the rules of *hosting* (lobby, seats, who may act, time limits, removal of absent
players) and the guarantees (an action is committed before anyone is told; one channel —
so one game — one lock; a version check inside the transaction). It contains no game
rules: it asks the engine. Errors it raises are `ServiceError`s with a message for the user.

`GameService` only builds the rooms, once, over one store and one clock, and hands them
out; each room is a module with one public surface:

    tables   service/tables.py    a channel's game: locks, loading and verifying (quarantine),
                                  what this process keeps in memory, timers, the host's gate
    lobby    service/lobby.py     new lobby, join, leave, AI players, start, abandon
    play     service/play.py      a player's answer, undo, the vote to remove; `commit`, the
                                  one path of every answer
    ai       service/ai_seats.py  the AI's answers for bot and zombie seats, zombie mode, /rr back
    limits   service/limits.py    time limits (R15): default answers, reminders, the limit
    hints    service/hints.py     the expert's suggestion, the channel's switch

Rooms depend one way — tables ← play ← ai ← limits, hints; lobby on tables — and the daily
challenge's host (service/daily_play.py, `DailyHost`) sits on top of the whole service.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from store import GameStore

from .ai_seats import AiSeats
from .hints import Hints
from .limits import TimeLimits
from .lobby import Lobby
from .play import Play
from .tables import Tables


class GameService:
    """The rooms of hosting over one store: `tables`, `lobby`, `play`, `ai`, `limits`,
    `hints` (see the module's docstring). `seed_source` draws each new game's seed;
    `cards_data`, a custom card set for new games (kept in their setup)."""

    def __init__(self, store: GameStore, clock: Callable[[], float] = time.time,
                 seed_source: Callable[[], int] | None = None,
                 cards_data: dict[str, Any] | None = None) -> None:
        self.store = store
        self.clock = clock
        self.tables = Tables(store, clock)
        self.lobby = Lobby(self.tables, seed_source, cards_data)
        self.play = Play(self.tables)
        self.ai = AiSeats(self.tables, self.play)
        self.limits = TimeLimits(self.tables, self.play, self.ai)
        self.hints = Hints(self.tables, self.ai)
