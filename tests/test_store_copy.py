"""`python -m store.copy SQLITE_PATH postgresql://…` moves a deployment's SQLite database to
PostgreSQL: every game, its log and authors, timers, undelivered notices, applied keys,
quarantine and daily results arrive; the games replay to their stored state there (R15) and
play on; ids continue past the copied ones; a second copy into the same database is refused
and changes nothing."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from service import GameService
from store import Store, daily_store, make_store
from store.copy import main as copy_main

ROOT = Path(__file__).resolve().parents[1]


async def _everything(store) -> dict:
    """What a player (or the bot after a restart) could ever read back, per game."""
    out = {}
    for gid in (1, 2, 3):
        row = await store.get(gid)
        out[gid] = (row.status, row.channel_id, row.seats, row.settings, row.setup, row.state,
                    row.version, row.meta, await store.log(gid), await store.authors(gid),
                    await store.timers(gid), await store.quarantined(gid))
    out["notices"] = [(n.id, n.game_id, n.body) for n in await store.notices()]
    key = await store.applied("i:42")
    out["applied"] = (key.game_id, key.version, key.text)
    daily = daily_store(store)
    out["daily"] = [(a.user_id, a.score) for a in await daily.results("2026-11-23")]
    # issue 18: news not yet told, and a reminder's hour and language, move over too
    out["daily_outbox"] = [(n.kind, n.target, n.channel_id, n.lang)
                           for n in await daily.daily_notices(float("inf"))]
    out["reminder"] = await daily.reminder(7)
    return out


def test_copy_sqlite_into_postgresql_keeps_every_game_playable(tmp_path, pg_url, capsys):
    path = str(tmp_path / "old.db")
    clock = lambda: 1_000_000.0  # noqa: E731

    async def build() -> dict:
        store = await Store(path).open()
        svc = GameService(store, clock=clock, seed_source=lambda: 3)
        svc.tables.notify = True  # moves leave notices in the outbox
        for channel, host, guest in ((100, 11, 22), (200, 33, 44)):
            await svc.lobby.new_lobby(1, channel, host, f"h{host}", players=2, time_limit_s=3600)
            await svc.lobby.join(channel, guest, f"g{guest}")
            await svc.lobby.start(channel, host)
        await svc.play.act(100, 11, "place thief 2B", key="i:42")
        await svc.lobby.new_lobby(1, 300, 55, "lobby host", players=3)  # a lobby, not started
        await store.quarantine(2, {"kind": "test"})
        daily = await daily_store(store).open()
        await daily.claim(7, "2026-11-23", True, "Ann", 1)
        await daily.finish(7, "2026-11-23", True, "finished", {"points": 4}, "share")
        await daily.set_guild_channel(1, 500, "ja")
        await daily.queue_news("2026-11-24", 1.0)
        await daily.set_reminder(7, 900, "ja", 6)
        seen = await _everything(store)
        assert seen["daily_outbox"] == [("news", 1, 500, "ja")]
        assert seen["reminder"] == (900, "ja", 6)
        assert seen["notices"] and seen[1][10] and seen[2][11] and seen["daily"]  # all there
        await store.close()
        return seen

    before = asyncio.run(build())
    proc = subprocess.run([sys.executable, "-m", "store.copy", path, pg_url], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "games 3" in proc.stdout and "actions" in proc.stdout

    async def check() -> None:
        store = await make_store(pg_url).open()
        assert await _everything(store) == before
        svc = GameService(store, clock=clock, seed_source=lambda: 3)
        # R15: the copied game replays from setup + log to its stored state, and plays on
        row, g = await svc.tables.current(100)
        assert len(g.state["log"]) == len(before[1][8])
        out = await svc.play.act(100, 22, "place thief 2B")
        assert out.actor == 1
        # new rows get new ids after the copied ones
        fresh = await svc.lobby.new_lobby(1, 400, 66, "new", players=2)
        assert fresh.id == 4
        await store.close()
    asyncio.run(check())

    # a second copy into a database that holds games is refused, and writes nothing
    capsys.readouterr()
    assert copy_main([path, pg_url]) == 1
    assert "already holds data" in capsys.readouterr().err

    async def unchanged() -> None:
        store = await make_store(pg_url).open()
        assert (await store.get(4)).channel_id == 400 and await store.get(5) is None
        await store.close()
    asyncio.run(unchanged())


def test_copy_explains_bad_arguments_without_a_traceback(tmp_path, capsys):
    assert copy_main([str(tmp_path / "missing.db"), "postgresql://x@127.0.0.1:1/db"]) == 1
    assert "no SQLite database" in capsys.readouterr().err
    assert copy_main([str(tmp_path / "a.db"), str(tmp_path / "b.db")]) == 2
    assert "must be a postgresql:// URL" in capsys.readouterr().err
    assert copy_main([]) == 2
    (tmp_path / "x.db").write_bytes(b"")
    assert copy_main([str(tmp_path / "x.db"), "postgresql://x@127.0.0.1:1/db"]) == 1
    assert "holds no Rook & Raiders games" in capsys.readouterr().err


def test_a_damaged_value_stops_the_copy_naming_its_table_row_and_column(tmp_path, pg_url,
                                                                        capsys):
    """The reliability audit: one value an SQLite number column held as text (a timer's
    deadline, which the bot reads around) stopped the copy with "invalid literal for
    int()" or "could not convert string to float", naming no table or row. The copy still
    writes nothing, and now says where the value is."""
    path = str(tmp_path / "old.db")

    async def build() -> None:
        store = await Store(path).open()
        svc = GameService(store, clock=lambda: 1_000_000.0, seed_source=lambda: 3)
        await svc.lobby.new_lobby(1, 100, 11, "Ann", players=2, time_limit_s=3600)
        await svc.lobby.join(100, 22, "Bob")
        await svc.lobby.start(100, 11)
        await store.close()
    asyncio.run(build())
    import sqlite3
    with sqlite3.connect(path) as con:
        con.execute("UPDATE timers SET deadline='soon' WHERE seat=1")
    assert copy_main([path, pg_url]) == 1
    err = capsys.readouterr().err
    assert "timers row 2" in err and "column deadline" in err and "'soon'" in err, err
    assert "nothing was written" in err

    async def empty() -> None:
        store = await make_store(pg_url).open()
        assert await store.get(1) is None
        await store.close()
    asyncio.run(empty())
