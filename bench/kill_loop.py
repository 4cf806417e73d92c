"""`kill -9` at random moments: real processes, zero lost or doubled actions.

    .venv/bin/python bench/kill_loop.py [--mode console|ai|daily] [--kills 200] [--seed 1]
        [--max-seconds 3600] [--dir DIR] [--db URL] [--ai LEVEL…]

**console** (the default). Runs `bot.py --console --db FILE` (a solo game) and plays it
through stdin only, with plain game actions: each line is a random legal action of the
waiting player, chosen from the game as stored (setup + log replayed with the engine). After
a random share of the lines, at a random moment (before, during or after the commit, while
images render…) the process gets SIGKILL; a new one is started on the same file and play
goes on (a finished game makes the next process start a new one). After every action and
every kill the store is checked:

- lost: an action the console had answered (any line of output after it, other than a
  refusal `!`) is missing from the log, or the log seen before a kill is no longer its
  prefix after the restart;
- doubled: one line sent added more than one player action to the log;
- consistent: the stored state equals the replay of setup + log (R15).

**ai**: the same with AI seats (`--ai greedy random`: the person plays seat 0, the AIs
answer after each of the person's lines and when a console resumes), so a kill also lands
while the AIs' answers are being thought out and committed (counted apart: after the
person's commit, with AI seats still asked). On top of the three counts: no AI seat's
question answered twice (the log replayed step by step, by the engine's decision ids), and
never stuck — an idle console (it said what it waits for) with an AI seat still asked
means the AIs did not resume.

**daily**: real bot processes (tests/daily_worker.py: a `RookBot` behind the harness's
fake Discord, as the sharding tests run them) on one database, four players running
`/rr daily play` from a server, answering in their DMs and `/rr daily resign` (two of
them resign after a few answers, two play to the end); a day is over when each player's
ranked attempt is, and the processes' clock moves to the next. Kills land while a process
starts, during a start (before any write, between the claim, the lobby, its settings, the
game and the attempt's link to it, or after it all), an answer (before/after its commit)
and a resign (game closed, attempt scored). After each restart (once the new process has
done its startup work) and after each command answered, every player's every day is
checked in the store:

- doubled: a second ranked game of one player and day, a second start told, one answer
  adding two lines;
- inconsistent: the attempt disagrees with its game (playing ↔ its game active with the
  day's settings; finished ↔ scored, its game over or resigned; unfinished ↔ neither), a
  game without its daily settings or attempt, a state that is not its replayed log;
- lost: what a player was told ("started", "goes on", an answer accepted, "you gave up")
  is no longer so in the store.

Each mode prints its kills (by where they landed), what was sent, acknowledged and applied,
and the counts; exit 1 if anything was lost, doubled, inconsistent or stuck. Only the
processes' stdin/`--db` and the store's tables are relied on, so it survives changes to the
console's own commands. `tests/test_kill_loop.py` runs each mode briefly, the console on an
SQLite file and on PostgreSQL (`--db postgresql://…`: the processes then share that
database, as sharded bot processes do; the tables must be empty or hold only this loop's),
the daily mode on both.
"""

from __future__ import annotations

import argparse
import contextlib
import json
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

import i18n  # noqa: E402
from engine import Game  # noqa: E402
from service import daily  # noqa: E402
from service.daily_slots import slot  # noqa: E402

WAIT_S = 20.0  # the longest an action or a start may take before the run is called stuck
QUIET_S = 5.0  # an answer is over when the console said its `>` line (or this long silence)


@dataclass
class Tally:
    kills: int = 0
    actions: int = 0  # lines sent
    acknowledged: int = 0  # of which the console answered (other than a refusal) before a kill
    applied: int = 0  # of which landed in the log
    games: set[int] = field(default_factory=set)
    lost: int = 0
    doubled: int = 0
    inconsistent: int = 0
    kill_before_commit: int = 0
    kill_after_commit: int = 0
    kill_at_start: int = 0
    # with AI seats
    kill_during_ai: int = 0  # after the person's line was committed, before the AIs' were
    ai_answers: int = 0  # the AI seats' log lines at the end (their answers, automatic ones)
    ai_doubled: int = 0  # an AI seat's question answered twice (`ai_doubled`)
    stuck: int = 0  # the console idle while an AI seat is asked (the AIs did not resume)

    @property
    def bad(self) -> bool:
        return bool(self.lost or self.doubled or self.inconsistent or self.ai_doubled
                    or self.stuck)


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


