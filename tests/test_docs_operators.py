"""Issue 20, point 2: the operators' docs work as written.

- docs/postgresql.md, "Setting it up" and "Moving an SQLite bot over": their commands are
  run as written, one after another, on a throwaway PostgreSQL server set up the way
  Debian's package sets one up (the `postgres` system user is the only superuser and logs
  in by peer over the socket; other users log in with a password over TCP), as root, on
  this Debian image, which has no sudo. The only lines not run are the package install (the
  server is installed already), starting Debian's own cluster (the throwaway server stands
  in for it) and starting the bot (it would go to Discord; `bot.py --check` right before it
  is run). Before, the block used `sudo` (not on Debian images), named `?search_path=rr`
  without creating the schema, and the copy ran without the project's folder and venv.
- docs/deploy.md, "What to monitor": every query runs on a real PostgreSQL database made by
  the bot's migrations, and the announcements alarm counts a notice untold for 15 minutes
  and not a fresh one (`created_at` holds epoch seconds: before, the row gave a count and a
  raw number to compare by hand).
"""

from __future__ import annotations

import asyncio
import glob
import os
import re
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from store import make_store

pytestmark = pytest.mark.slow  # real processes: `bash rr test -m 'not slow'` skips them

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
NOT_RUN = ("apt-get ", "pg_ctlcluster ", "DISCORD_TOKEN=… bash rr run")


def _bindir() -> str | None:
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return os.path.dirname(dirs[-1]) if dirs else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class DebianLike:
    """A server initialised as Debian's postgresql package does (superuser `postgres`, peer
    on the socket, scram-sha-256 over TCP), on loopback and a socket folder of its own."""

    def __init__(self) -> None:
        bindir = _bindir()
        if bindir is None:
            pytest.skip("no PostgreSQL server installed (/usr/lib/postgresql/*/bin)")
        if os.geteuid() != 0 or shutil.which("runuser") is None:
            pytest.skip("the documented commands are run as root (runuser -u postgres)")
        try:
            import pwd

            pw = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("no 'postgres' system user (Debian's package makes it)")
        self.bindir, self.port = bindir, _free_port()
        self.top = tempfile.mkdtemp(prefix="rr-docs-pg-")
        os.chown(self.top, pw.pw_uid, pw.pw_gid)
        self.data = os.path.join(self.top, "data")
        as_postgres = ["runuser", "-u", "postgres", "--"]
        subprocess.run([*as_postgres, f"{bindir}/initdb", "-D", self.data, "-U", "postgres",
                        "--auth-local=peer", "--auth-host=scram-sha-256", "-E", "UTF8",
                        "--no-sync", "--no-instructions"],
                       capture_output=True, timeout=120, check=True)
        subprocess.run([*as_postgres, f"{bindir}/pg_ctl", "-D", self.data, "-o",
                        f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.top} "
                        "-c fsync=off", "-l", os.path.join(self.top, "log"), "-w", "-t", "60",
                        "start"], capture_output=True, timeout=90, check=True)

    def stop(self) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", f"{self.bindir}/pg_ctl", "-D",
                        self.data, "-m", "fast", "-w", "-t", "30", "stop"],
                       capture_output=True, timeout=60, check=False)
        shutil.rmtree(self.top, ignore_errors=True)


@pytest.fixture
def debian_pg() -> Iterator[DebianLike]:
    server = DebianLike()
    try:
        yield server
    finally:
        server.stop()


def bash_block(doc: Path, section: str) -> list[str]:
    """The command lines of the first ```bash block under the heading `section`."""
    text = doc.read_text(encoding="utf-8")
    body = text[text.index(f"## {section}"):]
    block = re.search(r"```bash\n(.*?)```", body, re.S)
    assert block is not None, f"no bash block under {section!r} in {doc.name}"
    return [ln for ln in block.group(1).splitlines()
            if ln.strip() and not ln.lstrip().startswith("#")]


