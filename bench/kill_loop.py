"""`kill -9` at random moments: real console processes, zero lost or doubled actions.

    .venv/bin/python bench/kill_loop.py [--kills 200] [--seed 1] [--dir DIR] [--db URL]

Runs `bot.py --console --db FILE` (a solo game) and plays it through stdin only, with plain
game actions: each line is a random legal action of the waiting player, chosen from the
game as stored (setup + log replayed with the engine). After a random share of the lines,
at a random moment (before, during or after the commit, while images render…) the process
gets SIGKILL; a new one is started on the same file and play goes on (a finished game makes
the next process start a new one). After every action and every kill the store is checked:

- lost: an action the console had answered (any line of output after it, other than a
  refusal `!`) is missing from the log, or the log seen before a kill is no longer its
  prefix after the restart;
- doubled: one line sent added more than one player action to the log;
- consistent: the stored state equals the replay of setup + log (R15).

It prints kills, actions, games and the three counts; exit 1 if anything was lost, doubled
or inconsistent. Only the console's stdin/`--db` and the store's tables are relied on, so it
survives changes to the console's own commands. `tests/test_kill_loop.py` runs it briefly,
on an SQLite file and on PostgreSQL (`--db postgresql://…`: the processes then share that
database, as sharded bot processes do; the tables must be empty or hold only this loop's).
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import Game  # noqa: E402

WAIT_S = 20.0  # the longest an action or a start may take before the run is called stuck
QUIET_S = 5.0  # an answer is over when the console said its `>` line (or this long silence)


@dataclass
class Tally:
    kills: int = 0
    actions: int = 0  # lines sent
    applied: int = 0  # of which landed in the log
    games: set[int] = field(default_factory=set)
    lost: int = 0
    doubled: int = 0
    inconsistent: int = 0
    kill_before_commit: int = 0
    kill_after_commit: int = 0
    kill_at_start: int = 0


def query(db: str, sql: str, *args: Any) -> list[tuple[Any, ...]] | None:
    """Rows of one query on the store's database behind its back (None: no tables yet,
    killed before the schema was made). `?` placeholders on either backend."""
    if not db.startswith(("postgresql://", "postgres://")):
        con = sqlite3.connect(db, timeout=10)
        try:
            return [tuple(r) for r in con.execute(sql, args).fetchall()]
        except sqlite3.OperationalError:
            return None
        finally:
            con.close()
    import asyncio
    import itertools

    import asyncpg

    k = itertools.count(1)
    sql = "".join(f"${next(k)}" if c == "?" else c for c in sql)

    async def fetch() -> list[tuple[Any, ...]] | None:
        con = await asyncpg.connect(db)
        try:
            return [tuple(r) for r in await con.fetch(sql, *args)]
        except asyncpg.UndefinedTableError:
            return None
        finally:
            await con.close()
    return asyncio.run(fetch())


def stored(db: str) -> tuple[int, dict[str, Any], str, list[tuple[int, int | None, str]]] | None:
    """The console's game as the store holds it: id, setup, state, log (seat, user, text)."""
    import json

    rows = query(db, "SELECT id, setup, state FROM games WHERE status IN "
                 "('active','over') ORDER BY id DESC LIMIT 1")
    if not rows or rows[0][1] is None:
        return None
    row = rows[0]
    log = query(db, "SELECT seat, user_id, text FROM actions WHERE game_id=? ORDER BY seq",
                row[0]) or []
    return row[0], json.loads(row[1]), row[2], [(s, u, t) for s, u, t in log]


class Console:
    """One `bot.py --console` process; its stdout read on a thread into a queue."""

    def __init__(self, db: str, workdir: str) -> None:
        # run in the work folder: whatever the console writes besides the database (its
        # images) lands there
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "bot.py"), "--console", "--db", db],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, bufsize=1, cwd=workdir)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def drain(self) -> list[str]:
        got = []
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return got
            if line is not None:
                got.append(line)

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=WAIT_S)
        self.reader.join(timeout=WAIT_S)
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()  # type: ignore[union-attr]
            except OSError:
                pass

    def quit(self) -> None:
        try:
            self.send("quit")
            self.proc.wait(timeout=WAIT_S)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()


def done_line(line: str) -> bool:
    """The console's last words about an answer: what it waits for next, or the end."""
    return line.startswith(">") or "Game over" in line


def check(db: str, tally: Tally, seen: list[Any] | None, game_id: int | None) -> None:
    """After a restart: the log seen before is still its prefix; state == replay."""
    now = stored(db)
    if now is None:
        return
    gid, setup, state, log = now
    if game_id is not None and gid != game_id:
        status = (query(db, "SELECT status FROM games WHERE id=?", game_id) or [("?",)])[0][0]
        if status != "over":
            tally.lost += 1
            print(f"LOST: game {game_id} was left {status} and a new one started",
                  file=sys.stderr)
    if seen is not None and gid == game_id and log[:len(seen)] != seen:
        tally.lost += 1
        print(f"LOST: game {gid} log before the kill is not a prefix of the log after",
              file=sys.stderr)
    if Game.replay(setup, [[s, t] for s, _, t in log]).to_json() != state:
        tally.inconsistent += 1
        print(f"INCONSISTENT: game {gid} state differs from its replayed log", file=sys.stderr)


