"""`/rr-stats profile|leaderboard|history|privacy|server` (issue 24): ratings, profiles and
finished games, all answered only to the caller.

A group of its own beside `/rr` (which has Discord's 25 subcommands), like `/rr-recap`.
Thin: the numbers are service/ratings.py's, the chart render/rating_chart.py's, and a game
of a history opens in the step-through viewer (cogs/viewer.py, source `h`, keyed by the
game id), its images rebuilt from setup + log in the reader's language.

Privacy: a player who hid their profile (`privacy`) is refused to everyone else's
`profile` and `history user:` with a clear private answer, and left off the leaderboard;
their seats still show in the games they played (those were public in the channel). A server
turns ratings off with `server ratings:False` (Manage Server): its games from then on are
unrated, and its leaderboard says so (docs/ratings.md).
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
from collections.abc import Awaitable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import i18n
from engine.cards import default_cards
from render.rating_chart import rating_chart_png
from service import ServiceError
from service.ratings import (
    BOARD_PAGE,
    FRESH,
    HISTORY_PAGE,
    PROVISIONAL_GAMES,
    Profile,
    Ratings,
    played_day,
    played_name,
    provisional,
    shown,
)
from service.replay import replay
from service.seats import plain_names
from store.ratings import EVERYWHERE, Played, Rating, Seen

from . import viewer
from .actions import ack, guarded, in_server, reply, rook
from .delivery import deliver
from .i18n import lang_of, t
from .mentions import safe
from .pages import MAX_CONTENT
from .rating_lines import reason_text

_ = app_commands.locale_str
log = logging.getLogger("rr.stats")
SOURCE = "h"  # a finished channel game in the viewer (cogs/viewer.py)
SHORT_NAME = 12  # a name on a history page too full for whole names (4 players, long names)


def percent(wins: int, games: int) -> int:
    return round(100 * wins / games) if games else 0


def rating_words(r: Rating | None, lang: str) -> str:
    if r is None:
        return t("stats_unrated_yet", lang)
    if provisional(r):
        return t("stats_rating_provisional", lang, rating=shown(r), games=r.games,
                 needed=PROVISIONAL_GAMES)
    return t("stats_rating", lang, rating=shown(r), games=r.games)


def profile_lines(name: str, p: Profile, streak: tuple[int, int] | None, in_guild: bool,
                  lang: str) -> list[str]:
    cards = default_cards()
    lines = [t("stats_profile_head", lang, name=name),
             t("stats_games", lang, games=p.games, wins=p.wins, pct=percent(p.wins, p.games))]
    lines += [t("stats_by_players", lang, n=n, games=g, wins=w, pct=percent(w, g))
              for n, (g, w) in p.by_players.items()]
    if in_guild:
        lines.append(t("stats_rating_here", lang, rating=rating_words(p.server, lang)))
    lines.append(t("stats_rating_everywhere", lang, rating=rating_words(p.everywhere, lang)))

    def names(items: list[tuple[str, int]]) -> str:
        return i18n.join(lang, (t("stats_unit_count", lang, n=n,
                                  unit=cards.name(k, lang) if k in cards.units else k)
                                for k, n in items)) or t("stats_none", lang)
    lines.append(t("stats_units", lang, units=names(p.units)))
    lines.append(t("stats_mercs", lang, units=names(p.mercenaries)))
    if streak is not None:
        lines.append(t("stats_streak", lang, n=streak[0], best=streak[1]))
    return lines


def place_words(place: int, lang: str) -> str:
    return t("stats_first", lang) if place == 1 else t("stats_place", lang, n=place)


def seen_by(interaction: discord.Interaction) -> Seen:
    """What the caller may see of a server's finished games: those they played, and those
    of the channels they can see (this one, and in a server the bot knows, every channel
    their permissions open; a private thread only to those who manage threads) — a game
    in a private channel must not be listed or replayed to the rest of the server."""
    channels = {interaction.channel_id or 0}
    guild, member = interaction.guild, interaction.user
    if guild is not None and isinstance(member, discord.Member):
        for ch in (*guild.channels, *guild.threads):
            can = ch.permissions_for(member)
            private = isinstance(ch, discord.Thread) and ch.is_private()
            if can.view_channel and (not private or can.manage_threads):
                channels.add(ch.id)
    return Seen(interaction.user.id, frozenset(channels))


async def history_page(ratings: Ratings, page: int, guild: int | None,
                       target: discord.abc.User | None, channel_id: int | None,
                       lang: str, seen: Seen | None = None) -> tuple[str, discord.ui.View | None]:
    """One page of finished games: `target`'s, with what each did to their rating in this
    server (everywhere, outside one), of channel `channel_id` when given — of them, those
    `seen` allows; and their buttons. A page past the last shows the last (as the
    leaderboard does): the reader asked for the oldest games, and those are them."""
    def read(page: int) -> Awaitable[tuple[list[Played], int]]:
        return ratings.tables.history(
            channel_id=channel_id, user_id=None if target is None else target.id,
            guild_id=guild, limit=HISTORY_PAGE, offset=(page - 1) * HISTORY_PAGE,
            seen_by=seen)
    games, total = await read(page)
    pages = -(-total // HISTORY_PAGE)
    if not games and total:
        page = pages
        games, total = await read(page)
    if target is None:
        head = t("stats_history_channel", lang, channel=f"<#{channel_id}>")
    elif channel_id is None:
        head = t("stats_history_user", lang, name=safe(target.display_name))
    else:
        head = t("stats_history_user_in", lang, name=safe(target.display_name),
                 channel=f"<#{channel_id}>")
    if not games:
        return t("stats_history_empty", lang), None
    changes = ["" if target is None else
               await rating_change(ratings, g.game_id, target.id, guild or EVERYWHERE)
               for g in games]
    for width in (None, SHORT_NAME):  # long names shortened only where the page needs it
        lines = [i18n.sentences(lang, head, t("stats_page", lang, page=page, pages=pages))]
        lines += [game_line(g, target.id if target else None, c, lang, width)
                  for g, c in zip(games, changes, strict=True)]
        lines.append(t("stats_history_open", lang))
        text = "\n".join(lines)
        if len(text) <= MAX_CONTENT:
            break
    return text, open_buttons(games)


async def rating_change(ratings: Ratings, game_id: int, user_id: int, scope: int) -> str:
    """What game `game_id` did to the user's rating in `scope` ("1510 → 1524 (+14.2)"), or
    nothing (unrated, or not theirs)."""
    mine = [c for c in await ratings.tables.changes(game_id)
            if c.user_id == user_id and c.scope == scope]
    if not mine:
        return ""
    c = mine[0]
    d = c.after.mu - c.before.mu
    return f"{shown(c.before)} → {shown(c.after)} ({'+' if d >= 0 else '−'}{abs(d):.1f})"


def game_line(g: Played, user_id: int | None, change: str, lang: str,
              width: int | None = None) -> str:
    """One finished game: number, date, players (their places), the result for `user_id`
    (or the winners), and the rating change; names cut to `width` characters if given."""
    def name(seat: int) -> str:
        typed = played_name(g, seat)
        return safe(typed if width is None or len(typed) <= width else typed[:width - 1] + "…")

    day = played_day(g)
    players = i18n.join(lang, (  # a place only among several players (solo: won or lost)
        name(s.seat) if len(g.seats) == 1 else
        t("stats_player_place", lang, name=name(s.seat), place=s.place) for s in g.seats))
    me = next((s for s in g.seats if s.user_id == user_id), None)
    if me is not None and len(g.seats) == 1 and not me.won:  # alone, first even when lost
        result = t("stats_no_winner", lang)
    elif me is not None:
        result = place_words(me.place, lang)
    else:
        won = [name(s.seat) for s in g.seats if s.won]
        result = t("stats_won_by", lang, names=i18n.join(lang, won)) if won \
            else t("stats_no_winner", lang)
    rated = change if g.unrated is None else t("stats_unrated_game", lang,
                                              why=reason_text(g.unrated, lang))
    line = t("stats_history_line", lang, game=g.game_id, day=day, players=players,
             result=result)
    # a rated game of a channel's history has no one's change to show: no dangling " · "
    return f"{line} · {rated}" if rated else line


class BoardButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                  template=r"rr:sboard:(?P<page>\d{1,5}):(?P<b>[pn])"):
    """A leaderboard's page turned: the server's board read again for the clicker."""

    def __init__(self, page: int, b: str, *, disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label="◀" if b == "p" else "▶", disabled=disabled,
                                           custom_id=f"rr:sboard:{page}:{b}"))
        self.page = page

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction,
                             item: discord.ui.Item[Any], match: re.Match[str]) -> BoardButton:
        return cls(int(match["page"]), match["b"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await guarded(interaction, self.turn(interaction))

    async def turn(self, interaction: discord.Interaction) -> None:
        if not await ack(interaction, thinking=False):
            return
        text, view = await board_message(interaction, self.page, lang_of(interaction))
        await deliver(f"leaderboard page for interaction {interaction.id}",
                      lambda: interaction.edit_original_response(content=text, view=view))


async def board_message(interaction: discord.Interaction, page: int,
                        lang: str) -> tuple[str, discord.ui.View | None]:
    """A server's leaderboard page (1-based, clamped) and its page buttons."""
    bot = rook(interaction)
    ratings = Ratings(bot.store)
    guild = interaction.guild_id or 0
    off = await ratings.tables.ratings_off(guild)
    hidden = await ratings.tables.hidden_users()
    board = [(u, r) for u, r in await ratings.board(guild) if u not in hidden]
    if not board:
        return t("stats_board_empty", lang) + (f"\n{t('stats_board_off', lang)}" if off
                                               else ""), None
    pages = (len(board) + BOARD_PAGE - 1) // BOARD_PAGE
    page = min(max(page, 1), pages)
    lines = [t("stats_board_head", lang, page=page, pages=pages)]
    if off:
        lines.append(t("stats_board_off", lang))
    shown_here = board[(page - 1) * BOARD_PAGE:page * BOARD_PAGE]
    # the names they played under, as text: a mention of a member the reader's client has
    # not cached shows as a bare id, and a name is never a ping
    names = await ratings.tables.names(guild, [u for u, _ in shown_here])
    for k, (user, r) in enumerate(shown_here, start=(page - 1) * BOARD_PAGE + 1):
        lines.append(t("stats_board_line", lang, rank=k, who=safe(names.get(user, "?")),
                       rating=shown(r), games=r.games))
    if any(provisional(r) for _, r in shown_here):
        lines.append(t("stats_board_note", lang, n=PROVISIONAL_GAMES))
    view = None
    if pages > 1:
        view = discord.ui.View(timeout=None)
        view.add_item(BoardButton(page - 1, "p", disabled=page <= 1))
        view.add_item(BoardButton(page + 1, "n", disabled=page >= pages))
    return "\n".join(lines), view


