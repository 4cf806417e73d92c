"""Slash commands and autocomplete: each invocation is checked against the synced
command schema (what Discord's client would refuse never reaches the bot).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import discord

from .core import (
    ErrorSpec,
)
from .model import (
    _MAX_SAFE_INTEGER,
    _OPTION_TYPE_NAMES,
    FakeAttachment,
    FakeChannel,
    FakeRole,
    FakeUser,
    InteractionResult,
    SchemaViolation,
)


class SlashMixin:
    """Part of :class:`harness.Harness`; its state lives in HarnessCore."""

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
        if channel.is_private and 2 not in (root.get("contexts") or [0, 1]):
            raise SchemaViolation(f"/{parts[0]} is not available in private channels")
        if (channel.is_private or self.server.user_install_only) and 1 not in (
            root.get("integration_types") or [0]
        ):
            raise SchemaViolation(f"/{parts[0]} cannot be installed by a user")
        if channel.is_dm and not channel.is_private and (
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
                # Discord: a resolved member's permissions are theirs in the channel the
                # interaction came from, its overwrites included
                member = user.member_payload(
                    permissions=self.server.channel_permissions_of(user, channel),
                    with_user=False,
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

    def slash_payload(
        self,
        user: FakeUser,
        command: str,
        *,
        channel: FakeChannel | None = None,
        options: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """The INTERACTION_CREATE payload of ``slash`` without delivering it (for
        ``deliver``: a bench schedules it); checked against the schema all the same."""
        channel = channel or self.channel
        data = self._command_data(command, user, channel, {**(options or {}), **kwargs})
        return self._interaction_payload(2, user, channel, data)

    def autocomplete_payload(
        self,
        user: FakeUser,
        command: str,
        *,
        focused: str,
        channel: FakeChannel | None = None,
        options: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """The INTERACTION_CREATE payload of ``autocomplete`` without delivering it."""
        channel = channel or self.channel
        given = {**(options or {}), **kwargs}
        data = self._command_data(command, user, channel, given, focused=focused)
        return self._interaction_payload(4, user, channel, data)

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
        payload = self.slash_payload(user, command, channel=channel, options=options, **kwargs)
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
        payload = self.autocomplete_payload(
            user, command, focused=focused, channel=channel, options=options, **kwargs
        )
        return await self.interact(payload, user, channel, expect_error=expect_error)
