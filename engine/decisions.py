"""Each kind of decision declared once, as boardgame.io declares its moves.

A decision kind (docs/state.md, *Decisions*) is one `DecisionRule` in `RULES`: the verbs
that answer it, every legal answer, how an answer is checked then applied, what a timeout
does, the answer that needs no thought, and what its prompt says (a catalogue key with
language-free parameters: the engine holds no words). `Game` dispatches through this table
and interfaces read it (`Game.prompt`), so adding a kind, or a verb to one, is one entry
here instead of six places to keep in step.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Generic, TypeVar

from . import board, combat, flow
from .cards import CardSet, closest, normalize_name
from .errors import IllegalAction, excerpt
from .messages import Commands, Items, Name, Phrase, phrase
from .notation import Action, Verb
from .state import close_decision, is_unit, levelup_price, marks, sq
from .types import (
    ActionsDecision,
    Board,
    Card,
    Decision,
    DecisionKind,
    Event,
    PickDecision,
    PlaceDecision,
    Player,
    ReadyDecision,
    RecruitDecision,
    RollDecision,
    State,
    SupportDecision,
)

D = TypeVar("D", bound=Decision)


@dataclass(frozen=True, slots=True)
class Reply:
    """One seat's answer being applied: the card set, the state it changes, and the events
    it tells, which every kind's rule needs together."""

    cs: CardSet
    st: State
    seat: int
    ev: list[Event]

    @property
    def player(self) -> Player:
        return self.st["players"][self.seat]

    @property
    def board(self) -> Board:
        return self.st["players"][self.seat]["board"]

    def close(self) -> None:
        close_decision(self.st, self.seat)


@dataclass(frozen=True, slots=True)
class Prompt:
    """What a decision asks, without words: the catalogue id `key` (a counted message when
    `count` is set) and its parameters, as plain values or the `Name` / `Phrase` / `Items`
    of engine/messages.py that an interface renders in the reader's language."""

    key: str
    params: Mapping[str, object] = field(default_factory=dict)
    count: int | None = None


def _piece(key: str, /, **params: Any) -> Phrase:
    """A piece of a prompt: unlike a refusal's phrases (`refusal.<code>`), its code is the
    whole catalogue id."""
    return Phrase(key, params)


def _no_trivial(st: State, seat: int, dec: Decision) -> Action | None:
    return None


def _close(r: Reply, dec: Decision) -> None:
    r.close()


@dataclass(frozen=True, slots=True)
class DecisionRule(Generic[D]):
    """One decision kind, whole (see the module docstring)."""

    kind: DecisionKind
    verbs: tuple[Verb, ...]
    answer: Callable[[Reply, D, Action], str]  # check, then apply; the text logged (R15)
    legal: Callable[[CardSet, State, int, D], list[Action]]  # Level Up aside
    asks: Callable[[CardSet, State, int, D], Mapping[str, object]]  # the prompt's parameters
    timeout: Callable[[Reply, D], None] = _close  # a player out of time (R15): no change
    trivial: Callable[[State, int, D], Action | None] = _no_trivial  # besides a lone answer
    levelup_hint: bool = True  # the wrong-verb refusal mentions Level Up
    counted: Callable[[D], int] | None = None  # the prompt is a counted message of this n

    @property
    def prompt_key(self) -> str:
        return f"prompt.{self.kind}"


def _name(cs: CardSet, key: str) -> Name:
    """A card's name in both languages, for a refusal's or a prompt's parameters."""
    return Name(cs.name(key), cs.name(key, "ja"))


def _homes(b: Board) -> list[str]:
    return [sq(i) for i in range(6) if b[i] is None]


def _acted(b: Board) -> tuple[str, ...]:
    return tuple(sq(i) for i, u in enumerate(b) if is_unit(u) and u.get("acted"))


def _done(r: Reply) -> str:
    r.close()
    return "done"


