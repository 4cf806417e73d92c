"""The console's finished games: kept for `history`, and reopened by number.

It exists so a game that ended stays within reach after a new one has begun: each finished
game is settled into the ratings tables (never rated — one terminal types for every seat),
`history` lists them, and `review N` / `recap N` reopen one through files.py.
"""

from __future__ import annotations

import logging
import time

from engine import Game
from service.ratings import Ratings, played_day, played_name
from store import GameRow

from .files import Files
from .seats import CHANNEL
from .text import excerpt

log = logging.getLogger("rr.console")


class History(Files):
    """The finished games of this database: settled, listed, reopened."""

    async def settle(self, row: GameRow, g: Game) -> None:
        """Keep the finished game for `history` (issue 24; a console game is never rated:
        one terminal types for every seat). A failure costs the history line, not the game."""
        try:
            await Ratings(self.store).settle(row, g, g.state["log"], time.time())
        except Exception:
            log.exception("game %s: not kept for the history", row.id)

    async def settle_left(self) -> None:
        """Keep the finished games whose ending move claimed it and whose settling never
        ran: the console was stopped (or killed) between the move and the settle. The bot
        does the same at every time-limit pass and at startup."""
        try:
            await Ratings(self.store).settle_due(self.service.tables.load)
        except Exception:
            log.exception("finished games not kept for the history now (next start tries)")

    async def history(self, extra: str = "") -> None:
        """`history`: the finished games of this database, newest first (date, players and
        their places, the winners). Words after it are refused, not dropped unread: `history
        5` meant game 5, which `review 5` opens."""
        if extra:
            self.say("! " + self.t("history_extra", word=excerpt(extra, self.lang)))
            return
        games, _total = await Ratings(self.store).tables.history(channel_id=CHANNEL, limit=10)
        if not games:
            self.say(self.t("history_none"))
            return
        self.say(self.t("history_head"))
        for p in games:  # a damaged row's name or date reads "?" (the fault-injection audit)
            players = self.join(  # a place only among several players (solo: won or lost)
                played_name(p, s.seat) if len(p.seats) == 1 else
                self.t("history_player_place", name=played_name(p, s.seat), place=s.place)
                for s in p.seats)
            won = [played_name(p, s.seat) for s in p.seats if s.won]
            self.say(self.t("history_line", game=p.game_id, day=played_day(p),
                            players=players,
                            result=self.t("history_won" if len(won) == 1 else "history_draw",
                                          names=self.join(won)) if won
                            else self.t("history_nobody")))

    async def past_game(self, command: str, number: str) -> None:
        """`review N` / `recap N`: a game of this database by the number `history` shows,
        so a finished game stays within reach after a new one has begun."""
        digits = number.removeprefix("#")
        row = await self.store.get(int(digits)) if digits.isdecimal() and len(digits) < 10 \
            else None
        if row is None or row.channel_id != CHANNEL or row.setup is None:
            self.say("! " + self.t("no_such_game", game=excerpt(number, self.lang, 20)))
            return
        if command == "review":
            await self.write_review(row)
        else:
            await self.write_recap(row, await self.service.tables.load(row))
