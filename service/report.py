"""What an accepted action is told as: one report per card or phase it ended, then the rest.

Both interfaces tell a move the same way — each card or phase that ended gets its lines and
its own table image, then the events after the last one (a new round's start, a question)
follow, with the final table when the game ended there or the setup was just dealt — so
the cut is made here, once, and Discord and the console only format and deliver it.
Events are already filtered for everyone's eyes (`engine.visible(…, None)`): a report is
public; private lines go to their owner by the interface's own means.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import View, visible

from .outcomes import Outcome, Told


@dataclass(frozen=True, slots=True)
class PhaseReport:
    what: str | None  # the card or phase that ended (None: the events after the last one)
    events: list[Told]  # its public events, in order (the lines and the image highlights)
    view: View | None  # the table to show after it; None: no image


def phase_reports(out: Outcome) -> list[PhaseReport]:
    """The reports of one outcome, in order; the last (what=None) always comes, even empty,
    so an interface has a place for its own notes after the story."""
    reports: list[PhaseReport] = []
    start = 0
    for what, end, view in out.stages:
        reports.append(PhaseReport(what, visible(out.events[start:end], None), view))
        start = end
    tail = visible(out.events[start:], None)
    # The final table: after the setup (no stage, something finished), or when the game
    # ended after the last stage with the table changed (an invasion, a resignation: show how
    # it ended; a game that ended with its last phase has just been shown).
    final = ((not out.stages and (bool(out.finished) or out.over))
             or (out.over and any(e.get("type") != "game_over" for e in tail)))
    reports.append(PhaseReport(None, tail, out.game.view(None) if final else None))
    return reports
