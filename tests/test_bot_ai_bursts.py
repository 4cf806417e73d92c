"""A channel game with AI seats reads well (the new-player audit): the AI answers that come in
one burst, with no person asked in between, are told in ONE post — their lines together, in
the order they were committed — while every phase keeps its own image (R-phases: Invasion,
Summon, End each posted once) and every person asked is pinged once. Before, each AI answer
was a post of its own: two AI seats moving twice in an Advance were four posts to scroll
past between a person's answer and the question after it."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

from bot_driver import Clock, Table, make_bot
from harness import Harness
from test_bot_ai_turns import public, two_people_two_bots
from test_bot_outbox import crash_copy

import cogs.bursts
import cogs.delivery
import cogs.outbox
from cogs.announce import Announcer
from service import Reminder


def pings(m: Any, people: set[int]) -> set[int]:
    """The people a post asks something (a ping: mentions them with its allowed mentions)."""
    return {u for u in people if f"<@{u}>" in m.content and m.components}


def ai_opens(m: Any) -> bool:
    """A post that opens with an AI seat's own move (🤖 seats are named first)."""
    return m.content.startswith("🤖 Bot")



async def play_until(h: Harness, table: Table, kept: dict[str, Any], steps: int,
                     what: str) -> None:
    """The people answer at random (seed 1), the AIs after them, until the patched flush
    kept what the test waits for (`kept["stories"]`) — `what` names it if it never came."""
    rng = random.Random(1)
    for _ in range(steps):
        await table.step(rng)
        await h.settle()
        if "stories" in kept:
            return
    raise AssertionError(what)

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
            rng = random.Random(1)
            bursts = 0
            for _ in range(60):  # about eight rounds: Advances, Recruits, rewards, phases
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
                            # the round's start a move ended with, read with the AI's
                            # answers after it (R4: the round's first choice is the start
                            # player's) — not a post of its own before theirs
                            if ai and not segment[ai - 1].files:
                                ai -= 1
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
            # a move ending with the round's start, the AI to choose first: "**Round N**
            # begins" opens the post of the AI's answers (before: a post of its own)
            opened = [m for m in public(h) if m.content.startswith("**Round")
                      and "\n🤖 Bot" in m.content]
            assert len(opened) >= 3, [m.content[:60] for m in public(h)]
            assert all(len(m.content) <= 2000 for m in public(h))
            # every AI move still named, in the order it was committed
            lines = [line for m in public(h) for line in m.content.split("\n")]
            ai_lines = [line for story in told for line in story]
            assert ai_lines
            at = 0
            for line in ai_lines:
                at = lines.index(line, at) + 1  # (ValueError: missing or out of order)
    asyncio.run(scenario())


def public_of(server: Any) -> list[Any]:
    """The public posts a server holds, across the bot processes that posted them."""
    return [m for m in server.messages.values()
            if not m.deleted and not m.ephemeral and m.dm_user_id is None]


def held_burst(bot: Any) -> list[Any] | None:
    """The channel's AI answers held to be told together, when there are two or more."""
    held = next(iter(bot.announcer._held.values()), None)
    return [a for a, _lines in held.entries] if held is not None and len(held.entries) >= 2 \
        else None


def told_once(stories: list[list[str]], posts: list[Any]) -> None:
    """Every line of every story posted exactly once, the stories in their order."""
    lines = [line for m in posts for line in m.content.split("\n")]
    at = 0
    for story in stories:
        for line in story:
            assert lines.count(line) == 1, (line, lines)
            at = lines.index(line, at) + 1


def test_a_crash_while_an_ai_burst_is_held_tells_each_of_its_answers_once_after_restart(
        tmp_path):
    """The held answers were committed with their moves (outbox notices), and claimed by
    the process holding them: one killed before their post leaves them for the next one,
    which tells each once its claims expired (CLAIM_S; 1 s here), once."""
    live, crashed = tmp_path / "live.db", tmp_path / "crashed.db"
    clock = Clock()
    kept: dict[str, Any] = {}

    async def first_life() -> None:
        async with Harness(lambda: make_bot(live, clock, seed=4), settle_timeout=60) as h:
            table, _ann, _bob = await two_people_two_bots(h)
            announcer = table.bot.announcer
            announcer.claim_s = 1.0
            real = announcer._flush

            async def flush(channel_id: int, head: Any = None) -> bool:
                anns = held_burst(table.bot)
                if "stories" not in kept and anns:
                    crash_copy(live, crashed)  # the process dies here: nothing is told
                    kept["stories"] = [a.story() for a in anns]
                    kept["notices"] = [a.notice for a in anns]
                return await real(channel_id, head)
            announcer._flush = flush  # type: ignore[method-assign]
            await play_until(h, table, kept, 40, "no burst of two AI answers")
            kept.update(server=h.server)
        kept["told"] = len(public_of(kept["server"]))

    async def later_life() -> None:
        async with Harness(lambda: make_bot(crashed, clock, seed=99),
                           server=kept["server"], settle_timeout=60) as h:
            await h.bot._notifier  # type: ignore[attr-defined]  # the startup delivery
            await asyncio.sleep(1.1)  # the dead process's claims expire: the next pass
            await h.bot.deliver_notices()
            await h.settle()
            assert all(n.id not in kept["notices"] for n in await h.bot.store.notices())
            told_once(kept["stories"], public(h)[kept["told"]:])

    asyncio.run(first_life())
    asyncio.run(later_life())


