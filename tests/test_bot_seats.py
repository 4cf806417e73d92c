"""AI seats and zombie mode through the bot's gateway-level harness (issue 9): `/rr new` with
AI players, `/rr bot add`/`/rr bot remove` in the lobby, AI moves narrated like anyone's and
never pinged, zombie mode marked in posts and on the table image, `/rr back`, and an AI
answer lost in a restart given by the next process."""

from __future__ import annotations

import asyncio
import random

import pytest
from bot_driver import Clock, Table, make_bot
from harness import Harness

import ai
import render
from engine import Game
from service import seats as S

HOUR = 3600


def public(h, channel=None):
    return [m for m in h.messages(channel) if not m.ephemeral and m.dm_user_id is None]


async def play_people(table: Table, rng: random.Random, max_steps: int = 400) -> Game:
    """Play the people's decisions; after each, the AIs must already have answered theirs."""
    for _ in range(max_steps):
        row, g = await table.game()
        if g.over:
            return g
        assert all(not S.ai_level(row, s) for s in g.waiting_for()), \
            "an AI seat was still being asked something after the last move settled"
        await table.step(rng)
    raise AssertionError("the game did not end")


def test_solo_with_ai_opponents_plays_to_the_end(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4),
                           settle_timeout=60) as h:
            ann = h.user("ann")
            table = Table(h)
            res = await h.slash(ann, "rr new", bots=2, bot_level="random")
            assert "🤖 Bot 1 (random), 🤖 Bot 2 (random)" in res.text and "(3/3)" in res.text
            assert "🤖 Bot 2 (random)" in table.lobby_message().content
            started = await h.click(ann, message=table.lobby_message(), label="Start")
            assert "started" in started.text
            row, _ = await table.bot.service.tables.current(h.channel.id)
            table.game_id = row.id
            assert any("2. 🤖 Bot 1 (random)" in m.content for m in public(h))
            g = await play_people(table, random.Random(2))
            assert g.over and len(g.state["players"]) == 3
            said = "\n".join(m.content for m in public(h))
            # the bots' moves are narrated like anyone's, under their marked names
            assert "🤖 Bot 1 (random) placed" in said and "🤖 Bot 2 (random) placed" in said
            assert "🤖 Bot 1 (random) chose" in said or "🤖 Bot 1 (random):" in said
            # nobody is pinged for a bot, and no DM goes anywhere for one
            assert "<@-" not in said
            assert all(m.dm_user_id in (None, ann.id) for m in h.messages())
            # only Ann answered by interaction; the log holds the bots' answers too (R15)
            assert {s.seat for s in table.steps} == {0}
            row, _ = await table.game()
            log = await table.bot.store.log(row.id)
            assert {int(s) for s, _t in log} == {0, 1, 2}
            assert Game.replay(row.setup, log).to_json() == row.state
    asyncio.run(scenario())


def test_bot_add_and_bot_remove_in_the_lobby(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock())) as h:
            ann, bob, yui = h.user("ann"), h.user("bob"), h.user("yui", locale="ja")
            table = Table(h)
            await h.slash(ann, "rr new", players=4)
            assert "/rr bot add" in table.lobby_message().content
            await h.click(bob, message=table.lobby_message(), label="Join")
            res = await h.slash(bob, "rr bot add", level="random")
            assert res.ephemeral and "Only the host can add or remove AI players" in res.text
            res = await h.slash(yui, "rr bot remove")
            assert res.ephemeral and "ホストだけ" in res.text
            res = await h.slash(ann, "rr bot add", level="random", count=2)
            assert res.ephemeral and "(4/4)" in res.text
            lobby = table.lobby_message().content
            assert "Ann, Bob, 🤖 Bot 1 (random), 🤖 Bot 2 (random)" in lobby
            res = await h.slash(ann, "rr bot add", level="random")
            assert "room for 0 more" in res.text
            res = await h.slash(ann, "rr bot remove")
            assert "(3/4)" in res.text and "Bot 2" not in table.lobby_message().content
            row = await table.bot.store.open_game(h.channel.id)
            assert [s.get("ai") for s in row.seats] == [None, None, "random"]
            early = await h.click(ann, message=table.lobby_message(), label="Start")
            assert "Only 3 of 4 seats are taken" in early.text  # asked first
            started = await h.click(ann, message=next(m for m in early.followups if m.buttons),
                                    label="Start with 3")
            assert "started" in started.text
            res = await h.slash(ann, "rr bot add", level="random")
            assert "already started" in res.text
    asyncio.run(scenario())


