"""The engine's API: a game is plain state plus the card set; actions go in, events come out.

`Game.apply` is the one way a state changes: it checks the answer against the player's
pending decision (stale / not yours / game over / illegal, each typed), mutates only after
validation, runs the automatic flow, and logs the action so setup + log replays the game
(R15). Each answer goes to its decision kind's rule, declared once in engine/decisions.py
(verbs, legality, answer, timeout, trivial answer, prompt). Undo replays the log without the
undone action.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from . import board, combat, decisions, flow, rng
from .cards import (
    CardSet,
    cards_for,
    default_cards,
    default_version,
    parse_cardset,
    released_at,
    released_cards,
    unrecorded_versions,
)
from .decisions import Prompt
from .errors import (
    ActionError,
    GameFinished,
    IllegalAction,
    NotationError,
    NotYourDecision,
    StaleDecision,
    excerpt,
)
from .messages import Items, Name, phrase
from .notation import ROLL_PROMPTS, Action, parse
from .state import Decision, Event, State, new_game, normalize, touch_decision
from .types import DecisionKind, LogEntry, Player, Result, Setup, View
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
            cards_version: int | None = None, key: bytes | None = None,
            rules: int | None = flow.RULES_VERSION) -> Game:
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
        if rules is not None:  # (absent: a game stored before rule versions, read as 1)
            st["setup"]["rules"] = rules
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
        if "version" in raw or st["log"]:  # a saved game: refused if a newer release's
            flow.check_rules(setup)
        if "version" not in raw and not st["log"]:
            # A puzzle: remember where it starts, so replay (and undo) start there too, and
            # with which cards (R15): today's, unless it brings its own.
            start = {k: v for k, v in st.items() if k != "setup"}
            setup["start"] = json.loads(json.dumps(start))
            setup.setdefault("rules", flow.RULES_VERSION)  # a new position: today's readings
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
        events), or a puzzle's starting position (`setup.start`). A setup from a newer
        release (rules or card set this one does not know) is refused, not played."""
        flow.check_rules(setup)
        if "start" in setup:
            st = normalize(json.loads(json.dumps(setup["start"])))
            # the setup first, so the puzzle's own cards judge it (not the default set)
            st["setup"] = json.loads(json.dumps(setup))
            return cls(st)
        # with the rules' readings it was played under: a stored game keeps its own
        g = cls.new(setup["players"], setup.get("seed", 0), setup.get("options"),
                    setup.get("cards"), events, setup.get("cards_version"), rng.key_of(setup),
                    rules=setup.get("rules"))
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
        try:
            a = parse(action) if isinstance(action, str) else action
        except NotationError as e:
            raise self._unit_by_card(seat, str(action), e) from None
        st, cs = self.state, self.cards
        if st["result"] is not None:
            raise GameFinished("game_over")
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
        if dec is None and a.verb == "levelup":  # R12.1: at any time, not only when asked
            return self._levelup_between(seat, a)
        if dec is None:
            raise self._not_yours()
        if decision_id is not None and decision_id != dec["id"]:
            raise StaleDecision("stale")
        opened = dec["opened"]
        before = (dict(st["rng"]), len(st["unit_deck"]), len(st["monster_deck"]))
        # where the game stands, when others are asked too (the only case an answer that
        # closes its question may stay undoable); a few lookups, as every answer pays it
        step = _mark(st) if len(st["decisions"]) > 1 \
            and st["setup"].get("rules", 1) >= 3 else None
        canonical = self._answer(seat, dec, a, ev)
        flow.run(cs, st, ev, on_resolved)
        st["log"].append([seat, canonical])
        revealed = before != (st["rng"], len(st["unit_deck"]), len(st["monster_deck"]))
        _keep_undo(st, seat, opened, a.verb != "timeout" and not revealed, step)
        return ev

    def _unit_by_card(self, seat: int, action: str, e: NotationError) -> ActionError:
        """`act warrior …`: a unit named by its card where the notation wants its square (a
        new player's first guess, the Discord new-player audit, answered "'WARRIOR' is not a
        square"). Said what the name is and where that unit stands; any other mistake of
        notation as it was."""
        words = action.split()
        what = e.params.get("what")
        if (e.key != "syntax.bad_square" or len(words) < 2 or words[0].lower() != "act"
                or getattr(what, "code", None) != "what.actor"):
            return e
        key = self.cards.resolve(words[1])
        if key is None or key not in self.cards.units:
            return e
        board_ = self.state["players"][seat]["board"] if 0 <= seat < len(
            self.state["players"]) else []
        def named(card: str) -> bool:  # `warrior` names the ★ card and its Level 2 (one job)
            unit_card, job = self.cards.units.get(card), self.cards.units[key].job
            return card == key or (job is not None and unit_card is not None
                                   and unit_card.job == job)

        found = [(board.NAMES[i], str(u["card"])) for i, u in enumerate(board_)
                 if u is not None and "owner" in u and named(str(u.get("card", "")))]
        if not found:
            return IllegalAction("actor_card_absent", text=excerpt(words[1]),
                                 card=Name(self.cards.name(key), self.cards.name(key, "ja")))
        square, card = found[0]  # the unit's own card: a levelled one is named as it is
        return IllegalAction("actor_is_card", text=excerpt(words[1]),
                             card=Name(self.cards.name(card), self.cards.name(card, "ja")),
                             squares=Items(tuple(sq for sq, _ in found)), square=square)

    def can_undo(self, seat: int) -> bool:
        """BGA's rule: a player's last answer can be taken back while it revealed nothing
        random and the game has not moved past it — the question it answered is still open
        (one unit acted, others may still act), or it closed that question while the other
        players are still answering the same step. Either way no one has seen anything that
        depends on it."""
        rec = self.state["undo"].get(str(seat))
        dec = self.decision(seat)
        if rec is None:
            return False
        if len(rec) == 2:
            return dec is not None and dec["opened"] == rec[1]
        if self.state["players"][seat]["eliminated"]:  # resigned or removed since: it stays
            return False
        return dec is None and bool(self.state["decisions"]) \
            and rec[2] == _standing(self.state, str(seat))

    def undo(self, seat: int) -> None:
        """Take back `seat`'s last action when it revealed nothing random and the decision it
        answered is still open (BGA's rule): replay the log without it."""
        if self.over:
            raise GameFinished("game_over")
        if not self.can_undo(seat):
            raise IllegalAction("nothing_to_undo")
        index = self.state["undo"][str(seat)][0]
        log = [e for k, e in enumerate(self.state["log"]) if k != index]
        try:
            state = Game.replay(self.state["setup"], log).state
        except ActionError:  # a later answer needed this one after all: it stays
            raise IllegalAction("nothing_to_undo") from None
        self.state = state

    def _levelup_between(self, seat: int, a: Action) -> list[Event]:
        """Level Up declared while the game waits on others (R12.1, p.24: 「レベルアップの宣言は
        いつでもできます」): the unit is replaced at once; nothing waits on it, so no decision
        opens or closes, and the game goes on where it was."""
        st = self.state
        ev: list[Event] = []
        self._levelup(seat, a, ev)
        st["log"].append([seat, str(a)])
        st["undo"].pop(str(seat), None)
        return ev

    def _levelup(self, seat: int, a: Action, ev: list[Event]) -> None:
        """Check then apply a Level Up (R12.2), asked or not."""
        st, cs = self.state, self.cards
        i = board.index(a.square or "")
        problem = combat.levelup_problem(cs, st, seat, i)
        if problem:
            raise IllegalAction(problem[0], **problem[1])
        assert i is not None  # levelup_problem refuses a missing square
        combat.do_levelup(cs, st, seat, i, ev)

    def _not_yours(self) -> NotYourDecision:
        waiting = tuple(self.state["players"][s]["name"] for s in self.waiting_for())
        return NotYourDecision("not_your_decision",
                               names=Items(waiting) if waiting else phrase("nobody"))

    def _answer(self, seat: int, dec: Decision, a: Action, ev: list[Event]) -> str:
        """Check then apply one answer; returns the canonical text logged for replay. Level
        Up answers any decision (R12.1); every other answer is the decision kind's own
        (engine/decisions.py)."""
        st, cs = self.state, self.cards
        if a.verb != "levelup":
            return decisions.answer(decisions.Reply(cs, st, seat, ev), dec, a)
        self._levelup(seat, a, ev)
        if dec["kind"] == "roll":
            combat.reconsider_roll(cs, st, seat, dec, ev)
        if st["decisions"].get(str(seat)) is dec:
            touch_decision(st, seat)
        return str(a)

    # ---- legal actions ------------------------------------------------------------------------
    def legal_actions(self, seat: int) -> list[Action]:
        """Every answer `seat` may give now (levelups included; the standing orders `autosave`
        and `rolls`, `timeout` and `resign` aside)."""
        dec = self.decision(seat)
        if dec is None or self.state["result"] is not None:
            return []
        return decisions.legal(self.cards, self.state, seat, dec)

    def levelups(self, seat: int) -> list[Action]:
        """The Level Ups `seat` may declare now, asked or not (R12.1: at any time)."""
        st = self.state
        if st["result"] is not None or not 0 <= seat < len(st["players"]) \
                or st["players"][seat]["eliminated"]:
            return []
        return decisions.levelup_options(self.cards, st, seat)

    def trivial_action(self, seat: int) -> Action | None:
        """An answer that needs no thought, which interfaces may apply at once: the only legal
        answer, Level Up included (R12.1: after a reroll that still misses, `keep` and
        `levelup` are both answers, and only the player may choose), or one that can only
        help and takes nothing away (the kind's own, `DecisionRule.trivial`: readying every
        acted unit when the limit allows it). Level Up is offered again wherever it could
        matter: rolls, actions, the Enemy phase's standing order."""
        dec = self.decision(seat)
        if dec is None:
            return None
        legal = self.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        return decisions.trivial(self.state, seat, dec)

    def prompt(self, seat: int) -> Prompt | None:
        """What `seat` is asked now, without words (the catalogue key and its parameters,
        `decisions.Prompt`), or None when nothing is asked."""
        dec = self.decision(seat)
        return None if dec is None else decisions.prompt(self.cards, self.state, seat, dec)


