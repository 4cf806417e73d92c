"""The console's own commands about the game: status, image, board, rules, and the seat
commands `legal`, `hint`, `hand`, `undo`.

It exists because a seat command must first decide whom it is about — the player named
(any name the board shows, an AI seat's too), else whose move can go back, else the ones
deciding — and that choice, with its refusals, reads best beside the commands that use it.
"""

from __future__ import annotations

import re

from engine import Game
from engine.notation import VERBS
from service import rules as rules_ref
from service.hints import advice_lines
from service.notation import particle_typed, words_typed

from . import board
from .seats import CHANNEL
from .telling import Telling
from .text import excerpt, plain, plain_markdown, quote

LATIN = re.compile(r"[A-Za-z]")
"""A rules topic's title in Latin letters: its key, typed in them too, is listed beside it."""


class Commands(Telling):
    """The typed commands that are not moves: each answered for the seats it is about."""

    async def command(self, command: str, args: list[str], g: Game) -> None:
        """A command about the game in progress (`g`, as the line reader read it), handed
        to what answers it; the ones needing no game never get here (app.py)."""
        arg = " ".join(args)
        if command == "status":
            self.show_status(g)
        elif command == "image":
            await self.write_image(g.view(None), [])
        elif command == "recap" and self.row is not None:
            await self.write_recap(self.row, g)
        elif command == "review" and self.row is not None:
            await self.write_review(self.row)
        elif command == "board":
            await self.board_command(arg, g)
        elif command in ("legal", "hint", "hand", "undo"):
            await self.seat_command(command, args, g)

    def rules(self, topic: str) -> None:
        """`rules`: the topics; `rules R11` / `rules end`: that section, as plain text. The
        topics are listed by a word the reader types: a key (`commands`) beside titles in
        Latin letters, the title alone in another script (`コマンドカード`: the new-player
        audit read English keys in Japanese); `find` accepts both in either language."""
        secs = rules_ref.sections(self.lang).values()
        topics = "\n".join(("  " + (f"{sec.key:<9} " if LATIN.search(sec.title) else ""))
                           + (self.t("rules_topic", title=sec.title, ids=" ".join(sec.rules))
                              if sec.rules else sec.title)
                           for sec in secs)
        if not topic:
            self.say(self.t("rules_list", topics=topics))
            return
        found = rules_ref.find(topic, self.lang)
        if found is None:
            self.say("! " + self.t("no_rules", topic=topic[:50], topics=topics))
            return
        self.say(f"{found.title}\n" + plain_markdown(found.read("Console")))

    async def board_command(self, arg: str, g: Game) -> None:
        """`board`: the whole board now; `board on|off`: the compact board after each phase,
        kept with the game (its `boards` setting) so a resumed game shows it as it was left.
        オン/オフ are on/off, as in `自動レベルアップ オン`; another word is refused, not read
        as a bare `board` (`board of` left the boards on without a word)."""
        switch = particle_typed(arg).casefold()
        if switch in ("on", "off"):
            self.auto_board = switch == "on"
            self.last_board = []
            await self.keep_boards()
            self.say(self.t("boards_on" if self.auto_board else "boards_off"))
        elif arg:
            self.say("! " + self.t("board_word", word=excerpt(arg, self.lang)))
        else:
            self.say_lines(board.full(g.cards, g.view(None), self.lang))

    async def seat_command(self, command: str, args: list[str], g: Game) -> None:
        """`legal`, `hint`, `hand`, `undo`: about the player named, else the ones it means
        (`seats_for`); `legal [NAME] BEGINNING` lists only the answers that begin so."""
        arg = " ".join(args)
        if command == "legal" and args and words_typed(args[0]).casefold() in VERBS:
            for seat in self.seats_for(command, "", g) or []:
                self.legal(g, seat, arg)
            return
        for cut in range(len(args) - 1, 0, -1) if command == "legal" else ():
            named = self.seat_of(" ".join(args[:cut]))  # `legal Bot 1 act`: the longest name
            if named is not None:
                self.legal(g, named, " ".join(args[cut:]))
                return
        for seat in self.seats_for(command, arg, g) or []:
            if command == "hint":
                await self.for_seat(seat, self.hint)
            elif command == "hand":
                self.say(self.hand_line(g, seat))
            elif command == "legal":
                self.legal(g, seat)
            else:
                await self.for_seat(seat, self.undo)

    def seats_for(self, command: str, arg: str, g: Game) -> list[int] | None:
        """Whom `hand` / `legal` / `hint` / `undo` is about: the named player, else (undo)
        whose move can go back (`undo_seat`), else the ones deciding, else everyone (hand)."""
        if arg:
            return self.named_seat(command, arg)
        waiting = self.people(g.waiting_for())
        if command == "undo":
            return self.undo_seat(g, waiting)
        if command in ("legal", "hint") and not waiting:
            self.show_status(g)
            return None
        everyone = list(range(len(self.names)))
        return waiting or (everyone if command == "hand" else self.people(everyone))

    def named_seat(self, command: str, arg: str) -> list[int] | None:
        """The seat named after `hand` / `legal` / `hint` / `undo`, by any name the board
        shows, an AI seat's too: its hand is as public as anyone's (R3) and so is what it
        may do; a hint (for a decision it makes itself) and an undo (of a move nobody typed)
        are refused in words that say so."""
        seat = self.seat_of(arg)
        if seat is None:
            self.no_player(arg)
            return None
        if self.is_ai(seat) and command in ("hint", "undo"):
            self.say("! " + self.t(f"ai_{command}", p=self.names[seat], names=self.people_names()))
            return None
        return [seat]

    def undo_seat(self, g: Game, waiting: list[int]) -> list[int] | None:
        """Whose move a bare `undo` takes back. When several players' moves can go back,
        none: it asks which, as a move typed without a name does while several decide.
        Else the last to act (a refusal says why theirs cannot), else the one player whose
        move can go back (the story names them), else the one deciding."""
        can = [k for k in self.at_keyboard if g.can_undo(k)]
        if len(can) > 1:
            self.say("! " + self.t("undo_which", names=self.join(self.names[k] for k in can),
                                   example=quote(f"{self.t('undo_word')} {self.names[can[-1]]}",
                                                 self.lang)))
            return None
        if self.last_actor is not None:
            return [self.last_actor]
        if can:
            return can
        if len(waiting) != 1:
            self.say("! " + self.t("undo_who", names=self.people_names()))
            return None
        return waiting

    def legal(self, g: Game, seat: int, start: str = "") -> None:
        """`legal [NAME] [BEGINNING]`: what the seat may type now (`legal act 2B`: only the
        actions of the unit on 2B)."""
        lines, more = ([], 0) if g.over or g.decision(seat) is None else \
            board.legal_lines(g, seat, self.lang, words_typed(start))
        if not lines and start and g.decision(seat) is not None and not g.over:
            # nothing begins so, but there is something to do: say so, then list it all
            lines, more = board.legal_lines(g, seat, self.lang)
            if lines:
                self.say(self.t("not_now", start=quote(start, self.lang), p=self.names[seat]))
                self.say_lines(lines)
                self.more(lines, more)
                return
        if not lines:
            self.say(self.t("may", p=self.names[seat]) + " " + self.t("nothing_now"))
            return
        self.say(self.t("may", p=self.names[seat]))
        self.say_lines(lines)
        self.more(lines, more)

    def more(self, lines: list[str], more: int) -> None:
        """How to see the `more` legal lines left out after `lines`."""
        if more:
            first = " ".join(lines[-1].split(" ")[:2])
            self.say("  " + self.t("more", n=more, example=quote(f"legal {first}", self.lang)))

    async def hint(self, seat: int) -> None:
        """`hint [NAME]`: the expert's suggestion for the player's decision (issue 23),
        counted for everyone to see in `status`."""
        got = await self.service.hints.hint(CHANNEL, seat + 1)
        self.row = got.row
        cards = (await self.service.tables.viewable(CHANNEL))[1].cards
        if len(self.at_keyboard) > 1:  # whose, where several type
            self.say(f"{self.names[seat]}:")
        self.say_lines([plain(x, self.lang) for x in advice_lines(got.advice, cards, self.lang)])

    async def undo(self, seat: int) -> None:
        out = await self.service.play.undo(CHANNEL, seat + 1)
        self.moves.pop(seat, None)
        await self.report(out)
        if await self.ai_turns():
            self.show_status((await self.service.tables.viewable(CHANNEL))[1], told=True)
        else:
            self.show_status(out.game)
