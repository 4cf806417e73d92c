"""The engine's API: a game is plain state plus the card set; actions go in, events come out.

`Game.apply` is the one way a state changes: it checks the answer against the player's
pending decision (stale / not yours / game over / illegal, each typed), mutates only after
validation, runs the automatic flow, and logs the action so setup + log replays the game
(R15). Undo replays the log without the undone action.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Mapping
from itertools import combinations, combinations_with_replacement
from typing import Any

from . import board, combat, flow, rng
from .cards import (
    CardSet,
    cards_for,
    default_cards,
    default_version,
    normalize_name,
    parse_cardset,
    released_at,
    released_cards,
    released_versions,
)
from .errors import (
    ActionError,
    GameOver,
    IllegalAction,
    NotationError,
    NotYourDecision,
    StaleDecision,
    excerpt,
)
from .messages import Items, Name, phrase
from .notation import ROLL_PROMPTS, Action, SkillUse, parse
from .state import (
    ActionsDecision,
    Board,
    Card,
    Decision,
    Event,
    State,
    close_decision,
    is_monster,
    is_unit,
    marks,
    new_game,
    normalize,
    sq,
    touch_decision,
)
from .types import (
    DecisionKind,
    LogEntry,
    PickDecision,
    PlaceDecision,
    Player,
    ReadyDecision,
    RecruitDecision,
    Result,
    RollDecision,
    Setup,
    SupportDecision,
    View,
)
from .view import view as _view


class Game:
    """A game in progress. `state` is the JSON-ready dict of docs/state.md."""

    __slots__ = ("state", "cards")

    def __init__(self, state: State, cards: CardSet | None = None) -> None:
        self.state = state
        self.cards = cards or cards_for(state.get("setup", {}))

    # ---- construction and persistence -------------------------------------------------------
    @classmethod
    def new(cls, players: list[str], seed: int = 0, options: Mapping[str, Any] | None = None,
            cards_data: dict[str, Any] | None = None, events: list[Event] | None = None,
            cards_version: int | None = None, key: bytes | None = None) -> Game:
        """A new game up to its first decisions; `events` (if given) receives the setup's
        events (round-0 summons, mercenaries) so interfaces can tell the story.

        The card set is `cards_data` (a custom set, kept whole in the setup), else the
        released version `cards_version`, else today's default — whose version the setup
        records, so the game replays with these values after any later card change (R15,
        issue 17). `key` (32 bytes): every draw comes from the keyed generator
        (engine/rng.py), not the seed."""
        if key is not None:
            rng.parse_key(key.hex())  # a short key could be searched: refused, never cut
        if cards_data:
            # The stored state keeps its keys sorted (to_json), and deck building follows the
            # card set's order: build from the sorted form so a replay of the stored setup
            # deals the very same decks (R15).
            cards_data = json.loads(json.dumps(cards_data, sort_keys=True))
            cs = parse_cardset(cards_data)
        elif cards_version is not None:
            cs = released_cards(cards_version)
        else:
            cs, cards_version = default_cards(), default_version()
        st = new_game(cs, players, seed, options or {}, key)
        if cards_data:
            st["setup"]["cards"] = cards_data
        elif cards_version is not None:
            st["setup"]["cards_version"] = cards_version
        g = cls(st, cs)
        flow.run(cs, st, events if events is not None else [])
        return g

    @classmethod
    def from_json(cls, data: str | dict[str, Any]) -> Game:
        """Load a saved or hand-written (puzzle) state; missing keys take their defaults.
        A file nested deeper than Python recurses is a ValueError like any other bad file."""
        try:
            raw = json.loads(data) if isinstance(data, str) else data
            st = normalize(raw)
        except RecursionError:
            raise ValueError("the state is nested too deeply to be a game") from None
        setup = st["setup"]
        if "version" not in raw and not st["log"]:
            # A puzzle: remember where it starts, so replay (and undo) start there too, and
            # with which cards (R15): today's, unless it brings its own.
            start = {k: v for k, v in st.items() if k != "setup"}
            setup["start"] = json.loads(json.dumps(start))
            if "cards" not in setup and "cards_version" not in setup:
                version = default_version()
                if version is not None:
                    setup["cards_version"] = version
        elif st["log"] and "cards" not in setup and "cards_version" not in setup:
            # A game saved before card sets had versions: the one it was played with.
            version = find_cards_version(setup, st["log"], st)
            if version is not None:
                setup["cards_version"] = version
        return cls(st)

    def to_json(self) -> str:
        return json.dumps(self.state, ensure_ascii=False, sort_keys=True, separators=(",", ":"))

    @classmethod
    def start(cls, setup: Mapping[str, Any], events: list[Event] | None = None) -> Game:
        """The game as its setup begins it, before any logged action, with the setup's own
        card set and generator (`setup.rng`, R15): a dealt game up to its first decisions (`events` receives the setup's
        events), or a puzzle's starting position (`setup.start`)."""
        if "start" in setup:
            st = normalize(json.loads(json.dumps(setup["start"])))
            # the setup first, so the puzzle's own cards judge it (not the default set)
            st["setup"] = json.loads(json.dumps(setup))
            return cls(st)
        g = cls.new(setup["players"], setup.get("seed", 0), setup.get("options"),
                    setup.get("cards"), events, setup.get("cards_version"), rng.key_of(setup))
        if "cards" not in setup and "cards_version" not in setup:
            # A setup from before versions replays as stored (with the process's default
            # set): store migration 4 and `from_json` find the version it was played with.
            g.state["setup"].pop("cards_version", None)
        return g

    @classmethod
    def replay(cls, setup: Mapping[str, Any], log: list[LogEntry]) -> Game:
        """Setup plus action log reproduces the state exactly (R15). A hand-written puzzle
        carries its own starting position in `setup.start` and replays from there."""
        g = cls.start(setup)
        for seat, text in log:
            g.apply(int(seat), text)
        return g

    # ---- questions -------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.state["result"] is not None

    @property
    def result(self) -> Result | None:
        """Who won and why once the game is over (R13, R14), else None: narrows where `over`
        cannot, so an interface reads the result without reaching into the state."""
        return self.state["result"]

    @property
    def log(self) -> list[LogEntry]:
        """The action log, oldest first: with `setup` it is the whole game (R15)."""
        return self.state["log"]

    @property
    def setup(self) -> Setup:
        return self.state["setup"]

    @property
    def round(self) -> int:
        return self.state["round"]

    def player(self, seat: int) -> Player:
        """One seat's full record (board, hand, gold, settings): the service's own reads
        go through here so they never depend on where the state keeps players."""
        return self.state["players"][seat]

    def decision(self, seat: int) -> Decision | None:
        return self.state["decisions"].get(str(seat))

    def decision_kind(self, seat: int) -> DecisionKind | None:
        """What `seat` is asked now (`pick`, `roll`, …), or None: what an interface needs to
        choose a prompt, without reaching into the decision's keys."""
        dec = self.state["decisions"].get(str(seat))
        return None if dec is None else dec["kind"]

    def decision_id(self, seat: int) -> int | None:
        """The id of `seat`'s open question, or None: compare it later to tell whether the
        question changed (the stale check, docs/state.md)."""
        dec = self.state["decisions"].get(str(seat))
        return None if dec is None else dec["id"]

    def waiting_for(self) -> list[int]:
        return sorted(int(s) for s in self.state["decisions"])

    def view(self, seat: int | None) -> View:
        return _view(self.cards, self.state, seat)

    def reach(self, seat: int, square: str) -> tuple[list[str], list[str]]:
        i = board.index(square)
        if i is None:
            raise IllegalAction("not_a_square", text=excerpt(square))
        return combat.reach(self.cards, self.state, seat, i)

    # ---- answers ---------------------------------------------------------------------------
    def apply(self, seat: int, action: str | Action, decision_id: int | None = None,
              on_resolved: Callable[[str, int], None] | None = None) -> list[Event]:
        """Validate and apply one answer of `seat`; return the events it caused.

        `on_resolved(what, n)` (optional) is called as each card or phase ends during this
        answer, while the state is as it was then (see `flow.run`)."""
        a = parse(action) if isinstance(action, str) else action
        st, cs = self.state, self.cards
        if st["result"] is not None:
            raise GameOver("game_over")
        if not 0 <= seat < len(st["players"]) or st["players"][seat]["eliminated"]:
            raise NotYourDecision("not_playing")
        ev: list[Event] = []
        if a.verb == "autosave":
            st["players"][seat]["autosave"] = a.flag
            st["log"].append([seat, str(a)])
            return [{"type": "autosave", "player": seat, "on": a.flag, "vis": [seat]}]
        if a.verb == "rolls":  # a standing order too: when to be asked about a roll (R12.1)
            if a.mode not in ROLL_PROMPTS:  # an Action built by code, not parsed
                raise NotationError("syntax.use_rolls_short")
            st["players"][seat]["rolls"] = "always" if a.mode == "always" else "miss"
            st["log"].append([seat, str(a)])
            return [{"type": "rolls", "player": seat, "mode": a.mode, "vis": [seat]}]
        if a.verb == "resign":
            flow.resign(cs, st, seat, ev)
            st["log"].append([seat, "resign"])
            flow.run(cs, st, ev, on_resolved)
            return ev
        dec = st["decisions"].get(str(seat))
        if dec is None:
            raise self._not_yours()
        if decision_id is not None and decision_id != dec["id"]:
            raise StaleDecision("stale")
        opened = dec["opened"]
        before = (dict(st["rng"]), len(st["unit_deck"]), len(st["monster_deck"]))
        canonical = self._answer(seat, dec, a, ev)
        flow.run(cs, st, ev, on_resolved)
        st["log"].append([seat, canonical])
        after = st["decisions"].get(str(seat))
        revealed = before != (st["rng"], len(st["unit_deck"]), len(st["monster_deck"]))
        if a.verb != "timeout" and not revealed and after is not None and after["opened"] == opened:
            st["undo"][str(seat)] = [len(st["log"]) - 1, opened]
        else:
            st["undo"].pop(str(seat), None)
        return ev

    def can_undo(self, seat: int) -> bool:
        rec = self.state["undo"].get(str(seat))
        dec = self.decision(seat)
        return rec is not None and dec is not None and dec["opened"] == rec[1]

    def undo(self, seat: int) -> None:
        """Take back `seat`'s last action when it revealed nothing random and the decision it
        answered is still open (BGA's rule): replay the log without it."""
        if self.over:
            raise GameOver("game_over")
        if not self.can_undo(seat):
            raise IllegalAction("nothing_to_undo")
        index = self.state["undo"][str(seat)][0]
        log = [e for k, e in enumerate(self.state["log"]) if k != index]
        self.state = Game.replay(self.state["setup"], log).state

    def _not_yours(self) -> NotYourDecision:
        waiting = tuple(self.state["players"][s]["name"] for s in self.waiting_for())
        return NotYourDecision("not_your_decision",
                               names=Items(waiting) if waiting else phrase("nobody"))

    def _answer(self, seat: int, dec: Decision, a: Action, ev: list[Event]) -> str:
        """Check then apply one answer; returns the canonical text logged for replay."""
        st, cs = self.state, self.cards
        kind = dec["kind"]
        if a.verb == "levelup":
            i = board.index(a.square or "")
            problem = combat.levelup_problem(cs, st, seat, i)
            if problem:
                raise IllegalAction(problem[0], **problem[1])
            assert i is not None  # levelup_problem refuses a missing square
            combat.do_levelup(cs, st, seat, i, ev)
            if dec["kind"] == "roll":
                combat.reconsider_roll(cs, st, seat, dec, ev)
            if st["decisions"].get(str(seat)) is dec:
                touch_decision(st, seat)
            return str(a)
        if a.verb == "timeout":
            ev.append({"type": "timeout", "player": seat, "decision": kind})
            if kind == "pick":
                close_decision(st, seat)
                flow.skip_turn(st, seat, ev)
            elif kind == "place":  # placement is mandatory (p.7): a fixed, harmless default
                b: Board = st["players"][seat]["board"]
                i = next(board.square(s) for s in _DEFAULT_PLACES if b[board.square(s)] is None)
                card = st["players"][seat]["hand"][0]
                close_decision(st, seat)
                st["players"][seat]["hand"].remove(card)
                flow.place_unit(cs, st, seat, card, i, ev, paid=False)
            elif dec["kind"] == "roll":
                self._keep(seat, dec, ev)
            else:
                close_decision(st, seat)
            return "timeout"
        allowed = _ALLOWED[kind]
        if a.verb not in allowed:
            raise IllegalAction("wrong_verb", prompt=phrase(f"prompt.{kind}"),
                                verbs=" / ".join(allowed),
                                levelup=phrase("or_levelup") if kind != "place" else "")
        handler: Callable[[int, Decision, Action, list[Event]], str] = getattr(self, f"_{kind}")
        return handler(seat, dec, a, ev)

    def _pick(self, seat: int, dec: PickDecision, a: Action, ev: list[Event]) -> str:
        key = self.cards.resolve(a.card or "")
        if key not in dec["options"]:
            names = Items(tuple(self._name(c) for c in dec["options"]))
            what = (self._name(key) if key in self.cards.commands
                    else phrase("quoted", text=excerpt(a.card or "")))
            raise IllegalAction("cannot_pick", card=what, names=names)
        close_decision(self.state, seat)
        flow.pick(self.cards, self.state, seat, key, ev)
        return f"pick {key}"

    def _place(self, seat: int, dec: PlaceDecision, a: Action, ev: list[Event]) -> str:
        p = self.state["players"][seat]
        card = self._match(p["hand"], a.card or "", "where.hand")
        i = self._home_square(seat, a.square)
        close_decision(self.state, seat)
        p["hand"].remove(card)
        flow.place_unit(self.cards, self.state, seat, card, i, ev, paid=False)
        return f"place {card['card']} {sq(i)}"

    def _actions(self, seat: int, dec: ActionsDecision, a: Action, ev: list[Event]) -> str:
        if a.verb == "done":
            close_decision(self.state, seat)
            ev.append({"type": "done", "player": seat})
            return "done"
        plan = combat.check_act(self.cards, self.state, seat, a)
        dec["left"] -= 1
        unit = self.state["players"][seat]["board"][plan.unit]
        assert unit is not None  # check_act found the unit there
        dec["acted_now"].append(unit["id"])
        combat.do_act(self.cards, self.state, seat, plan, ev)
        if self.state["decisions"].get(str(seat)) is dec:
            combat.continue_actions(self.state, seat, dec)
        return str(a)

    def _ready(self, seat: int, dec: ReadyDecision, a: Action, ev: list[Event]) -> str:
        if a.verb == "done" or not a.squares:
            close_decision(self.state, seat)
            return "done"
        b: Board = self.state["players"][seat]["board"]
        idx = [board.square(s) for s in a.squares]
        if len(set(idx)) != len(idx):
            raise IllegalAction("ready_once")
        if len(idx) > dec["n"]:
            raise IllegalAction("ready_max", n=dec["n"])
        for i in idx:
            if not is_unit(b[i]) or not b[i]["acted"]:
                raise IllegalAction("ready_not_acted", square=sq(i))
        for i in idx:
            b[i]["acted"] = False
        close_decision(self.state, seat)
        ev.append({"type": "readied", "player": seat, "squares": [sq(i) for i in idx]})
        return "ready " + " ".join(sq(i) for i in idx)

    def _recruit(self, seat: int, dec: RecruitDecision, a: Action, ev: list[Event]) -> str:
        st, cs = self.state, self.cards
        if a.verb == "done":
            close_decision(st, seat)
            return "done"
        p = st["players"][seat]
        mercs = [m for m in st["mercenaries"] if m]
        card, merc = None, False
        if not a.merc:
            card = self._match(p["hand"], a.card or "", "where.hand", missing_ok=True)
        if card is None:
            if not dec["mercenaries"]:
                if a.merc:  # R7.1: never a mercenary under AUTO, even one also in the hand
                    raise IllegalAction("no_mercs_auto")
                why = "why.auto" if not a.merc and mercs else "why.nor"
                self._match(p["hand"], a.card or "", "where.hand", missing_ok=False,
                            extra=why)
            card = self._match(mercs, a.card or "", "where.mercs")
            merc = True
        i = self._home_square(seat, a.square)
        cost = cs.units[card["card"]].cost
        if cost > p["gold"]:
            raise IllegalAction("too_expensive", card=self._name(card["card"]), cost=cost,
                                gold=p["gold"])
        close_decision(st, seat)
        if merc:
            st["claims"].append([seat, card["id"], sq(i)])
            # R7.1 [decision]: choices are collected together, so a claim stays private
            # until all have chosen (the view hides its log entry too).
            ev.append({"type": "merc_claimed", "player": seat, "card": card["card"],
                       "vis": [seat]})
            return f"recruit merc {card['card']} {sq(i)}"
        p["hand"].remove(card)
        flow.place_unit(cs, st, seat, card, i, ev, paid=True)
        return f"recruit {card['card']} {sq(i)}"

    def _support(self, seat: int, dec: SupportDecision, a: Action, ev: list[Event]) -> str:
        if a.verb == "done":
            close_decision(self.state, seat)
            return "done"
        b: Board = self.state["players"][seat]["board"]
        i = board.index(a.square or "")
        if i is None or not is_unit(b[i]) or b[i]["dmg"] <= 0:
            raise IllegalAction("support_none", square=a.square)
        b[i]["dmg"] -= 1
        close_decision(self.state, seat)
        hp = self.cards.units[b[i]["card"]].hp
        ev.append({"type": "healed", "player": seat, "square": sq(i), "amount": 1,
                   "support": True, "card": b[i]["card"], "hp": hp, "hp_left": hp - b[i]["dmg"]})
        return f"support {sq(i)}"

    def _roll(self, seat: int, dec: RollDecision, a: Action, ev: list[Event]) -> str:
        if a.verb == "reroll":
            if not dec["can_reroll"]:
                raise IllegalAction("no_willpower")
            combat.reroll(self.cards, self.state, seat, dec, ev)
            return "reroll"
        self._keep(seat, dec, ev)
        return "keep"

    def _keep(self, seat: int, dec: RollDecision, ev: list[Event]) -> None:
        roll = combat.roll_of(dec)
        _, _, dmg = combat.roll_outcome(self.cards, self.state, seat, roll)
        close_decision(self.state, seat)
        combat.resolve_roll(self.cards, self.state, seat, roll, dmg, ev, dec["resume"])

    def _name(self, key: str) -> Name:
        """A card's name in both languages, for a refusal's parameters."""
        return Name(self.cards.name(key), self.cards.name(key, "ja"))

    # ---- matching typed input ----------------------------------------------------------------
    def _match(self, cards: list[Card], text: str, where: str, missing_ok: bool = False,
               extra: str = "") -> Any:
        want = normalize_name(text)
        key = self.cards.resolve(text)
        # A card's exact key or printed name (any case/width) wins over ★-insensitive matching:
        # `warrior` / `ウォーリア` is the level-up card (R12.2) even with Warrior★ also in hand,
        # and canonical logs (card keys) replay to the same card (R15).
        fold = unicodedata.normalize("NFKC", text).casefold().strip()
        exact = ([c for c in cards if fold in _printed(self.cards, c["card"])]
                 or [c for c in cards if c["card"] == key])
        found = exact or [c for c in cards if want in (
            normalize_name(c["card"]), normalize_name(self.cards.units[c["card"]].en),
            normalize_name(self.cards.units[c["card"]].ja))]
        keys = {c["card"] for c in found}
        if len(keys) > 1:
            raise IllegalAction("ambiguous", text=excerpt(text),
                                keys=Items(tuple(sorted(keys)), " or "))
        if found:
            return found[0]
        if missing_ok:
            return None
        have = sorted({self._name(c["card"]) for c in cards})
        raise IllegalAction("not_found", text=excerpt(text), where=phrase(where),
                            why=phrase(extra) if extra else "",
                            have=Items(tuple(have)) if have else phrase("have.nothing"))

    def _home_square(self, seat: int, square: str | None) -> int:
        i = board.index(square or "")
        b: Board = self.state["players"][seat]["board"]
        if i is None or not board.is_home(i):
            raise IllegalAction("home_only", text=excerpt(square or ""))
        if b[i] is not None:
            raise IllegalAction("taken", square=sq(i), card=self._name(b[i]["card"]))
        return i

    # ---- legal actions ------------------------------------------------------------------------
    def legal_actions(self, seat: int) -> list[Action]:
        """Every answer `seat` may give now (levelups included; the standing orders `autosave`
        and `rolls`, `timeout` and `resign` aside)."""
        st, cs = self.state, self.cards
        dec = self.decision(seat)
        if dec is None or st["result"] is not None:
            return []
        p = st["players"][seat]
        b: Board = p["board"]
        out: list[Action] = []
        if dec["kind"] == "pick":
            out = [Action("pick", card=c) for c in dec["options"]]
        elif dec["kind"] == "place":
            homes = [sq(i) for i in range(6) if b[i] is None]
            for key in sorted({c["card"] for c in p["hand"]}):
                out += [Action("place", card=key, square=h) for h in homes]
        elif dec["kind"] == "actions":
            out = [Action("done")] + _act_options(cs, st, seat)
        elif dec["kind"] == "ready":
            acted = [sq(i) for i in range(board.SIZE) if is_unit(b[i]) and b[i]["acted"]]
            out = [Action("done")]
            for n in range(1, dec["n"] + 1):
                out += [Action("ready", squares=c) for c in combinations(acted, n)]
        elif dec["kind"] == "recruit":
            homes = [sq(i) for i in range(6) if b[i] is None]
            out = [Action("done")]
            for key in sorted({c["card"] for c in p["hand"]}):
                if cs.units[key].cost <= p["gold"]:
                    out += [Action("recruit", card=key, square=h) for h in homes]
            if dec["mercenaries"]:
                for key in sorted({m["card"] for m in st["mercenaries"] if m}):
                    if cs.units[key].cost <= p["gold"]:
                        out += [Action("recruit", card=key, square=h, merc=True) for h in homes]
        elif dec["kind"] == "support":
            out = [Action("done")] + [Action("support", square=sq(i)) for i in range(board.SIZE)
                                      if is_unit(b[i]) and b[i]["dmg"] > 0]
        elif dec["kind"] == "roll":
            out = [Action("keep")] + ([Action("reroll")] if dec["can_reroll"] else [])
        for i in range(board.SIZE):
            if is_unit(b[i]) and combat.levelup_problem(cs, st, seat, i) is None:
                out.append(Action("levelup", square=sq(i)))
        return out

    def trivial_action(self, seat: int) -> Action | None:
        """An answer that needs no thought, which interfaces may apply at once: the only legal
        answer, Level Up included (R12.1: after a reroll that still misses, `keep` and
        `levelup` are both answers, and only the player may choose), or one that can only
        help and takes nothing away: readying every acted unit when the limit allows it
        (Level Up is offered again wherever it could matter: rolls, actions, the Enemy
        phase's standing order)."""
        dec = self.decision(seat)
        if dec is None:
            return None
        legal = self.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        if dec["kind"] == "ready":
            b: Board = self.state["players"][seat]["board"]
            acted = tuple(sq(i) for i in range(board.SIZE) if is_unit(b[i]) and b[i]["acted"])
            if len(acted) <= dec["n"]:
                return Action("ready", squares=acted)
        return None


