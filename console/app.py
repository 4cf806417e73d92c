"""Offline console mode: a whole game in the terminal through the same service layer.

It exists so a newcomer can try the game without a Discord token, and so the full flow
(store, service, engine, renderer) can be tested by driving a real process over stdin.
Lines are `NAME: ACTION` (or just `ACTION` when one player is being waited for), using the
notation of docs/notation.md; `help` lists the console's own commands. Every line gets an
answer; nothing typed can stop the console except `quit`, end of input or Ctrl-C, and each
of those says where the game is saved. AI seats (`--ai LEVEL…`, service/seats.py) answer
at once after each move, told like anyone's under their marked names; nobody types for them.
"""

from __future__ import annotations

import logging

from engine import ActionError, Game
from engine.notation import VERBS, unformatted
from service import rules as rules_ref
from service.hints import advice_lines
from service.notation import action_words, particle_typed, words_typed

from . import board
from .games import Games
from .misread import misread, not_a_verb
from .options import Table
from .seats import CHANNEL, Answering
from .text import (
    MAX_LINE,
    excerpt,
    has_control,
    normalise,
    plain,
    plain_markdown,
    quote,
    t,
    tidy_message,
)

__all__ = ["CHANNEL", "COMMANDS", "Console"]  # CHANNEL: kept where the tests import it

log = logging.getLogger("rr.console")

# Console commands by their typed word (English or Japanese) → what they do.
COMMANDS = {
    "help": "help", "?": "help", "ヘルプ": "help", "quit": "quit", "exit": "quit",
    "終了": "quit", "new": "new", "新規": "new", "status": "status", "状況": "status",
    "board": "board", "盤面": "board", "hand": "hand", "手札": "hand", "legal": "legal",
    "合法手": "legal", "undo": "undo", "取消": "undo", "取り消し": "undo", "image": "image",
    "画像": "image", "rules": "rules", "ルール": "rules",
    "hint": "hint", "ヒント": "hint",
    "recap": "recap", "振り返り": "recap",
    "review": "review", "講評": "review",
    "tutorial": "tutorial", "チュートリアル": "tutorial",
    "history": "history", "履歴": "history",
}

GAME_ONLY = {"new", "board", "hand", "legal", "undo", "image", "hint", "recap", "review",
             "history"}  # console commands about a game, which the tutorial's steps are not


