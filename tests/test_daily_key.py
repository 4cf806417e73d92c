"""Issue 18, "the day cannot be learned early": a daily game draws every roll and shuffle
from the whole 256-bit day key through a keyed generator (engine/rng.py `hmac-ctr`), so no
number of observed dice narrows a seed search; games stored with the old 48-bit splitmix64
seed still replay (R15); a weak RR_DAILY_SECRET is refused at start with how to make one;
processes on one database must share the secret (a stored fingerprint). Frozen clocks,
both store backends (the `db` fixture)."""

from __future__ import annotations

import asyncio
import copy
import datetime as dt
import hashlib
import hmac
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from bot_driver import Clock, make_bot
from harness import Harness

import bot as entry
from ai import make_player
from ai.expert import ExpertPlayer
from engine import Game, find_cards_version, view
from engine import rng as engine_rng
from service import GameService, daily, daily_score, daily_secret
from service.daily_play import DailyHost
from service.daily_secret import SecretError
from service.notices import rebuild
from store import Store

DAY = dt.date(2026, 11, 23)
NOON = daily.day_end(DAY) - 12 * 3600
SECRET = b"0f1e2d3c4b5a69788796a5b4c3d2e1f0"
KEY = bytes(range(32))
OLD_GAME = Path(__file__).parent / "data" / "daily_splitmix_48bit.json"


def deal(g: Game) -> tuple[list[str], list[str], list[list[int]]]:
    """What a player would notice differ between two games: the deal and the coming dice."""
    streams = copy.deepcopy(g.state["rng"])
    dice = [engine_rng.roll2d6(streams, "dice0") for _ in range(8)]
    return ([c["id"] for c in g.state["monster_deck"]], [c["id"] for c in g.state["unit_deck"]],
            dice)


def play(g: Game, seed: int, moves: int = 5000) -> Game:
    bot = make_player("random", seed)
    for _ in range(moves):
        if g.over:
            break
        g.apply(0, bot.choose(view(g.state, 0), 0))
    return g


# ---- the generator ----------------------------------------------------------------------------

def test_a_daily_game_draws_from_the_whole_day_digest():
    """Issue 18: the day key is the full HMAC-SHA256 of the date (32 bytes, not d[:6]), the
    setup records the keyed generator with it, and every stream's state is that key plus a
    counter — 256 bits of state that observed rolls cannot pin."""
    ch = daily.challenge_for(SECRET, DAY)
    digest = hmac.new(SECRET, b"rook-and-raiders/daily/2026-11-23", hashlib.sha256).digest()
    assert ch.key == digest and len(ch.key) * 8 == 256
    g = ch.new_game("Ann")
    assert g.setup["rng"] == "hmac-ctr" and g.setup["key"] == digest.hex()
    assert deal(Game.new(["Ann"], seed=1, key=digest)) == deal(
        Game.new(["Ann"], seed=2, key=digest)), "the seed plays no part in a keyed game"
    for name, s in g.state["rng"].items():
        assert isinstance(s, dict) and bytes.fromhex(s["key"]) == digest, name
        assert s["n"] >= 0


def test_each_output_is_an_hmac_of_the_stream_name_and_counter():
    """Issue 18 / docs/state.md: output n of stream s is HMAC-SHA256(key, s ‖ 0x00 ‖ n),
    taken modulo the range (256 bits: no visible bias)."""
    g = Game.new(["Ann"], key=KEY)
    streams = copy.deepcopy(g.state["rng"])
    n0 = streams["dice0"]["n"]
    for k in range(5):
        block = hmac.digest(KEY, b"dice0\x00" + (n0 + k).to_bytes(8, "big"), "sha256")
        assert engine_rng.randbelow(streams, "dice0", 6) == int.from_bytes(block, "big") % 6
    assert streams["dice0"]["n"] == n0 + 5


@pytest.mark.parametrize("byte", range(32))
@pytest.mark.process
def test_a_key_differing_in_any_byte_gives_another_game(byte):
    """Issue 18: the key is used whole — a change in any byte (also past byte 6, where the
    old seed ended) changes the deal and the dice."""
    other = bytearray(KEY)
    other[byte] ^= 0x01
    a, b = Game.new(["Ann"], key=KEY), Game.new(["Ann"], key=bytes(other))
    da, db_ = deal(a), deal(b)
    assert da[0] != db_[0] and da[2] != db_[2]


