"""A game plays with the card values it was started with, forever (issue 17, R15).

Released card sets are frozen files (engine/data/cards/v<N>.json) and a setup names its
version; databases written by older releases (tests/data/release-<commit>.sqlite, made by
tests/data/make_release_db.py with those commits' own code: 2bca11e, card set v1, 17 values
differ from today's; 46992e5, card set v3, with AI seats) are opened by today's store —
migration 4 names each stored game's version — and every game loads, the active ones play on
to the end with their own values (through the bot too, an AI seat answering), the finished
one shows; the same after `store.copy` to PostgreSQL. Puzzles replay and undo with their own
cards, and `python -m engine replay puzzle.json --check` takes them (R15).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import shutil
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from bot_driver import Clock, Table, make_bot
from harness import Harness
from harness.model import FakeUser
from rules_helpers import actions, main_card, puzzle, unit

from engine import Game, find_cards_version
from engine.cards import (
    DATA_FILE,
    RELEASED_DIR,
    default_version,
    released_at,
    released_cards,
    released_versions,
    unrecorded_versions,
)
from service import GameOver, GameService
from sim.runner import cards_in_use
from store import Store, make_store, migrations, ratings_store
from store.copy import copy
from store.migrations import StoredGame

ROOT = Path(__file__).resolve().parents[1]
OLDER_SET = ROOT / "tests" / "data" / "refusals-cards.json"  # card set v3, on disk before 17
USERS = (11, 12)  # the release database's players, by seat
MAX_MOVES = 4000

# sha256 of every released card set file. A released file is never edited: a game started
# with it must replay with it forever (docs/deploy.md). A new version adds a line here.
RELEASED = {
    1: "81301d24232f5f6d3f1848a1bdb9b75837068534330a818d1aba447152f5456b",
    2: "0ceaf072154f783b32ecaea79d46398daf4c3ac3ce881516a529d76b1c6bc166",
    3: "32df13acbf111a0072a0ece4fdd8c5427b342d38bfd2f063b001348becd85fb1",
    4: "b58bbbbd701f22e776b021a581b89bdb11c8c01517cb81d74e2320f3796759d8",
    5: "0854c41cbe6cc60ca67566c811fa976955e0f3e6f7b41e3a9c6657ab26785ca1",
    6: "97ec93167b22229f10e303fad2077dfc507ef600f4c5187b1d1a8342b227ccd4",
    7: "596a93ded5528524b40a94d47f2c40d30363d95ce648cdcbd1d29955acf937e1",
    8: "9ce53d2d6070b8e5bd710c92f71f7c3eb9c9827e4fd083befeea355e7e39f5f9",
}


# ---- released versions -----------------------------------------------------------------------

def test_released_card_sets_are_never_edited_and_today_is_one_of_them():
    """docs/deploy.md: released files keep their bytes; `cards.json` (what new games are dealt
    with) is the newest released version, so every new game can name its set."""
    have = {v: hashlib.sha256((RELEASED_DIR / f"v{v}.json").read_bytes()).hexdigest()
            for v in released_versions()}
    assert have == RELEASED
    assert DATA_FILE.read_bytes() == (RELEASED_DIR / f"v{max(RELEASED)}.json").read_bytes()
    assert default_version() == max(RELEASED)


def _random_game(seed: int, moves: int, cards_version: int | None = None) -> Game:
    g = Game.new(["Ann", "Bob"], seed=seed, cards_version=cards_version)
    pick = random.Random(seed)
    for _ in range(moves):
        if g.over:
            break
        seat = g.waiting_for()[0]
        g.apply(seat, pick.choice(g.legal_actions(seat)))
    return g


def test_a_game_replays_with_its_own_cards_after_a_card_change():
    """R15 + issue 17: a game started today names its set; when the default set changes
    (here to an older one), setup + log still give exactly the stored game."""
    g = _random_game(5, 400)
    stored = g.to_json()
    with cards_in_use(str(OLDER_SET)):
        assert Game.replay(json.loads(stored)["setup"], g.log).to_json() == stored
        assert Game.from_json(stored).cards == released_cards(max(RELEASED))
    assert g.setup["cards_version"] == max(RELEASED)


def test_a_setup_naming_an_unknown_version_is_refused_clearly():
    """A game started by a newer release is not played with other values."""
    g = Game.new(["Ann"], seed=1)
    setup = dict(g.setup, cards_version=max(RELEASED) + 1)
    with pytest.raises(ValueError, match="not known to this release"):
        Game.replay(setup, [])


# ---- puzzles (R15: setup + log determine the game, puzzles included) ---------------------------

def _fast_warrior() -> dict[str, Any]:
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    data["units"]["warrior_star"]["mov"] = 3  # the default is 1
    return data


def _puzzle_with_own_cards() -> Game:
    board = {"2A": unit("warrior_star"), "2C": unit("thief_star"), "1B": unit("thief_star")}
    return puzzle([board],
                  decisions={0: actions(left=3)}, **main_card("advance", 0, 1),
                  setup={"players": ["P0"], "seed": 7, "cards": _fast_warrior()})


def test_a_puzzle_undo_replays_with_the_puzzles_cards():
    """Undo replays the log from the puzzle's start with the puzzle's cards: the Warrior★'s
    two-square move (MOV 3 in this puzzle) stays, only the undone move goes (R15)."""
    g = _puzzle_with_own_cards()
    g.apply(0, "act 2A to 4A")
    after_first = g.to_json()
    g.apply(0, "act 2C to 3C")
    assert g.can_undo(0)
    g.undo(0)
    assert g.to_json() == after_first
    assert Game.replay(g.setup, g.log).to_json() == after_first


@pytest.mark.process
def test_engine_replay_check_takes_a_puzzle(tmp_path):
    """`python -m engine replay puzzle.json --check` replays a puzzle from its own start,
    before and after moves applied to it on the command line (R15)."""
    path = tmp_path / "puzzle.json"
    g = _puzzle_with_own_cards()
    raw = json.loads(g.to_json())
    hand_written = {k: raw[k] for k in ("players", "round", "phase", "row", "chosen", "current",
                                        "leader", "turn_order", "turn", "decisions", "next_id",
                                        "levelup_piles", "monster_deck")}
    hand_written["setup"] = {"players": ["P0"], "seed": 7, "cards": _fast_warrior()}
    path.write_text(json.dumps(hand_written), encoding="utf-8")

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "engine", *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)

    r = cli("replay", str(path), "--check")
    assert r.returncode == 0, r.stderr
    r = cli("apply", str(path), "--seat", "0", "act 2A to 4A", "--in-place")
    assert r.returncode == 0, r.stderr
    r = cli("replay", str(path), "--check")
    assert r.returncode == 0, r.stderr
    assert "1 actions" in r.stderr


# ---- a database written by an older release --------------------------------------------------

@dataclass(frozen=True)
class Release:
    """A database made by an older commit (tests/data/make_release_db.py) and what it holds."""

    commit: str
    cards_version: int  # the card set that release dealt with
    active: tuple[int, ...]  # channels of its active games
    finished: int  # channel of its finished game
    ratings: bool = False  # made after ratings existed (store step 12)

    @property
    def path(self) -> Path:
        return ROOT / "tests" / "data" / f"release-{self.commit}.sqlite"


RELEASES = [
    # card set v1 (17 values differ from today's): today's main refuses its 2-player game and
    # the finished one, and re-derives the solo game silently with other values
    Release("2bca11e", 1, active=(2, 3), finished=4),
    # card set v3, AI seats: today's main refuses "Lancer costs 4 gold and you have 3"
    Release("46992e5", 3, active=(2,), finished=3),
    # card set v8, the release before migrations 13 and 14 (the last stop's commit): its
    # games carry ratings' and the tutorial's schema (migrations 11, 12) into today's
    Release("de9c003", 8, active=(2,), finished=3, ratings=True),
    # card set v1, before the 'rolls' standing order (R12.1): that engine asked after every
    # roll a boon could improve, so its logs answer questions today's default never asks
    # (migration 15 replays them with the order everyone then had)
    Release("1d6ad38", 1, active=(2, 3), finished=4),
]


async def _told(_outcome: Any) -> None:
    """The channel's news of an AI answer: nobody to tell in this test."""