async def history_story(interaction: discord.Interaction, key: str, tab: str,
                        lang: str) -> viewer.Story:
    """A finished channel game of this server (or one the clicker played), to step
    through; anything else is refused without saying what it holds."""
    bot = rook(interaction)
    row = await bot.store.get(int(key)) if key.isdigit() else None
    played = row is not None and row.seat_of(interaction.user.id) is not None
    if row is None or row.status != "over" or row.setup is None or \
            row.settings.get("daily") or not played and (
                row.guild_id != interaction.guild_id
                or row.channel_id not in seen_by(interaction).channels):
        raise ServiceError.of("svc.history_closed", game=key)
    g = await bot.service.tables.load(row)  # a damaged game is set aside, not shown
    # the log as verified (as the recap's): a row damaged since showed the engine's refusal
    # of it at every click until a restart reported it (the fault-injection audit)
    names = [safe(n) for n in plain_names(row)]
    rp = await asyncio.to_thread(replay, row.setup, g.log, names)
    return viewer.Story(rp, t("stats_view_title", lang, game=row.id), [("g", "")], "g", [])


viewer.register(SOURCE, history_story)


def open_buttons(games: list[Played]) -> discord.ui.View | None:
    """One button per listed game: it opens that game in the step-through viewer."""
    if not games:
        return None
    view = discord.ui.View(timeout=None)
    for g in games:
        view.add_item(viewer.StepButton(SOURCE, str(g.game_id), "g", 0, "t",
                                        label=f"🎬 #{g.game_id}",
                                        style=discord.ButtonStyle.primary))
    return view