# ---- matching typed input -----------------------------------------------------------------------
def _printed(cs: CardSet, key: str) -> tuple[str, str, str]:
    """A unit card's key and printed names, case- and width-folded (not ★-stripped)."""
    u = cs.units[key]
    return key, unicodedata.normalize("NFKC", u.en).casefold(), \
        unicodedata.normalize("NFKC", u.ja).casefold()


def _found(cs: CardSet, cards: list[Card], text: str) -> list[Card]:
    # A card's exact key or printed name (any case/width) wins over ★-insensitive matching:
    # `warrior` / `ウォーリア` is the level-up card (R12.2) even with Warrior★ also in hand,
    # and canonical logs (card keys) replay to the same card (R15).
    fold = unicodedata.normalize("NFKC", text).casefold().strip()
    key = cs.resolve(text)
    exact = ([c for c in cards if fold in _printed(cs, c["card"])]
             or [c for c in cards if c["card"] == key])
    want = normalize_name(text)
    return exact or [c for c in cards if want in (
        normalize_name(c["card"]), normalize_name(cs.units[c["card"]].en),
        normalize_name(cs.units[c["card"]].ja))]


def find_card(cs: CardSet, cards: list[Card], text: str) -> Card | None:
    """The card of `cards` that `text` names, None when none does; an ambiguous name is
    refused (it could be either)."""
    found = _found(cs, cards, text)
    keys = {c["card"] for c in found}
    if len(keys) > 1:
        raise IllegalAction("ambiguous", text=excerpt(text),
                            keys=Items(tuple(sorted(keys)), " or "))
    return found[0] if found else None


def match_card(cs: CardSet, cards: list[Card], text: str, where: str, extra: str = "") -> Card:
    """The card of `cards` that `text` names; refused with what there is when none does."""
    card = find_card(cs, cards, text)
    if card is not None:
        return card
    have = sorted({_name(cs, c["card"]) for c in cards})
    close = _close_card(cs, cards, text)
    raise IllegalAction("not_found", text=excerpt(text), where=phrase(where),
                        why=phrase(extra) if extra else "",
                        have=Items(tuple(have)) if have else phrase("have.nothing"),
                        close=phrase("close", card=_name(cs, close)) if close else "")


def _close_card(cs: CardSet, cards: list[Card], text: str) -> str | None:
    """The card of `cards` a mistyped name most likely meant, in either language; none
    for the name of a card the set has (not on offer here: the refusal's list says what
    is)."""
    return closest(text, ((n, c["card"]) for c in cards
                          for n in (cs.units[c["card"]].en, cs.units[c["card"]].ja)),
                   known=(n for u in cs.units.values() for n in (u.en, u.ja)))


def home_square(cs: CardSet, b: Board, square: str | None) -> int:
    """The empty home square `square` names (R2, R7.1), else refused."""
    i = board.index(square or "")
    if i is None or not board.is_home(i):
        raise IllegalAction("home_only", text=excerpt(square or ""))
    piece = b[i]
    if piece is not None:
        raise IllegalAction("taken", square=sq(i), card=_name(cs, piece["card"]))
    return i


# ---- pick (R6.1) --------------------------------------------------------------------------------
def _pick(r: Reply, dec: PickDecision, a: Action) -> str:
    key = r.cs.resolve(a.card or "")
    if key not in dec["options"]:
        names = Items(tuple(_name(r.cs, c) for c in dec["options"]))
        what = (_name(r.cs, key) if key in r.cs.commands
                else phrase("quoted", text=excerpt(a.card or "")))
        raise IllegalAction("cannot_pick", card=what, names=names)
    r.close()
    flow.pick(r.cs, r.st, r.seat, key, r.ev)
    return f"pick {key}"


def _pick_timeout(r: Reply, dec: PickDecision) -> None:
    r.close()
    flow.skip_turn(r.st, r.seat, r.ev)


