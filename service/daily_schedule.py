"""The dated tables of the daily challenge: what each day is dealt under, from its date on —
the weekly rhythm's bands (`RHYTHM`, from `RHYTHM_FROM`) and the rules' readings
(`RULES_FROM`). Split out of service/daily.py (the day itself: its key and its `Challenge`,
which reads these), as daily_secret, daily_score and daily_standings were: these tables are
frozen for every day already dealt and change only with a cutover date of their own, so
they live apart from the code that applies them (docs/daily.md, "The week's rhythm")."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Band:
    """One weekday of the rhythm: its difficulty (R13.2), the modifiers the digest picks
    from (None: all of the catalogue) and whether a second one is added (None: the digest
    decides, about every other day)."""

    difficulty: str
    pool: frozenset[str] | None
    second: bool | None


GENTLE = frozenset({"rich", "honored"})  # more gold or honor to start with
EVEN = frozenset({"golem"})  # a Golem first: measured no harder than the plain level
SCARCE = frozenset({"no_cleric", "no_warrior", "no_thief"})  # one job's level-ups missing
HARSH = frozenset({"poor", "skeleton"})  # nothing to start with, or a Skeleton at once
# Three commands a round (no Rest or no Reward card): worth about two levels on its own (the
# expert wins Easy with it ~4 times in 10, Hard with it 0 of 42 days), so the rhythm never
# deals it; it stays in the catalogue for the days dealt before the rhythm.
THREE_COMMANDS = frozenset({"no_rest", "no_reward"})
# The rules' readings (engine/flow.py RULES_VERSION) each day is played under, from its date
# on: everyone's attempt of one day, and its par, are the same game whichever release dealt
# them — a release that brings new readings names the first day they apply, a day not yet
# dealt — a week on, so that a release deployed late still comes first (rules 4, the solo
# option's reshuffle, changes a last round's mercenaries with a custom card set).
RULES_FROM: tuple[tuple[dt.date, int], ...] = ((dt.date(2026, 11, 1), 3),
                                               (dt.date(2026, 12, 7), 4))


def rules_on(day: dt.date) -> int:
    """The rules' readings of `day`'s challenge (`RULES_FROM`)."""
    return max((r for since, r in RULES_FROM if since <= day), default=RULES_FROM[0][1])


RHYTHM_FROM = dt.date(2026, 11, 30)  # a Monday: the first day of the weekly rhythm
RHYTHM: dict[int, Band] = {  # date.weekday(): Monday 0 … Sunday 6; frozen once shipped
    0: Band("easy", GENTLE, False),
    1: Band("easy", GENTLE | EVEN | SCARCE, None),
    2: Band("normal", GENTLE | EVEN | SCARCE, None),
    3: Band("normal", GENTLE | EVEN | SCARCE | HARSH, None),
    4: Band("hard", GENTLE | EVEN, False),
    5: Band("hard", SCARCE | HARSH, False),
    6: Band("hard", HARSH, True),  # both: the top level, Nightmare (service/levels.py)
}
"""The weekly rhythm people know from newspaper puzzles: easiest on Monday, harder through
the week, hardest at the weekend (Saturday: Hard with one scarce or harsh modifier; Sunday
with both harsh ones, the top level). The win rates it gives are measured in docs/daily.md (`bench/rhythm.py`).
Past days must rebuild as they were played, so this table is never edited for days already
out: a new rhythm would get a new cutover date of its own."""