@app_commands.allowed_installs(guilds=True, users=True)
@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
class StatsCommands(commands.GroupCog, group_name="rr-stats",
                    group_description=_("Ratings, profiles and finished games")):
    """Ratings, profiles and finished games (loaded with the `rr` group, cogs/game.py)."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        super().__init__()

    async def _hidden_from(self, interaction: discord.Interaction, user: discord.abc.User,
                           lang: str) -> bool:
        """True (and the caller told so) when `user` hid their profile from others."""
        if user.id == interaction.user.id:
            return False
        if await Ratings(rook(interaction).store).tables.hidden(user.id):
            await reply(interaction, t("stats_hidden", lang, name=safe(user.display_name)))
            return True
        return False

    @app_commands.command(name="profile", description=_(
        "A player's games, wins, rating with its chart, favourite units and daily streak"))
    @app_commands.describe(player=_("Whose profile (default: yours)"))
    async def profile(self, interaction: discord.Interaction,
                      player: discord.User | None = None) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction, quick=True):
            return
        target = player or interaction.user
        if await self._hidden_from(interaction, target, lang):
            return
        bot = rook(interaction)
        guild = interaction.guild_id if in_server(interaction) else None
        p = await Ratings(bot.store).profile(target.id, guild)
        streak = None
        host = getattr(bot, "daily", None)
        if host is not None:
            try:
                s = await host.board.stats(target.id)
                streak = (s.played_streak, s.best_played_streak)
            except Exception:  # the daily tables unreadable: the rest of the profile stands
                log.exception("profile: daily streak of %s", target.id)
        lines = profile_lines(safe(target.display_name), p, streak, guild is not None, lang)
        kwargs: dict[str, Any] = {}
        if p.points:
            data = await asyncio.to_thread(
                rating_chart_png, [(pt.rating.mu, pt.rating.sigma) for pt in p.points],
                start=(FRESH.mu, FRESH.sigma), provisional_games=PROVISIONAL_GAMES, lang=lang)
            kwargs["file"] = discord.File(io.BytesIO(data), filename="rating.png",
                                          description=t("stats_chart_alt", lang,
                                                        name=target.display_name,
                                                        n=len(p.points)))
        await reply(interaction, "\n".join(lines), **kwargs)

    @app_commands.command(name="leaderboard", description=_(
        "This server's ratings, best first"))
    @app_commands.describe(page=_("Which page (10 players a page)"))
    async def leaderboard(self, interaction: discord.Interaction,
                          page: app_commands.Range[int, 1] = 1) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction, quick=True):
            return
        if not in_server(interaction):
            await reply(interaction, t("stats_server_only", lang))
            return
        text, view = await board_message(interaction, page, lang)
        await reply(interaction, text, **({"view": view} if view is not None else {}))

    @app_commands.command(name="history", description=_(
        "Finished games of a player or a channel; open any of them phase by phase"))
    @app_commands.describe(player=_("Whose games (default: yours)"),
                           channel=_("A channel's games (with player: theirs in it)"),
                           page=_("Which page (5 games a page)"))
    async def history(self, interaction: discord.Interaction,
                      player: discord.User | None = None,
                      channel: app_commands.AppCommandChannel | None = None,
                      page: app_commands.Range[int, 1] = 1) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction, quick=True):
            return
        bot = rook(interaction)
        ratings = Ratings(bot.store)
        guild = interaction.guild_id if in_server(interaction) else None
        # a player's games (yours by default), or a channel's; both: theirs in that channel
        target = player or (interaction.user if channel is None else None)
        if guild is None and (target is None or target.id != interaction.user.id):
            # outside a server only one's own games: another's span servers the caller
            # may not share
            await reply(interaction, t("stats_history_own_only", lang))
            return
        if target is not None and await self._hidden_from(interaction, target, lang):
            return
        text, view = await history_page(ratings, page, guild, target,
                                        channel.id if channel is not None else None, lang,
                                        seen_by(interaction) if guild is not None else None)
        await reply(interaction, text, **({"view": view} if view else {}))

    @app_commands.command(name="privacy", description=_(
        "Hide your profile and history from other players (or show them again)"))
    @app_commands.describe(hidden=_("True: only you see them; False: everyone may"))
    async def privacy(self, interaction: discord.Interaction, hidden: bool = True) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction):
            return
        await Ratings(rook(interaction).store).tables.hide(interaction.user.id, hidden)
        await reply(interaction, t("stats_privacy_hidden" if hidden else "stats_privacy_shown",
                                   lang))

    @app_commands.command(name="server", description=_(
        "Turn ratings on or off for this server's games (Manage Server)"))
    @app_commands.describe(ratings=_("False: this server's games from now on are unrated"))
    async def server(self, interaction: discord.Interaction, ratings: bool) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction):
            return
        if not in_server(interaction) or interaction.guild_id is None:
            await reply(interaction, t("stats_server_only", lang))
            return
        if not interaction.permissions.manage_guild:
            await reply(interaction, t("stats_need_manage", lang))
            return
        await Ratings(rook(interaction).store).tables.set_ratings_off(interaction.guild_id,
                                                                      not ratings)
        await reply(interaction, t("stats_ratings_on" if ratings else "stats_ratings_off",
                                   lang))



STATS_ITEMS = (BoardButton,)

