"""The console's table: its state, its seats and who is at the keyboard.

It exists so the rest of the console can ask "who may type this name?" and "is that an AI
seat?" in one place: a name is matched the same way (case, width, spacing and an AI seat's
level folded) whether it starts a move, follows `hand`/`legal`/`hint`/`undo` or is refused.
`Seats` is the base of the console's layers (the map is in console/__init__.py): each layer
uses only the ones below it, so each file reads on its own, while run.py and the tests
still drive one `Console` object.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any, NamedTuple, TextIO

import i18n
from service.games import GameService
from service.seats import ai_level, seat_names
from store import GameRow, GameStore

from .options import Table
from .text import excerpt, name_key, t
from .tutorial import Learning

CHANNEL = 1  # the console's one table, as the service knows channels
LEVEL_SUFFIX = re.compile(r"\s*[(（][^()（）]*[)）]$")  # "Bot 1 (greedy)" → "Bot 1"


class Answering(NamedTuple):
    """What a line is answering, for wording a refusal: for whom (a name), what was typed
    (quoted words stay whole), and the seat (`undo` says why its move cannot go back)."""

    who: str = ""
    typed: str = ""
    seat: int | None = None


class Seats:
    """One terminal's table: the game's row and seat names, whom the keyboard types for,
    and the little state the console keeps between lines — all of it declared here once,
    so every layer above reads it typed."""

    def __init__(self, store: GameStore, out_dir: Path, lang: str, stdout: TextIO, db: str,
                 table: Table) -> None:
        self.store = store
        self.out_dir = out_dir
        self.lang = lang
        self.out = stdout
        self.db = db
        self.table = table  # what `new` starts when typed without options
        self.seed: int | None = table.seed
        self.service = self.fresh_service()
        self.auto_board = True
        self.last_board: list[str] = []  # the last board printed, to skip repeats
        self.users: dict[str, int] = {}
        self.names: list[str] = []  # as the story tells them (AI seats marked 🤖)
        self.row: GameRow | None = None
        self.confirm_new: Table | None = None
        self.confirm_resign: int | None = None  # the seat whose resign waits to be typed again
        self.last_actor: int | None = None  # whom a bare `undo` is about
        # seat → (its last action, why undo cannot take it back: "closed"/"revealed"/"")
        self.moves: dict[int, tuple[str, str]] = {}
        self.learning: Learning | None = None  # the tutorial, while the user is in it
        self.answering = Answering()  # set anew by each line (`handle`) and seat (`for_seat`)

    def fresh_service(self) -> GameService:
        """A service with nothing in memory: at start, and after a line failed (what it had
        read may be stale)."""
        return GameService(self.store, seed_source=self.next_seed)

    def next_seed(self) -> int:
        return self.seed if self.seed is not None else random.SystemRandom().randrange(2**31)

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def say_lines(self, lines: list[str], indent: str = "  ") -> None:
        for line in lines:
            self.say(indent + line)

    def t(self, key: str, **kw: Any) -> str:
        return t(key, self.lang, **kw)

    def join(self, items: Any) -> str:
        """A list in the reader's language: `Ann, Bob` / `Ann、Bob`."""
        return i18n.join(self.lang, items)

    def solo(self, difficulty: str | None) -> str:
        """` (solo, hard)` / `（ソロ、難易度 むずかしい）`: the solo option rule (R13.2) by its
        name in the reader's language; nothing for a game without it."""
        if not difficulty:
            return ""
        return self.t("solo", difficulty=i18n.t(self.lang, f"command.{difficulty}"))

    def seat_row(self, row: GameRow) -> None:
        """Who may be typed for: the people only (an AI seat's answers come from `ai/`)."""
        self.row = row
        self.users = {name_key(s["name"]): s["user"] for k, s in enumerate(row.seats)
                      if not ai_level(row, k)}
        self.names = seat_names(row)

    def seat_names(self, seat: int) -> tuple[str, ...]:
        """Every name a seat may be typed by: as shown, as it sat down, and an AI seat's
        without its level ("🤖 Bot 1 (greedy)", "Bot 1 (greedy)", "Bot 1")."""
        name = str(self.row.seats[seat]["name"]) if self.row is not None else self.names[seat]
        return self.names[seat], name, LEVEL_SUFFIX.sub("", name)

    def is_ai(self, seat: int) -> bool:
        return self.row is not None and ai_level(self.row, seat) is not None

    def people(self, seats: list[int]) -> list[int]:
        return [s for s in seats if not self.is_ai(s)]

    @property
    def at_keyboard(self) -> list[int]:
        """The seats people play (not AI seats): whose lines this terminal types."""
        return self.people(list(range(len(self.names))))

    def who(self, name: str) -> int | None:
        """A seat the keyboard types for, from a typed name (case, width and spacing folded)."""
        user = self.users.get(name_key(name))
        if user is not None:
            return user - 1
        seat = self.seat_of(name)  # `Bot1`, `ann b` for "Ann B": unless it is an AI seat
        return None if seat is None or self.is_ai(seat) else seat

    def seat_of(self, name: str) -> int | None:
        """Any seat, an AI seat too, by any name the board or the story shows it by (case,
        width and spacing folded): `Bot 1`, `🤖 Bot 1 (greedy)`, `ボット1`; failing that, the
        one seat whose name is the same without its spaces (`Bot1`, `ボット 1`)."""
        seats = range(len(self.names))
        key = name_key(name)
        exact = [k for k in seats if key in map(name_key, self.seat_names(k))]
        if exact:
            return exact[0]
        bare = "".join(key.split())
        close = [k for k in seats if bare in {"".join(name_key(n).split())
                                              for n in self.seat_names(k)}]
        return close[0] if bare and len(close) == 1 else None

    def people_names(self) -> str:
        """The players at the keyboard, listed: those a line may be typed for."""
        return self.join([self.names[k] for k in self.at_keyboard])

    def no_player(self, name: str) -> None:
        """Nobody of that name may be typed for: an AI seat's name is told as one (it answers
        for itself), not as a player who does not exist."""
        ai_seat = self.seat_of(name)
        people = self.people_names()
        if ai_seat is not None and self.is_ai(ai_seat):
            self.say("! " + self.t("ai_seat", p=self.names[ai_seat], names=people))
            return
        self.say("! " + self.t("no_player", name=excerpt(name, self.lang), names=self.join(self.names)))