def refuse_a_burst_post(h: Harness, table: Table, kept: dict[str, Any],
                        caught: Callable[[int, Any], bool]) -> None:
    """Discord refuses every post (503) while the first burst `caught` takes (it notes what
    it holds in `kept`, and says whether to take it) is posted; `kept["mark"]`: how many
    public posts came before it."""
    down = {"on": False}
    h.http.fail("POST", "/channels/{channel_id}/messages", status=503, times=None,
                when=lambda request: down["on"])
    announcer = table.bot.announcer
    real = announcer._flush

    async def flush(channel_id: int, head: Any = None) -> bool:
        if "stories" not in kept and caught(channel_id, head):
            kept["mark"] = len(public(h))
            down["on"] = True
        try:
            return await real(channel_id, head)
        finally:
            down["on"] = False
    announcer._flush = flush  # type: ignore[method-assign]


def test_discord_failing_an_ai_bursts_post_tells_each_answer_later_once(tmp_path,
                                                                         monkeypatch):
    """The burst's post is refused (503, retries spent): none of its notices counts as
    told; the next pass tells each on its own, and nothing twice."""
    monkeypatch.setattr(cogs.outbox, "NOTICE_RETRY_S", (0.0,))
    monkeypatch.setattr(cogs.delivery, "RETRY_DELAYS", (0.0, 0.0))
    kept: dict[str, Any] = {}

    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4),
                           settle_timeout=60) as h:
            table, _ann, _bob = await two_people_two_bots(h)

            def caught(channel_id: int, head: Any) -> bool:
                anns = held_burst(table.bot)
                if anns:
                    kept["stories"] = [a.story() for a in anns]
                return bool(anns)
            refuse_a_burst_post(h, table, kept, caught)
            await play_until(h, table, kept, 40, "no burst of two AI answers")
            pending = await table.bot.store.notices()
            assert len(pending) >= len(kept["stories"]), pending
            await table.bot.tick_once()  # Discord is back: the outbox pass tells them
            await h.settle()
            assert await table.bot.store.notices() == []
            told_once(kept["stories"], public(h)[kept["mark"]:])
    asyncio.run(scenario())


def test_discord_failing_the_post_a_round_start_opens_tells_it_later_once_alone(
        tmp_path, monkeypatch):
    """A move's last lines ("**Round N** begins") held to open the AI's post: that post
    refused (503, retries spent), the move's notice is retried from those lines alone — its
    phases' images, already posted, are not posted again — and each AI answer held with
    them on its own: every line told once, in order."""
    monkeypatch.setattr(cogs.outbox, "NOTICE_RETRY_S", (0.0,))
    monkeypatch.setattr(cogs.delivery, "RETRY_DELAYS", (0.0, 0.0))
    kept: dict[str, Any] = {}

    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4),
                           settle_timeout=60) as h:
            table, _ann, _bob = await two_people_two_bots(h)

            def caught(channel_id: int, head: Any) -> bool:
                held = table.bot.announcer._held.get(channel_id)
                if held is None or not held.told or (len(held.entries) < 2 and head is None):
                    return False
                kept["stories"] = [story for _a, story in held.entries]
                kept["images"] = {f.description for m in public(h) for f in m.files}
                return True
            refuse_a_burst_post(h, table, kept, caught)
            await play_until(h, table, kept, 60, "no round start held with AI answers")
            assert kept["stories"][0][0].startswith("**Round"), kept["stories"]
            assert len(await table.bot.store.notices()) >= len(kept["stories"])
            await table.bot.tick_once()  # Discord is back: the outbox pass tells them
            await h.settle()
            assert await table.bot.store.notices() == []
            after = public(h)[kept["mark"]:]
            told_once(kept["stories"], after)
            again = [f.description for m in after for f in m.files
                     if f.description in kept["images"]]
            assert not again, again
    asyncio.run(scenario())


