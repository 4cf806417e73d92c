"""The console's game from start to farewell: starting, resuming, a move, `new`, the tutorial.

It exists to keep the life of the one game at the table together: what is abandoned when a
new table starts (and the confirmation that guards it), what a resumed game says, a move's
way through the service — a resignation asked twice, since nothing takes it back, and what
an undo could not take back remembered for its refusal — and the line said when the
console stops.
"""

from __future__ import annotations

from dataclasses import replace

from engine import Game, NotationError, closest, parse
from engine.types import Decision
from service import ServiceError
from service.levels import level_of
from service.notation import action_words
from service.outcomes import Outcome
from service.seats import level_name
from store import GameRow, tutorial_store

from . import board
from .files import DEFAULT_DB
from .options import Seat, Table, parse_new
from .seats import CHANNEL, Answering
from .telling import Telling
from .text import excerpt, name_key, quote
from .tutorial import Learning


def card_names(g: Game) -> list[str]:
    """Every name of every card of the game's set, in both languages: a real card's name
    (a unit, a monster, a command card not on offer) is no typo of a command card, so it
    is never "corrected" to one (as `engine.decisions` does for unit cards)."""
    cs = g.cards
    return [cs.name(c, lang) for c in (*cs.units, *cs.monsters, *cs.commands)
            for lang in ("en", "ja")]


