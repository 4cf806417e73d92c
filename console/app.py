"""Offline console mode: a whole game in the terminal through the same service layer.

It exists so a newcomer can try the game without a Discord token, and so the full flow
(store, service, engine, renderer) can be tested by driving a real process over stdin.
Lines are `NAME: ACTION` (or just `ACTION` when one player is being waited for), using the
notation of docs/notation.md; `help` lists the console's own commands. Every line gets an
answer; nothing typed can stop the console except `quit`, end of input or Ctrl-C, and each
of those says where the game is saved. AI seats (`--ai LEVEL…`, service/seats.py) answer
at once after each move, told like anyone's under their marked names; nobody types for them.

This module is the line reader: what a person typed, read into a console command or a move
for a seat (`NAME: ACTION`, or the one player deciding), refused in words when it is
neither. `Console` is the top of the layers listed in console/__init__.py; what it does with
a line lives in games.py (a move, `new`) and commands.py (the other commands).
"""

from __future__ import annotations

import logging

from engine import ActionError, Game
from engine.notation import VERBS, unformatted
from service.notation import action_words, words_typed

from .commands import Commands
from .games import Games
from .misread import misread, not_a_verb
from .options import Table
from .seats import CHANNEL, Answering
from .text import MAX_LINE, excerpt, has_control, normalise, quote, t, tidy_message

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


class Console(Games, Commands):
    """One terminal's game: reads a line, answers it, never raises on what was typed."""

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










