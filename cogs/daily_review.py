"""`/rr daily review [date]` and `/rr daily history`: looking back at past days (issue 18).

Thin: which days may be reviewed and which games they hold is `service/daily_review.py`'s;
the step-through message is `cogs/viewer.py`'s (source `d`, keyed by the day). Everything is
ephemeral to the caller: the review shows only the caller's own game beside the bots'.

The review answers with the day's summary and its score distribution (render/scores.py),
then a viewer on the caller's game (or the first bot's, when they did not play). History
lists the caller's ranked days, newest first, ten a page, with a menu to review a closed day
and one to practise any listed day (`rr:dhist:{review|practice}`, `rr:dhist:page:{n}:{b}`:
the custom ids carry all a click needs, so they work after a restart).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import logging
import re
from typing import Any

import discord
from discord import app_commands

from render.scores import scores_png
from service import ServiceError
from service import daily as core
from service import daily_review as rv
from service.daily_play import DailyHost
from service.replay import replay

from . import viewer
from .actions import ack, guarded, refusal, reply, rook
from .daily import DailyCommands, bad_date, open_attempt
from .daily_words import score_words, standing_words
from .delivery import deliver
from .host import host_of
from .i18n import LEVELS, lang_of, pair, t
from .mentions import safe
from .mixin import CommandsMixin

log = logging.getLogger("rr.daily")
_ = app_commands.locale_str
SOURCE = "d"  # the daily review's viewer source (cogs/viewer.py)


def day_key(day: dt.date) -> str:
    return day.strftime("%Y%m%d")


def parse_key(key: str) -> dt.date:
    """A custom id's day; one that is not a date is refused as a day not begun."""
    try:
        return dt.datetime.strptime(key, "%Y%m%d").date()
    except ValueError:
        raise ServiceError.of("svc.daily_future", code="daily_future") from None


def who_words(who: str, lang: str) -> str:
    """'your game' or 'the greedy bot'."""
    if who == rv.ME:
        return t("review_you", lang)
    return t("review_bot", lang, level=pair(LEVELS, who, lang))


def tab_label(who: str, lang: str) -> str:
    return t("review_tab_you", lang) if who == rv.ME else \
        t("review_tab_bot", lang, level=pair(LEVELS, who, lang))


def story_of(day: dt.date, games: dict[str, rv.Played], missing: list[str], who: str,
             lang: str) -> viewer.Story:
    """One game of the day as the viewer shows it: names as the reader reads them (the
    caller's stored display name, escaped; a bot by its level)."""
    played = games[who]
    names = None if who == rv.ME else [t("review_bot_name", lang,
                                         level=pair(LEVELS, who, lang))]
    try:
        rp = replay(played.setup, played.log, names)
    except Exception as e:  # a damaged stored game: that game is not shown, nothing else
        log.warning("daily review %s: the %s game does not replay", day, who, exc_info=True)
        raise ServiceError.of("svc.daily_review_none", code="daily_review_none") from e
    if who == rv.ME:
        rp.names = [safe(n) for n in rp.names]
    title = t("review_title", lang, n=core.number_of(day), day=day.isoformat(),
              who=who_words(who, lang))
    notes = [t("review_score", lang, score=score_words(played.score, lang))] \
        if played.score is not None else []
    notes += [t("review_missing", lang, level=pair(LEVELS, lv, lang)) for lv in missing]
    return viewer.Story(rp, title, [(w, tab_label(w, lang)) for w in games], who, notes)


async def daily_story(interaction: discord.Interaction, key: str, tab: str,
                      lang: str) -> viewer.Story:
    """The viewer's source `d`: the clicker's own game of the day, or a bot's."""
    host = host_of(rook(interaction))
    day = parse_key(key)
    games, missing = await rv.games_of(host, interaction.user.id, day)
    if tab not in games:
        raise ServiceError.of("svc.daily_review_none", code="daily_review_none")
    return story_of(day, games, missing, tab, lang)


viewer.register(SOURCE, daily_story)


def summary_text(r: rv.Review, lang: str) -> str:
    """The day in a few lines: the caller's result and rank, the bots', how many finished."""
    ch = r.challenge
    lines = [t("review_head", lang, n=ch.number, day=ch.day.isoformat(),
               count=len(r.scores))]
    if r.mine is not None:
        you = score_words(r.mine, lang)
        if r.standing is not None:
            you += " — " + standing_words(r.standing, lang, closed=True)  # reviewed once closed
        lines.append(t("review_you_line", lang, result=you))
    elif r.status in ("unfinished", "playing"):  # playing: the day job has not closed it
        lines.append(t("review_you_unfinished", lang))
    else:
        lines.append(t("review_you_none", lang))
    for level, score in r.par.items():
        lines.append(t("review_bot_line", lang, level=pair(LEVELS, level, lang),
                       result=score_words(score, lang)))
    return "\n".join(lines)


async def send_review(interaction: discord.Interaction, host: DailyHost,
                      day: dt.date | None, lang: str) -> None:
    """The summary with the chart, then the viewer (after `ack`); a refusal instead for a
    day still open or before the first one."""
    r = await rv.review(host, interaction.user.id, day)
    data = await asyncio.to_thread(
        scores_png, r.scores, number=r.challenge.number,
        mine=r.mine.points if r.mine is not None else None,
        bots={lv: s.points for lv, s in r.par.items()}, lang=lang)
    text = summary_text(r, lang)
    alt = t("review_chart_alt", lang, n=r.challenge.number, count=len(r.scores))
    await reply(interaction, text, file=discord.File(io.BytesIO(data), filename="scores.png",
                                                     description=alt))
    if not r.games:
        await reply(interaction, t("review_no_games", lang))
        return
    refused: ServiceError | None = None
    for who in r.games:  # the caller's game first; one that no longer replays is skipped
        try:
            story = story_of(r.challenge.day, r.games, r.missing, who, lang)
            break
        except ServiceError as e:  # (not wording: the next game is shown, this as a note)
            refused = refused or e
    else:
        assert refused is not None
        raise refused
    if refused is not None:
        story.notes.insert(0, refusal(refused, lang))
    await viewer.send(interaction, SOURCE, day_key(r.challenge.day), story, lang)


