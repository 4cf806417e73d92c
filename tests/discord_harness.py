"""Drive a real discord.py 2.7 bot offline: gateway payloads in, recorded HTTP out.

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
            timer_horizon=1.0, response_deadline=3.0, bot_permissions=..., ...)
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
* Option schema comes from ``Command.to_dict(tree)`` without the translator, so
  option names are the untranslated ones.

Only one Harness may be active at a time (the HTTP edge is patched class-wide).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import datetime as dt
import fnmatch
import functools
import http
import inspect
import json
import linecache
import logging
import mimetypes
import re
import sys
import threading
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal, cast
from unittest import mock
from urllib.parse import unquote, urlsplit

import discord
from discord import app_commands
from discord.ext import commands
from discord.http import HTTPClient, Route
from discord.ui.modal import Modal
from discord.ui.view import BaseView
from discord.webhook.async_ import AsyncWebhookAdapter

__all__ = [
    "ComponentInfo",
    "FailureRule",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeRole",
    "FakeUser",
    "Harness",
    "HarnessError",
    "HTTPError",
    "InteractionResult",
    "RecordedFile",
    "RecordedHTTP",
    "RecordedMessage",
    "Request",
    "SchemaViolation",
    "SettleTimeout",
]

# Message flags (https://discord.com/developers/docs/resources/message#message-object-message-flags)
EPHEMERAL = 1 << 6
LOADING = 1 << 7
COMPONENTS_V2 = 1 << 15

#: InteractionResponseType value -> the name used in :attr:`InteractionResult.kind`.
RESPONSE_KINDS: dict[int, str] = {
    1: "pong",
    4: "message",
    5: "deferred",
    6: "deferred_update",
    7: "update",
    8: "autocomplete",
    9: "modal",
    12: "launch_activity",
}

_INTERACTION_TYPE_NAMES: dict[int, str] = {
    1: "ping",
    2: "slash command",
    3: "component",
    4: "autocomplete",
    5: "modal submit",
}
_OPTION_TYPE_NAMES: dict[int, str] = {
    1: "subcommand",
    2: "subcommand group",
    3: "string",
    4: "integer",
    5: "boolean",
    6: "user",
    7: "channel",
    8: "role",
    9: "mentionable",
    10: "number",
    11: "attachment",
}
_MAX_SAFE_INTEGER = 2**53
_CDN = "https://cdn.discordapp.com"

#: Permissions every member gets through @everyone (a typical community server).
DEFAULT_EVERYONE_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    read_message_history=True,
    embed_links=True,
    attach_files=True,
    add_reactions=True,
    use_external_emojis=True,
    use_application_commands=True,
    create_public_threads=True,
)

#: Permissions of the bot's own role: what a typical invite link for a game bot grants.
DEFAULT_BOT_PERMISSIONS = DEFAULT_EVERYONE_PERMISSIONS | discord.Permissions(
    manage_channels=True,
    manage_messages=True,
    manage_threads=True,
    manage_roles=True,
    create_private_threads=True,
)

_active_harness: Harness | None = None


# --------------------------------------------------------------------------- errors


class HarnessError(AssertionError):
    """The harness itself refuses something (unhandled route, misuse, leaked task).

    It subclasses AssertionError so pytest reports it as a test failure, not a crash.
    """


class SchemaViolation(HarnessError):
    """A simulated user action that Discord's client would never send.

    Raised *before* anything is fed to the bot: invalid slash options, clicking a
    disabled or invisible button, picking a select value that is not offered...
    """


class SettleTimeout(HarnessError):
    """The event loop stayed busy past ``settle_timeout`` (a hang or a busy-loop)."""


class HTTPError(Exception):
    """Raise from a custom route handler to answer with a Discord error body."""

    def __init__(
        self,
        status: int,
        message: str = "",
        *,
        code: int = 0,
        errors: Mapping[str, Any] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{status} {message} (code {code})")
        self.status = status
        self.message = message or _status_phrase(status)
        self.code = code
        self.errors = dict(errors) if errors else None
        self.retry_after = retry_after

    def body(self) -> dict[str, Any]:
        """The JSON body Discord would send with this status."""
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        if self.retry_after is not None:
            body["retry_after"] = self.retry_after
            body["global"] = False
        return body


def _status_phrase(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Error"


class _FakeResponse:
    """Stands in for ``aiohttp.ClientResponse`` inside discord.py exception objects."""

    def __init__(self, status: int, headers: Mapping[str, str] | None = None) -> None:
        self.status = status
        self.reason = _status_phrase(status)
        self.headers: dict[str, str] = dict(headers or {})


def _discord_exception(status: int, body: Any) -> discord.HTTPException:
    """Map a status to the exception discord.py raises for it after its retry loop."""
    response = _FakeResponse(status, {"Via": "1.1 google"})
    if status == 403:
        return discord.Forbidden(response, body)  # type: ignore[arg-type]
    if status == 404:
        return discord.NotFound(response, body)  # type: ignore[arg-type]
    if status >= 500:
        return discord.DiscordServerError(response, body)  # type: ignore[arg-type]
    return discord.HTTPException(response, body)  # type: ignore[arg-type]


def _unwrap(error: BaseException) -> BaseException:
    """Strip discord.py's invoke wrappers so tests see the exception the code raised."""
    while isinstance(error, (app_commands.CommandInvokeError, commands.CommandInvokeError)):
        error = error.original
    return error


# --------------------------------------------------------------------------- ids


class _Snowflakes:
    """Time-based, strictly increasing snowflakes.

    discord.py derives timestamps from ids (``created_at``, the delete sub-ratelimit
    metadata), so ids must look like real ones rather than small counters.
    """

    def __init__(self) -> None:
        self._last = 0

    def __call__(self) -> int:
        now = discord.utils.time_snowflake(discord.utils.utcnow())
        self._last = max(now, self._last + 1)
        return self._last


def _iso(when: dt.datetime | None = None) -> str:
    return (when or discord.utils.utcnow()).isoformat()


# --------------------------------------------------------------------------- fake entities


@dataclass(eq=False)
class FakeUser:
    """A Discord user (and, when ``in_guild``, a member of the harness guild).

    ``permissions`` are the member's guild-level permissions; the harness backs them
    with a personal role so ``member.guild_permissions`` agrees with the interaction's
    ``permissions`` field. ``dms_open=False`` makes DMs fail like a user who blocks DMs
    from server members (403, code 50007).
    """

    id: int
    name: str
    global_name: str | None = None
    bot: bool = False
    dms_open: bool = True
    in_guild: bool = True
    permissions: int = DEFAULT_EVERYONE_PERMISSIONS.value
    locale: str = "en-US"
    nick: str | None = None
    role_ids: list[int] = field(default_factory=list)
    joined_at: str = field(default_factory=_iso)

    @property
    def mention(self) -> str:
        """The mention markup the bot would embed in content."""
        return f"<@{self.id}>"

    @property
    def display_name(self) -> str:
        """Nick, then global name, then username - the order discord.py uses."""
        return self.nick or self.global_name or self.name

    def user_payload(self) -> dict[str, Any]:
        """A Discord user object."""
        return {
            "id": str(self.id),
            "username": self.name,
            "global_name": self.global_name,
            "discriminator": "0",
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
        }

    def member_payload(
        self, *, permissions: int | None = None, with_user: bool = True
    ) -> dict[str, Any]:
        """A guild member object; ``permissions`` is added for interaction payloads."""
        payload: dict[str, Any] = {
            "nick": self.nick,
            "roles": [str(r) for r in self.role_ids],
            "joined_at": self.joined_at,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "avatar": None,
        }
        if with_user:
            payload["user"] = self.user_payload()
        if permissions is not None:
            payload["permissions"] = str(permissions)
        return payload


@dataclass(eq=False)
class FakeRole:
    """A guild role (used for role options and to back member permissions)."""

    id: int
    name: str
    permissions: int = 0
    position: int = 1

    @property
    def mention(self) -> str:
        """Role mention markup."""
        return f"<@&{self.id}>"

    def payload(self) -> dict[str, Any]:
        """A Discord role object."""
        return {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "managed": False,
            "mentionable": True,
            "flags": 0,
            "icon": None,
            "unicode_emoji": None,
        }


@dataclass(eq=False)
class FakeChannel:
    """A channel Discord knows about: guild text/thread channels or a DM."""

    id: int
    name: str
    type: int = 0
    guild_id: int | None = None
    parent_id: int | None = None
    position: int = 0
    topic: str | None = None
    nsfw: bool = False
    recipient: FakeUser | None = None
    owner_id: int | None = None
    overwrites: dict[int, dict[str, Any]] = field(default_factory=dict)

    @property
    def is_dm(self) -> bool:
        """DM channels have no guild and exactly one recipient."""
        return self.type == discord.ChannelType.private.value

    @property
    def is_thread(self) -> bool:
        """Public, private and news threads."""
        return self.type in (10, 11, 12)

    @property
    def mention(self) -> str:
        """Channel mention markup."""
        return f"<#{self.id}>"

    def payload(self, *, permissions: int | None = None) -> dict[str, Any]:
        """A Discord channel object (``permissions`` is set inside interactions)."""
        if self.is_dm:
            assert self.recipient is not None
            payload: dict[str, Any] = {
                "id": str(self.id),
                "type": self.type,
                "recipients": [self.recipient.user_payload()],
                "last_message_id": None,
                "flags": 0,
            }
        else:
            payload = {
                "id": str(self.id),
                "type": self.type,
                "guild_id": str(self.guild_id),
                "name": self.name,
                "position": self.position,
                "permission_overwrites": list(self.overwrites.values()),
                "nsfw": self.nsfw,
                "parent_id": None if self.parent_id is None else str(self.parent_id),
                "topic": self.topic,
                "last_message_id": None,
                "rate_limit_per_user": 0,
                "flags": 0,
            }
            if self.is_thread:
                payload["owner_id"] = None if self.owner_id is None else str(self.owner_id)
                payload["member_count"] = 1
                payload["message_count"] = 0
                payload["total_message_sent"] = 0
                payload["thread_metadata"] = {
                    "archived": False,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": _iso(),
                    "locked": False,
                    "invitable": True,
                    "create_timestamp": _iso(),
                }
        if permissions is not None:
            payload["permissions"] = str(permissions)
        return payload


@dataclass(eq=False)
class FakeAttachment:
    """A file a user uploads into an ``attachment`` slash option."""

    filename: str
    data: bytes
    content_type: str | None = None
    id: int = 0


# --------------------------------------------------------------------------- records


@dataclass(eq=False)
class RecordedFile:
    """A file the bot uploaded, with its bytes captured at request time."""

    filename: str
    data: bytes
    description: str | None = None
    id: int = 0
    url: str = ""
    content_type: str | None = None

    @property
    def spoiler(self) -> bool:
        """discord.py marks spoilers with a ``SPOILER_`` filename prefix."""
        return self.filename.startswith("SPOILER_")

    def payload(self) -> dict[str, Any]:
        """The attachment object Discord returns for this upload."""
        payload: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": self.url,
            "proxy_url": self.url.replace("cdn.discordapp.com", "media.discordapp.net"),
            "content_type": self.content_type,
        }
        if self.description is not None:
            payload["description"] = self.description
        return payload


