"""The commands around play: lobby, looking (board, status, log, reach, card, rules),
undo, Japanese, autocomplete robustness, Discord's 3-second window, HTTP trouble, and the
entry point's configuration."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import discord
import pytest
from bot_driver import Clock, Table, make_bot
from harness import Harness

import bot as entry
from cogs.i18n import RookTranslator

ROOT = Path(__file__).resolve().parent.parent


def run(coro_fn):
    return asyncio.run(coro_fn())


async def placed_game(h: Harness, players: int = 2) -> tuple[Table, list]:
    users = [h.user(n) for n in ("ann", "bob", "cat")[:players]]
    table = Table(h)
    await table.open(users[0], users[1:], players=players)
    for user in users:
        res = await table.slash(user, "rr place", card="thief", square="2B")
        # what was done, with the card's name (as the hand shows it), not its key
        assert res.text.startswith("✅ `place Thief★ 2B`"), res.text
    return table, users


def test_a_lobby_whose_message_id_is_damaged_posts_its_roster_anew(tmp_path):
    """The fault-injection audit: a lobby whose stored message id is no Discord id (text, a
    fraction) had every roster edit refused by Discord (400, logged), so the lobby message
    went on showing the first roster for good while players joined. The roster is posted
    anew, with its buttons, and the new message is the one kept up to date."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db")) as h:
            ann, bob, cat = (h.user(n) for n in ("ann", "bob", "cat"))
            await h.slash(ann, "rr new", players=3)
            first = next(m for m in h.messages() if not m.ephemeral)
            with sqlite3.connect(tmp_path / "g.db") as con:
                con.execute("UPDATE games SET meta=json_set(meta, '$.lobby_message', 'x1')")
            assert "joined" in (await h.slash(bob, "rr lobby join")).text
            lobbies = [m for m in h.messages() if not m.ephemeral]
            assert len(lobbies) == 2 and "Players (2/3): Ann, Bob" in lobbies[1].text
            assert lobbies[1].custom_ids == first.custom_ids  # Join, Leave, Start again
            assert not [r for r in h.http.requests if 400 <= r.status < 500]
            assert "joined" in (await h.click(cat, message=lobbies[1], label="Join")).text
            assert "Players (3/3): Ann, Bob, Cat" in h.server.messages[lobbies[1].id].text
            assert len([m for m in h.messages() if not m.ephemeral]) == 2  # edited, not posted
    run(scenario)


