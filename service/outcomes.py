"""What the rooms of the service hand back to an interface: an accepted move (`Outcome`), a
game set up but not stored yet (`Opening`), a reminder due (`Reminder`) — and how a move's
events are collected, shared by the live path (service/play.py, service/lobby.py) and the
rebuild of a stored notice (service/notices.py), so that both tell a move alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import Game, View
from store import AlreadyApplied, GameRow, TimerRow

MAX_AUTO = 200  # bound on trivial answers resolved after one action

Told = Mapping[str, Any]
"""An event as the service tells it: an engine Event (engine.types), marked `auto` when the
service answered for the player, or the service's own `undo`; read with `.get`."""

Stage = tuple[str, int, View]
"""A card or phase that ended: (what, end index into the move's events, the spectator view
as it stood then) — so every phase gets its own image even when one answer set several in
motion."""

Timer = tuple[int, int, float, float | None]
"""A timer as the store takes it: (seat, decision id, deadline, reminder due)."""


@dataclass(slots=True)
class Outcome:
    """What one accepted action did, for the interface to announce."""

    row: GameRow
    game: Game
    events: list[Told]
    actor: int | None
    text: str
    prompts: list[int] = field(default_factory=list)  # seats newly asked something
    finished: list[str] = field(default_factory=list)  # phases/cards resolved (images due)
    notes: list[str] = field(default_factory=list)
    stages: list[Stage] = field(default_factory=list)  # one per resolved card or phase
    # The deadline of each seat's open decision, as stored (a decision keeps its first one).
    deadlines: dict[int, float] = field(default_factory=dict)
    notice: int | None = None  # the outbox row announcing it (see notices())
    duplicate: bool = False  # a redelivered interaction: nothing was applied this time
    # committed as abandoned (the move left only AI-played seats), with its own notice to
    # tell after the move's (service/play.py `status_after`)
    abandoned: Abandoned | None = None

    @property
    def over(self) -> bool:
        return self.game.over


@dataclass(slots=True)
class Opening:
    """A game set up, not yet stored (`Lobby.opening`)."""

    game: Game
    events: list[Told]
    entries: list[tuple[int, int | None, str]]  # the answers resolved on their own, logged
    prompts: list[int]
    timers: list[Timer]
    notice: dict[str, Any] | None


@dataclass(slots=True)
class Reminder:
    """A reminder this process claimed (only the claimer tells it)."""

    row: GameRow
    seat: int
    deadline: float
    notice: int | None = None


@dataclass(slots=True)
class Abandoned:
    """A game ended with no winner, to be told in its channel: by its host (or a manager),
    or by the move that left only AI-played seats in it; `by` is who did it (or the last
    person out), by name; `why` "no_person": no person is left to play it (not a resign).
    Kept in the outbox with the status it changed."""

    row: GameRow
    by: str
    notice: int | None = None
    why: str | None = None


@dataclass(slots=True)
class SetAside:
    """A game found damaged and set aside (`reason`), or back in play (None), to be told in
    its channel; kept in the outbox with the quarantine it tells of."""

    row: GameRow
    reason: dict[str, Any] | None
    notice: int | None = None


def stage_hook(g: Game, stages: list[Stage], base: int) -> Callable[[str, int], None]:
    """Record the spectator view each time a card or phase ends (events so far: base + n).

    The engine reports the end once it has already stepped into the next phase, so the view
    carries `after` (what just ended) for the image's title and row (render/central.py).
    """
    def hook(what: str, n: int) -> None:
        view = g.view(None)
        view["after"] = what
        stages.append((what, base + n, view))
    return hook


def auto_answers(g: Game, ev: list[Told], stages: list[Stage] | None = None) -> None:
    """Resolve decisions with one sensible answer (the engine says which), bounded; each
    is marked `auto`, since nobody typed it."""
    for _ in range(MAX_AUTO):
        if g.over:
            return
        trivial = [(s, a) for s in g.waiting_for() if (a := g.trivial_action(s)) is not None]
        if not trivial:
            return
        s, a = trivial[0]
        hook = stage_hook(g, stages, len(ev)) if stages is not None else None
        ev += [dict(e, auto=True) for e in g.apply(s, a, on_resolved=hook)]


def deadlines_of(timers: list[TimerRow]) -> dict[int, float]:
    """Deadline per seat, from timer rows as the store returns them."""
    return {int(t["seat"]): float(t["deadline"]) for t in timers}


def duplicate(row: GameRow, g: Game, seat: int, done: AlreadyApplied,
              deadlines: dict[int, float]) -> Outcome:
    """The answer a redelivered interaction gets: what was applied the first time, and the
    player's question as it stands now."""
    return Outcome(row, g, [], seat, done.text, prompts=[seat] if g.decision(seat) else [],
                   deadlines=deadlines, duplicate=True)