@dataclass(frozen=True)
class Stored:
    """The console's game as the store holds it."""

    id: int
    setup: dict[str, Any]
    state: str
    log: list[tuple[int, int | None, str]]  # (seat, user, text); AI and automatic: no user
    ai_seats: frozenset[int]  # the seats an AI plays (service/seats.py: "ai" in the seat)


def stored(db: str) -> Stored | None:
    rows = query(db, "SELECT id, setup, state, seats FROM games WHERE status IN "
                 "('active','over') ORDER BY id DESC LIMIT 1")
    if not rows or rows[0][1] is None:
        return None
    gid, setup, state, seats = rows[0]
    log = query(db, "SELECT seat, user_id, text FROM actions WHERE game_id=? ORDER BY seq",
                gid) or []
    ai_seats = frozenset(k for k, seat in enumerate(json.loads(seats)) if seat.get("ai"))
    return Stored(gid, json.loads(setup), state, [(s, u, t) for s, u, t in log], ai_seats)


class Console:
    """One `bot.py --console` process; its stdout read on a thread into a queue."""

    def __init__(self, db: str, workdir: str, ai: list[str] | None = None) -> None:
        # run in the work folder: whatever the console writes besides the database (its
        # images) lands there; `ai`: the levels of the AI seats beside the one person
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "bot.py"), "--console", "--db", db,
             *(["--ai", *ai] if ai else [])],
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
        got: list[str] = []
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
    """The console's last words about an answer: what it waits for next, the end, or that
    nobody (no person) is asked anything — with AI seats, a game stuck on them."""
    return line.startswith(">") or "Game over" in line or line.strip() == NOBODY


NOBODY = i18n.t("en", "console.nobody")


def check(db: str, tally: Tally, seen: list[Any] | None, game_id: int | None) -> None:
    """After a restart: the log seen before is still its prefix; state == replay."""
    now = stored(db)
    if now is None:
        return
    gid, setup, state, log = now.id, now.setup, now.state, now.log
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
    if now.ai_seats and (doubled := ai_doubled(now)):
        tally.ai_doubled += doubled
        print(f"DOUBLED: game {gid}: {doubled} AI question(s) answered twice", file=sys.stderr)


def ai_doubled(now: Stored) -> int:
    """AI seats' questions answered more than once in the log, replayed step by step: each
    AI answer (no user) must answer a question of its seat (by the engine's decision id)
    that no earlier line answered."""
    g = Game.replay(now.setup, [])
    answered: set[tuple[int, int | None]] = set()
    doubled = 0
    for seat, user, text in now.log:
        if seat in now.ai_seats and user is None:
            key = (seat, g.decision_id(seat))
            doubled += key in answered or key[1] is None
            answered.add(key)
        g.apply(seat, text)
    return doubled


def start(db: str, workdir: str, rng: random.Random, tally: Tally,
          ai: list[str] | None = None) -> Console:
    """A new process, once it has a game in the store and has said what it waits for;
    sometimes killed while it starts (opening the store, creating and starting a game, the
    AI seats answering what the last process left unanswered)."""
    for _ in range(5):
        con = Console(db, workdir, ai)
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
    """The person's answers in a log (an AI's or an automatic answer has no user)."""
    return sum(1 for _, user, _ in log if user is not None)


def ai_asked(now: Stored, g: Game) -> bool:
    return not g.over and any(s in now.ai_seats for s in g.waiting_for())


