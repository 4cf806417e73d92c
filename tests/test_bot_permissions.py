"""A channel the bot cannot post in (Discord's permissions, sent with every interaction as
the bot's own in that channel): a game opened there was played unseen — no lobby, no board,
no ping — and its seats timed out one by one. Now the game is refused there with the
permissions named, and a game whose channel lost them says so in every private answer and
holds its time limits until the bot can post there again (no seat timed out unheard)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import discord
from bot_driver import Clock, Table, make_bot
from harness import FakeChannel, FakeUser, Harness, RecordedMessage
from test_bot_newcomer import placed_two_player

from service.limits import PROBE_S

DAY = 24 * 3600  # the default time limit (R15)


def take_away(h: Harness, **perms: bool) -> None:
    """The bot loses permissions in the server (its own, its role's and @everyone's alike:
    Manage Threads, say, it holds through its role only)."""
    for owner in (h.server.bot_user, *(h.server.roles[r] for r in h.server.bot_user.role_ids)):
        p = discord.Permissions(owner.permissions)
        p.update(**perms)
        owner.permissions = p.value
    p = discord.Permissions(h.server.everyone_permissions)
    p.update(**perms)
    h.server.everyone_permissions = p.value


def give_back(h: Harness, **perms: bool) -> None:
    p = discord.Permissions(h.server.bot_user.permissions)
    p.update(**dict.fromkeys(perms, True))
    h.server.bot_user.permissions = p.value


async def game_in_a_thread(h: Harness) -> tuple[Table, FakeChannel, FakeUser]:
    """Ann's 2-player game with Bob in a thread of #general, under way, the bot without
    Manage Threads (a moderator's lock then turns its posts away); Ann."""
    ann, bob = h.user("ann"), h.user("bob")
    thread = h.thread("rr-thread", owner=ann)
    table = Table(h, thread)
    await table.open(ann, [bob], players=2)
    take_away(h, manage_threads=False)
    return table, thread, ann


async def passes(table: Table, clock: Clock, n: int) -> None:
    """`n` passes of the time-limit ticker, each 0.8 of the time limit after the last: the
    reminder (at 75 %), then the limit passed, again and again."""
    for _ in range(n):
        clock.now += 0.8 * DAY
        await table.bot.tick_once()


async def nobody_timed_out(table: Table, waiting: list[int]) -> tuple[Any, Any]:
    """The game as stored, its seats in `waiting` still asked and none timed out (R15's
    time limits held)."""
    row, g = await table.game()
    assert g.waiting_for() == waiting and not row.meta.get("timeouts"), row.meta
    return row, g


async def open_lobby(h: Harness) -> tuple[Table, FakeUser, FakeUser, RecordedMessage]:
    """Ann's 2-player lobby in #general, open, and Bob who may join it."""
    ann, bob = h.user("ann"), h.user("bob")
    table = Table(h)
    await h.slash(ann, "rr new", players=2)
    return table, ann, bob, table.lobby_message()


def test_a_game_is_not_opened_where_the_bot_cannot_post_its_board(tmp_path):
    """Without Attach Files the lobby could be posted but no board image ever: `/rr new`
    is refused, naming the permission as Discord's settings do, and no game is opened."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            ann = h.user("ann")
            take_away(h, attach_files=False)
            res = await h.slash(ann, "rr new", players=2)
            assert res.ephemeral and res.text.startswith("⛔"), res.text
            assert "Attach Files" in res.text and "Send Messages" not in res.text, res.text
            assert await h.bot.store.open_game(h.channel.id) is None
            assert not [m for m in h.messages(h.channel) if not m.ephemeral]
            give_back(h, attach_files=True)
            res = await h.slash(ann, "rr new", players=2)
            assert "⛔" not in res.text, res.text
            assert await h.bot.store.open_game(h.channel.id) is not None
    asyncio.run(scenario())


def test_a_japanese_host_reads_the_permissions_as_their_discord_names_them(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            ann = h.user("ann", locale="ja")
            take_away(h, send_messages=False, attach_files=False)
            res = await h.slash(ann, "rr new", players=2)
            assert "メッセージを送信" in res.text and "ファイルを添付" in res.text, res.text
            assert await h.bot.store.open_game(h.channel.id) is None
    asyncio.run(scenario())


def test_a_lobby_does_not_start_once_the_bot_cannot_post(tmp_path):
    """The permission taken away while the lobby waited: Start is refused in words, and
    the lobby is kept for when it is given back."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            table, ann, bob, lobby = await open_lobby(h)
            await h.click(bob, table.lobby_button(lobby, "join"), message=lobby)
            take_away(h, send_messages=False)
            res = await h.click(ann, table.lobby_button(lobby, "start"), message=lobby)
            assert res.ephemeral and "Send Messages" in res.text, res.text
            row = await h.bot.store.open_game(h.channel.id)
            assert row is not None and row.status == "lobby"
    asyncio.run(scenario())


def test_players_are_told_why_a_game_went_quiet(tmp_path):
    """Send Messages taken away mid-game (the game goes on, its time limits held): a move's answer
    and `/rr status` say the board and pings cannot appear, and who can mend it; given
    back, the warning goes."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            table, ann, bob = await placed_two_player(h)
            row, g = await table.game()
            owner = table.user(row, g.waiting_for()[0])
            take_away(h, send_messages=False)
            res = await table.slash(owner, "rr status")
            assert "⚠️" in res.text and "Send Messages" in res.text, res.text
            assert "Now: Your turn" in res.text  # the question is still asked, in private
            found = table.find_button(owner, row.id, g.waiting_for()[0],
                                      int(g.decision(g.waiting_for()[0])["id"]), "pick")
            assert found is not None
            answered = await h.click(owner, found[1], message=found[0])
            assert answered.text.startswith("✅") and "Send Messages" in answered.text, \
                answered.text
            give_back(h, send_messages=True)
            res = await table.slash(owner, "rr status")
            assert "⚠️" not in res.text, res.text
    asyncio.run(scenario())


def test_the_daily_news_channel_must_be_one_the_bot_can_post_in(tmp_path):
    """A news channel the bot cannot see (a private channel, VIEW_CHANNEL denied to
    @everyone) was accepted, and every day's news was refused there, unseen: the setting is
    refused naming the channel and the permission, and nothing is set."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            mod = h.user("mod", permissions=discord.Permissions(manage_guild=True))
            hidden = h.text_channel("staff", hidden_from_all_but=(mod.id,))
            res = await h.slash(mod, "rr daily settings", options={"channel": hidden})
            assert res.text.startswith("⛔") and f"<#{hidden.id}>" in res.text, res.text
            assert "View Channel" in res.text and "Attach Files" not in res.text, res.text
            assert await h.bot.daily.store.guild_channel(h.guild_id) is None
            news = h.text_channel("news")
            ok = await h.slash(mod, "rr daily settings", options={"channel": news})
            assert f"posted in <#{news.id}>" in ok.text, ok.text
            take_away(h, send_messages=False)  # here, in #general, with no channel named
            res = await h.slash(mod, "rr daily settings", announcements=True)
            assert "Send Messages" in res.text, res.text
            assert await h.bot.daily.store.guild_channel(h.guild_id) == news.id
    asyncio.run(scenario())


def test_an_old_lobby_post_does_nothing_once_the_bot_left_the_server(tmp_path):
    """The bot removed from the server, a member who installed the app for themselves can
    still press an old lobby post's Join: it joined a game the bot could never host there.
    It is refused as the commands are ("a server channel where the bot is installed")."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            table, ann, bob, lobby = await open_lobby(h)
            h.server.user_install_only = True  # the bot's own install is gone
            res = await h.click(bob, table.lobby_button(lobby, "join"), message=lobby)
            assert res.ephemeral and res.text.startswith("⛔"), res.text
            row = await h.bot.store.open_game(h.channel.id)
            assert row is not None and [s["user"] for s in row.seats] == [ann.id]
    asyncio.run(scenario())


def test_a_game_is_not_opened_in_a_locked_thread(tmp_path):
    """A thread a moderator locked takes posts only from Manage Threads (Discord: "Sending a
    message will automatically unarchive the thread, unless the thread has been locked by a
    moderator"): every permission the bot checked was there, so the game was opened and
    never seen. `/rr new` is refused saying the thread is locked and how to mend it."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            ann = h.user("ann")
            thread = h.thread("rr-locked", owner=ann)
            h.set_thread(thread, locked=True)
            take_away(h, manage_threads=False)
            res = await h.slash(ann, "rr new", channel=thread, players=2)
            assert res.ephemeral and res.text.startswith("⛔"), res.text
            assert "thread is locked" in res.text and "Manage Threads" in res.text, res.text
            assert await h.bot.store.open_game(thread.id) is None
            assert not [m for m in h.messages(thread) if not m.ephemeral]
            h.set_thread(thread, locked=False)
            res = await h.slash(ann, "rr new", channel=thread, players=2)
            assert "⛔" not in res.text, res.text
            assert await h.bot.store.open_game(thread.id) is not None
    asyncio.run(scenario())


def test_a_japanese_host_is_told_the_thread_is_locked(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            ann = h.user("ann", locale="ja")
            thread = h.thread("rr-locked", owner=ann)
            h.set_thread(thread, locked=True)
            take_away(h, manage_threads=False)
            res = await h.slash(ann, "rr new", channel=thread, players=2)
            assert res.text.startswith("⛔") and "ロック" in res.text, res.text
            assert "スレッドの管理" in res.text, res.text
            assert await h.bot.store.open_game(thread.id) is None
    asyncio.run(scenario())


def test_a_lobby_in_a_thread_does_not_start_once_the_thread_is_locked(tmp_path):
    """Locked while the lobby waited: Start is refused saying so, and the lobby is kept."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            thread = h.thread("rr-thread", owner=ann)
            table = Table(h, thread)
            await h.slash(ann, "rr new", channel=thread, players=2)
            lobby = table.lobby_message()
            await h.click(bob, table.lobby_button(lobby, "join"), message=lobby)
            take_away(h, manage_threads=False)
            h.set_thread(thread, locked=True)
            res = await h.click(ann, table.lobby_button(lobby, "start"), message=lobby)
            assert res.ephemeral and "thread is locked" in res.text, res.text
            row = await h.bot.store.open_game(thread.id)
            assert row is not None and row.status == "lobby"
    asyncio.run(scenario())


def test_players_are_told_their_thread_was_locked(tmp_path):
    """The game's thread locked mid-game: `/rr status` says the board and pings cannot
    appear because the thread is locked; unlocked, the warning goes."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            table, thread, ann = await game_in_a_thread(h)
            h.set_thread(thread, locked=True)
            res = await table.slash(ann, "rr status")
            assert "⚠️" in res.text and "thread is locked" in res.text, res.text
            h.set_thread(thread, locked=False)
            res = await table.slash(ann, "rr status")
            assert "⚠️" not in res.text, res.text
    asyncio.run(scenario())


def test_a_game_in_an_archived_thread_posts_and_reopens_it(tmp_path):
    """A thread archived for inactivity while a player dawdles is no refusal: the time-out's
    post unarchives it, as Discord does — only a locked thread turns the bot's posts away."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=4)) as h:
            table, thread, ann = await game_in_a_thread(h)
            res = await table.slash(ann, "rr status")
            assert "⚠️" not in res.text, res.text
            h.set_thread(thread, archived=True)
            before = len(h.messages(thread))
            res = await table.slash(ann, "rr status")
            assert "⚠️" not in res.text, res.text
            for _ in range(5):  # a turn times out: the bot posts the next one
                if len(h.messages(thread)) > before and not thread.archived:
                    break
                clock.now += 25 * 3600
                await table.bot.tick_once()
            assert not thread.archived
            assert [m for m in h.messages(thread)[before:] if not m.ephemeral]
    asyncio.run(scenario())


def test_the_daily_news_is_not_set_in_a_locked_thread(tmp_path):
    """`/rr daily settings` in a locked thread (no channel named: the news goes where it is
    asked) would set a channel every day's news is refused in: refused, saying it is locked."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            mod = h.user("mod", permissions=discord.Permissions(manage_guild=True))
            thread = h.thread("news-thread", owner=mod)
            h.set_thread(thread, locked=True)
            take_away(h, manage_threads=False)
            res = await h.slash(mod, "rr daily settings", channel=thread, announcements=True)
            assert res.text.startswith("⛔") and f"<#{thread.id}>" in res.text, res.text
            assert "locked thread" in res.text and "Manage Threads" in res.text, res.text
            assert await h.bot.daily.store.guild_channel(h.guild_id) is None
            h.set_thread(thread, locked=False)
            res = await h.slash(mod, "rr daily settings", channel=thread, announcements=True)
            assert f"posted in <#{thread.id}>" in res.text, res.text
            assert await h.bot.daily.store.guild_channel(h.guild_id) == thread.id


def test_no_seat_times_out_on_a_question_the_bot_could_not_post(tmp_path):
    """Send Messages taken away mid-game: every question, ping and reminder was refused
    (403, 50013) and the seats timed out one by one, unheard — a game lost to a permission
    change. Now the time limits (R15) are held while the bot's posts are refused there:
    past the limit many times over, no seat is timed out and no AI takes one. Given back
    (an interaction shows it), each open question gets its full limit again, the channel is
    told the game goes on, and a seat that still does not answer times out as before."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=4)) as h:
            table, ann, bob = await placed_two_player(h)
            row, g = await table.game()
            waiting = g.waiting_for()
            owner = table.user(row, waiting[0])
            take_away(h, send_messages=False)
            await passes(table, clock, 6)  # the reminder (refused), then the limit passed six times
            row, g = await nobody_timed_out(table, waiting)
            assert not row.meta.get("zombie") and not row.meta.get("ai_stood_in"), row.meta
            assert all(t["deadline"] < clock.now for t in await table.bot.store.timers(row.id))
            give_back(h, send_messages=True)
            res = await table.slash(owner, "rr status")
            assert "⚠️" not in res.text, res.text
            posts = [m for m in h.messages(h.channel) if not m.ephemeral]
            assert any("the game goes on" in m.text for m in posts), [m.text for m in posts]
            timers = await table.bot.store.timers(row.id)
            assert timers and all(t["deadline"] == clock.now + DAY for t in timers), timers
            clock.now += 0.5 * DAY  # half the restarted limit: nobody timed out yet
            await table.bot.tick_once()
            row, g = await table.game()
            assert not row.meta.get("timeouts"), row.meta
            clock.now += 0.6 * DAY  # past it: the default answer, as with a postable channel
            await table.bot.tick_once()
            row, g = await table.game()
            assert row.meta.get("timeouts"), row.meta
    asyncio.run(scenario())


def test_a_command_that_shows_the_permissions_gone_holds_the_time_limits(tmp_path):
    """The reminder went out before Send Messages was taken away, so the next post the bot
    would try is the time-out itself: the command a player typed meanwhile (its permissions,
    as Discord sends them) holds the limits first, and the seat is not timed out unheard."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=4)) as h:
            table, ann, bob = await placed_two_player(h)
            row, g = await table.game()
            waiting = g.waiting_for()
            clock.now += 0.8 * DAY
            assert await table.bot.tick_once() == 1  # the reminder, posted
            take_away(h, send_messages=False)
            res = await table.slash(table.user(row, waiting[0]), "rr status")
            assert "Send Messages" in res.text and "time limits wait" in res.text, res.text
            for _ in range(3):
                clock.now += 0.6 * DAY
                await table.bot.tick_once()
            await nobody_timed_out(table, waiting)
    asyncio.run(scenario())


def test_no_seat_times_out_in_a_thread_locked_mid_game(tmp_path):
    """A moderator locks the game's thread and nobody types there: the bot's reminder and
    time-out posts are refused as Discord refuses them in a locked thread (160005; 50083
    once it is archived too), and no seat is timed out on a question nobody could read
    (R15's time limits held). Unlocked, the next command there lets the game go on."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=4)) as h:
            table, thread, ann = await game_in_a_thread(h)
            row, g = await table.game()
            waiting = g.waiting_for()
            h.set_thread(thread, locked=True)
            for k in range(6):
                if k == 3:
                    h.set_thread(thread, archived=True)
                clock.now += 0.8 * DAY
                await table.bot.tick_once()
            await nobody_timed_out(table, waiting)
            h.set_thread(thread, archived=False, locked=False)
            res = await table.slash(ann, "rr status")
            assert "⚠️" not in res.text, res.text
            posts = [m for m in h.messages(thread) if not m.ephemeral]
            assert any("the game goes on" in m.text for m in posts), [m.text for m in posts]
    asyncio.run(scenario())


def test_a_hold_another_process_made_is_lifted_here_after_its_next_pass(tmp_path):
    """Several processes share the database (docs/deploy.md): a hold another process wrote
    (its posts refused) is seen by this one's time-limit pass over the game's overdue
    timers, and the next command here with the permissions intact lets the game go on.
    Until a process saw a channel held it does not read the game again at every answer
    and post (`TimeLimits.held_channels`): that read was the bot's busiest cost."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=4)) as h:
            table, ann, bob = await placed_two_player(h)
            row, g = await table.game()
            waiting = g.waiting_for()
            limits = table.bot.service.limits
            await table.bot.store.update_meta(row.id, lambda m: m.update(held=clock.now) or True)
            assert h.channel.id not in limits.held_channels
            clock.now += 1.2 * DAY  # past the limit: the pass skips the held game
            await table.bot.tick_once()
            row, g = await nobody_timed_out(table, waiting)
            assert h.channel.id in limits.held_channels
            await table.slash(table.user(row, waiting[0]), "rr status")
            row, _g = await table.game()
            assert "held" not in row.meta, row.meta
            posts = [m for m in h.messages(h.channel) if not m.ephemeral]
            assert any("the game goes on" in m.text for m in posts), [m.text for m in posts]
    asyncio.run(scenario())


def test_a_channel_without_attach_files_stays_held_between_text_posts(tmp_path):
    """Attach Files alone taken away: every command there shows it missing and holds the
    time limits, but the moves' text posts (lines, pings) still go through — and each one
    taken lifted the hold again: "the game goes on" after nearly every move, the open
    questions pinged once more, every deadline restarted, the limits flapping between held
    and running while nothing had been given back. A text post proves the bot may send
    text, not that it may attach the board: the game stays held until a post with an image
    goes through or a command shows Attach Files back."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=4)) as h:
            table, ann, bob = await placed_two_player(h)
            take_away(h, attach_files=False)
            before = len(h.messages(h.channel))
            rng = random.Random(3)
            for _ in range(6):
                await table.step(rng)
                row, _g = await table.game()
                assert "held" in row.meta, row.meta
            posts = [m.text for m in h.messages(h.channel)[before:] if not m.ephemeral]
            assert not any("the game goes on" in p for p in posts), posts
            give_back(h, attach_files=True)
            await table.slash(ann, "rr status")
            row, _g = await table.game()
            assert "held" not in row.meta, row.meta
            posts = [m.text for m in h.messages(h.channel)[before:] if not m.ephemeral]
            assert sum("the game goes on" in p for p in posts) == 1, posts
    asyncio.run(scenario())


def test_status_after_a_resume_shows_the_restarted_time_limit(tmp_path):
    """The hold lifted, every open question has its full time limit again (its timers
    rebuilt in the store) — but `/rr status` read the deadlines this process kept in memory
    for the game's version (a hold and its resume change no version), so it showed the
    limit that had run out days ago, "time limit: 3 days ago", beside "the game goes on"."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=4)) as h:
            table, ann, bob = await placed_two_player(h)
            row, g = await table.game()
            owner = table.user(row, g.waiting_for()[0])
            take_away(h, send_messages=False)
            await passes(table, clock, 4)
            give_back(h, send_messages=True)
            res = await table.slash(owner, "rr status")
            posts = [m for m in h.messages(h.channel) if not m.ephemeral]
            assert any("the game goes on" in m.text for m in posts)
            assert f"<t:{int(clock.now + DAY)}" in res.text, res.text
    asyncio.run(scenario())


def test_a_held_game_is_tried_again_every_hour_and_goes_on_once_it_can(tmp_path):
    """Permissions given back show only in a post that goes through or in a command in the
    channel; players who wait for the bot's ping type nothing, and the game stayed held
    for good. The time-limit pass tries the channel again every PROBE_S: refused, the
    game stays held, unseen; taken, its table and questions are posted again, each with
    its full time limit (R15), and the channel reads that the game goes on."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=4)) as h:
            table, ann, bob = await placed_two_player(h)
            row, g = await table.game()
            waiting = g.waiting_for()
            take_away(h, send_messages=False)
            await passes(table, clock, 3)  # held, then tried again after an hour: still refused
            row, g = await table.game()
            assert row.meta.get("held") is not None and not row.meta.get("timeouts"), row.meta
            give_back(h, send_messages=True)
            before = len(h.messages(h.channel))
            await table.bot.tick_once()  # within the hour since the last try: nothing
            assert len(h.messages(h.channel)) == before
            clock.now += PROBE_S
            await table.bot.tick_once()
            row, g = await table.game()
            assert "held" not in row.meta and g.waiting_for() == waiting, row.meta
            posts = [m for m in h.messages(h.channel)[before:] if not m.ephemeral]
            assert any("the game goes on" in m.text for m in posts), [m.text for m in posts]
            assert any(m.files for m in posts)  # the table, posted again
            timers = await table.bot.store.timers(row.id)
            assert timers and all(t["deadline"] == clock.now + DAY for t in timers), timers
    asyncio.run(scenario())
