"""English and Japanese for the bot's own words.

Two mechanisms, because Discord has two: command names, descriptions and choice names are
localized *by Discord's client* from what `RookTranslator` uploads at sync time, while
everything the bot writes is picked per message from the reader's locale (`lang_of`).
Every text is in the catalogue (i18n/en.po, i18n/ja.po): commands under `command.*`, the bot's
messages under `bot.*`, phase/decision/level names under `phase.*`, `decision.*`, `level.*`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import discord
from discord import app_commands

import i18n
from render.central import PHASE_MARKS
from service.lines import parse
from service.refusals import reason

from .mentions import safe
from .text import markdown

# ---- command names, descriptions, choice names (uploaded to Discord) --------------------------

class RookTranslator(app_commands.Translator):
    """Command names/descriptions for Discord's client in every catalogue's language
    (Japanese; a locale without a catalogue: English).

    A text is found by the id its decorator names (`_("remove", id="command.bot.remove")`,
    where one English word needs two translations) or else by its English text."""

    def __init__(self) -> None:
        # A sync asks for every text in each of Discord's ~30 locales (7,000 calls), nearly
        # all of them English: each locale's catalogue is looked up once per translator.
        self._langs: dict[discord.Locale, str] = {}

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        lang = self._langs.get(locale)
        if lang is None:
            lang = self._langs[locale] = i18n.lang_of_locale(locale.value)
        if lang == i18n.DEFAULT:  # the decorators' own text
            return None
        extra = string.extras.get(lang)
        if isinstance(extra, str):  # a text given with its own translation (`ja=…`)
            return extra
        mid = string.extras.get("id") or i18n.command_id(string.message)
        if not isinstance(mid, str) or mid not in i18n.CATALOGUES[lang].singular:
            return None
        return i18n.t(lang, mid)


# ---- the bot's messages ----------------------------------------------------------------------

def lang_of(interaction: discord.Interaction) -> str:
    """The reader's language: a client whose locale has a catalogue gets it, everyone else
    English."""
    return i18n.lang_of_locale(str(interaction.locale))


DISCORD_DEFAULT_LOCALE = "en-US"  # what Discord reports for a server nobody set a locale for


def guild_lang(interaction: discord.Interaction) -> str:
    """The language of public posts in a server: its community locale — unless the server
    is no Community server, whose locale Discord reports as en-US though nobody chose it;
    there the language of whoever opens the game (the Japanese audit: three Japanese players
    in a friends' server got every public post in English)."""
    loc = interaction.guild_locale
    if loc is None:
        return i18n.lang_of_locale(str(interaction.locale))
    guild = interaction.guild
    chosen = str(loc) != DISCORD_DEFAULT_LOCALE or (
        guild is not None and "COMMUNITY" in guild.features)
    return i18n.lang_of_locale(str(loc if chosen else interaction.locale))


LEVELS = "level"  # AI levels' names (service/seats.py names the bot seats with them)
PHASES = "phase"  # one table for images, status, alt text and the console (catalogue)
KINDS = "decision"  # what a player is being asked


def languages() -> tuple[str, ...]:
    """Every language the bot speaks (one per catalogue)."""
    return tuple(i18n.CATALOGUES)


def join(items: Any, lang: str) -> str:
    """A list in the reader's language (the catalogue's separator: `Ann, Bob` / `Ann、Bob`)."""
    return i18n.join(lang, items)


def t(key: str, lang: str, **kw: Any) -> str:
    """The bot's message `bot.<key>` (a counted one when the catalogue has plural forms)."""
    return text(lang, f"bot.{key}", **kw)


def text(lang: str, mid: str, **kw: Any) -> str:
    """A catalogue message as Discord shows it: a command it names (`<cmd>new</cmd>`) as
    the reader's client lists it (`` `/rr 新規` ``), an answer (`<code>…</code>`) as code. The template is split into its marked
    pieces before it is filled, so a name that looks like a mark stays a name."""
    if "n" in kw and i18n.is_plural(mid):
        template = i18n.plural_template(lang, mid, kw["n"])
    else:
        template = i18n.template(lang, mid)
    if "<cmd>" not in template and "<code>" not in template:
        return template.format(**i18n.params(lang, kw))
    return markdown(parse(template, **i18n.params(lang, kw)), lang)


def result_text(result: Mapping[str, Any], names: list[str], lang: str) -> str:
    """A finished game's result: who won (or a draw, or the monsters) and why."""
    winners = join((safe(names[s]) for s in result.get("winners", [])), lang)
    key = "result_loss" if not winners else "result_draw" if result.get("draw") else "result_win"
    return t(key, lang, winners=winners, reason=reason(result, lang))


def difficulty_name(name: str, lang: str) -> str:
    """A solo difficulty (R13.2) as its command choice reads."""
    text = i18n.t(lang, f"command.{name}")
    return name if text == f"command.{name}" else text


def pair(table: str, key: str, lang: str) -> str:
    """The name of `key` in one of the catalogue's name tables (`PHASES`, `KINDS`, `LEVELS`);
    a key the table lacks is shown as it is."""
    mid = f"{table}.{key}"
    text = i18n.t(lang, mid)
    if table == PHASES and key in PHASE_MARKS:  # the rulebook's step number: ⑤ Invasion
        return f"{PHASE_MARKS[key]} {text}"
    return key if text == mid else text
