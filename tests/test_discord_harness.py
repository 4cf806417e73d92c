"""Proves tests/harness/ drives discord.py faithfully, using a throwaway cog.

The cog below is deliberately *not* the product's: it exercises each discord.py path
the product will rely on (option transformers, autocomplete, files, defer+followup,
persistent views and DynamicItems, DMs, error handlers) so the harness is known-good
before product cogs exist. pytest-asyncio is not installed; each test runs its
scenario with ``asyncio.run`` through :func:`run`.
"""

from __future__ import annotations

import asyncio
import io
import re
import socket
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any
from unittest import mock

import aiosqlite
import discord
import pytest
from discord import app_commands
from discord.ext import commands
from discord.http import HTTPClient
from discord.ui.view import BaseView
from discord.webhook.async_ import AsyncWebhookAdapter
from harness import Harness, HarnessError, SchemaViolation, SettleTimeout

BOARD_PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))


# --------------------------------------------------------------------------- dummy cog


class JoinButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"rr:join:(?P<game>[0-9]+)"
):
    """Persistent button whose custom_id carries the game id (survives restarts)."""

    def __init__(self, game: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Join", style=discord.ButtonStyle.primary, custom_id=f"rr:join:{game}"
            )
        )
        self.game = game

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button[Any], match: re.Match[str]
    ) -> JoinButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        if self.game == 0:
            raise ValueError("game 0 does not exist")
        await interaction.response.send_message(
            f"{interaction.user.display_name} joined game {self.game}", ephemeral=True
        )


