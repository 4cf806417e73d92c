"""One bot process for the sharding tests (tests/test_shard_processes.py) and bench/scale.py.

    python tests/shard_worker.py '{"db": …, "shard_count": 2, "shard_ids": [0], …}'

A real `RookBot` (an AutoShardedBot running the given shards on the given database) behind
the gateway-level harness: Discord's side is a FakeDiscord whose guild, channels and users
are *pinned* to the ids the test gives, so several processes see the same server (the
same Discord) and a restarted process continues it. It reads one JSON command per line on
stdin and answers one `@@`-prefixed JSON line on stdout (the rest of stdout/stderr is
logs); `Proc` is the other end, for the tests and the bench. Its clock is the real one plus an offset the test can advance (`advance`), so time
limits and the day boundary come when a test wants them, while leases (measured by the
store) run on real time. Interaction ids carry the process's `index` in their low bits:
two processes never make the same id for two different clicks.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import discord  # noqa: E402
from bot_driver import Table, accepted  # noqa: E402
from harness import FakeChannel, FakeUser, Harness  # noqa: E402

from cogs.bot import RookBot  # noqa: E402
from cogs.config import Config  # noqa: E402


class OffsetClock:
    """Real time plus an offset the test moves forward (deadlines, the daily day)."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


class UniqueSnowflakes:
    """Time-based ids like the harness's, with this process's index in the low bits."""

    def __init__(self, index: int) -> None:
        self.index, self._last = index, 0

    def __call__(self) -> int:
        now = discord.utils.time_snowflake(discord.utils.utcnow())
        self._last = max(now, self._last + 64)
        return self._last + self.index


def pin_world(h: Harness, spec: dict[str, Any]) -> None:
    """Give the harness's Discord the guild, channels and users every process shares."""
    server = h.server
    server.guild_id = int(spec["guild"])
    ch = server.default_channel
    del server.channels[ch.id]
    ch.id, ch.guild_id = int(spec["channel"]), server.guild_id
    server.channels[ch.id] = ch
    for name, cid in spec.get("channels", {}).items():
        server.channels[int(cid)] = FakeChannel(int(cid), name, guild_id=server.guild_id,
                                                position=len(server.channels))
    for name, uid in spec["users"].items():
        server._add_user(FakeUser(int(uid), name, global_name=name.title(),
                                  permissions=server.everyone_permissions))
    server.snowflake = UniqueSnowflakes(int(spec.get("index", 0)))


class _InFlight:
    """PostgreSQL queries under way. The harness settles when the event loop is quiet; an
    SQLite store works on threads the harness watches, but asyncpg waits on a socket, which
    looks exactly like idleness. The harness already waits for `PgStore.in_flight`; this
    counts every asyncpg query and pool wait of the process (the daily tables' too)."""

    count = 0

    @classmethod
    def install(cls) -> None:
        import functools

        import asyncpg.connection
        import asyncpg.pool

        def counted(fn: Any) -> Any:
            @functools.wraps(fn)
            async def wrapper(*args: Any, **kwargs: Any) -> Any:
                cls.count += 1
                try:
                    return await fn(*args, **kwargs)
                finally:
                    cls.count -= 1
            return wrapper

        for name in ("execute", "_execute", "_executemany"):
            setattr(asyncpg.connection.Connection, name,
                    counted(getattr(asyncpg.connection.Connection, name)))
        asyncpg.pool.Pool._acquire = counted(asyncpg.pool.Pool._acquire)  # type: ignore[method-assign]


class WorkerHarness(Harness):
    def _busy_reason(self, loop: asyncio.AbstractEventLoop) -> tuple[str, float] | None:
        if _InFlight.count:
            return ("PostgreSQL query in flight", 0.001)
        return super()._busy_reason(loop)


START_S = 90.0  # the longest a process may take to start on a busy 2-core machine
ASK_S = 120.0


