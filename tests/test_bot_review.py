"""`/rr-learn review [game]` through the Discord harness (issue 23, "Game review"): refused
with a clear answer for an unfinished game, a game not in this channel and a daily game
whose day is open; for a finished game the private answer is edited with the progress, then
carries the review's words and its chart; asking again is instant (stored, no progress);
Japanese readers get Japanese."""

from __future__ import annotations

import asyncio
import io
import random

import pytest
from bot_driver import (
    LONG_NAMES,
    Clock,
    Table,
    damage_a_move,
    finished_solo,
    long_named_game,
    make_bot,
)
from harness import Harness
from PIL import Image
from test_bot_daily_review import NEXT_NOON, NOON, play_ranked

import service.review
import service.review_looks
import service.review_record
from cogs.announce import MAX_CONTENT
from cogs.mentions import safe
from store import review_store

PNG = b"\x89PNG"


@pytest.fixture(autouse=True)
def few_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    """One sample per choice, and one decision a seat judged again: these tests are about
    the interface (both passes still run), not the estimate. No more samples where a
    rollout ended the game or in its last rounds (DECIDED_FACTOR, LATE): those weigh the
    estimate (tests/test_review.py), and were half of these tests' judging."""
    monkeypatch.setattr(service.review_looks, "SAMPLES", 1)
    monkeypatch.setattr(service.review_looks, "RECHECK", 1)
    monkeypatch.setattr(service.review_looks, "DECIDED_FACTOR", 1)
    monkeypatch.setattr(service.review_looks, "LATE", 0)


def test_review_refuses_then_edits_progress_and_attaches_the_chart(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3),
                           settle_timeout=600) as h:
            ann, bob = h.user("ann"), h.user("bob")
            ann.global_name = ann.nick = "**Ann**<@&1234567890123456789>"  # typed markdown
            table = Table(h)
            await table.open(ann, players=1, difficulty="easy")
            row, _g = await table.game()
            early = await h.slash(ann, "rr-learn review")
            assert early.ephemeral and not early.files
            assert f"Game {row.id} has not ended yet" in early.text, early.text
            await table.play(random.Random(1))
            row, g = await table.game()
            assert g.over
            wrong = await h.slash(bob, "rr-learn review", game=row.id + 50)
            assert not wrong.files and f"There is no game {row.id + 50} in this channel" \
                in wrong.text
            res = await h.slash(bob, "rr-learn review")
            msg = res.message
            assert res.ephemeral and msg is not None
            # the same message was edited while the expert worked, then became the review
            shown = [str(v.get("content", "")) for v in msg.history]
            assert any(f"The expert is reviewing game {row.id}" in c and "judgements (every decision "
                       "once, the close calls again)" in c for c in shown), shown
            assert f"Game {row.id}: the expert's review" in msg.text, msg.text
            assert "accuracy" in msg.text and "Ann" in msg.text
            # a name is literal text: no bold, no role pill
            assert "\\*\\*Ann\\*\\*<\u200b@" in msg.text and "**Ann**" not in msg.text
            chart = msg.files[0]
            assert chart.filename == f"review-{row.id}.png" and chart.data.startswith(PNG)
            assert Image.open(io.BytesIO(chart.data)).width == 800
            stored = await service.review.Reviewer(review_store(h.bot.store)).stored(row.id)
            assert stored is not None and stored.seats[0].seat == 0
            # again: instant, from the store, no progress edits
            again = await h.slash(ann, "rr-learn review", game=row.id)
            assert not [v for v in again.message.history  # only the deferred "thinking…"
                        if "reviewing" in str(v.get("content", ""))], again.message.history
            assert again.text == msg.text and again.files[0].data == chart.data
            yui = h.user("yui", locale="ja")
            ja = await h.slash(yui, "rr-learn review", game=row.id)
            assert "熟練AIの講評" in ja.text and "正確度" in ja.text
            assert ja.files[0].data != chart.data  # the chart's words in Japanese
    asyncio.run(scenario())


def test_a_daily_game_is_reviewed_only_once_its_day_has_closed(tmp_path):
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock),
                           settle_timeout=600) as h:
            ann = h.user("ann")
            await play_ranked(h, ann)
            day = "2026-11-23"
            att = await h.bot.daily.store.attempt(ann.id, day, True)
            assert att is not None and att.game_id is not None
            early = await h.slash(ann, "rr-learn review", channel=h.dm_channel(ann))
            assert not early.files and "Daily #23 is still open" in early.text, early.text
            named = await h.slash(ann, "rr-learn review", game=att.game_id,
                                  channel=h.dm_channel(ann))
            assert not named.files and "which is still open" in named.text, named.text
            clock.now = NEXT_NOON
            res = await h.slash(ann, "rr-learn review", channel=h.dm_channel(ann))
            assert res.files and res.files[0].filename == f"review-{att.game_id}.png", res.text
    asyncio.run(scenario())


