"""FakeDiscord: a small in-memory model of Discord's server side (guild, channels, DMs,
messages, interactions, commands) and the REST/webhook routes that answer the bot.
"""

from __future__ import annotations

import copy
import fnmatch
import functools
import inspect
import mimetypes
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import discord

from .checks import (
    LimitRefusal,
    _raise_for_payload,
    _raise_for_snowflakes,
    _validate_message_payload,
    modal_problems,
)
from .model import (
    _CDN,
    COMPONENTS_V2,
    EPHEMERAL,
    LOADING,
    RESPONSE_DEADLINE,
    TOKEN_LIFETIME,
    FakeChannel,
    FakeRole,
    FakeUser,
    HarnessError,
    HTTPError,
    InteractionResult,
    RecordedFile,
    RecordedMessage,
    Request,
    _iso,
    _Snowflakes,
    wire_copy,
)

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
        # The app installed only by its users, not in the guild (Discord's user install):
        # interactions name the user as the authorizing owner and the bot is no member of
        # the guild, so its own posts to guild channels answer 403 Missing Access.
        self.user_install_only = False
        # the server's community locale (`guild_locale` of its interactions: the language
        # of a server's public posts); "ja" for a Japanese server
        self.guild_locale = "en-US"
        # a Community server (its locale chosen by its admins) lists "COMMUNITY"
        self.guild_features: list[str] = []
        self.clock: Callable[[], float] = lambda: 0.0
        self.response_deadline: float | None = RESPONSE_DEADLINE
        # An interaction token is valid for 15 minutes (followups, edits of the original);
        # after that Discord answers 401 / 50027 "Invalid Webhook Token".
        self.token_lifetime: float | None = TOKEN_LIFETIME
        # CPU seconds the event loop's thread spent in the fake Discord itself: answering
        # the bot's HTTP requests (handlers, checks, copies), preparing the interactions it
        # delivers, and looking for quiet (`settle`). It runs in the bot's process, so
        # bench/bot.py subtracts it (issue 22).
        self.cpu = 0.0
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

    def private_channel(self, user: FakeUser, other: FakeUser) -> FakeChannel:
        """A DM between ``user`` and ``other`` (not the bot): interactions there carry
        context 2 (PRIVATE_CHANNEL); the bot cannot read or post in it."""
        channel = FakeChannel(self.snowflake(), f"dm-{user.name}-{other.name}", type=1,
                              recipient=other, members=(user, other))
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

    def channel_permissions_of(self, user: FakeUser, channel: FakeChannel) -> int:
        """As Discord computes them in a channel: the server's, then the channel's
        overwrites (a thread takes its parent's) — @everyone's, the roles' together, the
        member's own; an administrator passes them all."""
        base = self.permissions_of(user)
        if base == discord.Permissions.all().value:
            return base
        holder = self.channels.get(channel.parent_id or 0) if channel.is_thread else channel
        overwrites = holder.overwrites if holder is not None else {}

        def applied(value: int, allow: int, deny: int) -> int:
            return (value & ~deny) | allow

        if (o := overwrites.get(self.guild_id)) is not None:
            base = applied(base, int(o["allow"]), int(o["deny"]))
        allow = deny = 0
        for role_id in user.role_ids:
            if (o := overwrites.get(role_id)) is not None:
                allow, deny = allow | int(o["allow"]), deny | int(o["deny"])
        base = applied(base, allow, deny)
        if (o := overwrites.get(user.id)) is not None:
            base = applied(base, int(o["allow"]), int(o["deny"]))
        return base

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
            "features": list(self.guild_features),
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "premium_tier": 0,
            "preferred_locale": self.guild_locale,
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
            embeds=wire_copy(list(body.get("embeds") or [])),
            components=wire_copy(list(body.get("components") or [])),
            flags=msg_flags,
            dm_user_id=channel.recipient.id if channel.recipient else None,
            message_reference=wire_copy(body.get("message_reference")),
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
            msg.embeds = wire_copy(list(body["embeds"] or []))
        if "components" in body:
            msg.components = wire_copy(list(body["components"] or []))
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
        """Answer a request or raise :class:`HTTPError`; unknown routes raise HarnessError.
        Ids are validated first, on every route (custom ones too), as Discord does."""
        _raise_for_snowflakes(request)
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
        return wire_copy(result)

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
            ("GET", "/guilds/{guild_id}/members/{member_id}"): self._get_member,  # http.get_member
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
        if channel.is_private or (self.user_install_only and not channel.is_dm):
            raise HTTPError(403, "Missing Access", code=50001)
        return channel

    def _require(self, permission: str, channel: FakeChannel | None = None) -> None:
        if channel is not None and channel.is_dm:
            return
        perms = discord.Permissions(self.permissions_of(self.bot_user) if channel is None
                                    else self.channel_permissions_of(self.bot_user, channel))
        if not getattr(perms, permission):
            raise HTTPError(403, "Missing Permissions", code=50013)

    def _interaction_for(self, request: Request) -> _Interaction:
        token = request.params.get("webhook_token", "")
        if int(
            request.params.get("webhook_id", 0)
        ) != self.application_id and not request.route.startswith("/interactions"):
            raise HTTPError(404, "Unknown Webhook", code=10015)
        rec = self._by_token.get(token)
        if rec is None or self.interactions.get(rec.result.interaction_id) is not rec:
            rec = next((r for r in self.interactions.values()  # recorded without the index
                        if r.result.token == token), None)
            if rec is None:
                raise HTTPError(404, "Unknown Webhook", code=10015)
            self._by_token[token] = rec
        if self.token_lifetime is not None and self.clock() - rec.created > self.token_lifetime:
            raise HTTPError(401, "Invalid Webhook Token", code=50027)
        return rec

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
        if res.callback_at is None:
            res.callback_at = self.clock()
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
            if problems := modal_problems(data):
                raise LimitRefusal(400, "Invalid Form Body", code=50035,
                                   errors={"data": problems})
            res.modal = wire_copy(data)
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
        if res.followup_at is None:
            res.followup_at = self.clock()
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
        else:  # as Discord asks: to see the channel, to post in it (a thread's own right), files
            self._require("view_channel", channel)
            self._require("send_messages_in_threads" if channel.is_thread else "send_messages",
                          channel)
            if request.files:
                self._require("attach_files", channel)
            if channel.is_thread:
                self._unarchive_to_post(channel)
        body = dict(request.json or {})
        if int(body.get("flags") or 0) & EPHEMERAL:
            body["flags"] = int(body["flags"]) & ~EPHEMERAL  # only interactions can be ephemeral
        return self.create_message(channel, body, request.files).payload()

    def _unarchive_to_post(self, thread: FakeChannel) -> None:
        """As Discord's threads topic says: "Sending a message will automatically unarchive
        the thread, unless the thread has been locked by a moderator" — a locked thread only
        Manage Threads may post in or unarchive. Refused as Discord answers: 50083 "Thread
        is archived" for an archived one, 160005 "Thread is locked" for an open one."""
        perms = discord.Permissions(self.channel_permissions_of(self.bot_user, thread))
        if thread.locked and not perms.manage_threads:
            if thread.archived:
                raise HTTPError(400, "Thread is archived", code=50083)
            raise HTTPError(403, "Thread is locked", code=160005)
        if thread.archived:
            thread.archived = False
            self._emit("THREAD_UPDATE", thread.payload())

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
        user = self.users.get(int(request.params.get("user_id")
                                  or request.params["member_id"]))
        if user is None:
            raise HTTPError(404, "Unknown User", code=10013)
        return user.user_payload()

    def _get_member(self, request: Request) -> dict[str, Any]:
        user = self.users.get(int(request.params.get("user_id")
                                  or request.params["member_id"]))
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
