"""`/rr daily …`: the daily solo challenge in Discord (issue 10). Its day job is
cogs/daily_job.py, its leaderboard pages cogs/daily_board.py.

Thin on purpose: who may play what, once a day, is the daily host's (service/daily_play.py
and its rooms). A daily game is played in the player's DMs with the bot (cogs/README.md says
why): from a server, `/rr daily play` answers privately and posts the game to the DM; in
the DM it plays right there. The play commands and buttons find it through `actions.game_key`.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import aiohttp
import discord
from discord import app_commands

import i18n
from engine.errors import excerpt
from render.stats import stats_png
from service import daily as core
from service import daily_score
from service.daily_attempts import Started
from service.daily_play import DailyHost

from .actions import ack, cannot_post, in_server, posting_refusal, reply, rook
from .daily_board import board_page
from .daily_words import (
    DmUnreachable,
    challenge_text,
    next_challenge,
    odds_line,
    result_text,
    score_words,
)
from .delivery import deliver
from .host import Host, host_of
from .i18n import guild_lang, lang_of, t
from .mentions import safe
from .mixin import CommandsMixin

log = logging.getLogger("rr.daily")
_ = app_commands.locale_str



async def _acked_host(interaction: discord.Interaction, lang: str) -> DailyHost | None:
    """Acknowledge, then the bot's daily host (None: the interaction is not ours to answer;
    no daily host: a refusal, answered by the one handler)."""
    if not await ack(interaction):
        return None
    return host_of(rook(interaction))


async def _start_reply(interaction: discord.Interaction, host: DailyHost, st: Started,
                       lang: str) -> None:
    """The caller's answer, then the game in the DM: its opening posts, or (resumed) the
    table and the open question again. A request that lost the race to start the game
    (another process started it a moment before) says so and posts nothing: the winner
    posts the opening (its outbox row, if it died first)."""
    bot = rook(interaction)
    if st.outcome is not None:
        ann = bot.announcer.capture(st.outcome)
        await bot.announcer.tell(ann.notice, lambda: bot.announcer.publish_start(ann))
    elif not st.raced:
        await bot.announcer.repost(st.row, st.game)
    head = t("daily_started" if st.outcome is not None else
             "daily_running" if st.raced else "daily_resumed", lang)
    where = "" if in_bot_dm(interaction) or st.raced else t("daily_in_dm", lang)
    kind = "" if st.ranked else t("daily_practice_note", lang)
    focus = ""
    if await host.slots.both_open(st.row.host_id):  # two games in one DM: say which commands mean
        focus = t("daily_focus_ranked" if st.ranked else "daily_focus_practice", lang)
    lead = i18n.sentences(lang, head, kind, focus, where) + "\n"
    await reply(interaction, lead + await challenge_text(host, st.challenge, st.par, lang))
    if st.par is None:  # "the bot is still playing it" until the par is known, then the par
        host.watch(_show_par_when_known(interaction, host, st.challenge, lead, lang))


async def _show_par_when_known(interaction: discord.Interaction, host: DailyHost,
                               ch: core.Challenge, lead: str, lang: str) -> None:
    """The par is computed off the event loop (worker threads) after the answer was sent;
    once known it replaces 'still playing' in that answer. Never raises."""
    try:
        par = await host.par.compute(ch.day)
        text = lead + await challenge_text(host, ch, par, lang)
        await deliver(f"daily par for interaction {interaction.id}",
                      lambda: interaction.edit_original_response(content=text))
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("the par of %s could not be shown", ch.day)


def bad_date(typed: str | None, lang: str) -> str:
    """The refusal of a date that is none, quoting it as typed: cut before escaping (never
    half an escape) and in quotes, not a code span, where Discord shows escapes as they are."""
    return t("daily_bad_date", lang, text=safe(excerpt(typed or "", 40)))


def in_bot_dm(interaction: discord.Interaction) -> bool:
    """In the DM with the bot itself (context BOT_DM). A DM between two users, reached by
    the user-installed app (context PRIVATE_CHANNEL), is a DM too but the bot cannot post
    in it: the daily game must go to the bot's own DM then."""
    if interaction.guild_id is not None:
        return False
    if interaction.context.private_channel:
        return False
    return isinstance(interaction.channel, discord.DMChannel)