def _pick_asks(cs: CardSet, st: State, seat: int, dec: PickDecision) -> Mapping[str, object]:
    names = Items(tuple(_name(cs, c) for c in dec["options"]))
    return {"options": _piece("prompt.pick_options", options=names)}


# ---- place (initial placement, R4.4) ------------------------------------------------------------
_DEFAULT_PLACES = ("2B", "2A", "2C", "1B", "1A", "1C")


def _place(r: Reply, dec: PlaceDecision, a: Action) -> str:
    p = r.player
    card = match_card(r.cs, p["hand"], a.card or "", "where.hand")
    i = home_square(r.cs, r.board, a.square)
    r.close()
    p["hand"].remove(card)
    flow.place_unit(r.cs, r.st, r.seat, card, i, r.ev, paid=False)
    return f"place {card['card']} {sq(i)}"


def _place_timeout(r: Reply, dec: PlaceDecision) -> None:
    """Placement is mandatory (p.7): a fixed, harmless default."""
    b = r.board
    i = next(board.square(s) for s in _DEFAULT_PLACES if b[board.square(s)] is None)
    card = r.player["hand"][0]
    r.close()
    r.player["hand"].remove(card)
    flow.place_unit(r.cs, r.st, r.seat, card, i, r.ev, paid=False)


def _place_legal(cs: CardSet, st: State, seat: int, dec: PlaceDecision) -> list[Action]:
    p = st["players"][seat]
    homes = _homes(p["board"])
    return [Action("place", card=key, square=h)
            for key in sorted({c["card"] for c in p["hand"]}) for h in homes]


# ---- actions (R8) -------------------------------------------------------------------------------
def _actions(r: Reply, dec: ActionsDecision, a: Action) -> str:
    if a.verb == "done":
        r.close()
        r.ev.append({"type": "done", "player": r.seat})
        return "done"
    plan = combat.check_act(r.cs, r.st, r.seat, a)
    dec["left"] -= 1
    unit = r.board[plan.unit]
    assert unit is not None  # check_act found the unit there
    dec["acted_now"].append(unit["id"])
    combat.do_act(r.cs, r.st, r.seat, plan, r.ev)
    if r.st["decisions"].get(str(r.seat)) is dec:
        combat.continue_actions(r.st, r.seat, dec)
    return str(a)


def _destinations(cs: CardSet, p: Player, i: int, mov: int) -> list[tuple[int | None, bool]]:
    """Where the unit on `i` may act from: staying, a move, a Full Move (R12.4)."""
    moves = board.unit_moves(p["board"], i, mov)
    dests: list[tuple[int | None, bool]] = [(None, False)] + [(d, False) for d in moves]
    if marks(p) >= 1:
        dests += [(d, True) for d in board.unit_moves(p["board"], i, mov + 1) if d not in moves]
    return dests


def act_options(cs: CardSet, st: State, seat: int) -> list[Action]:
    """Every `act` the seat may take now (R8): each un-acted unit, each place it may act
    from, each use of its skill from there."""
    p = st["players"][seat]
    b = p["board"]
    out: list[Action] = []
    for i, u in enumerate(b):
        if not is_unit(u) or u.get("acted"):
            continue
        for d, full in _destinations(cs, p, i, cs.units[u["card"]].mov):
            pos = i if d is None else d
            scratch = list(b)
            scratch[i], scratch[pos] = None, u
            to = None if d is None else sq(d)
            if d is not None:
                out.append(Action("act", square=sq(i), to=to, fullmove=full))
            out += [Action("act", square=sq(i), to=to, fullmove=full, skill=use)
                    for use in combat.skill_options(cs, scratch, pos)]
    return out


def _actions_legal(cs: CardSet, st: State, seat: int, dec: ActionsDecision) -> list[Action]:
    return [Action("done"), *act_options(cs, st, seat)]


def _card_or_fatigue(cs: CardSet, card: str) -> Name | Phrase:
    return _name(cs, card) if card in cs.commands else _piece("prompt.fatigue")


