"""A stored game told again phase by phase: the frames a step-through viewer shows.

A game is its setup plus its action log (R15), so every phase it went through can be
rebuilt exactly, long after it ended, without keeping a single image: the log is replayed
and cut where each card or phase ended, as the live announcements cut a move
(service/report.py). Each frame is what a player saw after that phase: its narration and
the table as it then stood. Only public events and the spectator view are used, so a frame
can be shown to anyone the game itself may be shown to.

Interfaces-neutral and game-neutral: the daily review (`/rr daily review`) uses it for the
caller's and the par games; an ordinary game's history can use it the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import i18n
from engine import Event, Game, View, visible
from engine.cards import CardSet

from .lines import Line
from .narrate import narrate

LogEntry = Sequence[Any]  # (seat, action text), as the store keeps it
FRAME_LINES = 25  # a frame's lines in a step-through viewer: one message with its image


@dataclass(frozen=True, slots=True)
class Frame:
    """One step of the story: the card or phase that just ended (`setup` for the dealt
    table; None for what came after the last one: how the game ended, or the moves of an
    unfinished game after its last phase), the round it
    belongs to, its public events (the image's highlights) and the table after it."""

    what: str | None
    round: int
    events: list[Event]
    view: View

    def lines(self, names: list[str], cards: CardSet, lang: str) -> list[Line]:
        """The frame's narration in `lang` (the same words as the live posts), cut to what
        one step of a viewer shows."""
        return narrate(self.events, names, cards, lang, limit=FRAME_LINES)


@dataclass(slots=True)
class Replay:
    """Every frame of one game, in order, and what is needed to tell them."""

    frames: list[Frame]
    cards: CardSet
    names: list[str]
    over: bool = False  # False: the game stopped unfinished (the last frame: where it stopped)

    def caption(self, k: int, lang: str) -> str:
        """Frame `k`'s title in `lang`: the round and the card or phase that just ended
        (the animated recap's caption band)."""
        f = self.frames[k]
        if f.what is None:
            return i18n.t(lang, "recap.end" if self.over else "recap.stopped", round=f.round)
        what = self.cards.name(f.what, lang) if f.what in self.cards.commands \
            else i18n.t(lang, f"phase.{f.what}")
        # placement ends with the state already in round 1, but it is round 0's (R4)
        rnd = 0 if f.what in ("setup", "placement") else f.round
        return i18n.t(lang, "recap.caption", round=rnd, what=what)

    def recap(self, game: int | str, lang: str) -> tuple[list[tuple[View, list[Event], str]],
                                                        list[str]]:
        """What the animated recap draws (render/recap.py): every frame's table, its
        highlights (the board's changes) and caption, then the title card's lines."""
        steps = [(f.view, f.events, self.caption(k, lang)) for k, f in enumerate(self.frames)]
        last: Mapping[str, Any] = self.frames[-1].view.get("result") or {}
        winners = [self.names[int(s)] for s in last.get("winners", [])
                   if 0 <= int(s) < len(self.names)]
        title = [i18n.t(lang, "recap.title", game=game), i18n.join(lang, self.names)]
        if winners:
            title.append(i18n.t(lang, "recap.winners", names=i18n.join(lang, winners)))
        elif self.over:
            title.append(i18n.t(lang, "recap.no_winner"))
        return steps, title

    def round_start(self, k: int, step: int) -> int:
        """The first frame of the previous (step −1) or next (step +1) round from frame
        `k`; the first or last frame when there is no such round (the ⏮ ⏭ buttons)."""
        k = min(max(k, 0), len(self.frames) - 1)
        here = self.frames[k].round
        if step > 0:
            return next((j for j in range(k + 1, len(self.frames))
                         if self.frames[j].round > here), len(self.frames) - 1)
        first = next(j for j in range(len(self.frames)) if self.frames[j].round == here)
        if first < k:
            return first
        before = self.frames[first - 1].round if first > 0 else here
        return next((j for j in range(len(self.frames)) if self.frames[j].round == before), 0)


def replay(setup: Mapping[str, Any], log: Sequence[LogEntry],
           names: list[str] | None = None) -> Replay:
    """The frames of a stored game: the dealt table, then one per card or phase that ended
    as each logged answer is applied again, then the end (if anything followed the last
    phase). Deterministic (R15): the same setup and log always give the same frames. A log
    that no longer replays raises the engine's error (the caller says it is unavailable)."""
    setup_events: list[Event] = []
    g = Game.start(setup, events=setup_events)  # its own cards and generator (R15)
    frames = [Frame("setup", g.round, visible(setup_events, None), g.view(None))]
    pending: list[Event] = []  # events after the last cut, across answers
    cuts: list[tuple[str, int, View]] = []  # this answer's cuts

    def cut(what: str, n: int) -> None:
        # as a card or phase ends, with n of this answer's events so far; the state is
        # already in the next phase, so the view carries `after` (service/outcomes.py, stage_hook)
        view = g.view(None)
        view["after"] = what
        cuts.append((what, n, view))

    for seat, text in log:
        cuts.clear()
        events = g.apply(int(seat), str(text), on_resolved=cut)
        start = 0
        for what, n, view in cuts:
            pending += events[start:n]
            frames.append(Frame(what, int(view.get("round", 0)), visible(pending, None), view))
            pending, start = [], n
        pending += events[start:]
    if pending or g.over:
        frames.append(Frame(None, g.round, visible(pending, None), g.view(None)))
    return Replay(frames, g.cards, names or [p["name"] for p in g.state["players"]],
                  g.over)
