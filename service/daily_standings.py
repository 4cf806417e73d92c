"""Ranks and streaks of the daily challenge: pure functions of stored results, so they are
testable with a frozen clock and identical in every process."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from .daily_score import Score


@dataclass(frozen=True, slots=True)
class Entry:
    """One finished ranked attempt as the board sees it: who, their score, when it ended
    (the tie-break) and the display name stored with the attempt."""

    user: int
    score: Score
    finished_at: float
    name: str = ""


def ranked(entries: Iterable[Entry]) -> list[tuple[int, Entry]]:
    """(rank, entry), best first, one rank each: more points first; equal points, the
    earlier finish first (it reached that score first); the same instant, the lower user
    id (only so the order is the same in every process)."""
    order = sorted(entries, key=lambda e: (-e.score.points, e.finished_at, e.user))
    return [(k + 1, e) for k, e in enumerate(order)]


@dataclass(frozen=True, slots=True)
class Standing:
    """'#37 of 1,204 — top 3%' after finishing."""

    rank: int
    total: int

    @property
    def top_percent(self) -> int:
        """The share of finishers at or above this rank, rounded, at least 1 %."""
        return max(1, round(100 * self.rank / self.total)) if self.total else 100


def standing(board: Sequence[tuple[int, Entry]], user: int) -> Standing | None:
    return next((Standing(rank, len(board)) for rank, e in board if e.user == user), None)


@dataclass(frozen=True, slots=True)
class Stats:
    """A player's ranked days. `played` counts every ranked attempt of a closed day or a
    finished one: a resign, and an attempt left unfinished at 00:00 UTC, are losses (had
    walking away not counted, it would keep a win % that resigning lowers); either breaks
    both streaks."""

    played: int
    won: int
    win_streak: int
    best_win_streak: int
    played_streak: int
    best_played_streak: int
    best: Score | None
    rounds_to_win: dict[int, int]  # rounds → wins in that many (Wordle's distribution)

    @property
    def win_percent(self) -> int:
        return round(100 * self.won / self.played) if self.played else 0


def _streaks(results: Mapping[dt.date, Score | None], today: dt.date,
             counts: Callable[[Score | None], bool]) -> tuple[int, int]:
    """(current, longest) run of consecutive UTC days that `counts`. Today not yet played
    does not break the current run (the player still has until 00:00 UTC); today played
    and not counting does."""
    longest, run, prev = 0, 0, None
    for d in sorted(results):
        if not counts(results[d]):
            run, prev = 0, None
            continue
        run = run + 1 if prev is not None and (d - prev).days == 1 else 1
        longest, prev = max(longest, run), d
    current = 0
    d = today if today in results else today - dt.timedelta(days=1)
    while d in results and counts(results[d]):
        current += 1
        d -= dt.timedelta(days=1)
    return current, longest


def stats(results: dict[dt.date, Score | None], today: dt.date) -> Stats:
    """Stats over a player's ranked days. `results[day]` is the score of a finished attempt,
    or None for an attempt left unfinished.

    Two streaks, as Wordle counts them: the win streak (consecutive days won; a loss ends
    it) and the played streak (consecutive days finished, won or lost). A resign or an
    unfinished day ends both: giving up is not playing the day out."""
    win = _streaks(results, today, lambda s: s is not None and s.won)
    played = _streaks(results, today, lambda s: s is not None and not s.resigned)
    scores = [s for s in results.values() if s is not None]
    dist: dict[int, int] = {}
    for s in scores:
        if s.won:
            dist[s.rounds] = dist.get(s.rounds, 0) + 1
    return Stats(len(results), sum(s.won for s in scores), *win, *played,
                 max(scores, key=lambda s: s.points) if scores else None,
                 dict(sorted(dist.items())))
