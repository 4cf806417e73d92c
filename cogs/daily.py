"""`/rr daily …`: the daily solo challenge in Discord (issue 10), and its day job.

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
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, get_args

import aiohttp
import discord
from discord import app_commands

import i18n
from engine.errors import excerpt
from render.stats import stats_png
from service import ServiceError, daily_score, daily_standings
from service import daily as core
from service.daily_attempts import Started
from service.daily_board import MemberCheck
from service.daily_play import DailyHost
from service.daily_slots import attempt_game
from service.daily_standings import Entry
from store import DailyNotice, DailyNoticeKind

from .actions import ack, cannot_post, in_server, posting_words, reply, rook
from .announce import NOTICE_ATTEMPTS, deliver, notice_retry_s, snowflake
from .daily_words import (
    DmUnreachable,
    difficulty_words,
    next_challenge,
    odds_line,
    par_words,
    result_text,
    score_words,
    standing_words,
    time_up_text,
)
from .i18n import guild_lang, lang_of, t
from .mentions import safe
from .mixin import CommandsMixin
from .recap_image import RECAP_LIMIT, Recap, recap_file, recap_gif_of

if TYPE_CHECKING:
    from .host import Host

log = logging.getLogger("rr.daily")
_ = app_commands.locale_str
PODIUM = ("🥇", "🥈", "🥉")
BOARD_SIZE = 10


def challenge_text(host: DailyHost, ch: core.Challenge, par: dict[str, Any] | None,
                   lang: str) -> str:
    """The day's challenge in the reader's language: number, difficulty, modifiers, par,
    and when it ends (a relative timestamp every client shows in local time)."""
    mods = "\n".join(f"• {m.name(lang)}" for m in ch.modifiers)
    key = "daily_card" if ch.day >= host.days.today() else "daily_card_past"  # no "ends" for a past day
    return t(key, lang, n=ch.number, day=ch.day.isoformat(),
             difficulty=difficulty_words(ch.difficulty, lang), mods=mods,
             par=par_words(par, lang), ts=int(core.day_end(ch.day)))


async def _acked_host(interaction: discord.Interaction, lang: str) -> DailyHost | None:
    """Acknowledge, then the bot's daily host (None: the interaction is not ours to answer;
    no daily host: a refusal, answered by the one handler)."""
    if not await ack(interaction):
        return None
    return host_of(rook(interaction))


def host_of(bot: Host) -> DailyHost:
    host: DailyHost | None = getattr(bot, "daily", None)  # None until setup_hook opened it
    if host is None:
        raise ServiceError.of("svc.daily_closed",
                           code="daily_closed")
    return host


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
    await reply(interaction, lead + challenge_text(host, st.challenge, st.par, lang))
    if st.par is None:  # "the bot is still playing it" until the par is known, then the par
        host.watch(_show_par_when_known(interaction, host, st.challenge, lead, lang))


async def _show_par_when_known(interaction: discord.Interaction, host: DailyHost,
                               ch: core.Challenge, lead: str, lang: str) -> None:
    """The par is computed off the event loop (worker threads) after the answer was sent;
    once known it replaces 'still playing' in that answer. Never raises."""
    try:
        par = await host.par.compute(ch.day)
        text = lead + challenge_text(host, ch, par, lang)
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
            day = dt.date.fromisoformat(date.strip()) if date else host.days.today()
        except ValueError:
            await reply(interaction, bad_date(date, lang))
            return
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
        stored = await host.par.get(host.days.today())
        par = daily_score.par_score(stored)
        await reply(interaction, t("daily_resigned", lang) + "\n" + result_text(
            settled.score, settled.share_in(lang), daily_score.versus_par(settled.score, par, lang),
            settled.standing, True, lang, next_ts=next_challenge(host.days.today()),
            odds=odds_line(stored, lang)))

    @daily.command(name=_("stats", id="command.daily.stats"), description=_(
        "Your daily stats: played, win %, streaks"))
    async def daily_stats(self, interaction: discord.Interaction) -> None:
        lang = lang_of(interaction)
        if (host := await _acked_host(interaction, lang)) is None:
            return
        s = await host.board.stats(interaction.user.id)
        today = await host.store.attempt(interaction.user.id, host.days.today().isoformat(), True)
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
                    await reply(interaction, t("daily_news_cannot_post", lang,
                                               channel=f"<#{where}>",
                                               missing=posting_words(missing, lang)))
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
            said.append(remind_words(host, setting[2] if setting else reminder_hour or 0, lang))
        if not said:  # no option given: what is set now, and how to change it
            said = await _daily_settings_now(interaction, host, lang)
        await reply(interaction, "\n".join(said))


def guild_lang_of(interaction: discord.Interaction) -> str:
    return guild_lang(interaction)


def board_name(entry: Entry) -> str:
    """The display name stored with the attempt, escaped (never a `<@id>` mention: it shows
    as an unknown user to anyone who shares no server with that player)."""
    return safe((entry.name or "?")[:32])  # cut before escaping: never half an escape


def board_line(rank: int, entry: Entry, lang: str, me: bool) -> str:
    medal = PODIUM[rank - 1] if rank <= len(PODIUM) else f"{rank}."
    line = f"{medal} {board_name(entry)} — {score_words(entry.score, lang)}"
    return f"**{line}** ◀ {t('daily_board_me', lang)}" if me else line


def member_check(bot: Host, guild_id: int) -> MemberCheck:
    """Membership of a server, asked of Discord per user (GET /guilds/{guild}/members/{user}:
    it needs no privileged members intent, unlike listing a server's members; cogs/README.md
    'Daily boards')."""
    http = bot.http

    async def check(user_id: int) -> bool | None:
        try:
            await http.get_member(guild_id, user_id)
        except discord.NotFound:
            return False
        except discord.HTTPException as e:
            log.warning("guild %s: membership of a board row unknown (HTTP %s)", guild_id,
                        e.status)
            return None
        return True
    return check


async def board_page(interaction: discord.Interaction, host: DailyHost, day: dt.date,
                     server: bool, page: int, lang: str) -> tuple[str, discord.ui.View | None]:
    """One page of a day's board for the caller: BOARD_SIZE rows, the caller's own row
    always (on the page, or under it), and ◀ ▶ buttons when there is more."""
    guild_id = interaction.guild_id if server else None
    if guild_id is not None:  # the caller is a member: the interaction says so
        await host.store.seen_in(guild_id, interaction.user.id)
    rows = await host.board.listing(day, guild_id, member_check(rook(interaction), guild_id)
                                    if guild_id is not None else None, interaction.user.id)
    pages = max(1, -(-len(rows) // BOARD_SIZE))
    page = min(max(page, 0), pages - 1)
    scope = t("daily_scope_server" if server else "daily_scope_all", lang)
    lines = [t("daily_board_head", lang, n=core.number_of(day), day=day.isoformat(),
               scope=scope, page=page + 1, pages=pages)]
    me = interaction.user.id
    shown = rows[page * BOARD_SIZE:(page + 1) * BOARD_SIZE]
    lines += [board_line(rank, e, lang, e.user == me) for rank, e in shown]
    if not rows:
        lines.append(t("daily_board_empty", lang))
    mine = next(((rank, e) for rank, e in rows if e.user == me), None)
    if mine is None:
        lines.append(t("daily_board_you_none", lang))
    elif mine not in shown:
        lines.append(t("daily_board_you", lang, line=board_line(*mine, lang, False),
                       standing=standing_words(daily_standings.Standing(mine[0], len(rows)), lang)))
    return "\n".join(lines), board_view(day, server, page, pages)


def board_view(day: dt.date, server: bool, page: int, pages: int) -> discord.ui.View | None:
    if pages <= 1:
        return None
    view = discord.ui.View(timeout=None)
    view.add_item(BoardPageButton(day, server, page - 1, "◀", disabled=page == 0))
    view.add_item(BoardPageButton(day, server, page + 1, "▶", disabled=page >= pages - 1))
    return view


class BoardPageButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                      template=r"rr:dboard:(?P<day>\d{8}):(?P<scope>[sa]):(?P<page>\d{1,5})"):
    """A board's page turner: the custom id holds the day, the scope and the page, so a
    click recomputes that page for the clicker (their own row, their server) after any
    restart."""

    def __init__(self, day: dt.date, server: bool, page: int, label: str = "▶",
                 disabled: bool = False) -> None:
        cid = f"rr:dboard:{day.strftime('%Y%m%d')}:{'s' if server else 'a'}:{max(page, 0)}"
        super().__init__(discord.ui.Button(label=label, custom_id=cid, disabled=disabled,
                                           style=discord.ButtonStyle.secondary))
        self.day, self.server, self.page = day, server, page

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction,
                             item: discord.ui.Item[Any], match: re.Match[str]
                             ) -> BoardPageButton:
        try:
            day = dt.datetime.strptime(match["day"], "%Y%m%d").date()
        except ValueError:  # not a date (no button of ours): the first day's board
            day = core.EPOCH
        return cls(day, match["scope"] == "s", int(match["page"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction, thinking=False):  # the board may ask Discord a while
            return
        host = host_of(rook(interaction))
        server = self.server and in_server(interaction)
        text, view = await board_page(interaction, host, self.day, server, self.page, lang)
        await deliver(f"daily board page for interaction {interaction.id}",
                      lambda: interaction.edit_original_response(content=text, view=view))


DAILY_ITEMS: Sequence[type[discord.ui.DynamicItem[Any]]] = (BoardPageButton,)


# ---- the day job -------------------------------------------------------------------------------

async def day_once(bot: Host) -> dict[str, int]:
    """One pass of the day job (every few minutes, `RookBot.day_loop`): today's par and its
    odds (once a day, about a minute of one worker thread, `PAR_ODDS_BUDGET_S` at most), closing
    yesterday (and queueing each of its players' recap), then the servers' news, the streak reminders and the "your day ended" notes
    through the daily outbox (`deliver_daily`). Each is queued once (a stored flag set in the transaction that
    queues it) and marked sent only after Discord took it, so a restart or an outage
    neither repeats nor loses one; each server and each user is delivered on its own (a
    failure is theirs alone). Returns what was sent (tests, bench)."""
    host = host_of(bot)
    today = host.days.today()
    sent = {"announced": 0, "reminded": 0, "closed": 0}
    await host.par.compute(today)  # worker threads: the event loop stays free
    try:  # the same, many games (bounded): the news carries them
        await host.par.odds(today)
    except asyncio.CancelledError:
        raise
    except Exception:  # the odds are extra: closing the day and the news go on without
        log.exception("par odds of %s failed; the next pass tries again", today)
    yesterday = today - dt.timedelta(days=1)
    closed = await host.results.close_day(yesterday)  # their notices: queued
    sent["closed"] = len(closed)
    now = host.days.clock()
    if await host.store.day_flag(yesterday.isoformat(), "closed"):
        # every ranked game of the closed day is final: each player's recap, once
        await host.store.queue_recaps(yesterday.isoformat(), now)
    await host.store.queue_news(today.isoformat(), now)
    hour = int((now - core.day_start(today)) // 3600)
    await host.store.queue_reminders(today.isoformat(), hour, now)
    told = await deliver_daily(bot)
    sent["announced"], sent["reminded"] = told["news"], told["reminder"]
    return sent


DAILY_KINDS: tuple[str, ...] = get_args(DailyNoticeKind)
"""The daily outbox's kinds this release tells (`DailyNoticeKind`). A row of another
(a newer release's, or damaged) is never worded as a reminder nor counted: it is left, with
the back-off, for a process that knows it, and dropped (logged) once none told it; it was
sent as a streak reminder, then raised KeyError and stopped the pass for every row after
it (the fault-injection audit)."""


async def deliver_daily(bot: Host) -> dict[str, int]:
    """The daily outbox: every news or reminder row due, each taken (so no other pass sends
    it), written in its reader's language as of now, sent, and removed only once Discord
    took it. Discord unreachable (5xx, timeouts): retried later (30 s, 2 min, 10 min, then
    hourly; dropped after 12 tries, logged), also after a restart. Refused for good (403,
    404: the channel is gone, DMs closed since) or no longer true (a past day's news, a
    streak kept since): dropped, logged. Returns how many of each kind were sent."""
    host = host_of(bot)
    sent = dict.fromkeys(DAILY_KINDS, 0)
    for notice in await host.store.take_notices(host.days.clock()):  # held: no other pass sends it
        known = notice.kind in sent
        if not known:
            log.warning("daily row %s: kind %r, unknown to this release; left for a newer one",
                        notice.id, notice.kind)
        told = await _tell_notice(bot, notice) if known else None
        if told is not None:  # sent, refused for good, or no longer true: it goes
            await host.store.notice_sent(notice.id)
            sent[notice.kind] += told
        elif notice.attempts + 1 >= NOTICE_ATTEMPTS:
            log.error("daily %s %s of %s: not delivered after %d tries; dropped", notice.kind,
                      notice.target, notice.day, notice.attempts + 1)
            await host.store.notice_sent(notice.id)
        else:
            delay = notice_retry_s(notice.attempts)
            await host.store.notice_retry(notice.id, host.days.clock() + delay)
        await asyncio.sleep(0)
    return sent


async def _tell_notice(bot: Host, notice: DailyNotice) -> bool | None:
    """One row told: True (Discord took it), False (it goes untold: refused for good, or
    no longer true), None (Discord could not take it now, or its words could not be
    written: try again later). Never raises."""
    recap: tuple[int, bytes] | None = None
    try:
        text = await notice_text(bot, notice)
        if notice.kind == "recap" and text is not None:
            recap = await recap_of(bot, notice)
            if recap is None:
                text = None
    except Exception:
        log.exception("daily %s %s of %s: its text could not be written", notice.kind,
                      notice.target, notice.day)
        return None
    if text is None:
        log.info("daily %s %s of %s: no longer due; dropped", notice.kind, notice.target,
                 notice.day)
        return False
    if not snowflake(notice.channel_id):  # a damaged row is that row's problem alone
        log.warning("daily %s %s of %s: stored channel %r is not a channel id; dropped",
                    notice.kind, notice.target, notice.day, notice.channel_id)
        return False
    ch = bot.get_partial_messageable(notice.channel_id)
    took = False

    async def post() -> discord.Message:
        if recap is None:
            return await ch.send(text)
        game_id, data = recap  # a new File each try: a sent one is consumed
        return await ch.send(text, file=recap_file(game_id, data, notice.lang or "en"))

    async def send() -> None:
        nonlocal took
        took = await deliver(f"daily {notice.kind} {notice.target}", post) is not None
    if not await bot.announcer.tell(None, send):
        return None
    return took


async def recap_of(bot: Host, notice: DailyNotice) -> tuple[int, bytes] | None:
    """The animated recap of a "recap" row's player's ranked game of its day (game id, GIF
    bytes), drawn in the announcer's workers like a channel game's; None when there is no
    such game any more. Under `RECAP_LIMIT`: smaller frames are drawn for a long game
    (render/recap.py), so the DM takes it without a boost."""
    att = await host_of(bot).store.attempt(notice.target, notice.day, True)
    # its own game only: a damaged game_id may name another player's (whose DM the row
    # was then queued to, from that game's settings): nothing is drawn, the row goes
    row = await attempt_game(bot.store, att) if att is not None else None
    if row is None or row.setup is None:
        return None
    try:
        g = await bot.service.tables.load(row)  # a game set aside is not drawn
    except ServiceError:  # (not wording: damaged, or a newer release's — the DM goes without it)
        return None
    # the log as verified (as /rr-recap's): a row damaged since failed the drawing at every
    # try, and the recap was dropped untold (the fault-injection audit)
    source = Recap(row.setup, g.log, [str(s["name"]) for s in row.seats])
    data = await bot.announcer.draw(recap_gif_of, row.id, source, notice.lang or "en",
                                    limit=RECAP_LIMIT)
    return row.id, data


async def notice_text(bot: Host, notice: DailyNotice) -> str | None:
    """The words of a daily outbox row, as of now; None when it is no longer true: a day
    already over (yesterday's news or reminder, after an outage), or a reminded streak the
    player has kept since, or has none to keep (yesterday resigned: the store queues a
    reminder after any finished attempt; `stats` says whether it kept a streak). A day that
    ended unfinished stays true."""
    host = host_of(bot)
    if notice.kind == "time_up":  # true whenever it is read
        return time_up_text(notice.day, notice.lang or "en")
    if notice.kind == "recap":  # the day closed: true from then on
        day = dt.date.fromisoformat(notice.day)
        return t("daily_recap_post", notice.lang or "en", n=core.number_of(day),
                 day=notice.day)
    day = dt.date.fromisoformat(notice.day)
    if day != host.days.today():
        return None
    if notice.kind == "news":
        return await news_text(bot, host, notice.target, notice.lang or "en", day)
    att = await host.store.attempt(notice.target, notice.day, True)
    if att is not None and att.status != "playing":
        return None
    if (await host.board.stats(notice.target)).played_streak == 0:
        return None  # yesterday resigned (a finished attempt): no streak left to break
    lang = notice.lang or await _lang_of_player(bot, notice.target, day)
    return t("daily_reminder", lang, ts=int(core.day_end(day)))


async def _lang_of_player(bot: Host, user_id: int, day: dt.date) -> str:
    """A reminder set before its language was stored: the language of the game that keeps
    the streak alive (yesterday's ranked attempt), else English."""
    att = await host_of(bot).store.attempt(user_id, (day - dt.timedelta(days=1)).isoformat(), True)
    row = await bot.store.get(att.game_id) if att is not None and att.game_id else None
    return str(row.settings.get("lang", "en")) if row is not None else "en"


async def news_text(bot: Host, host: DailyHost, guild_id: int, lang: str,
                    today: dt.date) -> str:
    """A server's daily news: today's challenge card, yesterday's podium among its members,
    yesterday's published key."""
    yesterday = today - dt.timedelta(days=1)
    lines = [challenge_text(host, host.days.challenge(today), await host.par.get(today), lang)]
    podium = (await host.board.listing(yesterday, guild_id, member_check(bot, guild_id)))[:3]
    if podium:
        lines.append(t("daily_podium", lang, n=core.number_of(yesterday)))
        lines += [board_line(rank, e, lang, False) for rank, e in podium]
    key = core.published_key(host.days.secret, yesterday, host.days.clock())
    if key is not None:
        lines.append(t("daily_key", lang, n=core.number_of(yesterday), day_key=key,
                       day=yesterday.isoformat()))
    return "\n".join(lines)


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
                else remind_words(host, setting[2], lang))
    return [*said, t("daily_settings_none", lang)]


def remind_words(host: DailyHost, hour: int, lang: str) -> str:
    """The streak reminder that is on: its UTC hour and that hour in the reader's time."""
    return t("daily_remind_on", lang, hour=hour,
             ts=int(core.day_start(host.days.today()) + hour * 3600))