def run_as_written(lines: list[str], server: DebianLike, password: str, sqlite: str
                   ) -> subprocess.CompletedProcess[str]:
    """The lines, as root in one bash with `set -e`, pointed at the throwaway server: its
    port for the documented host, its socket folder for the tools' own default."""
    script = []
    for line in lines:
        if line.startswith(NOT_RUN):
            continue
        line = (line.replace("db.example:5432", f"127.0.0.1:{server.port}")
                .replace("PASSWORD", password).replace("/srv/rookraiders", str(ROOT))
                .replace("DISCORD_TOKEN=…", "DISCORD_TOKEN=not-a-token")
                .replace(" rookraiders.db ", f" {sqlite} "))
        script.append(line)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PGHOST": server.top,
           "PGPORT": str(server.port), "HOME": server.top}
    # no terminal: createuser --pwprompt reads the password (and its repetition) from stdin
    return subprocess.run(["bash", "-ec", "\n".join(script)], input=f"{password}\n" * 2,
                          env=env, cwd=server.top, capture_output=True, text=True,
                          timeout=300, check=False, start_new_session=True)


def test_postgresql_setup_and_copy_run_as_written(debian_pg, tmp_path):
    password = secrets.token_hex(8)
    sqlite = str(tmp_path / "rookraiders.db")

    async def an_sqlite_bot() -> None:  # the bot being moved over: one game in a lobby
        store = await make_store(sqlite).open()
        await store.create_lobby(1, 1, 1, "Ann", {"players": 1})
        await store.close()
    asyncio.run(an_sqlite_bot())
    lines = (bash_block(DOCS / "postgresql.md", "Setting it up")
             + bash_block(DOCS / "postgresql.md", "Moving an SQLite bot over"))
    assert not any(ln.startswith("sudo") for ln in lines), "Debian images have no sudo"
    out = run_as_written(lines, debian_pg, password, sqlite)
    said = out.stdout + out.stderr
    assert out.returncode == 0, said
    assert "bot.py --check: ready" in said, said
    assert "copied: games 1" in said, said

    async def where() -> Any:  # the tables are in schema rr, owned by rr
        con = await asyncpg.connect(f"postgresql://rr:{password}@127.0.0.1:{debian_pg.port}"
                                    "/rookraiders")
        try:
            return await con.fetchval("SELECT count(*) FROM pg_tables WHERE schemaname='rr'"
                                      " AND tablename='games' AND tableowner='rr'")
        finally:
            await con.close()
    assert asyncio.run(where()) == 1


def monitor_queries() -> dict[str, str]:
    """docs/deploy.md's "What to monitor" table: what is watched → its SQL."""
    text = (DOCS / "deploy.md").read_text(encoding="utf-8")
    table = text[text.index("## What to monitor"):]
    found = {}
    for row in table.splitlines():
        cells = [c.strip() for c in row.strip("|").split("|")]
        sql = re.search(r"`(SELECT [^`]+)`", cells[1]) if len(cells) > 2 else None
        if sql:
            found[cells[0]] = sql.group(1)
    return found


def test_every_monitoring_query_runs_and_the_outbox_alarm_compares_epoch_seconds(pg_url):
    queries = monitor_queries()
    assert {"the day job has a holder", "time limits applied", "AI seats answering",
            "announcements delivered", "games set aside"} <= set(queries)

    async def main() -> dict[str, list[Any]]:
        store = await make_store(pg_url).open()  # the bot's own schema (migrations)
        await store.close()
        con = await asyncpg.connect(pg_url)
        try:
            now = time.time()
            game = await con.fetchval(
                "INSERT INTO games (guild_id, channel_id, status, host_id, seats, settings,"
                " created_at, updated_at) VALUES (1, 1, 'active', 1, '[]', '{}', $1, $1)"
                " RETURNING id", now)
            for age in (20 * 60, 60):  # one notice untold for 20 minutes, one for a minute
                await con.execute(
                    "INSERT INTO outbox (game_id, version, body, not_before, created_at)"
                    " VALUES ($1, 1, '{}', $2, $2)", game, now - age)
            await con.execute("INSERT INTO timers (game_id, seat, decision_id, deadline,"
                              " remind_at) VALUES ($1, 0, 1, $2, $2)", game, now - 600)
            return {what: [tuple(r) for r in await con.fetch(sql)]
                    for what, sql in queries.items()}
        finally:
            await con.close()

    got = asyncio.run(main())
    assert got["announcements delivered"] == [(1,)], got  # only the one 20 minutes old
    assert got["time limits applied"] == [(1,)], got
    assert got["AI seats answering"] == [(1,)], got
    assert got["the day job has a holder"] == [(0,)], got  # no process holds it: alarm
    assert got["games set aside"] == [(0,)], got