async def play_to_the_end(svc: GameService, channel: int, seed: int) -> Game:
    """Ann and Bob play random legal answers; AI seats answer through the service (also
    tests/test_release_features.py: `channel` may be a daily slot)."""
    pick = random.Random(seed)
    for _ in range(MAX_MOVES):
        await svc.ai.play_ai(channel, _told)
        try:
            row, g = await svc.tables.current(channel)
        except GameOver as over:
            return over.game
        seat = next(s for s in g.waiting_for() if row.seats[s]["user"] in USERS)
        await svc.play.act(channel, row.seats[seat]["user"], str(pick.choice(g.legal_actions(seat))))
    raise AssertionError(f"channel {channel}: not over after {MAX_MOVES} moves")


async def _release_games_play_on(store: Any, release: Release) -> None:
    """The issue's checks on a release database, opened by today's code."""
    svc = GameService(store)
    try:
        lobby = await store.latest_game(1)
        assert lobby.status == "lobby" and lobby.setup is None
        # issue 24: a game that ended once ratings existed but was never settled (that
        # release settled it with its game-over post, which this one never sent) is claimed
        # by step 14, so the next settling pass rates it; older releases' games are not
        over = await store.latest_game(release.finished)
        assert [g for g, _ in await ratings_store(store).unsettled(10)] == ([over.id] if release.ratings else [])
        for channel in (*release.active, release.finished):
            row, g = await svc.tables.viewable(channel)
            assert g.setup["cards_version"] == release.cards_version
            assert g.cards == released_cards(release.cards_version)  # its own values
            assert Game.replay(row.setup, await store.log(row.id)).to_json() == g.to_json()
        row, finished = await svc.tables.viewable(release.finished)
        assert row.status == "over" and finished.result is not None
        assert finished.view(0)["result"] == finished.result
        for channel in release.active:
            g = await play_to_the_end(svc, channel, seed=channel)
            assert g.over and g.cards == released_cards(release.cards_version)
        fresh = GameService(store)  # a restart: every game verified again from its rows
        for channel in (*release.active, release.finished):
            row = await store.latest_game(channel)
            assert row.status == "over"
            await fresh.tables.load(row)
            assert await store.quarantined(row.id) is None
    finally:
        svc.ai.close()


