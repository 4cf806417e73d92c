"""The daily challenge with the app installed by the user only (issue 10: "usable outside
servers too"): interactions carry `authorizing_integration_owners` = the user alone and
`context` BOT_DM (1), PRIVATE_CHANNEL (2) or GUILD (0) of a server the bot is not in. A
whole game is played by interactions only, in the DM with the bot and from a server; the
bot never tries to post where it cannot (the harness answers 403 Missing Access there)."""

from __future__ import annotations

import asyncio
import datetime as dt
import random

from bot_driver import Clock, Table, make_bot
from harness import Harness

from service.daily_slots import slot

NOON = dt.datetime(2026, 11, 23, 12, tzinfo=dt.UTC).timestamp()


def user_installed(h: Harness) -> None:
    """From now on the app is installed by its users only, not in the harness guild."""
    h.server.user_install_only = True


async def played_to_the_end(h: Harness, user, table: Table) -> None:
    row = await h.bot.store.open_game(slot(user.id, True))
    assert row is not None, "the ranked attempt exists"
    table.game_id = row.id
    await table.play(random.Random(user.id % 97))
    _, g = await table.game()
    assert g.over
    dm = h.dm_channel(user)
    result = [m.text for m in h.messages(dm) if "```" in m.text]
    assert result and "Rook & Raiders #23" in result[-1], result
    att = await h.bot.daily.store.attempt(user.id, "2026-11-23", True)
    assert att is not None and att.status == "finished" and att.score is not None


def test_a_whole_daily_game_in_the_dm_with_a_user_installed_app(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NOON))) as h:
            user_installed(h)
            ann = h.user("ann")
            dm = h.dm_channel(ann)
            res = await h.slash(ann, "rr daily play", channel=dm)
            payload = res.payload
            assert payload["context"] == 1
            assert payload["authorizing_integration_owners"] == {"1": str(ann.id)}
            assert res.ephemeral and "Daily challenge #23" in res.text, res.text
            assert "in your DMs" not in res.text  # it is played right here
            assert any(m.files for m in h.messages(dm)), "the table is posted in the DM"
            await played_to_the_end(h, ann, Table(h, dm))
            again = await h.slash(ann, "rr daily play", channel=dm)
            assert "played today's ranked challenge already" in again.text
    asyncio.run(scenario())


def test_a_whole_daily_game_from_a_server_the_bot_is_not_in(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NOON))) as h:
            user_installed(h)
            bob = h.user("bob")
            res = await h.slash(bob, "rr daily play")
            assert res.payload["context"] == 0 and "guild_id" in res.payload
            assert res.payload["authorizing_integration_owners"] == {"1": str(bob.id)}
            assert res.ephemeral and "Daily challenge #23" in res.text, res.text
            assert "DMs" in res.text  # told where the game is
            assert not [m for m in h.messages(h.channel) if not m.ephemeral]
            assert any(m.files for m in h.messages(h.dm_channel(bob)))
            # the play commands typed in the server act on bob's daily game; the buttons
            # are clicked in the DM
            await played_to_the_end(h, bob, Table(h, h.channel))
            assert not [m for m in h.messages(h.channel) if not m.ephemeral], \
                "nothing posted in a server the bot is not in"
            board = await h.slash(bob, "rr daily leaderboard")
            assert "🥇 Bob" in board.text and "<@" not in board.text, board.text
    asyncio.run(scenario())


def test_daily_from_a_private_channel_goes_to_the_bots_dm(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NOON))) as h:
            user_installed(h)
            cy, dee = h.user("cy", locale="ja"), h.user("dee")
            between = h.private_channel(cy, dee)
            res = await h.slash(cy, "rr daily play", channel=between)
            assert res.payload["context"] == 2
            assert res.ephemeral and "デイリーチャレンジ #23" in res.text, res.text
            assert not h.messages(between) or all(m.ephemeral for m in h.messages(between))
            row = await h.bot.store.open_game(slot(cy.id, True))
            assert row is not None
            assert row.settings["daily"]["post_channel"] == h.dm_channel(cy).id
            assert any(m.files for m in h.messages(h.dm_channel(cy)))
            status = await h.slash(cy, "rr status", channel=between)
            assert status.ephemeral and "ラウンド" in status.text, status.text
            # dee cannot reach cy's game from their shared DM
            other = await h.slash(dee, "rr done", channel=between)
            assert other.ephemeral and "/rr daily play" in other.text, other.text
    asyncio.run(scenario())


def test_every_command_can_be_installed_by_a_user_and_used_in_dms(tmp_path):
    """Issue 10 (usable outside servers): each top-level command names both installs and
    every context. /rr-recap did not — its decorators sat on a plain Cog's class, which
    passes nothing on — so a user-installed app had no recap for a daily game, whose recap
    is asked for in the DMs."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(NOON))) as h:
            names = set()
            for command in h.bot.tree.get_commands():
                names.add(command.name)
                installs, contexts = command.allowed_installs, command.allowed_contexts
                assert installs is not None and installs.user and installs.guild, command.name
                assert contexts is not None and contexts.dm_channel \
                    and contexts.private_channel and contexts.guild, command.name
            assert {"rr", "rr-recap", "rr-learn", "rr-stats"} <= names, names
    asyncio.run(scenario())
