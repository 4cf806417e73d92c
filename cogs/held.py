"""Held channels: a game whose channel refused the bot's posts has its time limits held.

A post refused for want of the bot's permissions holds the game's clocks (no seat is timed
out on a question nobody could read); a post with an image taken there again lets it go on,
its open questions asked again with their full time limit. The time-limit pass tries a held
channel again now and then (`probe`).
"""

from __future__ import annotations

import asyncio
import logging

from engine import Game
from service.seats import ai_waiting
from store import GameRow

from .announcement import game_lang
from .delivery import attempt, channel_watch, deliver
from .i18n import t
from .posts import Posts

log = logging.getLogger("rr.announce")


class Held(Posts):
    """The time limits told what Discord did with the posts (`posting`, `probe`)."""

    async def posting(self, channel: int, *, refused: bool, took: bool) -> None:
        """What Discord did with the bot's posts in a game's channel, told to the time
        limits: refused for want of permissions, its game's clocks are held (no seat is
        timed out on a question nobody could read); a post with an image taken (text alone
        does not show Attach Files: a channel without it flapped between held and going on
        at every text post), or the permissions shown back (cogs/actions.py `ack`), a held
        game goes on — its channel told so, then its open questions asked again with their
        full time limit. Never raises."""
        limits = self.bot.service.limits
        try:
            if refused:
                await limits.hold(channel)
                return
            if not took or (row := await limits.resume(channel)) is None:
                return
            g = await self.bot.service.tables.load(row)
            await self.goes_on(row)
            await self.repost(row, g)
            self._ai_goes_on(row, g)
        except asyncio.CancelledError:
            raise
        except self.bot.store.faults as e:  # busy or cut off: expected, one line
            log.warning("channel %s: its game's time limits are held or resumed at the next "
                        "post (store: %s)", channel, e)
        except Exception:
            log.warning("channel %s: its game's time limits could not be held or resumed; "
                        "the next post tries again", channel, exc_info=True)

    async def goes_on(self, row: GameRow) -> None:
        """The line telling a held game's channel that the bot can post there again."""
        await deliver(f"game {row.id} goes on", lambda: self.channel(row.channel_id).send(
            t("game_goes_on", game_lang(row))))

    def _ai_goes_on(self, row: GameRow, g: Game) -> None:
        """After a resume, an AI seat asked while the game was held answers now: the pass
        skipped it while held, and the next one is up to 30 s away (a kick before the
        resume would let the AI move the game under it, and the resume give up)."""
        if ai_waiting(row, g):
            self.bot.ai.kick(row.channel_id)

    async def probe(self, channel: int) -> None:
        """A held game's channel tried again (the time-limit pass, every PROBE_S): its table
        and open questions posted as they stand; taken with the image, the game goes on
        (`resume`: each question's full time limit, as the reposted questions say) and the
        channel is told so. Refused, it stays held, unseen. Not tried while the bot is not in
        the game's server (removed: each try was one more refused post, its image drawn);
        added back, the next try or command there lets it go on. A channel Discord says is
        deleted (404 Unknown Channel) ends its game (`Lobby.channel_gone`). Never raises."""
        service = self.bot.service
        try:
            if (row := await service.limits.held_game(channel)) is None or \
                    (row.guild_id is not None and self.bot.get_guild(row.guild_id) is None):
                return
            game = row
            g = await service.tables.load(game)
            with channel_watch() as gone:
                progress = await attempt(None, lambda: self.repost(game, g), 0)
            if gone:
                await service.lobby.channel_gone(channel, game.id)
                return
            if progress.refused or not progress.took or \
                    await service.limits.resume(channel) is None:
                return
            await self.goes_on(game)
            self._ai_goes_on(game, g)
        except asyncio.CancelledError:
            raise
        except self.bot.store.faults as e:  # busy or cut off: expected, one line
            log.warning("channel %s: its held game is tried again at the next pass (store: "
                        "%s)", channel, e)
        except Exception:
            log.warning("channel %s: its held game could not be tried again; the next pass "
                        "tries", channel, exc_info=True)