def test_an_ai_answer_that_asks_people_ends_the_bursts_post_and_pings_each_once(
        tmp_path, monkeypatch):
    """"🤖 Bot 2 chose Advance" (its lines alone, then the pings it asks) ends the post of
    the AI answers held before it; its notice counts that post as its first message, so
    when Discord refuses the pings, the outbox pass sends the pings alone — once — and
    never the lines again."""
    monkeypatch.setattr(cogs.outbox, "NOTICE_RETRY_S", (0.0,))
    monkeypatch.setattr(cogs.delivery, "RETRY_DELAYS", (0.0, 0.0))
    kept: dict[str, Any] = {}

    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4),
                           settle_timeout=60) as h:
            table, ann, bob = await two_people_two_bots(h)
            people = {ann.id, bob.id}
            down = {"on": False}
            h.http.fail("POST", "/channels/{channel_id}/messages", status=503, times=None,
                        when=lambda request: down["on"] and "<@" in str(
                            (request.json or {}).get("content")))
            announcer = table.bot.announcer
            real = announcer._flush

            async def flush(channel_id: int, head: Any = None) -> bool:
                held = next(iter(announcer._held.values()), None)
                if "head" not in kept and head is not None and held is not None:
                    kept["stories"] = [lines for _a, lines in held.entries] + [head[1]]
                    kept["mark"] = len(public(h))
                    down["on"] = True  # the pings that follow are refused
                return await real(channel_id, head)
            announcer._flush = flush  # type: ignore[method-assign]
            await play_until(h, table, kept, 60, "no AI answer asking people after a held one")
            down["on"] = False
            after = public(h)[kept["mark"]:]
            assert not any(pings(m, people) for m in after)  # refused, kept in the outbox
            assert await table.bot.store.notices()
            await table.bot.tick_once()  # Discord is back: the outbox pass tells the rest
            await h.settle()
            after = public(h)[kept["mark"]:]
            assert after[0].content.split("\n") == [
                line for story in kept["stories"] for line in story]  # one post, in order
            told_once(kept["stories"], after)
            asked = [u for m in after for u in pings(m, people)]
            assert asked and len(asked) == len(set(asked))  # each person pinged once
    asyncio.run(scenario())


async def pause_in_a_burst(h: Any, table: Any,
                           rng: random.Random) -> tuple[asyncio.Event, list[list[str]]]:
    """Moves until the AI's run holds an answer for its burst's post; the run then waits
    (an AI thinking long) until the returned event is set. With it: the held answers'
    lines at that moment."""
    runner = table.bot.ai
    real = runner._tell
    paused, release = asyncio.Event(), asyncio.Event()
    held: list[list[str]] = []

    async def tell(out: Any) -> None:
        await real(out)
        if not paused.is_set() and table.bot.announcer._held:
            held.extend(lines for _a, lines in next(iter(
                table.bot.announcer._held.values())).entries)
            paused.set()
            await release.wait()
    runner._tell = tell
    for _ in range(60):
        await table.step(rng)
        await h.settle()
        if paused.is_set():
            return release, held
    raise AssertionError("no AI answer held for a burst")


def test_a_game_abandoned_while_an_ai_burst_is_held_tells_the_burst_first(tmp_path):
    """Ann abandons while the AI still thinks with answers held for its burst's post: the
    abandon post went out at once and the AI's moves committed before it followed after
    "The game in this channel was abandoned" — the channel's record out of order. The held
    answers are told first."""
    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4),
                           settle_timeout=60) as h:
            table, ann, _bob = await two_people_two_bots(h)
            release, stories = await pause_in_a_burst(h, table, random.Random(1))
            mark = len(public(h))
            done = await table.slash(ann, "rr abandon", confirm=True)
            assert "abandon" in done.text.lower(), done.text
            release.set()
            await h.settle()
            after = [m.content for m in public(h)[mark:]]
            gone = next(k for k, text in enumerate(after) if "was abandoned" in text)
            lines = [line for text in after[:gone] for line in text.split("\n")]
            assert all(line in lines for story in stories for line in story), after
    asyncio.run(scenario())


def test_held_ai_answers_are_told_within_hold_max_s_while_the_ai_still_thinks(
        tmp_path, monkeypatch):
    """HOLD_MAX_S promised the held answers were told at least that often "whatever the AI
    still thinks", but it was looked at only when the next answer came: an AI thinking long
    (up to AI_THINK_S an answer, behind other games' AI in the workers) or retrying a busy
    store (up to AI_RETRY_FOR_S, 5 min) kept the moves it had made unseen all that time.
    Now they are posted at HOLD_MAX_S, and what the run answers later is a new burst."""
    monkeypatch.setattr(cogs.bursts, "HOLD_MAX_S", 0.3)

    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4),
                           settle_timeout=60) as h:
            table, _ann, _bob = await two_people_two_bots(h)
            mark = len(public(h))  # (the step's posts before the AI's answers)
            release, stories = await pause_in_a_burst(h, table, random.Random(1))
            for _ in range(20):  # (bounded: 2 s at most)
                await asyncio.sleep(0.1)
                await h.settle()
                if not table.bot.announcer._held:
                    break
            assert not table.bot.announcer._held
            told_once(stories, public(h)[mark:])  # told while the AI still thinks
            release.set()
            await h.settle()
            told_once(stories, public(h)[mark:])  # and not again
            assert await table.bot.store.notices() == []
    asyncio.run(scenario())


