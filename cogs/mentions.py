"""Display names in message text, and who a message may ping.

Names are whatever users typed as their display name: printed raw, `**@everyone** <@123>`
would bold text, and without limits could ping the whole server or someone not in the game.
So every name that goes into a message passes through `safe`, and every message says
exactly whom it may ping (`only`); the bot's default is to ping nobody (`NOBODY`).
"""

from __future__ import annotations

import re

import discord

NOBODY = discord.AllowedMentions.none()
_EVERYONE = re.compile(r"@(?=(?:everyone|here)\b)", re.IGNORECASE)
# bidi embeddings, overrides and isolates: their effect runs past the name to the end of
# the line, so a name with U+202E turned the rest of every line naming it around
_BIDI_SPANNING = dict.fromkeys([*range(0x202A, 0x202F), *range(0x2066, 0x206A)])


def safe(name: object) -> str:
    """A display name as literal text: mentions defused, markdown escaped.

    `escape_mentions` only defuses lower-case @everyone/@here and ids of snowflake length; `<@123>`, `<#1>`, `<t:0>` or an
    emoji tag would still render as a pill, so any `<` gets a zero-width space after it.
    Bidi overrides, embeddings and isolates are left out (`_BIDI_SPANNING`).
    """
    text = discord.utils.escape_mentions(str(name).translate(_BIDI_SPANNING))
    text = text.replace("<", "<\u200b")
    text = _EVERYONE.sub("@\u200b", text)  # "@Everyone" too: escape_mentions is case-sensitive
    return discord.utils.escape_markdown(text)


def user_name(user: discord.abc.Snowflake) -> str:
    """A user named in a command option, as literal text: their display name, or — when
    Discord sent only the id (a user the bot has never seen) — their mention, which each
    reader's client renders as the name it knows (the bot's messages ping nobody)."""
    name = getattr(user, "display_name", None)
    return safe(name) if name is not None else f"<@{int(user.id)}>"


def only(*user_ids: int) -> discord.AllowedMentions:
    """Allowed mentions for a message meant to ping exactly these users (never @everyone,
    never a role, never the author of a replied-to message).

    Only people can be pinged: an AI seat's id is negative (service/seats.py), and Discord
    refuses the whole message (400, 50035) for an id that is not a snowflake or one named
    twice — so those are left out here, once for every caller."""
    users = dict.fromkeys(int(u) for u in user_ids if is_person(u))
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                   users=[discord.Object(u) for u in users])


def is_person(user_id: int) -> bool:
    """Whether a seat's user id is a Discord user's (an AI seat's is negative)."""
    return int(user_id) > 0