def history_line(d: rv.Day, lang: str) -> str:
    if d.score is not None:
        result = score_words(d.score, lang)
        if d.standing is not None:
            result += " · " + t("history_rank", lang, rank=d.standing.rank,
                                total=f"{d.standing.total:,}")
    else:
        result = t(f"history_{'playing' if d.status == 'playing' else 'unfinished'}", lang)
    return t("history_line", lang, n=d.number, day=d.day.isoformat(), result=result)


async def history_page(host: DailyHost, user_id: int, page: int,
                       lang: str) -> tuple[str, discord.ui.View | None]:
    days, page, pages = await rv.history(host, user_id, page)
    if not days:
        return t("history_empty", lang), None
    lines = [t("history_head", lang, page=page + 1, pages=pages)]
    lines += [history_line(d, lang) for d in days]
    view = discord.ui.View(timeout=None)
    today = await host.days.open_day(host.store)  # as `play` claims: every day before is closed
    closed = [d for d in days if d.day < today]
    if closed:
        view.add_item(HistoryPick("review", closed, lang))
    practice = [d for d in days if d.day < today or d.status != "playing"]
    if practice:
        view.add_item(HistoryPick("practice", practice, lang))
    if pages > 1:
        view.add_item(HistoryPage(page - 1, "p", disabled=page == 0))
        view.add_item(HistoryPage(page + 1, "n", disabled=page >= pages - 1))
    return "\n".join(lines), view if view.children else None


class HistoryPick(discord.ui.DynamicItem[discord.ui.Select[Any]],
                  template=r"rr:dhist:(?P<op>review|practice)"):
    """A history page's menu: review a closed day, or practise a day (its value: the day)."""

    def __init__(self, op: str, days: list[rv.Day] | None = None, lang: str = "en") -> None:
        options = [discord.SelectOption(label=t("history_option", lang, n=d.number,
                                                day=d.day.isoformat()),
                                        value=day_key(d.day)) for d in days or ()]
        super().__init__(discord.ui.Select(
            custom_id=f"rr:dhist:{op}", placeholder=t(f"history_pick_{op}", lang),
            options=options or [discord.SelectOption(label="-", value="0")]))
        self.op = op

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction,
                             item: discord.ui.Item[Any], match: re.Match[str]) -> HistoryPick:
        return cls(match["op"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self.pick(interaction))

    async def pick(self, interaction: discord.Interaction) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction):
            return
        data: Any = interaction.data or {}
        values = data.get("values") or [""]
        host = host_of(rook(interaction))
        day = parse_key(str(values[0]))
        if self.op == "review":
            await send_review(interaction, host, day, lang)
        else:
            await open_attempt(interaction, lang,
                               lambda host, *who, reach: host.attempts.practice(*who, lang, day, reach))


class HistoryPage(discord.ui.DynamicItem[discord.ui.Button[Any]],
                  template=r"rr:dhist:page:(?P<page>\d{1,4}):(?P<b>[pn])"):
    """A history page turner (◀ ▶): recomputed for the clicker."""

    def __init__(self, page: int, button: str, disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(
            label="◀" if button == "p" else "▶", disabled=disabled, row=2,
            style=discord.ButtonStyle.secondary,
            custom_id=f"rr:dhist:page:{max(page, 0)}:{button}"))
        self.page = page

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction,
                             item: discord.ui.Item[Any], match: re.Match[str]) -> HistoryPage:
        return cls(int(match["page"]), match["b"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self.turn(interaction))

    async def turn(self, interaction: discord.Interaction) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction, thinking=False):
            return
        host = host_of(rook(interaction))
        text, view = await history_page(host, interaction.user.id, self.page, lang)
        await deliver(f"daily history page for interaction {interaction.id}",
                      lambda: interaction.edit_original_response(content=text, view=view))


REVIEW_ITEMS = (HistoryPick, HistoryPage)


class DailyReviewCommands(CommandsMixin):
    """Mixed into the `rr` group cog (cogs/game.py): `/rr daily review`, `/rr daily history`
    (children of DailyCommands' `daily` group)."""

    @DailyCommands.daily.command(name=_("review", id="command.daily.review"), description=_(
        "Step through a closed day: every game and score"))
    @app_commands.describe(date=_("The day, YYYY-MM-DD (default: yesterday)"))
    async def daily_review(self, interaction: discord.Interaction,
                           date: str | None = None) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction):
            return
        host = host_of(rook(interaction))
        try:
            day = dt.date.fromisoformat(date.strip()) if date else None
        except ValueError:
            await reply(interaction, bad_date(date, lang))
            return
        await send_review(interaction, host, day, lang)

    @DailyCommands.daily.command(name=_("history", id="command.daily.history"), description=_(
        "Your past daily challenges: result, score and rank"))
    async def daily_history(self, interaction: discord.Interaction) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction):
            return
        host = host_of(rook(interaction))
        text, view = await history_page(host, interaction.user.id, 0, lang)
        await reply(interaction, text, **({"view": view} if view else {}))