def run(kills: int, seed: int, workdir: str, kill_share: float = 0.35,
        db: str | None = None, ai: list[str] | None = None,
        max_seconds: float = 3600.0) -> Tally:
    """`db`: a PostgreSQL URL; default an SQLite file in `workdir`. `ai`: AI seats' levels
    (the person plays seat 0, the AIs answer after each of their lines). Stops after
    `kills` kills or `max_seconds`, whichever comes first."""
    rng = random.Random(seed)
    tally = Tally()
    db = db or os.path.join(workdir, "kill.db")
    con: Console | None = None
    seen: list[Any] | None = None
    game_id: int | None = None
    end = time.monotonic() + max_seconds
    try:
        while tally.kills < kills and time.monotonic() < end:
            if con is None:
                check(db, tally, seen, game_id)
                con = start(db, workdir, rng, tally, ai)
            now = stored(db)
            assert now is not None
            game_id, seen = now.id, now.log
            tally.games.add(now.id)
            g = Game.from_json(now.state)
            if g.over:  # the next process starts a new game
                con.quit()
                con = None
                continue
            if ai_asked(now, g):
                # the console is idle (it said what it waits for), yet an AI seat is asked:
                # the game waits on an AI that will not answer (e.g. not resumed at restart)
                tally.stuck += 1
                print(f"STUCK: game {now.id} waits on AI seat(s) "
                      f"{[s for s in g.waiting_for() if s in now.ai_seats]} while the console "
                      f"is idle; log tail {now.log[-3:]}", file=sys.stderr)
                con.quit()
                con = None
                continue
            person = [s for s in g.waiting_for() if s not in now.ai_seats][0]
            action = str(rng.choice(g.legal_actions(person)))
            before = players(now.log)
            # the last answer's output may still be coming (the hand line the console
            # prints after a place/recruit prompt): none of it may count for this one
            settled = time.monotonic() + 2.0
            quiet_since = time.monotonic()
            while time.monotonic() < settled and time.monotonic() - quiet_since < 0.1:
                if con.drain():
                    quiet_since = time.monotonic()
                time.sleep(0.01)
            con.send(action)
            tally.actions += 1
            killing = rng.random() < kill_share
            # the moment: often within the few milliseconds around the commit, else later
            # (while the console narrates and draws the phase images, or the AI seats think
            # and commit their answers)
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
                        players((stored(db) or now).log) > before:
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
            same = after.id == now.id
            landed = players(after.log) - before if same else 0
            answered = any(x and not x.startswith("!") for x in said)
            tally.acknowledged += answered
            if landed > 1:
                tally.doubled += 1
                print(f"DOUBLED: {action!r} added {landed} player actions", file=sys.stderr)
            if answered and landed < 1:
                tally.lost += 1
                print(f"LOST: {action!r} was answered but is not in the log; it said {said!r}; "
                      f"killing={killing} game {now.id}->{after.id} players {before}->"
                      f"{players(after.log)} tail {after.log[-3:]}", file=sys.stderr)
            tally.applied += max(0, landed)
            if killing:
                if landed <= 0:
                    tally.kill_before_commit += 1
                elif ai_asked(after, Game.from_json(after.state)):
                    tally.kill_during_ai += 1  # the AI seats' answers were still to come
                else:
                    tally.kill_after_commit += 1
                seen = after.log if same else seen
    finally:
        if con is not None:
            con.kill()
    check(db, tally, seen, game_id)
    for gid in tally.games if ai else ():
        seats = json.loads((query(db, "SELECT seats FROM games WHERE id=?", gid) or [("[]",)])[0][0])
        tally.ai_answers += sum(1 for (seat,) in query(
            db, "SELECT seat FROM actions WHERE game_id=? AND user_id IS NULL", gid) or []
            if seats[seat].get("ai"))
    return tally


# ---- the daily challenge: real bot processes behind the harness's fake Discord ------------

DAILY_USERS = {"ann": 900_101 << 22, "bob": 900_102 << 22, "cat": 900_103 << 22,
               "dan": 900_104 << 22}
RESIGNERS = ("ann", "bob")  # they give up after a few answers; cat and dan play to the end
DAY_S = 86_400.0
ASK_S = 60.0  # the longest one daily command may take before the run is called stuck
READY_S = 90.0  # the longest a bot process may take to start on the shared machine


