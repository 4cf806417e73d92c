"""The actor's answer words their next question in their own language, the channel's ping in
the game's (issue 22 words the actor's question only in those two languages, not in every
one: the announcement is captured before the actor is answered, so it does only what is
read). A guard: this held before, when the question was worded in every language."""

from __future__ import annotations

import asyncio
import random
import re

from bot_driver import Clock, Table, make_bot
from harness import Harness

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def test_a_japanese_player_in_an_english_game_reads_their_next_question_in_japanese(tmp_path):
    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=6)) as h:
            ann, yui = h.user("ann"), h.user("yui", locale="ja")
            table = Table(h)
            await table.open(ann, [yui], players=2)
            rng = random.Random(3)
            seen = {"ann": 0, "yui": 0}
            for _ in range(60):
                before = len(h.messages())
                step = await table.step(rng)
                assert step is not None
                row, _g = await table.game()
                who = table.user(row, step.seat).id
                text = step.result.text
                if who == yui.id and "次:" in text:
                    question = text.split("次:", 1)[1]
                    assert JAPANESE.search(question) and "Now:" not in text, text
                    seen["yui"] += 1
                if who == ann.id and "Now:" in text:
                    assert not JAPANESE.search(text.split("Now:", 1)[1]), text
                    seen["ann"] += 1
                for m in h.messages()[before:]:  # the game's own posts: English
                    if not m.ephemeral and m.dm_user_id is None and f"<@{yui.id}>" in m.text:
                        assert not JAPANESE.search(m.text), m.text
                if min(seen.values()) >= 2:
                    return
            raise AssertionError(f"too few next questions told in 60 steps: {seen}")
    asyncio.run(scenario())