def _actions_asks(cs: CardSet, st: State, seat: int, dec: ActionsDecision) -> Mapping[str, object]:
    return {"card": _card_or_fatigue(cs, dec["card"]), "n": dec["left"]}


# ---- ready (Rest R7, Fatigue recovery R11.2) -----------------------------------------------------
def _ready(r: Reply, dec: ReadyDecision, a: Action) -> str:
    if a.verb == "done" or not a.squares:
        return _done(r)
    b = r.board
    idx = [board.square(s) for s in a.squares]
    if len(set(idx)) != len(idx):
        raise IllegalAction("ready_once")
    if len(idx) > dec["n"]:
        raise IllegalAction("ready_max", n=dec["n"])
    units = [b[i] for i in idx]
    for i, u in zip(idx, units, strict=True):
        if not is_unit(u) or not u.get("acted"):
            raise IllegalAction("ready_not_acted", square=sq(i))
    for u in units:
        if u is not None:
            u["acted"] = False
    if r.st["setup"].get("rules", 1) >= 3:  # logged in board order, however it was typed:
        idx = sorted(idx)  # one notation for one answer (the review and hints compare them)
    r.close()
    r.ev.append({"type": "readied", "player": r.seat, "squares": [sq(i) for i in idx]})
    return "ready " + " ".join(sq(i) for i in idx)


def _ready_legal(cs: CardSet, st: State, seat: int, dec: ReadyDecision) -> list[Action]:
    acted = _acted(st["players"][seat]["board"])
    return [Action("done")] + [Action("ready", squares=c)
                               for n in range(1, dec["n"] + 1) for c in combinations(acted, n)]


def _ready_trivial(st: State, seat: int, dec: ReadyDecision) -> Action | None:
    """Readying every acted unit can only help, when the limit allows it."""
    acted = _acted(st["players"][seat]["board"])
    return Action("ready", squares=acted) if len(acted) <= dec["n"] else None


def _ready_asks(cs: CardSet, st: State, seat: int, dec: ReadyDecision) -> Mapping[str, object]:
    return {"card": _card_or_fatigue(cs, dec["card"]), "n": dec["n"]}


# ---- recruit (R7.1) -----------------------------------------------------------------------------
def _recruit_card(r: Reply, dec: RecruitDecision, a: Action) -> tuple[Card, bool]:
    """The card `a` recruits and whether it is a mercenary (R7.1)."""
    hand = r.player["hand"]
    card = None if a.merc else find_card(r.cs, hand, a.card or "")
    if card is not None:
        return card, False
    mercs = [m for m in r.st["mercenaries"] if m]
    if not dec["mercenaries"]:
        if a.merc:  # R7.1: never a mercenary under AUTO, even one also in the hand
            raise IllegalAction("no_mercs_auto")
        why = "why.auto" if not a.merc and mercs else "why.nor"
        match_card(r.cs, hand, a.card or "", "where.hand", extra=why)
    return match_card(r.cs, mercs, a.card or "", "where.mercs"), True


def _recruit(r: Reply, dec: RecruitDecision, a: Action) -> str:
    if a.verb == "done":
        return _done(r)
    p = r.player
    card, merc = _recruit_card(r, dec, a)
    i = home_square(r.cs, r.board, a.square)
    cost = r.cs.units[card["card"]].cost
    if cost > p["gold"]:
        raise IllegalAction("too_expensive", card=_name(r.cs, card["card"]), cost=cost,
                            gold=p["gold"])
    r.close()
    if merc:
        r.st["claims"].append([r.seat, card["id"], sq(i)])
        # R7.1 [decision]: choices are collected together, so a claim stays private
        # until all have chosen (the view hides its log entry too).
        r.ev.append({"type": "merc_claimed", "player": r.seat, "card": card["card"],
                     "vis": [r.seat]})
        return f"recruit merc {card['card']} {sq(i)}"
    p["hand"].remove(card)
    flow.place_unit(r.cs, r.st, r.seat, card, i, r.ev, paid=True)
    return f"recruit {card['card']} {sq(i)}"