def test_the_bot_closing_with_an_ai_burst_held_tells_it_and_starts_no_ai_run(tmp_path):
    """Closing, the bot tells the held AI answers (`flush_all`) after stopping the AI's
    runs — but the burst's post kicked the AI again (its last answer left an AI seat asked),
    so a new run began in a closing bot: committing moves nobody would be told until the
    next process, its task left pending when the loop ended. The held answers are told and
    no AI run starts once the bot is closing."""
    kicks: list[int] = []

    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4),
                           settle_timeout=60) as h:
            table, _ann, _bob = await two_people_two_bots(h)
            mark = len(public(h))
            _release, stories = await pause_in_a_burst(h, table, random.Random(1))
            bot = table.bot
            real_flush_all, real_kick = bot.announcer.flush_all, bot.ai.kick
            closing = {"on": False}

            async def flush_all() -> None:
                closing["on"] = True
                await real_flush_all()
            bot.announcer.flush_all = flush_all

            def kick(channel_id: int) -> None:
                runs = set(bot.ai._tasks)
                real_kick(channel_id)
                if closing["on"] and set(bot.ai._tasks) - runs:  # a run started
                    kicks.append(channel_id)
            bot.ai.kick = kick
            last = next(iter(bot.announcer._held.values())).entries[-1][0]
            assert last.ai_waiting  # (an AI seat is asked next: the post kicked the AI)
        told_once(stories, public_of(h.server)[mark:])
        assert kicks == [] and not [t for t in bot.ai._tasks if not t.done()]
    asyncio.run(scenario())


def test_a_reminder_and_a_set_aside_post_are_read_after_the_ai_moves_held_before_them(
        tmp_path):
    """A reminder (a time limit's warning) or a game set aside, told while the AI still
    thinks with answers held for its burst's post: each was posted at once, ahead of the
    AI's moves committed before it — the reminder read as if asked before the AI moved, the
    AI moves told after the game was said to be set aside. Now each takes the channel's
    turn: the held answers first, then the reminder, then the set-aside post."""
    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4),
                           settle_timeout=60) as h:
            table, ann, bob = await two_people_two_bots(h)
            release, stories = await pause_in_a_burst(h, table, random.Random(1))
            bot = table.bot
            row, g = await bot.service.tables.current(h.channel.id)
            seat = next(s for s in g.waiting_for() if row.seats[s]["user"] in (ann.id, bob.id))
            mark = len(public(h))
            await bot._tell_each([], [Reminder(row, seat, bot.service.clock() + 600)])
            await bot._tell_set_aside(row, {"kind": "replay"}, None)
            after = [m.content for m in public(h)[mark:]]
            release.set()
            await h.settle()
            held = [line for story in stories for line in story]
            assert held and after[0].split("\n")[:len(held)] == held, after
            assert f"<@{row.seats[seat]['user']}>" in after[1], after  # the reminder
            assert str(row.id) in after[2] and len(after) == 3, after  # set aside
    asyncio.run(scenario())


def test_an_abandon_another_process_committed_is_read_after_the_ai_moves_held_before_it(
        tmp_path):
    """Another process (two on one shard) abandoned the game and died before telling it,
    while this one holds AI answers for its burst's post: the outbox pass told "was
    abandoned" at once, and the AI's moves committed before it followed. A notice from the
    outbox takes the channel's turn as a live one does, the held answers committed before
    it (lower notice ids) told first."""
    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4),
                           settle_timeout=60) as h:
            table, _ann, _bob = await two_people_two_bots(h)
            release, stories = await pause_in_a_burst(h, table, random.Random(1))
            bot = table.bot
            row, _g = await bot.service.tables.current(h.channel.id)
            notice = await bot.store.set_status(row.id, "abandoned",
                                                {"kind": "abandoned", "by": "Mod"})
            assert notice is not None
            await bot.store.run_write(lambda con: con.execute(
                "UPDATE outbox SET not_before=0 WHERE id=?", (notice,)))
            mark = len(public(h))
            await bot.deliver_notices()
            release.set()
            await h.settle()
            after = [m.content for m in public(h)[mark:]]
            gone = next(k for k, text in enumerate(after) if "was abandoned" in text)
            lines = [line for text in after[:gone] for line in text.split("\n")]
            assert all(line in lines for story in stories for line in story), after
    asyncio.run(scenario())
