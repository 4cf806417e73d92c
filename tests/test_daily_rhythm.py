"""Issue 19: the daily's weekly rhythm and a par you can read.

- From the cutover (`RHYTHM_FROM`, Monday 2026-11-30) the weekday sets the difficulty band
  (R13.2): Monday easy with a gentle modifier, harder through the week, the weekend Hard
  with harsh modifiers; the day's digest still picks the modifiers within the band.
- Days before the cutover rebuild exactly as they were played (their stored games and
  published keys must replay, R15).
- The par AIs play the day many times (`compute_odds`, worker threads, on both store
  backends) and their win counts are stored beside the par game; a par stored before the
  counts were kept still reads (no odds, no error), and gains them on the next day job.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

import pytest

import bot as entry
import service.daily_par as daily_par
from service import GameService, daily, daily_score
from service.daily import day_end
from service.daily_par import ai_play
from service.daily_play import DailyHost
from service.daily_schedule import EVEN, GENTLE, HARSH, RHYTHM_FROM, SCARCE, THREE_COMMANDS
from service.daily_score import Score, odds_words, par_odds
from service.levels import level_of

SECRET = b"0f1e2d3c4b5a69788796a5b4c3d2e1f0"
DAY = dt.date(2026, 11, 23)

# What these days were, with this secret, when they were played (main before issue 19):
# the last week before the cutover, Saturday the 28th easy, which the rhythm would not allow.
PLAYED = {
    "2026-11-23": ("normal", ("poor", "no_reward")),
    "2026-11-24": ("easy", ("no_cleric", "golem")),
    "2026-11-25": ("easy", ("poor",)),
    "2026-11-26": ("easy", ("golem",)),
    "2026-11-27": ("easy", ("no_thief", "golem")),
    "2026-11-28": ("easy", ("no_warrior",)),
    "2026-11-29": ("normal", ("no_cleric",)),
}


def band(c: daily.Challenge) -> tuple[str, tuple[str, ...]]:
    return c.difficulty, tuple(m.id for m in c.modifiers)


def test_after_the_cutover_the_weekday_sets_the_difficulty_band():
    """Issue 19: easier early in the week, hardest at the weekend — for every week, whatever
    the digest (before: the digest alone chose, a Saturday could be Easy)."""
    assert RHYTHM_FROM.weekday() == 0  # a Monday
    seen: dict[int, set[tuple[str, tuple[str, ...]]]] = {k: set() for k in range(7)}
    for k in range(7 * 30):
        day = RHYTHM_FROM + dt.timedelta(days=k)
        c = daily.challenge_for(SECRET, day)
        difficulty, mods = band(c)
        seen[day.weekday()].add((difficulty, mods))
        assert difficulty == {0: "easy", 1: "easy", 2: "normal", 3: "normal", 4: "hard",
                              5: "hard", 6: "hard"}[day.weekday()], day
        assert not set(mods) & THREE_COMMANDS, (day, mods)  # worth two levels: never dealt
        if day.weekday() == 0:  # Monday: one gentle modifier
            assert len(mods) == 1 and set(mods) <= GENTLE, (day, mods)
        if day.weekday() in (1, 2):  # Tuesday, Wednesday: nothing harsh
            assert not set(mods) & HARSH, (day, mods)
        if day.weekday() == 4:  # Friday: Hard with one modifier that takes nothing away
            assert len(mods) == 1 and set(mods) <= GENTLE | EVEN, (day, mods)
        if day.weekday() == 5:  # Saturday: Hard with one scarce or harsh modifier
            assert len(mods) == 1 and set(mods) <= SCARCE | HARSH, (day, mods)
        if day.weekday() == 6:  # Sunday: Hard with both harsh ones, the top level
            assert set(mods) == HARSH, (day, mods)
            assert level_of(c.options) == "nightmare"
        opts = [set(m.options) for m in c.modifiers]
        assert len(opts) == 1 or not opts[0] & opts[1]  # never one cancelling the other
        c.new_game("x")  # a valid engine setup
    for weekday, kinds in seen.items():  # the digest still varies the day within its band
        assert len(kinds) > 1 or weekday == 6, weekday  # Sunday's band is one set of rules


def test_days_before_the_cutover_rebuild_exactly_as_they_were_played():
    """A stored or published past day must rebuild as it was played (R15): its difficulty
    and modifiers keep the derivation of their time, the rhythm does not reach back."""
    for iso, played in PLAYED.items():
        day = dt.date.fromisoformat(iso)
        assert band(daily.challenge_for(SECRET, day)) == played, iso
        published = daily.published_key(SECRET, day, day_end(day))
        assert published is not None
        assert band(daily.challenge_from_key(day, bytes.fromhex(published))) == played
    monday = daily.challenge_for(SECRET, RHYTHM_FROM)  # the first rhythm day: Monday's band
    assert monday.difficulty == "easy" and {m.id for m in monday.modifiers} <= GENTLE


def test_the_odds_read_like_the_issue_in_both_languages():
    """'the expert wins this day 3 times in 10; greedy 1 in 10' — the expert first."""
    par = {"greedy": {"score": {}, "wins": 1, "plays": 10},
           "expert": {"score": {}, "wins": 3, "plays": 10}}
    assert odds_words(par, "en") == "the expert bot wins this day 3 times in 10; greedy 1 in 10"
    assert odds_words(par, "ja") == "熟練ボットはこの日10回中3回勝利、欲張りは10回中1回"
    assert odds_words({"expert": {"wins": 1, "plays": 10}}, "en") == \
        "the expert bot wins this day 1 time in 10"


def test_a_par_stored_before_the_odds_still_reads():
    """Old par rows (no counts) and damaged counts: no odds, never an error; the par game's
    score reads as before."""
    old = {"greedy": {"score": {"won": True, "rounds": 9, "fainted": 0, "marks": 1},
                      "trace": [1, 0]}}
    assert par_odds(old) == [] and odds_words(old, "en") is None
    assert daily_score.par_score(old) == Score("won", 9, marks=1, version=1)
    damaged = {"greedy": {"wins": "3", "plays": 10}, "expert": {"wins": 11, "plays": 10},
               "random": {"wins": -1, "plays": 0}, "x": [1]}
    assert par_odds(damaged) == [] and odds_words(damaged, "ja") is None
    assert par_odds(None) == []


async def _host(db: Any) -> tuple[Any, DailyHost]:
    store = await db.open()
    h = await DailyHost.open(GameService(store, clock=lambda: day_end(DAY) - 3600),
                             secret=SECRET.decode())
    h.par.levels = ("random",)  # the fast AI (the real ones' cost: docs/daily.md)
    h.par.plays = 6
    return store, h


def test_the_par_plays_the_day_many_times_and_stores_the_counts(db):
    """The par game is stored first, alone (a player's result waits for that only); the
    odds then come from `par_plays` games of each AI, the par game the first of them, with
    other search seeds, and are stored beside it on both backends."""
    async def main() -> None:
        store, h = await _host(db)
        try:
            par = await h.par.compute(DAY)
            assert par_odds(par) == []  # the par game alone: no odds yet
            game = dict(par["random"])
            odds = await h.par.odds(DAY)
            stored = await h.store.par(DAY.isoformat())
            assert stored == odds
            ((level, wins, plays),) = par_odds(stored)
            assert (level, plays) == ("random", 6) and 0 <= wins <= 6
            expected = sum(Score.from_json(ai_play(h.days.challenge(DAY), "random", run)["score"]).won
                           for run in range(6))  # the random AI replays its seeds exactly
            assert wins == expected
            for k in ("score", "trace", "log"):  # the par game shown and reviewed is kept
                assert stored["random"][k] == game[k]
            assert await h.par.odds(DAY) == stored  # once a day
        finally:
            h.close()
            await store.close()
    asyncio.run(main())


def test_an_old_par_row_gains_its_odds_and_keeps_its_game(db):
    async def main() -> None:
        store, h = await _host(db)
        try:
            played = ai_play(h.days.challenge(DAY), "random")
            old = {"random": {"score": played["score"], "trace": played["trace"]}}
            await h.store.set_par(DAY.isoformat(), old)
            assert par_odds(await h.par.get(DAY)) == []
            odds = await h.par.odds(DAY)
            assert [(lv, n) for lv, _, n in par_odds(odds)] == [("random", 6)]
            assert odds["random"]["score"] == played["score"] and "log" not in odds["random"]
        finally:
            h.close()
            await store.close()
    asyncio.run(main())


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
def test_the_odds_stop_at_their_budget_and_count_what_was_played(db, monkeypatch):
    """Bounded in time: no odds game starts after `PAR_ODDS_BUDGET_S`; the counts say how
    many were played (the par game at least)."""
    monkeypatch.setattr(daily_par, "PAR_ODDS_BUDGET_S", 0.0)

    async def main() -> None:
        store, h = await _host(db)
        try:
            odds = await h.par.odds(DAY)
            assert [(lv, n) for lv, _, n in par_odds(odds)] == [("random", 1)]
        finally:
            h.close()
            await store.close()
    asyncio.run(main())


def test_the_number_of_odds_games_is_an_operator_setting():
    """RR_DAILY_PAR_PLAYS sets N (at least 1); unset or not a number, the default."""
    assert entry.load_config({"RR_DAILY_PAR_PLAYS": "3"}).daily_par_plays == 3
    assert entry.load_config({"RR_DAILY_PAR_PLAYS": "0"}).daily_par_plays == 1
    assert entry.load_config({"RR_DAILY_PAR_PLAYS": "ten"}).daily_par_plays is None
    assert entry.load_config({}).daily_par_plays is None


def test_the_par_game_cannot_be_played_move_for_move_before_the_day_closes():
    """Daily audit: the greedy par's search seed was the day's number, so anyone could run
    the public greedy AI with the par's own tie-breaks, play the par game move for move and
    tie its score without skill. The seed now comes from the day's key (published when the
    day closes): greedy seeded with anything a player can compute plays other games, and the
    par seed differs between two secrets for the same day."""
    from ai import make_player
    for k in range(4):
        day = DAY + dt.timedelta(days=k)
        challenge = daily.challenge_from_key(day, daily.day_key(SECRET, day))
        par = ai_play(challenge, "greedy")
        guessed = daily_par.play_out(challenge, "greedy", make_player(
            "greedy", daily_par.par_seed(challenge, 0, secret=False)))
        assert [list(x) for x in guessed.log] != par["log"], day
        other = daily.challenge_from_key(day, daily.day_key(b"another server's secret", day))
        assert daily_par.par_seed(other, 0) != daily_par.par_seed(challenge, 0)
        # with the key (once published) the par game is played again exactly
        again = ai_play(daily.challenge_from_key(day, daily.day_key(SECRET, day)), "greedy")
        assert again["log"] == par["log"]