class BotProcess:
    """One tests/daily_worker.py process (a real bot behind the fake Discord): JSON commands
    in, its `@@` answers read on a thread into a queue; its logs go to `bots.log`."""

    def __init__(self, spec: dict[str, Any], workdir: str) -> None:
        with open(os.path.join(workdir, "bots.log"), "a", encoding="utf-8") as log:
            self.proc = subprocess.Popen(
                [sys.executable, str(ROOT / "tests" / "daily_worker.py"), json.dumps(spec)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True,
                bufsize=1, cwd=workdir)
        self.answers: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("@@"):
                self.answers.put(json.loads(line[2:]))
        self.answers.put(None)

    def send(self, cmd: str, **args: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"cmd": cmd, **args}) + "\n")
        self.proc.stdin.flush()

    def answer(self, timeout: float) -> dict[str, Any]:
        try:
            got = self.answers.get(timeout=timeout)
        except queue.Empty:
            raise RuntimeError(f"no answer from the bot process in {timeout} s") from None
        if got is None:
            raise RuntimeError("the bot process ended")
        return got

    def ask(self, cmd: str, **args: Any) -> dict[str, Any]:
        self.send(cmd, **args)
        return self.answer(ASK_S)

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=WAIT_S)
        self.reader.join(timeout=WAIT_S)
        for f in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                f.close()  # type: ignore[union-attr]

    def quit(self) -> None:
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            self.send("quit")
            self.proc.wait(timeout=WAIT_S)
        self.kill()


@dataclass(frozen=True)
class DailyGame:
    id: int
    status: str
    daily: dict[str, Any] | None  # settings["daily"]: day, ranked, number, post_channel
    started: bool  # it has a setup (a lobby never started has none)
    created_at: float


@dataclass(frozen=True)
class DayOf:
    """One user's ranked day as the store holds it."""

    attempt: tuple[str, int | None, bool] | None  # status, game id, scored
    games: list[DailyGame]  # the started ranked games of that day (a second one: doubled)
    unstarted: list[DailyGame]  # lobbies of that day left in the slot


@dataclass
class DailyTally:
    kills: dict[str, int] = field(default_factory=dict)  # "<command> <point>" → kills
    sent: dict[str, int] = field(default_factory=dict)
    acknowledged: dict[str, int] = field(default_factory=dict)
    applied: dict[str, int] = field(default_factory=dict)
    # kind → {what: its first description}; each distinct problem once
    problems: dict[str, dict[str, str]] = field(default_factory=lambda: {
        "lost": {}, "doubled": {}, "inconsistent": {}})
    days: set[str] = field(default_factory=set)
    restarts: int = 0

    def count(self, what: dict[str, int], key: str) -> None:
        what[key] = what.get(key, 0) + 1

    def problem(self, kind: str, key: str, text: str) -> None:
        """Each distinct problem counted once, however many checks see it again."""
        if key not in self.problems[kind]:
            self.problems[kind][key] = text
            print(f"{kind.upper()}: {text}", file=sys.stderr)

    @property
    def bad(self) -> bool:
        return any(self.problems.values())

    def summary(self, seconds: float) -> str:
        def line(d: dict[str, int]) -> str:
            return ", ".join(f"{k} {v}" for k, v in sorted(d.items())) or "none"
        return (f"kills {sum(self.kills.values())} ({line(self.kills)})\n"
                f"sent: {line(self.sent)}\nacknowledged: {line(self.acknowledged)}\n"
                f"applied: {line(self.applied)}\n"
                f"days {len(self.days)}, processes started {self.restarts}, {seconds:.0f} s\n"
                f"lost {len(self.problems['lost'])}, doubled {len(self.problems['doubled'])}, "
                f"inconsistent {len(self.problems['inconsistent'])}")