@dataclass(eq=False)
class Request:
    """One HTTP request the bot made (each retry attempt is its own record)."""

    seq: int
    via: Literal["http", "webhook"]
    method: str
    route: str
    path: str
    params: dict[str, str]
    query: dict[str, Any]
    json: Any
    files: list[RecordedFile]
    reason: str | None = None
    status: int = 0
    response: Any = None

    @property
    def flags(self) -> int:
        """Message flags of the payload (interaction callbacks nest them in ``data``)."""
        body = self.json
        if not isinstance(body, dict):
            return 0
        if self.route.endswith("/callback") and isinstance(body.get("data"), dict):
            body = body["data"]
        return int(body.get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        """Whether the payload asked for an ephemeral message (flag 64)."""
        return bool(self.flags & EPHEMERAL)

    @property
    def ok(self) -> bool:
        """2xx answer."""
        return 200 <= self.status < 300

    def __repr__(self) -> str:
        return f"<Request #{self.seq} {self.method} {self.path} -> {self.status}>"


@dataclass(frozen=True)
class ComponentInfo:
    """A flattened view of one interactive component in a message payload."""

    type: int
    custom_id: str | None
    label: str | None
    style: int | None
    disabled: bool
    url: str | None
    options: tuple[dict[str, Any], ...]
    min_values: int
    max_values: int
    raw: Mapping[str, Any] = field(repr=False, compare=False)

    @property
    def is_button(self) -> bool:
        """Buttons are component type 2."""
        return self.type == 2

    @property
    def is_select(self) -> bool:
        """String, user, role, mentionable and channel selects."""
        return self.type in (3, 5, 6, 7, 8)

    @property
    def option_values(self) -> list[str]:
        """Values offered by a string select."""
        return [o["value"] for o in self.options]

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> ComponentInfo:
        """Build from a raw component dict."""
        return cls(
            type=int(data["type"]),
            custom_id=data.get("custom_id"),
            label=data.get("label") or data.get("placeholder"),
            style=data.get("style"),
            disabled=bool(data.get("disabled", False)),
            url=data.get("url"),
            options=tuple(data.get("options") or ()),
            min_values=int(data.get("min_values", 1)),
            max_values=int(data.get("max_values", 1)),
            raw=data,
        )


def _walk_components(components: Iterable[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
    """Yield every component, descending into rows, sections, containers and labels."""
    for component in components:
        yield component
        yield from _walk_components(component.get("components") or ())
        for key in ("accessory", "component"):
            child = component.get(key)
            if isinstance(child, Mapping):
                yield from _walk_components([child])


@dataclass(eq=False)
class RecordedMessage:
    """A message as Discord stores it; edits mutate it in place (``history`` keeps the old).

    ``visible_to`` is the only user who can see it (ephemeral), ``dm_user_id`` the
    recipient when it lives in a DM channel.
    """

    id: int
    channel_id: int
    guild_id: int | None
    author: FakeUser
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    files: list[RecordedFile] = field(default_factory=list)
    flags: int = 0
    visible_to: int | None = None
    dm_user_id: int | None = None
    interaction_id: int | None = None
    application_id: int | None = None
    message_reference: dict[str, Any] | None = None
    deleted: bool = False
    pinned: bool = False
    reactions: list[str] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    created_at: str = field(default_factory=_iso)
    edited_at: str | None = None

    @property
    def ephemeral(self) -> bool:
        """Only ``visible_to`` can see this message."""
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """A deferred response still showing "Bot is thinking..."."""
        return bool(self.flags & LOADING)

    @property
    def edited(self) -> bool:
        """Whether the message was edited at least once."""
        return bool(self.history)

    @property
    def embed(self) -> dict[str, Any] | None:
        """The first embed, the common single-embed case."""
        return self.embeds[0] if self.embeds else None

    @property
    def embed_objects(self) -> list[discord.Embed]:
        """Embeds rebuilt as ``discord.Embed`` for attribute-style assertions."""
        return [discord.Embed.from_dict(e) for e in self.embeds]

    @property
    def text(self) -> str:
        """Content plus every embed/text-display string: handy for ``in`` assertions."""
        parts = [self.content or ""]
        for embed in self.embeds:
            for key in ("title", "description"):
                if embed.get(key):
                    parts.append(str(embed[key]))
            for fld in embed.get("fields") or ():
                parts.extend([str(fld.get("name", "")), str(fld.get("value", ""))])
            for key in ("footer", "author"):
                sub = embed.get(key) or {}
                if sub.get("text") or sub.get("name"):
                    parts.append(str(sub.get("text") or sub.get("name")))
        for component in _walk_components(self.components):
            if component.get("type") == 10 and component.get("content"):
                parts.append(str(component["content"]))
        return "\n".join(p for p in parts if p)

    @property
    def all_components(self) -> list[ComponentInfo]:
        """Every button and select anywhere in the component tree."""
        return [
            ComponentInfo.from_payload(c)
            for c in _walk_components(self.components)
            if c.get("type") in (2, 3, 5, 6, 7, 8)
        ]

    @property
    def buttons(self) -> list[ComponentInfo]:
        """Buttons in display order."""
        return [c for c in self.all_components if c.is_button]

    @property
    def selects(self) -> list[ComponentInfo]:
        """Select menus in display order."""
        return [c for c in self.all_components if c.is_select]

    @property
    def custom_ids(self) -> list[str]:
        """custom_ids of every interactive component."""
        return [c.custom_id for c in self.all_components if c.custom_id]

    def component(self, custom_id: str | None = None, *, label: str | None = None) -> ComponentInfo:
        """Find one component by custom_id or label; fails loudly with what exists."""
        for comp in self.all_components:
            if custom_id is not None and comp.custom_id == custom_id:
                return comp
            if custom_id is None and label is not None and comp.label == label:
                return comp
        known = [(c.custom_id, c.label) for c in self.all_components]
        raise SchemaViolation(
            f"message {self.id} has no component custom_id={custom_id!r} label={label!r}; it has {known}"
        )

    def visible_for(self, user_id: int) -> bool:
        """Whether ``user_id`` can see this message in their client."""
        if self.deleted:
            return False
        if self.visible_to is not None and self.visible_to != user_id:
            return False
        return self.dm_user_id is None or self.dm_user_id == user_id

    def snapshot(self) -> dict[str, Any]:
        """The editable state, stored in ``history`` before each edit."""
        return {
            "content": self.content,
            "embeds": copy.deepcopy(self.embeds),
            "components": copy.deepcopy(self.components),
            "files": list(self.files),
            "flags": self.flags,
        }

    def payload(self) -> dict[str, Any]:
        """The message object Discord returns/sends for this message."""
        payload: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "type": 20 if self.interaction_id else (19 if self.message_reference else 0),
            "content": self.content or "",
            "author": self.author.user_payload(),
            "embeds": copy.deepcopy(self.embeds),
            "components": copy.deepcopy(self.components),
            "attachments": [f.payload() for f in self.files],
            "flags": self.flags,
            "timestamp": self.created_at,
            "edited_timestamp": self.edited_at,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "pinned": self.pinned,
        }
        if self.guild_id is not None:
            payload["guild_id"] = str(self.guild_id)
        if self.application_id is not None:
            payload["application_id"] = str(self.application_id)
            payload["webhook_id"] = str(self.application_id)
        if self.message_reference is not None:
            payload["message_reference"] = copy.deepcopy(self.message_reference)
        return payload

    def __repr__(self) -> str:
        vis = f" ephemeral->{self.visible_to}" if self.ephemeral else ""
        return f"<RecordedMessage {self.id} ch={self.channel_id}{vis} {self.text[:60]!r}>"


@dataclass(eq=False)
class InteractionResult:
    """Everything observable about one simulated interaction.

    ``kind`` is the initial response (``message``, ``deferred``, ``deferred_update``,
    ``update``, ``autocomplete``, ``modal``) or ``None`` if the bot never answered.
    ``message`` is the original response message - for ``update``/``deferred_update``
    that is the clicked message - and reflects later edits. ``requests`` and
    ``messages`` hold everything recorded while this interaction was being handled.
    """

    interaction_id: int
    token: str
    type: int
    user: FakeUser
    channel: FakeChannel
    payload: dict[str, Any] = field(repr=False)
    response_type: int | None = None
    callback: Request | None = field(default=None, repr=False)
    message: RecordedMessage | None = None
    choices: list[dict[str, Any]] | None = None
    modal: dict[str, Any] | None = None
    followups: list[RecordedMessage] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list, repr=False)
    messages: list[RecordedMessage] = field(default_factory=list, repr=False)
    errors: list[BaseException] = field(default_factory=list)

    @property
    def kind(self) -> str | None:
        """Readable name of the initial response type."""
        return (
            None
            if self.response_type is None
            else RESPONSE_KINDS.get(self.response_type, "unknown")
        )

    @property
    def responded(self) -> bool:
        """Whether the interaction was acknowledged at all."""
        return self.response_type is not None

    @property
    def deferred(self) -> bool:
        """Deferred with or without "thinking"."""
        return self.response_type in (5, 6)

    @property
    def ephemeral(self) -> bool:
        """Whether the original response is ephemeral."""
        return self.message is not None and self.message.ephemeral

    @property
    def content(self) -> str:
        """Current content of the original response ("" if none)."""
        return self.message.content if self.message else ""

    @property
    def text(self) -> str:
        """Content plus embed text of the original response."""
        return self.message.text if self.message else ""

    @property
    def embeds(self) -> list[dict[str, Any]]:
        """Embeds of the original response."""
        return self.message.embeds if self.message else []

    @property
    def embed(self) -> dict[str, Any] | None:
        """First embed of the original response."""
        return self.message.embed if self.message else None

    @property
    def components(self) -> list[dict[str, Any]]:
        """Raw components of the original response."""
        return self.message.components if self.message else []

    @property
    def buttons(self) -> list[ComponentInfo]:
        """Buttons of the original response."""
        return self.message.buttons if self.message else []

    @property
    def files(self) -> list[RecordedFile]:
        """Attachments of the original response, with bytes."""
        return self.message.files if self.message else []

    @property
    def choice_names(self) -> list[str]:
        """Names of the autocomplete choices offered."""
        return [c["name"] for c in self.choices or ()]

    @property
    def choice_values(self) -> list[Any]:
        """Values of the autocomplete choices offered."""
        return [c["value"] for c in self.choices or ()]

    @property
    def last(self) -> RecordedMessage | None:
        """The most recent message produced by this interaction (followup or original)."""
        if self.followups:
            return self.followups[-1]
        return self.message

    def replies(self) -> list[RecordedMessage]:
        """Original response plus followups, without duplicates, in order."""
        seen: list[RecordedMessage] = []
        for msg in ([self.message] if self.message else []) + self.followups:
            if msg not in seen:
                seen.append(msg)
        return seen


# --------------------------------------------------------------------------- payload validation


def _validate_message_payload(
    body: Mapping[str, Any], files: Sequence[RecordedFile], *, creating: bool
) -> dict[str, Any]:
    """Discord's server-side limits; returns an ``errors`` dict (empty when valid).

    Real Discord answers 400 / 50035 for these, so a bug like a 120-char custom_id or
    a 2001-char content shows up in tests instead of in production.
    """
    errors: dict[str, Any] = {}

    def err(key: str, message: str) -> None:
        errors[key] = {"_errors": [{"code": "BASE_TYPE_INVALID", "message": message}]}

    flags = int(body.get("flags") or 0)
    v2 = bool(flags & COMPONENTS_V2)
    content = body.get("content")
    embeds = body.get("embeds") or []
    components = body.get("components") or []
    if content is not None and len(str(content)) > 2000:
        err("content", "Must be 2000 or fewer in length.")
    if v2 and (content or embeds):
        err("content", "Cannot send content or embeds with components v2.")
    if len(embeds) > 10:
        err("embeds", "Must be 10 or fewer in length.")
    total = 0
    for i, embed in enumerate(embeds):
        limits = {"title": 256, "description": 4096}
        for key, limit in limits.items():
            value = embed.get(key) or ""
            total += len(value)
            if len(value) > limit:
                err(f"embeds.{i}.{key}", f"Must be {limit} or fewer in length.")
        fields_ = embed.get("fields") or []
        if len(fields_) > 25:
            err(f"embeds.{i}.fields", "Must be 25 or fewer in length.")
        for j, fld in enumerate(fields_):
            name, value = str(fld.get("name", "")), str(fld.get("value", ""))
            total += len(name) + len(value)
            if not name or len(name) > 256:
                err(f"embeds.{i}.fields.{j}.name", "Must be between 1 and 256 in length.")
            if not value or len(value) > 1024:
                err(f"embeds.{i}.fields.{j}.value", "Must be between 1 and 1024 in length.")
        footer = (embed.get("footer") or {}).get("text") or ""
        author = (embed.get("author") or {}).get("name") or ""
        total += len(footer) + len(author)
        if len(footer) > 2048:
            err(f"embeds.{i}.footer.text", "Must be 2048 or fewer in length.")
        if len(author) > 256:
            err(f"embeds.{i}.author.name", "Must be 256 or fewer in length.")
    if total > 6000:
        err("embeds", "Embed size exceeds maximum size of 6000")
    if len(files) > 10:
        err("files", "Must be 10 or fewer in length.")

    if not v2:
        if len(components) > 5:
            err("components", "Must be 5 or fewer in length.")
        for i, row in enumerate(components):
            children = row.get("components") or []
            if row.get("type") != 1:
                err(f"components.{i}", "Top-level components must be action rows.")
                continue
            if not children or len(children) > 5:
                err(f"components.{i}.components", "Must be between 1 and 5 in length.")
            if any(c.get("type") != 2 for c in children) and len(children) > 1:
                err(f"components.{i}.components", "A select menu must be alone in its row.")
    elif sum(1 for _ in _walk_components(components)) > 40:
        err("components", "Must be 40 or fewer in total.")

    seen: set[str] = set()
    for comp in _walk_components(components):
        ctype = comp.get("type")
        custom_id = comp.get("custom_id")
        if ctype == 2 and comp.get("style") == 5:
            if not comp.get("url") or custom_id:
                err("components", "Link buttons need a url and no custom_id.")
        elif ctype in (2, 3, 4, 5, 6, 7, 8):
            if ctype == 2 and comp.get("style") == 6:
                continue  # premium buttons use sku_id
            if not custom_id or len(custom_id) > 100:
                err("components.custom_id", f"custom_id must be 1-100 characters: {custom_id!r}")
            elif custom_id in seen:
                err(
                    "components.custom_id",
                    f"Component custom id cannot be duplicated: {custom_id!r}",
                )
            else:
                seen.add(custom_id)
        if ctype == 2 and len(comp.get("label") or "") > 80:
            err("components.label", "Button label must be 80 or fewer in length.")
        if ctype == 3:
            options = comp.get("options") or []
            if not 1 <= len(options) <= 25:
                err("components.options", "Select menus need 1-25 options.")
            for opt in options:
                if (
                    not 1 <= len(str(opt.get("label", ""))) <= 100
                    or not 1 <= len(str(opt.get("value", ""))) <= 100
                ):
                    err("components.options", "Select option label/value must be 1-100 characters.")
        if ctype in (3, 5, 6, 7, 8):
            lo, hi = int(comp.get("min_values", 1)), int(comp.get("max_values", 1))
            if not (0 <= lo <= hi <= 25):
                err(
                    "components.min_values",
                    "min_values/max_values must satisfy 0 <= min <= max <= 25.",
                )

    if creating and not errors:
        has_body = (
            bool(content)
            or embeds
            or components
            or files
            or body.get("poll")
            or body.get("sticker_ids")
        )
        if not has_body:
            errors["_empty"] = True
    return errors


def _raise_for_payload(errors: dict[str, Any]) -> None:
    if not errors:
        return
    if errors.pop("_empty", None) and not errors:
        raise HTTPError(400, "Cannot send an empty message", code=50006)
    raise HTTPError(400, "Invalid Form Body", code=50035, errors=errors)


# --------------------------------------------------------------------------- server model


@dataclass(eq=False)
class _Interaction:
    """Server-side bookkeeping for one interaction token."""

    result: InteractionResult
    created: float
    component_message_id: int | None = None
    original_id: int | None = None
    first_followup_pending: bool = False


Handler = Callable[["Request"], Any]


@dataclass(eq=False)
class FailureRule:
    """An injected HTTP failure; ``hits`` counts how often it fired."""

    method: str
    route: str
    status: int
    times: int | None = 1
    code: int = 0
    message: str = ""
    retry_after: float = 0.05
    when: Callable[[Request], bool] | None = None
    hits: int = 0

    def matches(self, request: Request) -> bool:
        """Method, route template / concrete path glob, and optional predicate."""
        if self.times is not None and self.hits >= self.times:
            return False
        if self.method != "*" and self.method.upper() != request.method:
            return False
        if self.route not in (request.route, request.path) and not fnmatch.fnmatchcase(
            request.path, self.route
        ):
            return False
        return self.when is None or self.when(request)

    def error(self) -> HTTPError:
        """The error body Discord would send."""
        retry = self.retry_after if self.status == 429 else None
        return HTTPError(self.status, self.message, code=self.code, retry_after=retry)


@functools.lru_cache(maxsize=512)
def _template_regex(template: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}]+\})", template)
    pattern = "".join(f"(?P<{p[1:-1]}>[^/]+)" if p.startswith("{") else re.escape(p) for p in parts)
    return re.compile(pattern + r"\Z")