def _affordable(cs: CardSet, cards: list[Card], gold: int) -> list[str]:
    return [k for k in sorted({c["card"] for c in cards}) if cs.units[k].cost <= gold]


def _recruit_legal(cs: CardSet, st: State, seat: int, dec: RecruitDecision) -> list[Action]:
    p = st["players"][seat]
    homes = _homes(p["board"])
    out = [Action("done")] + [Action("recruit", card=key, square=h)
                              for key in _affordable(cs, p["hand"], p["gold"]) for h in homes]
    if dec["mercenaries"]:
        mercs = [m for m in st["mercenaries"] if m]
        out += [Action("recruit", card=key, square=h, merc=True)
                for key in _affordable(cs, mercs, p["gold"]) for h in homes]
    return out


def _recruit_asks(cs: CardSet, st: State, seat: int, dec: RecruitDecision) -> Mapping[str, object]:
    """What is on offer and what it costs, so a new player need not open the table image to
    choose (R7.1)."""
    offer = tuple(_piece("prompt.mercenary_cost", card=_name(cs, m["card"]),
                         cost=cs.units[m["card"]].cost)
                  for m in st["mercenaries"] if m is not None)
    mercs = _piece("prompt.or_mercenary", offer=Items(offer)) \
        if dec["mercenaries"] and offer else ""
    return {"mercs": mercs}


# ---- support (End phase, R11.1) -----------------------------------------------------------------
def _support(r: Reply, dec: SupportDecision, a: Action) -> str:
    if a.verb == "done":
        return _done(r)
    i = board.index(a.square or "")
    u = r.board[i] if i is not None else None
    if i is None or not is_unit(u) or u["dmg"] <= 0:
        raise IllegalAction("support_none", square=a.square)
    u["dmg"] -= 1
    r.close()
    hp = r.cs.units[u["card"]].hp
    r.ev.append({"type": "healed", "player": r.seat, "square": sq(i), "amount": 1,
                 "support": True, "card": u["card"], "hp": hp, "hp_left": hp - u["dmg"]})
    return f"support {sq(i)}"


def _support_legal(cs: CardSet, st: State, seat: int, dec: SupportDecision) -> list[Action]:
    b = st["players"][seat]["board"]
    return [Action("done")] + [Action("support", square=sq(i)) for i, u in enumerate(b)
                               if is_unit(u) and u["dmg"] > 0]


# ---- roll (a dice attack's boons, R8.2, R12.1) ---------------------------------------------------
def _roll(r: Reply, dec: RollDecision, a: Action) -> str:
    if a.verb == "reroll":
        if not dec["can_reroll"]:
            raise IllegalAction("no_willpower")
        combat.reroll(r.cs, r.st, r.seat, dec, r.ev)
        return "reroll"
    _keep(r, dec)
    return "keep"


def _keep(r: Reply, dec: RollDecision) -> None:
    roll = combat.roll_of(dec)
    _, _, dmg = combat.roll_outcome(r.cs, r.st, r.seat, roll)
    r.close()
    combat.resolve_roll(r.cs, r.st, r.seat, roll, dmg, r.ev, dec["resume"])


def _roll_legal(cs: CardSet, st: State, seat: int, dec: RollDecision) -> list[Action]:
    return [Action("keep")] + ([Action("reroll")] if dec["can_reroll"] else [])


def _modifier(mod: int) -> str:
    """A roll's modifier as it is added: "+1", "+0", "−1" (R8.2)."""
    return f"+{mod}" if mod >= 0 else f"−{-mod}"