def test_a_short_key_is_refused_never_cut_or_padded():
    """Issue 18: a key under 256 bits would be searchable: refused with the reason."""
    with pytest.raises(ValueError, match="64 hex digits"):
        Game.new(["Ann"], key=KEY[:16])
    with pytest.raises(ValueError, match="64 hex digits"):
        daily.challenge_from_key(DAY, KEY[:6])


def test_a_keyed_game_replays_bit_for_bit_and_survives_json():
    """R15: setup + log replays a keyed game exactly; its state round-trips through JSON
    and goes on drawing the same numbers."""
    g = play(daily.challenge_for(SECRET, DAY).new_game("Ann"), 3, moves=60)
    assert g.setup["rng"] == "hmac-ctr"
    again = Game.replay(json.loads(json.dumps(g.setup)), g.log)
    assert again.to_json() == g.to_json()
    loaded = Game.from_json(g.to_json())
    assert play(loaded, 4).to_json() == play(Game.replay(g.setup, g.log), 4).to_json()


def test_an_old_stored_daily_game_still_replays():
    """R15, issue 18: a daily game stored before the keyed generator (48-bit seed, no
    `setup.rng`: splitmix64) replays to its stored final state and is scored as before.
    The file was written by the code of main before this change."""
    old = json.loads(OLD_GAME.read_text())
    assert "rng" not in old["setup"] and old["setup"]["seed"] < 2**48
    # stored before card set versions: the store names its set first (migration 4, issue 17)
    old["setup"]["cards_version"] = find_cards_version(old["setup"], old["log"], old["state"])
    assert old["setup"]["cards_version"] is not None
    if "setup" in old["state"]:
        old["state"]["setup"]["cards_version"] = old["setup"]["cards_version"]
    g = Game.replay(old["setup"], old["log"])
    assert json.loads(g.to_json()) == old["state"]
    assert daily_score.replay_score(old["setup"], old["log"]).score.rounds == old["state"]["round"]


@pytest.mark.parametrize("setup_change, reason", [
    ({"rng": "mt19937"}, "setup.rng"),
    ({"rng": "hmac-ctr", "key": "abcd"}, "64 hex digits"),
    ({"rng": "hmac-ctr"}, "64 hex digits"),
])
def test_a_file_with_an_unknown_generator_or_bad_key_is_refused(setup_change, reason):
    """Bad input gets a clear answer: a hand-written state naming a generator the engine
    does not have, or a key it cannot use, is a ValueError saying which."""
    raw = json.loads(Game.new(["Ann"], seed=5).to_json())
    raw["setup"].update(setup_change)
    with pytest.raises(ValueError, match=reason):
        Game.from_json(raw)


def test_a_stream_of_neither_generator_is_refused():
    raw = json.loads(Game.new(["Ann"], key=KEY).to_json())
    raw["rng"]["dice0"] = {"key": "00", "n": 1}
    with pytest.raises(ValueError, match="64 hex digits"):
        Game.from_json(raw)
    raw["rng"]["dice0"] = "7"
    with pytest.raises(ValueError, match="rng.dice0"):
        Game.from_json(raw)


def test_the_view_and_the_ai_never_see_the_key():
    """R3 / issue 18: the key is as secret as the streams: no view carries it, and the
    expert, which samples the hidden parts itself, answers the same whatever the key's
    future draws are (it cannot peek at a coming roll)."""
    g = daily.challenge_for(SECRET, DAY).new_game("Ann")
    v = view(g.state, 0)
    assert g.setup["key"] not in json.dumps(v)
    assert "rng" not in v and set(v["setup"]) <= {"players", "options", "cards", "cards_version",
                                                     "rules"}
    twin = copy.deepcopy(g.state)
    twin["rng"] = Game.new(["Ann"], key=KEY, options=g.setup["options"]).state["rng"]
    choices = [ExpertPlayer(1, budget=30, samples=2, work=20).choose(view(s, 0), 0)
               for s in (g.state, twin)]
    assert choices[0] == choices[1]
    assert g.apply(0, choices[0]) is not None  # a legal answer in the keyed game