def test_zombie_mode_marks_the_seat_and_back_returns_it(tmp_path, monkeypatch):
    drawn: list[dict] = []
    real = render.table_png

    def spy(view, **kw):
        drawn.append(view)
        return real(view, **kw)

    monkeypatch.setattr(render, "table_png", spy)

    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=2),
                           settle_timeout=30) as h:
            ann, bob = h.user("ann"), h.user("bob")
            table = Table(h)
            await table.open(ann, [bob], players=2, hours=1)
            res = await h.slash(bob, "rr settings", zombie="random")
            assert "Only the host or a member with Manage Channels" in res.text
            res = await h.slash(ann, "rr settings", zombie="random")
            assert "an AI (random) takes their seat" in res.text
            res = await h.slash(bob, "rr settings")
            assert "an AI (random) takes their seat" in res.text
            res = await table.slash(ann, "rr place", card="thief", square="2B")
            assert res.text.startswith("✅"), res.text
            # Bob lets his time run out: the AI takes his seat, said with a mention
            clock.now += 1.1 * HOUR
            await table.bot.tick_once()
            await h.settle()
            news = [m for m in public(h) if "ran out of time" in m.content]
            assert news and "🤖 an AI (random) plays their seat now" in news[-1].content
            assert bob.mention in news[-1].content and "/rr back" in news[-1].content
            # ...and the mention pings him (the bot's default pings nobody): he is told
            sent = [r for r in h.http.find("POST", "/channels/{channel_id}/messages")
                    if "ran out of time" in str((r.json or {}).get("content"))]
            assert sent[-1].json["allowed_mentions"]["users"] == [bob.id]
            row, g = await table.game()
            assert S.zombie_level(row, 1) == "random" and 1 not in g.waiting_for()
            # his moves are narrated under "Bob 🤖"; the table image names him "Bob (AI)"
            said = "\n".join(m.content for m in public(h))
            assert "Bob 🤖 placed" in said
            assert any(v["players"][1]["name"] == "Bob (AI)" for v in drawn)
            res = await h.slash(ann, "rr log")
            assert "Bob 🤖 placed" in res.text
            res = await h.slash(ann, "rr board", player=bob)
            assert res.text.startswith("**Bob (AI)**")
            # while the AI plays, Bob's own answers are refused with what to do
            res = await h.slash(bob, "rr done")
            assert res.ephemeral and "/rr back" in res.text
            rng = random.Random(4)
            for _ in range(30):  # Ann plays a while; the AI answers every question of Bob's
                row, g = await table.game()
                if g.over or g.state["round"] >= 2:
                    break
                assert g.waiting_for() == [0] or g.over
                await table.step(rng)
            res = await h.slash(bob, "rr back")
            assert res.ephemeral and "your next decisions are yours" in res.text
            assert public(h)[-1].content == "🙋 Bob is back and plays their own seat again."
            res = await h.slash(bob, "rr back")
            assert "already playing your own seat" in res.text
            row, g = await table.game()
            assert S.zombie_level(row, 1) is None
            # his next question is his again: he is pinged and answers it himself
            for _ in range(60):
                row, g = await table.game()
                if g.over or 1 in g.waiting_for():
                    break
                await table.step(rng)
            assert not g.over and 1 in g.waiting_for()
            assert any(m.content.startswith(bob.mention) for m in public(h)[-6:])
            await h.settle()
            row, g2 = await table.game()
            assert g2.state["log"] == g.state["log"]  # nobody answered for him
    asyncio.run(scenario())


def test_an_ai_answer_lost_in_a_restart_is_given_by_the_next_process(tmp_path, monkeypatch):
    db = tmp_path / "g.db"
    kept: dict = {}

    async def first_life():
        with monkeypatch.context() as m:
            m.setattr("cogs.seats.AiRunner.kick", lambda self, channel_id: None)  # "crash"
            async with Harness(lambda: make_bot(db, Clock(), seed=6)) as h:
                ann = h.user("ann")
                await h.slash(ann, "rr new", bots=1)
                table = Table(h)
                await h.click(ann, message=table.lobby_message(), label="Start")
                row, g = await table.bot.service.tables.current(h.channel.id)
                assert 1 in g.waiting_for()  # the bot's placement was never given
                kept.update(server=h.server, game=row.id)

    async def second_life():
        async with Harness(lambda: make_bot(db, Clock(), seed=6), server=kept["server"]) as h:
            table = Table(h)
            table.game_id = kept["game"]
            assert await table.bot._verifier == 1
            await h.settle()
            row, g = await table.game()
            assert row.seats[1]["ai"] == "random"  # the seat record survived the restart
            assert g.waiting_for() == [0]
            assert any("🤖 Bot 1 (random) placed" in m.content for m in public(h))

    asyncio.run(first_life())
    asyncio.run(second_life())