class DailyLoop:
    """Bot processes playing four players' daily challenge, killed at random moments."""

    def __init__(self, db: str, workdir: str, rng: random.Random,
                 step_kills: bool = True) -> None:
        self.db, self.workdir, self.rng = db, workdir, rng
        self.step_kills = step_kills  # False: kills only while starting, starts and resigns
        self.tally = DailyTally()
        self.offsets: list[tuple[float, float]] = [(0.0, 0.0)]  # (real time from, offset)
        self.bot: BotProcess | None = None
        # what the players were told, to be found in the store ever after
        self.playing: dict[tuple[int, str], str] = {}  # (user, day) → what /rr daily play said
        self.resigned: set[tuple[int, str]] = set()
        self.logs: dict[int, list[Any]] = {}  # game → its log when an answer was acknowledged

    @property
    def offset(self) -> float:
        return self.offsets[-1][1]

    def today(self) -> str:
        return daily.day_of(time.time() + self.offset).isoformat()

    def day_at(self, real: float) -> str:
        """The bot's day at a real moment (the offset then in force)."""
        offset = [o for since, o in self.offsets if since <= real][-1]
        return daily.day_of(real + offset).isoformat()

    # ---- the store, read behind the bot's back -------------------------------------------
    def day_of(self, uid: int, day: str) -> DayOf:
        att = query(self.db, "SELECT status, game_id, score FROM daily_attempts WHERE "
                    "user_id=? AND day=? AND ranked=1", uid, day) or []
        rows = query(self.db, "SELECT id, status, settings, CASE WHEN setup IS NULL THEN 0 "
                     "ELSE 1 END, created_at FROM games WHERE channel_id=? ORDER BY id",
                     slot(uid, True)) or []
        games = [DailyGame(int(i), st, json.loads(se).get("daily"), bool(up), float(at))
                 for i, st, se, up, at in rows]
        mine = [g for g in games if (g.daily or {}).get("day", self.day_at(g.created_at)) == day]
        return DayOf((att[0][0], att[0][1], att[0][2] is not None) if att else None,
                     [g for g in mine if g.started], [g for g in mine if not g.started])

    def log(self, game_id: int) -> list[tuple[int, int | None, str]]:
        return [(s, u, t) for s, u, t in query(
            self.db, "SELECT seat, user_id, text FROM actions WHERE game_id=? ORDER BY seq",
            game_id) or []]

    def check(self) -> None:
        """With a live, idle bot process: every user's every day agrees with itself and with
        what the players were told."""
        t = self.tally
        for name, uid in DAILY_USERS.items():
            for day in sorted(t.days):
                d = self.day_of(uid, day)
                who = f"{name} {day}"
                if len(d.games) > 1:
                    t.problem("doubled", f"games {uid} {day}", f"{who}: {len(d.games)} ranked "
                              f"games ({[(g.id, g.status) for g in d.games]}), attempt "
                              f"{d.attempt}")
                self.check_agreement(who, uid, day, d)
                if (uid, day) in self.playing and (d.attempt is None or not d.games):
                    t.problem("lost", f"play {uid} {day}", f"{who}: told "
                              f"{self.playing[(uid, day)]!r}, now attempt {d.attempt}, "
                              f"games {d.games}")
                if (uid, day) in self.resigned and not (
                        d.attempt and d.attempt[0] == "finished" and d.attempt[2]
                        and all(g.status != "active" for g in d.games)):
                    t.problem("lost", f"resign {uid} {day}", f"{who}: told it was resigned, "
                              f"now attempt {d.attempt}, games "
                              f"{[(g.id, g.status) for g in d.games]}")
        for gid, seen in self.logs.items():
            log = self.log(gid)
            if log[:len(seen)] != seen:
                t.problem("lost", f"log {gid} {len(seen)}", f"game {gid}: the log acknowledged "
                          f"({len(seen)} lines) is not a prefix of the log now ({len(log)})")
        self.check_replays()

    def check_agreement(self, who: str, uid: int, day: str, d: DayOf) -> None:
        """playing ↔ its game active with the day's settings; finished ↔ scored, its game
        over or resigned (abandoned); unfinished (the day closed) ↔ not scored, not active."""
        t, att = self.tally, d.attempt
        key = f"{uid} {day}"
        linked = next((g for g in d.games if att and g.id == att[1]), None)
        active = [g for g in d.games if g.status == "active"]
        if att is None:
            if d.games:
                t.problem("inconsistent", f"orphan {key}", f"{who}: a ranked game "
                          f"{[(g.id, g.status) for g in d.games]} and no attempt")
            return
        status, game_id, scored = att
        if status == "playing":
            if linked is None or linked.status != "active" or not linked.daily:
                t.problem("inconsistent", f"playing {key} {game_id} "
                          f"{linked.status if linked else None}",
                          f"{who}: attempt playing, its game {game_id} is "
                          f"{(linked.status, bool(linked.daily)) if linked else 'missing'}; "
                          f"games {[(g.id, g.status, bool(g.daily)) for g in d.games]}, "
                          f"lobbies {[g.id for g in d.unstarted]}")
        elif status == "finished":
            if not scored or linked is None or linked.status not in ("over", "abandoned"):
                t.problem("inconsistent", f"finished {key}", f"{who}: attempt finished "
                          f"(scored {scored}), its game {game_id} is "
                          f"{linked.status if linked else 'missing'}")
        elif scored or (linked is not None and linked.status == "active"):
            t.problem("inconsistent", f"{status} {key}", f"{who}: attempt {status} "
                      f"(scored {scored}), its game {game_id}")
        for g in active:
            if g is not linked or status != "playing":
                t.problem("inconsistent", f"active {g.id}", f"{who}: game {g.id} is active, "
                          f"the attempt is {att}")
        for g in d.games:
            if not g.daily:
                t.problem("inconsistent", f"settings {g.id}", f"{who}: ranked game {g.id} "
                          f"({g.status}) has no daily settings")

    def check_replays(self) -> None:
        for gid, setup, state in query(self.db, "SELECT id, setup, state FROM games WHERE "
                                       "status='active' AND channel_id<0") or []:
            log = self.log(gid)
            if Game.replay(json.loads(setup), [[s, t] for s, _, t in log]).to_json() != state:
                self.tally.problem("inconsistent", f"replay {gid} {len(log)}", f"game {gid}: "
                                   "state differs from its replayed log")

    # ---- processes ----------------------------------------------------------------------
    def spec(self) -> dict[str, Any]:
        return {"db": self.db, "guild": 910_001 << 22, "channel": 910_002 << 22,
                "users": DAILY_USERS, "index": 1, "ticker": False,
                "seed": self.rng.randrange(2**31), "offset": self.offset}

    def start(self) -> BotProcess:
        """A new bot process, once it is ready and idle (its startup work done: the games
        verified, daily games that ended unscored settled); sometimes killed while starting."""
        for _ in range(5):
            bot = BotProcess(self.spec(), self.workdir)
            self.tally.restarts += 1
            if self.rng.random() < 0.1:
                time.sleep(self.rng.uniform(0.0, 2.0))
                bot.kill()
                self.tally.count(self.tally.kills, "starting")
                continue
            try:
                assert "ready" in bot.answer(READY_S)
                bot.ask("settle")
            except (RuntimeError, AssertionError):
                bot.kill()
                continue
            return bot
        raise RuntimeError("the bot process did not start")

    # ---- one command ----------------------------------------------------------------------
    def choose(self) -> tuple[str, str] | None:
        """A user and what they do next; None when everyone's ranked day is over."""
        today = self.today()
        names = list(DAILY_USERS)
        self.rng.shuffle(names)
        for name in names:
            d = self.day_of(DAILY_USERS[name], today)
            if d.attempt is not None and d.attempt[0] != "playing":
                continue
            if d.attempt is None or not any(g.status == "active" for g in d.games):
                return name, "play"
            r = self.rng.random()
            # (kills only on starts and resigns: everyone resigns soon, for more of both)
            if (name in RESIGNERS or not self.step_kills) and r < 0.3:
                return name, "resign"
            return name, "play" if r > 0.92 else "step"
        if self.rng.random() < 0.5:  # a second ranked attempt, asked for: refused
            return self.rng.choice(names), "play"
        return None

    def point(self, cmd: str, uid: int, day: str, before: DayOf, log_before: int) -> str:
        """Where a kill landed in `cmd`'s writes, from the store after it."""
        after = self.day_of(uid, day)
        if cmd == "step":
            gid = next((g.id for g in before.games if g.status == "active"), None)
            return "after the commit" if gid is not None and \
                players(self.log(gid)) > log_before else "before the commit"
        if cmd == "play":
            if before.attempt is not None and before.attempt[0] != "playing":
                return "refused"
            if before.attempt is not None and any(g.status == "active" for g in before.games):
                return "resuming"  # (nothing to write: the game is posted again)
            if after == before:
                return "before any write"
            linked = after.attempt is not None and any(
                g.id == after.attempt[1] and g.status == "active" and g.daily
                for g in after.games)
            return "after it all" if linked else "between its writes"
        # resign
        game_done = all(g.status != "active" for g in after.games)
        scored = after.attempt is not None and after.attempt[0] == "finished"
        return "after it all" if game_done and scored else \
            "before any write" if not game_done and not scored else "between its writes"

    def do(self, name: str, cmd: str, kill_share: float) -> None:
        t, uid, day = self.tally, DAILY_USERS[name], self.today()
        t.days.add(day)
        bot = self.bot
        assert bot is not None
        before = self.day_of(uid, day)
        active = next((g.id for g in before.games if g.status == "active"), None)
        log_before = players(self.log(active)) if active is not None else 0
        t.count(t.sent, cmd)
        bot.send(f"daily_{cmd}", user=name)
        # the start and the resign are what this mode is about: killed twice as often
        killing = self.rng.random() < (kill_share * 2 if cmd != "step" else
                                       kill_share if self.step_kills else 0.0)
        if killing:
            # the moment: a start's or a resign's writes all come within ~20–60 ms of the
            # command (claim, lobby, settings, game, link; game closed, attempt scored), the
            # posts and table images after them; an answer commits within ~30–100 ms
            window = (0.08 if self.rng.random() < 0.7 else 0.8) if cmd != "step" else \
                self.rng.choice((0.12, 0.8))
            time.sleep(self.rng.uniform(0.0, window))
            bot.kill()
            self.bot = None
            got: dict[str, Any] | None = None
            with contextlib.suppress(queue.Empty):
                got = bot.answers.get_nowait()  # answered before the kill: acknowledged
            t.count(t.kills, f"{cmd} {self.point(cmd, uid, day, before, log_before)}")
        else:
            got = bot.answer(ASK_S)
        said = got.get("said") if got and got.get("ok") else None
        if said in ("started", "resumed", "resigned", "accepted"):
            t.count(t.acknowledged, f"play ({said})" if cmd == "play" else cmd)
        if said in ("started", "resumed"):
            self.playing[(uid, day)] = said
        if said == "started" and before.attempt is not None and before.attempt[0] != "playing":
            t.problem("doubled", f"second {uid} {day}", f"{name} {day}: a second ranked "
                      f"attempt started after {before.attempt}")
        if said == "resigned":
            self.resigned.add((uid, day))
        after = self.day_of(uid, day)
        if cmd == "step" and active is not None:
            log = self.log(active)
            landed = players(log) - log_before
            if landed > 1:
                t.problem("doubled", f"step {active} {log_before}", f"{name}: one answer "
                          f"added {landed} lines to game {active}")
            if said == "accepted":
                self.logs[active] = log
                if landed < 1:
                    t.problem("lost", f"step {active} {log_before}", f"{name}: an accepted "
                              f"answer is not in game {active}'s log")
            t.applied["step"] = t.applied.get("step", 0) + max(0, landed)
        elif cmd == "play" and after.attempt is not None and after.games and after != before:
            t.count(t.applied, "play (a new attempt)")
        elif cmd == "resign" and after.attempt is not None and after.attempt[0] == "finished" \
                and (before.attempt is None or before.attempt[0] == "playing"):
            t.count(t.applied, "resign")
        if got is not None and not got.get("ok"):
            print(f"(the bot process answered {cmd} for {name} with {got.get('error')})",
                  file=sys.stderr)