async def _dm_id(interaction: discord.Interaction,
                 what: Literal["attempt", "reminder"] = "attempt") -> int:
    """The player's DM with the bot: the same channel on every device and after restarts."""
    if in_bot_dm(interaction) and interaction.channel is not None:
        return interaction.channel.id
    # a server, a DM between users (context PRIVATE_CHANNEL) or a group DM: not ours to post in
    try:
        dm = await interaction.user.create_dm()
    except discord.HTTPException as e:  # Discord's failure, told as the refusal it is
        raise DmUnreachable(e, what) from e
    return dm.id


def dm_opener(bot: Host, dm_id: int, lang: str,
              what: Literal["attempt", "reminder"] = "attempt") -> Callable[[], Awaitable[None]]:
    """The first message in the player's DM, sent before the attempt is claimed (issue 18):
    creating a DM channel succeeds even when the player's DMs are closed — only a message
    tells. If Discord refuses it, the attempt stays unclaimed and the player hears how to
    allow DMs (`Refusal`), instead of "your challenge has started in your DMs" and a day
    lost to posts that all bounce."""
    async def reach() -> None:
        try:
            await bot.get_partial_messageable(dm_id).send(t(f"daily_dm_here_{what}", lang))
        except (discord.HTTPException, TimeoutError, aiohttp.ClientError, OSError) as e:
            log.info("daily: the DM %s could not be opened (%r); nothing changed", dm_id, e)
            raise DmUnreachable(e, what) from e
    return reach


async def open_attempt(interaction: discord.Interaction, lang: str,
                       open_: Callable[..., Awaitable[Started]]) -> None:
    """Start or resume an attempt (ranked or practice) for the caller, its game posted to
    their DMs; a refusal or closed DMs are answered privately, and leave nothing claimed."""
    host = host_of(rook(interaction))
    dm = await _dm_id(interaction)
    st = await open_(host, interaction.user.id, interaction.user.display_name,
                     interaction.guild_id if in_server(interaction) else None,
                     dm, reach=dm_opener(rook(interaction), dm, lang))
    await _start_reply(interaction, host, st, lang)


