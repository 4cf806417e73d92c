"""Feeding the gateway: raw dispatches, the interaction payloads Discord would send
(guild, BOT_DM and PRIVATE_CHANNEL contexts; guild or user install) and running them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import Any

import discord

from .core import (
    ErrorSpec,
)
from .model import (
    _INTERACTION_TYPE_NAMES,
    FakeChannel,
    FakeUser,
    HarnessError,
    InteractionResult,
    RecordedMessage,
    SchemaViolation,
    wire_copy,
)
from .server import (
    _Interaction,
)


class GatewayMixin:
    """Part of :class:`harness.Harness`; its state lives in HarnessCore."""

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
            "app_permissions": str(self.server.permissions_of(self.server.bot_user)
                                   if channel.is_dm or channel.is_private else
                                   self.server.channel_permissions_of(self.server.bot_user,
                                                                      channel)),
        }
        owners = ({"1": str(user.id)} if self.server.user_install_only
                  else {"0": str(self.server.guild_id)})
        if channel.is_private:
            if user not in channel.members:
                raise SchemaViolation(f"{user.name} is not in {channel.name}")
            other = next(m for m in channel.members if m is not user)
            payload["channel"] = {**channel.payload(), "recipients": [other.user_payload()]}
            payload["user"] = user.user_payload()
            payload["context"] = 2
            payload["authorizing_integration_owners"] = {"1": str(user.id)}
            payload["app_permissions"] = str(discord.Permissions.none().value)
        elif channel.is_dm:
            if channel.recipient is not user:
                raise SchemaViolation(
                    f"{user.name} cannot act in {channel.name}, a DM with someone else"
                )
            payload["channel"] = channel.payload()
            payload["user"] = user.user_payload()
            payload["context"] = 1
            payload["authorizing_integration_owners"] = owners
        else:
            if not user.in_guild:
                raise SchemaViolation(f"{user.name} is not a member of the harness guild")
            perms = self.server.permissions_of(user)
            payload["guild_id"] = str(self.server.guild_id)
            payload["guild_locale"] = self.server.guild_locale
            payload["guild"] = {"id": str(self.server.guild_id),
                                "locale": self.server.guild_locale,
                                "features": list(self.server.guild_features)}
            payload["channel"] = channel.payload(permissions=perms)
            payload["member"] = user.member_payload(permissions=perms)
            payload["context"] = 0
            payload["authorizing_integration_owners"] = owners
            if self.server.user_install_only:  # the bot is no member: nothing of its own
                payload["app_permissions"] = str(discord.Permissions.none().value)
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
        first_request = len(self.http.requests)
        first_message = max(self.server.messages, default=0)
        result = self.deliver(payload, user, channel, component_message=component_message)
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

    def deliver(
        self,
        payload: dict[str, Any],
        user: FakeUser,
        channel: FakeChannel,
        *,
        component_message: RecordedMessage | None = None,
        arrived: float | None = None,
    ) -> InteractionResult:
        """Hand a prepared INTERACTION_CREATE payload to discord.py and return at once.

        No settling and no error check: a load generator (bench/) delivers interactions at
        their scheduled times whatever the bot is still doing (open-loop arrivals), then
        settles and calls ``raise_errors`` itself. ``arrived`` (loop time, default now) is
        when the user acted: Discord's response window (``server.response_deadline``) runs
        from then, so an arrival the bot's busy loop let in late has less of it left.
        """
        started = time.thread_time()  # the fake's own part; discord.py's parsing is the bot's
        iid = int(payload["id"])
        result = InteractionResult(
            iid, payload["token"], int(payload["type"]), user, channel, payload
        )
        loop = asyncio.get_running_loop()
        rec = _Interaction(
            result,
            loop.time() if arrived is None else arrived,
            component_message.id if component_message else None,
        )
        result.arrived = rec.created
        self.server.interactions[iid] = rec
        self.server._by_token[result.token] = rec
        self._wrap_error_hooks()
        copied = wire_copy(payload)
        self.server.cpu += time.thread_time() - started
        self._state.parsers["INTERACTION_CREATE"](copied)
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