@pytest.mark.parametrize("level", list(ai.LEVELS))
def test_every_ai_level_is_offered_and_plays_its_seat(tmp_path, level):
    """Levels come from `ai.LEVELS`: each can be chosen in `/rr new` and answers at once."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3),
                           settle_timeout=60) as h:
            ann = h.user("ann")
            res = await h.slash(ann, "rr new", bots=1, bot_level=level)
            assert f"🤖 Bot 1 ({level})" in res.text
            table = Table(h)
            await h.click(ann, message=table.lobby_message(), label="Start")
            row, g = await table.bot.service.tables.current(h.channel.id)
            assert row.seats[1]["ai"] == level and g.waiting_for() == [0]
            assert any(f"🤖 Bot 1 ({level}) placed" in m.content for m in public(h))
    asyncio.run(scenario())


def test_ai_seat_texts_in_japanese(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock())) as h:
            yui = h.user("yui", locale="ja")
            res = await h.slash(yui, "rr new", bots=1)
            assert "参加者（2/2）: Yui、🤖 ボット1（気まぐれ）" in res.text  # story.list_sep
            res = await h.slash(yui, "rr settings", zombie="random")
            assert "時間切れのプレイヤーがいると: AI（気まぐれ）が`/rr 復帰`まで代わりに遊びます" \
                in res.text
            res = await h.slash(yui, "rr settings", zombie="off")
            assert "既定の回答になります" in res.text
            assert "2回続けて時間切れ" in res.text  # R15: in a row, not any two
            table = Table(h)
            await h.click(yui, message=table.lobby_message(), label="開始")
            res = await h.slash(yui, "rr back")
            assert res.ephemeral and "すでに自分の席で遊んでいます" in res.text
    asyncio.run(scenario())


@pytest.mark.parametrize(("community", "posts"), [(False, "ja"), (True, "en")])
def test_a_server_without_a_chosen_locale_plays_in_its_hosts_language(tmp_path, community, posts):
    """The Japanese audit: Discord reports en-US for every server that is no Community
    server (nobody chose it), so three Japanese players in a friends' server got every
    public post — the lobby, "Your turn", the buttons — in English. There the game speaks
    the language of whoever opens it; a Community server set to English stays English."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock())) as h:
            if community:  # (the bot's cached guild as a GUILD_UPDATE would leave it)
                h.server.guild_features = ["COMMUNITY"]
                h.bot.get_guild(h.server.guild_id).features = ["COMMUNITY"]
            yui = h.user("yui", locale="ja")
            await h.slash(yui, "rr new", players=2)
            lobby = Table(h).lobby_message()
            assert ("募集中" in lobby.content) == (posts == "ja"), lobby.content
            row = await h.bot.store.open_game(h.channel.id)
            assert row is not None and row.settings["lang"] == posts
    asyncio.run(scenario())


def test_the_last_person_timing_out_is_not_played_out_by_the_ais(tmp_path):
    """Zombie mode with nobody else to wait for: Ann alone with an AI player let her first
    time limit run out. Before, the AI took her seat and the AIs played the whole game out
    in one burst — some sixty posts in the channel, "🏆 Game over: Ann 🤖 won" — right
    after telling her to type `/rr back` to play her seat again. Now her seat stays hers:
    the time-out gets the default answer (R15), the game waits for her next answer."""
    async def scenario():
        clock = Clock()
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=4),
                           settle_timeout=60) as h:
            ann = h.user("ann")
            table = Table(h)
            await h.slash(ann, "rr new", bots=1, hours=1)
            await h.slash(ann, "rr settings", zombie="random")
            await h.click(ann, message=table.lobby_message(), label="Start")
            row, _ = await table.bot.service.tables.current(h.channel.id)
            table.game_id = row.id
            before = len(public(h))
            clock.now += 1.1 * HOUR
            await table.bot.tick_once()
            await h.settle()
            row, g = await table.game()
            said = [m.content for m in public(h)[before:]]
            assert not g.over and row.status == "active", said
            assert S.zombie_level(row, 0) is None
            assert not any("plays their seat now" in m for m in said), said
            assert len(said) < 10, said
            assert g.waiting_for() == [0]  # her next question is hers
            assert any(m.startswith(ann.mention) for m in said[-2:]), said
    asyncio.run(scenario())
