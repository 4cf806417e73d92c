"""No player left un-notified, no interaction applied twice, no fault that stops the games.

Through discord.py with only the HTTP edge faked: a bot killed between a commit and its
announcement (the database copied at that instant, as a crash leaves it) tells it when the
next process starts — once; a redelivered interaction applies once and gets the same
answer; Discord failing in the middle of an announcement sends the rest later without
repeating what went out; a COMMIT and its ROLLBACK failing leave every game playing and
timing out."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import random
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest
from bot_driver import Clock, Table, make_bot
from harness import Harness

import bot as entry
import cogs.delivery
import cogs.outbox
from cogs.bot import RookBot
from store import Store

HOUR = 3600


def crash_copy(src: Path, dst: Path) -> None:
    """What a killed process leaves behind: the database file and its write-ahead log."""
    shutil.copyfile(src, dst)
    wal = Path(f"{src}-wal")
    if wal.exists():
        shutil.copyfile(wal, Path(f"{dst}-wal"))


def public(h: Harness) -> list[Any]:
    return [m for m in h.messages() if not m.ephemeral and m.dm_user_id is None]


def killed_before_a_ping(live: Path, crashed: Path, clock: Clock) -> dict[str, Any]:
    """A two-player game played until a move asks the other player something; the process
    is killed (`crash_copy` of its database) as that move's notice is about to be told:
    the notice's body, the server, the game and how many public messages were told."""
    kept: dict[str, Any] = {}

    async def first_life() -> None:
        async with Harness(lambda: make_bot(live, clock, seed=5)) as h:
            table = Table(h)
            await table.open(h.user("ann"), [h.user("bob")], players=2)
            bot = table.bot
            real_tell = bot.announcer.tell

            async def tell(notice, send, **kw):
                body = next((n.body for n in await bot.store.notices() if n.id == notice), None)
                if "body" not in kept and body and body["kind"] == "move" and \
                        any(s != body["actor"] for s in body["prompts"]):
                    crash_copy(live, crashed)  # the process dies here: nothing is told
                    kept["body"] = body
                    return False
                return await real_tell(notice, send, **kw)

            bot.announcer.tell = tell  # type: ignore[method-assign]
            rng = random.Random(4)
            for _ in range(80):
                await table.step(rng)
                if "body" in kept:
                    break
            assert "body" in kept, "no move asked another player something"
            kept.update(server=h.server, game_id=table.game_id, told=len(public(h)))

    asyncio.run(first_life())
    return kept


def test_killed_between_commit_and_announcement_the_next_process_pings_at_startup_once(
        tmp_path):
    live, crashed = tmp_path / "live.db", tmp_path / "crashed.db"
    clock = Clock()
    kept = killed_before_a_ping(live, crashed, clock)

    async def later_life(expect: int) -> int:
        async with Harness(lambda: make_bot(crashed, clock, seed=99),
                           server=kept["server"]) as h:
            table = Table(h)
            table.game_id = kept["game_id"]
            sent = await table.bot._notifier  # the startup delivery, before any tick
            assert sent == expect
            row, g = await table.game()
            new = public(h)[kept["told"]:]
            for seat in kept["body"]["prompts"]:
                if seat != kept["body"]["actor"] and g.decision(seat) is not None:
                    mention = f"<@{row.seats[seat]['user']}>"
                    pings = [m for m in new if m.content.startswith(mention)]
                    assert len(pings) == expect, (mention, [m.content for m in new])
                    assert not expect or pings[0].buttons or "/rr" in pings[0].content
            assert await table.bot.store.notices() == []
            kept["told"] = len(public(h))
            return len(new)

    assert asyncio.run(later_life(1)) >= 1  # the move's story and the ping go out
    assert asyncio.run(later_life(0)) == 0  # and only once: a further restart sends nothing