class Console(Games):
    """One terminal's game: reads a line, answers it, never raises on what was typed."""

    def rules(self, topic: str) -> None:
        """`rules`: the topics; `rules R11` / `rules end`: that section, as plain text."""
        secs = rules_ref.sections(self.lang).values()
        topics = "\n".join(f"  {sec.key:<9} " + (self.t("rules_topic", title=sec.title,
                                                              ids=" ".join(sec.rules))
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

    # ---- games -------------------------------------------------------------------------------

    # ---- output ------------------------------------------------------------------------------

    # ---- input -------------------------------------------------------------------------------

    async def handle(self, raw: str, truncated: bool = False) -> bool:
        """One input line; returns False to stop. Any failure is told in one line."""
        self.answering = Answering()
        try:
            return await self._handle(raw, truncated)
        except ActionError as e:  # the console's one refusal handler: the game is unchanged
            self.refusal(e)
            return True
        except (*self.store.faults, *self.store.damaged) as e:  # the file, not the game
            log.warning("console line %r: the game file failed: %s", raw[:200], e)
            self.service = self.fresh_service()  # what was read before it may be stale
            self.say("! " + self.t("file_failed", db=self.db, err=excerpt(str(e) or type(e).__name__,
                                                                          self.lang, 80)))
            return True
        except Exception as e:
            log.exception("console line %r", raw[:200])
            self.service = self.fresh_service()  # drop anything the failure left in memory
            err = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
            self.say(self.t("internal", err=tidy_message(err[:80], raw, self.lang),
                            log=self.out_dir / "console.log"))
            return True

    async def _handle(self, raw: str, truncated: bool) -> bool:
        raw = raw.rstrip("\r\n")
        # any other line cancels a `new` or `resign` waiting to be typed again, one refused
        # unread too (an arrow key's escape code between two `resign`s ended the game)
        confirm, self.confirm_new = self.confirm_new, None
        resigning, self.confirm_resign = self.confirm_resign, None
        if self._unreadable(raw, truncated):
            return True
        line = normalise(unformatted(raw))
        if line.startswith("#"):  # a comment in a script
            return True
        words = line.split(" ")
        command = COMMANDS.get(words[0].casefold()) if line else "status"
        if self.learning is not None and command not in ("help", "rules", "quit"):
            await self._tutorial_line(command, words[0], line)
            return True
        went = await self._without_game(command, words, confirm)
        if went is not None:
            return went
        row, g = await self.service.tables.viewable(CHANNEL)
        self.seat_row(row)
        if command is not None:
            await self.command(command, words[1:], g)
            return True
        answer = self._named(g, line) if ":" in line else self._unnamed(g, line)
        if answer is not None:
            await self.act(g, *answer, resigning=resigning)
        return True

    async def _tutorial_line(self, command: str | None, first: str, line: str) -> None:
        """A line typed in the tutorial: the step's answer or a tutorial move; a console
        command about a game is told it is one, not judged a wrong answer."""
        assert self.learning is not None
        if command in GAME_ONLY:
            self.say("! " + self.t("tutorial_not_here", command=first))
        elif not await self.learning.handle("" if command == "status" else line):
            self.learning = None
            await self.after_tutorial()

    async def _without_game(self, command: str | None, words: list[str],
                            confirm: Table | None) -> bool | None:
        """The commands that need no game in progress (whether to go on: False after quit);
        None for any other line."""
        if command == "tutorial":
            await self.tutorial(" ".join(words[1:]))
        elif command == "help":  # in the tutorial, its own moves: the game's do not apply there
            self.say(t("tutorial_help" if self.learning is not None else "help", self.lang))
        elif command == "rules":  # the rules, or the rule a message cited
            self.rules(" ".join(words[1:]))
        elif command == "history":  # the finished games of this database
            await self.history(" ".join(words[1:]))
        elif command in ("review", "recap") and len(words) > 1:  # a past game, by its number
            await self.past_game(command, " ".join(words[1:]))  # `review 1 2` is no number
        elif command == "quit":
            await self.farewell("")
            return False
        elif command == "new":
            await self.new(words, confirm)
        else:
            return None
        return True

    def _unreadable(self, raw: str, truncated: bool) -> bool:
        """A line too long or with control characters: refused (True) before it is read."""
        if truncated or len(raw) > MAX_LINE:
            self.say("! " + self.t("too_long", n=f"{len(raw):,}" + ("+" if truncated else ""),
                                   max=MAX_LINE))
            return True
        if has_control(raw):
            self.say("! " + self.t("control"))
            return True
        return False

    def _named(self, g: Game, line: str) -> tuple[int, str] | None:
        """`NAME: ACTION`: the seat and its answer, or None (refused: no name, nobody of that
        name, nothing after the colon)."""
        name, action = (part.strip() for part in line.split(":", 1))
        seat = self.who(name)
        if not name:
            self.say("! " + self.t("name_first", example=self.example(g, None)))
            return None
        if seat is None:
            self.no_player(name)
            return None
        if not action:
            self.say("! " + self.t("empty_action", name=self.names[seat],
                                   example=self.example(g, seat)))
            return None
        answer = self._named_answer(g, seat, action)
        return None if answer is None else (seat, answer)

    def _named_answer(self, g: Game, seat: int, action: str) -> str | None:
        """What `NAME: ACTION` answers, as the line without the name would: a command card
        alone is `pick CARD` (`Bob: advance` read "Unknown action"), and a first word that
        is no verb but reads as something else (a number, `attack 6A`, `pass`) is answered
        in words (None)."""
        action = words_typed(action)
        if g.cards.resolve(action) in g.cards.commands:
            return f"pick {action}"
        word = action.split(" ")[0]
        if word.casefold() not in VERBS and (said := misread(g, [seat], word, self.lang)):
            self.say("! " + said)
            return None
        return action

    def _unnamed(self, g: Game, line: str) -> tuple[int, str] | None:
        """An answer without a name: the one person deciding gives it; None when the first
        word is no verb, several are deciding (say whose) or nobody is (the status)."""
        line = words_typed(line)  # a verb in the reader's words (`完了`) is the verb
        word = line.split(" ")[0]
        waiting = self.people(g.waiting_for())
        card = g.cards.resolve(line) in g.cards.commands
        if g.over and (card or word.casefold() in VERBS):
            # said first: a reprinted ending alone did not say the move was refused, and a
            # card named alone (`advance`) is a move as much as `pick advance`
            self.say("! " + self.t("over_not_played", action=excerpt(line, self.lang)))
            self.show_status(g)
            return None
        if len(waiting) == 1 and card:
            # `advance` (or `recruit`) alone chooses that card; asked anything else, the
            # engine's refusal says what is asked now ("Now you take unit actions: …")
            return waiting[0], f"pick {line}"
        if word.casefold() not in VERBS:
            self.say("! " + not_a_verb(g, waiting, word, self.lang))
            return None
        if len(waiting) > 1:
            self.say("! " + self.t("several", names=self.join(self.names[s] for s in waiting),
                                   example=self.example(g, waiting[0])))
            return None
        if not waiting:
            self.show_status(g)
            return None
        return waiting[0], line

    def example(self, g: Game, seat: int | None) -> str:
        """A line the user could type now, as an example (`'Ann: pick advance'`)."""
        if seat is None:
            seat = (self.people(g.waiting_for()) or [0])[0]
        acts = g.legal_actions(seat) if not g.over else []
        answer = action_words(str(acts[0]), g.cards, self.lang) if acts else "done"
        return quote(f"{self.names[seat]}: {answer}", self.lang)

    async def command(self, command: str, args: list[str], g: Game) -> None:
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
