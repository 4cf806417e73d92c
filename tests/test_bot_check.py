"""Issue 20, point 3: `bot.py --check` checks a deployment without Discord.

It runs as the operator would run it — a real `python bot.py --check` process with the
deployment's environment — on an SQLite file and on PostgreSQL. A good configuration
prints one "ready" line and exits 0, with the database's schema made (the migrations
applied); a weak or a different daily secret, shard ids that make no sense and a database
that cannot be reached each give one line saying what is wrong and a non-zero exit code.
Before, `--check` was not an option: `bot.py` went on to log in to Discord.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from service.daily_secret import fingerprint
from store import daily_store, make_store
from store.migrations import LATEST

pytestmark = pytest.mark.slow  # real processes: `bash rr test -m 'not slow'` skips them

ROOT = Path(__file__).resolve().parents[1]
SECRET = secrets.token_hex(32)


def check(**env: str) -> subprocess.CompletedProcess[str]:
    """`bot.py --check` with only these settings (and a PATH), as a unit would run it."""
    full = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "DISCORD_TOKEN": "not-a-token",
            **env}
    return subprocess.run([sys.executable, str(ROOT / "bot.py"), "--check"], env=full,
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)


def one_line(out: subprocess.CompletedProcess[str]) -> str:
    """The check says one thing, on one line (stdout when ready, stderr when not)."""
    said = (out.stdout + out.stderr).strip()
    assert said and "\n" not in said, f"not one line: {said!r}"
    assert "Traceback" not in said
    return said


def stored_fingerprint(db: Any, secret: str) -> None:
    """What the bot's first start with `secret` leaves (service/daily_play.py)."""
    async def main() -> None:
        store = await make_store(db.url).open()
        try:
            await daily_store(store).fingerprint(fingerprint(secret.encode()))
        finally:
            await store.close()
    asyncio.run(main())


def test_a_good_configuration_is_ready_and_the_schema_is_made(db):
    out = check(RR_DB=db.url, RR_DAILY_SECRET=SECRET, RR_SHARD_COUNT="4", RR_SHARD_IDS="2-3")
    said = one_line(out)
    assert out.returncode == 0, said
    assert said.startswith("bot.py --check: ready") and "2,3 of 4" in said, said
    assert SECRET not in said
    # the migrations were applied: a start after the check finds the schema up to date
    assert asyncio.run(db.sql("SELECT max(version) FROM schema_version")) == [(LATEST,)]
    # and it stored nothing of the secret: that is the first start's to do
    assert asyncio.run(db.sql("SELECT count(*) FROM kv")) == [(0,)]
    # with the database's own secret it is still ready
    stored_fingerprint(db, SECRET)
    again = check(RR_DB=db.url, RR_DAILY_SECRET=SECRET)
    assert again.returncode == 0 and "the database's" in one_line(again)


def test_a_weak_daily_secret_is_one_line(db):
    out = check(RR_DB=db.url, RR_DAILY_SECRET="hunter2hunter2")
    said = one_line(out)
    assert out.returncode != 0
    assert "RR_DAILY_SECRET is too weak" in said and "token_hex" in said, said


def test_a_secret_the_database_was_not_started_with_is_one_line(db):
    """Two processes with different secrets would deal one day two different games."""
    stored_fingerprint(db, SECRET)
    out = check(RR_DB=db.url, RR_DAILY_SECRET=secrets.token_hex(32))
    said = one_line(out)
    assert out.returncode != 0
    assert "is not the secret this database's daily challenge was started with" in said, said
    # none at all, while the database's was set by the operator: the same refusal
    out = check(RR_DB=db.url)
    assert out.returncode != 0 and "is not the secret" in one_line(out)


def test_a_damaged_stored_secret_is_one_line(db):
    """The crash audit: an unreadable stored daily secret made `--check` (and a start) end
    in the store's own message. It is one line saying what it is and what to do; restored,
    the bot is ready."""
    key = secrets.token_bytes(32)

    async def store_it() -> None:
        store = await make_store(db.url).open()
        try:
            await daily_store(store).secret(key)
            await daily_store(store).fingerprint(fingerprint(key))
        finally:
            await store.close()
    asyncio.run(store_it())
    asyncio.run(db.sql("UPDATE kv SET value='not hex' WHERE key='daily_secret'"))
    out = check(RR_DB=db.url)
    said = one_line(out)
    assert out.returncode != 0 and "daily secret generated and kept" in said, said
    assert "restore that row" in said
    asyncio.run(db.sql("UPDATE kv SET value=? WHERE key='daily_secret'", key.hex()))
    ready = check(RR_DB=db.url)
    assert ready.returncode == 0, one_line(ready)


def test_a_damaged_first_keyed_day_is_one_line(db):
    """The fault-injection audit: `daily_keyed_from` damaged made a start end in a
    traceback while `--check` said ready. Both now say what it is and what to do."""
    async def store_it() -> None:
        store = await make_store(db.url).open()
        try:
            await daily_store(store).keyed_from("2026-11-28")
        finally:
            await store.close()
    asyncio.run(store_it())
    asyncio.run(db.sql("UPDATE kv SET value='2026-11-2x' WHERE key='daily_keyed_from'"))
    out = check(RR_DB=db.url, RR_DAILY_SECRET=SECRET)
    said = one_line(out)
    assert out.returncode != 0 and "daily_keyed_from) is not a date" in said, said
    asyncio.run(db.sql("UPDATE kv SET value='2026-11-28' WHERE key='daily_keyed_from'"))
    assert check(RR_DB=db.url, RR_DAILY_SECRET=SECRET).returncode == 0


def test_shard_ids_outside_the_count_are_one_line(db):
    out = check(RR_DB=db.url, RR_DAILY_SECRET=SECRET, RR_SHARD_COUNT="2", RR_SHARD_IDS="1,2")
    said = one_line(out)
    assert out.returncode != 0
    assert "RR_SHARD_IDS: '2' is outside 0..1" in said, said


def test_an_unreachable_database_is_one_line_without_its_password(db, tmp_path):
    if db.pg:  # nothing listens on port 1 of the loopback
        url = "postgresql://rr:s3cret-pw@127.0.0.1:1/rookraiders?password=s3cret-pw"
    else:  # a folder that does not exist
        url = str(tmp_path / "no-such-folder" / "rookraiders.db")
    out = check(RR_DB=url, RR_DAILY_SECRET=SECRET)
    said = one_line(out)
    assert out.returncode != 0
    assert "cannot be used" in said, said
    assert "s3cret-pw" not in said


def test_a_missing_token_is_one_line(tmp_path):
    out = check(RR_DB=str(tmp_path / "rr.db"), DISCORD_TOKEN="")
    assert out.returncode != 0 and "DISCORD_TOKEN is not set" in one_line(out)


def test_a_search_path_schema_not_created_yet_is_one_line(pg_url):
    """docs/postgresql.md: `?search_path=rr` needs `CREATE SCHEMA rr` first; the check names
    what PostgreSQL said instead of the bot failing at its first start."""
    url = pg_url.split("?")[0] + "?search_path=not_created_yet"
    out = check(RR_DB=url, RR_DAILY_SECRET=SECRET)
    said = one_line(out)
    assert out.returncode != 0
    assert "no schema has been selected to create in" in said, said
