"""A ranked daily attempt that runs out of time (issue 10, "Fair play": running out of time
ends it): at 00:00 UTC the day's challenge closes. With a frozen clock, through interactions
only: a move after midnight is refused (even before the day job ran) and the attempt is
unfinished; the day job tells the others in their DMs; the streak breaks but the day is no
loss; and `/rr daily play` then starts today's game, never resumes yesterday's."""

from __future__ import annotations

import asyncio
import datetime as dt
import random

from bot_driver import Clock, Table, make_bot
from harness import FakeUser, Harness

from cogs.daily_job import day_once
from service.daily_slots import slot

LATE = dt.datetime(2026, 11, 22, 23, 0, tzinfo=dt.UTC).timestamp()  # challenge #22, 23:00
AFTER = dt.datetime(2026, 11, 23, 0, 1, tzinfo=dt.UTC).timestamp()  # #23, a minute in
WON = {"won": True, "rounds": 9, "fainted": 0, "marks": 1}


async def midway(h: Harness, user: FakeUser, steps: int = 3) -> Table:
    """The user starts today's challenge in the DM and answers a few questions."""
    dm = h.dm_channel(user)
    res = await h.slash(user, "rr daily play", channel=dm)
    assert "#22" in res.text, res.text
    row = await h.bot.store.open_game(slot(user.id, True))
    assert row is not None
    table = Table(h, dm)
    table.game_id = row.id
    rng = random.Random(user.id % 89)
    for _ in range(steps):
        assert await table.step(rng) is not None
    return table


def test_the_days_end_cuts_off_a_ranked_attempt_unfinished(tmp_path):
    async def scenario():
        clock = Clock(LATE)
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            ann, bob, cy = h.user("ann"), h.user("bob"), h.user("cy", locale="ja")
            daily = h.bot.daily
            # ann finished #21: a streak of one going into the 22nd
            await daily.store.claim(ann.id, "2026-11-21", True, "ann", h.guild_id)
            await daily.store.finish(ann.id, "2026-11-21", True, "finished", WON, None)
            tables = {u.id: await midway(h, u) for u in (ann, bob, cy)}
            clock.now = AFTER
            # before the day job: ann's next answer lands in a closed day — refused
            row, g = await tables[ann.id].game()
            before = len(g.state["log"])
            late = await h.slash(ann, "rr done", channel=h.dm_channel(ann))
            assert late.ephemeral and "#22 ended at 00:00 UTC" in late.text, late.text
            assert "counts as a played loss" in late.text  # as a resign does
            _, g = await tables[ann.id].game()
            assert len(g.state["log"]) == before, "no move recorded after the day's end"
            att = await daily.store.attempt(ann.id, "2026-11-22", True)
            assert att is not None and att.status == "unfinished" and att.score is None
            # cy asks for today's game before the day job: a new game, not #22 resumed
            today = await h.slash(cy, "rr daily play", channel=h.dm_channel(cy))
            assert "#23" in today.text and "開始" in today.text, today.text
            row = await h.bot.store.open_game(slot(cy.id, True))
            assert row is not None and row.settings["daily"]["day"] == "2026-11-23"
            assert row.id != tables[cy.id].game_id
            assert (await daily.store.attempt(cy.id, "2026-11-22", True)).status == "unfinished"
            # the day job ends bob's attempt and tells him in his DM, once
            sent = await day_once(h.bot)
            assert sent["closed"] == 1
            told = [m.text for m in h.messages(h.dm_channel(bob))
                    if "ended at 00:00 UTC" in m.text]
            assert len(told) == 1 and "#22" in told[0]
            assert (await day_once(h.bot))["closed"] == 0
            old = await h.bot.store.get(tables[bob.id].game_id)
            assert old is not None and old.status == "abandoned"
            # the streak is broken, and the unfinished day is a played loss (as a resign)
            stats = await h.slash(ann, "rr daily stats")
            assert "2 played, 1 won (50%)" in stats.text, stats.text
            assert stats.files[0].description and "streak 0" in stats.files[0].description
            # today is a fresh ranked attempt
            fresh = await h.slash(bob, "rr daily play", channel=h.dm_channel(bob))
            assert "#23" in fresh.text and "started" in fresh.text, fresh.text
    asyncio.run(scenario())


def test_resigning_ends_todays_ranked_attempt_scored_lowest(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(LATE))) as h:
            ann, yui = h.user("ann"), h.user("yui", locale="ja")
            none = await h.slash(ann, "rr daily resign", confirm=True)
            assert none.ephemeral and "nothing to resign" in none.text, none.text
            table = await midway(h, ann)
            kept = await h.slash(ann, "rr daily resign", confirm=False)
            assert "goes on" in kept.text
            row, g = await table.game()
            assert row.status == "active"
            rounds = g.state["round"]
            res = await h.slash(ann, "rr daily resign", confirm=True,
                                channel=h.dm_channel(ann))
            assert res.ephemeral and "gave up" in res.text and "Rook & Raiders #22" in res.text
            assert "🏳️" in res.text and "resigned in round" in res.text  # it says so
            att = await h.bot.daily.store.attempt(ann.id, "2026-11-22", True)
            assert att is not None and att.status == "finished"
            assert att.score["outcome"] == "resigned" and att.score["rounds"] == rounds
            row, _ = await table.game()
            assert row.status == "abandoned"
            late = await h.slash(ann, "rr done", channel=h.dm_channel(ann))
            assert late.ephemeral and "✅" not in late.text
            again = await h.slash(ann, "rr daily play")
            assert "played today's ranked challenge already" in again.text
            stats = await h.slash(ann, "rr daily stats")
            assert "1 played" in stats.text and "0%" in stats.text, stats.text
            board = await h.slash(yui, "rr daily leaderboard", scope="everyone")
            assert "Ann" in board.text and "<@" not in board.text  # on the board, last
            # Japanese: the same command, answered in Japanese
            await midway(h, yui)
            ja = await h.slash(yui, "rr daily resign", confirm=True, channel=h.dm_channel(yui))
            assert "降参しました" in ja.text and "ルーク&レイダース #22" in ja.text, ja.text
    asyncio.run(scenario())
