"""The fake Discord's data: constants, errors, snowflakes, the fake users, roles,
channels and attachments (each builds its own gateway/API payload), and the records of
what the bot did (requests, messages, interaction results).
"""

from __future__ import annotations

import copy
import datetime as dt
import http
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

# Message flags (https://discord.com/developers/docs/resources/message#message-object-message-flags)
EPHEMERAL = 1 << 6
LOADING = 1 << 7
# Discord's window for an interaction's initial response (a reply, a defer, autocomplete
# choices), counted from the user's action: later, the token answers 404 / 10062 "Unknown
# interaction". The fake Discord enforces it and the benches count a miss by it.
RESPONSE_DEADLINE = 3.0
TOKEN_LIFETIME = 15 * 60.0  # an interaction token: followups and edits for 15 minutes
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


class BadSnowflake(HarnessError):
    """The bot sent an id that is not a snowflake (a negative or made-up id, a name where
    an id belongs). Discord answers 400 / 50035, and the bot usually only logs that — so
    the harness also fails the test, as it does for an unhandled route."""


class OverLimit(HarnessError):
    """The bot sent a message over one of Discord's documented limits (2000 characters of
    content, an embed's 6000, 25 select options, an 80-character button label...).
    Discord refuses the whole message (400 / 50035) and the bot usually only logs that, so
    the post is lost without a trace a test would see: the harness fails the test."""


class UnsafePing(HarnessError):
    """A message whose text would ping @everyone, @here or a role: its allowed mentions
    (or their absence, which Discord reads as "parse everything") let a mention in the
    text through. A display name with `@everyone` in it must never reach the server."""


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


_WIRE_ATOMS = frozenset({str, int, float, bool, type(None)})


def wire_copy(value: Any) -> Any:
    """A copy of a JSON-shaped value (what crosses Discord's wire: dicts, lists, strings,
    numbers), equal to `copy.deepcopy`'s but without its memo and dispatch. The fake Discord
    copies every body, answer and payload it keeps, so the bot and the records never share a
    dict; with deepcopy that copying was about a third of the event loop's CPU in
    bench/bot.py (issue 22), which then measured the harness as much as the bot. Anything
    else (a subclass, an object) is deep-copied as before."""
    kind = type(value)
    if kind is dict:
        return {k: wire_copy(v) for k, v in value.items()}
    if kind is list:
        return [wire_copy(v) for v in value]
    if kind in _WIRE_ATOMS:
        return value
    if kind is tuple:
        return tuple(wire_copy(v) for v in value)
    return copy.deepcopy(value)


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
    # A private channel (Discord's context 2): a DM between two users that the bot is not
    # part of; it sees it only through interactions of its user-installed commands.
    members: tuple[FakeUser, ...] = ()
    # A thread's state (its `thread_metadata`): archived after inactivity or by hand (a post
    # unarchives it), locked by a moderator (only Manage Threads may post or unarchive).
    archived: bool = False
    locked: bool = False

    @property
    def is_private(self) -> bool:
        """A DM the bot is not in: its channel routes answer 403 Missing Access."""
        return bool(self.members)

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
                    "archived": self.archived,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": _iso(),
                    "locked": self.locked,
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
            "embeds": wire_copy(self.embeds),
            "components": wire_copy(self.components),
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
            "embeds": wire_copy(self.embeds),
            "components": wire_copy(self.components),
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
            payload["message_reference"] = wire_copy(self.message_reference)
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
    # Loop times (the fake Discord's clock): when the user acted, when the bot's first
    # initial response reached Discord (even one refused as too late) and its first
    # followup. What a bench measures latency and missed windows by.
    arrived: float = 0.0
    callback_at: float | None = None
    followup_at: float | None = None

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