def test_lobby_join_leave_start_refusals(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db")) as h:
            ann, bob, cat, dan = (h.user(n) for n in ("ann", "bob", "cat", "dan"))
            res = await h.slash(ann, "rr new", players=2, hours=6)
            assert res.ephemeral and "Players (1/2): Ann" in res.text
            lobby = next(m for m in h.messages() if not m.ephemeral)
            assert lobby.custom_ids == ["rr:lobby:1:join", "rr:lobby:1:leave", "rr:lobby:1:start"]
            assert "turn time limit 6 h" in lobby.text and "Press **Join**" in lobby.text
            again = await h.slash(bob, "rr new")
            assert "already has a game" in again.text
            assert "already in this game" in (await h.click(ann, message=lobby, label="Join")).text
            assert "joined" in (await h.slash(bob, "rr lobby join")).text
            assert "Players (2/2): Ann, Bob" in h.server.messages[lobby.id].text
            # a full table asks nobody to press Join (with room left it did, above)
            full = h.server.messages[lobby.id].text
            assert "Press **Join**" not in full and "the host presses **Start**" in full
            assert "full" in (await h.click(cat, message=lobby, label="Join")).text
            assert "host cannot leave" in (await h.click(ann, message=lobby, label="Leave")).text
            assert "Only the host" in (await h.click(bob, message=lobby, label="Start")).text
            assert "left" in (await h.click(bob, message=lobby, label="Leave")).text
            assert "Players (1/2): Ann" in h.server.messages[lobby.id].text
            assert "not in this lobby: its **Join** button takes a seat" in (
                await h.slash(dan, "rr lobby leave")).text
            # starting before every seat is taken asks first (the Discord new-player
            # audit: a friend still on the way found a solo game begun without them)
            res = await h.slash(ann, "rr start")
            assert res.ephemeral and "You are the only player so far (2 seats)" in res.text, res.text
            assert "Players (1/2): Ann" in h.server.messages[lobby.id].text  # not started
            early = next(m for m in (res.message, *res.followups) if m and m.buttons)
            assert [b.label for b in early.buttons] == ["Start with 1"]
            res = await h.click(ann, message=early, label="Start with 1")
            assert "started" in res.text
            assert not h.server.messages[lobby.id].buttons  # the lobby closed
            # a stale lobby button (from a message a client still shows) is refused
            old = h.server.messages[lobby.id]
            old.components = lobby.history[0]["components"]
            res = await h.click(dan, "rr:lobby:1:join", message=old)
            assert res.ephemeral and "already started" in res.text
            # solo with a difficulty only when alone
            second = h.text_channel("solo")
            res = await h.slash(cat, "rr new", difficulty="hard", channel=second)
            assert "Solo (hard)" in res.text
    run(scenario)


def test_looking_commands(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=6)) as h:
            table, (ann, bob) = await placed_game(h)
            stranger = h.user("stranger")
            board = await h.slash(ann, "rr board")
            assert board.ephemeral and board.files[0].filename == "board-1.png"
            assert board.files[0].data.startswith(b"\x89PNG") and "**Ann**" in board.text
            other = await h.slash(stranger, "rr board", player=bob)
            assert other.ephemeral and "**Bob**" in other.text and "medals" not in other.text
            res = await h.slash(ann, "rr board", player=stranger)
            assert "not playing" in res.text
            status = await h.slash(stranger, "rr status")
            assert status.ephemeral and "Round 1" in status.text and "Waiting for" in status.text
            log = await h.slash(bob, "rr log")
            assert log.ephemeral and "placed Thief★ on 2B" in log.text
            units = await table.choices(ann, "rr reach", "unit")
            assert units == ["2B"]
            reach = await h.slash(ann, "rr reach", unit="2B")
            assert reach.files and "moves to" in reach.text
            assert "no unit" in (await h.slash(ann, "rr reach", unit="5C")).text
            assert "not a square" in (await h.slash(ann, "rr reach", unit="x9")).text
            # what was typed is quoted short and as literal text (the Discord-limits audit:
            # it came back whole, up to 1,900 characters, with its markdown live)
            typed = "**x9**" + "9" * 3000
            for res in (await h.slash(ann, "rr reach", unit=typed),
                        await h.slash(ann, "rr card", name=typed)):
                assert res.ephemeral and len(res.text) < 300 and "\\*\\*x9" in res.text, res.text
            names = await table.choices(ann, "rr card", "name", name="gob")
            assert names == ["goblin"]
            card = await h.slash(ann, "rr card", name="ゴブリン")
            assert card.files[0].filename == "card-goblin.png" and "Goblin" in card.text
            assert (await h.slash(ann, "rr card", name="advance")).files
            rules = await h.slash(stranger, "rr rules", topic="boons")
            assert rules.embed["title"] == "Boons: honor marks"
    run(scenario)


def test_undo_takes_back_a_quiet_move(tmp_path):
    """Play until a player moves a unit while another of theirs can still act (the question
    stays open, nothing random was revealed): `/rr undo` restores the game exactly."""
    async def scenario():
        import random

        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=6)) as h:
            table, users = await placed_game(h)
            rng = random.Random(2)
            for _ in range(300):
                row, g = await table.game()
                assert not g.over, "no chance to undo came up"
                seat = g.waiting_for()[0]
                dec = g.decision(seat)
                moves = [a for a in g.legal_actions(seat) if a.verb == "act" and a.to
                         and not a.skill and not a.fullmove]
                if dec["kind"] == "actions" and len({a.square for a in moves}) >= 2:
                    break
                await table.step(rng)
            user = table.user(row, seat)
            before = g.to_json()
            res = await table.slash(user, "rr act", unit=moves[0].square, to=moves[0].to)
            assert res.text.startswith("✅")
            res = await table.slash(user, "rr undo")
            assert res.text.startswith("✅ `undo`") and res.buttons  # the question again
            row, g = await table.game()
            assert g.to_json() == before
            assert any("took back" in m.text for m in h.messages() if not m.ephemeral)
            res = await table.slash(user, "rr undo")
            assert "Nothing to undo" in res.text
    run(scenario)


