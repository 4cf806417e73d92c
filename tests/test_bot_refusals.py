"""Never let anyone in: refusals are specific, ephemeral, and change nothing stored.

Covers a race of two clicks on one button, a non-player and a seated player acting out of
turn, a stale button, and each kind of bad input (wrong square, illegal move, unknown card,
option out of range, stale button). After each refusal the stored state, version and
action log are byte-identical to before.
"""

from __future__ import annotations

import asyncio
import random

import discord
import pytest
from bot_driver import Clock, Table, make_bot
from discord import app_commands
from harness import Harness, SchemaViolation


async def stored(table: Table) -> tuple[str, int, list]:
    row, _ = await table.game()
    return row.state, row.version, await table.bot.store.log(row.id)


async def refused(table: Table, res, *phrases: str) -> None:
    """An ephemeral refusal containing every phrase; nothing changed."""
    assert res.ephemeral, f"refusal must be ephemeral: {res.text!r}"
    assert not res.text.startswith("✅"), res.text
    for phrase in phrases:  # engine wording may change case, not substance
        assert phrase.casefold() in res.text.casefold(), f"{phrase!r} not in {res.text!r}"


async def two_player_table(h: Harness) -> tuple[Table, object, object]:
    ann, bob = h.user("ann"), h.user("bob")
    table = Table(h)
    await table.open(ann, [bob], players=2)
    return table, ann, bob


