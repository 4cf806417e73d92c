"""Two processes on one database tell each announcement once (docs/deploy.md, "A rolling
restart"): a process that starts while another is still posting its own announcement
leaves it to that one, and one that finds a dead process's claim expired posts what the
dead one left untold — once. Both backends (the `db` fixture).

The other process is a second store, service and announcer (its own claim holder) on the
same database, posting to the same Discord (as in tests/test_two_processes.py): what a
player sees is the channel, where each reminder must appear once.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bot_driver import Clock, Table, make_bot
from harness import Harness

from cogs.announce import Announcer
from cogs.bot import RookBot
from service import GameService

HOUR = 3600


class OtherProcess:
    """A second process on the same database and Discord: its own store, service, announcer
    (so its own claim holder), outbox lock and start time; its Discord side is the bot's."""

    def __init__(self, bot: Any, service: GameService) -> None:
        self._bot = bot
        self.store = service.store
        self.service = service
        self.announcer = Announcer(self)  # type: ignore[arg-type]
        self._outbox = asyncio.Lock()
        self._started = time.time()  # started now: what is in the outbox is an earlier one's

    def __getattr__(self, name: str) -> Any:
        return getattr(self._bot, name)

    async def deliver_notices(self, *, startup: bool = False) -> int:
        return await RookBot.deliver_notices(self, startup=startup)  # type: ignore[arg-type]


def reminders_posted(h: Harness) -> list[str]:
    return [m.content for m in h.messages() if m.content.startswith("⏰")]


async def _game_with_a_reminder_due(h: Harness, clock: Clock) -> Any:
    """A 2-player game whose first answer Bob still owes, at the time of his reminder;
    Bob."""
    ann, bob = h.user("ann"), h.user("bob")
    table = Table(h)
    await table.open(ann, [bob], players=2, hours=1)
    res = await table.slash(ann, "rr place", card="thief", square="2B")
    assert res.text.startswith("✅"), res.text
    clock.now += 0.8 * HOUR  # Bob's reminder is due
    return bob


def test_a_process_starting_while_another_posts_its_announcement_leaves_it_to_that_one(db):
    """Process A committed Bob's reminder and is posting it (held at Discord's edge) when
    process B starts on the same database: B's startup sweep does not post it too. One ⏰
    in the channel, and the outbox is empty once A is done."""
    clock = Clock()

    async def scenario() -> None:
        async with Harness(lambda: make_bot(db.url, clock, seed=2)) as h:
            await _game_with_a_reminder_due(h, clock)
            bot: Any = h.bot
            other = GameService(await db.open(), clock=clock)
            other.tables.notify = True
            try:
                real_remind = bot.announcer.remind
                swept: list[int] = []

                async def remind_while_b_starts(rem: Any) -> None:
                    # A posts its reminder; meanwhile B starts and sweeps the outbox
                    b = OtherProcess(bot, other)
                    swept.append(await b.deliver_notices(startup=True))
                    await real_remind(rem)

                bot.announcer.remind = remind_while_b_starts
                assert await bot.tick_once() == 1  # A: the reminder committed and told
                bot.announcer.remind = real_remind
                await h.settle()
                assert swept == [1]  # B saw A's notice in the outbox …
                assert len(reminders_posted(h)) == 1, reminders_posted(h)  # … and left it
                assert await other.store.notices() == []
                b = OtherProcess(bot, other)  # a later start tells nothing either
                assert await b.deliver_notices(startup=True) == 0
                assert len(reminders_posted(h)) == 1
            finally:
                await other.store.close()
    asyncio.run(scenario())