def _release_copy(tmp_path: Path, release: Release) -> str:
    path = tmp_path / "release.sqlite"
    shutil.copy(release.path, path)  # the committed file itself is never written
    return str(path)


@pytest.mark.parametrize("release", RELEASES, ids=lambda r: r.commit)
def test_a_database_from_an_older_release_plays_on(tmp_path, release):
    """Issue 17: every game of an older release's database loads with its own card set (none
    set aside, none re-derived), the active ones play to the end (an AI seat included), the
    finished one shows."""
    async def main() -> None:
        store = await Store(_release_copy(tmp_path, release)).open()
        try:
            await _release_games_play_on(store, release)
        finally:
            await store.close()
    asyncio.run(main())


@pytest.mark.parametrize("release", RELEASES, ids=lambda r: r.commit)
def test_an_older_release_database_copied_to_postgresql_plays_on(tmp_path, pg_url, release):
    """Issue 17, after `store.copy`: the SQLite file is only read, so the copy gives the
    games their card set versions on the way into PostgreSQL."""
    async def main() -> None:
        await copy(_release_copy(tmp_path, release), pg_url)
        store = await make_store(pg_url).open()
        try:
            await _release_games_play_on(store, release)
        finally:
            await store.close()
    asyncio.run(main())


def _stored_state(release: Release, channel: int) -> str:
    con = sqlite3.connect(f"file:{release.path}?mode=ro&immutable=1", uri=True)
    try:
        (state,) = con.execute("SELECT state FROM games WHERE channel_id=?",
                               (channel,)).fetchone()
    finally:
        con.close()
    return str(state)


@pytest.mark.process
def test_a_state_file_saved_before_versions_loads_with_its_set(tmp_path):
    """`python -m engine` on a state saved by an older release: loading finds the set it was
    played with (v1's, v3's), so it replays (`replay --check`) and plays on with those values."""
    g = Game.from_json(_stored_state(RELEASES[0], 2))
    assert g.setup["cards_version"] == 1
    assert Game.replay(g.setup, g.log).to_json() == Game.from_json(g.to_json()).to_json()
    path = tmp_path / "old.json"
    path.write_text(_stored_state(RELEASES[1], 2), encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "engine", "replay", str(path), "--check"],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr  # today's main: "Lancer costs 4 gold and you have 3"


def _unversioned(g: Game) -> tuple[str, str]:
    """A game's setup and state as a release before versions stored them."""
    state = json.loads(g.to_json())
    setup = dict(state["setup"])
    setup.pop("cards_version")
    state["setup"] = setup
    return json.dumps(setup), json.dumps(state)