def find_cards_version(setup: Mapping[str, Any], log: list[LogEntry],
                       state: Mapping[str, Any] | None,
                       created_at: float | None = None) -> int | None:
    """The released card set a game stored without a version was played with (issue 17):
    one of the sets of the releases that recorded none (`unrecorded_versions`, 1–7).

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
    for version in reversed(unrecorded_versions()):
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


def _keep_undo(st: State, seat: int, opened: int, takeable: bool,
               step: tuple[int, int] | None) -> None:
    """Record whether `seat`'s answer just logged may be taken back (`Game.can_undo`): not a
    time-out nor one that revealed something random (`takeable`), and its question still
    open — or, from rules 3, closed while the others still answer the same step (several
    players are asked at once, R6.3), `step` being where the game stood for them before
    it: then until one of them is done or the step ends. An answer that ended the step
    itself (the last one in) stays: the next step's questions are already asked."""
    after = st["decisions"].get(str(seat))
    if takeable and after is not None and after["opened"] == opened:
        st["undo"][str(seat)] = [len(st["log"]) - 1, opened]
    elif takeable and after is None and step is not None and _mark(st) == (step[0], step[1] - 1):
        st["undo"][str(seat)] = [len(st["log"]) - 1, opened, _standing(st, str(seat))]
    else:
        st["undo"].pop(str(seat), None)


def _mark(st: State) -> tuple[int, int]:
    """Enough to tell that an answer moved nothing but its own question: every decision
    opened or renewed takes a new id from `next_id`, and while others' questions stay open
    the flow cannot move on (`flow.run` stops at any open decision); so the same `next_id`
    and one question fewer mean only this one closed."""
    return st["next_id"], len(st["decisions"])


def _standing(st: State, seat: str) -> list[Any]:
    """Where the game stands for the others, as an undo record keeps it (JSON): the card or
    phase being resolved and who else is still answering it (by the question each was
    asked, not its latest id, which one unit's action renews). An answer given while the
    others still decide stays undoable until this changes."""
    return [st["round"], st["phase"], st["current"], len(st["executed"]), st["turn"],
            {k: d["opened"] for k, d in st["decisions"].items() if k != seat}]


def _difference(a: Any, b: Any) -> int:
    """How many JSON leaves differ between `a` and `b` (a missing one counts once)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return sum(_difference(a.get(k), b.get(k)) for k in a.keys() | b.keys())
    if isinstance(a, list) and isinstance(b, list):
        return sum(_difference(x, y) for x, y in zip(a, b, strict=False)) + abs(len(a) - len(b))
    return 0 if a == b else 1