def test_bad_inputs_get_specific_ephemeral_refusals_and_change_nothing(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            table, ann, bob = await two_player_table(h)
            stranger = h.user("stranger")
            before = await stored(table)
            cases = [
                (ann, "rr place", {"card": "thief", "square": "9Z"}, ["'9Z' is not a square"]),
                (ann, "rr place", {"card": "thief", "square": "4B"}, ["home area"]),
                (ann, "rr place", {"card": "dragon", "square": "1A"}, ["There is no 'dragon'"]),
                (ann, "rr act", {"unit": "2B", "to": "6B"}, ["place a unit"]),
                (ann, "rr act", {"unit": "zz"}, ["'ZZ' is not a square", "⛔"]),
                (stranger, "rr place", {"card": "thief", "square": "2B"},
                 ["not playing in this game"]),
                (stranger, "rr done", {}, ["not playing in this game"]),
            ]
            for user, command, options, phrases in cases:
                res = await table.slash(user, command, **options)
                await refused(table, res, *phrases)
                assert await stored(table) == before, f"{command} {options} changed the game"
            res = await h.slash(ann, "rr card", name="no such card")
            await refused(table, res, "⛔ No card called 'no such card'")
            # options Discord's client itself refuses never reach the bot
            for command, options in (("rr new", {"players": 7}), ("rr new", {"hours": 0}),
                                     ("rr pick", {"card": "banana"}),
                                     ("rr settings", {"hours": 1000})):
                with pytest.raises(SchemaViolation):
                    await table.slash(ann, command, **options)
            assert await stored(table) == before
            # an illegal move in the Main phase, then a square the unit cannot reach
            await place_both(table, ann, bob)
            row, g = await table.game()
            seat = g.waiting_for()[0]
            user = table.user(row, seat)
            found = table.find_button(user, row.id, seat, g.decision(seat)["id"], "pick")
            advance = found[1].rsplit(":", 1)[0] + ":advance"
            res = await h.click(user, advance, message=found[0])
            assert res.text.startswith("✅"), res.text
            row, g = await table.game()
            unit = next(a.square for a in g.legal_actions(seat) if a.verb == "act")
            before = await stored(table)
            for options, phrases in (({"unit": unit, "to": "6B"}, ["⛔"]),
                                     ({"unit": "1A" if unit != "1A" else "1C", "to": "2A"},
                                      ["⛔"]),
                                     ({"unit": unit, "target": "attack 1A"}, ["⛔"]),
                                     ({"unit": unit, "target": "fly away"}, ["⛔"])):
                res = await table.slash(user, "rr act", **options)
                await refused(table, res, *phrases)
                assert await stored(table) == before
    asyncio.run(scenario())


async def place_both(table: Table, ann, bob) -> None:
    """Initial placement, the start player first: the other player's placement then opens
    round 1, so the start player's pick arrives as a public ping (not in their own reply)."""
    row, g = await table.game()
    first = table.user(row, g.state["start_player"])
    order = (ann, bob) if first is ann else (bob, ann)
    for user, card, square in zip(order, ("thief", "warrior"), ("2B", "2B"), strict=True):
        res = await table.slash(user, "rr place", card=card, square=square)
        assert res.text.startswith("✅"), res.text


def test_race_of_two_clicks_one_wins_the_other_is_out_of_date(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            table, ann, bob = await two_player_table(h)
            await place_both(table, ann, bob)
            row, g = await table.game()
            seat = g.waiting_for()[0]
            user = table.user(row, seat)
            did = g.decision(seat)["id"]
            msg, cid = table.find_button(user, row.id, seat, did, "pick")
            log_before = await table.bot.store.log(row.id)
            first, second = await h.gather(h.click(user, cid, message=msg),
                                           h.click(user, cid, message=msg))
            texts = sorted([first.text, second.text])
            assert sum(t.startswith("✅") for t in texts) == 1, texts
            loser = next(r for r in (first, second) if not r.text.startswith("✅"))
            assert loser.ephemeral and "out of date" in loser.text
            log_after = await table.bot.store.log(row.id)
            picks = [e for e in log_after[len(log_before):] if e[1].startswith("pick")]
            assert len(picks) == 1  # applied once
            # a double click on a Done button (a decision that stays open) behaves the same
            row, g = await table.game()
            for s in g.waiting_for():
                dec = g.decision(s)
                found = table.find_button(table.user(row, s), row.id, s, dec["id"], "done")
                if found:
                    u = table.user(row, s)
                    a, b = await h.gather(h.click(u, found[1], message=found[0]),
                                          h.click(u, found[1], message=found[0]))
                    assert sorted([a.text.startswith("✅"), b.text.startswith("✅")]) == \
                        [False, True]
                    break
    asyncio.run(scenario())


def test_buttons_refuse_other_players_spectators_and_stale_prompts(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            table, ann, bob = await two_player_table(h)
            stranger = h.user("stranger")
            await place_both(table, ann, bob)
            row, g = await table.game()
            seat = g.waiting_for()[0]
            owner, other = (ann, bob) if table.user(row, seat) is ann else (bob, ann)
            did = g.decision(seat)["id"]
            msg, cid = table.find_button(owner, row.id, seat, did, "pick")
            before = await stored(table)
            res = await h.click(other, cid, message=msg)
            await refused(table, res, "This button is for", owner.display_name)
            res = await h.click(stranger, cid, message=msg)
            await refused(table, res, "not playing in this game")
            res = await table.slash(other, "rr pick", card="advance")
            await refused(table, res, "nothing to decide right now")
            assert await stored(table) == before
            assert (await h.click(owner, cid, message=msg)).text.startswith("✅")
            # the same button again: the game has moved on
            before = await stored(table)
            res = await h.click(owner, cid, message=msg)
            await refused(table, res, "out of date")
            assert await stored(table) == before
            # a button of a game that was abandoned, in a channel with a new game
            res = await h.slash(ann, "rr abandon", confirm=True)
            assert "abandoned" in res.text
            await h.slash(ann, "rr new", players=1)
            res = await h.click(owner, cid, message=msg)
            await refused(table, res, "no longer running")
    asyncio.run(scenario())


def test_abandon_needs_host_or_manage_channels(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            table, ann, bob = await two_player_table(h)
            res = await h.slash(bob, "rr abandon")
            await refused(table, res, "Only the host")
            mod = h.user("mod", manage_channels=True)
            before = await stored(table)
            res = await h.slash(mod, "rr abandon")  # a game begun: asked first
            assert res.ephemeral and "Nothing changed yet" in res.text, res.text
            assert await stored(table) == before
            res = await h.slash(mod, "rr abandon", confirm=True)
            assert res.ephemeral and "abandoned" in res.text
            assert "abandoned by Mod" in [m for m in h.messages() if not m.ephemeral][-1].text
            res = await h.slash(ann, "rr status")
            await refused(table, res, "There is no game here")
    asyncio.run(scenario())


def test_a_japanese_player_reads_refusals_in_japanese(tmp_path):
    """Messages in the user's locale: the engine's reason is translated, state unchanged."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            ann, bob = h.user("ann"), h.user("ken", locale="ja")
            table = Table(h)
            await table.open(ann, [bob], players=2)
            before = await stored(table)
            res = await table.slash(bob, "rr place", card="thief", square="4B")
            await refused(table, res, "自軍エリア", "4B")
            res = await table.slash(bob, "rr place", card="dragon", square="1A")
            await refused(table, res, "「dragon」はありません")
            assert await stored(table) == before
    asyncio.run(scenario())


def test_naming_someone_outside_the_server_or_a_stale_option_is_a_clear_refusal(tmp_path):
    """A player option naming someone Discord sends without server membership (they left
    the server) is read as that user: a specific answer, not "something went wrong"; an
    option naming a user the bot has never seen (no resolved data) names them by mention,
    and one its library cannot read at all gets a refusal of its own. Nothing changes."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            table, ann, bob = await two_player_table(h)
            before = await stored(table)
            gone = h.user("gone", in_guild=False)
            res = await table.slash(ann, "rr board", player=gone)
            await refused(table, res, "Gone is not playing")
            res = await table.slash(ann, "rr remove", player=gone)
            await refused(table, res, "Gone is not playing")
            payload = h.slash_payload(ann, "rr board", player=bob)
            del payload["data"]["resolved"]  # and a user this bot has never seen
            payload["data"]["options"][0]["options"][0]["value"] = "999999999999999999"
            res = await h.interact(payload, ann, h.channel)
            await refused(table, res, "<@999999999999999999> is not playing")
            assert await stored(table) == before
            # a channel option Discord's library cannot turn into a channel (a stale id, no
            # resolved data): the library's own TransformerError, answered as bad input
            host = h.user("hal", permissions=discord.Permissions(manage_guild=True))
            payload = h.slash_payload(host, "rr daily settings", channel=h.channel,
                                      options={"channel": h.channel})
            del payload["data"]["resolved"]
            payload["data"]["options"][0]["options"][0]["options"][0]["value"] = "99999999999"
            res = await h.interact(payload, host, h.channel,
                                   expect_error=app_commands.TransformerError)
            await refused(table, res, "could not read the option", "99999999999")
    asyncio.run(scenario())


def test_a_refusal_prints_a_player_name_as_literal_text(tmp_path):
    """A refusal that names a player (too early to remove them) shows
    their display name as typed: markdown and mentions defused, as everywhere else."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            bob.global_name = bob.nick = "**Bob**<@&1234567890123456789>`"
            table = Table(h)
            await table.open(ann, [bob], players=2)
            before = await stored(table)
            res = await table.slash(ann, "rr remove", player=bob)
            await refused(table, res, "can be removed after 2 timeouts",
                          "\\*\\*Bob\\*\\*<\u200b@")
            assert "**Bob**" not in res.text
            assert await stored(table) == before
    asyncio.run(scenario())


def test_a_wrong_kind_of_answer_names_the_command_to_use(tmp_path):
    """R4.4: during placement `/rr done` is no answer; the refusal names `/rr place`, the
    command a Discord player types (it said "use place"). Nothing changes."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            table, ann, bob = await two_player_table(h)
            before = await stored(table)
            row, g = await table.game()
            who = table.user(row, g.waiting_for()[0])
            res = await table.slash(who, "rr done")
            await refused(table, res, "use `/rr place`")
            assert await stored(table) == before
    asyncio.run(scenario())


def test_an_action_that_does_nothing_names_the_command_that_ends_actions(tmp_path):
    """R8: a unit action must move or use a skill; `/rr act unit:` alone is refused with
    the way out a Discord player has (`/rr done`, `/rr 完了` in a Japanese client), not the
    console's word 'done'. Nothing changes."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            ann, ken = h.user("ann"), h.user("ken", locale="ja")
            table = Table(h)
            await table.open(ann, [ken], players=2)
            rng = random.Random(3)
            told = {}
            for _ in range(200):
                row, g = await table.game()
                acting = [s for s in g.waiting_for() if g.decision(s)["kind"] == "actions"
                          and await table.choices(table.user(row, s), "rr act", "unit")]
                for seat in acting:
                    user = table.user(row, seat)
                    unit = (await table.choices(user, "rr act", "unit"))[0]
                    before = await stored(table)
                    res = await table.slash(user, "rr act", unit=unit)
                    await refused(table, res)
                    told[user.name] = res.text
                    assert await stored(table) == before
                if len(told) == 2:
                    break
                await table.step(rng)
            assert "`/rr done`" in told["ann"] and "'done'" not in told["ann"], told
            assert "`/rr 完了`" in told["ken"] and "done" not in told["ken"], told
    asyncio.run(scenario())


def test_a_player_who_is_not_the_host_can_resign_by_leaving(tmp_path):
    """The Discord new-player audit: a player who was not the host had no way out of a game
    begun ("The game has already started."). `/rr lobby leave` in a game now resigns them
    (eliminated as in R9.3) once confirmed; the others play on; it is told to everyone."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            ann, bob, cat = h.user("ann"), h.user("bob"), h.user("cat")
            table = Table(h)
            await table.open(ann, [bob, cat], players=3)
            before = await stored(table)
            res = await h.slash(bob, "rr lobby leave")
            assert res.ephemeral and "resigning" in res.text and "Nothing changed yet" in res.text
            assert await stored(table) == before
            res = await h.slash(bob, "rr lobby leave", confirm=True)
            assert res.ephemeral and res.text.startswith("✅"), res.text
            assert "you have resigned and are out of this game (R9.3)" in res.text, res.text
            row, g = await table.game()
            bob_seat = row.seat_of(bob.id)
            assert g.player(bob_seat)["eliminated"] and not g.over
            assert any("Bob has left the game" in m.text
                       for m in h.messages() if not m.ephemeral)
            res = await h.slash(bob, "rr lobby leave", confirm=True)  # once is enough
            await refused(table, res, "not playing")
            res = await h.slash(bob, "rr lobby leave")  # nor asked to confirm it again
            await refused(table, res, "not playing")
            assert "resigning" not in res.text, res.text
            for confirm in (False, True):  # a spectator: not playing, not "already started"
                res = await h.slash(h.user("dan"), "rr lobby leave", confirm=confirm)
                assert res.ephemeral and "Bob" not in res.text
                assert "not playing in this game" in res.text, res.text
                assert "already started" not in res.text
    asyncio.run(scenario())


def test_a_command_in_the_wrong_channel_says_where_the_game_is(tmp_path):
    """The Discord new-player audit: `/rr status` or `/rr done` in #random while the game
    runs in #general said only "There is no game here. Start one with /rr new" — inviting
    a second game. It now also says where the player's game is (and to nobody else)."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            table, ann, bob = await two_player_table(h)
            other = h.text_channel("random")
            for command in ("rr status", "rr done"):
                res = await h.slash(ann, command, channel=other)
                assert "There is no game here" in res.text
                assert f"Your game is in <#{table.channel.id}>" in res.text, res.text
            res = await h.slash(h.user("cat"), "rr status", channel=other)
            assert "Your game is in" not in res.text
            ja = await h.slash(h.user("ken", locale="ja"), "rr status", channel=other)
            assert "あなたのゲームは" not in ja.text
            # once the game is gone, nothing points at it (the verification audit)
            await h.slash(ann, "rr abandon", confirm=True)
            res = await h.slash(ann, "rr status", channel=other)
            assert "There is no game here" in res.text and "Your game is in" not in res.text
    asyncio.run(scenario())


def test_the_last_person_resigning_against_ai_players_ends_the_game(tmp_path):
    """The verification audit: the last person resigning left two AI seats to play the
    whole game out in the channel at once (some seventy posts in half a second). With no
    person left the game ends there, abandoned, and the channel is told."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4),
                           settle_timeout=30) as h:
            ann = h.user("ann")
            res = await h.slash(ann, "rr new", players=3, bots=2)
            assert res.ephemeral, res.text
            await h.slash(ann, "rr start")
            await h.settle()
            before = len([m for m in h.messages() if not m.ephemeral])
            res = await h.slash(ann, "rr lobby leave", confirm=True)
            await h.settle()
            assert res.text.startswith("✅"), res.text
            assert "the others play on" not in res.text  # nobody plays on: it was abandoned
            row = await h.bot.store.latest_game(h.channel.id)
            assert row is not None and row.status == "abandoned"
            posts = [m.text for m in h.messages() if not m.ephemeral][before:]
            assert any("Ann has left the game" in p for p in posts)
            assert any("abandoned by Ann" in p for p in posts) and len(posts) < 10, posts
    asyncio.run(scenario())


def test_a_refusal_quotes_what_was_typed_as_literal_text(tmp_path):
    """What a player typed, quoted back in a refusal ("'…' is not a square", "There is no
    '…'"), is shown as typed, in both languages: a typed `<@1>` was rendered as a mention
    pill and `**x**` as bold, where every other echo (a date, a rules topic) is literal
    (the Discord-limits audit)."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            ann, ken = h.user("ann"), h.user("ken", locale="ja")
            table = Table(h)
            await table.open(ann, [ken], players=2)
            before = await stored(table)
            cases = [("rr place", {"card": "thief", "square": "<@1>**x**"}),
                     ("rr act", {"unit": "_x_<#2>"}),
                     ("rr place", {"card": "**dragon**", "square": "1A"}),
                     ("rr ready", {"units": "||1A||"})]
            for user in (ann, ken):
                for command, options in cases:
                    res = await table.slash(user, command, **options)
                    await refused(table, res, "⛔")
                    for raw in ("<@1>", "<#2>", "**", "_X_", "||"):
                        assert raw not in res.text, (command, options, res.text)
            assert await stored(table) == before
    asyncio.run(scenario())
