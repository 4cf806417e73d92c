"""The HTTP edge: discord.py's two request functions patched into FakeDiscord, every
request recorded (RecordedHTTP), with scripted failures (fail()) and extra routes.
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

import discord
from discord.http import HTTPClient, Route

from .checks import LimitRefusal, SnowflakeRefusal, request_ping_problem
from .model import (
    BadSnowflake,
    HarnessError,
    HTTPError,
    OverLimit,
    RecordedFile,
    Request,
    UnsafePing,
    _discord_exception,
    wire_copy,
)
from .server import (
    FailureRule,
    FakeDiscord,
    Handler,
    _template_regex,
)

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
        # Told of what the bot did wrong at the edge (an unhandled route, an id that is not
        # a snowflake); the harness records it as the test's failure.
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

    async def _off_the_clock(self, started: float, seconds: float) -> float:
        """Let the bot's other tasks run for `seconds` (0: one turn of the loop), which is
        no CPU of the fake's: its span so far is counted, and a new one starts after."""
        self.server.cpu += time.thread_time() - started
        await asyncio.sleep(seconds)
        return time.thread_time()

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
        # The built-in handlers never wait, so this CPU is all the fake's (a test's own async
        # route could let other tasks run inside the span; bench/bot.py registers none).
        started = time.thread_time()
        try:
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
                    json=wire_copy(body),
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
                            started = await self._off_the_clock(started, rule.retry_after)
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
                    if isinstance(exc, SnowflakeRefusal):  # a bot bug, even when it is swallowed
                        self.on_unhandled(BadSnowflake(
                            f"{request.method} {request.path}: not a snowflake: {exc.errors}"))
                    elif isinstance(exc, LimitRefusal):  # a lost post, even when swallowed
                        self.on_unhandled(OverLimit(
                            f"{request.method} {request.path}: over Discord's limits: "
                            f"{exc.errors}"))
                    raise _discord_exception(exc.status, exc.body()) from None
                except HarnessError as exc:
                    request.status = 599
                    self.on_unhandled(exc)
                    raise
                request.status = 204 if result is None else 200
                if problem := request_ping_problem(request):
                    self.on_unhandled(UnsafePing(f"{request.method} {request.path} {problem}"))
                request.response = wire_copy(result)
                # Discord has the request now; its response reaches the bot a network round
                # trip later, and the bot's other tasks run meanwhile. Without this, a burst
                # of interactions was served one whole interaction after another: the last
                # one's acknowledgement waited for every earlier one's work.
                started = await self._off_the_clock(started, 0)
                return result
            assert last_error is not None
            raise _discord_exception(last_error.status, last_error.body())
        finally:
            self.server.cpu += time.thread_time() - started

