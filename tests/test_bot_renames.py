"""A player who changes their server nickname mid-game is named by it from their next move
on — in the channel's posts, the status, the board image and its description — without
the bot asking Discord for anyone's name (the name comes with the interaction Discord
sends for the move). Before, every name was the one given at join for the whole game.

The game's record is untouched: its setup and log keep the names it was dealt with and it
replays to its state (R15); the new name is a hosting fact beside it (`meta["names"]`).
The names' safety rules hold for a new name as for a joined one: a name that reads like
another seat's is numbered ("ann (2)"), bidi overrides are left out and markdown and
mentions are printed as literal text (cogs/mentions.py `safe`). A finished game keeps the
last name it knew: its recap and history name people as they were in that game."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from bot_driver import Clock, Table, make_bot
from harness import Harness

from engine import Game
from service.seats import current_name, rename
from store import GameRow

BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


async def until_moved(table: Table, seat: int, rng: random.Random) -> int:
    """Steps until `seat` has made a move; the number of the channel's messages before
    that move (bounded: a seat is asked within a few dozen answers)."""
    for _ in range(80):
        before = len(table.h.messages(table.channel))
        step = await table.step(rng)
        assert step is not None, "the game ended first"
        if step.seat == seat:
            return before
    raise AssertionError(f"seat {seat} was not asked in 80 answers")


async def ann_and_bob(h: Harness) -> tuple[Table, Any, Any, int]:
    """A game of Ann and Bob with a 12-hour time limit, and Bob's seat."""
    ann, bob = h.user("ann"), h.user("bob")
    table = Table(h)
    row = await table.open(ann, [bob], players=2, hours=12)
    seat = row.seat_of(bob.id)
    assert seat is not None
    return table, ann, bob, seat


def test_a_new_nickname_names_the_player_from_their_next_move_on(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            table, ann, bob, seat = await ann_and_bob(h)
            joined_as = bob.display_name  # "Bob"
            bob.nick = "Robert"  # changed in the server's settings: no event, no post
            before = await until_moved(table, seat, random.Random(2))
            posts = "\n".join(m.text for m in h.messages(table.channel)[before:])
            assert "Robert" in posts and joined_as not in posts, posts
            status = await table.slash(ann, "rr status")
            board = await table.slash(ann, "rr board", player=bob)
            assert joined_as not in status.text, status.text
            alt = board.message.files[0].description or ""
            assert alt.startswith("Robert's board"), alt
            row, g = await table.game()  # the record: dealt with "Bob", replaying as stored
            assert g.state["players"][seat]["name"] == joined_as
            assert Game.replay(row.setup, await table.bot.store.log(row.id)).to_json() == \
                row.state
            await table.play(random.Random(3))  # to the end, the recap and the history
            row, g = await table.game()
            assert g.over
            over = await table.slash(ann, "rr status")
            assert "Robert" in over.text and joined_as not in over.text, over.text
            recap = await h.slash(ann, "rr-recap", game=row.id)
            assert recap.files, recap.text  # drawn from the stored game, names and all
            history = await h.slash(ann, "rr-stats history")
            opened = await h.click(ann, history.message.buttons[0].custom_id,
                                   message=history.message)
            # the history names him as the game last knew him (his name then, at its end)
            assert "Robert" in opened.text and joined_as not in opened.text, opened.text
    asyncio.run(scenario())


def test_a_new_nickname_keeps_the_naming_safety_rules(tmp_path):
    """Bob renames himself to what Ann is called, with a right-to-left override and
    markdown: he is "ANN (2)" (the seat number, as a join would number him), the override
    is left out, and the stars are printed, not bold."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            table, ann, bob, seat = await ann_and_bob(h)
            bob.nick = "ANN\u202e"
            before = await until_moved(table, seat, random.Random(2))
            posts = [m.text for m in h.messages(table.channel)[before:]]
            named = [p for p in posts if f"ANN ({seat + 1})" in p]
            assert named and not [p for p in posts if set(p) & BIDI], posts
            bob.nick = "**B**"
            before = await until_moved(table, seat, random.Random(5))
            posts = "\n".join(m.text for m in h.messages(table.channel)[before:])
            assert "\\*\\*B\\*\\*" in posts, posts
    asyncio.run(scenario())


def row_of(seats: list[dict], meta: dict | None = None, status: str = "active") -> GameRow:
    return GameRow(1, 1, 1, status, 1, seats, {}, None, None, 0, meta or {})  # type: ignore[arg-type]


def apply(row: GameRow, change) -> GameRow:
    if change is not None:
        change(row.meta)
    return row


def test_a_rename_is_numbered_as_a_join_and_kept_only_while_the_game_runs():
    """Seat 3 joined as "ann (3)" (Ann had the name) and a seat before it left the lobby:
    acting as "ann" again changes nothing (it is still told apart, by the number it was
    given); a name nobody else reads is taken as it is; an AI seat and an ended game are
    never renamed (an ended game's names are its record of that time)."""
    seats = [{"user": 1, "name": "Ann"}, {"user": 2, "name": "ann (3)"},
             {"user": -1, "name": "Bot 1 (greedy)", "ai": "greedy"}]
    row = row_of(seats)
    assert rename(row, 1, "ann") is None
    row = apply(row, rename(row, 1, "Robin"))
    assert current_name(row, 1) == "Robin" and row.seats[1]["name"] == "ann (3)"
    assert rename(row, 1, "Robin") is None  # already so: nothing to write
    row = apply(row, rename(row, 0, "robin"))  # Ann takes Robin's name: numbered
    assert current_name(row, 0) == "robin (1)"
    assert rename(row, 2, "Someone") is None
    assert rename(row_of(seats, status="over"), 1, "Robin") is None