def test_a_dead_process_s_claimed_announcement_is_posted_by_another_once(db):
    """Process A committed Bob's reminder, claimed it for posting, and died. Process B
    starting while A's claim still holds leaves it; once the claim expired, B's next pass
    posts it — once — and no later pass posts it again."""
    clock = Clock()

    async def scenario() -> None:
        async with Harness(lambda: make_bot(db.url, clock, seed=2)) as h:
            bob = await _game_with_a_reminder_due(h, clock)
            bot: Any = h.bot
            a = GameService(await db.open(), clock=clock)
            a.tables.notify = True
            b_service = GameService(await db.open(), clock=clock)
            try:
                reminders = (await a.limits.tick())[1]
                assert len(reminders) == 1 and reminders[0].notice is not None
                notice = reminders[0].notice
                now = time.time()  # A claims it for a moment, then dies before posting
                assert await a.store.claim_notice(notice, "A:dead", now + 0.3, now)
                b = OtherProcess(bot, b_service)
                assert not await b.announcer.claim(notice)  # A's claim holds
                await b.deliver_notices(startup=True)
                await h.settle()
                assert reminders_posted(h) == []  # B does not post what A may be posting
                await asyncio.sleep(0.4)  # A's claim expires (it renews no more)
                await b.deliver_notices()  # B's next pass (a tick's)
                await h.settle()
                assert len(reminders_posted(h)) == 1, reminders_posted(h)
                assert reminders_posted(h)[0].startswith("⏰ " + bob.mention)
                assert await b_service.store.notices() == []
                await b.deliver_notices()
                assert await bot.deliver_notices() == 0
                await h.settle()
                assert len(reminders_posted(h)) == 1
            finally:
                await a.store.close()
                await b_service.store.close()
    asyncio.run(scenario())


def test_two_stores_asking_for_one_notice_at_once_give_it_to_one(db):
    """The claim is the store's conditional UPDATE: of two processes asking at the same
    moment, one gets the notice; the holder renews it; once it expired the other takes it;
    a told notice (gone) is nobody's; a claim time far ahead (a clock that jumped, a hand
    edit) counts as expired, not as held for ever."""
    async def scenario() -> None:
        one, two = await db.open(), await db.open()
        try:
            svc = GameService(one, clock=Clock())
            svc.tables.notify = True
            await svc.lobby.new_lobby(1, 100, 11, "Ann", players=2, time_limit_s=HOUR)
            await svc.lobby.join(100, 22, "Bob")
            await svc.lobby.start(100, 11)
            [notice] = [n.id for n in await one.notices()]
            now = time.time()
            got = await asyncio.gather(one.claim_notice(notice, "one", now + 60, now),
                                       two.claim_notice(notice, "two", now + 60, now))
            assert sorted(got) == [False, True], got
            holder, other = ("one", two) if got[0] else ("two", one)
            mine = one if holder == "one" else two
            assert await mine.claim_notice(notice, holder, now + 60, now)  # renewed
            assert not await other.claim_notice(notice, "third", now + 60, now + 59)
            assert await other.claim_notice(notice, "third", now + 200, now + 61)  # expired
            await db.sql("UPDATE outbox SET claimed_until=? WHERE id=?", now + 10**9, notice)
            assert await other.claim_notice(notice, "fourth", now + 60, now)
            await other.delivered(notice)
            assert not await mine.claim_notice(notice, holder, now + 60, now)
        finally:
            await one.close()
            await two.close()
    asyncio.run(scenario())


def test_a_notice_posted_for_longer_than_its_claim_keeps_it_renewed(db):
    """Process A's post of Bob's reminder takes longer than a claim lasts (Discord slow, a
    rate limit): A keeps renewing its claim while it posts, so process B's passes meanwhile
    never take the notice — one ⏰ — and once A is done nothing is held or renewed."""
    clock = Clock()

    async def scenario() -> None:
        async with Harness(lambda: make_bot(db.url, clock, seed=2)) as h:
            bot: Any = h.bot
            bot.announcer.claim_s = 0.3
            await _game_with_a_reminder_due(h, clock)
            other = GameService(await db.open(), clock=clock)
            other.tables.notify = True
            try:
                real_remind = bot.announcer.remind
                b = OtherProcess(bot, other)

                async def slow_remind(rem: Any) -> None:
                    for _ in range(4):  # 1.2 s: four claims' time, B passing each 0.3 s
                        await asyncio.sleep(0.3)
                        await b.deliver_notices()
                    await real_remind(rem)

                bot.announcer.remind = slow_remind
                assert await bot.tick_once() == 1
                bot.announcer.remind = real_remind
                await h.settle()
                assert len(reminders_posted(h)) == 1, reminders_posted(h)
                assert await other.store.notices() == []
                assert not bot.announcer._holding  # noqa: SLF001 (nothing left held)
            finally:
                await other.store.close()
    asyncio.run(scenario())