def test_japanese_players_get_japanese(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=6)) as h:
            table, (ann, bob) = await placed_game(h)
            yui = h.user("yui", locale="ja")
            res = await h.slash(yui, "rr status")
            assert "ラウンド1" in res.text and "待機中" in res.text
            res = await h.slash(yui, "rr rules", topic="boons")
            assert res.embed["title"] == "栄誉マークの恩恵"
            res = await h.slash(yui, "rr done")
            assert "観戦できます" in res.text
            assert (await table.choices(yui, "rr card", "name", name="ゴブ")) == ["goblin"]
            # command names, descriptions and choices are uploaded in Japanese too
            translator = RookTranslator()
            for cmd in h.bot.tree.get_commands():
                payload = await cmd.get_translated_payload(h.bot.tree, translator)
                for node in walk(payload):
                    ja = (node.get("name_localizations") or {}).get("ja")
                    if "type" in node and node.get("type") in (1, 2, 3, 4, 5, 6, 10) or \
                            node is payload:
                        assert ja, f"no Japanese name for {node['name']}"
                        assert ja == ja.lower() and len(ja) <= 32
                        assert all(c.isalnum() or c in "-_" for c in ja), ja
                        desc = (node.get("description_localizations") or {}).get("ja")
                        assert desc and len(desc) <= 100, node["name"]
    run(scenario)


def walk(node):
    yield node
    for child in node.get("options", []) or []:
        yield from walk(child)
    for choice in node.get("choices", []) or []:
        assert (choice.get("name_localizations") or {}).get("ja"), choice
    return


def test_autocomplete_is_safe_and_only_offers_legal_squares(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=6)) as h:
            lonely = h.user("lonely")
            assert await Table(h).choices(lonely, "rr act", "unit") == []  # no game here
            table, (ann, bob) = await placed_game(h)
            row, g = await table.game()
            seat = g.waiting_for()[0]
            user = table.user(row, seat)
            await table.slash(user, "rr pick", card="advance")
            row, g = await table.game()
            legal = [a for a in g.legal_actions(seat) if a.verb == "act"]
            units = await table.choices(user, "rr act", "unit")
            assert set(units) == {a.square for a in legal}
            for unit in units:
                dests = await table.choices(user, "rr act", "to", unit=unit)
                assert set(dests) - {unit} == {a.to for a in legal
                                               if a.square == unit and a.to and not a.fullmove}
                for to in dests:
                    for target in await table.choices(user, "rr act", "target", unit=unit,
                                                      to=to):
                        assert any(str(a.skill) == target for a in legal if a.square == unit)
            # odd input never breaks suggestions
            for given in ({"unit": "zz"}, {"unit": "6C", "to": "?"}, {"unit": ""},
                          {"unit": "2B", "fullmove": True}):
                await table.choices(user, "rr act", "target", **given)
            assert await table.choices(h.user("spec"), "rr act", "unit") == []
            other = table.user(row, 1 - seat)
            res = await h.autocomplete(other, "rr recruit", focused="card")
            assert res.choices == []  # nothing to recruit now
            # a new game in the same channel: suggestions follow the new seating
            await h.slash(ann, "rr abandon", confirm=True)
            assert await table.choices(ann, "rr place", "card") == []
            cat = h.user("cat")
            solo = await h.slash(cat, "rr new", players=1)
            # a solo table is full from the start: nobody is asked to Join
            assert "Press **Start** to begin." in solo.text and "Join**" not in solo.text
            assert "New to the game? `/rr-learn tutorial` teaches it" in solo.text  # issue 23
            # and where help is during a game (the Discord new-player audit: nothing said so)
            assert "During the game, `/rr bot hint` gives the expert AI's suggestion" in solo.text
            await h.slash(cat, "rr start")
            assert await table.choices(ann, "rr place", "card") == []
            assert "thief_star" in await table.choices(cat, "rr place", "card")
    run(scenario)


