"""The timers audit, through the bot's gateway-level harness: a seat handed back with
`/rr back` before its AI answered the expired question, a reminder left in the outbox past
its deadline, a slow channel in a pass of many time-outs, a deleted channel, a button
clicked just after its time-out (each test names its fault)."""

from __future__ import annotations

import asyncio

from bot_driver import Clock, Table, make_bot
from harness import FakeUser, Harness

HOUR = 3600


async def hour_game(h: Harness, *players: str) -> tuple[Table, FakeUser, FakeUser]:
    """Ann and Bob's game with a one-hour limit in the harness's channel, the thief placed
    by each of `players` (of "ann", "bob")."""
    ann, bob = h.user("ann"), h.user("bob")
    table = Table(h)
    await table.open(ann, [bob], players=2, hours=1)
    for user in players:
        res = await table.slash({"ann": ann, "bob": bob}[user], "rr place", card="thief",
                                square="2B")
        assert res.text.startswith("✅"), res.text
    return table, ann, bob


def public(h):
    return [m for m in h.messages() if not m.ephemeral and m.dm_user_id is None]


def test_back_before_the_ai_answered_the_expired_question_keeps_the_seat(tmp_path,
                                                                         monkeypatch):
    """Zombie mode: Bob's time runs out and an AI takes his seat; he types `/rr back` before
    the AI has answered the question that ran out (the AI runner held back here: the race).
    The question is his again, as his reply says — with a whole time limit to answer it,
    not the deadline already past, which handed the seat straight back to the AI at the
    next pass and counted a second time-out."""
    monkeypatch.setattr("cogs.seats.AiRunner.kick", lambda self, channel_id: None)

    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=2)) as h:
            table, ann, bob = await hour_game(h)
            await h.slash(ann, "rr settings", zombie="random")
            res = await table.slash(ann, "rr place", card="thief", square="2B")
            assert res.text.startswith("✅"), res.text
            clock.now += 1.1 * HOUR
            await table.bot.tick_once()
            await h.settle()
            row, g = await table.game()
            assert row.meta["zombie"] == {"1": "random"} and 1 in g.waiting_for()
            res = await h.slash(bob, "rr back")
            assert "your next decisions are yours" in res.text
            clock.now += 60
            await table.bot.tick_once()
            await h.settle()
            row, g = await table.game()
            assert not row.meta.get("zombie"), "the seat went back to the AI"
            assert row.meta["timeouts"] == {"1": 1} and 1 in g.waiting_for()
            deadline = {t["seat"]: t["deadline"] for t in await table.bot.store.timers(row.id)}
            assert deadline[1] > clock.now + 0.9 * HOUR
    asyncio.run(scenario())


def test_a_reminder_left_in_the_outbox_is_not_posted_after_its_deadline(tmp_path):
    """Bob's reminder is claimed but Discord fails it (it stays in the outbox); the bot is
    then down past his deadline. At the restart the outbox is told at once, before the first
    time-limit pass: a reminder of a deadline already past ('⏰ … until 2 hours ago', with
    buttons) used to go out just ahead of his time-out. Past its deadline a reminder is
    dropped; the time-out is what he is told."""
    db = tmp_path / "g.db"
    clock = Clock()
    kept: dict = {}

    def reminder(r) -> bool:
        return "⏰" in str((r.json or {}).get("content"))

    async def first_life():
        async with Harness(lambda: make_bot(db, clock, seed=2)) as h:
            table, ann, bob = await hour_game(h, "ann")
            h.http.fail("POST", "/channels/{channel_id}/messages", status=500, times=None,
                        when=reminder)
            clock.now += 0.8 * HOUR
            assert await table.bot.tick_once() == 1
            assert not any(m.content.startswith("⏰") for m in public(h))
            assert await table.bot.store.notices(None)  # the reminder waits in the outbox
            kept.update(server=h.server, game=table.game_id)

    async def second_life():
        clock.now += 2 * HOUR  # down past Bob's deadline
        async with Harness(lambda: make_bot(db, clock, seed=2), server=kept["server"]) as h:
            table = Table(h)
            table.game_id = kept["game"]
            await table.bot._verifier
            await h.settle()
            await table.bot.tick_once()
            await h.settle()
            assert not [m.content for m in public(h) if m.content.startswith("⏰")]
            assert any("Bob ran out of time" in m.content for m in public(h))
            assert not await table.bot.store.notices(None)

    asyncio.run(first_life())
    asyncio.run(second_life())