class Games(Telling):
    """The game at the table: started, resumed, played a move at a time, left."""

    async def start(self, table: Table) -> None:
        """Abandon whatever is open in --db, then start `table`: seat k is user k + 1. (A
        seat with an AI level is seated the same way; its answers would come from `ai/`
        after each outcome — not played yet.)"""
        open_row = await self.store.open_game(CHANNEL)
        if open_row is not None:
            await self.service.lobby.abandon(CHANNEL, open_row.host_id, can_manage=True)
            if open_row.status == "active":
                try:
                    round_: int | str = (await self.service.tables.load(open_row)).round
                except ServiceError:  # (not wording: set aside, abandoned all the same)
                    round_ = "?"
                self.say(self.t("abandoned", names=self.join(s["name"] for s in open_row.seats),
                                round=round_))
        self.seed, self.last_actor = table.seed, None
        names, bots = table.names, table.bots
        extra = self.solo(table.difficulty)
        if bots:
            extra += self.t("with_ai", n=len(bots),
                            levels=self.join(level_name(b, self.lang) for b in bots))
        self.say(self.t("new_game", names=self.join(names), extra=extra, out=self.out_dir))
        await self.service.lobby.new_lobby(None, CHANNEL, 1, names[0], players=len(names) + len(bots),
                                     difficulty=table.difficulty, lang=self.lang)
        for k, name in enumerate(names[1:], start=2):
            await self.service.lobby.join(CHANNEL, k, name)
        for level in bots:
            await self.service.lobby.add_bot(CHANNEL, 1, level)
        ch = table.daily
        if ch is not None:  # the day as it was dealt: its key, difficulty and modifiers
            self.say(self.t("daily_replay", no=ch.number, day=ch.day.isoformat()))
            self.say_lines([f"• {m.name(self.lang)}" for m in ch.modifiers])  # "Name: what"
        out = await self.service.lobby.start(CHANNEL, 1, seed=ch.seed if ch else None,
                                       rng_key=ch.rng_key if ch else None,
                                       options=ch.options if ch else None,
                                       rules=ch.rules if ch else None)
        self.seat_row(out.row)
        if not self.auto_board:  # `board off` (typed before `new`, or the last game's) holds
            await self.keep_boards()
        await self.report(out)
        await self.ai_turns()

    async def resume(self, row: GameRow, typed: list[str]) -> None:
        self.seat_row(row)
        self.auto_board = row.settings.get("boards") is not False  # `board off` is kept
        if not typed:  # `new` then means: the same table again, with a fresh deal
            self.table = Table(tuple(Seat(s["name"], s.get("ai")) for s in row.seats),
                               level_of((row.setup or {}).get("options", {})))
        row, g = await self.service.tables.current(CHANNEL)
        setup = row.setup or {}
        difficulty = level_of(setup.get("options", {}))
        self.say(self.t("resuming", db=self.db, names=self.join(self.names),
                        extra=self.solo(difficulty),
                        round=g.round))
        people = [s["name"] for s in row.seats if not s.get("ai")]
        differs = bool(typed) and (
            [name_key(n) for n in self.table.names] != [name_key(n) for n in people]
            or self.table.bots != [s["ai"] for s in row.seats if s.get("ai")]
            or self.table.difficulty != difficulty
            or self.table.seed not in (None, setup.get("seed"))
            or (self.table.daily is not None and self.table.daily.key.hex() != setup.get("key")))
        self.say(self.t("ignored", opts=" ".join(typed)) if differs else self.t("how_new"))
        if self.auto_board:
            self.say_lines(board.compact(g.cards, g.view(None), self.lang))
        if await self.ai_turns():  # an AI answer the last run did not give
            g = (await self.service.tables.current(CHANNEL))[1]
        self.show_status(g)

    async def new(self, words: list[str], confirm: Table | None) -> None:
        """`new [OPTIONS]` (`words`: the line as typed, verb first): a new game; an
        unfinished one is abandoned only when the same line is typed twice in a row, so the
        confirmation quotes it whole (a bare `new` typed after `new --players 2` asked
        again: another table)."""
        self.answering = Answering("", "new")  # an option mistake is new's, not start-up's
        # a bare `new` keeps the seats and the level but deals a new game: a start-up
        # `--seed` chose the first deal, not every one after it
        table = parse_new(words[1:], self.lang) or replace(self.table, seed=None)
        open_row = await self.store.open_game(CHANNEL)
        if open_row is not None and open_row.status == "active" and confirm != table:
            g = await self.service.tables.load(open_row)
            self.confirm_new = table
            self.say(self.t("confirm_new", names=self.join(s["name"] for s in open_row.seats),
                            round=g.round, again=quote(" ".join(words), self.lang)))
            return
        self.table = table
        await self.start(table)
        self.show_status((await self.service.tables.current(CHANNEL))[1])

    async def act(self, g: Game, seat: int, action: str, resigning: int | None = None) -> None:
        """`seat` answers `action`; a resignation only when the line before was the same
        seat's resignation (`resigning`), since nothing takes it back."""
        if self.not_a_command_card(g, seat, action):
            return
        if action.split(" ")[0].casefold() == "resign" and resigning != seat:
            # one keyboard for everyone, no undo after it: asked again, like `new`
            self.confirm_resign = seat
            self.say(self.t("confirm_resign", p=self.names[seat]))
            return
        asked = {s: question(g, s) for s in range(len(self.names))}
        before = g.decision(seat)
        several = len(self.at_keyboard) > 1  # whose refusal it is
        self.answering = Answering(self.names[seat] if several else "", action)
        out = await self.service.play.act(CHANNEL, seat + 1, action)
        self.last_actor = seat
        self.remember_move(seat, before, out)
        told = await self.report(out)
        quiet = False
        if any(e["type"] == "autosave" for e in out.events):
            on = next(e["on"] for e in out.events if e["type"] == "autosave")
            self.say("  " + self.t("autosave_on" if on else "autosave_off", p=self.names[seat]))
        elif not told:
            # still deciding: those whose question is the one they had (a new one is shown)
            others = [self.names[s] for s in self.people(out.game.waiting_for())
                      if s != seat and asked[s] is not None and question(out.game, s) == asked[s]]
            if others and out.game.decision(seat) is None:
                self.say("  " + self.t("recorded", p=self.names[seat], names=self.join(others)))
                quiet = not out.prompts  # that line already named who is still deciding
            else:
                # the answer echoed as a line of the game's record: `Bob: done.`
                done = action_words(out.text, out.game.cards, self.lang)
                self.say("  " + self.t("accepted", p=self.names[seat], action=done))
        if await self.ai_turns():  # the AI seats answered: everyone's question anew
            self.show_status((await self.service.tables.viewable(CHANNEL))[1], told=True)
        elif not quiet:
            self.show_status(out.game, {seat, *out.prompts})

    def remember_move(self, seat: int, before: Decision | None, out: Outcome) -> None:
        """Why this move cannot be undone, if it cannot, so a refused `undo` can say so.
        The engine's rule (engine/game.py, `Game.undo`): a move is taken back only while the
        question it answered is still open and it revealed nothing random. Lines answering
        no question (`rolls`, `autosave`) are not moves."""
        if before is None or any(e["type"] in ("autosave", "rolls") for e in out.events):
            return
        g = out.game
        why = ""
        if not g.can_undo(seat):
            dec = g.decision(seat)
            why = "closed" if dec is None or dec["opened"] != before["opened"] else "revealed"
        self.moves[seat] = (action_words(out.text, g.cards, self.lang), why)

    def not_a_command_card(self, g: Game, seat: int, action: str) -> bool:
        """`pick banana`: say that it is not a command card (the engine would only say it
        cannot be picked now)."""
        try:
            a = parse(action)
        except NotationError:  # (not wording: the engine words a bad action when it is applied)
            return False
        if a.verb != "pick" or g.cards.resolve(a.card or "") in g.cards.commands:
            return False
        dec = g.decision(seat)
        options = dec["options"] if dec is not None and dec["kind"] == "pick" else list(
            g.cards.commands)
        names = self.join(g.cards.name(c, self.lang) for c in options or [])
        meant = closest(a.card or "", ((g.cards.name(c, lang), c) for c in options or []
                                       for lang in ("en", "ja")), known=card_names(g))
        close = self.t("close_card", card=g.cards.name(meant, self.lang)) if meant else ""
        self.say("! " + self.t("not_command_card", card=excerpt(a.card or "", self.lang),
                               close=close, options=names))
        return True

    async def tutorial(self, lesson: str = "") -> None:
        """`tutorial [N]` (or `--tutorial`): the lessons (issue 23), at lesson N when given;
        a game in progress waits, and `leave` comes back to it."""
        self.learning = Learning(tutorial_store(self.store), self.out_dir, self.lang, self.out)
        await self.learning.begin(lesson)

    async def after_tutorial(self) -> None:
        """Back from the tutorial: the game in progress, else how to start one."""
        row = await self.store.open_game(CHANNEL)
        if row is not None and row.status == "active":
            self.seat_row(row)  # `--tutorial` began before the waiting game was read
            self.show_status((await self.service.tables.viewable(CHANNEL))[1])
        else:
            self.say(self.t("tutorial_no_game"))

    async def farewell(self, why: str) -> None:
        """The one line said when the console stops: where the game is, how to resume."""
        if self.learning is not None:
            self.say(why + self.t("tutorial_saved", db=self.db))
            return
        row = await self.store.latest_game(CHANNEL)
        if row is None:
            self.say(why + self.t("bye_none", db=self.db))
            return
        if row.status != "active":
            self.say(why + self.t("bye_over", db=self.db))
            return
        same = "" if self.db == DEFAULT_DB else self.t("same_db", db=self.db)
        self.say(why + self.t("saved", db=self.db, same=same))


def question(g: Game, seat: int) -> int | None:
    """Which question the seat faces (its decision's id), None when it faces none."""
    dec = g.decision(seat)
    return None if dec is None else dec["id"]