def _roll_asks(cs: CardSet, st: State, seat: int, dec: RollDecision) -> Mapping[str, object]:
    # offer only the boons that could raise the damage (combat.roll_options)
    boons = "both" if dec["can_reroll"] and dec["can_levelup"] else (
        "reroll" if dec["can_reroll"] else "levelup")
    return {"d1": dec["dice"][0], "d2": dec["dice"][1], "total": dec["total"],
            "result": _piece(f"roll.{dec['result']}"),
            "mod": _modifier(dec["total"] - sum(dec["dice"])), "def": dec.get("def", "?"),
            "choices": _piece(f"prompt.roll_{boons}",
                              price=levelup_price(st["players"][seat]))}


def _nothing(cs: CardSet, st: State, seat: int, dec: Decision) -> Mapping[str, object]:
    return {}


_RULES: tuple[DecisionRule[Any], ...] = (
    DecisionRule(
        "pick", ("pick",), _pick,
        lambda cs, st, seat, dec: [Action("pick", card=c) for c in dec["options"]],
        _pick_asks, timeout=_pick_timeout),
    DecisionRule(
        "place", ("place",), _place, _place_legal, _nothing,
        timeout=_place_timeout, levelup_hint=False),
    DecisionRule(
        "actions", ("act", "done"), _actions, _actions_legal, _actions_asks,
        counted=lambda dec: dec["left"]),
    DecisionRule(
        "ready", ("ready", "done"), _ready, _ready_legal, _ready_asks,
        trivial=_ready_trivial, counted=lambda dec: dec["n"]),
    DecisionRule(
        "recruit", ("recruit", "done"), _recruit, _recruit_legal, _recruit_asks),
    DecisionRule(
        "support", ("support", "done"), _support, _support_legal, _nothing),
    DecisionRule(
        "roll", ("reroll", "keep"), _roll, _roll_legal, _roll_asks, timeout=_keep),
)
RULES: Mapping[str, DecisionRule[Any]] = {r.kind: r for r in _RULES}
"""Every decision kind, by its `kind` (docs/state.md)."""


def answer(r: Reply, dec: Decision, a: Action) -> str:
    """Check then apply the answer `a` to `dec` with its kind's rule; the text logged."""
    rule = RULES[dec["kind"]]
    if a.verb == "timeout":
        r.ev.append({"type": "timeout", "player": r.seat, "decision": dec["kind"]})
        rule.timeout(r, dec)
        return "timeout"
    if a.verb not in rule.verbs:
        raise IllegalAction("wrong_verb", prompt=phrase(rule.prompt_key),
                            verbs=Commands(tuple(rule.verbs)),
                            levelup=phrase("or_levelup") if rule.levelup_hint else "")
    return rule.answer(r, dec, a)


def legal(cs: CardSet, st: State, seat: int, dec: Decision) -> list[Action]:
    """Every answer to `dec` (Level Up included, R12.1)."""
    return RULES[dec["kind"]].legal(cs, st, seat, dec) + levelup_options(cs, st, seat)


def levelup_options(cs: CardSet, st: State, seat: int) -> list[Action]:
    """The Level Ups `seat` may declare now, at any decision (R12.1, R12.2)."""
    b = st["players"][seat]["board"]
    return [Action("levelup", square=sq(i)) for i, u in enumerate(b)
            if is_unit(u) and combat.levelup_problem(cs, st, seat, i) is None]


def prompt(cs: CardSet, st: State, seat: int, dec: Decision) -> Prompt:
    """What `dec` asks `seat`: its kind's catalogue key with the parameters the kind
    declares (the seat's own, such as its Level Up price)."""
    rule = RULES[dec["kind"]]
    key = rule.prompt_key
    if dec["kind"] == "pick" and st["round"] == 1:
        # A newcomer's first pick names five cards they have never seen: round 1's prompt
        # says where their effects are told (R7); later rounds keep it short.
        key = "prompt.pick_first"
    return Prompt(key, rule.asks(cs, st, seat, dec),
                  None if rule.counted is None else rule.counted(dec))


def trivial(st: State, seat: int, dec: Decision) -> Action | None:
    return RULES[dec["kind"]].trivial(st, seat, dec)