def test_a_published_key_alone_rebuilds_the_day():
    """Issue 18: once the day is over its key is published (frozen clock at the boundary),
    and that key rebuilds the very same challenge — difficulty, modifiers and game."""
    end = daily.day_end(DAY)
    assert daily.published_key(SECRET, DAY, end - 1) is None
    published = daily.published_key(SECRET, DAY, end)
    assert published is not None and len(published) == 64
    rebuilt = daily.challenge_from_key(DAY, bytes.fromhex(published))
    real = daily.challenge_for(SECRET, DAY)
    assert (rebuilt.difficulty, rebuilt.modifiers) == (real.difficulty, real.modifiers)
    assert rebuilt.new_game("Ann").to_json() == real.new_game("Ann").to_json()


# ---- the secret -------------------------------------------------------------------------------

@pytest.mark.parametrize("weak", [
    "s3cret", "correct horse", "0123456789abcdef0123456789abcde",  # 31 hex digits: 124 bits
    "a" * 64, "abababababababababababababababab", "QUJDREVGR0hJSktMTU5PUFFS"[:21],
    "correcthorsebatterystaple", "correct horse battery staple pony", "Tr0ub4dor&3",
])
def test_a_weak_secret_is_refused_with_how_to_make_one(weak):
    """Issue 18: past keys are published, so a weak secret is searched offline and gives
    away every future day: refused with a one-line reason and the command that makes one."""
    with pytest.raises(SecretError) as e:
        daily_secret.check_secret(weak)
    text = str(e.value)
    assert "\n" not in text and "128" in text and "secrets.token_hex(32)" in text


@pytest.mark.parametrize("strong", [
    "0123456789abcdef0123456789abcdef",  # 32 hex digits: 128 bits
    "Zq3x_Vb8-Lw2Yt6Rn0Pk4h",  # secrets.token_urlsafe(16): 22 characters
    "abandon ability able about above absent absorb abstract absurd abuse",  # 10 words
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
])
def test_a_generated_secret_is_accepted(strong):
    assert daily_secret.check_secret(strong) == strong.encode()