def _printed(cs: CardSet, key: str) -> tuple[str, str, str]:
    """A unit card's key and printed names, case- and width-folded (not ★-stripped)."""
    u = cs.units[key]
    return key, unicodedata.normalize("NFKC", u.en).casefold(), \
        unicodedata.normalize("NFKC", u.ja).casefold()


_DEFAULT_PLACES = ("2B", "2A", "2C", "1B", "1A", "1C")
_ALLOWED = {
    "pick": ("pick",), "place": ("place",), "actions": ("act", "done"),
    "ready": ("ready", "done"), "recruit": ("recruit", "done"), "support": ("support", "done"),
    "roll": ("reroll", "keep"),
}


def _act_options(cs: CardSet, st: State, seat: int) -> list[Action]:
    p = st["players"][seat]
    b: Board = p["board"]
    out: list[Action] = []
    for i in range(board.SIZE):
        u = b[i]
        if not is_unit(u) or u["acted"]:
            continue
        mov = cs.units[u["card"]].mov
        moves = board.unit_moves(b, i, mov)
        dests: list[tuple[int | None, bool]] = [(None, False)] + [(d, False) for d in moves]
        if marks(p) >= 1:
            dests += [(d, True) for d in board.unit_moves(b, i, mov + 1) if d not in moves]
        for d, full in dests:
            pos = i if d is None else d
            scratch = list(b)
            scratch[i], scratch[pos] = None, u
            to = None if d is None else sq(d)
            if d is not None:
                out.append(Action("act", square=sq(i), to=to, fullmove=full))
            for use in skill_options(cs, scratch, pos):
                out.append(Action("act", square=sq(i), to=to, fullmove=full, skill=use))
    return out


