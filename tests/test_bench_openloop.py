"""The benches can be trusted under load (issue 22; issue 18's open-loop arrivals).

A throwaway bot whose command and autocomplete each hold the event loop for WORK seconds
(CPU-bound work, as an overloaded bot's) stands in for a slow bot. The harness's response
window is shortened to keep the tests fast; the benches read it from the harness, so the
same accounting applies with Discord's 3 s (RESPONSE_DEADLINE).
"""

from __future__ import annotations

import asyncio
import importlib.util
import random
import sys
import time
from pathlib import Path
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands
from harness import RESPONSE_DEADLINE, Harness

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.append(str(BENCH))  # after the project root: bench/bot.py must not shadow bot.py

from openloop import Feeder, schedule  # noqa: E402

WORK = 0.1  # seconds of event-loop time per interaction
WINDOW = 0.6  # the harness's response window in these tests (margins for a loaded machine)


def bench_bot() -> Any:
    """bench/bot.py (its name clashes with the entry point bot.py, hence by path)."""
    spec = importlib.util.spec_from_file_location("bench_bot", BENCH / "bot.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class SlowBot(commands.Bot):
    def __init__(self) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default())

    async def setup_hook(self) -> None:
        @self.tree.command(name="slow", description="Answers after WORK seconds of CPU")
        async def slow(interaction: discord.Interaction, what: str = "") -> None:
            time.sleep(WORK)  # holds the loop like CPU-bound work
            await interaction.response.send_message("done", ephemeral=True)

        @self.tree.command(name="think", description="Defers, then answers after WORK seconds")
        async def think(interaction: discord.Interaction) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            time.sleep(WORK)
            await interaction.followup.send("done", ephemeral=True)

        @slow.autocomplete("what")
        async def what_choices(interaction: discord.Interaction,
                               current: str) -> list[app_commands.Choice[str]]:
            time.sleep(WORK)
            return [app_commands.Choice(name="x", value="x")]


def run(scenario: Any) -> None:
    async def main() -> None:
        async with Harness(SlowBot, response_deadline=WINDOW, settle_timeout=10) as h:
            await scenario(h)

    asyncio.run(main())


def test_the_bench_window_is_the_harness_constant_of_three_seconds() -> None:
    """Issue 22: one deadline, from the harness, for the fake Discord and the benches."""
    assert RESPONSE_DEADLINE == 3.0

    async def scenario(h: Harness) -> None:
        assert Feeder(h).deadline == WINDOW

    run(scenario)
    asyncio.run(_default_window())


async def _default_window() -> None:
    async with Harness(SlowBot) as h:
        assert h.server.response_deadline == RESPONSE_DEADLINE
        assert Feeder(h).deadline == RESPONSE_DEADLINE


def test_open_loop_latency_counts_the_queue_from_the_scheduled_arrival() -> None:
    """Issue 18: arrivals by the clock, not after the previous answer. Ten interactions
    every 20 ms to a bot that needs 100 ms each: the k-th waits for the k before it, so its
    ack is ~(k+1)·100 − k·20 ms after it arrived, and the late ones miss the window —
    counted, the run finishes. A closed loop would report ~100 ms for every one."""

    async def scenario(h: Harness) -> None:
        user = h.user("alice")
        feed = Feeder(h)
        times = schedule(50, 0.19, poisson=False, rng=random.Random(0))
        assert len(times) == 9 and abs(times[1] - times[0] - 0.02) < 1e-9
        arrivals = [(t, "slow", lambda: (h.slash_payload(user, "slow"), user, h.channel, None))
                    for t in [0.0, *times]]
        await feed.run(arrivals)
        await feed.drain(timeout=10)
        acks = [o.ack for o in feed.outcomes]
        assert len(acks) == 10 and all(a is not None for a in acks)
        assert acks == sorted(acks), acks  # the queue grows: each waits for those before
        assert acks[0] < WINDOW < acks[-1], acks  # ~0.1 s alone, ~0.8 s at the back
        assert acks[-1] - acks[0] > 0.5, acks
        missed = [o.missed for o in feed.outcomes]
        assert missed[0] is False and missed[-1] is True, acks
        assert feed.stats("slow").missed == sum(missed) >= 2
        # the fake Discord refused the late ones, as Discord would: no answer shown
        assert not feed.outcomes[-1].result.responded

    run(scenario)


def test_a_burst_is_acknowledged_before_any_of_it_is_answered() -> None:
    """Issue 22: a request to Discord takes a network round trip, and the bot's other tasks
    run meanwhile, so five interactions arriving at once are all acknowledged (deferred)
    before the first one's slow work is answered. The fake Discord used to answer a request
    without letting other tasks run: the last ack then waited for four whole interactions'
    work (~0.4 s), which no real connection does — and the benches' ack figures with it."""
    bench = bench_bot()

    async def scenario(h: Harness) -> None:
        users = [h.user(f"u{k}") for k in range(5)]
        feed = await bench.burst(h, [(h.slash_payload(u, "think"), u, h.channel, None)
                                     for u in users])
        acks = [o.ack for o in feed.outcomes]
        answers = [o.answer for o in feed.outcomes]
        assert None not in acks and None not in answers
        assert max(acks) < min(answers), (acks, answers)  # type: ignore[type-var]
        assert max(acks) < WORK  # no ack waited for another interaction's work

    run(scenario)


def test_a_late_autocomplete_is_counted_as_missed_not_a_crash() -> None:
    """Issue 22: `bench/bot.py` crashed when an autocomplete came late (discord.py logs
    the 10062 refusal, the harness raised it). Now a burst with a late autocomplete
    finishes and counts it as a missed window."""
    bench = bench_bot()

    async def scenario(h: Harness) -> None:
        users = [h.user(f"u{k}") for k in range(10)]
        items = [(h.autocomplete_payload(u, "slow", focused="what"), u, h.channel, None)
                 for u in users]
        feed = await bench.burst(h, items)  # all arrive at once; 10 × 100 ms of work
        outcomes = feed.outcomes
        assert [o.result.choices is not None for o in outcomes][:2] == [True, True]
        assert sum(o.missed for o in outcomes) >= 1
        assert outcomes[-1].missed and outcomes[-1].ack is not None
        assert outcomes[-1].ack > WINDOW

    run(scenario)


@pytest.mark.process
def test_the_bot_bench_counts_the_cpu_of_its_rounds() -> None:
    """Issue 22: bench/bot.py reports the CPU its measured rounds took — the bot's process,
    its event loop thread within it, and the drawing worker processes — per interaction
    (bench/bot_cpu.py, which wrapped `burst`, counted nothing once the rounds stopped
    going through it), less the fake Discord's own CPU, which is no cost of the real bot."""
    bench = bench_bot()
    cpu = bench.Cpu()
    res = asyncio.run(bench.measure(2, 3, 1, cpu))
    assert res["interactions"] >= 8
    assert res["cpu_own"] > 0 and 0 < res["cpu_loop"] <= res["cpu_own"] + 1e-6
    assert res["cpu_workers"] >= 0  # the drawing processes (0 if no phase ended)
    assert cpu.own > 0 and cpu.loop > 0
    # the fake Discord runs in the bot's process; its own CPU is counted apart and left
    # out of the bot's, never more than the loop thread it ran on
    assert res["cpu_fake"] > 0 and 0 < cpu.fake < cpu.loop
    assert res["cpu_own"] == pytest.approx(1000 * (cpu.own - cpu.fake) / res["interactions"])
