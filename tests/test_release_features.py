"""Databases written by the newest releases, with every feature they stored, open and play on.

tests/data/release-<commit>.sqlite made with `make_release_db.py <tree> <out> features` by
the commit's own code (the release points a3e9e43, e81aff9, 7c54f01, 7ca74e7, aee6983, 2cfe6dc, f4af28d, d14ab0e; schema
steps up to 16): a lobby (channel 1); an active game of Ann and Bob with
hints on (one asked: the meta counts it) and a time limit (2); an active solo game left on an
open question (a recruit) (3); a finished game of Ann and Bob, rated and reviewed (4); an active
game of Ann and a greedy AI (5); the daily challenge: Bob's ranked attempt played out and
settled, Ann's in play; tutorial progress (Ann a lesson on, Bob at the start). Their games
carry rules versions 2 to 5 and card set v8. Today's code migrates them, loads every game,
plays every active one to its end with legal moves, and reads the finished ones: review (a3e9e43
stored format 1: computed again and replaced), ratings, daily history, tutorial; on SQLite and
after `store.copy` to PostgreSQL.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import shutil
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from test_card_versions import play_to_the_end

import service.review_looks as review_looks
from engine import Game
from service import GameService
from service.daily_play import DailyHost
from service.daily_review import ME, history
from service.daily_review import review as daily_review
from service.daily_slots import slot
from service.ratings import Ratings
from service.review import Reviewer
from service.tutorial import Tutorial
from store import Store, make_store, review_store, tutorial_store
from store.copy import copy

ROOT = Path(__file__).resolve().parents[1]
RELEASES = ("a3e9e43", "e81aff9", "7c54f01", "7ca74e7", "aee6983", "2cfe6dc", "f4af28d", "d14ab0e")
ANN, BOB = 11, 12


def _fixture(commit: str) -> Path:
    return ROOT / "tests" / "data" / f"release-{commit}.sqlite"


def _made_at(path: Path) -> float:
    """When the release wrote its last game."""
    con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        return float(con.execute("SELECT max(created_at) FROM games").fetchone()[0])
    finally:
        con.close()


def _games(path: Path) -> list[tuple[int, int, str]]:
    """(id, key, status) of every stored game: channels and daily slots."""
    con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        return [(int(i), int(k), str(s)) for i, k, s in
                con.execute("SELECT id, channel_id, status FROM games ORDER BY id")]
    finally:
        con.close()


async def _plays_on(store: Any, games: list[tuple[int, int, str]], now: float,
                    review: bool) -> None:
    """`now`: the upgraded bot's clock, frozen (the same day as the release's games, or days
    later: Ann's daily attempt is then of a closed day). `review`: ask for the finished
    game's review (an older format's is computed again: some seconds, so once a backend)."""
    svc = GameService(store, clock=lambda: now)
    host = await DailyHost.open(svc)  # the secret the release stored
    reviewer = Reviewer(review_store(store), samples=1)
    try:
        by_key = {k: (i, s) for i, k, s in games}
        assert by_key[1][1] == "lobby" and by_key[4][1] == "over"
        assert by_key[slot(BOB, True)][1] == "over" and by_key[slot(ANN, True)][1] == "active"
        for game_id, _key, status in games:  # every game loads, its state its replay
            row = await store.get(game_id)
            assert row is not None and row.status == status
            if status == "lobby":
                continue
            g = await svc.tables.load(row)
            assert Game.replay(row.setup, await store.log(row.id)).to_json() == g.to_json()
            assert await store.quarantined(row.id) is None
        # the finished game: shown, its stored review read, its rating settled
        row, finished = await svc.tables.viewable(4)
        assert row.status == "over" and finished.result is not None
        assert finished.view(0)["result"] == finished.result
        # (a review of an older format, a3e9e43's 1, is computed again and replaces it)
        if review:
            shown = await reviewer.review(row, await store.log(row.id), await store.authors(row.id))
            assert shown.game == row.id and await reviewer.stored(row.id) == shown
        ratings = Ratings(store)
        assert await ratings.tables.finished(row.id) is not None
        assert {u for u, _ in await ratings.board(1)} == {ANN, BOB}
        for user in (ANN, BOB):
            await ratings.profile(user, 1)
        # the hints Ann asked for are still counted
        assert (await store.latest_game(2)).meta["hints"] == {"0": 1}
        # the tutorial: Ann resumes where she was, Bob at the first lesson
        tutorial = Tutorial(tutorial_store(store))
        assert (await tutorial.place(BOB)) == (0, 0, True)
        lesson, _, resumed = await tutorial.place(ANN)
        assert lesson == 1 and resumed
        await tutorial.current(ANN, "en")
        # Ann's daily attempt: of a closed day (days later) it expires, as `/rr daily` would
        (attempt,) = await host.store.history(ANN)
        expired = await host.attempts.expire_overdue(ANN)
        assert (expired is not None) == (attempt.day != host.days.today().isoformat())
        # the time limits a bot restarted after the release's games runs: days later, the
        # decisions asked then are overdue and answered by default
        outcomes, _ = await svc.limits.tick()
        assert bool(outcomes) == bool(expired)
        # every active game plays on to its end (the AI seat answering, the daily one too)
        for game_id, key, status in games:
            row = await store.get(game_id)
            if status == "active" and row is not None and row.status == "active":
                g = await play_to_the_end(svc, key, seed=game_id)
                assert g.over
        await host.results.settle_all()
        assert await ratings.settle_due(svc.tables.load) >= 1  # channel 2's at least
        assert await ratings.tables.unsettled(10) == []
        for user in (ANN, BOB):  # the daily history reads, and a closed day's review
            days, _, _ = await history(host, user)
            assert days
            if expired:
                shown = await daily_review(host, user, dt.date.fromisoformat(attempt.day))
                assert (shown.mine is not None) == (user == BOB)
                assert user != BOB or ME in shown.games  # his game, stepped through
        fresh = GameService(store, clock=lambda: now)  # a restart: every game verified again
        for game_id, key, status in games:
            row = await store.get(game_id)
            assert row is not None
            if status != "lobby":
                assert row.status == ("abandoned" if expired and key == slot(ANN, True)
                                      else "over")
                await fresh.tables.load(row)
                assert await store.quarantined(row.id) is None
        fresh.ai.close()
    finally:
        reviewer.close()
        host.close()
        svc.ai.close()


def _copy(tmp_path: Path, commit: str) -> str:
    path = tmp_path / "release.sqlite"
    shutil.copy(_fixture(commit), path)  # the committed file itself is never written
    return str(path)


LATER = {"same-day": 3600.0, "days-later": 3 * 86400.0}  # the upgrade, after the release's games


def _upgrade(monkeypatch: pytest.MonkeyPatch, commit: str, later: str,
             open_store: Callable[[], Awaitable[Any]]) -> None:
    """Today's code on the release's database as `open_store` opens it, `later` on."""
    monkeypatch.delenv("RR_DAILY_SECRET", raising=False)
    # a review read and stored, not its judging: one sample a decision, one look
    monkeypatch.setattr(review_looks, "RECHECK", 0)
    monkeypatch.setattr(review_looks, "LATE", 0)
    monkeypatch.setattr(review_looks, "DECIDED_FACTOR", 1)
    games = _games(_fixture(commit))

    async def main() -> None:
        store = await open_store()
        try:
            await _plays_on(store, games, _made_at(_fixture(commit)) + LATER[later],
                            review=later == "same-day")
        finally:
            await store.close()
    asyncio.run(main())


@pytest.mark.parametrize("later", LATER)
@pytest.mark.parametrize("commit", RELEASES)
def test_a_newer_release_database_with_every_feature_plays_on(tmp_path, monkeypatch, commit,
                                                              later):
    _upgrade(monkeypatch, commit, later, lambda: Store(_copy(tmp_path, commit)).open())


@pytest.mark.parametrize("later", LATER)
@pytest.mark.parametrize("commit", RELEASES)
def test_a_newer_release_database_copied_to_postgresql_plays_on(tmp_path, pg_url, monkeypatch,
                                                                 commit, later):
    async def copied() -> Any:
        await copy(_copy(tmp_path, commit), pg_url)
        return await make_store(pg_url).open()
    _upgrade(monkeypatch, commit, later, copied)
