"""A move is told as one report per card or phase it ended, then the rest (service/report.py)
— the one cut both Discord and the console deliver, so the two never tell a move differently.
"""

from __future__ import annotations

import random
from typing import Any

from engine import Game, visible
from service.outcomes import Outcome, stage_hook
from service.report import phase_reports


def _outcome(g: Game, seat: int, action: str) -> Outcome:
    stages: list[tuple[str, int, dict[str, Any]]] = []
    events = g.apply(seat, action, on_resolved=stage_hook(g, stages, 0))
    finished = [what for what, _end, _view in stages]
    return Outcome(None, g, events, seat, action, finished=finished,  # type: ignore[arg-type]
                   stages=stages)


def test_every_phase_gets_its_report_and_the_rest_follows():
    """R5: each command card, ⑤ Invasion, ⑥ Summon and ⑦ End phase that an answer ends gets
    its own lines and table; together the reports tell every public event once, in order."""
    rng = random.Random(5)
    several = ended_mid = 0
    for seed in range(6):
        g = Game.new(["Ann"], seed=seed)
        for _ in range(400):
            if g.over:
                break
            seat = rng.choice(g.waiting_for())
            out = _outcome(g, seat, rng.choice(g.legal_actions(seat)))
            reports = phase_reports(out)
            assert [r.what for r in reports] == out.finished + [None]
            assert all(r.view is not None for r in reports[:-1])
            assert [e for r in reports for e in r.events] == visible(out.events, None)
            several += len(out.stages) >= 2
            tail = reports[-1]
            if out.over and any(e["type"] != "game_over" for e in tail.events):
                ended_mid += 1  # an invasion after the last phase: the final table too
                assert tail.view is not None and tail.view["round"] == g.state["round"]
            elif out.stages:
                assert tail.view is None  # the last phase's table has just been shown
    assert several and ended_mid  # both cases were met


def test_the_setup_is_shown_with_its_table():
    events: list[dict[str, Any]] = []
    g = Game.new(["Ann", "Bob"], seed=1, events=events)
    out = Outcome(None, g, events, None, "start", finished=["setup"])  # type: ignore[arg-type]
    (only,) = phase_reports(out)
    assert only.what is None and only.view is not None and only.events
