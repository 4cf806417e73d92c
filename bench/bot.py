"""Bot latency and throughput: N concurrent games in one process, driven by interactions.

    .venv/bin/python bench/bot.py [--games 1 50 500] [--rounds 6] [--seed 1]

The real `RookBot` (service, SQLite file in WAL mode, renderer, announcements) runs behind
the test harness's fake Discord (tests/harness/): only the network is simulated.
For each N, N two-player games are opened, joined and started; then every round delivers,
for every unfinished game at once (a burst: the worst case of N busy games), one answer of
the player being waited for (a button click or a slash command built from a legal action)
and one read (an autocomplete request or `/rr status`). Measured per interaction, from the moment its gateway payload
is handed to discord.py:

* ack: until the interaction callback is recorded (defer, or the autocomplete choices) —
  what Discord's 3-second window is about;
* answer: until the player's ephemeral answer (first followup) is recorded.

Throughput is interactions answered per second of wall time during the rounds. A missed
window is a callback later than 3 s (the fake Discord then refuses it, like the real one).
Percentiles are nearest-rank; run twice on a shared machine and expect noise.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from bot_driver import Clock, make_bot  # noqa: E402
from harness import Harness, RecordedMessage  # noqa: E402

from engine import Action, Game  # noqa: E402

TARGET_P99_MS = 100.0  # at 50 games


def quantile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


class Meter:
    """Records callback and first-followup times per interaction from the fake Discord."""

    def __init__(self, h: Harness) -> None:
        self.h = h
        self.ack: dict[int, float] = {}
        self.answer: dict[int, float] = {}
        self.missed = 0
        server = h.server
        callback, followup = server._interaction_callback, server._followup_create

        def on_callback(request: Any) -> Any:
            iid = int(request.params["webhook_id"])
            rec = server.interactions.get(iid)
            if rec is not None:
                late = server.clock() - rec.created
                self.ack.setdefault(iid, late)
                if late > 3.0:
                    self.missed += 1
            return callback(request)

        def on_followup(request: Any) -> Any:
            rec = server._interaction_for(request)
            iid = rec.result.interaction_id
            self.answer.setdefault(iid, server.clock() - rec.created)
            return followup(request)

        h.http.route("POST", "/interactions/{webhook_id}/{webhook_token}/callback", on_callback)
        h.http.route("POST", "/webhooks/{webhook_id}/{webhook_token}", on_followup)

    def reset(self) -> None:
        self.ack.clear()
        self.answer.clear()


def payload_slash(h: Harness, user: Any, channel: Any, command: str, **options: Any) -> dict:
    data = h._command_data(command, user, channel, options)
    return h._interaction_payload(2, user, channel, data)


def payload_auto(h: Harness, user: Any, channel: Any, command: str, focused: str) -> dict:
    data = h._command_data(command, user, channel, {}, focused=focused)
    return h._interaction_payload(4, user, channel, data)


def payload_click(h: Harness, user: Any, message: RecordedMessage, custom_id: str) -> dict:
    channel = h.server.channels[message.channel_id]
    data = {"custom_id": custom_id, "component_type": 2}
    return h._interaction_payload(3, user, channel, data, message)


def newest_button(h: Harness, user: Any, channel: Any, marker: str) -> tuple[Any, str] | None:
    for m in reversed(h.messages(channel)):
        if not m.visible_for(user.id):
            continue
        for c in m.buttons:
            if c.custom_id and marker in c.custom_id:
                return m, c.custom_id
    return None


def answer_for(h: Harness, rng: random.Random, game: Game, row: Any, channel: Any
               ) -> tuple[dict, Any, Any, Any] | None:
    """One interaction answering a pending decision, chosen among the legal actions."""
    seat = rng.choice(game.waiting_for())
    dec = game.decision(seat)
    user = h.server.users[int(row.seats[seat]["user"])]
    legal = [a for a in game.legal_actions(seat) if a.verb != "levelup"]
    kind = dec["kind"]
    if kind in ("pick", "roll"):
        a = rng.choice(legal)
        marker = f":{seat}:{dec['id']}:" + (a.card if kind == "pick" else a.verb)
        found = newest_button(h, user, channel, marker)
        if found:
            return payload_click(h, user, found[0], found[1]), user, channel, found[0]
        return payload_slash(h, user, channel, "rr pick", card=a.card), user, channel, None
    a = rng.choice([x for x in legal if x.verb != "done"] or legal)
    return slash_for(h, user, channel, a), user, channel, None


def slash_for(h: Harness, user: Any, channel: Any, a: Action) -> dict:
    if a.verb == "place":
        return payload_slash(h, user, channel, "rr place", card=a.card, square=a.square)
    if a.verb == "act":
        opts: dict[str, Any] = {"unit": a.square}
        if a.to:
            opts["to"] = a.to
        if a.skill:
            opts["target"] = str(a.skill)
        if a.fullmove:
            opts["fullmove"] = True
        return payload_slash(h, user, channel, "rr act", **opts)
    if a.verb == "recruit":
        card = f"merc {a.card}" if a.merc else a.card
        return payload_slash(h, user, channel, "rr recruit", card=card, square=a.square)
    if a.verb == "ready":
        return payload_slash(h, user, channel, "rr ready", units=" ".join(a.squares))
    if a.verb == "support":
        return payload_slash(h, user, channel, "rr support", unit=a.square)
    return payload_slash(h, user, channel, "rr done")


async def burst(h: Harness, items: list[tuple[dict, Any, Any, Any]]) -> None:
    await h.gather(*(h.interact(p, u, c, component_message=m, expect_response=False)
                     for p, u, c, m in items))


async def setup_games(h: Harness, n: int) -> list[Any]:
    """N channels with a started two-player game each (lobbies opened in one burst)."""
    channels = [h.channel] + [h.text_channel(f"table-{k}") for k in range(1, n)]
    hosts = [h.user(f"host{k}") for k in range(n)]
    guests = [h.user(f"guest{k}") for k in range(n)]
    await burst(h, [(payload_slash(h, u, c, "rr new", players=2), u, c, None)
                    for u, c in zip(hosts, channels, strict=True)])
    lobbies = []
    for c in channels:
        lobby = next(m for m in h.messages(c) if "rr:lobby:" in "".join(m.custom_ids))
        lobbies.append(lobby)
    await burst(h, [(payload_click(h, u, m, m.custom_ids[0]), u, c, m)
                    for u, m, c in zip(guests, lobbies, channels, strict=True)])
    await burst(h, [(payload_click(h, u, m, m.custom_ids[2]), u, c, m)
                    for u, m, c in zip(hosts, lobbies, channels, strict=True)])
    return channels


def production_bot(db: Path, seed: int) -> Any:
    """The bot as `bot.py` runs it (objects loaded at startup frozen out of the collector,
    channel images drawn in worker processes)."""
    bot = make_bot(db, Clock(), seed=seed)
    bot.freeze_gc = True
    bot.announcer.processes = True
    return bot


async def measure(n: int, rounds: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        async with Harness(lambda: production_bot(db, seed), settle_timeout=600.0) as h:
            meter = Meter(h)
            channels = await setup_games(h, n)
            bot = h.bot
            meter.reset()
            count = biggest = 0
            wall = 0.0
            games_over = 0
            for r in range(rounds):
                items = []
                for c in channels:
                    row, g = await bot.service.current(c.id) if await _active(bot, c) else \
                        (None, None)
                    if g is None:
                        continue
                    items.append(answer_for(h, rng, g, row, c))
                    seat = g.waiting_for()[0]
                    user = h.server.users[int(row.seats[seat]["user"])]
                    if r % 2:
                        items.append((payload_auto(h, user, c, "rr act", "unit"), user, c, None))
                    else:
                        items.append((payload_slash(h, user, c, "rr status"), user, c, None))
                if not items:
                    break
                biggest = max(biggest, len(items))
                t = time.perf_counter()
                await burst(h, items)
                wall += time.perf_counter() - t
                count += len(items)
            for c in channels:
                games_over += not await _active(bot, c)
            acks = [v * 1000 for v in meter.ack.values()]
            answers = [v * 1000 for v in meter.answer.values()]
            return {"games": n, "interactions": count, "burst": biggest, "per_s": count / wall if wall else 0,
                    "ack_p50": quantile(acks, 0.5), "ack_p99": quantile(acks, 0.99),
                    "ack_max": max(acks, default=0), "ans_p50": quantile(answers, 0.5),
                    "ans_p99": quantile(answers, 0.99), "missed": meter.missed,
                    "over": games_over}


async def _active(bot: Any, channel: Any) -> bool:
    row = await bot.store.open_game(channel.id)
    return row is not None and row.status == "active"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, nargs="+", default=[1, 50, 500])
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    import logging

    logging.basicConfig(level=logging.ERROR)
    print(f"bot bench: Python {platform.python_version()}, {os.cpu_count()} CPUs, "
          f"{args.rounds} rounds; per game and round one answer plus one autocomplete or "
          "/rr status, all games' interactions of a round delivered at once")
    print(f"{'games':>6} {'inter.':>7} {'burst':>6} {'inter/s':>8} {'ack p50':>8} {'ack p99':>8} "
          f"{'ack max':>8} {'ans p50':>8} {'ans p99':>8} {'missed':>6}")
    results = []
    for n in args.games:
        gc.collect()
        res = asyncio.run(measure(n, args.rounds, args.seed))
        gc.unfreeze()  # that bot is gone: let its frozen objects be collected
        results.append(res)
        print(f"{res['games']:>6} {res['interactions']:>7} {res['burst']:>6} {res['per_s']:>8.0f} "
              f"{res['ack_p50']:>7.1f}ms {res['ack_p99']:>7.1f}ms {res['ack_max']:>7.1f}ms "
              f"{res['ans_p50']:>7.1f}ms {res['ans_p99']:>7.1f}ms {res['missed']:>6}",
              flush=True)
    at50 = [r for r in results if r["games"] == 50]
    if at50:
        ok = at50[0]["ack_p99"] < TARGET_P99_MS
        print(f"target: ack p99 < {TARGET_P99_MS:.0f} ms at 50 games: "
              f"{'met' if ok else 'NOT met'} ({at50[0]['ack_p99']:.1f} ms); "
              f"missed 3-second windows: {sum(r['missed'] for r in results)}")
    print("ack = payload → interaction callback recorded (defer / choices); "
          "ans = payload → the player's ephemeral answer (p50/p99 nearest rank).")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