class FakeDiscord:
    """In-memory Discord: users, one guild, channels, messages and interaction tokens.

    It answers REST calls with the payload shapes discord.py parses, enforces the
    handful of server rules bots commonly trip over (empty messages, 2000-char
    content, component limits, ephemeral messages not being reachable through channel
    routes, double acknowledgement, first followup after a "thinking" defer editing the
    loading message, closed DMs), and mirrors channel changes into the gateway like
    Discord does so discord.py's cache stays coherent.
    """

    def __init__(
        self,
        *,
        application_id: int | None,
        guild_name: str,
        bot_permissions: int,
        everyone_permissions: int,
    ) -> None:
        self.snowflake = _Snowflakes()
        self.application_id = application_id or self.snowflake()
        self.bot_user = FakeUser(
            self.snowflake(), "Harness Bot", bot=True, permissions=bot_permissions
        )
        self.guild_id = self.snowflake()
        self.guild_name = guild_name
        self.owner = FakeUser(
            self.snowflake(), "guild-owner", permissions=discord.Permissions.all().value
        )
        self.everyone_permissions = everyone_permissions
        self.users: dict[int, FakeUser] = {}
        self.roles: dict[int, FakeRole] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.dm_channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, RecordedMessage] = {}
        self.interactions: dict[int, _Interaction] = {}
        self._by_token: dict[str, _Interaction] = {}  # index of ``interactions`` by token
        self.cdn: dict[str, bytes] = {}
        self.commands: dict[int | None, list[dict[str, Any]]] = {}
        self.command_ids: dict[tuple[str, int | None, int], int] = {}
        self.last_modal: dict[str, Any] | None = None
        self.gateway: Callable[[str, dict[str, Any]], None] | None = None
        self.clock: Callable[[], float] = lambda: 0.0
        self.response_deadline: float | None = 3.0
        self.custom_routes: dict[tuple[str, str], Handler] = {}
        self._routes: dict[tuple[str, str], Handler] = self._builtin_routes()
        self._add_user(self.bot_user, role_name="Harness Bot")
        self._add_user(self.owner, role_name="Owner")
        self.default_channel = self.add_channel("general")

    # ----- entities

    def _add_user(self, user: FakeUser, *, role_name: str | None = None) -> FakeUser:
        self.users[user.id] = user
        extra = user.permissions & ~self.everyone_permissions
        if user.in_guild and extra and not user.role_ids:
            role = FakeRole(
                self.snowflake(),
                role_name or f"{user.name}-perms",
                extra,
                position=len(self.roles) + 1,
            )
            self.roles[role.id] = role
            user.role_ids.append(role.id)
        return user

    def add_user(
        self, name: str, *, permissions: int, dms_open: bool, in_guild: bool, bot: bool, locale: str
    ) -> FakeUser:
        """Create a user/member (see :meth:`Harness.user`)."""
        return self._add_user(
            FakeUser(
                self.snowflake(),
                name,
                global_name=name.title(),
                bot=bot,
                dms_open=dms_open,
                in_guild=in_guild,
                permissions=permissions | self.everyone_permissions if in_guild else 0,
                locale=locale,
            )
        )

    def add_role(self, name: str, permissions: int) -> FakeRole:
        """Create a guild role."""
        role = FakeRole(self.snowflake(), name, permissions, position=len(self.roles) + 1)
        self.roles[role.id] = role
        return role

    def add_channel(
        self, name: str, *, type: int = 0, parent_id: int | None = None, owner_id: int | None = None
    ) -> FakeChannel:
        """Create a guild channel or thread."""
        channel = FakeChannel(
            self.snowflake(),
            name,
            type=type,
            guild_id=self.guild_id,
            parent_id=parent_id,
            position=len(self.channels),
            owner_id=owner_id,
        )
        self.channels[channel.id] = channel
        return channel

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The (single) DM channel between the bot and ``user``."""
        channel = self.dm_channels.get(user.id)
        if channel is None:
            channel = FakeChannel(self.snowflake(), f"dm-{user.name}", type=1, recipient=user)
            self.dm_channels[user.id] = channel
            self.channels[channel.id] = channel
        return channel

    def permissions_of(self, user: FakeUser) -> int:
        """Guild-level permissions; administrators get everything like on Discord."""
        if user.id == self.owner.id:
            return discord.Permissions.all().value
        value = self.everyone_permissions | user.permissions
        for role_id in user.role_ids:
            role = self.roles.get(role_id)
            if role is not None:
                value |= role.permissions
        if value & discord.Permissions(administrator=True).value:
            return discord.Permissions.all().value
        return value

    def guild_payload(self) -> dict[str, Any]:
        """The GUILD_CREATE-shaped guild object delivered in READY."""
        everyone = FakeRole(self.guild_id, "@everyone", self.everyone_permissions, position=0)
        members = [u.member_payload() for u in self.users.values() if u.in_guild]
        return {
            "id": str(self.guild_id),
            "name": self.guild_name,
            "owner_id": str(self.owner.id),
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "features": [],
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "premium_tier": 0,
            "preferred_locale": "en-US",
            "system_channel_id": str(self.default_channel.id),
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "roles": [everyone.payload()] + [r.payload() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "channels": [
                c.payload() for c in self.channels.values() if not c.is_dm and not c.is_thread
            ],
            "threads": [c.payload() for c in self.channels.values() if c.is_thread],
            "members": members,
            "member_count": len(members),
            "large": False,
            "unavailable": False,
            "voice_states": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "joined_at": _iso(),
        }

    def application_payload(self) -> dict[str, Any]:
        """GET /oauth2/applications/@me."""
        return {
            "id": str(self.application_id),
            "name": "Harness App",
            "icon": None,
            "description": "",
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": self.owner.user_payload(),
            "verify_key": "0" * 64,
            "team": None,
            "flags": 0,
            "interactions_endpoint_url": None,
            "bot": self.bot_user.user_payload(),
        }

    # ----- messages

    def _store_files(self, channel_id: int, files: Sequence[RecordedFile]) -> list[RecordedFile]:
        stored = []
        for f in files:
            fid = self.snowflake()
            url = f"{_CDN}/attachments/{channel_id}/{fid}/{f.filename}"
            content_type = f.content_type or mimetypes.guess_type(f.filename)[0]
            copy_ = RecordedFile(f.filename, f.data, f.description, fid, url, content_type)
            self.cdn[url] = f.data
            stored.append(copy_)
        return stored

    def _apply_attachments(
        self, msg: RecordedMessage, body: Mapping[str, Any], files: Sequence[RecordedFile]
    ) -> None:
        """Resolve the ``attachments`` array: ids < len(files) are new uploads, others kept."""
        new = self._store_files(msg.channel_id, files)
        spec = body.get("attachments")
        if spec is None:
            msg.files = msg.files + new
            return
        existing = {f.id: f for f in msg.files}
        result: list[RecordedFile] = []
        for item in spec:
            raw_id = int(item.get("id"))
            if raw_id < len(new) and raw_id not in existing:
                uploaded = new[raw_id]
                if item.get("description") is not None:
                    uploaded.description = item["description"]
                result.append(uploaded)
            elif raw_id in existing:
                result.append(existing[raw_id])
        msg.files = result

    def create_message(
        self,
        channel: FakeChannel,
        body: Mapping[str, Any],
        files: Sequence[RecordedFile],
        *,
        interaction: _Interaction | None = None,
        flags: int | None = None,
        validate: bool = True,
    ) -> RecordedMessage:
        """Validate and store a new message (channel post, response or followup)."""
        if validate:
            _raise_for_payload(_validate_message_payload(body, files, creating=True))
        msg_flags = int(body.get("flags") or 0) if flags is None else flags
        msg = RecordedMessage(
            id=self.snowflake(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=self.bot_user,
            content=str(body.get("content") or ""),
            embeds=copy.deepcopy(list(body.get("embeds") or [])),
            components=copy.deepcopy(list(body.get("components") or [])),
            flags=msg_flags,
            dm_user_id=channel.recipient.id if channel.recipient else None,
            message_reference=copy.deepcopy(body.get("message_reference")),
        )
        if interaction is not None:
            msg.interaction_id = interaction.result.interaction_id
            msg.application_id = self.application_id
            if msg.ephemeral:
                msg.visible_to = interaction.result.user.id
        self._apply_attachments(msg, body, files)
        self.messages[msg.id] = msg
        return msg

    def edit_message(
        self, msg: RecordedMessage, body: Mapping[str, Any], files: Sequence[RecordedFile]
    ) -> RecordedMessage:
        """Apply a PATCH: only present keys change; ``None`` content/embeds clear."""
        merged = {
            "content": body.get("content", msg.content),
            "embeds": body.get("embeds", msg.embeds),
            "components": body.get("components", msg.components),
            "flags": msg.flags | (int(body.get("flags") or 0) & COMPONENTS_V2),
        }
        _raise_for_payload(_validate_message_payload(merged, files, creating=False))
        msg.history.append(msg.snapshot())
        if "content" in body:
            msg.content = str(body["content"] or "")
        if "embeds" in body:
            msg.embeds = copy.deepcopy(list(body["embeds"] or []))
        if "components" in body:
            msg.components = copy.deepcopy(list(body["components"] or []))
        if "flags" in body and body["flags"] is not None:
            keep = msg.flags & (EPHEMERAL | COMPONENTS_V2)
            msg.flags = keep | (int(body["flags"]) & ~(EPHEMERAL | LOADING))
        msg.flags &= ~LOADING
        if "attachments" in body or files:
            self._apply_attachments(msg, body, files)
        msg.edited_at = _iso()
        return msg

    def adopt_message(self, msg: RecordedMessage) -> RecordedMessage:
        """Make a message recorded by another harness (e.g. before a "restart") known here."""
        if msg.id in self.messages:
            return self.messages[msg.id]
        clone = copy.deepcopy(msg)
        if clone.channel_id not in self.channels:
            clone.channel_id = self.default_channel.id
            clone.guild_id = self.guild_id
        clone.author = self.bot_user
        self.messages[clone.id] = clone
        return clone

    # ----- routing

    def route(self, method: str, template: str, handler: Handler) -> None:
        """Register/override a route handler (``handler(request) -> body``; may be async)."""
        self.custom_routes[(method.upper(), template)] = handler

    async def dispatch(self, request: Request) -> Any:
        """Answer a request or raise :class:`HTTPError`; unknown routes raise HarnessError."""
        key = (request.method, request.route)
        handler = self.custom_routes.get(key) or self._routes.get(key)
        if handler is None:
            raise HarnessError(
                f"no fake Discord handler for {request.method} {request.route} ({request.path}); "
                "register one with h.http.route(method, template, handler)"
            )
        result = handler(request)
        if inspect.isawaitable(result):
            result = await result
        return copy.deepcopy(result)

    def _builtin_routes(self) -> dict[tuple[str, str], Handler]:
        r: dict[tuple[str, str], Handler] = {
            ("GET", "/users/@me"): lambda req: self.bot_user.user_payload(),
            ("GET", "/oauth2/applications/@me"): lambda req: self.application_payload(),
            ("GET", "/applications/@me"): lambda req: self.application_payload(),
            ("PUT", "/applications/{application_id}/commands"): self._sync_commands,
            (
                "PUT",
                "/applications/{application_id}/guilds/{guild_id}/commands",
            ): self._sync_commands,
            ("GET", "/applications/{application_id}/commands"): lambda req: self.commands.get(
                None, []
            ),
            ("GET", "/applications/{application_id}/guilds/{guild_id}/commands"): lambda req: (
                self.commands.get(int(req.params["guild_id"]), [])
            ),
            (
                "POST",
                "/interactions/{webhook_id}/{webhook_token}/callback",
            ): self._interaction_callback,
            ("POST", "/webhooks/{webhook_id}/{webhook_token}"): self._followup_create,
            (
                "GET",
                "/webhooks/{webhook_id}/{webhook_token}/messages/@original",
            ): self._webhook_message,
            (
                "PATCH",
                "/webhooks/{webhook_id}/{webhook_token}/messages/@original",
            ): self._webhook_message,
            (
                "DELETE",
                "/webhooks/{webhook_id}/{webhook_token}/messages/@original",
            ): self._webhook_message,
            (
                "GET",
                "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}",
            ): self._webhook_message,
            (
                "PATCH",
                "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}",
            ): self._webhook_message,
            (
                "DELETE",
                "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}",
            ): self._webhook_message,
            ("POST", "/channels/{channel_id}/messages"): self._channel_message_create,
            ("GET", "/channels/{channel_id}/messages"): self._channel_history,
            ("GET", "/channels/{channel_id}/messages/{message_id}"): self._channel_message,
            ("PATCH", "/channels/{channel_id}/messages/{message_id}"): self._channel_message,
            ("DELETE", "/channels/{channel_id}/messages/{message_id}"): self._channel_message,
            ("POST", "/channels/{channel_id}/messages/bulk-delete"): self._bulk_delete,
            (
                "PUT",
                "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
            ): self._reaction,
            (
                "DELETE",
                "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
            ): self._reaction,
            ("PUT", "/channels/{channel_id}/pins/{message_id}"): self._pin,
            ("DELETE", "/channels/{channel_id}/pins/{message_id}"): self._pin,
            ("PUT", "/channels/{channel_id}/messages/pins/{message_id}"): self._pin,
            ("DELETE", "/channels/{channel_id}/messages/pins/{message_id}"): self._pin,
            ("POST", "/channels/{channel_id}/typing"): lambda req: None,
            ("POST", "/users/@me/channels"): self._create_dm,
            ("GET", "/users/{user_id}"): self._get_user,
            ("GET", "/guilds/{guild_id}/members/{user_id}"): self._get_member,
            ("GET", "/channels/{channel_id}"): self._get_channel,
            ("PATCH", "/channels/{channel_id}"): self._edit_channel,
            ("DELETE", "/channels/{channel_id}"): self._delete_channel,
            ("POST", "/guilds/{guild_id}/channels"): self._create_guild_channel,
            ("PUT", "/channels/{channel_id}/permissions/{target}"): self._overwrite,
            ("DELETE", "/channels/{channel_id}/permissions/{target}"): self._overwrite,
            ("POST", "/channels/{channel_id}/threads"): self._create_thread,
            ("POST", "/channels/{channel_id}/messages/{message_id}/threads"): self._create_thread,
            ("PUT", "/channels/{channel_id}/thread-members/{user_id}"): lambda req: None,
            ("PUT", "/channels/{channel_id}/thread-members/@me"): lambda req: None,
            ("DELETE", "/channels/{channel_id}/thread-members/{user_id}"): lambda req: None,
        }
        return r

    # ----- helpers for handlers

    def _channel(self, request: Request) -> FakeChannel:
        channel = self.channels.get(int(request.params["channel_id"]))
        if channel is None:
            raise HTTPError(404, "Unknown Channel", code=10003)
        return channel

    def _require(self, permission: str, channel: FakeChannel | None = None) -> None:
        if channel is not None and channel.is_dm:
            return
        perms = discord.Permissions(self.permissions_of(self.bot_user))
        if not getattr(perms, permission):
            raise HTTPError(403, "Missing Permissions", code=50013)

    def _interaction_for(self, request: Request) -> _Interaction:
        token = request.params.get("webhook_token", "")
        if int(
            request.params.get("webhook_id", 0)
        ) != self.application_id and not request.route.startswith("/interactions"):
            raise HTTPError(404, "Unknown Webhook", code=10015)
        rec = self._by_token.get(token)
        if rec is not None and self.interactions.get(rec.result.interaction_id) is rec:
            return rec
        for rec in self.interactions.values():  # recorded without the index
            if rec.result.token == token:
                self._by_token[token] = rec
                return rec
        raise HTTPError(404, "Unknown Webhook", code=10015)

    def _sync_commands(self, request: Request) -> list[dict[str, Any]]:
        guild_id = int(request.params["guild_id"]) if "guild_id" in request.params else None
        synced = []
        for cmd in request.json or []:
            key = (cmd["name"], guild_id, int(cmd.get("type", 1)))
            cid = self.command_ids.setdefault(key, self.snowflake())
            synced.append(
                {
                    **cmd,
                    "id": str(cid),
                    "application_id": str(self.application_id),
                    "version": str(self.snowflake()),
                    **({"guild_id": str(guild_id)} if guild_id else {}),
                }
            )
        self.commands[guild_id] = synced
        return synced

    # ----- interaction routes

    def _interaction_callback(self, request: Request) -> dict[str, Any]:
        iid = int(request.params["webhook_id"])
        rec = self.interactions.get(iid)
        if rec is None or rec.result.token != request.params["webhook_token"]:
            raise HTTPError(404, "Unknown interaction", code=10062)
        res = rec.result
        if res.response_type is not None:
            raise HTTPError(400, "Interaction has already been acknowledged.", code=40060)
        if (
            self.response_deadline is not None
            and self.clock() - rec.created > self.response_deadline
        ):
            raise HTTPError(404, "Unknown interaction", code=10062)
        body = request.json or {}
        rtype = int(body.get("type", 0))
        data = body.get("data") or {}
        itype = res.type
        allowed = {
            1: {1},
            2: {4, 5, 9, 12},
            3: {4, 5, 6, 7, 9, 12},
            4: {8},
            5: {4, 5, 6, 7, 12},
        }.get(itype, set())
        if rtype not in allowed:
            raise HTTPError(
                400,
                f"Interaction response type {rtype} is invalid for interaction type {itype}",
                code=50035,
            )

        info: dict[str, Any] = {"id": str(iid), "type": itype}
        answer: dict[str, Any] = {"interaction": info}
        if rtype == 4:
            msg = self.create_message(res.channel, data, request.files, interaction=rec)
            rec.original_id = msg.id
            res.message = msg
            info.update(
                response_message_id=str(msg.id),
                response_message_loading=False,
                response_message_ephemeral=msg.ephemeral,
            )
            answer["resource"] = {"type": 4, "message": msg.payload()}
        elif rtype == 5:
            flags = LOADING | (int(data.get("flags") or 0) & EPHEMERAL)
            msg = self.create_message(
                res.channel, {}, [], interaction=rec, flags=flags, validate=False
            )
            rec.original_id = msg.id
            rec.first_followup_pending = True
            res.message = msg
            info.update(
                response_message_id=str(msg.id),
                response_message_loading=True,
                response_message_ephemeral=msg.ephemeral,
            )
            answer["resource"] = {"type": 5, "message": msg.payload()}
        elif rtype in (6, 7):
            target = self.messages.get(rec.component_message_id or 0)
            if target is None:
                raise HTTPError(400, "This interaction has no message to update", code=50035)
            if rtype == 7:
                self.edit_message(target, data, request.files)
                answer["resource"] = {"type": 7, "message": target.payload()}
            rec.original_id = target.id
            res.message = target
            info.update(
                response_message_id=str(target.id),
                response_message_loading=False,
                response_message_ephemeral=target.ephemeral,
            )
        elif rtype == 8:
            choices = list(data.get("choices") or [])
            problems = [c for c in choices if not 1 <= len(str(c.get("name", ""))) <= 100]
            problems += [
                c for c in choices if isinstance(c.get("value"), str) and len(c["value"]) > 100
            ]
            if len(choices) > 25 or problems:
                raise HTTPError(
                    400,
                    "Invalid Form Body",
                    code=50035,
                    errors={"data.choices": str(problems or len(choices))},
                )
            res.choices = choices
        elif rtype == 9:
            if not data.get("custom_id") or not data.get("title"):
                raise HTTPError(
                    400,
                    "Invalid Form Body",
                    code=50035,
                    errors={"data": "modal needs custom_id and title"},
                )
            res.modal = copy.deepcopy(data)
            self.last_modal = res.modal
        res.response_type = rtype
        res.callback = request
        return answer

    def _followup_create(self, request: Request) -> dict[str, Any] | None:
        rec = self._interaction_for(request)
        res = rec.result
        if res.response_type is None:
            raise HTTPError(404, "Unknown Webhook", code=10015)
        body = request.json or {}
        if rec.first_followup_pending and rec.original_id in self.messages:
            # Discord: the first followup after a "thinking" defer replaces the loading
            # message and keeps the defer's ephemerality, whatever the followup asks for.
            rec.first_followup_pending = False
            _raise_for_payload(_validate_message_payload(body, request.files, creating=True))
            msg = self.edit_message(
                self.messages[rec.original_id],
                {k: v for k, v in body.items() if k != "flags"},
                request.files,
            )
        else:
            msg = self.create_message(res.channel, body, request.files, interaction=rec)
        res.followups.append(msg)
        if str(request.query.get("wait", "1")) in ("0", "False", "false"):
            return None
        return msg.payload()

    def _webhook_message(self, request: Request) -> dict[str, Any] | None:
        rec = self._interaction_for(request)
        raw_id = request.params.get("message_id")
        if raw_id is None:
            mid = rec.original_id
        else:
            mid = int(raw_id)
            allowed = {rec.original_id, *(m.id for m in rec.result.followups)}
            if mid not in allowed:
                raise HTTPError(404, "Unknown Message", code=10008)
        msg = self.messages.get(mid or 0)
        if msg is None or msg.deleted:
            raise HTTPError(404, "Unknown Message", code=10008)
        if request.method == "DELETE":
            msg.deleted = True
            return None
        if request.method == "PATCH":
            self.edit_message(msg, request.json or {}, request.files)
            if mid == rec.original_id:
                rec.first_followup_pending = False
        return msg.payload()

    # ----- channel routes

    def _channel_message_create(self, request: Request) -> dict[str, Any]:
        channel = self._channel(request)
        if channel.is_dm:
            assert channel.recipient is not None
            if not channel.recipient.dms_open or channel.recipient.bot:
                raise HTTPError(403, "Cannot send messages to this user", code=50007)
        else:
            self._require("send_messages", channel)
        body = dict(request.json or {})
        if int(body.get("flags") or 0) & EPHEMERAL:
            body["flags"] = int(body["flags"]) & ~EPHEMERAL  # only interactions can be ephemeral
        return self.create_message(channel, body, request.files).payload()

    def _find_channel_message(self, request: Request) -> RecordedMessage:
        channel = self._channel(request)
        msg = self.messages.get(int(request.params["message_id"]))
        if msg is None or msg.deleted or msg.channel_id != channel.id or msg.ephemeral:
            # Ephemeral messages are not reachable through channel routes.
            raise HTTPError(404, "Unknown Message", code=10008)
        return msg

    def _channel_message(self, request: Request) -> dict[str, Any] | None:
        msg = self._find_channel_message(request)
        if request.method == "DELETE":
            msg.deleted = True
            return None
        if request.method == "PATCH":
            self.edit_message(msg, request.json or {}, request.files)
        return msg.payload()

    def _channel_history(self, request: Request) -> list[dict[str, Any]]:
        channel = self._channel(request)
        limit = int(request.query.get("limit", 50))
        before = int(request.query.get("before", 0) or 0)
        after = int(request.query.get("after", 0) or 0)
        found = [
            m
            for m in self.messages.values()
            if m.channel_id == channel.id
            and not m.deleted
            and not m.ephemeral
            and (not before or m.id < before)
            and (not after or m.id > after)
        ]
        found.sort(key=lambda m: m.id, reverse=True)
        return [m.payload() for m in found[:limit]]

    def _bulk_delete(self, request: Request) -> None:
        for raw in (request.json or {}).get("messages", []):
            msg = self.messages.get(int(raw))
            if msg is not None:
                msg.deleted = True

    def _reaction(self, request: Request) -> None:
        msg = self._find_channel_message(request)
        emoji = unquote(request.params["emoji"])
        if request.method == "PUT" and emoji not in msg.reactions:
            msg.reactions.append(emoji)
        elif request.method == "DELETE" and emoji in msg.reactions:
            msg.reactions.remove(emoji)

    def _pin(self, request: Request) -> None:
        msg = self._find_channel_message(request)
        msg.pinned = request.method == "PUT"

    def _create_dm(self, request: Request) -> dict[str, Any]:
        user = self.users.get(int((request.json or {}).get("recipient_id", 0)))
        if user is None:
            raise HTTPError(400, "Invalid Recipient(s)", code=50033)
        return self.dm_channel(user).payload()

    def _get_user(self, request: Request) -> dict[str, Any]:
        user = self.users.get(int(request.params["user_id"]))
        if user is None:
            raise HTTPError(404, "Unknown User", code=10013)
        return user.user_payload()

    def _get_member(self, request: Request) -> dict[str, Any]:
        user = self.users.get(int(request.params["user_id"]))
        if user is None or not user.in_guild or int(request.params["guild_id"]) != self.guild_id:
            raise HTTPError(404, "Unknown Member", code=10007)
        return user.member_payload()

    def _get_channel(self, request: Request) -> dict[str, Any]:
        return self._channel(request).payload()

    def _emit(self, event: str, payload: dict[str, Any]) -> None:
        if self.gateway is not None:
            self.gateway(event, payload)

    def _edit_channel(self, request: Request) -> dict[str, Any]:
        channel = self._channel(request)
        self._require("manage_threads" if channel.is_thread else "manage_channels", channel)
        body = request.json or {}
        for key in ("name", "topic", "position", "nsfw"):
            if key in body:
                setattr(channel, key, body[key])
        payload = channel.payload()
        self._emit("THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE", payload)
        return payload

    def _delete_channel(self, request: Request) -> dict[str, Any]:
        channel = self._channel(request)
        self._require("manage_threads" if channel.is_thread else "manage_channels", channel)
        del self.channels[channel.id]
        payload = channel.payload()
        if channel.is_thread:
            self._emit(
                "THREAD_DELETE",
                {
                    "id": str(channel.id),
                    "guild_id": str(self.guild_id),
                    "parent_id": str(channel.parent_id),
                    "type": channel.type,
                },
            )
        else:
            self._emit("CHANNEL_DELETE", payload)
        return payload

    def _create_guild_channel(self, request: Request) -> dict[str, Any]:
        self._require("manage_channels")
        body = request.json or {}
        channel = self.add_channel(str(body.get("name", "channel")), type=int(body.get("type", 0)))
        channel.topic = body.get("topic")
        parent = body.get("parent_id")
        channel.parent_id = int(parent) if parent else None
        for ow in body.get("permission_overwrites") or []:
            channel.overwrites[int(ow["id"])] = {k: str(v) for k, v in ow.items()}
        payload = channel.payload()
        self._emit("CHANNEL_CREATE", payload)
        return payload

    def _overwrite(self, request: Request) -> None:
        channel = self._channel(request)
        self._require("manage_roles", channel)
        target = int(request.params["target"])
        if request.method == "PUT":
            body = request.json or {}
            channel.overwrites[target] = {
                "id": str(target),
                "type": int(body.get("type", 0)),
                "allow": str(body.get("allow", "0")),
                "deny": str(body.get("deny", "0")),
            }
        else:
            channel.overwrites.pop(target, None)
        self._emit("CHANNEL_UPDATE", channel.payload())

    def _create_thread(self, request: Request) -> dict[str, Any]:
        parent = self._channel(request)
        body = request.json or {}
        thread_type = int(body.get("type", 11))
        self._require(
            "create_private_threads" if thread_type == 12 else "create_public_threads", parent
        )
        if "message_id" in request.params:
            self._find_channel_message(request)
            thread_type = 11
        thread = self.add_channel(
            str(body.get("name", "thread")),
            type=thread_type,
            parent_id=parent.id,
            owner_id=self.bot_user.id,
        )
        payload = thread.payload()
        self._emit("THREAD_CREATE", {**payload, "newly_created": True})
        return payload


# --------------------------------------------------------------------------- HTTP edge


def _read_file(file: discord.File) -> bytes:
    """Capture an upload's bytes without disturbing discord.py's own reads."""
    fp = file.fp
    position = fp.tell()
    file.reset(seek=True)
    data = fp.read()
    fp.seek(position)
    return data


def _recorded_files(files: Sequence[discord.File] | None) -> list[RecordedFile]:
    return [RecordedFile(f.filename, _read_file(f), f.description) for f in files or ()]


def _payload_from_multipart(form: Iterable[Mapping[str, Any]] | None) -> Any:
    for part in form or ():
        if part.get("name") == "payload_json":
            return json.loads(part["value"])
    return None


class RecordedHTTP:
    """The replaced network edge: records every request, injects failures, asks FakeDiscord.

    Failure emulation mirrors what discord.py's real ``request`` loops do so bot code
    sees the same outcome: 429 is retried after ``retry_after`` (up to 5 attempts, then
    ``HTTPException``; ``RateLimited`` if over ``max_ratelimit_timeout``), 5xx is
    retried (the 1-9 s backoff sleeps are skipped) and surfaces as
    ``DiscordServerError`` once retries run out, 403/404/other 4xx raise immediately.
    """

    def __init__(self, server: FakeDiscord) -> None:
        self.server = server
        self.requests: list[Request] = []
        self.failures: list[FailureRule] = []
        self.on_unhandled: Callable[[HarnessError], None] = lambda exc: None

    def fail(
        self,
        method: str,
        route: str,
        *,
        status: int,
        times: int | None = 1,
        code: int = 0,
        message: str = "",
        retry_after: float = 0.05,
        when: Callable[[Request], bool] | None = None,
    ) -> FailureRule:
        """Answer matching requests with an error.

        ``route`` is a discord.py route template (``/users/@me/channels``,
        ``/channels/{channel_id}/messages``), a concrete path, or a glob over the
        concrete path. ``times=None`` fails forever. Returns the rule (see ``hits``).
        """
        rule = FailureRule(
            method.upper() if method != "*" else "*",
            route,
            status,
            times,
            code,
            message,
            retry_after,
            when,
        )
        self.failures.append(rule)
        return rule

    def route(self, method: str, template: str, handler: Handler) -> None:
        """Add or override a fake Discord endpoint."""
        self.server.route(method, template, handler)

    def find(self, method: str | None = None, route: str | None = None) -> list[Request]:
        """Requests filtered by method and route template / path / glob."""
        return [
            r
            for r in self.requests
            if (method is None or r.method == method.upper())
            and (route is None or route in (r.route, r.path) or fnmatch.fnmatchcase(r.path, route))
        ]

    def last(self, method: str | None = None, route: str | None = None) -> Request:
        """The most recent matching request (fails if none)."""
        found = self.find(method, route)
        if not found:
            raise HarnessError(f"no request matched {method} {route}; saw {self.requests}")
        return found[-1]

    # ----- the patched entry points

    async def http_request(
        self,
        client: HTTPClient,
        route: Route,
        *,
        files: Sequence[discord.File] | None = None,
        form: Iterable[Mapping[str, Any]] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Replacement for ``HTTPClient.request``."""
        body = kwargs.get("json")
        if form is not None:
            body = _payload_from_multipart(form)
        return await self._perform(
            "http",
            route,
            body=body,
            files=_recorded_files(files),
            query=dict(kwargs.get("params") or {}),
            reason=kwargs.get("reason"),
            max_ratelimit=client.max_ratelimit_timeout,
        )

    async def webhook_request(
        self,
        route: Route,
        *,
        payload: dict[str, Any] | None = None,
        multipart: list[dict[str, Any]] | None = None,
        files: Sequence[discord.File] | None = None,
        reason: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> Any:
        """Replacement for ``AsyncWebhookAdapter.request``."""
        body: Any = payload
        if multipart:
            body = _payload_from_multipart(multipart)
        return await self._perform(
            "webhook",
            route,
            body=body,
            files=_recorded_files(files),
            query=dict(params or {}),
            reason=reason,
            max_ratelimit=None,
        )

    async def _perform(
        self,
        via: Literal["http", "webhook"],
        route: Route,
        *,
        body: Any,
        files: list[RecordedFile],
        query: dict[str, Any],
        reason: str | None,
        max_ratelimit: float | None,
    ) -> Any:
        path = re.sub(r"^/api/v\d+", "", urlsplit(route.url).path)
        match = _template_regex(route.path).match(path)
        params = {k: unquote(v) for k, v in (match.groupdict() if match else {}).items()}
        last_error: HTTPError | None = None
        for attempt in range(5):
            request = Request(
                seq=len(self.requests) + 1,
                via=via,
                method=route.method.upper(),
                route=route.path,
                path=path,
                params=params,
                query=query,
                json=copy.deepcopy(body),
                files=files,
                reason=reason,
            )
            self.requests.append(request)
            rule = next((f for f in self.failures if f.matches(request)), None)
            if rule is not None:
                rule.hits += 1
                last_error = rule.error()
                request.status, request.response = last_error.status, last_error.body()
                if last_error.status == 429:
                    if max_ratelimit and rule.retry_after > max_ratelimit:
                        raise discord.RateLimited(rule.retry_after)
                    if attempt < 4:
                        await asyncio.sleep(rule.retry_after)
                        continue
                elif last_error.status in (500, 502, 504, 524) or (
                    via == "webhook" and last_error.status >= 500
                ):
                    if attempt < 4:
                        continue  # discord.py sleeps 1 + 2*attempt seconds here; skipped.
                raise _discord_exception(last_error.status, last_error.body())
            try:
                result = await self.server.dispatch(request)
            except HTTPError as exc:
                request.status, request.response = exc.status, exc.body()
                raise _discord_exception(exc.status, exc.body()) from None
            except HarnessError as exc:
                request.status = 599
                self.on_unhandled(exc)
                raise
            request.status = 204 if result is None else 200
            request.response = copy.deepcopy(result)
            return result
        assert last_error is not None
        raise _discord_exception(last_error.status, last_error.body())


# --------------------------------------------------------------------------- the harness


class _ErrorLogHandler(logging.Handler):
    """Turns ERROR records from the ``discord`` logger into test failures.

    discord.py swallows exceptions in several places (DynamicItem callbacks,
    autocomplete callbacks, default ``on_error`` handlers) and only logs them.
    """

    def __init__(self, sink: Callable[[BaseException, str], None]) -> None:
        super().__init__(logging.ERROR)
        self._sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info and record.exc_info[1] is not None:
            self._sink(record.exc_info[1], f"{record.name}: {record.getMessage()}")
        else:
            self._sink(
                HarnessError(f"{record.name} logged an error: {record.getMessage()}"), record.name
            )


_IDLE_LINE_MARKERS = (".get(", "wait(", "acquire(", "select(", ".poll(", "join(", "sleep(")


def _has_queued_work(frame: Any) -> bool:
    """Whether a worker parked in ``queue.get()`` already has an item waiting.

    Between ``put_nowait`` on the loop thread and the worker being scheduled by the OS,
    the worker's frame still shows the blocking ``get`` line; the non-empty queue in its
    locals (aiosqlite's ``tx``, ThreadPoolExecutor's ``work_queue``) reveals the work.
    """
    try:
        values = list(frame.f_locals.values())
    except Exception:  # pragma: no cover - introspection of a foreign frame
        return False
    for value in values:
        qsize = getattr(value, "qsize", None)
        if callable(qsize) and not isinstance(value, type):
            with contextlib.suppress(Exception):
                if qsize() > 0:
                    return True
    return False


ErrorSpec = type[BaseException] | tuple[type[BaseException], ...] | None


class Harness:
    """A logged-in bot wired to :class:`FakeDiscord`; use as ``async with Harness(bot) as h``.

    Entering logs the bot in through ``Client.login`` (so ``setup_hook`` runs exactly as
    in production, with HTTP answered by the fake), loads ``extensions``, runs
    ``setup``, then feeds ``READY`` with the harness guild so ``on_ready`` runs and the
    guild, its channels, roles and members are in discord.py's cache. Exiting settles,
    closes the bot (cog unloads, HTTP session), cancels any task the run left behind
    and restores every patch.
    """

    def __init__(
        self,
        bot: commands.Bot | Callable[[], commands.Bot],
        *,
        extensions: Sequence[str] = (),
        setup: Callable[[commands.Bot], Awaitable[None]] | None = None,
        token: str = "harness-token",
        guild_name: str = "Harness Guild",
        bot_permissions: discord.Permissions = DEFAULT_BOT_PERMISSIONS,
        everyone_permissions: discord.Permissions = DEFAULT_EVERYONE_PERMISSIONS,
        settle_timeout: float = 5.0,
        timer_horizon: float = 1.0,
        response_deadline: float | None = 3.0,
        watch_threads: bool = True,
        max_settle_iterations: int = 100_000,
        server: FakeDiscord | None = None,
    ) -> None:
        self._bot_source = bot
        self._extensions = tuple(extensions)
        self._setup = setup
        self._token = token
        self.settle_timeout = settle_timeout
        self.timer_horizon = timer_horizon
        self.watch_threads = watch_threads
        self.max_settle_iterations = max_settle_iterations
        app_id = bot.application_id if isinstance(bot, commands.Bot) else None
        # ``server=`` continues the same Discord (users, channels, messages) with a new bot
        # process: a restart, where messages posted before it can still be clicked.
        self.server = server or FakeDiscord(
            application_id=app_id,
            guild_name=guild_name,
            bot_permissions=bot_permissions.value,
            everyone_permissions=everyone_permissions.value,
        )
        self.server.response_deadline = response_deadline
        self.http = RecordedHTTP(self.server)
        self.http.on_unhandled = lambda exc: self._record_error(exc, "fake Discord")
        self._bot: commands.Bot | None = None
        self.errors: list[tuple[BaseException, str]] = []
        # Strong references: deduplicating by bare id() breaks once an exception is
        # freed and its id is reused by a new one.
        self._seen_errors: dict[int, BaseException] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._executor_futures: set[asyncio.Future[Any]] = set()
        self._stack = contextlib.ExitStack()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._log_handler = _ErrorLogHandler(self._record_error)
        self._previous_factory: Any = None
        self._previous_exception_handler: Any = None
        self._batch: asyncio.Event | None = None  # see gather()
        self._batch_fed = 0

    # ----- entities exposed to tests

    @property
    def bot(self) -> commands.Bot:
        """The bot under test (available once the harness is entered)."""
        if self._bot is None:
            raise HarnessError("the harness is not running; use `async with Harness(...) as h`")
        return self._bot

    @property
    def guild_id(self) -> int:
        """The harness guild's id."""
        return self.server.guild_id

    @property
    def guild(self) -> discord.Guild:
        """The guild as discord.py caches it."""
        guild = self.bot.get_guild(self.server.guild_id)
        assert guild is not None, "guild not cached; READY was not delivered"
        return guild

    @property
    def channel(self) -> FakeChannel:
        """The default text channel (#general) where helpers act unless told otherwise."""
        return self.server.default_channel

    @property
    def requests(self) -> list[Request]:
        """Every HTTP request the bot made, in order."""
        return self.http.requests

    def user(
        self,
        name: str,
        *,
        manage_channels: bool = False,
        administrator: bool = False,
        permissions: discord.Permissions | None = None,
        dms_open: bool = True,
        in_guild: bool = True,
        bot: bool = False,
        locale: str = "en-US",
    ) -> FakeUser:
        """Create a user who is (by default) a member of the harness guild.

        Added users behave as if they were in the initial GUILD_CREATE: discord.py
        caches them only when the bot's intents/member cache would.
        """
        perms = permissions.value if permissions is not None else 0
        if manage_channels:
            perms |= discord.Permissions(manage_channels=True).value
        if administrator:
            perms |= discord.Permissions(administrator=True).value
        user = self.server.add_user(
            name, permissions=perms, dms_open=dms_open, in_guild=in_guild, bot=bot, locale=locale
        )
        if self._bot is not None and in_guild:
            self._cache_member(user)
        return user

    def role(self, name: str, *, permissions: discord.Permissions | None = None) -> FakeRole:
        """Create a guild role (for role options / mentionables)."""
        role = self.server.add_role(name, permissions.value if permissions else 0)
        if self._bot is not None:
            guild = self.guild
            guild._add_role(
                discord.Role(guild=guild, state=self.bot._connection, data=role.payload())
            )  # type: ignore[arg-type]
        return role

    def text_channel(self, name: str) -> FakeChannel:
        """Create a guild text channel (delivered as CHANNEL_CREATE)."""
        channel = self.server.add_channel(name)
        if self._bot is not None:
            self._state.parsers["CHANNEL_CREATE"](channel.payload())
        return channel

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The DM channel with ``user``; pass it as ``channel=`` to act from DMs."""
        return self.server.dm_channel(user)

    def attachment(
        self, filename: str, data: bytes, content_type: str | None = None
    ) -> FakeAttachment:
        """A user upload for ``attachment`` options; ``Attachment.read()`` returns ``data``."""
        att = FakeAttachment(
            filename,
            data,
            content_type or mimetypes.guess_type(filename)[0],
            self.server.snowflake(),
        )
        self.server.cdn[self._attachment_url(att)] = data
        return att

    def _attachment_url(self, att: FakeAttachment) -> str:
        return f"{_CDN}/ephemeral-attachments/{self.channel.id}/{att.id}/{att.filename}"

    # ----- queries

    def messages(
        self, channel: FakeChannel | None = None, *, include_deleted: bool = False
    ) -> list[RecordedMessage]:
        """Messages in creation order, optionally limited to one channel."""
        return [
            m
            for m in self.server.messages.values()
            if (channel is None or m.channel_id == channel.id)
            and (include_deleted or not m.deleted)
        ]

    def last_message(self, channel: FakeChannel | None = None) -> RecordedMessage:
        """The last non-deleted message in ``channel`` (default #general), ephemerals included."""
        found = self.messages(channel or self.channel)
        if not found:
            raise HarnessError(f"no messages in channel {(channel or self.channel).name!r}")
        return found[-1]

    def visible_to(
        self, user: FakeUser, channel: FakeChannel | None = None
    ) -> list[RecordedMessage]:
        """What ``user`` can see: public channel messages, their ephemerals, their DMs."""
        return [m for m in self.messages(channel) if m.visible_for(user.id)]

    def dms(self, user: FakeUser) -> list[RecordedMessage]:
        """Messages delivered to ``user``'s DM channel."""
        channel = self.server.dm_channels.get(user.id)
        return [] if channel is None else self.messages(channel)

    def command_schema(self) -> list[dict[str, Any]]:
        """The command payloads ``tree.sync()`` would upload (global + harness guild)."""
        tree = self.bot.tree
        schema = [cmd.to_dict(tree) for cmd in tree._get_all_commands(guild=None)]
        guild = discord.Object(self.server.guild_id)
        for cmd in tree._get_all_commands(guild=guild):
            schema.append({**cmd.to_dict(tree), "guild_id": str(self.server.guild_id)})
        return schema

    # ----- lifecycle

    @property
    def _state(self) -> Any:
        return self.bot._connection

    async def __aenter__(self) -> Harness:
        global _active_harness
        if _active_harness is not None:
            raise HarnessError("another Harness is active; the HTTP edge is patched class-wide")
        _active_harness = self
        loop = asyncio.get_running_loop()
        self._loop = loop
        try:
            self._install_loop_hooks(loop)
            self._install_patches()
            bot = (
                self._bot_source
                if isinstance(self._bot_source, commands.Bot)
                else self._bot_source()
            )
            self._bot = bot
            state = bot._connection
            if state.application_id is not None:
                self.server.application_id = state.application_id
            self.server.clock = loop.time
            self.server.gateway = lambda event, payload: state.parsers[event](payload)
            await bot.login(self._token)
            for ext in self._extensions:
                await bot.load_extension(ext)
            if self._setup is not None:
                await self._setup(bot)
            self._wrap_error_hooks()
            self._deliver_ready()
            await self.settle()
            self._raise_errors(None, "startup")
        except BaseException:
            await self._teardown()
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        body_failed = exc is not None
        if not body_failed:
            try:
                await self.settle()
            except SettleTimeout:
                await self._teardown()
                raise
        await self._teardown()
        if not body_failed:
            self._raise_errors(None, "teardown")

    def _install_loop_hooks(self, loop: asyncio.AbstractEventLoop) -> None:
        """Track tasks (leaks, unretrieved exceptions) and executor work (settling)."""
        self._previous_factory = loop.get_task_factory()
        previous = self._previous_factory

        def factory(lp: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
            task = (
                previous(lp, coro, **kwargs) if previous else asyncio.Task(coro, loop=lp, **kwargs)
            )
            self._tasks.add(task)
            return task

        loop.set_task_factory(factory)  # type: ignore[arg-type]
        self._previous_exception_handler = loop.get_exception_handler()

        def on_loop_error(lp: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
            error = context.get("exception") or HarnessError(str(context.get("message")))
            self._record_error(error, "event loop")

        loop.set_exception_handler(on_loop_error)
        original = loop.run_in_executor

        def run_in_executor(
            executor: Any, func: Callable[..., Any], *args: Any
        ) -> asyncio.Future[Any]:
            future = original(executor, func, *args)
            self._executor_futures.add(future)
            future.add_done_callback(self._executor_futures.discard)
            return future

        loop.run_in_executor = run_in_executor  # type: ignore[method-assign]

    def _install_patches(self) -> None:
        recorder = self.http

        async def http_request(client: HTTPClient, route: Route, **kwargs: Any) -> Any:
            return await recorder.http_request(client, route, **kwargs)

        async def webhook_request(
            adapter: AsyncWebhookAdapter, route: Route, session: Any, **kwargs: Any
        ) -> Any:
            kwargs.pop("proxy", None)
            kwargs.pop("proxy_auth", None)
            kwargs.pop("auth_token", None)
            return await recorder.webhook_request(route, **kwargs)

        async def get_from_cdn(client: HTTPClient, url: str) -> bytes:
            data = self.server.cdn.get(url.split("?", 1)[0])
            if data is None:
                raise discord.NotFound(_FakeResponse(404), "asset not found in the fake CDN")  # type: ignore[arg-type]
            return data

        async def ws_connect(client: HTTPClient, url: str, **kwargs: Any) -> Any:
            raise HarnessError(
                "the harness has no gateway connection; feed payloads with h.gateway()"
            )

        harness = self
        view_task = BaseView._scheduled_task
        modal_task = Modal._scheduled_task

        async def view_scheduled_task(view: BaseView, *args: Any) -> Any:
            harness._wrap_view_on_error(view)
            return await view_task(view, *args)

        async def modal_scheduled_task(view: Modal, *args: Any) -> Any:
            harness._wrap_view_on_error(view)
            return await modal_task(view, *args)

        for target, name, new in (
            (HTTPClient, "request", http_request),
            (AsyncWebhookAdapter, "request", webhook_request),
            (HTTPClient, "get_from_cdn", get_from_cdn),
            (HTTPClient, "ws_connect", ws_connect),
            (BaseView, "_scheduled_task", view_scheduled_task),
            (Modal, "_scheduled_task", modal_scheduled_task),
        ):
            self._stack.enter_context(mock.patch.object(target, name, new))
        logger = logging.getLogger("discord")
        logger.addHandler(self._log_handler)
        self._stack.callback(logger.removeHandler, self._log_handler)

    def _deliver_ready(self) -> None:
        """Feed READY (with the full guild) the way the gateway would after login."""
        state = self._state
        state.guild_ready_timeout = 0
        state.parsers["READY"](
            {
                "v": 10,
                "user": self.server.bot_user.user_payload(),
                "guilds": [self.server.guild_payload()],
                "session_id": "harness-session",
                "resume_gateway_url": "wss://gateway.invalid",
                "application": {"id": str(self.server.application_id), "flags": 0},
                "private_channels": [],
                "relationships": [],
            }
        )

    async def _teardown(self) -> None:
        global _active_harness
        loop = self._loop
        try:
            bot = self._bot
            if bot is not None and not bot.is_closed():
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(bot.close(), timeout=self.settle_timeout)
            leftover = [t for t in self._tasks if not t.done() and t is not asyncio.current_task()]
            for task in leftover:
                task.cancel()
            if leftover:
                await asyncio.wait(leftover, timeout=self.settle_timeout)
            self._collect_task_errors()
        finally:
            self._stack.close()
            self._stack = contextlib.ExitStack()
            if loop is not None:
                loop.set_task_factory(self._previous_factory)
                loop.set_exception_handler(self._previous_exception_handler)
                with contextlib.suppress(AttributeError):
                    del loop.run_in_executor  # type: ignore[attr-defined]
            _active_harness = None

    # ----- error capture

    def _record_error(self, error: BaseException, origin: str) -> None:
        root = _unwrap(error)
        if self._seen_errors.get(id(root)) is root:
            return
        self._seen_errors[id(root)] = root
        self.errors.append((error, origin))

    def _wrap_error_hooks(self) -> None:
        """Observe ``CommandTree.on_error`` and ``Client.on_error`` without replacing them.

        The bot's own handlers still run (their user-facing replies are part of the
        behaviour under test); the harness only notes the exception. Re-checked before
        every dispatch because ``@tree.error``/``@bot.event`` replace the attribute.
        """
        tree = self.bot.tree
        current = tree.on_error
        if getattr(current, "__harness__", None) is not self:

            async def tree_on_error(
                interaction: discord.Interaction, error: app_commands.AppCommandError
            ) -> None:
                self._record_error(error, "CommandTree.on_error")
                await current(interaction, error)

            tree_on_error.__harness__ = self  # type: ignore[attr-defined]
            tree.on_error = tree_on_error  # type: ignore[method-assign]
        bot_current = self.bot.on_error
        if getattr(bot_current, "__harness__", None) is not self:

            async def bot_on_error(event_method: str, /, *args: Any, **kwargs: Any) -> None:
                error = sys.exc_info()[1]
                if error is not None:
                    self._record_error(error, f"Client.on_error({event_method})")
                await bot_current(event_method, *args, **kwargs)

            bot_on_error.__harness__ = self  # type: ignore[attr-defined]
            self.bot.on_error = bot_on_error  # type: ignore[method-assign]

    def _wrap_view_on_error(self, view: BaseView) -> None:
        current = view.on_error
        if getattr(current, "__harness__", None) is self:
            return

        async def on_error(*args: Any) -> None:
            item = f" item={args[2]!r}" if len(args) > 2 else ""
            self._record_error(args[1], f"{type(view).__name__}.on_error{item}")
            await current(*args)

        on_error.__harness__ = self  # type: ignore[attr-defined]
        view.on_error = on_error  # type: ignore[method-assign]

    def _collect_task_errors(self) -> None:
        for task in list(self._tasks):
            if not task.done():
                continue
            self._tasks.discard(task)
            if task.cancelled():
                continue
            if getattr(task, "_log_traceback", False):
                error = task.exception()
                if error is not None:
                    self._record_error(error, f"unawaited task {task.get_name()}")

    def _take_errors(self) -> list[tuple[BaseException, str]]:
        self._collect_task_errors()
        errors, self.errors = self.errors, []
        return errors

    def _raise_errors(self, expect: ErrorSpec, context: str) -> list[BaseException]:
        errors = self._take_errors()
        matched = [
            e
            for e, _ in errors
            if expect is not None and (isinstance(e, expect) or isinstance(_unwrap(e), expect))
        ]
        unexpected = [(e, o) for e, o in errors if e not in matched]
        if unexpected:
            first, origin = unexpected[0]
            root = _unwrap(first)
            root.add_note(f"[discord_harness] raised in {origin} during {context}")
            for other, other_origin in unexpected[1:]:
                root.add_note(f"[discord_harness] also: {other_origin}: {_unwrap(other)!r}")
            raise root
        if expect is not None and not matched:
            raise HarnessError(
                f"expected an error matching {expect} during {context}, none was raised"
            )
        return matched

    # ----- settling

    def _busy_reason(self, loop: asyncio.AbstractEventLoop) -> tuple[str, float] | None:
        """Why the loop is not quiet yet, and how long to wait before looking again.

        Quiet means: no ready callbacks, no executor job, no timer due within
        ``timer_horizon`` (so long sleeps such as 180 s view timeouts don't count) and
        no worker thread executing Python code outside a blocking wait (aiosqlite,
        ``asyncio.to_thread``).
        """
        if loop._ready:  # type: ignore[attr-defined]
            return ("ready callbacks", 0.0)
        if self._executor_futures:
            return ("executor job", 0.001)
        # A store that talks to a database server over a socket (store/pg.py) counts the
        # jobs it has on the wire: the loop looks idle then, yet a move is under way.
        if getattr(getattr(self._bot, "store", None), "in_flight", 0):
            return ("database round trip", 0.001)
        now = loop.time()
        due = [h.when() for h in loop._scheduled if not h.cancelled()]  # type: ignore[attr-defined]
        if due and min(due) - now <= self.timer_horizon:
            return (f"timer due in {min(due) - now:.3f}s", max(0.0, min(due) - now))
        if self.watch_threads:
            busy = self._busy_thread()
            if busy:
                return (busy, 0.001)
        return None

    @staticmethod
    def _busy_thread() -> str | None:
        frames = sys._current_frames()
        me = threading.get_ident()
        for thread in threading.enumerate():
            if thread.ident is None or thread.ident == me:
                continue
            frame = frames.get(thread.ident)
            if frame is None:
                continue
            where = f"{frame.f_code.co_filename}:{frame.f_lineno}"
            line = linecache.getline(frame.f_code.co_filename, frame.f_lineno)
            if not any(marker in line for marker in _IDLE_LINE_MARKERS):
                return f"thread {thread.name} running {where}"
            if _has_queued_work(frame):
                return f"thread {thread.name} has queued work at {where}"
        return None

    async def settle(self, timeout: float | None = None) -> None:
        """Run the loop until nothing can make progress without outside input.

        Bounded by ``timeout`` (default ``settle_timeout``) and
        ``max_settle_iterations``; raises :class:`SettleTimeout` naming what kept the
        loop busy. Quiet must hold across a short real-time grace sleep so work
        finishing on another thread is not mistaken for idleness.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self.settle_timeout if timeout is None else timeout)
        quiet = 0
        reason = "not started"
        for _ in range(self.max_settle_iterations):
            await asyncio.sleep(0)
            busy = self._busy_reason(loop)
            if busy is None:
                quiet += 1
                if quiet >= 3:
                    return
                await asyncio.sleep(0.001)
                continue
            quiet = 0
            reason, wait = busy
            if loop.time() > deadline:
                break
            if wait > 0:
                await asyncio.sleep(min(wait, max(0.0, deadline - loop.time()) + 0.001))
        pending = sorted(
            t.get_name() + ":" + getattr(t.get_coro(), "__qualname__", "?")
            for t in self._tasks
            if not t.done()
        )
        raise SettleTimeout(
            f"event loop still busy after {self.settle_timeout}s ({reason}); pending tasks: {pending}"
        )

    def raise_errors(self, expect_error: ErrorSpec = None) -> list[BaseException]:
        """Raise errors captured since the last helper returned (after a manual settle).

        Errors matching ``expect_error`` are returned instead of raised.
        """
        return self._raise_errors(expect_error, "manual check")

    # ----- feeding the gateway

    async def gateway(
        self, event: str, payload: dict[str, Any], *, expect_error: ErrorSpec = None
    ) -> list[BaseException]:
        """Deliver any gateway dispatch (``MESSAGE_CREATE``...) and settle."""
        self._wrap_error_hooks()
        self._state.parsers[event](payload)
        await self.settle()
        return self._raise_errors(expect_error, event)

    def _cache_member(self, user: FakeUser) -> None:
        """Mirror a late-created member into discord.py's cache as GUILD_CREATE would."""
        guild = self.bot.get_guild(self.server.guild_id)
        if guild is None:
            return
        for role_id in user.role_ids:
            if guild.get_role(role_id) is None:
                role = self.server.roles[role_id]
                guild._add_role(discord.Role(guild=guild, state=self._state, data=role.payload()))  # type: ignore[arg-type]
        flags = self._state.member_cache_flags
        if flags.joined or user.id == self.server.bot_user.id:
            guild._add_member(
                discord.Member(data=user.member_payload(), guild=guild, state=self._state)
            )  # type: ignore[arg-type]

    def _interaction_payload(
        self,
        itype: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        message: RecordedMessage | None = None,
    ) -> dict[str, Any]:
        iid = self.server.snowflake()
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.server.application_id),
            "type": itype,
            "token": f"harness-token-{iid}",
            "version": 1,
            "attachment_size_limit": 10 * 1024 * 1024,
            "data": data,
            "channel_id": str(channel.id),
            "locale": user.locale,
            "entitlements": [],
            "entitlement_skus": [],
            "app_permissions": str(self.server.permissions_of(self.server.bot_user)),
        }
        if channel.is_dm:
            if channel.recipient is not user:
                raise SchemaViolation(
                    f"{user.name} cannot act in {channel.name}, a DM with someone else"
                )
            payload["channel"] = channel.payload()
            payload["user"] = user.user_payload()
            payload["context"] = 1
            payload["authorizing_integration_owners"] = {"0": str(self.server.guild_id)}
        else:
            if not user.in_guild:
                raise SchemaViolation(f"{user.name} is not a member of the harness guild")
            perms = self.server.permissions_of(user)
            payload["guild_id"] = str(self.server.guild_id)
            payload["guild_locale"] = "en-US"
            payload["guild"] = {"id": str(self.server.guild_id), "locale": "en-US", "features": []}
            payload["channel"] = channel.payload(permissions=perms)
            payload["member"] = user.member_payload(permissions=perms)
            payload["context"] = 0
            payload["authorizing_integration_owners"] = {"0": str(self.server.guild_id)}
        if message is not None:
            payload["message"] = message.payload()
        return payload

    async def interact(
        self,
        payload: dict[str, Any],
        user: FakeUser,
        channel: FakeChannel,
        *,
        component_message: RecordedMessage | None = None,
        expect_error: ErrorSpec = None,
        expect_response: bool = True,
    ) -> InteractionResult:
        """Feed a prepared INTERACTION_CREATE payload, settle, and collect the result."""
        iid = int(payload["id"])
        result = InteractionResult(
            iid, payload["token"], int(payload["type"]), user, channel, payload
        )
        loop = asyncio.get_running_loop()
        rec = _Interaction(result, loop.time(), component_message.id if component_message else None)
        self.server.interactions[iid] = rec
        self.server._by_token[result.token] = rec
        first_request = len(self.http.requests)
        first_message = max(self.server.messages, default=0)
        self._wrap_error_hooks()
        self._state.parsers["INTERACTION_CREATE"](copy.deepcopy(payload))
        if self._batch is not None:  # part of gather(): settle once, together
            self._batch_fed += 1
            await self._batch.wait()
        else:
            await self.settle()
        result.requests = self.http.requests[first_request:]
        result.messages = [m for mid, m in self.server.messages.items() if mid > first_message]
        label = (
            f"{_INTERACTION_TYPE_NAMES.get(result.type, result.type)} interaction by {user.name}"
        )
        result.errors = self._raise_errors(expect_error, label)
        if expect_response and not result.responded and not result.errors:
            raise HarnessError(
                f"the bot never acknowledged {label}; the user would see 'The application did not respond'. "
                "Pass expect_response=False if that is intended."
            )
        return result

    async def gather(self, *calls: Awaitable[InteractionResult]) -> list[InteractionResult]:
        """Deliver several interactions back to back, then settle once: a race.

        Each call is one ``click``/``slash``/``autocomplete``; their payloads reach the bot
        before any of them is handled, as when two users click at the same moment.
        (Concurrent calls without ``gather`` would each wait for the other to settle.)
        """
        if self._batch is not None:
            raise HarnessError("gather() calls cannot be nested")
        self._batch, self._batch_fed = asyncio.Event(), 0
        batch = self._batch
        tasks = [asyncio.ensure_future(call) for call in calls]
        try:
            for _ in range(self.max_settle_iterations):
                if self._batch_fed + sum(t.done() for t in tasks) >= len(tasks):
                    break
                await asyncio.sleep(0)
            self._batch = None
            await self.settle()
        finally:
            self._batch = None
            batch.set()
        return list(await asyncio.gather(*tasks))

    # ----- slash commands

    def _resolve_command(
        self, command: str, user: FakeUser, channel: FakeChannel
    ) -> tuple[dict[str, Any], list[str], list[dict[str, Any]]]:
        """Find the command payload and the option schema of the invoked leaf."""
        parts = command.strip().lstrip("/").split()
        if not parts:
            raise SchemaViolation("empty command name")
        schema = self.command_schema()
        roots = [c for c in schema if c["name"] == parts[0] and c.get("type", 1) == 1]
        roots.sort(key=lambda c: "guild_id" not in c)
        if not roots:
            raise SchemaViolation(
                f"/{parts[0]} is not a registered slash command; known: {sorted(c['name'] for c in schema)}"
            )
        root = roots[0]
        if channel.is_dm and (
            "guild_id" in root
            or root.get("dm_permission") is False
            or 1 not in (root.get("contexts") or [0, 1, 2])
        ):
            raise SchemaViolation(f"/{parts[0]} is not available in DMs")
        if not channel.is_dm and 0 not in (root.get("contexts") or [0, 1, 2]):
            raise SchemaViolation(f"/{parts[0]} is not available in guilds")
        required = root.get("default_member_permissions")
        if required is not None and not channel.is_dm:
            have = self.server.permissions_of(user)
            if int(required) & ~have and not have & discord.Permissions(administrator=True).value:
                raise SchemaViolation(
                    f"/{parts[0]} is hidden from {user.name}: needs permissions {int(required)}"
                )
        if root.get("nsfw") and not channel.nsfw:
            raise SchemaViolation(f"/{parts[0]} is age-restricted and {channel.name} is not NSFW")
        node: dict[str, Any] = root
        path = [parts[0]]
        for part in parts[1:]:
            subs = [o for o in node.get("options", []) if o["type"] in (1, 2)]
            match = next((o for o in subs if o["name"] == part), None)
            if match is None:
                raise SchemaViolation(
                    f"/{' '.join(path)} has no subcommand {part!r}; options: {[o['name'] for o in subs]}"
                )
            node = match
            path.append(part)
        leaf_options = node.get("options", [])
        if any(o["type"] in (1, 2) for o in leaf_options):
            raise SchemaViolation(
                f"/{' '.join(path)} is a group; pick one of {[o['name'] for o in leaf_options]}"
            )
        return root, path, leaf_options

    def _convert_option(
        self,
        label: str,
        schema: Mapping[str, Any],
        value: Any,
        resolved: dict[str, dict[str, Any]],
        channel: FakeChannel,
    ) -> Any:
        """Type-check one option value like Discord's client and return its wire value."""
        otype = int(schema["type"])
        name = f"{label} option {schema['name']!r} ({_OPTION_TYPE_NAMES.get(otype, otype)})"

        def need(ok: bool, why: str) -> None:
            if not ok:
                raise SchemaViolation(f"{name}: {why}; got {value!r}")

        if otype == 3:
            need(isinstance(value, str), "expected a string")
            if "min_length" in schema:
                need(
                    len(value) >= schema["min_length"],
                    f"shorter than min_length {schema['min_length']}",
                )
            need(
                len(value) <= schema.get("max_length", 6000),
                f"longer than max_length {schema.get('max_length', 6000)}",
            )
        elif otype == 4:
            need(isinstance(value, int) and not isinstance(value, bool), "expected an integer")
            need(-_MAX_SAFE_INTEGER < value < _MAX_SAFE_INTEGER, "integer out of Discord's range")
        elif otype == 10:
            need(
                isinstance(value, (int, float)) and not isinstance(value, bool), "expected a number"
            )
        elif otype == 5:
            need(isinstance(value, bool), "expected a boolean")
        if otype in (4, 10):
            if "min_value" in schema:
                need(value >= schema["min_value"], f"below min_value {schema['min_value']}")
            if "max_value" in schema:
                need(value <= schema["max_value"], f"above max_value {schema['max_value']}")
        if schema.get("choices"):
            allowed = [c["value"] for c in schema["choices"]]
            need(
                value in allowed and type(value) is type(allowed[allowed.index(value)]),
                f"not one of the choices {allowed}",
            )
        if otype in (3, 4, 5, 10):
            return value
        guild_perms_channel = channel if not channel.is_dm else None
        if (
            otype in (6, 9)
            and isinstance(value, (FakeUser, int))
            and self._as_user(value) is not None
        ):
            user = self._as_user(value)
            assert user is not None
            resolved.setdefault("users", {})[str(user.id)] = user.user_payload()
            if guild_perms_channel is not None and user.in_guild:
                member = user.member_payload(
                    permissions=self.server.permissions_of(user), with_user=False
                )
                resolved.setdefault("members", {})[str(user.id)] = member
            return str(user.id)
        if otype in (8, 9) and isinstance(value, (FakeRole, int)):
            role = value if isinstance(value, FakeRole) else self.server.roles.get(value)
            need(role is not None and not channel.is_dm, "expected a role of the harness guild")
            assert isinstance(role, FakeRole)
            resolved.setdefault("roles", {})[str(role.id)] = role.payload()
            return str(role.id)
        if otype == 7:
            target = (
                value if isinstance(value, FakeChannel) else self.server.channels.get(int(value))
            )
            need(isinstance(target, FakeChannel) and not target.is_dm, "expected a guild channel")
            assert isinstance(target, FakeChannel)
            if schema.get("channel_types"):
                need(
                    target.type in schema["channel_types"],
                    f"channel type not in {schema['channel_types']}",
                )
            data = target.payload(permissions=self.server.permissions_of(self.server.bot_user))
            resolved.setdefault("channels", {})[str(target.id)] = data
            return str(target.id)
        if otype == 11:
            need(isinstance(value, FakeAttachment), "expected h.attachment(...)")
            att = cast(FakeAttachment, value)
            url = self._attachment_url(att)
            resolved.setdefault("attachments", {})[str(att.id)] = {
                "id": str(att.id),
                "filename": att.filename,
                "size": len(att.data),
                "url": url,
                "proxy_url": url,
                "content_type": att.content_type,
                "ephemeral": True,
            }
            return str(att.id)
        need(False, "unsupported value for this option type")
        return None

    def _as_user(self, value: Any) -> FakeUser | None:
        if isinstance(value, FakeUser):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return self.server.users.get(value)
        return None

    def _command_data(
        self,
        command: str,
        user: FakeUser,
        channel: FakeChannel,
        given: Mapping[str, Any],
        *,
        focused: str | None = None,
    ) -> dict[str, Any]:
        root, path, leaf_schema = self._resolve_command(command, user, channel)
        label = "/" + " ".join(path)
        by_name = {o["name"]: o for o in leaf_schema}
        unknown = sorted(set(given) - set(by_name))
        if unknown:
            raise SchemaViolation(
                f"{label}: unknown option(s) {unknown}; the command has {sorted(by_name)}"
            )
        if focused is None:
            missing = [
                o["name"] for o in leaf_schema if o.get("required") and o["name"] not in given
            ]
            if missing:
                raise SchemaViolation(f"{label}: missing required option(s) {missing}")
        else:
            if focused not in by_name:
                raise SchemaViolation(f"{label}: cannot focus unknown option {focused!r}")
            if not by_name[focused].get("autocomplete"):
                raise SchemaViolation(f"{label}: option {focused!r} has no autocomplete")
        resolved: dict[str, dict[str, Any]] = {}
        options: list[dict[str, Any]] = []
        for opt in leaf_schema:
            name = opt["name"]
            if name == focused:
                raw = given.get(name, "")
                options.append(
                    {
                        "name": name,
                        "type": opt["type"],
                        "value": raw if isinstance(raw, str) else str(raw),
                        "focused": True,
                    }
                )
            elif name in given:
                value = self._convert_option(label, opt, given[name], resolved, channel)
                options.append({"name": name, "type": opt["type"], "value": value})
        nested = options
        schema_node: dict[str, Any] = root
        wrappers: list[dict[str, Any]] = []
        for part in path[1:]:
            schema_node = next(o for o in schema_node.get("options", []) if o["name"] == part)
            wrappers.append({"name": part, "type": schema_node["type"]})
        for wrapper in reversed(wrappers):
            wrapper["options"] = nested
            nested = [wrapper]
        guild_id = int(root["guild_id"]) if "guild_id" in root else None
        cid = self.server.command_ids.setdefault(
            (root["name"], guild_id, 1), self.server.snowflake()
        )
        data: dict[str, Any] = {"id": str(cid), "name": root["name"], "type": 1, "options": nested}
        if resolved:
            data["resolved"] = resolved
        if guild_id is not None:
            data["guild_id"] = str(guild_id)
        return data

    async def slash(
        self,
        user: FakeUser,
        command: str,
        *,
        channel: FakeChannel | None = None,
        options: Mapping[str, Any] | None = None,
        expect_error: ErrorSpec = None,
        expect_response: bool = True,
        **kwargs: Any,
    ) -> InteractionResult:
        """Invoke ``/command sub ...`` as ``user``; options as kwargs or ``options=``.

        Option keys are the names Discord shows (``options=`` allows names that are not
        Python identifiers). Values: str/int/float/bool, FakeUser, FakeChannel,
        FakeRole, FakeAttachment. Raises SchemaViolation for input Discord would refuse.
        """
        channel = channel or self.channel
        given = {**(options or {}), **kwargs}
        data = self._command_data(command, user, channel, given)
        payload = self._interaction_payload(2, user, channel, data)
        return await self.interact(
            payload, user, channel, expect_error=expect_error, expect_response=expect_response
        )

    async def autocomplete(
        self,
        user: FakeUser,
        command: str,
        *,
        focused: str,
        channel: FakeChannel | None = None,
        options: Mapping[str, Any] | None = None,
        expect_error: ErrorSpec = None,
        **kwargs: Any,
    ) -> InteractionResult:
        """Type into option ``focused`` (its text comes from kwargs, default "") and
        return the offered choices in ``result.choices``."""
        channel = channel or self.channel
        given = {**(options or {}), **kwargs}
        data = self._command_data(command, user, channel, given, focused=focused)
        payload = self._interaction_payload(4, user, channel, data)
        return await self.interact(payload, user, channel, expect_error=expect_error)

    # ----- components

    def _message_for(self, message: RecordedMessage | int) -> RecordedMessage:
        if isinstance(message, int):
            found = self.server.messages.get(message)
            if found is None:
                raise SchemaViolation(f"unknown message id {message}")
            return found
        return self.server.adopt_message(message)

    def _component_on(
        self, user: FakeUser, message: RecordedMessage, custom_id: str | None, label: str | None
    ) -> ComponentInfo:
        if not message.visible_for(user.id):
            raise SchemaViolation(f"{user.name} cannot see message {message.id}")
        component = message.component(custom_id, label=label)
        if component.disabled:
            raise SchemaViolation(f"component {component.custom_id!r} is disabled")
        if component.url:
            raise SchemaViolation(
                f"component {component.label!r} is a link button; clicking opens a URL"
            )
        return component

    async def click(
        self,
        user: FakeUser,
        custom_id: str | None = None,
        *,
        message: RecordedMessage | int,
        label: str | None = None,
        expect_error: ErrorSpec = None,
        expect_response: bool = True,
    ) -> InteractionResult:
        """Click a button (by custom_id or label) on a message the user can see."""
        msg = self._message_for(message)
        component = self._component_on(user, msg, custom_id, label)
        if not component.is_button:
            raise SchemaViolation(f"{component.custom_id!r} is not a button; use select()")
        data = {"custom_id": component.custom_id, "component_type": 2}
        channel = self.server.channels[msg.channel_id]
        payload = self._interaction_payload(3, user, channel, data, msg)
        return await self.interact(
            payload,
            user,
            channel,
            component_message=msg,
            expect_error=expect_error,
            expect_response=expect_response,
        )

    async def select(
        self,
        user: FakeUser,
        custom_id: str,
        values: Sequence[Any],
        *,
        message: RecordedMessage | int,
        expect_error: ErrorSpec = None,
        expect_response: bool = True,
    ) -> InteractionResult:
        """Pick ``values`` in a select menu (option values, or users/roles/channels)."""
        msg = self._message_for(message)
        component = self._component_on(user, msg, custom_id, None)
        if not component.is_select:
            raise SchemaViolation(f"{custom_id!r} is not a select menu")
        if not component.min_values <= len(values) <= component.max_values:
            raise SchemaViolation(
                f"{custom_id!r} takes {component.min_values}-{component.max_values} values, got {len(values)}"
            )
        resolved: dict[str, dict[str, Any]] = {}
        channel = self.server.channels[msg.channel_id]
        if component.type == 3:
            offered = component.option_values
            bad = [v for v in values if v not in offered]
            if bad:
                raise SchemaViolation(f"{custom_id!r} does not offer {bad}; options are {offered}")
            wire = list(values)
        else:
            type_for = {5: 6, 6: 8, 7: 9, 8: 7}[component.type]
            schema = {"name": custom_id, "type": type_for}
            if component.raw.get("channel_types"):
                schema["channel_types"] = component.raw["channel_types"]
            wire = [self._convert_option("select", schema, v, resolved, channel) for v in values]
        data: dict[str, Any] = {
            "custom_id": custom_id,
            "component_type": component.type,
            "values": wire,
        }
        if resolved:
            data["resolved"] = resolved
        payload = self._interaction_payload(3, user, channel, data, msg)
        return await self.interact(
            payload,
            user,
            channel,
            component_message=msg,
            expect_error=expect_error,
            expect_response=expect_response,
        )

    async def submit_modal(
        self,
        user: FakeUser,
        values: Mapping[str, str | Sequence[str]],
        *,
        modal: InteractionResult | Mapping[str, Any] | None = None,
        channel: FakeChannel | None = None,
        expect_error: ErrorSpec = None,
        expect_response: bool = True,
    ) -> InteractionResult:
        """Submit the modal the bot showed (default: the most recent one).

        ``values`` maps component custom_ids to text (text inputs) or lists (selects);
        required/length limits are enforced like Discord's client does.
        """
        spec = modal.modal if isinstance(modal, InteractionResult) else modal
        spec = spec or self.server.last_modal
        if not spec:
            raise SchemaViolation("no modal was shown")

        def answer(comp: Mapping[str, Any]) -> dict[str, Any]:
            cid = comp.get("custom_id")
            if comp.get("type") == 4:
                text = values.get(cid, comp.get("value") or "") if cid else ""
                text = text if isinstance(text, str) else "".join(text)
                if comp.get("required", True) and not text:
                    raise SchemaViolation(f"modal field {cid!r} is required")
                if len(text) < int(comp.get("min_length", 0)) or len(text) > int(
                    comp.get("max_length", 4000)
                ):
                    raise SchemaViolation(f"modal field {cid!r} length {len(text)} outside limits")
                return {"type": 4, "custom_id": cid, "value": text}
            picked = values.get(cid, []) if cid else []
            return {
                "type": comp.get("type"),
                "custom_id": cid,
                "values": [picked] if isinstance(picked, str) else list(picked),
            }

        unknown = set(values) - {
            c.get("custom_id") for c in _walk_components(spec.get("components") or [])
        }
        if unknown:
            raise SchemaViolation(f"modal has no fields {sorted(unknown)}")
        submitted: list[dict[str, Any]] = []
        for top in spec.get("components") or []:
            if top.get("type") == 1:
                submitted.append(
                    {"type": 1, "components": [answer(c) for c in top.get("components") or []]}
                )
            elif top.get("type") == 18 and top.get("component"):
                submitted.append({"type": 18, "component": answer(top["component"])})
        channel = channel or (
            modal.channel if isinstance(modal, InteractionResult) else self.channel
        )
        data = {"custom_id": spec["custom_id"], "components": submitted}
        origin = modal.message if isinstance(modal, InteractionResult) and modal.type == 3 else None
        payload = self._interaction_payload(5, user, channel, data, origin)
        return await self.interact(
            payload,
            user,
            channel,
            component_message=origin,
            expect_error=expect_error,
            expect_response=expect_response,
        )
