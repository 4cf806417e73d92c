"""Issue 24: when a game ends the bot posts its animated recap once, after the game-over
post; `/rr recap [game]` shows a finished game of this channel again (only to the caller)
and says clearly why when it cannot; a daily game's recap is never posted at its end (the
day has not closed: its review is where it goes)."""

from __future__ import annotations

import asyncio
import io
import random
import sqlite3
import threading
import time

from bot_driver import Clock, Table, damage_a_move, finished_solo, make_bot
from harness import Harness
from PIL import Image
from test_bot_daily_review import DAY, NEXT_NOON, NOON, play_ranked

from cogs import recap
from cogs.announce import DRAWING
from render.recap import LIMIT
from service.replay import replay


def public(h):
    return [m for m in h.messages() if not m.ephemeral and m.dm_user_id is None]


def recaps(messages):
    return [(m, f) for m in messages for f in m.files if f.filename.startswith("recap-")]


def test_recap_posted_once_at_game_end_and_on_demand(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            table = Table(h)
            await table.open(ann, players=1, difficulty="easy")
            # before the end: nothing posted, and the command says the game is still on
            res = await h.slash(bob, "rr-recap")
            row, _g = await table.game()
            assert res.ephemeral and not res.files
            assert f"Game {row.id} has not ended yet" in res.text, res.text
            assert not recaps(public(h))

            await table.play(random.Random(1))
            row, g = await table.game()
            assert g.over
            posted = recaps(public(h))
            assert len(posted) == 1, [m.text for m, _ in posted]  # once
            msg, f = posted[0]
            assert f.filename == f"recap-{row.id}.gif" and len(f.data) < LIMIT
            # after the game-over post (the last public message before it tells the end)
            pub = public(h)
            assert pub[-1] is msg and "Game over" in "\n".join(m.text for m in pub[-3:-1])
            im = Image.open(io.BytesIO(f.data))
            log = await table.bot.store.log(row.id)
            assert row.setup is not None
            frames = replay(row.setup, log).frames
            assert im.n_frames == len(frames) + 1  # the title, then one per phase

            # on demand: the same image, only to the caller
            again = await h.slash(bob, "rr-recap")
            assert again.ephemeral and again.files[0].filename == f"recap-{row.id}.gif"
            assert again.files[0].data == f.data
            named = await h.slash(bob, "rr-recap", game=row.id)
            assert named.files and named.files[0].data == f.data
            # a number that is no game of this channel: a clear answer, nothing posted
            posts = len(public(h))
            wrong = await h.slash(bob, "rr-recap", game=row.id + 50)
            assert wrong.ephemeral and not wrong.files
            assert wrong.text.startswith(f"⛔ There is no game {row.id + 50} in this channel")
            yui = h.user("yui", locale="ja")
            ja = await h.slash(yui, "rr-recap", game=row.id + 50)
            assert "このチャンネルにゲーム" in ja.text
            assert len(public(h)) == posts
            after, _ = await table.game()
            assert (after.version, after.state) == (row.version, row.state)
            # many asked at once: drawn in the announcer's workers, DRAWING at a time (a
            # long game's recap takes a few hundred MB while drawn; the audit's four at once
            # on the bot's own threads took 2.5 GB)
            drawing = {"now": 0, "most": 0}
            real = recap.recap_gif_of

            def counted(*args, **kwargs):
                drawing["now"] += 1
                drawing["most"] = max(drawing["most"], drawing["now"])
                try:
                    time.sleep(0.05)  # long enough for the others to start, were they free
                    return real(*args, **kwargs)
                finally:
                    drawing["now"] -= 1
            recap.recap_gif_of = counted
            try:
                users = [h.user(f"fan{k}") for k in range(DRAWING + 2)]
                got = await h.gather(*(h.slash(u, "rr-recap", game=row.id) for u in users))
            finally:
                recap.recap_gif_of = real
            assert all(r.files and r.files[0].data == f.data for r in got)
            assert 1 <= drawing["most"] <= DRAWING < len(users), drawing
    asyncio.run(scenario())


def test_daily_recap_never_before_the_day_closes(tmp_path):
    """A daily game ends with no recap posted (it would give the day away); `/rr-recap` in
    the player's DMs refuses while the day is open, and after it closed shows their own
    game — nobody else's."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            await play_ranked(h, ann)
            att = await h.bot.daily.store.attempt(ann.id, DAY.isoformat(), True)
            assert att is not None and att.game_id is not None and att.status == "finished"
            assert not recaps(h.messages()), "a daily recap was posted before the day closed"
            early = await h.slash(ann, "rr-recap", channel=h.dm_channel(ann))
            assert early.ephemeral and not early.files
            assert "Daily #23 is still open" in early.text, early.text
            named = await h.slash(ann, "rr-recap", game=att.game_id, channel=h.dm_channel(ann))
            assert not named.files and "Daily #23 is still open" in named.text

            clock.now = NEXT_NOON  # the day has closed
            res = await h.slash(ann, "rr-recap", channel=h.dm_channel(ann))
            assert res.ephemeral and res.files[0].filename == f"recap-{att.game_id}.gif"
            im = Image.open(io.BytesIO(res.files[0].data))
            row = await h.bot.store.get(att.game_id)
            assert im.n_frames == len(replay(row.setup, await h.bot.store.log(row.id)).frames) + 1
            other = await h.slash(bob, "rr-recap", game=att.game_id, channel=h.dm_channel(bob))
            assert not other.files and f"Game {att.game_id} is not a daily game of yours" \
                in other.text
            none = await h.slash(bob, "rr-recap", channel=h.dm_channel(bob))
            assert not none.files and "You did not play the daily challenge of 2026-11-23" \
                in none.text
            assert not recaps(m for m in h.messages() if not m.ephemeral)
    asyncio.run(scenario())


def test_a_finished_game_whose_record_is_damaged_says_so(tmp_path):
    """The community audit: a finished game's log damaged while the bot had the game in
    memory answered `/rr-recap` with the engine's refusal of the damaged row ("You cannot
    pick 'nonsense' now"); after a restart, with the channel's words for a game in play
    (abandon it, open a new one). Now the recap is drawn from the log as verified, and
    after a restart the player reads that the finished game's record is damaged."""
    db, clock, kept = tmp_path / "g.db", Clock(), {}

    async def first_life():
        async with Harness(lambda: make_bot(db, clock, seed=3)) as h:
            ann = h.user("ann")
            _table, row, _g = await finished_solo(h, ann)
            damage_a_move(db, row.id)
            res = await h.slash(ann, "rr-recap")
            assert res.files and "cannot pick" not in res.text, res.text
            kept.update(server=h.server, ann=ann)

    async def second_life():
        async with Harness(lambda: make_bot(db, clock, seed=4), server=kept["server"]) as h:
            res = await h.slash(kept["ann"], "rr-recap")
            assert res.ephemeral and not res.files
            assert "is over, and its saved record is damaged" in res.text, res.text
            assert "abandon" not in res.text and "cannot pick" not in res.text

    asyncio.run(first_life())
    asyncio.run(second_life())


def test_a_daily_record_naming_another_players_game_shows_no_recap(tmp_path):
    """The reliability audit: `/rr-recap` in the DMs read the caller's daily attempt's
    `game_id` as it stood, so a damaged one naming another player's game (or a channel's)
    drew that game for them; the other daily paths read it through `attempt_game`, which
    takes only the attempt's own game. Now the recap does too: no game of theirs."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            await play_ranked(h, ann)
            att = await h.bot.daily.store.attempt(ann.id, DAY.isoformat(), True)
            await h.bot.daily.store.claim(bob.id, DAY.isoformat(), True, "bob", h.guild_id)
            with sqlite3.connect(tmp_path / "d.db") as con:
                con.execute("UPDATE daily_attempts SET game_id=? WHERE user_id=?",
                            (att.game_id, bob.id))
            clock.now = NEXT_NOON  # the day has closed
            res = await h.slash(bob, "rr-recap", channel=h.dm_channel(bob))
            assert not res.files, "another player's daily game was drawn"
            assert "You did not play the daily challenge of 2026-11-23" in res.text, res.text
            mine = await h.slash(ann, "rr-recap", channel=h.dm_channel(ann))
            assert mine.files[0].filename == f"recap-{att.game_id}.gif"
    asyncio.run(scenario())


def test_a_recap_stopped_at_its_drawing_time_is_said_and_can_be_asked_again(tmp_path,
                                                                            monkeypatch):
    """A recap whose drawing was stopped at the announcer's job limit (DRAW_JOB_S: a loaded
    machine, a drawing that would never end) is said in words, not "something went
    wrong"; the game is untouched and the next ask draws it."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3)) as h:
            ann = h.user("ann")
            await finished_solo(h, ann)
            drawn = recap.recap_gif_of

            def stopped(*args, **kwargs):
                raise TimeoutError
            monkeypatch.setattr(recap, "recap_gif_of", stopped)
            res = await h.slash(ann, "rr-recap")
            assert res.ephemeral and not res.files
            assert "could not be drawn just now" in res.text, res.text
            assert "went wrong" not in res.text
            monkeypatch.setattr(recap, "recap_gif_of", drawn)
            res = await h.slash(ann, "rr-recap")
            assert res.files and res.files[0].filename.startswith("recap-"), res.text
    asyncio.run(scenario())


def test_a_recap_that_waits_too_long_for_the_drawing_workers_is_said_in_time(tmp_path,
                                                                             monkeypatch):
    """A recap queued behind many drawings (a busy evening: every game's images, other
    recaps) is answered before Discord's 15 minutes for the interaction run out: after
    RECAP_WAIT_S the asker reads that it could not be drawn just now. Before, the reply
    went out after the token had expired, and nobody saw it."""
    release = threading.Event()

    def slow(*args, **kwargs):
        release.wait(30)
        raise TimeoutError  # the test's drawing never finishes on its own

    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3)) as h:
            ann = h.user("ann")
            await finished_solo(h, ann)
            monkeypatch.setattr(recap, "recap_gif_of", slow)
            monkeypatch.setattr(recap, "RECAP_WAIT_S", 0.5)
            try:
                began = time.monotonic()
                res = await h.slash(ann, "rr-recap")
                assert time.monotonic() - began < 10  # not when the drawing gives up (30 s)
                assert res.ephemeral and not res.files
                assert "could not be drawn just now" in res.text, res.text
            finally:
                release.set()
    asyncio.run(scenario())
