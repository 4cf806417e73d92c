"""The Discord harness (tests/harness/README.md): drive a real discord.py 2.7 bot offline: gateway payloads in, recorded HTTP out.

Why this exists: the bot's behaviour lives in discord.py's own machinery (``CommandTree``
dispatch, option transformers, ``View``/``DynamicItem`` routing, ``InteractionResponse``
bookkeeping, webhook followups). Mocking ``Interaction`` objects would test our guesses
about that machinery instead of the machinery itself. So the harness keeps every part of
discord.py real and replaces only the network edge:

* ``discord.http.HTTPClient.request`` (REST calls: channel messages, DMs, channels, sync)
* ``discord.webhook.async_.AsyncWebhookAdapter.request`` (interaction callbacks, followups,
  ``@original`` edits) - interaction responses never touch ``HTTPClient``.

Both are routed into :class:`FakeDiscord`, a small in-memory model of Discord's server
side that records every request and answers with the bodies discord.py parses (for
example ``{"interaction": ..., "resource": ...}`` for interaction callbacks). Inbound
traffic is fed as raw gateway payloads through ``ConnectionState.parsers`` (``READY``,
``INTERACTION_CREATE``...), exactly where the websocket would deliver them.

Discord's *client* validates slash command input (option types, ranges, choices,
required options, permissions) before anything reaches the bot; discord.py trusts it.
The harness therefore checks every simulated invocation against the schema the bot
would sync (``Command.to_dict(tree)``) and refuses invalid ones with
:class:`SchemaViolation`, so tests cannot exercise inputs real users cannot produce.

Dispatch in discord.py is fire-and-forget (tasks). Each helper therefore waits until
the event loop is quiet (bounded by ``settle_timeout``), then raises any exception that
escaped into ``CommandTree.on_error``, ``View.on_error``, ``Client.on_error``, the
``discord`` logger or an un-awaited task - errors discord.py would only log.

Typical use (pytest-asyncio is not installed, so tests call ``asyncio.run``)::

    async def scenario() -> None:
        async with Harness(make_bot) as h:
            alice = h.user("alice")
            res = await h.slash(alice, "rr new", players=2)
            assert res.kind == "message" and "game" in res.content
            click = await h.click(alice, "rr:join:1", message=res.message)

    asyncio.run(scenario())

API at a glance::

    Harness(bot_or_factory, *, extensions=(), setup=None, settle_timeout=5.0,
            timer_horizon=1.0, response_deadline=RESPONSE_DEADLINE (3 s), bot_permissions=..., ...)
    h.user(name, *, manage_channels=False, administrator=False, permissions=None,
           dms_open=True, in_guild=True) -> FakeUser
    h.role(name) / h.text_channel(name) / h.dm_channel(user) / h.attachment(name, data)
    await h.slash(user, "rr new", players=2, channel=None, options=None,
                  expect_error=None, expect_response=True) -> InteractionResult
    await h.autocomplete(user, "rr act", focused="to", unit="2B")  # .choices
    await h.click(user, custom_id | label=..., message=msg)
    await h.select(user, custom_id, values, message=msg)
    await h.submit_modal(user, {field_custom_id: text}, modal=result)
    await h.gateway("EVENT_NAME", payload); await h.settle(); h.raise_errors()
    h.slash_payload(user, "rr status") / h.autocomplete_payload(...) / h.click_payload(...)
    h.deliver(payload, user, channel, arrived=t)  # no settling: open-loop load (bench/)
    h.messages(channel) / h.last_message(channel) / h.visible_to(user) / h.dms(user)
    h.requests, h.http.find(method, route), h.http.last(method, route)
    h.http.fail(method, route, status=403|429|500, times=1, code=0, retry_after=0.05)
    h.http.route(method, template, handler)  # add/override a fake endpoint

Behaviour worth knowing (all mirror real Discord / discord.py 2.7.1):

* The first followup after ``defer(thinking=True)`` *edits* the loading message and
  keeps the defer's ephemerality; ``followup.send(ephemeral=True)`` after a public
  defer is public.
* Ephemeral messages are not reachable through ``/channels/...`` routes (404), so
  ``interaction.message.edit()`` on one fails; use the interaction's responses.
* Exceptions in ``DynamicItem`` callbacks/``from_custom_id`` and autocomplete callbacks
  never reach ``View.on_error``/``tree.on_error``: discord.py only logs them. The
  harness turns ERROR logs from the ``discord`` logger into failures for that reason.
* ``CheckFailure``s (e.g. ``MissingPermissions``) also fail the helper unless passed as
  ``expect_error`` - even when the bot's error handler answers the user nicely.
* Settling ignores timers further away than ``timer_horizon`` (view timeouts, long
  sleeps); a command parked on ``view.wait()`` settles and resumes on the next click.
* 5xx retries skip discord.py's 1-9 s backoff; 429 really sleeps ``retry_after``.
* An id that is not a snowflake (path ids, ``allowed_mentions``, ``message_reference``,
  a DM's ``recipient_id``) is answered 400 / 50035 as Discord does *and* fails the test
  with :class:`BadSnowflake` (pass it as ``expect_error`` to test the refusal itself).
* Option schema comes from ``Command.to_dict(tree)`` without the translator, so
  option names are the untranslated ones.

Only one Harness may be active at a time (the HTTP edge is patched class-wide).
"""

from __future__ import annotations

from .checks import _validate_message_payload
from .components import ComponentsMixin
from .core import ErrorSpec, HarnessCore
from .gateway import GatewayMixin
from .http_edge import RecordedHTTP
from .interactions import SlashMixin
from .model import (
    COMPONENTS_V2,
    DEFAULT_BOT_PERMISSIONS,
    DEFAULT_EVERYONE_PERMISSIONS,
    EPHEMERAL,
    LOADING,
    RESPONSE_DEADLINE,
    RESPONSE_KINDS,
    BadSnowflake,
    ComponentInfo,
    FakeAttachment,
    FakeChannel,
    FakeRole,
    FakeUser,
    HarnessError,
    HTTPError,
    InteractionResult,
    OverLimit,
    RecordedFile,
    RecordedMessage,
    Request,
    SchemaViolation,
    SettleTimeout,
    UnsafePing,
)
from .server import FailureRule, FakeDiscord

__all__ = [
    "COMPONENTS_V2",
    "DEFAULT_BOT_PERMISSIONS",
    "DEFAULT_EVERYONE_PERMISSIONS",
    "EPHEMERAL",
    "LOADING",
    "RESPONSE_DEADLINE",
    "RESPONSE_KINDS",
    "BadSnowflake",
    "ComponentInfo",
    "ErrorSpec",
    "FailureRule",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeRole",
    "FakeUser",
    "HTTPError",
    "Harness",
    "HarnessError",
    "InteractionResult",
    "OverLimit",
    "RecordedFile",
    "RecordedHTTP",
    "RecordedMessage",
    "Request",
    "SchemaViolation",
    "SettleTimeout",
    "UnsafePing",
    "_validate_message_payload",
]


class Harness(ComponentsMixin, SlashMixin, GatewayMixin, HarnessCore):
    """A logged-in bot wired to :class:`FakeDiscord`; use as ``async with Harness(bot) as h``.

    One class to the tests, written by concern: lifecycle, entities, queries, errors and
    settling (core.py), the gateway and interaction payloads (gateway.py), slash commands
    (interactions.py), views and components (components.py)."""