@pytest.mark.parametrize("progress", ["999", "'x'", "-3"])
def test_an_unreadable_delivery_progress_tells_the_notice_from_the_start(tmp_path, progress):
    """The reliability audit: a pending notice whose stored progress (`parts_done`) said
    more messages were sent than the notice has (a damaged row) counted as told with
    nothing sent: the ping was lost, silently. Such a progress, or one that is not a count,
    now tells the notice from its first message, once."""
    live, crashed = tmp_path / "live.db", tmp_path / "crashed.db"
    clock = Clock()
    kept = killed_before_a_ping(live, crashed, clock)
    with sqlite3.connect(crashed) as con:
        assert con.execute(f"UPDATE outbox SET parts_done={progress}").rowcount == 1

    async def later_life():
        async with Harness(lambda: make_bot(crashed, clock, seed=99),
                           server=kept["server"]) as h:
            table = Table(h)
            table.game_id = kept["game_id"]
            assert await table.bot._notifier == 1
            row, g = await table.game()
            new = public(h)[kept["told"]:]
            waiting = [s for s in kept["body"]["prompts"]
                       if s != kept["body"]["actor"] and g.decision(s) is not None]
            assert waiting
            for seat in waiting:
                mention = f"<@{row.seats[seat]['user']}>"
                assert len([m for m in new if m.content.startswith(mention)]) == 1, \
                    [m.content for m in new]
            assert await table.bot.store.notices() == []
    asyncio.run(later_life())