class LobbyView(discord.ui.View):
    """Classic persistent view (fixed custom_ids, registered with bot.add_view)."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Start", custom_id="rr:lobby:start", style=discord.ButtonStyle.success)
    async def start(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        button.disabled = True
        await interaction.response.edit_message(content="Game started", view=self)

    @discord.ui.button(
        label="Explode", custom_id="rr:lobby:explode", style=discord.ButtonStyle.danger
    )
    async def explode(
        self, interaction: discord.Interaction, button: discord.ui.Button[Any]
    ) -> None:
        raise RuntimeError("view callback blew up")

    @discord.ui.select(
        custom_id="rr:lobby:colour",
        options=[
            discord.SelectOption(label="Red", value="red"),
            discord.SelectOption(label="Blue", value="blue"),
        ],
    )
    async def colour(
        self, interaction: discord.Interaction, select: discord.ui.Select[Any]
    ) -> None:
        await interaction.response.send_message(f"colour={select.values[0]}", ephemeral=True)


class ConfirmView(discord.ui.View):
    """Non-persistent view a command awaits with ``view.wait()``."""

    def __init__(self) -> None:
        super().__init__(timeout=60)
        self.confirmed = False

    @discord.ui.button(label="Yes", custom_id="rr:confirm:yes")
    async def yes(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        self.confirmed = True
        await interaction.response.defer()
        self.stop()


class NameModal(discord.ui.Modal, title="Name your army"):
    army: discord.ui.TextInput[Any] = discord.ui.TextInput(
        label="Army", custom_id="rr:army", max_length=20
    )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"Army {self.army.value} is ready")


class RRCog(commands.Cog):
    """A miniature Rook & Raiders cog covering each interaction shape."""

    rr = app_commands.Group(name="rr", description="Rook & Raiders")
    admin = app_commands.Group(name="admin", description="Admin tools", parent=rr)

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        self.confirmations: list[bool] = []

    @rr.command(name="new", description="Start a game")
    @app_commands.describe(players="How many players", mode="Rules variant", name="Game name")
    @app_commands.choices(
        mode=[
            app_commands.Choice(name="Classic", value="classic"),
            app_commands.Choice(name="Blitz", value="blitz"),
        ]
    )
    async def new(
        self,
        interaction: discord.Interaction,
        players: app_commands.Range[int, 2, 4],
        mode: str = "classic",
        name: app_commands.Range[str, 1, 20] | None = None,
    ) -> None:
        await interaction.response.send_message(
            f"New {mode} game {name or 'untitled'} for {players} players"
        )

    @rr.command(name="act", description="Move a unit")
    async def act(self, interaction: discord.Interaction, unit: str, to: str) -> None:
        await interaction.response.send_message(f"{unit} -> {to}")

    @act.autocomplete("to")
    async def act_to(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        unit = interaction.namespace.unit
        squares = [f"{col}{row}" for col in "abc" for row in "123"]
        return [
            app_commands.Choice(name=f"{unit} to {sq}", value=sq)
            for sq in squares
            if sq.startswith(current)
        ]

    @rr.command(name="invite", description="Invite a player")
    async def invite(
        self,
        interaction: discord.Interaction,
        who: discord.Member,
        where: discord.TextChannel,
        loud: bool = False,
    ) -> None:
        text = f"{who.mention} invited to {where.name} (loud={loud}, manage={who.guild_permissions.manage_channels})"
        await interaction.response.send_message(text)

    @rr.command(name="board", description="Show the board")
    async def board(self, interaction: discord.Interaction) -> None:
        embed = discord.Embed(title="Board").set_image(url="attachment://board.png")
        await interaction.response.send_message(
            embed=embed, file=discord.File(io.BytesIO(BOARD_PNG), "board.png")
        )

    @rr.command(name="slow", description="Think, then answer privately")
    async def slow(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await asyncio.sleep(0.01)
        await interaction.followup.send("Your secret objective: hold c3", ephemeral=True)

    @rr.command(name="lobby", description="Open a lobby")
    async def lobby(self, interaction: discord.Interaction, game: int) -> None:
        view = LobbyView()
        view.add_item(JoinButton(game))
        await interaction.response.send_message(f"Lobby for game {game}", view=view)

    @rr.command(name="remind", description="DM yourself a reminder")
    async def remind(self, interaction: discord.Interaction) -> None:
        try:
            await interaction.user.send("Your turn in game 42")
        except discord.Forbidden:
            await interaction.response.send_message(
                "I couldn't DM you; open your DMs", ephemeral=True
            )
        else:
            await interaction.response.send_message("Sent you a DM", ephemeral=True)

    @rr.command(name="announce", description="Post to the channel")
    async def announce(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True)
        assert isinstance(interaction.channel, discord.TextChannel)
        try:
            await interaction.channel.send("Game 42 starts now")
        except discord.HTTPException as exc:
            await interaction.followup.send(
                f"Discord hiccup ({exc.status}), try again", ephemeral=True
            )
        else:
            await interaction.followup.send("Announced", ephemeral=True)

    @rr.command(name="confirm", description="Ask before doing something")
    async def confirm(self, interaction: discord.Interaction) -> None:
        view = ConfirmView()
        await interaction.response.send_message("Really?", view=view, ephemeral=True)
        await view.wait()
        self.confirmations.append(view.confirmed)
        await interaction.followup.send(
            "Confirmed" if view.confirmed else "Timed out", ephemeral=True
        )

    @rr.command(name="name", description="Name your army")
    async def name_army(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(NameModal())

    @rr.command(name="boom", description="Always fails")
    async def boom(self, interaction: discord.Interaction) -> None:
        raise RuntimeError("command callback blew up")

    @rr.command(name="stats", description="Slow work on other threads")
    async def stats(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        # Like rendering with Pillow off the loop: the thread sleeps, so only the
        # harness's executor tracking (not thread inspection) can see it is busy.
        await asyncio.to_thread(time.sleep, 0.05)
        # Like the store: aiosqlite runs queries on its own thread, outside any executor.
        async with aiosqlite.connect(":memory:") as db:
            sql = "with recursive c(x) as (select 1 union all select x + 1 from c where x < 300000) select count(*) from c"
            async with db.execute(sql) as cursor:
                row = await cursor.fetchone()
        await interaction.followup.send(f"rows={row[0] if row else None}")

    @rr.command(name="grind", description="Work on a thread of its own, outside executors")
    async def grind(self, interaction: discord.Interaction) -> None:
        # Like the store's group commit (handed to its writer with `submit`, not
        # `run_in_executor`): only the thread's frame says that work is under way.
        await interaction.response.defer()
        loop = asyncio.get_running_loop()
        done = loop.create_future()

        def work() -> None:
            _work_on_a_line_that_reads_like_a_wait()
            loop.call_soon_threadsafe(done.set_result, None)

        threading.Thread(target=work, name="grinder", daemon=True).start()
        await done
        await interaction.followup.send("ground")

    @rr.command(name="leak", description="Fire-and-forget task that fails")
    async def leak(self, interaction: discord.Interaction) -> None:
        async def background() -> None:
            raise LookupError("background task failed")

        asyncio.get_running_loop().create_task(background())
        await interaction.response.send_message("started")

    @rr.command(name="spin", description="Never settles")
    async def spin(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("spinning")
        while True:
            await asyncio.sleep(0.01)

    @admin.command(name="reset", description="Reset the lobby")
    @app_commands.checks.has_permissions(manage_channels=True)
    async def reset(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("Lobby reset")

    async def cog_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        if isinstance(error, app_commands.MissingPermissions):
            await interaction.response.send_message("You need Manage Channels", ephemeral=True)

    @app_commands.command(name="rrsetup", description="Create the game channel")
    @app_commands.default_permissions(manage_channels=True)
    @app_commands.guild_only()
    async def rrsetup(self, interaction: discord.Interaction) -> None:
        assert interaction.guild is not None
        channel = await interaction.guild.create_text_channel("rr-game")
        await channel.send("Welcome to the game channel")
        await interaction.response.send_message(f"Created {channel.mention}", ephemeral=True)


class RRBot(commands.Bot):
    """The bot as production would build it: cog + persistent items in setup_hook."""

    def __init__(self) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default())
        self.ready_seen = False

    async def setup_hook(self) -> None:
        await self.add_cog(RRCog(self))
        self.add_view(LobbyView())
        self.add_dynamic_items(JoinButton)

    async def on_ready(self) -> None:
        self.ready_seen = True


def _work_on_a_line_that_reads_like_a_wait() -> None:
    time.sleep(0.1)  # project code (a SQLite statement, a retry's pause): busy, not parked


def run(scenario: Callable[[Harness], Awaitable[None]], **options: Any) -> None:
    """Run one scenario inside a fresh bot + harness on a fresh event loop."""

    async def main() -> None:
        async with Harness(RRBot, **options) as h:
            await scenario(h)

    asyncio.run(main())


def cog(h: Harness) -> RRCog:
    found = h.bot.get_cog("RRCog")
    assert isinstance(found, RRCog)
    return found


# --------------------------------------------------------------------------- startup


def test_startup_goes_through_login_setup_hook_and_ready() -> None:
    async def scenario(h: Harness) -> None:
        bot = h.bot
        assert isinstance(bot, RRBot) and bot.ready_seen and bot.is_ready()
        assert bot.user is not None and bot.user.id == h.server.bot_user.id
        assert bot.application_id == h.server.application_id
        assert [(r.method, r.route) for r in h.requests] == [
            ("GET", "/users/@me"),
            ("GET", "/oauth2/applications/@me"),
        ]
        assert h.guild.get_channel(h.channel.id) is not None
        assert h.guild.me.guild_permissions.manage_channels
        assert {c["name"] for c in h.command_schema()} == {"rr", "rrsetup"}

    run(scenario)


# --------------------------------------------------------------------------- slash commands


def test_slash_round_trip_is_recorded() -> None:
    async def scenario(h: Harness) -> None:
        alice, bob = h.user("alice"), h.user("bob")
        res = await h.slash(alice, "rr new", players=3, mode="blitz", name="Dawn")
        assert res.kind == "message" and not res.ephemeral and not res.deferred
        assert res.content == "New blitz game Dawn for 3 players"
        assert res.callback is not None and res.callback.via == "webhook"
        assert res.callback.route == "/interactions/{webhook_id}/{webhook_token}/callback"
        assert (
            res.callback.json["type"] == 4 and res.callback.json["data"]["content"] == res.content
        )
        assert h.last_message(h.channel) is res.message
        assert res.message in h.visible_to(bob)
        sent = res.payload["data"]["options"][0]
        assert sent["name"] == "new" and sent["type"] == 1
        assert {o["name"]: o["value"] for o in sent["options"]} == {
            "players": 3,
            "mode": "blitz",
            "name": "Dawn",
        }

    run(scenario)


def test_an_unrendered_catalogue_mark_fails_the_test() -> None:
    """A `<cmd>…</cmd>` mark (i18n/README.md) is the interface's to render: one that reaches
    a message would be shown to players as it is."""
    async def scenario(h: Harness) -> None:
        alice = h.user("alice")
        await h.slash(alice, "rr new", players=3, mode="blitz", name="<cmd>new</cmd>",
                      expect_error=HarnessError)
        res = await h.slash(alice, "rr new", players=3, mode="blitz", name="<b>Dawn</b>")
        assert res.content == "New blitz game <b>Dawn</b> for 3 players"  # only `cmd` marks

    run(scenario)


def test_typed_options_resolve_to_discord_objects() -> None:
    async def scenario(h: Harness) -> None:
        alice = h.user("alice")
        mod = h.user("mod", manage_channels=True)
        lobby = h.text_channel("lobby")
        res = await h.slash(alice, "rr invite", who=mod, where=lobby, loud=True)
        assert res.content == f"{mod.mention} invited to lobby (loud=True, manage=True)"
        resolved = res.payload["data"]["resolved"]
        assert set(resolved) == {"users", "members", "channels"}

    run(scenario)


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"players": 1}, "below min_value 2"),
        ({"players": 5}, "above max_value 4"),
        ({"players": "3"}, "expected an integer"),
        ({"players": True}, "expected an integer"),
        ({"players": 2, "mode": "chaos"}, "not one of the choices"),
        ({"players": 2, "mode": "Blitz"}, "not one of the choices"),
        ({"players": 2, "name": "x" * 21}, "longer than max_length 20"),
        ({"players": 2, "colour": "red"}, "unknown option(s) ['colour']"),
        ({"mode": "classic"}, "missing required option(s) ['players']"),
    ],
)
def test_schema_violations_are_refused_before_dispatch(
    options: dict[str, Any], fragment: str
) -> None:
    async def scenario(h: Harness) -> None:
        alice = h.user("alice")
        before = len(h.requests)
        with pytest.raises(SchemaViolation) as caught:
            await h.slash(alice, "rr new", options=options)
        assert fragment in str(caught.value)
        assert len(h.requests) == before and not h.server.interactions

    run(scenario)


def test_command_paths_and_visibility_are_checked() -> None:
    async def scenario(h: Harness) -> None:
        alice = h.user("alice")
        mod = h.user("mod", manage_channels=True)
        for path, fragment in [
            ("rr", "is a group"),
            ("rr admin", "is a group"),
            ("rr nope", "no subcommand 'nope'"),
            ("chess", "not a registered slash command"),
            ("rrsetup", "hidden from alice"),
        ]:
            with pytest.raises(SchemaViolation, match=re.escape(fragment)):
                await h.slash(alice, path)
        with pytest.raises(SchemaViolation, match="not available in DMs"):
            await h.slash(mod, "rrsetup", channel=h.dm_channel(mod))
        res = await h.slash(mod, "rrsetup")
        created = h.server.channels[max(h.server.channels)]
        assert created.name == "rr-game" and h.guild.get_channel(created.id) is not None
        assert res.ephemeral and res.content == f"Created {created.mention}"
        assert h.last_message(created).content == "Welcome to the game channel"

    run(scenario)


def test_subcommand_group_check_failure_and_handler() -> None:
    async def scenario(h: Harness) -> None:
        alice = h.user("alice")
        mod = h.user("mod", manage_channels=True)
        denied = await h.slash(
            alice, "rr admin reset", expect_error=app_commands.MissingPermissions
        )
        assert denied.ephemeral and denied.content == "You need Manage Channels"
        assert isinstance(denied.errors[0], app_commands.MissingPermissions)
        allowed = await h.slash(mod, "rr admin reset")
        assert allowed.content == "Lobby reset"

    run(scenario)


def test_autocomplete_returns_recorded_choices() -> None:
    async def scenario(h: Harness) -> None:
        alice = h.user("alice")
        res = await h.autocomplete(alice, "rr act", focused="to", unit="2B", to="c")
        assert res.kind == "autocomplete"
        assert res.choice_values == ["c1", "c2", "c3"]
        assert res.choice_names[0] == "2B to c1"
        everything = await h.autocomplete(alice, "rr act", focused="to")
        assert len(everything.choices or []) == 9
        with pytest.raises(SchemaViolation, match="has no autocomplete"):
            await h.autocomplete(alice, "rr act", focused="unit")
        done = await h.slash(alice, "rr act", unit="2B", to="c3")
        assert done.content == "2B -> c3"

    run(scenario)


def test_file_attachment_bytes_are_captured() -> None:
    async def scenario(h: Harness) -> None:
        res = await h.slash(h.user("alice"), "rr board")
        assert [f.filename for f in res.files] == ["board.png"]
        assert res.files[0].data == BOARD_PNG and res.files[0].content_type == "image/png"
        assert res.embed is not None and res.embed["image"]["url"] == "attachment://board.png"
        assert res.callback is not None and res.callback.files[0].data == BOARD_PNG

    run(scenario)


def test_defer_then_ephemeral_followup() -> None:
    async def scenario(h: Harness) -> None:
        alice, bob = h.user("alice"), h.user("bob")
        res = await h.slash(alice, "rr slow")
        assert res.kind == "deferred" and res.deferred
        assert res.callback is not None and res.callback.ephemeral
        (followup,) = res.followups
        # Discord: the first followup after a thinking defer *replaces* the loading message.
        assert followup is res.message and not followup.loading
        assert followup.ephemeral and followup.content == "Your secret objective: hold c3"
        assert followup in h.visible_to(alice) and followup not in h.visible_to(bob)
        assert [r.route for r in res.requests] == [
            "/interactions/{webhook_id}/{webhook_token}/callback",
            "/webhooks/{webhook_id}/{webhook_token}",
        ]

    run(scenario)


# --------------------------------------------------------------------------- components


def test_dynamic_item_click_reaches_callback_and_survives_restart() -> None:
    async def first_run(h: Harness) -> None:
        alice, bob = h.user("alice"), h.user("bob")
        lobby = await h.slash(alice, "rr lobby", game=42)
        assert lobby.message is not None
        assert lobby.message.custom_ids == [
            "rr:lobby:start",
            "rr:lobby:explode",
            "rr:join:42",
            "rr:lobby:colour",
        ]
        joined = await h.click(bob, "rr:join:42", message=lobby.message)
        assert joined.kind == "message" and joined.ephemeral
        assert joined.content == "Bob joined game 42"
        saved.append(lobby.message)

    async def after_restart(h: Harness) -> None:
        carol = h.user("carol")
        joined = await h.click(carol, label="Join", message=saved[0])
        assert joined.content == "Carol joined game 42"

    saved: list[Any] = []
    run(first_run)
    run(after_restart)


def test_persistent_view_button_updates_message_and_select() -> None:
    async def scenario(h: Harness) -> None:
        alice = h.user("alice")
        lobby = await h.slash(alice, "rr lobby", game=7)
        assert lobby.message is not None
        start = await h.click(alice, "rr:lobby:start", message=lobby.message)
        assert start.kind == "update" and start.message is lobby.message
        assert lobby.message.content == "Game started" and lobby.message.edited
        assert lobby.message.component("rr:lobby:start").disabled
        with pytest.raises(SchemaViolation, match="disabled"):
            await h.click(alice, "rr:lobby:start", message=lobby.message)
        picked = await h.select(alice, "rr:lobby:colour", ["blue"], message=lobby.message)
        assert picked.content == "colour=blue" and picked.ephemeral
        with pytest.raises(SchemaViolation, match="does not offer"):
            await h.select(alice, "rr:lobby:colour", ["green"], message=lobby.message)

    run(scenario)


def test_view_wait_parks_until_the_click() -> None:
    async def scenario(h: Harness) -> None:
        alice, bob = h.user("alice"), h.user("bob")
        asked = await h.slash(alice, "rr confirm")
        assert asked.content == "Really?" and asked.followups == [] and cog(h).confirmations == []
        assert asked.message is not None
        with pytest.raises(SchemaViolation, match="cannot see"):
            await h.click(bob, "rr:confirm:yes", message=asked.message)
        clicked = await h.click(alice, "rr:confirm:yes", message=asked.message)
        assert clicked.kind == "deferred_update"
        assert cog(h).confirmations == [True]
        assert [m.content for m in clicked.messages] == ["Confirmed"]
        assert asked.followups[-1].content == "Confirmed" and asked.followups[-1].ephemeral

    run(scenario)


def test_modal_round_trip() -> None:
    async def scenario(h: Harness) -> None:
        alice = h.user("alice")
        shown = await h.slash(alice, "rr name")
        assert shown.kind == "modal" and shown.modal is not None
        assert shown.modal["title"] == "Name your army"
        with pytest.raises(SchemaViolation, match="required"):
            await h.submit_modal(alice, {}, modal=shown)
        done = await h.submit_modal(alice, {"rr:army": "Ravens"}, modal=shown)
        assert done.content == "Army Ravens is ready"

    run(scenario)


# --------------------------------------------------------------------------- failures


def test_exceptions_in_callbacks_fail_through_the_harness() -> None:
    async def scenario(h: Harness) -> None:
        alice = h.user("alice")
        with pytest.raises(RuntimeError, match="command callback blew up"):
            await h.slash(alice, "rr boom")
        lobby = await h.slash(alice, "rr lobby", game=0)
        with pytest.raises(RuntimeError, match="view callback blew up"):
            await h.click(alice, "rr:lobby:explode", message=lobby.message)
        with pytest.raises(ValueError, match="game 0 does not exist"):
            await h.click(alice, "rr:join:0", message=lobby.message)
        with pytest.raises(LookupError, match="background task failed"):
            await h.slash(alice, "rr leak")
        tolerated = await h.slash(
            alice, "rr boom", expect_error=RuntimeError, expect_response=False
        )
        assert not tolerated.responded and isinstance(
            tolerated.errors[0], app_commands.CommandInvokeError
        )

    run(scenario)


def test_injected_403_on_dm_create_is_observable() -> None:
    async def scenario(h: Harness) -> None:
        alice = h.user("alice")
        ok = await h.slash(alice, "rr remind")
        assert ok.content == "Sent you a DM"
        assert [m.content for m in h.dms(alice)] == ["Your turn in game 42"]
        assert h.dms(alice)[0] in h.visible_to(alice)

        bob = h.user("bob")
        rule = h.http.fail(
            "POST", "/users/@me/channels", status=403, code=50007, message="Cannot send messages"
        )
        refused = await h.slash(bob, "rr remind")
        assert rule.hits == 1
        assert refused.ephemeral and refused.content == "I couldn't DM you; open your DMs"
        assert h.http.last("POST", "/users/@me/channels").status == 403
        assert h.dms(bob) == []

        in_dm = await h.slash(alice, "rr new", players=2, channel=h.dm_channel(alice))
        assert in_dm.message in h.dms(alice) and in_dm.payload["user"]["id"] == str(alice.id)
        assert "member" not in in_dm.payload and "guild_id" not in in_dm.payload

        closed = h.user("closed", dms_open=False)
        res = await h.slash(closed, "rr remind")
        assert res.content == "I couldn't DM you; open your DMs"
        assert h.http.last("POST", "/channels/{channel_id}/messages").response["code"] == 50007

    run(scenario)


def test_rate_limits_and_server_errors() -> None:
    async def scenario(h: Harness) -> None:
        alice = h.user("alice")
        h.http.fail(
            "POST", "/channels/{channel_id}/messages", status=429, retry_after=0.01, times=2
        )
        res = await h.slash(alice, "rr announce")
        statuses = [r.status for r in h.http.find("POST", "/channels/{channel_id}/messages")]
        assert statuses == [429, 429, 200]
        assert res.followups[-1].content == "Announced"

        h.http.fail("POST", "/channels/{channel_id}/messages", status=500, times=None)
        degraded = await h.slash(alice, "rr announce")
        assert degraded.followups[-1].content == "Discord hiccup (500), try again"

    run(scenario)


def test_unhandled_route_fails_even_if_bot_swallows_it() -> None:
    async def scenario(h: Harness) -> None:
        async def swallow() -> None:
            try:
                await h.bot.fetch_guild_preview(h.guild_id)
            except Exception:
                pass

        h.bot.loop.create_task(swallow())
        await h.settle()
        with pytest.raises(
            HarnessError, match="no fake Discord handler for GET /guilds/{guild_id}/preview"
        ):
            h.raise_errors()

    run(scenario)


def test_work_on_threads_is_awaited() -> None:
    async def scenario(h: Harness) -> None:
        res = await h.slash(h.user("alice"), "rr stats")
        assert [m.content for m in res.followups] == ["rows=300000"]

    run(scenario)


def test_a_thread_in_project_code_is_awaited_whatever_its_line_says() -> None:
    """A worker thread counts as idle only when it waits in the standard library or an
    installed package (a queue's `get`): one stopped on a line of the project's own code
    is working, even where that line holds `sleep(` or `.join(` (issue 21)."""
    async def scenario(h: Harness) -> None:
        res = await h.slash(h.user("alice"), "rr grind")
        assert [m.content for m in res.followups] == ["ground"]

    run(scenario)


def test_settle_is_bounded_and_teardown_cancels_the_spinner() -> None:
    async def main() -> list[asyncio.Task[Any]]:
        h = Harness(RRBot, settle_timeout=0.2)
        with pytest.raises(SettleTimeout, match="timer due"):
            async with h:
                await h.slash(h.user("alice"), "rr spin")
        assert h.last_message().content == "spinning"
        return [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]

    started = time.perf_counter()
    assert asyncio.run(main()) == []
    assert time.perf_counter() - started < 2


# --------------------------------------------------------------------------- hygiene


def test_nothing_is_left_running_after_exit() -> None:
    originals = (HTTPClient.request, AsyncWebhookAdapter.request, BaseView._scheduled_task)
    seen: dict[str, Any] = {}

    def no_sockets(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the harness must not open sockets")

    async def main() -> None:
        with mock.patch.object(socket.socket, "__init__", no_sockets):
            async with Harness(RRBot) as h:
                alice = h.user("alice")
                await h.slash(alice, "rr confirm")  # leaves a 60 s view timeout + a parked command
                await h.slash(alice, "rr lobby", game=1)
                await h.slash(alice, "rr stats")
                seen["bot"] = h.bot
        seen["tasks"] = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]

    asyncio.run(main())
    assert seen["tasks"] == []
    assert seen["bot"].is_closed()
    assert seen["bot"].http._HTTPClient__session.closed
    assert (HTTPClient.request, AsyncWebhookAdapter.request, BaseView._scheduled_task) == originals


def test_user_install_contexts_are_checked_and_the_bot_cannot_post_where_it_is_no_member() -> None:
    """Discord's contexts 2 (a DM between users) and the user install: a command the app
    does not offer there never reaches the bot, and the bot's own posts where it is no
    member answer 403 Missing Access (50001), as on Discord."""

    async def scenario(h: Harness) -> None:
        alice, bob = h.user("alice"), h.user("bob")
        between = h.private_channel(alice, bob)
        with pytest.raises(SchemaViolation, match="private channels|installed by a user"):
            await h.slash(alice, "rr new", players=2, channel=between)
        with pytest.raises(discord.Forbidden) as caught:
            await h.bot.get_partial_messageable(between.id).send("hello")
        assert caught.value.code == 50001
        ok = await h.bot.get_partial_messageable(h.channel.id).send("in the guild")
        assert ok.content == "in the guild"
        h.server.user_install_only = True
        with pytest.raises(SchemaViolation, match="cannot be installed by a user"):
            await h.slash(alice, "rr new", players=2)
        with pytest.raises(discord.Forbidden):
            await h.bot.get_partial_messageable(h.channel.id).send("not a member now")
        assert len(h.messages(between)) == 0

    run(scenario)


def test_a_locked_thread_takes_posts_only_from_manage_threads_and_an_archived_one_reopens() -> None:
    """Discord's threads topic: "Sending a message will automatically unarchive the thread,
    unless the thread has been locked by a moderator". An interaction there carries the
    state in `thread_metadata`; a post into a locked thread without Manage Threads is
    refused — 160005 "Thread is locked" while open, 50083 "Thread is archived" once
    archived — and a post into an archived, unlocked one unarchives it (THREAD_UPDATE)."""

    async def scenario(h: Harness) -> None:
        alice = h.user("alice")
        thread = h.thread("t", owner=alice)
        h.set_thread(thread, archived=True)
        meta = h.slash_payload(alice, "rr board", channel=thread)["channel"]["thread_metadata"]
        assert meta["archived"] is True and meta["locked"] is False
        sent = await h.bot.get_partial_messageable(thread.id).send("wakes it")
        assert sent.content == "wakes it" and not thread.archived
        cached = h.guild.get_thread(thread.id)
        assert cached is not None and not cached.archived
        with_manage = h.bot.get_partial_messageable(thread.id)
        h.set_thread(thread, locked=True)
        assert (await with_manage.send("a moderator may")).content == "a moderator may"
        bot = h.server.bot_user
        for holder in (bot, *(h.server.roles[r] for r in bot.role_ids)):  # its own, its role's
            holder.permissions &= ~discord.Permissions(manage_threads=True).value
        with pytest.raises(discord.Forbidden) as locked:
            await with_manage.send("not I")
        assert locked.value.code == 160005
        h.set_thread(thread, archived=True)
        with pytest.raises(discord.HTTPException) as archived:
            await with_manage.send("nor now")
        assert archived.value.status == 400 and archived.value.code == 50083
        assert thread.archived and [m.text for m in h.messages(thread)] == [
            "wakes it", "a moderator may"]

    run(scenario)


# --------------------------------------------------------------------------- snowflakes


async def _raw(h: Harness, method: str, path: str, body: Any = None, **ids: Any) -> Any:
    """A request as any bot code could make it, through discord.py's own HTTPClient."""
    from discord.http import Route

    return await h.bot.http.request(Route(method, path, **ids), json=body)


def _refusal(h: Harness) -> dict[str, Any]:
    """The last request's answer: Discord's 400 / 50035 "Invalid Form Body" shape."""
    last = h.requests[-1]
    assert last.status == 400 and last.response["code"] == 50035, last.response
    assert last.response["message"] == "Invalid Form Body"
    return last.response["errors"]


def test_ids_that_are_not_snowflakes_are_refused_as_discord_refuses_them() -> None:
    """Issue 17: Discord answers 400/50035 to an id that is not a snowflake (its OpenAPI
    `SnowflakeType`, ^(0|[1-9][0-9]*)$) anywhere in a request — allowed mentions (at most
    100, no duplicates, `parse` exclusive with the list), message references, the DM
    recipient, path ids — and the harness fails the test even when the bot swallows it."""
    from harness import BadSnowflake

    async def scenario(h: Harness) -> None:
        alice = h.user("alice")
        ch = h.channel.id
        post = "/channels/{channel_id}/messages"

        def coerce(value: object) -> dict[str, Any]:
            return {"_errors": [{"code": "NUMBER_TYPE_COERCE",
                                 "message": f'Value "{value}" is not snowflake.'}]}

        # discord.py's own objects: an AI seat's negative id in allowed_mentions
        channel = h.bot.get_partial_messageable(ch)
        with pytest.raises(discord.HTTPException) as refused:
            await channel.send(f"<@{alice.id}>", allowed_mentions=discord.AllowedMentions(
                users=[discord.Object(alice.id), discord.Object(-1)]))
        assert refused.value.status == 400 and refused.value.code == 50035
        assert _refusal(h) == {"allowed_mentions": {"users": {"1": coerce(-1)}}}
        with pytest.raises(BadSnowflake, match="not a snowflake"):
            h.raise_errors()

        cases: list[tuple[str, str, Any, dict[str, Any], dict[str, Any]]] = [
            ("POST", post, {"content": "x", "allowed_mentions": {
                "users": [str(alice.id), str(alice.id)]}}, {"channel_id": ch},
             {"allowed_mentions": {"users": {"1": {"_errors": [{
                 "code": "SET_TYPE_ALREADY_CONTAINS_VALUE",
                 "message": "The set already contains this value."}]}}}}),
            ("POST", post, {"content": "x", "allowed_mentions": {
                "roles": [str(10**17 + k) for k in range(101)]}}, {"channel_id": ch},
             {"allowed_mentions": {"roles": {"_errors": [{
                 "code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 100 or fewer in length."}]}}}),
            ("POST", post, {"content": "x", "allowed_mentions": {
                "parse": ["users"], "users": [str(alice.id)]}}, {"channel_id": ch},
             {"allowed_mentions": {"_errors": [{
                 "code": "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
                 "message": 'parse:["users"] and users: [ids...] are mutually exclusive.'}]}}),
            ("POST", post, {"content": "x", "message_reference": {"message_id": "-5"}},
             {"channel_id": ch}, {"message_reference": {"message_id": coerce("-5")}}),
            ("POST", "/users/@me/channels", {"recipient_id": -2}, {},
             {"recipient_id": coerce(-2)}),
            ("GET", "/channels/{channel_id}", None, {"channel_id": -3},
             {"channel_id": coerce(-3)}),
            ("GET", "/users/{user_id}", None, {"user_id": "Bot 1"},
             {"user_id": coerce("Bot 1")}),
            ("GET", "/channels/{channel_id}/messages/{message_id}", None,
             {"channel_id": ch, "message_id": 2**64}, {"message_id": coerce(2**64)}),
        ]
        for method, path, body, ids, errors in cases:
            with pytest.raises(discord.HTTPException):
                await _raw(h, method, path, body, **ids)
            assert _refusal(h) == errors, (method, path, body)
            with pytest.raises(BadSnowflake):
                h.raise_errors()

        # what Discord accepts: real ids, an empty list beside `parse` (documented), "@me"
        sent = await _raw(h, "POST", post, {"content": f"<@{alice.id}>", "allowed_mentions": {
            "parse": ["users"], "users": []}}, channel_id=ch)
        assert h.requests[-1].status == 200 and sent["content"] == f"<@{alice.id}>"
        await channel.send("hi", allowed_mentions=discord.AllowedMentions(
            users=[discord.Object(alice.id)], roles=False, everyone=False))
        await _raw(h, "POST", "/users/@me/channels", {"recipient_id": str(alice.id)})
        await _raw(h, "GET", "/users/@me")
        assert [r.status for r in h.requests[-4:]] == [200, 200, 200, 200]
        h.raise_errors()

    run(scenario)


def test_select_texts_alt_texts_and_upload_sizes_are_checked_as_discord_does() -> None:
    """Discord's limits beyond the lengths of content and embeds: a select's placeholder
    (150) and an option's description (100), an attachment's description (1024) and the
    upload size of a server without boosts (10 MiB in all)."""
    from harness import HTTPError as FakeHTTPError
    from harness import RecordedFile, _validate_message_payload
    from harness.checks import MAX_UPLOAD

    def select(**extra: Any) -> dict[str, Any]:
        option = {"label": "a", "value": "a", **extra.pop("option", {})}
        return {"components": [{"type": 1, "components": [
            {"type": 3, "custom_id": "s", "options": [option], **extra}]}]}

    assert not _validate_message_payload(select(placeholder="p" * 150,
                                                option={"description": "d" * 100}),
                                         [], creating=True)
    assert _validate_message_payload(select(placeholder="p" * 151), [], creating=True)
    assert _validate_message_payload(select(option={"description": "d" * 101}), [],
                                     creating=True)
    alt = RecordedFile("a.png", b"x", "x" * 1024)
    assert not _validate_message_payload({}, [alt], creating=True)
    assert _validate_message_payload({}, [RecordedFile("a.png", b"x", "x" * 1025)],
                                     creating=True)
    big = [RecordedFile("a.gif", b"x" * (MAX_UPLOAD // 2 + 1)) for _ in range(2)]
    with pytest.raises(FakeHTTPError) as refused:
        _validate_message_payload({}, big, creating=True)
    assert refused.value.status == 413