def test_a_slow_channel_does_not_hold_up_the_other_games_time_outs(tmp_path):
    """Two games run out of time in the same pass; Discord keeps rate-limiting the first
    game's channel (every post there waits, retried). The second game's time-out must not
    wait for the first game's posts: it was applied only once they had all been tried, so
    one slow or broken channel held up every game after it in the pass."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=2)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            slow = Table(h)
            await slow.open(ann, [bob], players=2, hours=1)
            other = Table(h, h.server.add_channel("other"))
            await other.open(ann, [bob], players=2, hours=1)
            for table in (slow, other):
                await table.slash(ann, "rr place", card="thief", square="2B")
            h.http.fail("POST", f"/channels/{slow.channel.id}/messages", status=429,
                        times=None, retry_after=0.2)
            clock.now += 1.1 * HOUR
            passing = asyncio.create_task(slow.bot.tick_once())
            try:
                for _ in range(40):  # (2 s: one slow post alone takes longer)
                    await asyncio.sleep(0.05)
                    row, _g = await other.game()
                    if row.meta.get("timeouts"):
                        break
                assert row.meta.get("timeouts") == {"1": 1}, "held up by the slow channel"
                assert not passing.done()
            finally:
                h.http.failures.clear()
                await passing
            assert (await slow.game())[0].meta["timeouts"] == {"1": 1}
    asyncio.run(scenario())


def test_a_game_whose_channel_was_deleted_ends_instead_of_timing_out_forever(tmp_path):
    """The channel of a game is deleted (Discord answers 404 Unknown Channel to every post
    there). Nobody can answer in it again, yet the game went on timing its seats out at
    every time limit, each time-out posted to a channel that no longer exists, for as long
    as rounds were left. At the first post Discord says the channel is gone, the game is
    abandoned (no timers left; nothing more is posted there)."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=2)) as h:
            table, ann, bob = await hour_game(h, "ann")
            del h.server.channels[table.channel.id]  # deleted (while the bot was down)
            clock.now += 1.1 * HOUR
            await table.bot.tick_once()
            await h.settle()
            row = await table.bot.store.get(table.game_id)
            assert row is not None and row.status == "abandoned", row and row.status
            assert not await table.bot.store.timers(row.id)
            posts = len(h.http.find("POST", f"/channels/{table.channel.id}/messages"))
            clock.now += 5 * HOUR
            await table.bot.tick_once()
            await h.settle()
            assert len(h.http.find("POST", f"/channels/{table.channel.id}/messages")) == posts
    asyncio.run(scenario())


def test_a_button_clicked_just_after_the_time_out_says_time_ran_out(tmp_path):
    """Bob clicks his card button a moment after his time ran out (the time-out landed
    first). He was told only 'This prompt is out of date: the game has moved on', as if
    someone had answered; he is told that his time ran out and the default answer was
    given."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=2)) as h:
            table, ann, bob = await hour_game(h, "ann", "bob")
            row, g = await table.game()
            dec = g.decision(1)
            assert dec is not None and dec["kind"] == "pick", dec
            found = table.find_button(bob, row.id, 1, dec["id"], "pick")
            assert found
            clock.now += 1.1 * HOUR
            await table.bot.tick_once()
            await h.settle()
            res = await table.click(bob, found)
            assert res.ephemeral and "your time ran out" in res.text, res.text
    asyncio.run(scenario())


def test_a_command_typed_just_before_the_time_out_is_not_applied_to_the_next_question(
        tmp_path):
    """Bob types `/rr done` for his actions a moment before his time runs out; the time-out
    lands first and asks him his next actions. A typed command names no question, so his
    `done` was applied to that next question, which he had not seen yet; now it is refused
    as too late (it was typed before the time-out was applied), the game left as it was,
    and the same command typed after it answers the new question."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=2)) as h:
            table, ann, bob = await hour_game(h, "ann", "bob")
            for _ in range(2):  # both picks time out: both are asked their actions
                clock.now += 1.1 * HOUR
                await table.bot.tick_once()
                await h.settle()
            row, g = await table.game()
            old = g.decision(1)
            assert old is not None and old["kind"] == "actions", old
            typed = h.slash_payload(bob, "rr done", channel=table.channel)
            clock.now += 1.1 * HOUR
            await table.bot.tick_once()  # the time-out lands before the command
            await h.settle()
            row, g = await table.game()
            new = g.decision(1)
            assert new is not None and new["kind"] == "actions" and new["id"] != old["id"]
            version, log = row.version, list(g.log)
            res = await h.interact(typed, bob, table.channel)
            assert res.ephemeral and "your time ran out" in res.text, res.text
            row, g = await table.game()
            assert (row.version, g.log, g.decision(1)) == (version, log, new)
            res = await table.slash(bob, "rr done")
            assert res.text.startswith("✅"), res.text
            row, g = await table.game()
            assert g.log[len(log):][:1] == [[1, "done"]], g.log[len(log):]
    asyncio.run(scenario())