class DailyCommands(CommandsMixin):
    """Mixed into the `rr` group cog (cogs/game.py): one child, `/rr daily`."""

    daily = app_commands.Group(
        name=_("daily", id="command.daily"),
        description=_("The daily solo challenge: one ranked try a day"))

    @daily.command(name=_("play", id="command.daily.play"), description=_(
        "Start or resume today's challenge (in your DMs)"))
    async def daily_play(self, interaction: discord.Interaction) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction):
            return
        await open_attempt(interaction, lang,
                           lambda host, *who, reach: host.attempts.play(*who, lang, reach))

    @daily.command(name=_("practice", id="command.daily.practice"), description=_(
        "Replay a past day unranked (today's after your ranked try)"))
    @app_commands.describe(date=_("The day, YYYY-MM-DD (default: yesterday)"))
    async def daily_practice(self, interaction: discord.Interaction,
                             date: str | None = None) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction):
            return
        try:
            day = dt.date.fromisoformat(date.strip()) if date else None
        except ValueError:
            await reply(interaction, bad_date(date, lang))
            return
        await open_attempt(interaction, lang,
                           lambda host, *who, reach: host.attempts.practice(*who, lang, day, reach))

    @daily.command(name=_("leaderboard", id="command.daily.leaderboard"), description=_(
        "The day's best results (this server or everyone)"))
    @app_commands.describe(scope=_("This server or everyone"),
                           date=_("The day, YYYY-MM-DD (default: today)"))
    @app_commands.choices(scope=[app_commands.Choice(name=_("server", id="command.daily.server"),
                                                     value="server"),
                                 app_commands.Choice(name=_("everyone", id="command.daily.everyone"),
                                                     value="everyone")])
    async def daily_leaderboard(self, interaction: discord.Interaction,
                                scope: app_commands.Choice[str] | None = None,
                                date: str | None = None) -> None:
        lang = lang_of(interaction)
        if (host := await _acked_host(interaction, lang)) is None:
            return
        try:
            day = dt.date.fromisoformat(date.strip()) if date else None
        except ValueError:
            await reply(interaction, bad_date(date, lang))
            return
        # today as `play` claims it (the clock may be behind the day's close)
        day = day or await host.days.open_day(host.store)
        server = in_server(interaction) and (scope is None or scope.value == "server")
        text, view = await board_page(interaction, host, day, server, 0, lang)
        await reply(interaction, text, **({"view": view} if view else {}))

    @daily.command(name=_("resign", id="command.daily.resign"), description=_(
        "Give up today's ranked challenge (a loss)",
        id="command.help.daily_resign"))
    @app_commands.describe(confirm=_("True: yes, give it up (it cannot be undone)",
                                     id="command.help.daily_resign_confirm"))
    @app_commands.rename(confirm=_("confirm", id="command.confirm"))
    async def daily_resign(self, interaction: discord.Interaction, confirm: bool) -> None:
        lang = lang_of(interaction)
        if (host := await _acked_host(interaction, lang)) is None:
            return
        if not confirm:
            await reply(interaction, t("daily_resign_kept", lang))
            return
        settled = await host.attempts.resign(interaction.user.id)
        day = dt.date.fromisoformat(settled.attempt.day)  # the open day's, not the clock's
        stored = await host.par.get(day)
        par = daily_score.par_score(stored)
        await reply(interaction, t("daily_resigned", lang) + "\n" + result_text(
            settled.score, settled.share_in(lang), daily_score.versus_par(settled.score, par, lang),
            settled.standing, True, lang, next_ts=next_challenge(day),
            odds=odds_line(stored, lang)))

    @daily.command(name=_("stats", id="command.daily.stats"), description=_(
        "Your daily stats: played, win %, streaks"))
    async def daily_stats(self, interaction: discord.Interaction) -> None:
        lang = lang_of(interaction)
        if (host := await _acked_host(interaction, lang)) is None:
            return
        s = await host.board.stats(interaction.user.id)
        today = await host.store.attempt(interaction.user.id,
                                         (await host.days.open_day(host.store)).isoformat(), True)
        try:
            score = daily_score.Score.from_json(today.score) if today and today.score else None
        except ValueError:
            score = None
        highlight = score.rounds if score is not None and score.won else None
        data = await asyncio.to_thread(
            stats_png, played=s.played, won=s.won, win_percent=s.win_percent,
            win_streak=s.win_streak, best_win_streak=s.best_win_streak,
            played_streak=s.played_streak, best_played_streak=s.best_played_streak,
            best_points=s.best.points if s.best else None,
            rounds_to_win=s.rounds_to_win, highlight=highlight, lang=lang)
        alt = t("daily_stats_alt", lang, played=s.played, won=s.won, pct=s.win_percent,
                wins=s.win_streak, best_wins=s.best_win_streak, days=s.played_streak,
                best_days=s.best_played_streak,
                best=score_words(s.best, lang) if s.best else t("daily_stats_no_best", lang))
        text = alt
        share = daily_score.render_share(today.share, score, lang) if today is not None else None
        if share:  # today's line again, copyable, in the reader's language
            text += "\n" + t("daily_share_again", lang, share=share)
        await reply(interaction, text, file=discord.File(io.BytesIO(data), filename="daily.png",
                                                        description=alt[:1000]))

    @daily.command(name=_("settings", id="command.daily.settings"), description=_(
        "Daily news channel (Manage Server) and your streak reminder"))
    @app_commands.describe(channel=_("Channel for this server's daily news (Manage Server)"),
                           announcements=_("Post the daily news in this server (Manage Server)"),
                           reminder=_("DM me before 00:00 UTC when my streak is about to break"),
                           reminder_hour=_("Hour (UTC, 0–23) of my streak reminder; turns it on",
                                           id="command.help.daily_reminder_hour"))
    async def daily_settings(self, interaction: discord.Interaction,
                             channel: discord.TextChannel | None = None,
                             announcements: bool | None = None,
                             reminder: bool | None = None,
                             reminder_hour: app_commands.Range[int, 0, 23] | None = None
                             ) -> None:
        lang = lang_of(interaction)
        if (host := await _acked_host(interaction, lang)) is None:
            return
        said: list[str] = []
        if channel is not None or announcements is not None:
            perms: Any = interaction.permissions
            if not in_server(interaction) or interaction.guild_id is None:
                await reply(interaction, t("daily_server_only", lang))
                return
            if not perms.manage_guild:
                await reply(interaction, t("daily_need_manage", lang))
                return
            if announcements is False:
                await host.store.set_guild_channel(interaction.guild_id, None, lang)
                said.append(t("daily_news_off", lang))
            else:
                where = channel.id if channel is not None else interaction.channel_id or 0
                if missing := cannot_post(interaction, channel, files=False):
                    await reply(interaction, posting_refusal("daily_news_cannot_post",
                                                             missing, lang,
                                                             channel=f"<#{where}>"))
                    return
                await host.store.set_guild_channel(interaction.guild_id, where,
                                                   guild_lang_of(interaction))
                said.append(t("daily_news_on", lang, channel=f"<#{where}>"))
        if reminder is False:
            await host.store.set_reminder(interaction.user.id, None)
            said.append(t("daily_remind_off", lang))
        elif reminder or reminder_hour is not None:
            # reminded in the DM (if Discord lets us write there), in their language
            dm = await _dm_id(interaction, "reminder")
            await dm_opener(rook(interaction), dm, lang, "reminder")()
            await host.store.set_reminder(interaction.user.id, dm, lang, reminder_hour)
            setting = await host.store.reminder(interaction.user.id)
            said.append(await remind_words(host, setting[2] if setting else reminder_hour or 0,
                                           lang))
        if not said:  # no option given: what is set now, and how to change it
            said = await _daily_settings_now(interaction, host, lang)
        await reply(interaction, "\n".join(said))


