"""The harness itself: the bot logged in against FakeDiscord, the entities tests
create, queries of what was posted, error capture and settling the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import linecache
import logging
import mimetypes
import os
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self
from unittest import mock

import discord
from discord import app_commands
from discord.ext import commands
from discord.http import HTTPClient, Route
from discord.ui.modal import Modal
from discord.ui.view import BaseView
from discord.webhook.async_ import AsyncWebhookAdapter

from engine.errors import ActionError

from .http_edge import (
    RecordedHTTP,
)
from .model import (
    _CDN,
    DEFAULT_BOT_PERMISSIONS,
    DEFAULT_EVERYONE_PERMISSIONS,
    RESPONSE_DEADLINE,
    FakeAttachment,
    FakeChannel,
    FakeRole,
    FakeUser,
    HarnessError,
    RecordedMessage,
    Request,
    SettleTimeout,
    _FakeResponse,
    _unwrap,
)
from .server import (
    FakeDiscord,
)

# --------------------------------------------------------------------------- the harness


#: Only one harness at a time: the HTTP edge is patched class-wide.
_active_harness: HarnessCore | None = None


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
# The project's own code (the product and the tests, not the virtualenv's packages): a
# worker thread stopped in it is working, whatever its line says. Only the standard library
# and installed packages (a queue's `get`, a lock's `acquire`, a selector) park an idle
# worker; a line of our own such as `con.execute(f"… {','.join(marks)}")` is a statement
# SQLite is still running (or a retry's `time.sleep`), and taking it for a wait let `settle`
# end before the store's group commit had (issue 21: a rare early quiet under load).
_PROJECT = str(Path(__file__).resolve().parents[2]) + os.sep
_PACKAGES = _PROJECT + ".venv" + os.sep


def _project_code(filename: str) -> bool:
    return filename.startswith(_PROJECT) and not filename.startswith(_PACKAGES)


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


class HarnessCore:
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
        response_deadline: float | None = RESPONSE_DEADLINE,
        watch_threads: bool = True,
        max_settle_iterations: int = 100_000,
        server: FakeDiscord | None = None,
    ) -> None:
        self._bot_source = bot
        self._schema_cache: tuple[tuple[object, ...], list[dict[str, Any]]] | None = None
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

    def text_channel(self, name: str, *, hidden_from_all_but: tuple[int, ...] | None = None
                     ) -> FakeChannel:
        """Create a guild text channel (delivered as CHANNEL_CREATE); `hidden_from_all_but`:
        a private channel, VIEW_CHANNEL denied to @everyone and allowed to those user ids."""
        channel = self.server.add_channel(name)
        if hidden_from_all_but is not None:
            view = str(discord.Permissions(view_channel=True).value)
            guild = self.server.guild_id
            channel.overwrites[guild] = {"id": str(guild), "type": 0, "allow": "0", "deny": view}
            for uid in hidden_from_all_but:
                channel.overwrites[uid] = {"id": str(uid), "type": 1, "allow": view, "deny": "0"}
        if self._bot is not None:
            self._state.parsers["CHANNEL_CREATE"](channel.payload())
        return channel

    def thread(self, name: str, *, parent: FakeChannel | None = None,
               owner: FakeUser | None = None) -> FakeChannel:
        """A public thread of ``parent`` (#general), delivered as THREAD_CREATE."""
        parent = parent if parent is not None else self.channel
        thread = self.server.add_channel(name, type=11, parent_id=parent.id,
                                         owner_id=None if owner is None else owner.id)
        if self._bot is not None:
            self._state.parsers["THREAD_CREATE"]({**thread.payload(), "newly_created": True})
        return thread

    def set_thread(self, thread: FakeChannel, *, archived: bool | None = None,
                   locked: bool | None = None) -> None:
        """A moderator (or Discord's inactivity timer) archives or locks ``thread``:
        THREAD_UPDATE is delivered as Discord sends it, and later interactions there carry
        the new ``thread_metadata``."""
        thread.archived = thread.archived if archived is None else archived
        thread.locked = thread.locked if locked is None else locked
        if self._bot is not None:
            self._state.parsers["THREAD_UPDATE"](thread.payload())

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The DM channel with ``user``; pass it as ``channel=`` to act from DMs."""
        return self.server.dm_channel(user)

    def private_channel(self, user: FakeUser, other: FakeUser) -> FakeChannel:
        """A DM between two users, not the bot (context PRIVATE_CHANNEL); see
        :meth:`FakeDiscord.private_channel`."""
        return self.server.private_channel(user, other)

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
        """The command payloads ``tree.sync()`` would upload (global + harness guild).

        Built again only when the tree's set of command objects changed: every slash and
        autocomplete resolves against it, and building it walks the whole /rr tree (about
        2 % of the fast loop's CPU when it was built for each interaction)."""
        tree = self.bot.tree
        guild = discord.Object(self.server.guild_id)
        globals_, locals_ = tree._get_all_commands(guild=None), tree._get_all_commands(guild=guild)
        key = (*globals_, None, *locals_)  # the objects, held, so no id can be reused
        cached = self._schema_cache
        if cached is not None and len(cached[0]) == len(key) \
                and all(a is b for a, b in zip(cached[0], key, strict=True)):
            return cached[1]
        schema = [cmd.to_dict(tree) for cmd in globals_]
        for cmd in locals_:
            schema.append({**cmd.to_dict(tree), "guild_id": str(self.server.guild_id)})
        self._schema_cache = (key, schema)
        return schema

    # ----- lifecycle

    @property
    def _state(self) -> Any:
        return self.bot._connection

    async def __aenter__(self) -> Self:
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
        ready = {
            "v": 10,
            "user": self.server.bot_user.user_payload(),
            "guilds": [self.server.guild_payload()],
            "session_id": "harness-session",
            "resume_gateway_url": "wss://gateway.invalid",
            "application": {"id": str(self.server.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
        }
        if not isinstance(state, discord.state.AutoShardedConnectionState):
            state.parsers["READY"](ready)
            return
        # An AutoShardedBot: one READY per shard it runs, as launch_shards would get them.
        # The guild comes with its own shard (Discord's formula), or with the first one when
        # the bot does not run that shard (a misrouted event: tests of shard ownership).
        bot = self.bot
        count = bot.shard_count or 1
        ids = list(bot.shard_ids or range(count))
        state.shard_count, state.shard_ids = count, ids
        home = (self.server.guild_id >> 22) % count
        home = home if home in ids else ids[0]
        for sid in ids:
            state.parsers["READY"](
                {**ready, "shard": [sid, count], "guilds": ready["guilds"] if sid == home else []}
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
                # A refusal (the engine's `ActionError` root, issue 21) reaches the tree by
                # design: the bot's one handler answers it there. Anything else is a bug.
                if not isinstance(_unwrap(error), ActionError):
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
            if _project_code(frame.f_code.co_filename) or not any(
                    marker in line for marker in _IDLE_LINE_MARKERS):
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
            looked = time.thread_time()  # looking for quiet is the harness's CPU, not the bot's
            busy = self._busy_reason(loop)
            self.server.cpu += time.thread_time() - looked
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
