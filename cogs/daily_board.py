"""`/rr daily leaderboard`'s pages: one day's board for the asker (their own row always
shown), and the ◀ ▶ buttons that turn its pages after any restart (the custom id holds the
day, the scope and the page). Apart from the commands (cogs/daily.py) because a page is
drawn from two places, the command and a button, with the same membership checks."""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Sequence
from typing import Any

import discord

from service import daily as core
from service import daily_standings
from service.daily_board import MemberCheck
from service.daily_play import DailyHost
from service.daily_standings import Entry

from .actions import ack, in_server, rook
from .daily_words import score_words, standing_words
from .delivery import deliver
from .host import Host, host_of
from .i18n import lang_of, t
from .mentions import safe

log = logging.getLogger("rr.daily")

PODIUM = ("🥇", "🥈", "🥉")
BOARD_SIZE = 10


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
