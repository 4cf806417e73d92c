"""Telling a channel that its game is damaged and set aside (or back in play).

The service finds the damage (service/tables.py `Tables.load`) and quarantines the game; this is the
Discord side: one post in the game's channel, in the server's language, saying what was
found and what can be done about it — abandon it and open a new game, or have the bot's
operator restore the database (or repair the rows) and restart the bot. The same words
answer anyone who tries to play there (`refusal` in cogs/actions.py).
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from service.daily_slots import is_slot
from store import GameRow
from store.rows import is_whole

from .delivery import deliver
from .host import Host
from .i18n import join, t

log = logging.getLogger("rr.quarantine")


def damage_text(reason: dict[str, Any], lang: str) -> str:
    """What was found, in the reader's language (no exception text: that is for the log)."""
    kind = reason.get("kind")
    if kind == "unreadable":
        return t("damage_unreadable", lang, what=join(reason.get("what", []), lang))
    if kind == "log_gap":
        return t("damage_log_gap", lang, seq=reason.get("seq", "?"))
    if kind == "log_mismatch":
        return t("damage_log_mismatch", lang, rows=reason.get("rows", "?"),
                 recorded=reason.get("recorded", "?"))
    if kind == "replay":
        return t("damage_replay", lang)
    if kind == "newer":
        return t("damage_newer", lang)
    return t("damage_other", lang)


def is_daily(row: GameRow) -> bool:
    """A daily attempt's game: its key is a slot (service/daily_slots.py, negative), not a
    channel, and its player alone plays it — in their DMs, with no host to abandon it. Known
    by the key even when the row's settings are the damaged part."""
    return is_slot(row.channel_id)


def quarantine_refusal(row: GameRow, reason: dict[str, Any], lang: str) -> str:
    """The answer to anyone who tries to play (or open a game) in a quarantined channel."""
    if reason.get("kind") == "newer":  # not damage: an upgrade, not a restore, brings it back
        key = "quarantined_newer" if row.status != "over" and not is_daily(row) else \
            "quarantined_newer_kept"
        return t(key, lang, id=row.id, damage=damage_text(reason, lang))
    key = "quarantined_over" if row.status == "over" else \
        "quarantined_daily" if is_daily(row) else "quarantined"
    return t(key, lang, id=row.id, damage=damage_text(reason, lang))


async def tell_channel(bot: Host, row: GameRow, reason: dict[str, Any] | None) -> None:
    """Post once where the game is played: set aside (with what to do), or resumed (None).
    A daily game is told in its player's DMs (its key is no channel: posting there was
    refused by Discord, and the player never heard)."""
    if not is_whole(row.channel_id):  # (the damaged part: no channel, nor a player's slot)
        log.warning("game %s: no channel to tell it is %s (its channel id %r is damaged)",
                    row.id, "back in play" if reason is None else "set aside",
                    str(row.channel_id)[:40])
        return
    lang = row.settings.get("lang", "en")
    if reason is None:
        text = t("quarantine_lifted", lang, id=row.id)
    elif is_daily(row):
        text = t("quarantined_daily", lang, id=row.id, damage=damage_text(reason, lang))
    else:
        text = t("quarantine_notice", lang, id=row.id, damage=damage_text(reason, lang))

    async def send() -> Any:
        if is_daily(row):
            dm = await bot.create_dm(discord.Object(id=row.host_id))
            return await dm.send(text)
        return await bot.get_partial_messageable(row.channel_id).send(text)
    await deliver(f"game {row.id} quarantine notice", send)