def test_the_bot_refuses_to_start_on_a_weak_secret(monkeypatch, capsys):
    """Issue 18: `python bot.py` stops before connecting, with one line on stderr."""
    monkeypatch.setenv("RR_DAILY_SECRET", "hunter2")
    monkeypatch.setenv("DISCORD_TOKEN", "x")
    assert entry.main([]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bot.py: RR_DAILY_SECRET is too weak") and "\n" not in err
    assert 'python -c "import secrets; print(secrets.token_hex(32))"' in err


def test_processes_on_one_database_must_share_the_secret(db, monkeypatch):
    """Issue 18: the first start keeps a keyed fingerprint of the secret; a process with
    another secret (or none, which would use the generated one) refuses to start, on both
    backends, and the stored fingerprint says nothing of the secret itself."""
    monkeypatch.delenv("RR_DAILY_SECRET", raising=False)
    first, other = "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "ffeeddccbbaa99887766554433221100"

    async def start(secret: str | None) -> DailyHost:
        store = await db.open()
        try:
            return await DailyHost.open(GameService(store, clock=lambda: NOON), secret=secret)
        finally:
            await store.close()

    async def main() -> None:
        h = await start(first)
        assert (await start(first)).days.secret == h.days.secret  # a restart, or a second process
        with pytest.raises(SecretError, match="same secret"):
            await start(other)
        with pytest.raises(SecretError, match="same secret"):
            await start(None)
        rows = await db.sql("SELECT value FROM kv WHERE key='daily_secret_fingerprint'")
        assert rows[0][0] == daily_secret.fingerprint(first.encode()) and first not in rows[0][0]
    asyncio.run(main())


def test_a_generated_secret_is_shared_and_a_new_one_then_refused(db, monkeypatch):
    """Issue 18: without RR_DAILY_SECRET the generated, stored secret keeps working as
    before; setting a different one later is a mismatch, not a silent change of the days."""
    monkeypatch.delenv("RR_DAILY_SECRET", raising=False)

    async def main() -> None:
        store = await db.open()
        try:
            games = GameService(store, clock=lambda: NOON)
            a = await DailyHost.open(games)
            b = await DailyHost.open(games)
            assert a.days.secret == b.days.secret and len(a.days.secret) == 32
            with pytest.raises(SecretError):
                await DailyHost.open(games, secret="0f1e2d3c4b5a69788796a5b4c3d2e1f0")
            # the crash audit: the stored secret damaged (a hand edit, a bad restore) ended
            # the start in a bare traceback from the store; it is one line now (bot.py
            # prints a SecretError and stops: generating another would change every day),
            # and the row restored from a backup starts the bot with the same days
            await db.sql("UPDATE kv SET value='short' WHERE key='daily_secret'")
            with pytest.raises(SecretError, match="damaged: restore that row"):
                await DailyHost.open(games)
            await db.sql("UPDATE kv SET value=? WHERE key='daily_secret'", a.days.secret.hex())
            assert (await DailyHost.open(games)).days.secret == a.days.secret
            # the fault-injection audit: the first keyed day damaged ended the start in a
            # ValueError traceback; one line too now, and restored it starts as before
            kept = a.days.keyed_from.isoformat()
            await db.sql("UPDATE kv SET value='2026-11-2x' WHERE key='daily_keyed_from'")
            with pytest.raises(SecretError, match="daily_keyed_from.*is not a date"):
                await DailyHost.open(games)
            await db.sql("UPDATE kv SET value=? WHERE key='daily_keyed_from'", kept)
            assert (await DailyHost.open(games)).days.keyed_from == a.days.keyed_from
            # a damaged fingerprint is said to be one, not a wrong RR_DAILY_SECRET (unset)
            good = (await db.sql("SELECT value FROM kv WHERE key='daily_secret_fingerprint'"))
            await db.sql("UPDATE kv SET value='zz' WHERE key='daily_secret_fingerprint'")
            with pytest.raises(SecretError, match="fingerprint kept in the database .* is "
                                                  "damaged") as e:
                await DailyHost.open(games)
            assert "RR_DAILY_SECRET" not in str(e.value)
            await db.sql("UPDATE kv SET value=? WHERE key='daily_secret_fingerprint'",
                         good[0][0])
            assert (await DailyHost.open(games)).days.secret == a.days.secret
        finally:
            await store.close()
    asyncio.run(main())


def test_todays_ranked_game_is_keyed_and_its_practice_replays_from_the_published_key(db):
    """Issue 18, frozen clock: the ranked attempt started through the service draws with
    the day key; the next day the published key rebuilds the game a practice of that day
    is dealt (what a player replaying it offline would get)."""
    secret = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"

    async def main() -> None:
        store = await db.open()
        clock = Clock(NOON)
        try:
            h = await DailyHost.open(GameService(store, clock=clock), secret=secret)
            st = await h.attempts.play(1, "Ann", 100, 9001)
            key = daily.day_key(secret.encode(), DAY)
            assert st.game.setup["rng"] == "hmac-ctr" and st.game.setup["key"] == key.hex()
            assert daily.published_key(h.days.secret, DAY, clock()) is None
            clock.now = daily.day_end(DAY) + 60
            published = daily.published_key(h.days.secret, DAY, clock())
            assert published == key.hex()
            practice = await h.attempts.practice(1, "Ann", 100, 9001, day=DAY)
            offline = daily.challenge_from_key(DAY, bytes.fromhex(published)).new_game("Ann")
            for k in ("setup", "monster_deck", "unit_deck", "chips", "row", "rng"):
                assert practice.game.state[k] == offline.state[k], k
        finally:
            await store.close()
    asyncio.run(main())


def test_a_bot_with_another_secret_than_its_database_does_not_start(tmp_path, monkeypatch):
    """Issue 18, through discord.py's real startup (setup_hook) with Discord faked: a
    second bot process on the same database with a different RR_DAILY_SECRET stops with
    the reason instead of dealing different days; with the same secret it starts."""
    db_path = tmp_path / "shared.db"

    async def run(secret: str) -> None:
        monkeypatch.setenv("RR_DAILY_SECRET", secret)
        async with Harness(lambda: make_bot(db_path, Clock(NOON))) as h:
            assert h.bot.daily.days.secret == secret.encode()

    asyncio.run(run("0f1e2d3c4b5a69788796a5b4c3d2e1f0"))
    asyncio.run(run("0f1e2d3c4b5a69788796a5b4c3d2e1f0"))
    with pytest.raises(SecretError, match="every process on one database needs the same"):
        asyncio.run(run("ffeeddccbbaa99887766554433221100"))


def test_the_daily_help_says_plainly_what_no_design_prevents(tmp_path):
    """Issue 18: `/rr rules topic:daily`, in English and in Japanese, says that a second
    Discord account sees the same day, and that the day's key is published only after it."""
    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "h.db", Clock(NOON))) as h:
            en = await h.slash(h.user("ann"), "rr rules", topic="daily")
            ja = await h.slash(h.user("yui", locale="ja"), "rr rules", topic="daily")
            assert "second Discord account has seen the same game" in en.embed["description"]
            assert "published only when the day ends" in en.embed["description"]
            assert "別のDiscordアカウント" in ja.embed["description"]
            assert "その日の終了後にだけ公開" in ja.embed["description"]
    asyncio.run(scenario())