def daily_par(db: str, days: list[str]) -> None:
    """Each day's par stored before the bots start: the AIs' par games are the day job's
    subject (bench/daily.py --par), and would fill this loop's processes with their work."""
    import asyncio

    from store import daily_store, make_store

    async def store_par() -> None:
        store = await make_store(db).open()
        try:
            ds = await daily_store(store).open()
            for day in days:
                await ds.set_par(day, {})
        finally:
            await store.close()
    asyncio.run(store_par())


def run_daily(kills: int, seed: int, workdir: str, kill_share: float = 0.3,
              db: str | None = None, max_seconds: float = 3600.0,
              step_kills: bool = True) -> DailyTally:
    """`kills` kills (or `max_seconds`) of bot processes playing the daily challenge; after
    each restart (and after each command answered) every user's days are checked.
    `step_kills=False` spends the kills on starts and resigns only (the CI test's few)."""
    rng = random.Random(seed)
    db = db or os.path.join(workdir, "daily.db")
    loop = DailyLoop(db, workdir, rng, step_kills)
    daily_par(db, [loop.today()])
    end = time.monotonic() + max_seconds
    try:
        while sum(loop.tally.kills.values()) < kills and time.monotonic() < end:
            if loop.bot is None:
                loop.bot = loop.start()
                loop.check()
            chosen = loop.choose()
            if chosen is None:  # everyone's day is over: the next day
                daily_par(db, [daily.day_of(time.time() + loop.offset + DAY_S).isoformat()])
                loop.offsets.append((time.time(), loop.offset + DAY_S))
                loop.bot.ask("advance", seconds=DAY_S)
                continue
            loop.do(*chosen, kill_share)
            if loop.bot is not None:
                loop.check()
    finally:
        if loop.bot is not None:
            loop.bot.quit()
    loop.bot = loop.start()
    try:
        loop.check()
    finally:
        loop.bot.quit()
    return loop.tally


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", choices=("console", "ai", "daily"), default="console",
                    help="console: a solo console game; ai: a console game with AI seats; "
                         "daily: bot processes playing the daily challenge")
    ap.add_argument("--ai", nargs="+", default=["greedy", "random"], metavar="LEVEL",
                    help="--mode ai: the AI seats' levels (default: greedy random)")
    ap.add_argument("--kills", type=int, default=200)
    ap.add_argument("--max-seconds", type=float, default=3600.0,
                    help="stop after this long even if fewer kills were made")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dir", help="work folder (default: a temporary one)")
    ap.add_argument("--db", help="a postgresql:// URL (default: an SQLite file in the folder)")
    args = ap.parse_args(argv)
    start = time.monotonic()
    with contextlib.ExitStack() as stack:
        workdir = args.dir or stack.enter_context(tempfile.TemporaryDirectory())
        Path(workdir).mkdir(parents=True, exist_ok=True)
        if args.mode == "daily":
            days = run_daily(args.kills, args.seed, workdir, db=args.db,
                             max_seconds=args.max_seconds)
            print(days.summary(time.monotonic() - start))
            return 1 if days.bad else 0
        tally = run(args.kills, args.seed, workdir, db=args.db,
                    ai=args.ai if args.mode == "ai" else None, max_seconds=args.max_seconds)
    print(f"kills {tally.kills} (before the commit {tally.kill_before_commit}, after it "
          f"{tally.kill_after_commit}, while starting {tally.kill_at_start}"
          + (f", after the person's commit while the AI seats answered {tally.kill_during_ai}"
             if args.mode == "ai" else "")
          + f"), actions sent {tally.actions}, acknowledged {tally.acknowledged}, applied "
          f"{tally.applied}, games "
          f"{len(tally.games)}, {time.monotonic() - start:.0f} s")
    if args.mode == "ai":
        print(f"AI seats' log lines {tally.ai_answers}")
    print(f"lost {tally.lost}, doubled {tally.doubled}, inconsistent {tally.inconsistent}"
          + (f", AI answers doubled {tally.ai_doubled}, stuck on an AI {tally.stuck}"
             if args.mode == "ai" else ""))
    return 1 if tally.bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