def test_every_interaction_is_acknowledged_first(tmp_path, monkeypatch):
    """Discord's 3-second window: the first request of every command or click is its
    interaction callback. A move's is a deferral, sent before any database or image work is
    awaited (it is also what tells a second delivery of the move to stand down); a read
    answered within `QUICK_S` of the user's action is answered by the callback itself, one
    request instead of two (issue 22)."""
    import cogs.actions

    monkeypatch.setattr(cogs.actions, "QUICK_S", 2.5)  # no read here takes that long

    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=6)) as h:
            table, (ann, bob) = await placed_game(h)
            reads = [await h.slash(ann, "rr board"), await h.slash(ann, "rr status"),
                     await h.slash(ann, "rr log"), await h.slash(bob, "rr card", name="lich")]
            for res in reads:
                assert res.kind == "message" and not res.followups, res.kind
                assert res.requests[0].route.endswith("/callback"), res.requests[0]
                assert res.text and res.message is not None and res.message.ephemeral
            assert "Round" in reads[1].text
            row, g = await table.game()
            seat = g.waiting_for()[0]
            found = table.find_button(table.user(row, seat), row.id, seat,
                                      g.decision(seat)["id"], "pick")
            move = await table.click(table.user(row, seat), found)
            assert move.deferred, move.kind
            assert move.requests[0].route.endswith("/callback"), move.requests[0]
            assert move.text.startswith("✅")
    run(scenario)


def test_a_slow_read_is_deferred_in_time_then_answered(tmp_path, monkeypatch):
    """A read whose answer is not ready `QUICK_S` after the user acted is deferred then —
    well inside Discord's 3 s — and answered by a followup: the player sees "thinking…",
    never "the application did not respond" (issue 22)."""
    import cogs.actions
    from service.tables import Tables

    monkeypatch.setattr(cogs.actions, "QUICK_S", 0.05)
    viewable = Tables.viewable

    async def slow(self, channel_id):
        await asyncio.sleep(0.3)
        return await viewable(self, channel_id)

    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=6)) as h:
            _table, (ann, _bob) = await placed_game(h)
            monkeypatch.setattr(Tables, "viewable", slow)
            res = await h.slash(ann, "rr status")
            assert res.deferred and res.requests[0].route.endswith("/callback")
            assert res.callback_at is not None and res.followup_at is not None
            assert res.callback_at - res.arrived < 0.25 < res.followup_at - res.arrived
            assert "Round" in res.text and res.followups[0].ephemeral
    run(scenario)


def test_discord_http_trouble_never_breaks_a_game(tmp_path, monkeypatch):
    import cogs.announce
    import cogs.delivery

    monkeypatch.setattr(cogs.delivery, "RETRY_DELAYS", (0.01, 0.02))

    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=6)) as h:
            table, (ann, bob) = await placed_game(h)
            row, g = await table.game()
            seat = g.waiting_for()[0]
            user = table.user(row, seat)
            # rate limited twice: discord.py waits and the post goes through
            rule = h.http.fail("POST", "/channels/{channel_id}/messages", status=429,
                               retry_after=0.01, times=2)
            res = await table.slash(user, "rr pick", card="reward")
            assert res.text.startswith("✅") and rule.hits == 2
            assert any("chose **Reward**" in m.text for m in h.messages() if not m.ephemeral)
            # Discord down for channel posts: the action is still taken and confirmed
            h.http.fail("POST", "/channels/{channel_id}/messages", status=503, times=None)
            row, g = await table.game()
            seat = g.waiting_for()[0]
            user = table.user(row, seat)
            version = row.version
            res = await table.slash(user, "rr pick", card="rest")
            assert res.text.startswith("✅")
            assert (await table.game())[0].version > version
            failed = [r for r in res.requests if r.status == 503]
            posts = {r.json.get("content", "")[:30] for r in failed}
            assert failed and len(failed) <= 3 * 5 * len(posts)  # bounded retries per post
            # the reply itself failing (5xx) is absorbed too: a followup after a deferral,
            # and a read's answer in its callback (QUICK_S)
            h.http.failures.clear()
            h.http.fail("POST", "/webhooks/{webhook_id}/{webhook_token}", status=500, times=None)
            res = await table.slash(user, "rr pick", card="raid")
            assert res.deferred and not res.text
            h.http.failures.clear()
            h.http.fail("POST", "/interactions/{webhook_id}/{webhook_token}/callback",
                        status=500, times=None)
            res = await h.slash(ann, "rr status", expect_response=False)
            assert not res.responded and not res.errors
            h.http.failures.clear()
            assert (await h.slash(ann, "rr status")).text
    run(scenario)


