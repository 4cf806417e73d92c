"""Make `tests/data/release-<commit>.sqlite`: a database written by an older release.

Run with an old commit's tree first on the path, so its own engine, service and store write
the database exactly as that release did (issue 17: games must keep their card values
across upgrades):

    git archive 2bca11e | tar -x -C /tmp/old
    python tests/data/make_release_db.py /tmp/old tests/data/release-2bca11e.sqlite
    git archive 46992e5 | tar -x -C /tmp/old3
    python tests/data/make_release_db.py /tmp/old3 tests/data/release-46992e5.sqlite ai
    git archive de9c003 | tar -x -C /tmp/old26
    python tests/data/make_release_db.py /tmp/old26 tests/data/release-de9c003.sqlite ai
    git archive 1d6ad38 | tar -x -C /tmp/old1d
    python tests/data/make_release_db.py /tmp/old1d tests/data/release-1d6ad38.sqlite rolls \
        2026-11-22T01:17:52+00:00
    git archive aee6983 | tar -x -C /tmp/oldaee   # likewise a3e9e43 … 2cfe6dc, f4af28d, d14ab0e
    python tests/data/make_release_db.py /tmp/oldaee tests/data/release-aee6983.sqlite features

Games of 2bca11e (card set v1), in channels 1 to 4 (players are user ids 11, 12): a lobby; an
active 2-player game in which a Lancer was recruited with 3 gold (that release's price;
today's is 4); an active solo game; a finished solo game. With `ai`, for a release with AI
seats (46992e5, card set v3): a lobby with an AI seat; an active game of Ann and a greedy AI;
a finished game of Ann and a random AI. With `rolls`, for a release from before the 'rolls'
standing order (1d6ad38, card set v1), whose engine asked after every roll a boon could
improve: the games of 2bca11e's kind, Ann answering `keep` to every such question after a
hit, the active solo game left waiting on one; its times are then moved to the given moment
(the release's), as its games were stored then. With `features`, for a release with ratings,
reviews, hints, time limits, the daily challenge and the tutorial (a3e9e43 on): a lobby; an
active game of Ann and Bob with hints on (one asked) and a time limit; an active solo game left
on an open question; a finished game of Ann and Bob, rated and reviewed; an active game of Ann
and a greedy AI; Bob's ranked daily attempt played out and settled, Ann's in play; tutorial
progress (tests/test_release_features.py). Ann's moves are the old engine's legal actions chosen
by a seeded random generator, preferring a Lancer recruit; the AIs are seeded by the game:
the games are the same on every run (their clock times are not).
"""

from __future__ import annotations

import asyncio
import inspect
import random
import sqlite3
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

MAX_MOVES = 3000


class Rooms:
    """A release whose service is split into rooms (de9c003 on: `svc.lobby.start`,
    `svc.play.act` …) behind the flat names this script calls, so one script makes every
    release's database with that release's own code."""

    def __init__(self, svc: Any) -> None:
        self.svc = svc

    @property
    def ai_pool(self) -> Any:
        return self.svc.ai.pool

    @ai_pool.setter
    def ai_pool(self, value: Any) -> None:
        self.svc.ai.pool = value

    async def close(self) -> None:
        self.svc.ai.close()

    def __getattr__(self, name: str) -> Any:
        for room in ("lobby", "play", "tables", "ai"):
            if hasattr(getattr(self.svc, room), name):
                return getattr(getattr(self.svc, room), name)
        return getattr(self.svc, name)


