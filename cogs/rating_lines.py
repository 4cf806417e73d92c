"""What a channel is told about ratings (issue 24): whether a game counts, said when it
starts, and each player's rating before → after with the change in its game-over post.

The game-over post settles the game (service/ratings.py, once per game id): a retried or
redelivered post — by this process or another — reads back the same changes, so the lines
are the same whoever posts them. A store failure costs these lines, never the post, and
never the rating: the game's last move claimed its settling, and the bot's next pass
settles whatever a post did not (`RookBot.settle_games`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from engine import Game
from service.ratings import (
    PROVISIONAL_GAMES,
    Ratings,
    delta,
    provisional,
    shown,
    standings,
)
from service.seats import current_name, plain_names
from store import GameRow, GameStore
from store.ratings import EVERYWHERE

from .i18n import t
from .mentions import safe

log = logging.getLogger("rr.ratings")


def reason_text(reason: str, lang: str) -> str:
    return t(f"rating_why_{reason}", lang)


async def start_line(store: GameStore, game_id: int, lang: str) -> str | None:
    """"This game is rated" or why not, for a channel game's start post (None: a solo or
    daily game, which is never rated — the daily has its own leaderboard)."""
    try:
        row = await store.get(game_id)
        if row is None or row.settings.get("daily"):
            return None
        reason = await Ratings(store).unrated(row)
    except Exception:
        log.exception("game %s: could not tell whether it is rated", game_id)
        return None
    if reason == "solo":  # never rated, and nobody expects it to be: nothing to say
        return None
    if reason is None:  # zombie mode may still make it unrated: said now, not only at the end
        return t("rating_start_zombie" if row.settings.get("zombie") else "rating_start_rated",
                 lang)
    return t("rating_start_unrated", lang, why=reason_text(reason, lang))


async def places_line(row: GameRow, g: Game, log_: Sequence[Sequence[Any]],
                      lang: str) -> list[str]:
    """The game-over post's places of a 3–4 seat game (R9.3, R14.4): every seat, those who
    left said as eliminated or resigned — what the rating lines under it move by."""
    try:
        placed = await asyncio.to_thread(standings, row, g, log_)
    except Exception:  # a replay failure costs this line, never the post
        log.exception("game %s: places not worded", row.id)
        return []
    if not placed:
        return []
    names = [safe(n) for n in plain_names(row)]
    return [t("over_places", lang, places=t("over_places_sep", lang).join(
        t(f"over_place_{how}" if how else "over_place", lang, n=place, name=names[seat])
        for place, seat, how in placed))]


async def end_lines(store: GameStore, now: float, row: GameRow, g: Game, log_: Sequence[Sequence[Any]],
                    lang: str) -> list[str]:
    """Settle the finished game and word its rating changes (the server's ratings; the
    bot-wide one where the game was played outside a server); a player who hid their
    profile is named without numbers."""
    try:
        ratings = Ratings(store)
        reason, changes = await ratings.settle(row, g, log_, now)
        hidden = await ratings.tables.hidden_users() if changes else set()
    except Exception:
        log.exception("game %s: ratings not settled now (the next post of it tries again)",
                      row.id)
        return []
    if reason == "solo":
        return []
    if reason is not None:
        return [t("rating_end_unrated", lang, why=reason_text(reason, lang))]
    scope = row.guild_id or EVERYWHERE
    names = {int(s["user"]): safe(current_name(row, k)) for k, s in enumerate(row.seats)}
    mine = [c for c in changes if c.scope == scope]
    # a player who hid their profile keeps their rating to themselves here too
    lines = [t("rating_end_head", lang)] + [
        t("rating_end_hidden", lang, name=names.get(c.user_id, "?")) if c.user_id in hidden
        else t("rating_end_line", lang, name=names.get(c.user_id, "?"), before=shown(c.before),
               after=shown(c.after), change=delta(c)) for c in mine]
    if any(c.user_id not in hidden and (provisional(c.before) or provisional(c.after))
           for c in mine):  # what the "?" means, where it is read (the new-player audit)
        lines.append(t("rating_end_provisional", lang, n=PROVISIONAL_GAMES))
    return lines