@pytest.mark.process
def test_bot_py_explains_a_missing_token_in_one_line():
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    proc = subprocess.run([sys.executable, "bot.py"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "DISCORD_TOKEN" in lines[0]


@pytest.mark.process
def test_bot_py_help_lists_the_modes_without_a_token_and_refuses_an_unknown_option():
    """The new-player audit: `python bot.py --help`, the first thing a newcomer types, said
    only that DISCORD_TOKEN was missing; an unknown option started the bot as if absent."""
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    shown = subprocess.run([sys.executable, "bot.py", "--help"], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and "--console" in shown.stdout and "--check" in shown.stdout
    assert "python bot.py --console --help" in shown.stdout
    wrong = subprocess.run([sys.executable, "bot.py", "--tutorail"], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2 and "unknown option '--tutorail'" in wrong.stderr
    assert "Traceback" not in shown.stderr + wrong.stderr


def test_config_from_the_environment():
    config = entry.load_config({"DISCORD_TOKEN": "x", "RR_LOG_LEVEL": "debug"})
    assert config.db_path == "rookraiders.db" and config.log_level == "DEBUG"
    assert entry.load_config({}).token is None


@pytest.mark.parametrize("locale", [discord.Locale.japanese, discord.Locale.french])
def test_translator_only_answers_japanese(locale):
    from discord import app_commands

    async def scenario():
        return await RookTranslator().translate(app_commands.locale_str("new"), locale,
                                                None)  # type: ignore[arg-type]
    got = asyncio.run(scenario())
    assert got == ("新規" if locale is discord.Locale.japanese else None)


def test_a_bug_still_gets_an_answer_and_is_logged(tmp_path):
    """An unexpected exception (here: the service failing) answers the user politely and is
    reported to discord.py's error handlers (which the harness turns into errors)."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=6)) as h:
            table, (ann, bob) = await placed_game(h)
            row, g = await table.game()
            seat = g.waiting_for()[0]
            user = table.user(row, seat)
            found = table.find_button(user, row.id, seat, g.decision(seat)["id"], "pick")

            async def broken(*args, **kwargs):
                raise RuntimeError("disk on fire")

            h.bot.service.play.act = broken
            res = await h.slash(user, "rr done", expect_error=RuntimeError)
            assert res.ephemeral and "Something went wrong" in res.text
            res = await h.click(user, found[1], message=found[0], expect_error=RuntimeError)
            assert res.ephemeral and "Something went wrong" in res.text
    run(scenario)


def test_missed_roll_offers_reroll_and_keep_buttons(tmp_path):
    """Monsters no roll can beat (DEF 13, 2 HP): every dice attack misses, and since a
    reroll could still be a critical, the attacker is asked — with buttons — what to do."""
    import json
    import random

    from engine.cards import DATA_FILE

    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    for m in data["monsters"].values():
        m.update(hp=2, mov=1, atk=1)
        m["def"] = 13

    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=8,
                                            cards_data=data)) as h:
            table, users = await placed_game(h, players=1)
            rng = random.Random(3)
            for _ in range(200):
                row, g = await table.game()
                assert not g.over, "no missed roll came up"
                seat = g.waiting_for()[0]
                dec = g.decision(seat)
                if dec["kind"] == "roll":
                    break
                dice = [a for a in g.legal_actions(seat) if a.verb == "act" and a.skill
                        and a.skill.kind == "attack"]
                if dec["kind"] == "actions" and dice:
                    a = dice[0]
                    opts = {"unit": a.square, "target": str(a.skill)}
                    if a.to:
                        opts["to"] = a.to
                    if a.fullmove:
                        opts["fullmove"] = True
                    res = await table.slash(table.user(row, seat), "rr act", **opts)
                    assert res.text.startswith("✅"), res.text
                    continue
                await table.step(rng)
            user = table.user(row, seat)
            msg, cid = table.find_button(user, row.id, seat, dec["id"], "roll")
            labels = {c.custom_id.split(":")[5]: c.label for c in msg.buttons
                      if c.custom_id and f":{dec['id']}:" in c.custom_id}
            assert labels["reroll"] == "Reroll (1 honor mark)" and labels["keep"] == "Keep"
            assert msg.ephemeral and "Reroll with Willpower" in msg.text
            res = await h.click(user, f"rr:roll:{row.id}:{seat}:{dec['id']}:reroll", message=msg)
            assert res.text.startswith("✅ `reroll`"), res.text
            res = await h.click(user, f"rr:roll:{row.id}:{seat}:{dec['id']}:keep", message=msg)
            assert "out of date" in res.text
    run(scenario)
