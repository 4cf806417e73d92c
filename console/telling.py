"""What the console tells: each action's story, the boards, whom it waits for, refusals.

It exists so every answer a terminal prints is worded in one place, the same way for a
person's move, an AI seat's answer or an undo: the story in service/narrate.py's words, a
compact board and an image after each phase, the finished game settled and its recap
written, then what each waiting player is asked and what to type — and every refusal, in
one line, in the reader's language (issue 21).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import i18n
from engine import ActionError, Game, View
from service import Quarantined
from service.hints import used_lines
from service.narrate import narrate, prompt
from service.notation import shown
from service.outcomes import Outcome
from service.refusals import line as refusal_line
from service.report import phase_reports

from . import board
from .history import History
from .options import UsageError
from .seats import CHANNEL, Answering
from .text import plain, quote, tidy_message, whole_tokens

log = logging.getLogger("rr.console")


class Telling(History):
    """The console's voice: reports outcomes, shows the status, words refusals."""

    def refusal(self, e: ActionError) -> None:
        """Every refusal in the reader's language, in one line: the one place the console
        words them (issue 21). `self.answering` says for whom and what was typed (quoted
        words are kept whole); an option mistake says itself (`UsageError`)."""
        if isinstance(e, UsageError) and self.answering.typed == "new":  # typed in a game
            said = e.message if e.msgid is None else e.text(self.lang)
            self.say("! " + self.t("new_options", message=said.rstrip("。.")))
            return
        if isinstance(e, UsageError):
            self.say("! " + e.text(self.lang))
            return
        who, typed, seat = self.answering
        action, why = self.moves.get(seat, ("", "")) if seat is not None else ("", "")
        if e.key == "nothing_to_undo" and why:  # say which move, and why not
            self.say("! " + self.t(f"undo_{why}", p=who, action=quote(action, self.lang)))
            return
        text = plain(refusal_line(e, self.lang), self.lang)
        if typed:
            text = whole_tokens(text, typed)
        text = tidy_message(text, typed, self.lang)
        self.say(f"! {who}: {text}" if who else f"! {text}")

    async def for_seat(self, seat: int, answer: Callable[[int], Awaitable[None]]) -> None:
        """One seat's answer of a command about several (`hint`, `undo`): its refusal is
        told, and the next seat is still answered."""
        self.answering = Answering(self.names[seat], "", seat)
        try:
            await answer(seat)
        except ActionError as e:  # (not only wording: the loop goes on)
            self.refusal(e)

    async def ai_turns(self) -> int:
        """Let the AI seats answer whatever they are asked, each answer told like anyone's;
        returns how many answers they gave."""
        return await self.service.ai.play_ai(CHANNEL, self._ai_answered)

    async def _ai_answered(self, out: Outcome) -> None:
        self.seat_row(out.row)
        await self.report(out)

    def story(self, events: Sequence[Mapping[str, Any]], cards: Any) -> list[str]:
        """The story of `events` as terminal lines (service/narrate.py's words)."""
        return [plain(line, self.lang) for line in
                narrate(events, self.names, cards, self.lang, limit=500)]

    async def report(self, out: Outcome) -> int:
        """The story of one action: each card or phase it ended with a compact board and
        its own image. Returns how many lines of story it told."""
        told = 0
        for r in phase_reports(out):  # service/report.py: the cut Discord makes too
            lines = self.story(r.events, out.game.cards)
            told += len(lines)
            self.say_lines(lines)
            if r.view is not None:
                self.phase_board(out.game, r.view, r.what)
                await self.write_image(r.view, r.events)
        people = self.at_keyboard
        for seat in people:  # private lines to their owner (named when others share the keys)
            private = [e for e in out.events if e.get("vis") == [seat]]
            mark = self.t("to_only", p=self.names[seat]) if len(people) > 1 else ""
            for line in self.story(private, out.game.cards):
                told += 1
                self.say("  " + mark + line)
        if out.over:  # the game just ended: kept for the history first (one transaction),
            await self.settle(out.row, out.game)  # then its animated recap (seconds)
            await self.write_recap(out.row, out.game)
        return told

    def phase_board(self, g: Game, view: View, what: str | None) -> None:
        """The compact board after a phase; one line when nothing on it changed."""
        if not self.auto_board:
            return
        lines = board.compact(g.cards, view, self.lang, what)
        if lines[1:] == self.last_board:
            self.say("    " + i18n.sentences(self.lang, lines[0], self.t("unchanged")))
            return
        self.last_board = lines[1:]
        self.say_lines(lines, "    ")

    async def keep_boards(self) -> None:
        """`board on|off` kept with the game (its settings' `boards`), for a resume."""
        row = None if self.row is None else await self.store.get(self.row.id)
        if row is None:
            return
        row.settings["boards"] = self.auto_board
        try:  # never over a game set aside: its settings read empty (the fault audit)
            await self.service.tables.write_settings(row)
        except Quarantined:  # (not wording: the preference is only not kept)
            log.info("game %s is set aside: board %s not kept with it", row.id,
                     "on" if self.auto_board else "off")

    def show_status(self, g: Game, focus: set[int] | None = None, told: bool = False) -> None:
        """What each waiting player is asked; with `focus`, only those seats in full (the
        others are named in one line: their question has not changed). `told`: the story
        has just told how the game ended (an action, an AI's answer), so it is not retold."""
        if g.over and focus is None and not told:
            res = g.result
            end = {"type": "game_over", "winners": res["winners"] if res else [],
                   "draw": bool(res and res["draw"]), "reason": res["reason"] if res else ""}
            self.say_lines(self.story([end], g.cards), "")
        if self.row is not None and (focus is None or g.over):  # not under every move
            self.say_lines(used_lines(self.row, self.names, self.lang), "")
        if g.over:
            self.say(self.t("game_over"))
            return
        waiting = self.people(g.waiting_for())  # an AI answers at once: nothing to ask
        if not waiting:
            self.say(self.t("nobody"))
        others = [self.names[s] for s in waiting if focus is not None and s not in focus]
        for seat in waiting:
            if focus is not None and seat not in focus:
                continue
            self.say(f"> {self.names[seat]}: " + plain(prompt(g, seat, self.lang), self.lang)
                     + self.how(g, seat))
            if g.decision_kind(seat) in ("place", "recruit"):
                self.say("  " + self.hand_line(g, seat))
        if others:
            self.say(self.t("also_waiting", names=self.join(others)))

    def how(self, g: Game, seat: int) -> str:
        """What to type, for the questions whose prompt (written for Discord's buttons)
        does not say it."""
        dec = g.decision(seat)
        if dec is None:
            return ""
        if dec["kind"] == "pick":
            words = [self.t("hint.pick")]
        elif dec["kind"] == "roll":
            # in the prompt's order, in the reader's notation words (振り直し, そのまま)
            words = [shown("reroll", self.lang)] * dec["can_reroll"] + [
                self.t("hint.levelup")] * dec["can_levelup"] + [shown("keep", self.lang)]
        else:
            return ""
        return " — " + " / ".join(quote(x, self.lang) for x in words)

    def hand_line(self, g: Game, seat: int) -> str:
        h = board.hand(g.cards, g.view(seat), seat, self.lang)
        medals = self.t("medals", values=h["medals"], threat=h["threat"]) if h["medals"] else ""
        return self.t("hand", p=h["p"], cards=h["cards"] or self.t("hand_empty"),
                      gold=h["gold"], medals=medals)