def console(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A real `bot.py --console` process, typed `quit` (bounded)."""
    r = subprocess.run([sys.executable, str(Path(__file__).resolve().parents[1] / "bot.py"),
                        "--console", "--db", str(tmp / "c.db"), "--out", str(tmp / "out"),
                        *args], input="quit\n", capture_output=True, text=True, timeout=90,
                       cwd=tmp)
    assert "Traceback" not in r.stdout + r.stderr, r.stderr
    return r


@pytest.mark.process
def test_the_console_replays_a_past_day_from_its_published_key(tmp_path):
    """Issue 18: with the key the bot published and the day's date, the offline console
    deals that day's very game (key, difficulty, modifiers) — the one the bot dealt."""
    key = daily.day_key(SECRET, DAY)
    r = console(tmp_path, "--daily-key", key.hex(), "--date", DAY.isoformat(), "--names", "Ann")
    assert r.returncode == 0 and "Daily challenge #23 (2026-11-23)" in r.stdout, r.stdout
    mods = daily.challenge_for(SECRET, DAY).modifiers  # one a line: each says "Name: what"
    assert all(f"  • {m.name('en')}\n" in r.stdout for m in mods), r.stdout
    con = sqlite3.connect(tmp_path / "c.db")
    setup, state = con.execute("SELECT setup, state FROM games").fetchone()
    con.close()
    dealt = daily.challenge_for(SECRET, DAY).new_game("Ann")
    assert json.loads(setup) == json.loads(json.dumps(dealt.setup))
    for k in ("monster_deck", "unit_deck", "chips", "row", "mercenaries"):
        assert json.loads(state)[k] == json.loads(dealt.to_json())[k], k


@pytest.mark.parametrize("args, words", [
    (["--daily-key", "abc", "--date", "2026-11-23"], "64 hex digits, not 'abc'"),
    (["--daily-key", "00" * 32], "--daily-key and --date go together"),
    (["--daily-key", "00" * 32, "--date", "2026-13-40"], "--date is the key's day"),
    (["--daily-key", "00" * 32, "--date", "2026-11-23", "--ai", "greedy"], "one player"),
    (["--daily-key", "00" * 32, "--date", "2999-01-01"],
     "the daily challenge of 2999-01-01 has not closed yet: a day's key is published only"),
])
@pytest.mark.process
def test_a_wrong_daily_key_option_is_one_line(tmp_path, args, words):
    """Bad input gets a clear, specific answer in one line, and no game is made."""
    r = console(tmp_path, *args)
    assert r.returncode != 0 and words in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert r.stdout == ""


def test_a_daily_start_announcement_is_rebuilt_from_its_keyed_setup(tmp_path):
    """Issue 18 / R15: the outbox rebuilds a daily game's opening post from the stored
    setup with the setup's own generator — the same round-0 summons and state the player
    was dealt, not a splitmix game of seed 0."""
    async def main() -> None:
        store = await Store(str(tmp_path / "n.db")).open()
        try:
            games = GameService(store, clock=lambda: NOON)
            games.tables.notify = True
            h = await DailyHost.open(games, secret=SECRET.decode())
            started = await h.attempts.play(1, "Ann", None, 9001)
            (start,) = await store.notices()
            again = await rebuild(games.tables, start)
            assert started.game.setup["rng"] == "hmac-ctr"
            assert started.outcome is not None and again is not None
            assert again.events == started.outcome.events
            assert again.game.state == started.game.state
        finally:
            await store.close()
    asyncio.run(main())


@pytest.mark.process
def test_the_engine_cli_replays_a_daily_game_file(tmp_path):
    """R15 / issue 18: `python -m engine replay FILE --check` rebuilds a keyed (daily)
    game with its own generator: exit 0, not a mismatch; a bad key is one refused line."""
    g = play(daily.challenge_for(SECRET, DAY).new_game("Ann"), 3, moves=40)
    (tmp_path / "g.json").write_text(g.to_json())
    env = {"PYTHONPATH": str(Path(__file__).resolve().parents[1]), "PATH": "/usr/bin:/bin"}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "engine", *args], cwd=tmp_path, text=True,
                              capture_output=True, timeout=60, env=env)

    r = cli("replay", "g.json", "--check")
    assert r.returncode == 0, r.stdout + r.stderr
    bad = json.loads(g.to_json())
    bad["setup"]["key"] = "00"
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    r = cli("replay", "bad.json")
    assert r.returncode == 2 and "64 hex digits" in r.stderr and "Traceback" not in r.stderr


