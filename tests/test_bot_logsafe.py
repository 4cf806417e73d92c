"""At RR_LOG_LEVEL=DEBUG the log never carries a secret (R14.1: medal values are private).

discord.py's real HTTP client (aiohttp, its request loop and its DEBUG lines) talks to a
small Discord stand-in on 127.0.0.1, reached by pointing `discord.http.Route.BASE` at it.
The bot logs in and DMs a player their new medal's value through its own code path
(`Announcer.send_private`); everything logged at DEBUG is captured and must not contain
the DM's text, while the HTTP lines themselves are there (so the test sees what an
operator's DEBUG log would show).
"""

from __future__ import annotations

import asyncio
import json
import logging

import discord
from aiohttp import web
from bot_driver import Clock, make_bot
from harness import FakeDiscord

from cogs.announce import Announcement
from cogs.logsafe import HidePayloads
from engine import default_cards


class Recorder(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


async def loopback_discord(fake: FakeDiscord, received: list[dict]) -> tuple[web.AppRunner, int]:
    """The few REST routes a login and a DM need, answered with real payload shapes."""
    def reply(data: dict) -> web.Response:  # discord.py wants exactly 'application/json'
        return web.Response(body=json.dumps(data).encode(),
                            headers={"Content-Type": "application/json"})

    player = fake.add_user("ann", permissions=0, dms_open=True, in_guild=True, bot=False,
                           locale="en-US")

    async def me(request: web.Request) -> web.Response:
        return reply(fake.bot_user.user_payload())

    async def app_info(request: web.Request) -> web.Response:
        return reply(fake.application_payload())

    async def open_dm(request: web.Request) -> web.Response:
        return reply(fake.dm_channel(player).payload())

    async def post(request: web.Request) -> web.Response:
        body = await request.json()
        received.append(body)
        channel = fake.dm_channel(player)
        return reply(fake.create_message(channel, body, []).payload())

    app = web.Application()
    app.router.add_get("/api/v10/users/@me", me)
    app.router.add_get("/api/v10/oauth2/applications/@me", app_info)
    app.router.add_post("/api/v10/users/@me/channels", open_dm)
    app.router.add_post("/api/v10/channels/{channel_id}/messages", post)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]


def test_debug_log_of_a_medal_dm_has_no_medal_value(tmp_path, monkeypatch):
    fake = FakeDiscord(application_id=None, guild_name="g", bot_permissions=0,
                       everyone_permissions=0)
    received: list[dict] = []
    recorder = Recorder()
    root = logging.getLogger()

    async def scenario() -> None:
        runner, port = await loopback_discord(fake, received)
        monkeypatch.setattr(discord.http.Route, "BASE", f"http://127.0.0.1:{port}/api/v10")
        bot = make_bot(tmp_path / "g.db", Clock())
        bot.sync_commands = bot.start_ticker = False
        try:
            await bot.login("not-a-real-token")
            ann = next(u for u in fake.users.values() if u.name == "ann")
            medal = {"type": "medal_value", "player": 0, "value": 4, "vis": [0]}  # combat.py
            announcement = Announcement(
                game_id=1, channel_id=1, lang="en", actor=None, names=["Ann"], users=[ann.id],
                cards=default_cards(), public=[], private={0: [medal]}, asks=[],
                table_view=None, finished=[])
            await bot.announcer.send_private(announcement, 0)
        finally:
            await bot.close()
            await runner.cleanup()

    root.addHandler(recorder)
    level = root.level
    root.setLevel(logging.DEBUG)  # RR_LOG_LEVEL=DEBUG
    try:
        asyncio.run(scenario())
    finally:
        root.setLevel(level)
        root.removeHandler(recorder)
    assert received and "Your new medal is worth 4." in received[0]["content"]
    log = "\n".join(recorder.lines)
    # the DEBUG HTTP lines are there: method, URL, status …
    assert "POST http://127.0.0.1" in log and "/messages" in log and "has returned 200" in log
    # … but not what was sent or echoed back
    assert "medal is worth" not in log and "worth 4" not in log
    assert json.dumps(received[0]["content"])[1:20] not in log


def test_gateway_events_are_hidden_too():
    """discord.gateway logs every event at DEBUG (`For Shard ID %s: WebSocket Event: %s`):
    the bot's own DM echoed back as MESSAGE_CREATE must not land in the log either."""
    event = {"t": "MESSAGE_CREATE", "op": 0, "d": {"content": "Your new medal is worth 4."}}
    record = logging.LogRecord("discord.gateway", logging.DEBUG, __file__, 1,
                               "For Shard ID %s: WebSocket Event: %s", (None, event), None)
    assert HidePayloads().filter(record)
    assert "medal" not in record.getMessage() and "Shard ID None" in record.getMessage()
    single = logging.LogRecord("discord.gateway", logging.DEBUG, __file__, 1, "Received %s",
                               (event,), None)
    HidePayloads().filter(single)
    assert "medal" not in single.getMessage()


def test_interaction_tokens_in_webhook_urls_are_masked():
    url = "https://discord.com/api/v10/webhooks/123/aW50ZXJhY3Rpb246c2VjcmV0?wait=1"
    record = logging.LogRecord("discord.webhook.async_", logging.DEBUG, __file__, 1,
                               "Webhook ID %s with %s %s has returned status code %s",
                               (123, "POST", url, 200), None)
    HidePayloads().filter(record)
    text = record.getMessage()
    assert "aW50ZXJhY3Rpb246c2VjcmV0" not in text and "/webhooks/123/<token>?wait=1" in text
