"""Schema migrations (store/migrations.py), on both backends: a new database gets every step
once; opening again applies nothing; a later step reaches an existing database without
touching its games; several processes starting at once apply each step exactly once; and an
SQLite file made before migrations existed is taken over as it is."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest

from store import StoreUnavailable, migrations


async def _versions(db) -> list[tuple[int, str]]:
    return [tuple(r) for r in await db.sql("SELECT version, name FROM schema_version"
                                           " ORDER BY version")]


def test_every_step_once_and_reopening_applies_nothing(db):
    async def main():
        store = await db.open()
        row = await store.create_lobby(1, 5, 1, "Ann", {"players": 2})
        await store.close()
        first = await _versions(db)
        assert first == [(s.version, s.name) for s in migrations.STEPS]
        store = await db.open()
        assert (await store.get(row.id)).seats == [{"user": 1, "name": "Ann"}]
        await store.close()
        assert await _versions(db) == first
    asyncio.run(main())


def test_a_new_step_reaches_an_existing_database_once(db, monkeypatch):
    async def main():
        store = await db.open()
        row = await store.create_lobby(1, 5, 1, "Ann", {"players": 2})
        await store.close()
        step = migrations.Step(migrations.LATEST + 1, "a later release adds a column",
                               "ALTER TABLE games ADD COLUMN note TEXT;",
                               "ALTER TABLE games ADD COLUMN note TEXT;")
        monkeypatch.setattr(migrations, "STEPS", (*migrations.STEPS, step))
        for _ in range(2):  # the second open must not add the column again (it would fail)
            store = await db.open()
            assert (await store.get(row.id)).host_id == 1
            await store.close()
        assert (await _versions(db))[-1] == (step.version, step.name)
        assert await db.sql("SELECT note FROM games") == [(None,)]
    asyncio.run(main())


def test_a_database_a_newer_release_wrote_is_refused_and_left_as_it_was(db):
    """The fault-injection audit: a database at schema 99 was opened and written to without
    a word, by a release that knows none of what version 99 keeps. It is refused, naming
    both versions, and nothing is written."""
    async def main():
        store = await db.open()
        await store.create_lobby(1, 5, 1, "Ann", {"players": 2})
        await store.close()
        await db.sql("INSERT INTO schema_version VALUES (99, 'from the future', "
                     + ("0" if db.backend == "sqlite" else "now()") + ")")
        before = await _versions(db)
        with pytest.raises(StoreUnavailable, match=f"version 99.*up to {migrations.LATEST}"):
            await db.open()
        assert await _versions(db) == before
    asyncio.run(main())


def test_a_database_whose_schema_record_is_gone_is_refused_in_words(db):
    """The fault-injection audit: a database with its tables and games but no
    `schema_version` (dropped by hand, or a restore that left it out) read "table leases
    already exists" — a table's name, not what is wrong. It is refused saying the record
    does not match the tables, and the games are left as they were."""
    async def main():
        store = await db.open()
        row = await store.create_lobby(1, 5, 1, "Ann", {"players": 2})
        await store.close()
        await db.sql("DROP TABLE schema_version")
        with pytest.raises(StoreUnavailable, match="schema record does not match its tables"
                           r".*restore the database from a backup"):
            await db.open()
        assert [r[0] for r in await db.sql("SELECT id FROM games")] == [row.id]
    asyncio.run(main())


def test_processes_starting_at_once_apply_each_step_once(db):
    async def main():
        stores = await asyncio.gather(*(db.make().open() for _ in range(6)))
        assert await _versions(db) == [(s.version, s.name) for s in migrations.STEPS]
        rows = await asyncio.gather(*(s.create_lobby(1, 10 + k, 1, "Ann", {})
                                      for k, s in enumerate(stores)))
        assert len({r.id for r in rows}) == 6
        for s in stores:
            await s.close()
    asyncio.run(main())


def test_an_sqlite_file_from_before_migrations_is_taken_over(tmp_path):
    """A database made by the bot before schema_version existed: its tables are there, its
    games play on, and the steps are recorded (the daily and lease tables are added)."""
    path = str(tmp_path / "old.db")
    con = sqlite3.connect(path)
    for stmt in migrations.statements(migrations.STEPS[0].sqlite):
        con.execute(stmt)
    con.execute("INSERT INTO games (channel_id, status, host_id, seats, settings, created_at,"
                " updated_at) VALUES (5, 'lobby', 1, ?, '{}', 0, 0)",
                (json.dumps([{"user": 1, "name": "Ann"}]),))
    con.commit()
    con.close()

    from store import Store

    async def main():
        store = await Store(path).open()
        assert (await store.open_game(5)).seats == [{"user": 1, "name": "Ann"}]
        assert await store.try_lease("timers", "me", 10)
        await store.close()
    asyncio.run(main())
    con = sqlite3.connect(path)
    assert [r[0] for r in con.execute("SELECT version FROM schema_version")] == \
        [s.version for s in migrations.STEPS]
    con.close()


@pytest.mark.parametrize("k", range(len(migrations.STEPS)))
def test_statements_split_whole_statements_only(k):
    """A ';' inside a comment does not cut a statement in two (SQLite runs them one by one
    inside the migration's transaction). Each step runs after the ones before it, as at a
    real upgrade (step 6 reads step 2's tables)."""
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                " applied_at REAL NOT NULL)")  # as migrate_sqlite keeps it (step 14 reads it)
    for step in migrations.STEPS[:k + 1]:
        for stmt in migrations.statements(step.sqlite):
            assert sqlite3.complete_statement(stmt)
            con.execute(stmt)
        con.execute("INSERT INTO schema_version VALUES (?, ?, 0)", (step.version, step.name))
    con.close()
