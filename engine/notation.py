"""The action notation shared by every interface (CLI, bot, logs, tests): docs/notation.md.

Parsing only checks the grammar; whether an action is legal is the game's business. Text is
read after NFKC, so full-width input from a Japanese IME means what its ASCII spelling means.
Card names stay as typed (width-folded) and are resolved against the card set when the action
is checked, so `recruit シーフ 2A` and `recruit thief 2a` mean the same thing. Parsing is
linear in the input and bounded in depth, and an error quotes at most an excerpt of what was
typed, so no input, however long or deep, costs more than a short answer.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, get_args

from . import board
from .cards import closest
from .errors import NotationError, excerpt
from .messages import phrase

Verb = Literal["pick", "place", "act", "recruit", "ready", "support", "levelup", "reroll",
               "keep", "done", "timeout", "autosave", "rolls", "resign"]
"""The first word of every action (docs/notation.md), in the order a refusal lists them."""
ROLL_PROMPTS = ("miss", "always")  # `rolls`: when a roll decision is opened (R12.1)
# A Bard commanding a Bard … : each level needs another unit of the same board, so a chain
# longer than the board's squares is never legal; refusing it here keeps parsing (and the
# recursive checks after it) bounded whatever is typed.
MAX_COMMANDS = board.SIZE


@dataclass(frozen=True, slots=True)
class SkillUse:
    """`attack SQ[,SQ]`, `area`, `heal SQ[,SQ]` or `command SQ [SKILL]` (R8.2)."""

    kind: str  # attack | area | heal | command
    targets: tuple[str, ...] = ()
    sub: SkillUse | None = None

    def __str__(self) -> str:
        if self.kind == "area":
            return "area"
        text = f"{self.kind} {','.join(self.targets)}"
        return f"{text} {self.sub}" if self.sub else text


@dataclass(frozen=True, slots=True)
class Action:
    verb: str
    card: str | None = None  # as typed (pick/place/recruit)
    square: str | None = None  # act: the unit; place/recruit: destination; levelup/support
    squares: tuple[str, ...] = ()  # ready
    to: str | None = None
    fullmove: bool = False
    skill: SkillUse | None = None
    merc: bool = False
    flag: bool = False  # autosave on/off
    mode: str | None = None  # rolls: miss | always
    extra: tuple[str, ...] = field(default=(), compare=False)

    def __str__(self) -> str:
        v = self.verb
        if v == "pick":
            return f"pick {self.card}"
        if v == "place":
            return f"place {self.card} {self.square}"
        if v == "recruit":
            return f"recruit {'merc ' if self.merc else ''}{self.card} {self.square}"
        if v == "ready":
            return " ".join(("ready", *self.squares))
        if v in ("support", "levelup"):
            return f"{v} {self.square}"
        if v == "autosave":
            return f"autosave {'on' if self.flag else 'off'}"
        if v == "rolls":
            return f"rolls {self.mode}"
        if v == "act":
            parts = ["act", str(self.square)]
            if self.fullmove:
                parts.append("fullmove")
            if self.to:
                parts += ["to", self.to]
            if self.skill:
                parts.append(str(self.skill))
            return " ".join(parts)
        return v


def _square(tok: str, what: str) -> str:
    if board.index(tok) is None:
        raise NotationError("syntax.bad_square", text=excerpt(tok.upper()), what=phrase(what))
    return tok.upper()


def _squares(tok: str, what: str) -> tuple[str, ...]:
    return tuple(_square(t, what) for t in tok.split(",") if t)


_SKILL_WORDS = ("attack", "area", "heal", "command")


def _skill(toks: list[str], depth: int = 1) -> tuple[SkillUse, list[str]]:
    """One skill use; `depth` counts the commands around it, bounded by MAX_COMMANDS."""
    word = toks[0]
    if word == "area":
        return SkillUse("area"), toks[1:]
    if len(toks) < 2:
        raise NotationError("syntax.needs_target", word=word)
    targets = _squares(toks[1], f"what.{word}")
    rest = toks[2:]
    if word == "command":
        if len(targets) != 1:
            raise NotationError("syntax.command_one")
        if rest and rest[0] in _SKILL_WORDS:
            if rest[0] == "command" and depth >= MAX_COMMANDS:
                raise NotationError("syntax.nested_max", n=MAX_COMMANDS)
            sub, rest = _skill(rest, depth + 1)
            return SkillUse("command", targets, sub), rest
        return SkillUse("command", targets), rest
    return SkillUse(word, targets), rest


def unformatted(text: str) -> str:
    """Without the invisible format characters a copy and paste leaves (zero-width spaces
    and joiners, a byte-order mark): never part of an answer, a command or a name."""
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def _tokens(text: str) -> list[str]:
    """Whitespace-separated tokens, in time linear in the length of any input.

    NFKC first, so what a Japanese IME types (`ａｃｔ ２Ｂ`, `，`, the full-width space) reads
    as ASCII; `、` is a comma too. Any spaces around a comma belong to the list
    (`heal 1A , 1A`), docs/notation.md. Invisible format characters are dropped
    (`unformatted`): no token holds one.
    """
    raw = " ".join(unicodedata.normalize("NFKC", unformatted(text)).replace("、", ",").split())
    return [t for t in re.sub(r" ?, ?", ",", raw).split(" ") if t]


def parse(text: str) -> Action:
    """Parse one action; raise NotationError with a hint on anything malformed."""
    toks = _tokens(text)
    if not toks:
        raise NotationError("syntax.empty")
    verb = toks[0].lower()
    grammar = _READERS.get(verb)
    if grammar is None:
        players = [v for v in VERBS if v != "timeout"]  # timeout is the system's answer
        raise NotationError("syntax.unknown", text=excerpt(toks[0]), actions=", ".join(players))
    return grammar(verb, toks[1:])


# One reader per verb: what follows the verb (`args`, as typed) becomes the Action.
def _bare(verb: str, args: list[str]) -> Action:
    if args:
        raise NotationError("syntax.no_args", verb=verb)
    return Action(verb)


def _pick(verb: str, args: list[str]) -> Action:
    if len(args) != 1:
        raise NotationError("syntax.use_pick")
    return Action("pick", card=args[0])


def _place(verb: str, args: list[str]) -> Action:
    if len(args) != 2:
        raise NotationError("syntax.use_place")
    return Action("place", card=args[0], square=_square(args[1], "what.place"))


def _recruit(verb: str, args: list[str]) -> Action:
    merc = bool(args) and args[0].lower() in ("merc", "mercenary")
    rest = args[1:] if merc else args
    if len(rest) != 2:
        raise NotationError("syntax.use_recruit")
    return Action("recruit", card=rest[0], square=_square(rest[1], "what.recruit"), merc=merc)


def _ready(verb: str, args: list[str]) -> Action:
    return Action("ready", squares=tuple(s for a in args for s in _squares(a, "what.ready")))


def _on_square(verb: str, args: list[str]) -> Action:
    if len(args) != 1:
        raise NotationError("syntax.use_square", verb=verb)
    return Action(verb, square=_square(args[0], "what.unit"))


def _autosave(verb: str, args: list[str]) -> Action:
    low = [a.lower() for a in args]
    if low not in (["on"], ["off"]):
        raise NotationError("syntax.use_autosave")
    return Action("autosave", flag=low == ["on"])


def _rolls(verb: str, args: list[str]) -> Action:
    low = [a.lower() for a in args]
    if len(low) != 1 or low[0] not in ROLL_PROMPTS:
        raise NotationError("syntax.use_rolls")
    return Action("rolls", mode=low[0])


def _act(verb: str, args: list[str]) -> Action:
    """`act SQ [fullmove] [to SQ] [SKILL]`."""
    if not args:
        raise NotationError("syntax.use_act")
    unit = _square(args[0], "what.actor")
    toks = [a.lower() for a in args[1:]]
    typed = args[1:]  # as typed, for quoting back: `toks[k]` is `typed[-len(toks) + k]`
    fullmove = bool(toks) and toks[0] == "fullmove"
    toks = toks[1:] if fullmove else toks
    to = None
    if toks and toks[0] == "to":
        if len(toks) < 2:
            raise NotationError("syntax.to_square")
        to, toks = _square(toks[1], "what.destination"), toks[2:]
    skill = None
    if toks:
        if toks[0] not in _SKILL_WORDS:
            if to is None and board.index(toks[0]) is not None:  # `act 2B 4B`: a move
                raise NotationError("syntax.move_to", unit=unit, text=toks[0].upper())
            meant = closest(toks[0], [(w, w) for w in _SKILL_WORDS])
            if meant is not None:  # `attak`: the new-player audit read no suggestion
                raise NotationError("syntax.after_move_meant", text=excerpt(typed[-len(toks)]),
                                    word=meant)
            raise NotationError("syntax.after_move", text=excerpt(typed[-len(toks)]))
        skill, toks = _skill(toks)
    if toks:
        raise NotationError("syntax.trailing", text=excerpt(" ".join(typed[-len(toks):])))
    if fullmove and to is None:
        raise NotationError("syntax.fullmove_to")
    return Action("act", square=unit, to=to, fullmove=fullmove, skill=skill)


_GRAMMAR: dict[Verb, Callable[[str, list[str]], Action]] = {
    "pick": _pick, "place": _place, "act": _act, "recruit": _recruit, "ready": _ready,
    "support": _on_square, "levelup": _on_square, "reroll": _bare, "keep": _bare,
    "done": _bare, "timeout": _bare, "autosave": _autosave, "rolls": _rolls, "resign": _bare,
}
VERBS: tuple[str, ...] = get_args(Verb)
# looked up by the word as typed (any string)
_READERS: dict[str, Callable[[str, list[str]], Action]] = {str(v): r for v, r in _GRAMMAR.items()}
