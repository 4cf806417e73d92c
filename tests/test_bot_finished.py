"""A finished game stays viewable in its channel — board, status with the result, log —
until a new lobby is opened there; playing in it is refused with how it ended, in the
reader's language, and nothing changes. It is still there after a restart."""

from __future__ import annotations

import asyncio
import random

from bot_driver import Clock, Table, damage_a_move, finished_solo, make_bot
from harness import Harness


def public(h):
    return [m for m in h.messages() if not m.ephemeral and m.dm_user_id is None]


async def finished_two_player_game(h: Harness) -> tuple[Table, list]:
    ann, bob = h.user("ann"), h.user("bob")
    table = Table(h)
    await table.open(ann, [bob], players=2)
    await table.play(random.Random(5))
    row, g = await table.game()
    assert g.over and row.status == "over"
    return table, [ann, bob]


def result_words(row, g) -> str:
    """How the result reads in English, e.g. 'Ann won — …' or 'the monsters won — …'."""
    res = g.state["result"]
    who = ", ".join(row.seats[s]["name"] for s in res["winners"])
    if not who:
        return f"the monsters won — {res['reason']}"
    return (f"a draw between {who}" if res["draw"] else f"{who} won") + f" — {res['reason']}"


def test_finished_game_is_viewable_and_refuses_play(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=11)) as h:
            table, (ann, bob) = await finished_two_player_game(h)
            row, g = await table.game()
            result = result_words(row, g)
            stranger, yui = h.user("stranger"), h.user("yui", locale="ja")
            posts = len(public(h))

            # looking: board (own and someone else's, spectators too), status, log
            board = await h.slash(ann, "rr board")
            assert board.ephemeral and board.files[0].filename == "board-1.png", board.text
            assert board.files[0].data.startswith(b"\x89PNG") and "**Ann**" in board.text
            other = await h.slash(stranger, "rr board", player=bob)
            assert other.ephemeral and other.files and "**Bob**" in other.text
            status = await h.slash(stranger, "rr status")
            assert status.ephemeral and f"Round {g.state['round']}" in status.text
            assert "· Game over" in status.text and f"The game is over: {result}." in status.text
            assert "Waiting" not in status.text
            log = await h.slash(bob, "rr log")
            assert log.ephemeral and "Game over" in log.text, log.text
            ja = await h.slash(yui, "rr status")
            assert "ゲームは終了しました" in ja.text and "ゲーム終了" in ja.text

            # playing: every play command says the game is over, with the result
            for user, command, options in (
                    (ann, "rr done", {}), (bob, "rr pick", {"card": "advance"}),
                    (ann, "rr undo", {}), (bob, "rr act", {"unit": "2B"}),
                    (ann, "rr remove", {"player": bob}), (stranger, "rr done", {}),
                    # leaving: nothing to leave, and it says why (not "no game here")
                    (bob, "rr lobby leave", {"confirm": True}), (bob, "rr lobby leave", {})):
                res = await table.slash(user, command, **options)
                assert res.ephemeral and f"The game is over: {result}." in res.text, \
                    (command, res.text)
                assert "/rr new" in res.text
            res = await table.slash(yui, "rr done")
            assert "ゲームは終了しました" in res.text and "`/rr 新規`" in res.text
            # a button of the finished game answers the same way
            old = [(m, c.custom_id) for m in h.messages() for c in m.buttons
                   if c.custom_id and c.custom_id.startswith(f"rr:pick:{row.id}:")]
            assert old, "the game posted no pick buttons"
            msg, cid = old[-1]
            seat = int(cid.split(":")[3])
            res = await h.click(table.user(row, seat), cid, message=msg)
            assert res.ephemeral and f"The game is over: {result}." in res.text, res.text
            # nothing was stored or posted by any of that
            after, g2 = await table.game()
            assert (after.version, after.state) == (row.version, row.state)
            assert len(public(h)) == posts

            # a new lobby ends the old game's viewing; an abandoned lobby does not bring it back
            res = await h.slash(bob, "rr new", players=2)
            assert res.ephemeral and "Players (1/2): Bob" in res.text
            for command in ("rr board", "rr status", "rr log"):
                res = await h.slash(ann, command)
                assert "no game in progress" in res.text and "lobby is still open" in res.text
            res = await h.click(table.user(row, seat), cid, message=msg)
            assert "no longer running" in res.text
            assert "abandoned" in (await h.slash(bob, "rr abandon")).text
            for command in ("rr board", "rr status", "rr log", "rr done"):
                res = await h.slash(ann, command)
                assert "There is no game here. Start one with `/rr new`." in res.text, (command, res.text)
    asyncio.run(scenario())