def main(old_tree: str, out: str, scenario: str = "", at: str = "") -> None:
    sys.path.insert(0, old_tree)
    import service.games  # the old release's own code
    from store.db import Store
    GameOver = getattr(service.games, "GameOver", None)
    if GameOver is None:  # from de9c003 the service is rooms (service/tables.py has it)
        from service.tables import GameOver

    def GameService(store: Any, seed_source: Any) -> Any:  # noqa: N802 - the old class's name
        svc = service.games.GameService(store, seed_source=seed_source)
        return svc if not hasattr(svc, "tables") else Rooms(svc)

    Path(out).unlink(missing_ok=True)

    keep_hits = scenario == "rolls"
    kept: dict[int, int] = {}  # channel → where in its log the first kept hit is

    def asked_after_a_hit(g: Any, seat: int) -> bool:
        dec = g.state["decisions"].get(str(seat)) or {}
        return dec.get("kind") == "roll" and dec.get("result") not in ("miss", "fumble")

    async def play(svc: Any, channel: int, users: list[int], pick: random.Random,
                   stop: Any) -> None:
        for _ in range(MAX_MOVES):
            try:
                row, g = await svc.current(channel)
            except GameOver:
                return
            if stop(g):
                return
            seat = g.waiting_for()[0]
            legal = [str(a) for a in g.legal_actions(seat)]
            lancer = [a for a in legal if a.startswith("recruit lancer")]
            text = lancer[0] if lancer else pick.choice(legal)
            if keep_hits and asked_after_a_hit(g, seat) and "keep" in legal:
                text = "keep"
                kept.setdefault(channel, len(g.state["log"]))
            await svc.act(channel, users[seat], text)
        raise SystemExit(f"channel {channel}: no end after {MAX_MOVES} moves")

    def lancer_bought_with_3(g: Any) -> bool:
        return any(t.startswith("recruit lancer") for _, t in g.state["log"])

    async def run() -> None:
        store = await Store(out).open()
        # `rolls`: seeds and picks found to meet a roll question after a hit (rare in random
        # play): in the 2-player game, in the finished one, and pending in the active solo one
        seeds = iter([101, 303, 404] if keep_hits else [101, 202, 303, 404])
        picks = (20, 18, 8) if keep_hits else (7, 8, 9)
        svc = GameService(store, seed_source=lambda: next(seeds))
        await svc.new_lobby(1, 1, 11, "Ann", players=2)  # stays a lobby
        await svc.join(1, 12, "Bob")
        for channel, players, rnd in zip((2, 3, 4), (2, 1, 1), picks, strict=True):
            await svc.new_lobby(1, channel, 11, "Ann", players=players)
            if players == 2:
                await svc.join(channel, 12, "Bob")
            await svc.start(channel, 11)
            pick = random.Random(rnd)
            if channel == 2 and keep_hits:  # active: a few moves after a kept hit
                await play(svc, channel, [11, 12], pick, lambda g: 2 in kept
                           and len(g.state["log"]) >= kept[2] + 4)
            elif channel == 2:  # active: a Lancer bought with exactly 3 gold, then a few moves
                await play(svc, channel, [11, 12], pick, lancer_bought_with_3)
                row, g = await svc.current(channel)
                n = len(g.state["log"]) + 6
                await play(svc, channel, [11, 12], pick, lambda g, n=n: len(g.state["log"]) >= n)
            elif channel == 3 and keep_hits:  # active solo, asked about a roll that hit
                await play(svc, channel, [11], pick, lambda g: g.state["round"] >= 2
                           and asked_after_a_hit(g, 0))
            elif channel == 3:  # active solo, a few rounds in
                await play(svc, channel, [11], pick, lambda g: g.state["round"] >= 3)
            else:  # finished
                await play(svc, channel, [11], pick, lambda g: False)
        await store.close()

    async def with_ai() -> None:
        store = await Store(out).open()
        seeds = iter([505, 606])
        svc = GameService(store, seed_source=lambda: next(seeds))
        svc.ai_pool = None  # the AI thinks in a thread of this process (no process pool)

        async def told(_outcome: Any) -> None:
            return None

        async def play_with_ai(channel: int, pick: random.Random, stop: Any) -> None:
            for _ in range(MAX_MOVES):
                await svc.play_ai(channel, told)
                try:
                    row, g = await svc.current(channel)
                except GameOver:
                    return
                if stop(g):
                    return
                legal = [str(a) for a in g.legal_actions(0)]
                lancer = [a for a in legal if a.startswith("recruit lancer")]
                await svc.act(channel, 11, lancer[0] if lancer else pick.choice(legal))
            raise SystemExit(f"channel {channel}: no end after {MAX_MOVES} moves")

        await svc.new_lobby(1, 1, 11, "Ann", players=2, bots=1, bot_level="greedy")
        for channel, level, rnd in ((2, "greedy", 7), (3, "random", 8)):
            await svc.new_lobby(1, channel, 11, "Ann", players=2, bots=1, bot_level=level)
            await svc.start(channel, 11)
            pick = random.Random(rnd)
            if channel == 2:
                await play_with_ai(channel, pick, lambda g: g.state["round"] >= 4
                                   and 0 in g.waiting_for())
            else:
                await play_with_ai(channel, pick, lambda g: False)
        await svc.close() if hasattr(svc, "close") else None
        await store.close()

    async def latest() -> None:
        """`features`: a release with ratings, reviews, the daily challenge, the tutorial,
        hints and time limits (a3e9e43 on)."""
        import service.games as games_mod
        from service.daily_play import DailyHost
        from service.daily_slots import slot
        from service.ratings import Ratings
        from service.review import Reviewer
        from service.tutorial import Tutorial
        from store import review_store, tutorial_store

        store = await Store(out).open()
        seeds = iter([707, 808, 909, 111])
        raw = games_mod.GameService(store, seed_source=lambda: next(seeds))
        raw.ai.pool = None
        svc = Rooms(raw)
        await svc.new_lobby(1, 1, 11, "Ann", players=2)  # stays a lobby
        await svc.join(1, 12, "Bob")
        # 2: active, Ann and Bob, hints on for Ann and a time limit, a few rounds in
        await svc.new_lobby(1, 2, 11, "Ann", players=2)
        await svc.join(2, 12, "Bob")
        await svc.start(2, 11)
        await raw.limits.set_time_limit(2, 11, 24 * 3600, True)
        await raw.hints.set_hints(2, 11, True, True)
        await raw.hints.hint(2, 11)
        await play(svc, 2, [11, 12], random.Random(21), lambda g: g.state["round"] >= 3)
        # 3: active solo, left waiting on a question (a recruit, a roll …), or a few rounds in
        await svc.new_lobby(1, 3, 11, "Ann", players=1)
        await svc.start(3, 11)

        def asked(g: Any) -> bool:
            dec = g.state["decisions"].get("0") or {}
            return g.state["round"] >= 2 and dec.get("kind") not in (None, "pick", "actions")
        await play(svc, 3, [11], random.Random(31), lambda g: asked(g) or g.state["round"] >= 6)
        # 4: finished, Ann and Bob: rated (settled) and reviewed
        await svc.new_lobby(1, 4, 11, "Ann", players=2)
        await svc.join(4, 12, "Bob")
        await svc.start(4, 11)
        await play(svc, 4, [11, 12], random.Random(41), lambda g: False)
        row = await store.latest_game(4)
        g = await raw.tables.load(row)
        log = await store.log(row.id)
        await Ratings(store).settle(row, g, log, time.time())
        reviewer = Reviewer(review_store(store), samples=2)
        if "authors" in inspect.signature(reviewer.review).parameters:
            await reviewer.review(row, log, await store.authors(row.id))
        else:  # before authors were stored
            await reviewer.review(row, log)
        reviewer.close()
        # 5: active, Ann and a greedy AI
        await svc.new_lobby(1, 5, 11, "Ann", players=2, bots=1, bot_level="greedy")
        await svc.start(5, 11)
        pick = random.Random(51)
        for _ in range(MAX_MOVES):
            await svc.play_ai(5, _told)
            row, g = await svc.current(5)
            if g.state["round"] >= 3 and 0 in g.waiting_for():
                break
            await svc.act(5, 11, pick.choice([str(a) for a in g.legal_actions(0)]))
        # the daily challenge: Bob's ranked attempt played out and settled, Ann's in play
        host = await DailyHost.open(raw)
        await host.attempts.play(12, "Bob", 1, 6)
        await play(svc, slot(12, True), [12], random.Random(61), lambda g: False)
        await host.results.settle_all()
        await host.attempts.play(11, "Ann", 1, 6)
        await play(svc, slot(11, True), [11], random.Random(71),
                   lambda g: g.state["round"] >= 2)
        host.close()
        # the tutorial: Ann a lesson on, Bob at the start
        tut = Tutorial(tutorial_store(store))
        await tut.place(12)
        await tut.next_lesson(11, "en")
        await svc.close()
        await store.close()

    async def _told(_outcome: Any) -> None:
        return None

    asyncio.run(with_ai() if scenario == "ai" else latest() if scenario == "features"
                else run())
    if at:
        stored_at(out, datetime.fromisoformat(at).timestamp())


def stored_at(out: str, when: float) -> None:
    """Move every time in the file so its first game was created at `when`: a release's
    games carry the clock of when they were played (store migration 4 reads it)."""
    con = sqlite3.connect(out)
    try:
        (first,) = con.execute("SELECT min(created_at) FROM games").fetchone()
        shift = first - when
        for table, column in (("games", "created_at"), ("games", "updated_at"),
                              ("actions", "at"), ("timers", "deadline"),
                              ("timers", "remind_at")):
            con.execute(f"UPDATE {table} SET {column} = {column} - ? "
                        f"WHERE {column} IS NOT NULL", (shift,))
        con.commit()
    finally:
        con.close()


if __name__ == "__main__":
    main(*sys.argv[1:5])
