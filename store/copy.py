"""Copy an SQLite database into PostgreSQL: the way a deployment that outgrew one process
moves its games, logs, timers, undelivered notices and daily challenge (with its news and
reminders not yet told) over.

    python -m store.copy SQLITE_PATH postgresql://user@host/db

Stop the bot first (a copy is a snapshot). The target gets the schema by the same migrations
the bot runs, must hold no games or daily data yet (a copy never merges), and is written in
one transaction: a failure leaves it empty. Ids are kept (a game's id is in its notices and
daily attempts), identity counters move past them, and every table's row count is checked
afterwards. Leases are not copied: they belong to running processes.

The SQLite file is only read, so data migrations it has not had yet (`schema_version`) are
applied to the copied rows in the same transaction: games stored before card set versions
arrive in PostgreSQL with theirs (issue 17), as the bot would have given them in SQLite, and
a game that ended after ratings existed but was never settled is claimed (step 14).
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .contract import StoreBusy, StoreUncertain
from .migrations import CLAIM_UNSETTLED_SINCE, STEPS, data_postgresql

TABLES = ("games", "actions", "timers", "applied", "outbox", "quarantine", "set_aside", "kv",
          "daily_attempts", "daily_members", "daily_days", "daily_guilds", "daily_reminders",
          "daily_outbox", "tutorial_progress", "finished_games", "finished_seats", "ratings", "rating_changes",
          "stats_hidden", "stats_servers", "unsettled_games", "game_reviews")
IDENTITY = (("games", "id"), ("outbox", "id"), ("set_aside", "id"), ("daily_outbox", "id"))
CHUNK = 5000


class CopyError(Exception):
    """A copy refused or failed, in words for the person running it."""


@dataclass
class Report:
    rows: dict[str, int] = field(default_factory=dict)

    def __str__(self) -> str:
        return ", ".join(f"{t} {n}" for t, n in self.rows.items() if n) or "nothing to copy"


def _coerce(kind: str, value: Any) -> Any:
    if value is None:
        return None
    if kind in ("bigint", "integer"):
        return int(value)
    if kind == "double precision":
        return float(value)
    return value if isinstance(value, str) else str(value)


async def copy(sqlite_path: str, url: str) -> Report:
    import asyncpg

    from .pg import PgStore

    if not Path(sqlite_path).is_file():
        raise CopyError(f"no SQLite database at {sqlite_path}")
    try:
        src = sqlite3.connect(f"file:{Path(sqlite_path).resolve()}?mode=ro", uri=True)
        src.execute("BEGIN")  # one snapshot of every table
        have = {r[0] for r in src.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        applied = ({r[0] for r in src.execute("SELECT version FROM schema_version")}
                   if "schema_version" in have else set())  # the steps the file has had
    except sqlite3.Error as e:
        raise CopyError(f"cannot read {sqlite_path}: {e}") from None
    if "games" not in have:
        raise CopyError(f"{sqlite_path} holds no Rook & Raiders games")
    try:
        target = await PgStore(url).open()  # the schema, by the bot's own migrations
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, ValueError) as e:
        src.close()
        raise CopyError(f"cannot open {url}: {e}") from None
    report = Report()
    try:
        await target.run_write(_into, src, url, have, applied, report)
    except (sqlite3.Error, asyncpg.PostgresError, StoreBusy, StoreUncertain, ValueError,
            TypeError) as e:
        raise CopyError(f"copy failed, nothing was written: {e}") from None
    finally:
        src.close()
        await target.close()
    return report


async def _into(con: Any, src: sqlite3.Connection, url: str, have: set[str], applied: set[int],
                report: Report) -> None:
    """Everything a copy writes, inside its one transaction: the rows, the data steps the
    file has not had, the identity counters, the row counts checked, step 14's claims."""
    for table in ("games", "daily_attempts", "kv"):
        if await con.fetchval(f"SELECT EXISTS (SELECT 1 FROM {table})"):
            raise CopyError(f"{url} already holds data ({table}); copy only into an "
                            "empty database")
    for table in TABLES:
        report.rows[table] = await _table(src, con, table) if table in have else 0
    for step in STEPS:
        if step.data is not None and step.version not in applied:
            await data_postgresql(con, step.data)
    for table, column in IDENTITY:
        await con.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'),"
            f" COALESCE((SELECT MAX({column}) FROM {table}), 0) + 1, false)")
    for table, n in report.rows.items():
        got = await con.fetchval(f"SELECT COUNT(*) FROM {table}")
        if got != n:
            raise CopyError(f"{table}: {n} rows read but {got} in the target")
    if 12 in applied and 14 not in applied:  # ended once rated, never settled
        (since,) = src.execute(
            "SELECT applied_at FROM schema_version WHERE version=12").fetchone()
        await con.execute(CLAIM_UNSETTLED_SINCE, float(since))


async def _table(src: sqlite3.Connection, con: Any, table: str) -> int:
    kinds = {r["column_name"]: r["data_type"] for r in await con.fetch(
        "SELECT column_name, data_type FROM information_schema.columns"
        " WHERE table_name=$1 AND table_schema=current_schema()", table)}
    columns = [r[1] for r in src.execute(f"PRAGMA table_info({table})") if r[1] in kinds]
    cur = src.execute(f"SELECT {', '.join(columns)} FROM {table}")
    n = 0
    while rows := cur.fetchmany(CHUNK):
        await con.copy_records_to_table(
            table, columns=columns,
            records=[tuple(_value(table, n + k, kinds[c], c, v)
                           for c, v in zip(columns, r, strict=True))
                     for k, r in enumerate(rows)])
        n += len(rows)
    return n


def _value(table: str, k: int, kind: str, column: str, value: Any) -> Any:
    """One value as the target column takes it; one that cannot be (a damaged row: text in
    an SQLite number column) stops the copy naming where it is, so the operator can repair
    that row (it said only "invalid literal for int()", with no table or row)."""
    try:
        return _coerce(kind, value)
    except (ValueError, TypeError, OverflowError):
        raise CopyError(f"copy failed, nothing was written: {table} row {k + 1} (in the "
                        f"file's order), column {column}, holds {str(value)[:60]!r}, which is "
                        f"not a {kind}; repair or delete that row in the SQLite file (the bot "
                        f"reads around it there) and copy again") from None


def main(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if len(argv) != 2:
        print("usage: python -m store.copy SQLITE_PATH postgresql://user@host/db",
              file=sys.stderr)
        return 2
    from . import is_postgres

    if not is_postgres(argv[1]):
        print(f"the target must be a postgresql:// URL, not {argv[1]!r}", file=sys.stderr)
        return 2
    try:
        report = asyncio.run(copy(argv[0], argv[1]))
    except CopyError as e:
        print(str(e), file=sys.stderr)
        return 1
    print(f"copied: {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