def test_finished_game_is_still_viewable_after_a_restart(tmp_path):
    clock = Clock()
    kept: dict = {}

    async def first_life():
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=3)) as h:
            ann = h.user("ann")
            _table, row, g = await finished_solo(h, ann)
            kept.update(server=h.server, result=result_words(row, g), round=g.state["round"],
                        status=(await h.slash(ann, "rr status")).text)

    async def second_life():
        async with Harness(lambda: make_bot(tmp_path / "g.db", clock, seed=9),
                           server=kept["server"]) as h:
            ann = h.user("ann")
            status = await h.slash(ann, "rr status")
            assert status.text == kept["status"]
            assert f"The game is over: {kept['result']}." in status.text
            board = await h.slash(ann, "rr board")
            assert board.files and "**Ann**" in board.text
            res = await h.slash(ann, "rr pick", card="advance")
            assert f"The game is over: {kept['result']}." in res.text

    asyncio.run(first_life())
    asyncio.run(second_life())


def test_the_log_of_a_game_whose_record_was_damaged_since_it_was_verified(tmp_path):
    """The fault-injection audit: a finished game's log damaged while the bot held the
    game verified in memory (as /rr-recap's test damages it) was told by `/rr log` from
    the stored rows, and the player read the engine's refusal of the damaged row instead
    of the game's last events, at every ask until a restart. The events are now told from
    the log as verified, as the recap draws it (a restart reports the damage)."""
    db = tmp_path / "g.db"

    async def scenario():
        async with Harness(lambda: make_bot(db, Clock(), seed=3)) as h:
            ann = h.user("ann")
            _table, row, _g = await finished_solo(h, ann)
            before = await h.slash(ann, "rr log")
            damage_a_move(db, row.id)
            res = await h.slash(ann, "rr log")
            assert res.text == before.text, res.text
    asyncio.run(scenario())


def test_game_over_post_places_every_seat_of_a_four_person_game(tmp_path):
    """R9.3, R14.4: the game-over post of a 3–4 person game places every seat — the winner,
    those knocked out in the same step sharing a place, and a seat that resigned said as
    resigned. Before, it named only the winner ("Dan won — last player standing") while the
    rating lines under it moved Ann, Bob and Cat by places it never stated (history alone
    showed Ann (2), Bob (2), Cat (4))."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3)) as h:
            users = [h.user(name) for name in ("ann", "bob", "cat", "dan")]
            table = Table(h)
            await table.open(users[0], users[1:], players=4)
            rng = random.Random(3)
            for k in range(900):
                if k == 40:  # Cat resigns midway
                    res = await table.slash(users[2], "rr lobby leave", confirm=True)
                    assert "resigned" in res.text, res.text
                if await table.step(rng) is None:
                    break
            row, g = await table.game()
            res = g.state["result"]
            assert res["winners"] == [3] and res["code"] == "end.last_standing", res
            over = next(m for m in public(h) if "Game over" in m.text)
            assert ("🏅 Places: 1. Dan · 2. Ann (eliminated) · 2. Bob (eliminated) · "
                    "4. Cat (resigned)" in over.text), over.text
            # the same order the ratings moved by, and history keeps
            history = await h.slash(users[0], "rr-stats history")
            assert "Ann (2), Bob (2), Cat (4), Dan (1)" in history.text, history.text

    asyncio.run(scenario())


def test_game_over_post_places_in_japanese_and_not_for_two(tmp_path):
    """The places line is in the game's language (Japanese: 位, 脱落, 降参 in full-width
    parentheses); a two-person game's post has none (its winner line says it all). Before,
    neither post placed anyone."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3)) as h:
            h.server.guild_locale = "ja"  # a Japanese server: its posts are in Japanese
            yui = h.user("yui", locale="ja")
            others = [h.user(name) for name in ("ken", "aki")]
            table = Table(h)
            await table.open(yui, others, players=3)
            await table.play(random.Random(3))
            row, g = await table.game()
            over = next(m for m in public(h) if "ゲーム終了" in m.text)
            assert "🏅 順位: " in over.text and "（1位）" in over.text, over.text
            assert "位、脱落）" in over.text, over.text
        async with Harness(lambda: make_bot(tmp_path / "g2.db", Clock(), seed=11)) as h:
            await finished_two_player_game(h)
            over = next(m for m in public(h) if "Game over" in m.text)
            assert "Places" not in over.text, over.text

    asyncio.run(scenario())
