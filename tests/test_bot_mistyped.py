"""Nothing a player types breaks a game (standards: bad input): slash commands whose text
options are a legal answer with a word dropped, swapped, repeated or mangled, or odd words
alone, are sent at random moments of a two-player game by a player asked, a player not
asked and a stranger — through discord.py's own command tree, with only the HTTP edge
recorded. Each gets an answer; none is the bot's last-resort "something went wrong" or an
exception; a refused answer is ephemeral and leaves the stored game (state, version, log)
exactly as it was; autocomplete on the same text always offers choices within Discord's
limits."""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any

from bot_driver import Clock, Table, make_bot
from harness import Harness, SchemaViolation
from mistypes import mistyped

from i18n import t

ANSWERS = {"rr place": ("card", "square"), "rr recruit": ("card", "square"),
           "rr act": ("unit", "to", "target"), "rr ready": ("units",),
           "rr support": ("unit",), "rr levelup": ("unit",)}
READS = {"rr card": ("name",), "rr reach": ("unit",), "rr rules": ("topic",)}


def test_mistyped_slash_commands_are_refused_and_change_nothing(tmp_path) -> None:
    internal = {t("en", "bot.internal"), t("ja", "bot.internal")}

    async def scenario(seed: int) -> tuple[int, int, int]:
        refused = completed = japanese = 0
        db = tmp_path / f"g{seed}.db"
        async with Harness(lambda: make_bot(db, Clock(), seed=seed)) as h:
            # Bob reads Japanese: his refusals are formatted from the other catalogue
            ann, bob, stranger = h.user("ann"), h.user("bob", locale="ja"), h.user("stranger")
            table = Table(h)
            await table.open(ann, [bob], players=2)
            rng = random.Random(seed)
            for k in range(120):
                row, g = await table.game()
                if g.over:
                    break
                if k % 3 == 2:
                    await table.step(rng)  # the game moves on: new questions meet the typing
                    continue
                legal = [str(a).split(" ") for s in g.waiting_for() for a in g.legal_actions(s)]
                words = rng.choice(legal) if legal else []
                command, names = rng.choice(list(ANSWERS.items()) + list(READS.items()))
                options: dict[str, Any] = {n: mistyped(rng, words[1:]) for n in names
                                           if n not in ("to", "target") or rng.random() < 0.7}
                user = rng.choice([ann, bob, bob, ann, stranger])
                before = (row.state, row.version, await table.bot.store.log(row.id))
                focused = rng.choice(names)
                try:
                    res = await table.slash(user, command, **options)
                    choices = await h.autocomplete(user, command, focused=focused,
                                                   channel=table.channel,
                                                   **{**options, focused: options.get(focused, "")})
                except SchemaViolation:
                    continue  # Discord's client refuses it before the bot sees it
                assert choices.choices is not None and len(choices.choices) <= 25, choices
                text = res.text or ""
                assert not any(x in text for x in internal), (command, options, text)
                if command in ANSWERS and not text.startswith("✅"):
                    assert res.ephemeral, (command, options, text)
                    row2, _g = await table.game()
                    after = (row2.state, row2.version, await table.bot.store.log(row2.id))
                    assert after == before, (command, options, text)
                    refused += 1
                    japanese += user is bob and re.search("[\u3040-\u30ff]", text) is not None
                completed += 1
        return refused, completed, japanese

    runs = [asyncio.run(scenario(seed)) for seed in (7, 8, 9)]
    refused, completed, japanese = (sum(r[k] for r in runs) for k in range(3))
    # the typing met the game, in both languages
    assert refused >= 100 and completed >= 150 and japanese >= 20, (refused, completed, japanese)