def start(db: str, workdir: str, rng: random.Random, tally: Tally) -> Console:
    """A new process, once it has a game in the store and has said what it waits for;
    sometimes killed while it starts (opening the store, creating and starting a game)."""
    for _ in range(5):
        con = Console(db, workdir)
        if rng.random() < 0.1:
            time.sleep(rng.uniform(0.0, 1.5))
            con.kill()
            tally.kills += 1
            tally.kill_at_start += 1
            continue
        end = time.monotonic() + WAIT_S
        while time.monotonic() < end and con.proc.poll() is None:
            if any(done_line(line) for line in con.drain()) and stored(db) is not None:
                return con
            time.sleep(0.01)
        con.kill()
    raise RuntimeError("the console did not start")


def players(log: list[Any]) -> int:
    return sum(1 for _, user, _ in log if user is not None)


def run(kills: int, seed: int, workdir: str, kill_share: float = 0.35,
        db: str | None = None) -> Tally:
    """`db`: a PostgreSQL URL; default an SQLite file in `workdir`."""
    rng = random.Random(seed)
    tally = Tally()
    db = db or os.path.join(workdir, "kill.db")
    con: Console | None = None
    seen: list[Any] | None = None
    game_id: int | None = None
    try:
        while tally.kills < kills:
            if con is None:
                check(db, tally, seen, game_id)
                con = start(db, workdir, rng, tally)
            now = stored(db)
            assert now is not None
            gid, _setup, state, log = now
            game_id, seen = gid, log
            tally.games.add(gid)
            g = Game.from_json(state)
            if g.over:  # the next process starts a new game
                con.quit()
                con = None
                continue
            action = str(rng.choice(g.legal_actions(g.waiting_for()[0])))
            before = players(log)
            con.drain()
            con.send(action)
            tally.actions += 1
            killing = rng.random() < kill_share
            # the moment: often within the few milliseconds around the commit, else later
            # (while the console narrates and draws the phase images)
            moment = rng.choice((0.003, 0.015, 0.05, 0.4)) * rng.random()
            deadline = time.monotonic() + (moment if killing else WAIT_S)
            said: list[str] = []
            quiet = time.monotonic()
            while time.monotonic() < deadline:
                new = con.drain()
                said += new
                quiet = time.monotonic() if new else quiet
                if not killing and any(done_line(x) or x.startswith("!") for x in said):
                    break
                # should the console's wording ever change: committed, then silent for long
                # enough that no phase image can still be drawing
                if not killing and said and time.monotonic() - quiet > QUIET_S and \
                        players(stored(db)[3]) > before:  # type: ignore[index]
                    break
                time.sleep(0.002)
            else:
                if not killing:
                    raise RuntimeError(f"no answer to {action!r} in {WAIT_S} s")
            if killing:
                con.kill()
                said += con.drain()
                con = None
                tally.kills += 1
            after = stored(db)
            assert after is not None
            landed = players(after[3]) - before if after[0] == gid else 0
            answered = any(x and not x.startswith("!") for x in said)
            if landed > 1:
                tally.doubled += 1
                print(f"DOUBLED: {action!r} added {landed} player actions", file=sys.stderr)
            if answered and landed < 1:
                tally.lost += 1
                print(f"LOST: {action!r} was answered but is not in the log; it said {said!r}; "
                      f"killing={killing} game {gid}->{after[0]} players {before}->"
                      f"{players(after[3])} tail {after[3][-3:]}", file=sys.stderr)
            tally.applied += max(0, landed)
            if killing:
                tally.kill_after_commit += landed > 0
                tally.kill_before_commit += landed <= 0
                seen = after[3] if after[0] == gid else seen
    finally:
        if con is not None:
            con.kill()
    check(db, tally, seen, game_id)
    return tally


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dir", help="work folder (default: a temporary one)")
    ap.add_argument("--db", help="a postgresql:// URL (default: an SQLite file in the folder)")
    args = ap.parse_args(argv)
    start = time.monotonic()
    if args.dir:
        Path(args.dir).mkdir(parents=True, exist_ok=True)
        tally = run(args.kills, args.seed, args.dir, db=args.db)
    else:
        with tempfile.TemporaryDirectory() as d:
            tally = run(args.kills, args.seed, d, db=args.db)
    print(f"kills {tally.kills} (before the commit {tally.kill_before_commit}, after it "
          f"{tally.kill_after_commit}, while starting {tally.kill_at_start}), actions sent {tally.actions}, applied "
          f"{tally.applied}, games {len(tally.games)}, {time.monotonic() - start:.0f} s")
    print(f"lost {tally.lost}, doubled {tally.doubled}, inconsistent {tally.inconsistent}")
    return 1 if tally.lost or tally.doubled or tally.inconsistent else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
