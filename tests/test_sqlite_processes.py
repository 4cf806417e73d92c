"""Issue 20, point 1: several bot processes on one SQLite file.

Before, a write waited 0.5 s for the file's write lock and was then refused ("The game's
database is busy"), however busy the other processes merely were: four or more processes
writing at once got refusals (bench/sqlite_procs.py on main: 6 of 3,000 answers at six
processes). Now a write waits while the other processes' commits keep landing (they take
turns with the lock), and only a holder that commits nothing — another program's open
transaction — still gets a write refused after `BUSY_S`.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from store import Store, StoreBusy

pytestmark = pytest.mark.slow  # real processes: `bash rr test -m 'not slow'` skips them

ROOT = Path(__file__).resolve().parents[1]
HOLD_S = 0.2  # each other writer's turn with the lock


async def _game(store: Store) -> int:
    row = await store.create_lobby(1, 7000, 1, "Ann", {"players": 1})
    await store.start(row.id, row.seats, {"seed": 1}, json.dumps({"v": 0}))
    return row.id


def _writers_in_turn(path: str, turns: int, holding: threading.Event) -> None:
    """Other processes' writes, one after another: each holds the lock for HOLD_S, commits,
    and the next takes it at once (as busy shards do)."""
    cons = [sqlite3.connect(path, isolation_level=None, timeout=5) for _ in range(turns)]
    try:
        for k, con in enumerate(cons):
            if k:
                cons[k - 1].execute("COMMIT")  # hand over: the next one takes it at once
            con.execute("BEGIN IMMEDIATE")
            holding.set()
            time.sleep(HOLD_S)
            con.execute("UPDATE kv SET value=? WHERE key='other'", (str(k),))
        cons[-1].execute("COMMIT")
    finally:
        for con in cons:
            con.close()


def test_a_write_queued_behind_other_processes_commits_lands_instead_of_busy(tmp_path):
    """Three other writers take the lock in turn for 0.6 s in all — longer than the 0.5 s a
    write used to wait. The move waits its turn and lands (before: StoreBusy, "the game's
    database is busy", though nothing was stuck)."""
    path = str(tmp_path / "shared.db")

    async def main() -> tuple[int, float]:
        store = await Store(path).open()
        gid = await _game(store)
        await store.run_write(lambda con: con.execute(
            "INSERT INTO kv (key, value) VALUES ('other', '')"))
        holding = threading.Event()
        others = threading.Thread(target=_writers_in_turn, args=(path, 3, holding))
        others.start()
        try:
            assert holding.wait(5)
            t = time.perf_counter()
            done = await store.commit_actions(gid, 0, [(0, 1, "my move")], "{}", "active", [])
            waited = time.perf_counter() - t
        finally:
            others.join(10)
        assert await store.log(gid) == [[0, "my move"]]
        await store.close()
        return done.row.version, waited

    version, waited = asyncio.run(main())
    assert version == 1
    assert waited >= 2.5 * HOLD_S, f"the move did not wait for the others ({waited:.2f} s)"


def test_a_holder_that_commits_nothing_still_gets_a_quick_busy_answer(tmp_path):
    """The other side of the same rule: another program's transaction left open (nothing
    commits) is not contention; the write is refused after BUSY_S, not after the 10 s a
    queue of busy processes may take, and nothing is written."""
    path = str(tmp_path / "shared.db")

    async def main() -> float:
        store = await Store(path).open()
        gid = await _game(store)
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        t = time.perf_counter()
        try:
            with pytest.raises(StoreBusy):
                await store.commit_actions(gid, 0, [(0, 1, "blocked")], "{}", "active", [])
            took = time.perf_counter() - t
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert await store.log(gid) == []
        await store.close()
        return took

    assert asyncio.run(main()) < 2.0


def test_four_processes_answering_back_to_back_get_no_busy_refusal(tmp_path):
    """The measurement of issue 20 as a check: four real processes on one SQLite file, each
    answering its games back to back (far denser writes than bots make), 0 refused. On
    main this refused a few answers in most runs at 4–6 processes, not all: the test above
    is the one that fails there every time."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "sqlite_procs.py"), "--procs", "4", "--moves",
         "150", "--games", "3", "--db", str(tmp_path / "procs.db")],
        capture_output=True, text=True, timeout=300, check=False)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("@@")]
    assert lines, out.stderr[-2000:]
    res = json.loads(lines[-1][2:])
    assert (res["answers"], res["busy"]) == (600, 0), out.stdout
    assert out.returncode == 0