def test_days_an_older_release_dealt_are_rebuilt_as_they_were_played(db):
    """Issue 18, upgrade day: a database where players already played today's challenge
    dealt by the older release (splitmix64 from the digest's first 48 bits) keeps today —
    and every earlier day — as it was played, so the day stays one game for everyone and
    its practice shows the day its players got; the keyed generator starts tomorrow. A new
    database (no daily ever played) deals every day keyed, as its published key rebuilds."""
    secret = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
    tomorrow = DAY + dt.timedelta(days=1)

    async def main() -> None:
        store = await db.open()
        try:
            h = await DailyHost.open(GameService(store, clock=Clock(NOON)), secret=secret)
            assert h.days.challenge(DAY - dt.timedelta(days=30)).rng_key is not None  # new: keyed
        finally:
            await store.close()
        await db.sql("DELETE FROM kv WHERE key='daily_keyed_from'")  # as before this release
        store = await db.open()
        try:
            ds = h.store.__class__(store)
            await ds.claim(7, DAY.isoformat(), True, "Old", None)  # played on the old release
            h = await DailyHost.open(GameService(store, clock=Clock(NOON)), secret=secret)
            assert h.days.keyed_from == tomorrow
            key = daily.day_key(secret.encode(), DAY)
            old = h.days.challenge(DAY)
            assert old.legacy_seed == int.from_bytes(key[:6], "big") and old.rng_key is None
            g = old.new_game("Ann")
            assert "rng" not in g.setup and g.setup["seed"] == old.legacy_seed
            st = await h.attempts.play(1, "Ann", 100, 9001)  # today's next player gets the same deal
            assert "rng" not in st.game.setup and st.game.setup["seed"] == old.legacy_seed
            assert st.game.state["monster_deck"] == g.state["monster_deck"]
            new = h.days.challenge(tomorrow)
            assert new.legacy_seed is None and new.rng_key == daily.day_key(secret.encode(),
                                                                            tomorrow)
            again = await DailyHost.open(GameService(store, clock=Clock(NOON + 86400)),
                                         secret=secret)
            assert again.days.keyed_from == tomorrow  # kept, not moved by later starts
        finally:
            await store.close()
    asyncio.run(main())
