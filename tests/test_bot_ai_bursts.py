"""A channel game with AI seats reads well (the new-player audit): the AI answers that come in
one burst, with no person asked in between, are told in ONE post — their lines together, in
the order they were committed — while every phase keeps its own image (R-phases: Invasion,
Summon, End each posted once) and every person asked is pinged once. Before, each AI answer
was a post of its own: two AI seats moving twice in an Advance were four posts to scroll
past between a person's answer and the question after it."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from bot_driver import Clock, make_bot
from harness import Harness
from test_bot_ai_turns import public, two_people_two_bots

from cogs.announce import Announcer


def pings(m: Any, people: set[int]) -> set[int]:
    """The people a post asks something (a ping: mentions them with its allowed mentions)."""
    return {u for u in people if f"<@{u}>" in m.content and m.components}


def ai_opens(m: Any) -> bool:
    """A post that opens with an AI seat's own move (🤖 seats are named first)."""
    return m.content.startswith("🤖 Bot")


def test_an_ai_burst_is_one_post_between_a_persons_answer_and_the_next_question(
        tmp_path, monkeypatch):
    told: list[list[str]] = []  # every AI answer's lines, as they were committed
    real = Announcer.announce

    async def recording(self: Announcer, ann: Any, **kw: Any) -> bool:
        if kw.get("burst"):
            told.append(ann.story())
        return await real(self, ann, **kw)
    monkeypatch.setattr(Announcer, "announce", recording)

    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4),
                           settle_timeout=60) as h:
            table, ann, bob = await two_people_two_bots(h)
            people = {ann.id, bob.id}
            row, _ = await table.bot.service.tables.current(h.channel.id)
            table.game_id = row.id
            rng = random.Random(1)
            bursts = 0
            for _ in range(40):  # about five rounds: Advances, Recruits, rewards, phases
                before = len(public(h))
                if await table.step(rng) is None:
                    break
                await h.settle()
                new = public(h)[before:]
                # the posts between two questions: split at every ping
                segment: list[Any] = []
                for m in [*new, None]:
                    if m is None or pings(m, people):
                        ai = next((k for k, p in enumerate(segment) if ai_opens(p)), None)
                        if ai is not None:
                            bursts += 1
                            after = segment[ai:]
                            images = sum(1 for p in after if p.files)
                            assert len(after) <= images + 1, \
                                [p.content[:80] for p in after]
                        segment = []
                        if m is not None:
                            asked = pings(m, people)
                            assert len(asked) == 1, m.content  # one person a ping
                        continue
                    segment.append(m)
                # each person asked is pinged once for it
                asked = [u for m in new for u in pings(m, people)]
                assert len(asked) == len(set(asked)), [m.content[:60] for m in new]
            assert bursts >= 5
            # every AI move still named, in the order it was committed
            lines = [line for m in public(h) for line in m.content.split("\n")]
            ai_lines = [line for story in told for line in story]
            assert ai_lines
            at = 0
            for line in ai_lines:
                at = lines.index(line, at) + 1  # (ValueError: missing or out of order)
    asyncio.run(scenario())