class Proc:
    """One bot process: JSON commands in, `@@` JSON answers out (read on a thread, so
    every wait has a timeout)."""

    def __init__(self, spec: dict[str, Any], *, quiet: bool = False) -> None:
        self.spec = spec
        self.p = subprocess.Popen([sys.executable, __file__, json.dumps(spec)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL if quiet else None, text=True)
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.ready = self.read(START_S)

    def _pump(self) -> None:
        assert self.p.stdout is not None
        for line in self.p.stdout:
            if line.startswith("@@"):
                self.lines.put(json.loads(line[2:]))
        self.lines.put(None)

    def read(self, timeout: float = ASK_S) -> dict[str, Any]:
        try:
            got = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no answer from the bot process in {timeout} s") from None
        assert got is not None, "the bot process ended"
        return got

    def send(self, cmd: str, **args: Any) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write(json.dumps({"cmd": cmd, **args}) + "\n")
        self.p.stdin.flush()

    def answer(self) -> dict[str, Any]:
        while "progress" in (got := self.read()):
            pass
        assert got.get("ok"), got
        return got

    def ask(self, cmd: str, **args: Any) -> dict[str, Any]:
        self.send(cmd, **args)
        return self.answer()

    def kill(self) -> None:
        if self.p.poll() is None:
            os.kill(self.p.pid, signal.SIGKILL)
        self.p.wait(10)

    def stop(self) -> None:
        if self.p.poll() is None:
            try:
                self.send("quit")
                self.p.wait(20)
            except (OSError, subprocess.TimeoutExpired):
                self.kill()


def say(obj: dict[str, Any]) -> None:
    sys.stdout.write("@@" + json.dumps(obj) + "\n")
    sys.stdout.flush()


class Worker:
    def __init__(self, h: Harness, spec: dict[str, Any], clock: OffsetClock) -> None:
        self.h, self.spec, self.clock = h, spec, clock
        self.table = Table(h)
        self.rng = random.Random(int(spec.get("seed", 1)))
        self.tables: list[Table] = []  # bench/scale.py's games

    @property
    def bot(self) -> RookBot:
        return self.h.bot  # type: ignore[return-value]

    def user(self, name: str) -> FakeUser:
        return self.h.server.users[int(self.spec["users"][name])]

    async def _game(self) -> None:
        if self.table.game_id is None:
            row = await self.bot.store.latest_game(self.h.channel.id)
            self.table.game_id = row.id if row is not None else None

    async def run(self, cmd: dict[str, Any]) -> dict[str, Any]:
        op = cmd["cmd"]
        if op == "open":
            row = await self.table.open(self.user(cmd["host"]),
                                        [self.user(n) for n in cmd.get("others", [])],
                                        players=cmd.get("players", 1))
            return {"game": row.id}
        if op == "steps":  # play n answers of the waiting players, as they would
            await self._game()
            done = 0
            for _ in range(int(cmd["n"])):
                if await self.step() is None:
                    break
                done += 1
                if cmd.get("progress"):
                    say({"progress": done,
                         "log": len(await self.bot.store.log(self.table.game_id or 0))})
            return {"steps": done, **await self.state()}
        if op == "state":
            await self._game()
            return await self.state()
        if op == "pending":  # the waiting decision and the buttons posted for it here
            await self._game()
            row, g = await self.table.game()
            seat = g.waiting_for()[0]
            dec = g.decision(seat) or {}
            found = [c.custom_id for m in self.h.visible_to(self.table.user(row, seat))
                     for c in m.buttons if c.custom_id
                     and c.custom_id.startswith(f"rr:{dec.get('kind')}:{row.id}:{seat}:"
                                                f"{dec.get('id')}")]
            return {"seat": seat, "kind": dec.get("kind"), "decision": dec.get("id"),
                    "user": row.seats[seat]["name"], "buttons": sorted(set(found))}
        if op == "click":  # a button of a message everyone sees (posted by any process)
            msg = self.h.server.create_message(self.h.channel, {"content": "ping", "components": [
                {"type": 1, "components": [{"type": 2, "style": 1, "label": "x",
                                            "custom_id": cmd["custom_id"]}]}]}, [])
            res = await self.h.click(self.user(cmd["user"]), cmd["custom_id"], message=msg)
            return {"accepted": accepted(res), "ephemeral": res.ephemeral, "text": res.text}
        if op == "slash":
            res = await self.h.slash(self.user(cmd["user"]), cmd["command"],
                                     **cmd.get("options", {}))
            return {"accepted": accepted(res), "ephemeral": res.ephemeral, "text": res.text}
        if op == "advance":
            self.clock.offset += float(cmd["seconds"])
            return {"offset": self.clock.offset}
        if op == "tick":  # one pass of the time-limit ticker, as the tasks loop runs it
            made = await self.bot.tick_once()
            await self.h.settle()
            return {"made": made}
        if op == "lease":
            lease = self.bot.day_lease
            return {"held": lease.held, "holder": lease.holder, "taken": lease.taken,
                    "db_holder": await self.bot.store.lease_holder(lease.name)}
        if op == "posts":  # messages this process posted in a channel
            cid = int(cmd["channel"])
            return {"posts": [m.content for m in self.h.messages()
                              if m.channel_id == cid and m.author.id == self.h.server.bot_user.id
                              and not m.ephemeral]}
        if op == "bench_setup":
            return await self.bench_setup(int(cmd["games"]))
        if op == "bench_run":
            return await self.bench_run(float(cmd["seconds"]))
        if op == "settle":
            await asyncio.sleep(float(cmd.get("seconds", 0)))
            await self.h.settle()
            return {}
        raise ValueError(f"unknown command {op!r}")

    async def state(self) -> dict[str, Any]:
        """The game as stored: its log (the store's action rows), and whether the stored
        state is exactly setup + that log replayed (R15)."""
        from engine import Game

        if self.table.game_id is None:
            return {"game": None}
        row = await self.bot.store.get(self.table.game_id)
        assert row is not None and row.setup is not None and row.state is not None
        log = await self.bot.store.log(row.id)
        replays = Game.replay(row.setup, log).to_json() == row.state
        return {"game": row.id, "version": row.version, "status": row.status,
                "log": [[int(s), str(t)] for s, t in log], "replays": replays}

    async def step(self, table: Table | None = None) -> Any:
        """One answer; after a restart the pings of the dead process are not in this
        process's Discord, so a pick or a roll falls back on its slash command."""
        table = table or self.table
        try:
            return await table.step(self.rng)
        except AssertionError as e:
            if "no pick button" not in str(e) and "no roll button" not in str(e):
                raise
        row, g = await table.game()
        seat = g.waiting_for()[0]
        dec = g.decision(seat) or {}
        user = table.user(row, seat)
        if dec.get("kind") == "pick":
            card = self.rng.choice(await table.choices(user, "rr pick", "card"))
            res = await table.slash(user, "rr pick", card=card)
        else:
            res = await table.slash(user, "rr roll", choice="keep")
        assert accepted(res), res.text
        return res

    async def bench_setup(self, games: int) -> dict[str, Any]:
        """`games` solo games in channels of their own, started through the service (no
        posts: the measured part is the playing, bench/scale.py)."""
        svc, names = self.bot.service, list(self.spec["users"])
        for k in range(games):
            ch = self.h.text_channel(f"table-{k}")
            user = self.user(names[k % len(names)])
            await svc.lobby.new_lobby(self.h.guild_id, ch.id, user.id, user.global_name or "",
                                      players=1)
            out = await svc.lobby.start(ch.id, user.id)
            table = Table(self.h, ch)
            table.game_id = out.row.id
            self.tables.append(table)
        return {"games": len(self.tables)}

    async def bench_run(self, seconds: float) -> dict[str, Any]:
        """Answers to random games for `seconds`: each one's latency, from the first
        interaction of the player's answer (its autocomplete suggestions included) until
        the bot has nothing left to do for it (reply, posts, images)."""
        latencies: list[float] = []
        live = list(self.tables)
        end = time.monotonic() + seconds
        while live and time.monotonic() < end:
            table = self.rng.choice(live)
            t0 = time.perf_counter()
            if await self.step(table) is None:
                live.remove(table)
                continue
            latencies.append(time.perf_counter() - t0)
        return {"latencies": latencies}


async def main(spec: dict[str, Any], worker_type: type[Worker] = Worker) -> None:
    """Serve `spec`'s bot until `quit` or end of input; `worker_type` runs the commands
    (tests/daily_worker.py adds the daily challenge's)."""
    clock = OffsetClock()
    clock.offset = float(spec.get("offset", 0.0))  # a restarted process keeps the test's day
    config = Config(
        token=None, db_path=spec["db"], tick_seconds=float(spec.get("tick_seconds", 3600)),
        day_seconds=float(spec.get("day_seconds", 3600)),
        lease_seconds=float(spec.get("lease_seconds", 60)),
        shard_count=spec.get("shard_count"), shard_ids=tuple(spec.get("shard_ids", ())))

    def make() -> RookBot:
        return RookBot(config, clock=clock, seed_source=lambda: int(spec.get("seed", 7)),
                       start_ticker=bool(spec.get("ticker", True)))

    if spec["db"].startswith(("postgresql://", "postgres://")):
        _InFlight.install()
    h = WorkerHarness(make, timer_horizon=0.05, settle_timeout=60.0, response_deadline=None)
    pin_world(h, spec)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    async with h:
        worker = worker_type(h, spec, clock)
        say({"ready": os.getpid()})
        while True:
            line = await reader.readline()
            if not line:
                break
            cmd = json.loads(line)
            if cmd["cmd"] == "quit":
                break
            try:
                say({"ok": True, **await worker.run(cmd)})
            except Exception as e:  # the test reads what went wrong
                h.errors.clear()
                say({"ok": False, "error": f"{type(e).__name__}: {e}"})
    say({"bye": True})


if __name__ == "__main__":
    import logging

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    asyncio.run(main(json.loads(sys.argv[1])))
