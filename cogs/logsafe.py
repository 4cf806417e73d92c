"""No secret in the log, whatever RR_LOG_LEVEL says.

At DEBUG, discord.py logs every HTTP request body and response (`discord.http`: "POST
…/messages with {json} has returned 200", "… has received {json}") and every gateway event
(`discord.gateway`): a DM carrying a player's medal value, an ephemeral reply with their
private lines, the bot's own messages echoed back. A filter on those loggers replaces each
payload argument by its size before any handler sees the record, so the line keeps what
is useful to debug (method, URL, status, event) and loses the content. Interaction tokens
in webhook URLs (each lets its holder answer as the bot for 15 minutes) are masked too.
(aiosqlite's job log is silenced separately in cogs/bot.py.)
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

PAYLOAD_LOGGERS = ("discord.http", "discord.gateway", "discord.webhook.async_")
TOKEN_IN_URL = re.compile(r"(/(?:webhooks|interactions)/\d+/)[^/?\s]+")


def _hidden(arg: Any) -> Any:
    """A payload argument becomes a placeholder; scalars (method, URL, status, ids) stay."""
    if isinstance(arg, (Mapping, list, tuple, bytes, bytearray)):
        return f"<payload hidden: {len(arg)} items>" if not isinstance(arg, (bytes, bytearray)) \
            else f"<payload hidden: {len(arg)} bytes>"
    if isinstance(arg, str):
        head = arg.lstrip()[:1]
        if head in ("{", "["):
            return f"<payload hidden: {len(arg)} chars>"
        return TOKEN_IN_URL.sub(r"\1<token>", arg)
    if arg is None or isinstance(arg, (int, float)):
        return arg
    return f"<payload hidden: {type(arg).__name__}>"  # e.g. aiohttp.FormData (a file upload)


class HidePayloads(logging.Filter):
    """Rewrites a record's arguments (never drops the record)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, Mapping):  # logging unpacks a single dict argument into `args`
            record.args = (_hidden(args),)
        elif isinstance(args, tuple):
            record.args = tuple(_hidden(a) for a in args)
        return True


def install() -> None:
    """Attach the filter to discord.py's payload loggers (once per process)."""
    for name in PAYLOAD_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, HidePayloads) for f in logger.filters):
            logger.addFilter(HidePayloads())