def test_migration_4_keeps_what_it_does_not_know_and_never_changes_a_version():
    """A game stored with the last set a release without versions dealt (v7) gets it, and
    its stored state equals its replay again; one with a version or a custom set is not
    touched."""
    g = _random_game(3, 120, cards_version=7)
    setup, state = _unversioned(g)
    new = migrations.version_cards(StoredGame(1, setup, state, g.log, time.time()))
    assert new is not None
    assert json.loads(new[0])["cards_version"] == 7
    assert new[1] == g.to_json()
    assert migrations.version_cards(StoredGame(1, json.dumps(g.setup), g.to_json(), g.log,
                                               time.time())) is None
    custom = dict(json.loads(setup), cards=json.loads(DATA_FILE.read_text(encoding="utf-8")))
    assert migrations.version_cards(StoredGame(1, json.dumps(custom), None, [], 0.0)) is None


def test_sets_a_game_cannot_tell_apart_go_to_the_newest_released_when_it_began():
    """A v4 game whose moves so far are the same under v4 … v7 (no Cleric★ bought, no Lancer
    hurt): stored before v5 existed it is v4, and plays on with v4's prices; stored later, the
    newest set it fits (its past is the same under each)."""
    g = Game.new(["Ann"], seed=4, cards_version=4)
    setup, state = _unversioned(g)
    before_v5 = released_at(5) - 60
    assert find_cards_version(json.loads(setup), g.log, json.loads(state), before_v5) == 4
    new = migrations.version_cards(StoredGame(1, setup, state, g.log, before_v5))
    assert new is not None and json.loads(new[0])["cards_version"] == 4
    assert Game.replay(json.loads(new[0]), g.log).cards.units["cleric_star"].cost == 2  # v7: 1
    assert find_cards_version(json.loads(setup), g.log, json.loads(state),
                              released_at(7) + 60) == 7


def test_a_game_without_a_version_is_never_given_a_set_released_after_versions_began():
    """The upgrade audit: an old release (before e748025 recorded a game's set) still
    running after v8 reached main stored v7 games with a creation time past v8's release;
    migration 4 gave 11 of 12 of them v8 — prices and HP no such release ever dealt, and a
    logged move then refused. A game stored without a version was dealt one of sets 1-7,
    whatever its creation time."""
    assert max(unrecorded_versions()) == 7 < max(RELEASED)
    for seed in (1, 2, 3):
        g = Game.new(["Ann"], seed=seed, cards_version=7)  # moves that v7 and v8 cannot tell apart
        setup, state = _unversioned(g)
        after_v8 = released_at(8) + 3600
        assert find_cards_version(json.loads(setup), g.log, json.loads(state), after_v8) == 7
        new = migrations.version_cards(StoredGame(1, setup, state, g.log, after_v8))
        assert new is not None and json.loads(new[0])["cards_version"] == 7


def test_migration_4_reaches_games_stored_before_it_on_both_backends(db):
    """A database the bot used before step 4 (the same rows, no `cards_version`, step 4 not
    recorded; its game dealt v7, the last set such a release had): reopening applies it
    once, on SQLite and PostgreSQL alike, and the game reads back exactly as it was played,
    its stored state equal to its replay again."""
    async def main() -> None:
        with cards_in_use(str(RELEASED_DIR / "v7.json")):
            await play_and_reopen()

    async def play_and_reopen() -> None:
        store = await db.open()
        svc = GameService(store, seed_source=lambda: 9)
        await svc.lobby.new_lobby(1, 100, USERS[0], "Ann", players=2)
        await svc.lobby.join(100, USERS[1], "Bob")
        await svc.lobby.start(100, USERS[0])
        pick = random.Random(9)
        for _ in range(30):
            row, g = await svc.tables.current(100)
            seat = g.waiting_for()[0]
            await svc.play.act(100, USERS[seat], str(pick.choice(g.legal_actions(seat))))
        row, g = await svc.tables.current(100)
        played = g.to_json()
        assert row.setup["cards_version"] == 7  # a lobby starts on the process's set
        await store.close()
        setup, state = _unversioned(g)
        await db.sql("UPDATE games SET setup=?, state=? WHERE id=?", setup, state, row.id)
        await db.sql("DELETE FROM schema_version WHERE version=4")
        store = await db.open()
        try:
            again = await store.get(row.id)
            assert again.setup["cards_version"] == 7 and again.state == played
            assert (await GameService(store).tables.load(again)).to_json() == played
            assert await db.sql("SELECT count(*) FROM schema_version WHERE version=4") == [(1,)]
        finally:
            await store.close()
    asyncio.run(main())