def test_a_review_outliving_the_interaction_token_says_how_to_get_it(tmp_path,
                                                                      monkeypatch):
    """Discord takes edits of an interaction's answer for 15 minutes only (then 401). A
    review queued behind others can take longer: before the token expires the answer says
    the review is still being computed and how to ask again — not a progress line left on
    screen for good by an edit Discord refused — and asking again shows the stored review.
    The lifetimes are shrunk (token 3 s, the note at 0.5 s, a review of 3.5 s and more)."""
    import cogs.review
    monkeypatch.setattr(cogs.review, "LATE_S", 0.5, raising=False)
    slow = service.review.Reviewer._compute

    async def queued(self, *args, **kwargs):
        await asyncio.sleep(3.5)  # waiting for the workers behind other reviews
        return await slow(self, *args, **kwargs)
    monkeypatch.setattr(service.review.Reviewer, "_compute", queued)

    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3),
                           settle_timeout=600, timer_horizon=10.0) as h:
            h.server.token_lifetime = 3.0
            ann = h.user("ann")
            table = Table(h)
            await table.open(ann, players=1, difficulty="easy")
            await table.play(random.Random(1))
            row, _g = await table.game()
            res = await h.slash(ann, "rr-learn review")
            assert res.ephemeral and res.message is not None
            assert "still reviewing game" in res.message.text, res.message.text
            assert f"`/rr-learn review game:{row.id}`" in res.message.text
            assert not [r for r in h.http.requests if r.status == 401], "an edit after expiry"
            stored = await service.review.Reviewer(review_store(h.bot.store)).stored(row.id)
            assert stored is not None  # computed to the end and kept
            again = await h.slash(ann, "rr-learn review", game=row.id)
            assert f"Game {row.id}: the expert's review" in again.text and again.files
    asyncio.run(scenario())


def test_a_four_player_review_is_shown_whole_in_several_messages(tmp_path):
    """A review of four people with long names (escaped where printed), each with three
    named mistakes, is longer than one Discord message: it is shown whole — every seat's
    lines and the footer — in as many private messages as it takes, never cut at 2,000
    characters."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=11),
                           settle_timeout=600) as h:
            users, row, g = await long_named_game(h, 3)
            # the stored review a game of novices gets: three costly decisions each
            every = service.review_looks.decisions(row.setup, await h.bot.store.log(row.id),
                                             range(4), await h.bot.store.authors(row.id))
            seats = []
            for s in range(4):
                mine = [d for d in every if d.seat == s]
                assert len({d.round for d in mine}) >= 3, (s, len(mine))
                # the longest answers cost the most: the longest lines are named
                seats.append(service.review_record.SeatReview(s, [
                    service.review_record.Point(d.index, d.round, d.kind, d.played, 0.05, d.played,
                                         min(0.95, 0.2 + 0.02 * len(d.played)))
                    for d in mine]))
            review = service.review_record.Review(row.id, seats, 4, row.id)
            await review_store(h.bot.store).save(row.id, review.to_json())
            res = await h.slash(users[1], "rr-learn review")
            shown = [m for m in (res.message, *res.followups) if m is not None]
            assert all(m.ephemeral for m in shown)
            text = "\n".join(m.text for m in shown)
            assert len(text) > MAX_CONTENT and len(shown) > 1, len(text)
            assert all(len(m.text) <= MAX_CONTENT for m in shown)
            assert "…" not in text  # nothing clipped
            for name in LONG_NAMES:  # every seat's review, its three mistakes named
                assert text.count(safe(name)) >= 4, name
            assert "docs/review.md" in text  # the footer, last
            assert sum(len(m.files) for m in shown) == 1  # the chart, once
    asyncio.run(scenario())


def test_a_finished_game_whose_log_was_damaged_since_it_was_verified_is_reviewed(tmp_path):
    """The fault-injection audit: a finished game's log damaged while the bot had the game
    verified in memory (as /rr-recap's test damages it) was reviewed from the stored rows,
    whose replay failed on the damaged one: 'could not be computed just now; please try
    again in a moment', and every ask failed the same way until a restart. The review now
    replays the log as verified, as the recap does (a restart then reports the damage)."""
    async def scenario():
        db = tmp_path / "g.db"
        async with Harness(lambda: make_bot(db, Clock(), seed=3), settle_timeout=600) as h:
            ann = h.user("ann")
            _table, row, _g = await finished_solo(h, ann)
            damage_a_move(db, row.id)
            res = await h.slash(ann, "rr-learn review", game=row.id)
            said = [m.text for m in res.messages]
            assert not [x for x in said if "could not be computed" in x], said
            assert f"Game {row.id}: the expert's review" in res.text, said
    asyncio.run(scenario())


def test_asking_again_while_a_late_review_is_computed_shows_how_far_it_is(tmp_path,
                                                                          monkeypatch):
    """A review still computing when its answer's token runs out says so and asks the
    player to ask again. Before, asking again while it was still computing showed only
    "The expert is reviewing game N…" until the end (the counts went to the first ask
    alone, whose message Discord no longer let the bot edit): no sign the review was
    under way, or how far. Now the new ask shows the judgements done, as the first did.
    The lifetimes are shrunk (the first ask's note at 0.3 s, each judgement 30 ms)."""
    import cogs.review
    monkeypatch.setattr(cogs.review, "LATE_S", 0.3)
    monkeypatch.setattr(cogs.review, "PROGRESS_S", 0.1)
    judge = service.review.judge

    def slow(*args):
        import time
        time.sleep(0.03)  # (in a worker thread)
        return judge(*args)
    monkeypatch.setattr(service.review, "judge", slow)

    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3),
                           settle_timeout=600, timer_horizon=10.0) as h:
            ann = h.user("ann")
            table = Table(h)
            await table.open(ann, players=1, difficulty="easy")
            await table.play(random.Random(1))
            row, _g = await table.game()
            first = h.deliver(h.slash_payload(ann, "rr-learn review"), ann, h.channel)
            while first.message is None or "still reviewing" not in first.message.text:
                await asyncio.sleep(0.05)
            monkeypatch.setattr(cogs.review, "LATE_S", 600.0)  # the new ask's token is young
            again = await h.slash(ann, "rr-learn review", game=row.id)
            shown = [str(v.get("content", "")) for v in again.message.history]
            assert any(f"The expert is reviewing game {row.id}:" in c and "judgements" in c
                       for c in shown), shown
            assert f"Game {row.id}: the expert's review" in again.text and again.files
    asyncio.run(scenario())