def guild_lang_of(interaction: discord.Interaction) -> str:
    return guild_lang(interaction)


async def _daily_settings_now(interaction: discord.Interaction, host: DailyHost,
                              lang: str) -> list[str]:
    """`/rr daily settings` with no option: the server's news channel (in a server) and
    the caller's streak reminder as they are, then which options change them."""
    said = []
    if in_server(interaction) and interaction.guild_id is not None:
        news = await host.store.guild_channel(interaction.guild_id)
        said.append(t("daily_news_on", lang, channel=f"<#{news}>") if news is not None
                    else t("daily_news_none", lang))
    setting = await host.store.reminder(interaction.user.id)
    said.append(t("daily_remind_off", lang) if setting is None
                else await remind_words(host, setting[2], lang))
    return [*said, t("daily_settings_none", lang)]


async def remind_words(host: DailyHost, hour: int, lang: str) -> str:
    """The streak reminder that is on: its UTC hour and that hour in the reader's time, on
    the day `/rr daily play` claims (`Calendar.open_day`: a clock behind the day's close
    showed the closed day's hour, across a change of the reader's summer time an hour off
    the reminder to come)."""
    day = await host.days.open_day(host.store)
    return t("daily_remind_on", lang, hour=hour, ts=int(core.day_start(day) + hour * 3600))