def test_every_released_set_has_its_release_time():
    index = json.loads((RELEASED_DIR / "released.json").read_text(encoding="utf-8"))
    assert sorted(int(v) for v in index["versions"]) == list(released_versions())
    times = [released_at(v) for v in released_versions()]
    assert times == sorted(times)


# ---- through the bot ---------------------------------------------------------------------------

def _into_the_harness(path: str, h: Harness, ann: FakeUser, channels: dict[int, int]) -> None:
    """The release database's games moved to the harness guild's channels and Ann's id, as a
    bot that served this guild would have stored them."""
    con = sqlite3.connect(path)
    try:
        with con:
            for game_id, channel, seats in con.execute(
                    "SELECT id, channel_id, seats FROM games").fetchall():
                seats = [dict(s, user=ann.id) if s["user"] == USERS[0] else s
                         for s in json.loads(seats)]
                con.execute("UPDATE games SET guild_id=?, channel_id=?, host_id=?, seats=?"
                            " WHERE id=?", (h.guild_id, channels[channel], ann.id,
                                            json.dumps(seats), game_id))
    finally:
        con.close()


def test_a_game_from_before_the_rolls_order_keeps_its_question_after_a_hit(tmp_path):
    """R12.1: that release asked after every roll a boon could improve, so its solo game was
    left waiting on a question after a hit (Willpower could still raise the damage). Loaded
    today, the question is still open, answered as then (`keep`), and the game plays on; a
    new game starts at `miss` (asked only after a miss or fumble)."""
    release = next(r for r in RELEASES if r.commit == "1d6ad38")

    async def main() -> None:
        store = await Store(_release_copy(tmp_path, release)).open()
        svc = GameService(store)
        try:
            row, g = await svc.tables.viewable(3)
            asked = g.decision(0)
            assert asked is not None and asked["kind"] == "roll" and asked["result"] == "hit"
            assert g.setup["options"]["rolls"] == "always" and g.player(0)["rolls"] == "always"
            assert "keep" in [str(a) for a in g.legal_actions(0)]
            await svc.play.act(3, row.seats[0]["user"], "keep")
            _, g = await svc.tables.viewable(3)
            assert g.decision(0) is None or g.decision(0)["kind"] != "roll"
        finally:
            svc.ai.close()
            await store.close()
    asyncio.run(main())
    assert Game.new(["Ann"], seed=3).player(0)["rolls"] == "miss"


def test_the_bot_plays_on_an_older_release_game_with_an_ai_seat(tmp_path):
    """Issue 17 through Discord: release 46992e5's game of Ann and a greedy AI (a Lancer
    bought with 3 gold, refused by today's main) is verified at startup, and Ann plays it to
    the end with buttons and commands while the AI answers for its seat."""
    release = RELEASES[1]
    path = _release_copy(tmp_path, release)

    async def main() -> None:
        h = Harness(lambda: make_bot(path, Clock(), seed=3))
        ann = h.user("ann")
        finished = h.text_channel("finished")
        _into_the_harness(path, h, ann, {1: h.text_channel("lobby").id, 2: h.channel.id,
                                         3: finished.id})
        async with h:
            table = Table(h)
            row, g = await h.bot.service.tables.current(h.channel.id)
            table.game_id = row.id
            assert g.setup["cards_version"] == release.cards_version
            status = await table.slash(ann, "rr status")
            assert status.ephemeral and "damaged" not in status.text, status.text
            assert g.decision_kind(0) == "pick"  # asked by the old release: by command now
            options = g.decision(0)["options"]  # type: ignore[index]
            picked = await table.slash(ann, "rr pick", card=options[0])
            assert picked.text.startswith("✅"), picked.text
            await table.play(random.Random(4))
            row, g = await table.game()
            assert row.status == "over" and g.cards.units["lancer"].cost == 3
            assert await h.bot.store.quarantined(row.id) is None
    asyncio.run(main())


def test_a_saved_state_a_newer_release_wrote_is_refused_on_load_too():
    """The verification audit: `python -m engine apply` loads a saved state (not setup +
    log) and played on a game whose rules this release does not know, while `replay`
    refused it. Both loads refuse it now."""
    g = Game.new(["Ann"], seed=1)
    g.apply(0, str(g.legal_actions(0)[0]))
    state = json.loads(g.to_json())
    state["setup"]["rules"] = 99
    with pytest.raises(ValueError, match="rules version 99 is not known to this release"):
        Game.from_json(json.dumps(state))