def skill_options(cs: CardSet, b: list[Any], pos: int, depth: int = 0) -> list[SkillUse]:
    """Every valid use of the skill of the unit on `pos` (commands nested one level)."""
    skill = cs.units[b[pos]["card"]].skill
    reach = combat.skill_squares(cs, b, pos)
    monsters = [j for j in reach if is_monster(b[j])]
    if skill.kind == "area":
        return [SkillUse("area")] if monsters else []
    if skill.kind == "dice":
        out = []
        for j in monsters:
            try:
                combat.check_skill(cs, b, pos, SkillUse("attack", (sq(j),)))
            except IllegalAction:
                continue
            out.append(SkillUse("attack", (sq(j),)))
        return out
    if skill.kind == "allocated":
        pts = [j for j in monsters for _ in range(cs.monsters[b[j]["card"]].hp - b[j]["dmg"])]
        need = min(skill.n, len(pts))
        combos = sorted(set(combinations(pts, need))) if need else []
        return [SkillUse("attack", tuple(sq(j) for j in c)) for c in combos]
    if skill.kind == "heal":
        hurt = [j for j in reach if is_unit(b[j]) and b[j]["dmg"] > 0]
        out = []
        for n in range(1, skill.n + 1):
            for c in combinations_with_replacement(hurt, n):
                if all(c.count(j) <= b[j]["dmg"] for j in set(c)):
                    out.append(SkillUse("heal", tuple(sq(j) for j in c)))
        return out
    out = []
    for j in range(board.SIZE):
        if j == pos or not is_unit(b[j]):
            continue
        out.append(SkillUse("command", (sq(j),)))
        t = b[j]
        if depth == 0 and t["dmg"] + 1 < cs.units[t["card"]].hp:
            scratch = list(b)
            scratch[j] = {**t, "dmg": t["dmg"] + 1}
            out += [SkillUse("command", (sq(j),), sub)
                    for sub in skill_options(cs, scratch, j, depth + 1)]
    return out