def test_a_redelivered_interaction_applies_once_and_gets_the_same_answer(tmp_path):
    """Before: `/rr settings autosave:on` delivered twice was applied twice; a button
    click delivered twice was refused the second time as out of date."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            table = Table(h)
            await table.open(ann, [bob], players=2)
            seen: list[dict[str, Any]] = []
            build = h._interaction_payload

            def recording(*args: Any, **kwargs: Any) -> dict[str, Any]:
                payload = build(*args, **kwargs)
                seen.append(copy.deepcopy(payload))
                return payload

            h._interaction_payload = recording  # type: ignore[method-assign]
            first = await table.slash(ann, "rr settings", autosave=True)
            again = await h.interact(copy.deepcopy(seen[-1]), ann, table.channel)
            # the same answer: what was applied (plus the question as it stands now)
            assert first.text.startswith("✅") and again.text.split("\n")[0] == first.text.split("\n")[0]
            row, g = await table.game()
            log = await table.bot.store.log(row.id)
            assert [t for _, t in log].count("autosave on") == 1
            assert g.state["players"][0]["autosave"]
            # a click delivered twice: applied once, the same reply both times
            rng = random.Random(1)
            for _ in range(60):
                row, g = await table.game()
                picks = [(s, g.decision(s)) for s in g.waiting_for()
                         if g.decision(s)["kind"] == "pick"]
                if picks:
                    break
                await table.step(rng)
            seat, dec = picks[0]
            user = table.user(row, seat)
            found = table.find_button(user, row.id, seat, dec["id"], "pick")
            assert found
            before = len(await table.bot.store.log(row.id))
            first = await table.click(user, found)
            again = await h.interact(copy.deepcopy(seen[-1]), user, table.channel,
                                     component_message=found[0])
            assert first.text.startswith("✅"), first.text
            assert again.text.split("\n")[0] == first.text.split("\n")[0]
            log = await table.bot.store.log(row.id)
            assert [s for s, _ in log[before:]].count(seat) == 1
    asyncio.run(scenario())



async def half_told(h: Harness) -> tuple[Any, int, Callable[[], None]]:
    """A 2-player game (seed 6) played at random until an announcement went out in part:
    its first message taken, Discord failing the rest (503) and the outbox keeping the
    notice to tell from there. The bot, how many public posts there were before that
    announcement, and what brings Discord back."""
    table = Table(h)
    await table.open(h.user("ann"), [h.user("bob")], players=2)
    state = {"armed": False, "passed": 0}

    def down(request: Any) -> bool:
        if not state["armed"]:
            return False
        if state["passed"] < 1:  # the announcement's first message goes through
            state["passed"] += 1
            return False
        return True

    h.http.fail("POST", "/channels/{channel_id}/messages", status=503, times=None,
                when=down)
    rng = random.Random(2)
    pending, mark = [], 0
    for _ in range(60):
        state.update(armed=True, passed=0)
        mark = len(public(h))
        await table.step(rng)
        pending = await table.bot.store.notices()
        if pending:
            break
    assert pending and pending[0].parts_done >= 1, pending
    return table.bot, mark, lambda: state.update(armed=False)


def test_discord_failing_mid_announcement_sends_the_rest_later_without_repeats(tmp_path,
                                                                            monkeypatch):
    monkeypatch.setattr(cogs.outbox, "NOTICE_RETRY_S", (0.0,))
    monkeypatch.setattr(cogs.delivery, "RETRY_DELAYS", (0.0, 0.0))

    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=6)) as h:
            bot, mark, discord_back = await half_told(h)
            partial = [m.content for m in public(h)[mark:]]
            discord_back()
            await bot.tick_once()  # Discord is back: the worker sends the rest
            assert await bot.store.notices() == []
            told = [m.content for m in public(h)[mark:]]
            assert told[:len(partial)] == partial and len(told) > len(partial)
            assert len(told) == len(set(told)), told  # nothing sent twice
    asyncio.run(scenario())


async def slowed_second_post(h: Harness, table: Table, rng: random.Random) -> tuple[
        asyncio.Task[Any], int, Any]:
    """Moves at random until a live announcement's second message is rate-limited by
    Discord (429, retried after half a second) while its first went out: the move's task
    (still telling), how many public posts there were before it, and the refused request."""
    for _ in range(60):
        seen = {"n": 0}

        def second(_request: Any, seen: dict[str, int] = seen) -> bool:
            seen["n"] += 1
            return seen["n"] == 2

        rule = h.http.fail("POST", f"/channels/{h.channel.id}/messages", status=429,
                           retry_after=0.5, when=second)
        before = len(public(h))
        step = asyncio.create_task(table.step(rng))
        for _ in range(100):  # bounded: the rate limit hit, or the move told without it
            if rule.hits or step.done():
                break
            await asyncio.sleep(0.01)
        if rule.hits and not step.done():
            refused = next(r for r in reversed(h.http.requests) if r.status == 429)
            return step, before, refused
        rule.times = 0  # (disarmed: this move's announcement had one message)
        await step
        await h.settle()
    raise AssertionError("no announcement of two messages")


def test_a_retried_announcement_waits_for_a_live_one_still_posting(tmp_path, monkeypatch):
    """An announcement Discord failed in part is retried by the outbox pass while a live
    one is posting (its second message rate-limited by Discord): the retry's messages went
    out between the live announcement's, so a player read half of one move, then the rest
    of an older one, then the end of the first. The retry takes the channel's turn, as
    live announcements, reminders and set-aside posts do: after the live one, whole."""
    monkeypatch.setattr(cogs.outbox, "NOTICE_RETRY_S", (0.0,))
    monkeypatch.setattr(cogs.delivery, "RETRY_DELAYS", (0.0, 0.0))

    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=6)) as h:
            bot, mark, discord_back = await half_told(h)
            discord_back()
            assert len(await bot.store.notices()) == 1
            table = Table(h)
            table.game_id = (await bot.service.tables.current(h.channel.id))[0].id
            step, before, refused = await slowed_second_post(h, table, random.Random(5))
            await bot.deliver_notices()  # the outbox pass, while the live one waits
            await step
            await h.settle()
            assert await bot.store.notices() == []
            posts = [m.content for m in public(h)[before:]]
            assert len(posts) > 2 and posts[1] == refused.json.get("content"), posts
            told = [m.content for m in public(h)[mark:]]
            assert len(told) == len(set(told)), told  # nothing sent twice
    asyncio.run(scenario())


class Flaky(sqlite3.Connection):
    """COMMIT and ROLLBACK fail once when armed (see tests/test_store_faults.py)."""

    plan: ClassVar[dict[str, Any]] = {}

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        if sql == "COMMIT" and (mode := self.plan.pop("commit", None)):
            if mode == "after":  # the data reaches the file, yet COMMIT reports an error
                super().execute(sql, *args)
            raise sqlite3.OperationalError("disk I/O error (injected)")
        if sql == "ROLLBACK" and self.plan.pop("rollback", False):
            raise sqlite3.OperationalError("disk I/O error (injected)")
        return super().execute(sql, *args)


def test_failed_commits_leave_every_game_playing_and_timing_out(tmp_path):
    """Before: after a COMMIT and its ROLLBACK failed, every write of every game raised
    until a restart; a COMMIT that failed after reaching the file told the player
    'nothing was changed' although the move was stored."""
    async def scenario():
        Flaky.plan = {}
        clock = Clock()
        store = await Store(str(tmp_path / "g.db"), factory=Flaky).open()
        config = entry.Config(token=None, db_path=str(tmp_path / "g.db"), tick_seconds=3600.0)
        try:
            async with Harness(lambda: RookBot(config, store=store, clock=clock,
                                               seed_source=lambda: 8)) as h:
                ann, bob = h.user("ann"), h.user("bob")
                one, two = Table(h), Table(h, h.text_channel("two"))
                await one.open(ann, [bob], players=2, hours=1)
                await two.open(bob, [ann], players=2, hours=1)
                Flaky.plan.update(commit=True, rollback=True)
                res = await one.slash(ann, "rr settings", autosave=True,
                                      expect_error=sqlite3.OperationalError)
                assert "nothing was changed" in res.text
                assert not Flaky.plan
                row, g = await one.game()
                assert not g.state["players"][0]["autosave"]
                # a COMMIT that fails after reaching the file: the player is told it is done
                Flaky.plan.update(commit="after")
                res = await two.slash(bob, "rr settings", autosave=True)
                assert res.text.startswith("✅"), res.text
                row, g = await two.game()
                assert g.state["players"][0]["autosave"]
                assert [t for _, t in await two.bot.store.log(row.id)].count("autosave on") == 1
                # both games go on: moves, then the time limit of each
                rng = random.Random(5)
                await two.step(rng)
                await one.step(rng)
                versions = [(await t.game())[0].version for t in (one, two)]
                clock.now += 1.1 * HOUR
                assert await one.bot.tick_once() >= 2
                said = " ".join(m.text for m in public(h)[-12:])
                assert said.count("ran out of time") >= 2, said
                after = [(await t.game())[0].version for t in (one, two)]
                assert all(a > v for a, v in zip(after, versions, strict=True))
        finally:
            await store.close()
    asyncio.run(scenario())


def test_a_crash_after_the_start_or_a_reminder_is_committed_still_tells_them(tmp_path):
    """Before: a crash between the start's two transactions left a game with no timers and
    no pings for ever; a reminder marked sent but not sent was never sent."""
    clock = Clock()
    dbs = {k: tmp_path / f"{k}.db" for k in ("live", "start", "remind")}
    kept: dict[str, Any] = {}

    async def first_life():
        async with Harness(lambda: make_bot(dbs["live"], clock, seed=9)) as h:
            table = Table(h)
            bot = table.bot
            real_tell = bot.announcer.tell

            async def tell(notice, send, **kw):
                body = next((n.body for n in await bot.store.notices() if n.id == notice), {})
                if body.get("kind") in ("start", "remind") and body["kind"] not in kept:
                    crash_copy(dbs["live"], dbs[body["kind"]])  # died: nothing told
                    kept[body["kind"]] = len(public(h))
                    return False
                return await real_tell(notice, send, **kw)

            bot.announcer.tell = tell  # type: ignore[method-assign]
            await table.open(h.user("ann"), [h.user("bob")], players=2, hours=1)
            assert not any("<@" in m.content for m in public(h)[kept["start"]:])
            clock.now += 0.8 * HOUR
            assert await bot.tick_once() >= 1
            assert "remind" in kept
            kept.update(server=h.server, game_id=table.game_id)

    async def restarted(db: Path, since: int, notices: int) -> list[str]:
        async with Harness(lambda: make_bot(db, clock, seed=99), server=kept["server"]) as h:
            # the start's notice (and, in the later copy, the reminders) went out at startup
            assert await h.bot._notifier == notices  # type: ignore[attr-defined]
            assert await h.bot.store.notices() == []  # type: ignore[attr-defined]
            return [m.content for m in public(h)[since:]]

    asyncio.run(first_life())
    told = asyncio.run(restarted(dbs["start"], kept["start"], 1))
    users = [u.mention for u in (kept["server"].users.values()) if u.name in ("ann", "bob")]
    assert any("1. <@" in m and "2. <@" in m for m in told), told  # who sits where
    assert all(any(m.startswith(u) for m in told) for u in users), told  # both pinged
    told = asyncio.run(restarted(dbs["remind"], kept["remind"], 1 + 2))  # start, 2 reminders
    assert any(m.startswith("⏰ <@") for m in told), told


def test_a_competing_writer_gets_a_clear_refusal_and_other_games_still_answer(tmp_path):
    async def scenario():
        db = tmp_path / "g.db"
        async with Harness(lambda: make_bot(db, Clock(), seed=4)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            one, two = Table(h), Table(h, h.text_channel("two"))
            await one.open(ann, [bob], players=2)
            await two.open(bob, [ann], players=2)
            other = sqlite3.connect(db, isolation_level=None)
            other.execute("BEGIN IMMEDIATE")  # e.g. a backup tool or a hand-run UPDATE
            try:
                res = await one.slash(ann, "rr settings", autosave=True)
                assert "busy" in res.text and "nothing was changed" in res.text, res.text
                status = await two.slash(bob, "rr status")  # reads never wait for the lock
                assert status.ephemeral and "<t:" in status.text, status.text
            finally:
                other.execute("ROLLBACK")
                other.close()
            row, g = await one.game()
            assert not g.state["players"][0]["autosave"]
            res = await one.slash(ann, "rr settings", autosave=True)
            assert res.text.startswith("✅"), res.text
    asyncio.run(scenario())


def test_a_crash_right_after_abandon_still_tells_the_channel_once(tmp_path):
    """The fault-injection audit: `/rr abandon`'s post was sent straight after the commit,
    outside the outbox, so a process killed (or Discord down) at that moment left the
    channel never told its game was gone. The notice is now written with the status and
    the next process tells it at startup, once."""
    live, crashed = tmp_path / "live.db", tmp_path / "crashed.db"
    clock = Clock()
    kept: dict[str, Any] = {}

    async def first_life():
        async with Harness(lambda: make_bot(live, clock, seed=5)) as h:
            table, ann = Table(h), h.user("ann")
            await table.open(ann, [h.user("bob")], players=2)
            bot = table.bot

            async def killed(notice, send, **kw):
                crash_copy(live, crashed)  # the process dies here: nothing is told
                return False

            bot.announcer.tell = killed  # type: ignore[method-assign]
            res = await table.slash(ann, "rr abandon", confirm=True)
            assert "abandoned" in res.text
            assert not any("abandoned by" in m.text for m in public(h))
            kept.update(server=h.server)

    async def later_life() -> int:
        async with Harness(lambda: make_bot(crashed, clock, seed=99),
                           server=kept["server"]) as h:
            await h.bot._notifier  # the startup delivery
            assert await h.bot.store.notices() == []
            return sum("abandoned by Ann" in m.text for m in public(h))

    asyncio.run(first_life())
    assert asyncio.run(later_life()) == 1
    assert asyncio.run(later_life()) == 1  # (the same post, not a second one)


def test_a_crash_right_after_an_ai_takes_a_seat_still_tells_its_person_once(tmp_path):
    """Zombie mode, the fault-injection audit: the hand-over of a timed-out seat to an AI
    was committed with no outbox notice, so a process killed before telling it left the
    person never told ("ran out of time… type /rr back") while the AI played on. The
    notice is written with the hand-over and the next process tells it, once."""
    live, crashed = tmp_path / "live.db", tmp_path / "crashed.db"
    clock = Clock()
    kept: dict[str, Any] = {}

    async def first_life():
        async with Harness(lambda: make_bot(live, clock, seed=2), settle_timeout=30) as h:
            table, ann, bob = Table(h), h.user("ann"), h.user("bob")
            await table.open(ann, [bob], players=2, hours=1)
            await h.slash(ann, "rr settings", zombie="random")
            await table.slash(ann, "rr place", card="thief", square="2B")
            bot = table.bot
            real = bot.announcer.announce

            async def killed(ann_, **kw):
                if any("ran out of time" in x for x in ann_.extra):
                    crash_copy(live, crashed)  # the process dies here: nothing is told
                    raise asyncio.CancelledError
                return await real(ann_, **kw)

            bot.announcer.announce = killed  # type: ignore[method-assign]
            clock.now += 1.1 * HOUR
            with contextlib.suppress(asyncio.CancelledError):
                await bot.tick_once()
            assert crashed.exists(), "the hand-over was never announced"
            assert not any("ran out of time" in m.content for m in public(h))
            kept.update(server=h.server, bob=bob.mention)

    async def later_life() -> list[str]:
        async with Harness(lambda: make_bot(crashed, clock, seed=99),
                           server=kept["server"], settle_timeout=30) as h:
            await h.bot._notifier  # the startup delivery
            await h.settle()
            return [m.content for m in public(h) if "ran out of time" in m.content]

    asyncio.run(first_life())
    told = asyncio.run(later_life())
    assert len(told) == 1 and kept["bob"] in told[0] and "/rr back" in told[0], told
    assert len(asyncio.run(later_life())) == 1  # not told a second time


def test_a_set_aside_notice_discord_did_not_take_is_told_later_once(tmp_path, monkeypatch):
    """The fault-injection audit: a game's quarantine notice was posted once, outside the
    outbox; when that post failed, the channel never heard its game was set aside. It is
    now queued with the quarantine and retried like any announcement, once."""
    monkeypatch.setattr(cogs.outbox, "NOTICE_RETRY_S", (0.0,))
    monkeypatch.setattr(cogs.delivery, "RETRY_DELAYS", (0.0, 0.0))
    db = tmp_path / "g.db"

    async def scenario():
        async with Harness(lambda: make_bot(db, Clock(), seed=5)) as h:
            table, ann = Table(h), h.user("ann")
            await table.open(ann, [h.user("bob")], players=2)
            bot = table.bot
            with sqlite3.connect(db) as con:
                con.execute("UPDATE games SET setup='[\"oops\"' WHERE id=?", (table.game_id,))
            bot.service.tables.forget(table.game_id)
            down = h.http.fail("POST", f"/channels/{table.channel.id}/messages", status=503,
                               times=None)
            res = await table.slash(ann, "rr status")
            assert "is damaged and set aside" in res.text
            assert not any("set aside" in m.content for m in public(h))
            assert [n.body["kind"] for n in await bot.store.notices()] == ["set_aside"]
            down.times = down.hits  # Discord is back
            await bot.tick_once()
            assert await bot.store.notices() == []
            await bot.tick_once()
            told = [m.content for m in public(h) if "has been set aside" in m.content]
            assert len(told) == 1, told
    asyncio.run(scenario())


def test_a_crash_right_after_the_last_person_resigns_against_ais_leaves_no_game_to_them(
        tmp_path):
    """The robustness audit: the last person's resign against AI seats was committed, and
    the game abandoned in a second write; a process killed between the two left the game
    active with only AIs in it, which the next process played out in the channel at once
    (the very flood the abandon exists to prevent), and the channel was never told it was
    abandoned. The resign and the abandon are now one transaction: the next process finds
    the game abandoned and tells it, once."""
    live, crashed = tmp_path / "live.db", tmp_path / "crashed.db"
    clock = Clock()
    kept: dict[str, Any] = {}

    async def first_life():
        async with Harness(lambda: make_bot(live, clock, seed=4), settle_timeout=30) as h:
            ann = h.user("ann")
            await h.slash(ann, "rr new", players=3, bots=2)
            await h.slash(ann, "rr start")
            await h.settle()
            real = h.bot.store.commit_actions

            async def commit_then_die(*args, **kw):
                done = await real(*args, **kw)
                if any(text == "resign" for _, _, text in args[2]):
                    crash_copy(live, crashed)  # the process dies right after this write
                    h.bot.announcer.tell = killed  # type: ignore[method-assign]
                return done

            async def killed(notice, send, **kw):  # (dead: it tells nothing more)
                return False

            h.bot.store.commit_actions = commit_then_die  # type: ignore[method-assign]
            kept["before"] = len(public(h))
            await h.slash(ann, "rr lobby leave", confirm=True)
            await h.settle()
            assert not any("abandoned by" in m.text for m in public(h))
            kept.update(server=h.server, channel=h.channel.id)

    async def later_life() -> list[str]:
        async with Harness(lambda: make_bot(crashed, clock, seed=99), server=kept["server"],
                           settle_timeout=30) as h:
            await h.bot._notifier  # the startup delivery
            await h.bot.tick_once()
            await h.settle()
            row = await h.bot.store.latest_game(kept["channel"])
            assert row is not None and row.status == "abandoned", row and row.status
            return [m.text for m in public(h)[kept["before"]:]]

    asyncio.run(first_life())
    posts = asyncio.run(later_life())
    assert sum("abandoned by Ann" in p for p in posts) == 1 and len(posts) < 10, posts


def test_a_pending_announcement_of_a_game_set_aside_waits_quietly_and_is_told_once_repaired(
        tmp_path, caplog):
    """The fault-injection audit (one bad row under a crash): the process dies before a
    move's ping is told, and a logged move of that game is damaged meanwhile, so the next
    process sets the game aside (its channel is told why). The ping left in the outbox
    could not be rebuilt: two ERROR tracebacks at every try, each try counted, and after
    NOTICE_ATTEMPTS it was dropped — so once the operator repaired the log and the game
    went on, the player it asked was never pinged. It now waits in the outbox in one
    warning line, uncounted, and is told once the game is back in play."""
    live, crashed = tmp_path / "live.db", tmp_path / "crashed.db"
    clock = Clock()
    kept = killed_before_a_ping(live, crashed, clock)
    with sqlite3.connect(crashed) as con:
        (text,) = con.execute("SELECT text FROM actions WHERE game_id=? AND seq=1",
                              (kept["game_id"],)).fetchone()
        con.execute("UPDATE actions SET text='pick nonsense' WHERE game_id=? AND seq=1",
                    (kept["game_id"],))

    async def set_aside_life() -> None:
        async with Harness(lambda: make_bot(crashed, clock, seed=99),
                           server=kept["server"]) as h:
            await h.bot._notifier
            for _ in range(3):  # later passes, past every back-off
                clock.now += 2 * HOUR
                for notice in await h.bot.store.notices(None):
                    await h.bot.announcer.redeliver(notice)
            await h.settle()
            assert any("is damaged and has been set aside" in m.content for m in public(h))
            pending = await h.bot.store.notices(None)
            assert [n.body["kind"] for n in pending] == ["move"]
            assert pending[0].attempts == 0
            kept["told"] = len(public(h))

    caplog.clear()
    asyncio.run(set_aside_life())
    assert not [r.getMessage() for r in caplog.records if r.exc_info or r.levelno >= 40
                and "quarantined:" not in r.getMessage()]
    with sqlite3.connect(crashed) as con:  # the operator repairs the log
        con.execute("UPDATE actions SET text=? WHERE game_id=? AND seq=1",
                    (text, kept["game_id"]))

    async def repaired_life() -> None:
        async with Harness(lambda: make_bot(crashed, clock, seed=99),
                           server=kept["server"]) as h:
            table = Table(h)
            table.game_id = kept["game_id"]
            await table.bot._verifier
            await table.bot.deliver_notices()
            await h.settle()
            row, g = await table.game()
            new = [m.content for m in public(h)[kept["told"]:]]
            for seat in kept["body"]["prompts"]:
                if seat != kept["body"]["actor"] and g.decision(seat) is not None:
                    mention = f"<@{row.seats[seat]['user']}>"
                    assert len([m for m in new if m.startswith(mention)]) == 1, new
            assert await table.bot.store.notices(None) == []
    asyncio.run(repaired_life())