def find_cards_version(setup: Mapping[str, Any], log: list[LogEntry],
                       state: Mapping[str, Any] | None,
                       created_at: float | None = None) -> int | None:
    """The released card set a game stored without a version was played with (issue 17).

    The stored state is a cache of setup + log written by the release that played the game,
    so the version whose replay reproduces it is the game's. When none reproduces it exactly
    (an older engine wrote other keys, or no state was kept), it is the version whose replay
    differs least from it among those under which every logged action is legal. Several
    versions can fit equally (the moves so far never met a value that differs between them):
    then the newest of them released when the game was created (`created_at`, POSIX seconds,
    if known: a game cannot have been dealt a set released after it began), else the newest
    of them; the evidence of the state comes first, the clock only breaks ties. None when no
    released set replays the log at all: the game is damaged, and is left for the store to
    set aside as before.
    """
    try:
        stored: Any = json.loads(json.dumps(
            {k: v for k, v in normalize(dict(state)).items() if k != "setup"})) \
            if state is not None else None
    except (LookupError, ValueError, TypeError, AttributeError, RecursionError):
        stored = None  # an unreadable cache: the log alone decides

    def began(version: int) -> bool:
        return created_at is None or released_at(version) <= created_at

    differences: dict[int, int] = {}
    for version in reversed(released_versions()):
        try:
            g = Game.replay({**setup, "cards_version": version}, log)
        except (ActionError, LookupError, ValueError, TypeError, AttributeError):
            continue  # an action this set refuses: not the game's set
        replayed = json.loads(g.to_json())
        replayed.pop("setup")
        diff = 0 if stored is None else _difference(replayed, stored)
        if diff == 0 and stored is not None and began(version):
            return version  # the newest set that reproduces the game and existed when it began
        differences[version] = diff
    if not differences:
        return None
    least = min(differences.values())
    fits = [v for v, d in differences.items() if d == least]
    return max([v for v in fits if began(v)] or fits)


def _difference(a: Any, b: Any) -> int:
    """How many JSON leaves differ between `a` and `b` (a missing one counts once)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return sum(_difference(a.get(k), b.get(k)) for k in a.keys() | b.keys())
    if isinstance(a, list) and isinstance(b, list):
        return sum(_difference(x, y) for x, y in zip(a, b, strict=False)) + abs(len(a) - len(b))
    return 0 if a == b else 1
