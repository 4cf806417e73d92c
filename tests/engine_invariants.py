"""Invariants of any reachable game state, and a random-legal-play driver that checks them.

Shared by the property tests (tests/test_engine_props.py). Every check raises AssertionError
with a message that names the rule it protects, so a failing hypothesis example says what
broke, not just where. The driver is deterministic for a seed: hypothesis shrinks seeds.

Cards are conserved (R3): every unit / level-up card id sits in exactly one place, and each
drawn monster id sits, for every player still in the game, in exactly one of that player's
board, waiting queues, castle or defeated pile — or it was spent as an honor mark (R12) and
sits in `removed` (which is shared, so it may hold one copy per player that spent it).
"""

from __future__ import annotations

import json
import pickle
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engine import ActionError, Game, GameFinished, NotYourDecision, StaleDecision, parse, visible
from engine.board import NAMES, SIZE, index
from engine.notation import Action, SkillUse
from engine.state import monster_threat, monsters_left

COMMANDS = ("advance", "raid", "rest", "reward", "recruit")
PHASES = ("placement", "main", "auto", "invasion", "summon", "end", "over")
KINDS = ("place", "pick", "actions", "ready", "recruit", "support", "roll")
MAGIC_CIRCLES = {index("6A"), index("6B"), index("6C")}
MAX_STEPS = 20_000  # a game that needs more answers than this is stuck in a loop


# ---- the card universe -----------------------------------------------------------------------

@dataclass
class Universe:
    """Which card each id is, fixed at setup: ids never change card (R3)."""

    units: dict[str, str]  # id -> card key (unit and level-up cards)
    monsters: dict[str, str]  # id -> card key

    @classmethod
    def of(cls, g: Game) -> Universe:
        """Read the ids of a fresh game and check them against the card set's copy counts."""
        st, cs = g.state, g.cards
        units: dict[str, str] = {}
        for c in _unit_cards(st):
            assert c["id"] not in units, f"unit id {c['id']} dealt twice at setup (R3)"
            units[c["id"]] = c["card"]
        want = Counter({k: u.copies for k, u in cs.units.items()})
        assert Counter(units.values()) == want, "unit cards at setup differ from the card set (R3)"
        monsters: dict[str, str] = {}
        for c in st["monster_deck"] + _drawn_instances(st):
            monsters.setdefault(c["id"], c["card"])
        want = Counter({k: m.copies for k, m in cs.monsters.items()})
        assert Counter(monsters.values()) == want, "monster cards differ from the card set (R3)"
        return cls(units, monsters)


def _unit_cards(st: dict[str, Any]) -> list[dict[str, Any]]:
    """Every unit/level-up card instance, wherever it is (a piece counts as its card)."""
    out = list(st["unit_deck"]) + list(st["discard"])
    out += [m for m in st["mercenaries"] if m is not None]
    for pile in st["levelup_piles"].values():
        out += pile
    for p in st["players"]:
        out += p["hand"]
        out += [x for x in p["board"] if x is not None and "owner" in x]
    out += [c for c in st["removed"] if not c["id"].startswith("m")]
    return out


def _monster_places(p: dict[str, Any]) -> list[dict[str, Any]]:
    out = [x for x in p["board"] if x is not None and "owner" not in x]
    for q in p["queues"].values():
        out += q
    return out + list(p["castle"]) + list(p["defeated"])


def _drawn_instances(st: dict[str, Any]) -> list[dict[str, Any]]:
    out = [c for p in st["players"] for c in _monster_places(p)]
    return out + [c for c in st["removed"] if c["id"].startswith("m")]


# ---- the invariants ----------------------------------------------------------------------------

def check_state(g: Game, uni: Universe) -> None:
    """Everything that must hold after every answer (and after setup)."""
    st, cs = g.state, g.cards
    n = len(st["players"])
    assert st["phase"] in PHASES, st["phase"]
    cap = st["options"].get("round_cap", 30)
    assert 0 <= st["round"] <= cap, f"round {st['round']} beyond the round cap {cap} (R15)"
    if st["result"] is None:
        assert st["phase"] != "over"
        assert st["decisions"], "the game is not over yet nobody has anything to decide"
    else:
        assert st["phase"] == "over" and not st["decisions"], "a finished game still asks"
        res = st["result"]
        assert sorted(res["ranking"]) == list(range(n)), res
        assert set(res["winners"]) <= set(range(n)), res
        assert res["draw"] == (len(res["winners"]) > 1) or not res["winners"], res
        _check_result(g)

    # decisions: at most one per player, only for players still in the game (R9.3, R15)
    for key, dec in st["decisions"].items():
        seat = int(key)
        assert 0 <= seat < n and not st["players"][seat]["eliminated"], f"decision for {key}"
        assert dec["kind"] in KINDS, dec
        assert dec["id"] < st["next_id"], "decision id not below next_id"
        if dec["kind"] == "actions":
            assert 0 < dec["left"] <= 2, dec  # R7: at most 2 unit actions per command
        if dec["kind"] == "ready":
            assert dec["n"] == 2, dec  # R7 Rest / R11.2 fatigue: up to 2
        if dec["kind"] == "roll":  # R8.2: a roll of a unit of yours at a monster on your board
            b = st["players"][seat]["board"]
            unit, target = b[index(dec["unit"])], b[index(dec["target"])]
            assert unit is not None and unit.get("owner") == seat, dec
            assert target is not None and "owner" not in target, dec
            assert dec["def"] == g.cards.monsters[target["card"]].defense, dec
            assert all(1 <= d <= 6 for d in dec["dice"]) and len(dec["dice"]) == 2, dec
            assert dec["can_reroll"] or dec["can_levelup"], "a roll prompt with nothing to do"
        if dec["kind"] == "pick":  # R6.1: only cards not yet chosen this round
            assert dec["options"] == [c for c in st["row"] if c not in st["chosen"]], dec
            assert st["turn_order"][st["turn"]] == seat, "a pick out of turn (R6.1)"

    # command cards (R6): a permutation in the row; chosen stand in front, in order
    assert sorted(st["row"]) == sorted(COMMANDS), st["row"]
    if st["phase"] != "over":  # the round cap ends the game after the R11.4 reshuffle
        assert st["row"][:len(st["chosen"])] == st["chosen"], "chosen not at the front (R6.2)"
    ex = st["executed"]
    assert len(ex) == len(set(ex)) <= 4, f"executed {ex}: at most four per round (R6.1, R6.5)"
    if st["result"] is None and st["phase"] in ("invasion", "summon", "end"):
        assert len(ex) == 4, f"only {ex} executed before the Enemy phase (R6.5)"
    assert 0 <= st["turn"] <= len(st["turn_order"])

    for seat, p in enumerate(st["players"]):
        _check_player(g, seat, p)

    # cards are conserved (R3)
    units = _unit_cards(st)
    seen = {c["id"]: c["card"] for c in units}
    if len(seen) != len(units) or seen != uni.units:
        ids = Counter(c["id"] for c in units)
        raise AssertionError(
            f"unit cards in two places {[i for i, k in ids.items() if k > 1]}, lost "
            f"{sorted(set(uni.units) - set(ids))}, appeared {sorted(set(ids) - set(uni.units))}"
            f", changed {[i for i in seen if uni.units.get(i, seen[i]) != seen[i]]} (R3)")
    assert len(st["mercenaries"]) == 3
    for job, pile in st["levelup_piles"].items():
        for c in pile:
            u = cs.units[c["card"]]
            assert u.levelled and u.job == job, f"{c} in the {job} level-up pile (R12.2)"
    _check_monsters(st, uni)

    # medals (R14.1) and chips (R10.3) are conserved
    medals = list(st["medal_pool"]) + [v for p in st["players"] for v in p["medals"]]
    assert sorted(medals) == (sorted(cs.medals) if n > 1 else []), "medal tokens not conserved"
    assert sorted(st["chips"]["down"] + st["chips"]["up"]) == list("AABBCC"), st["chips"]

    # the log holds canonical text: parsing and printing it again gives the same text
    if st["log"]:
        seat, text = st["log"][-1]
        assert 0 <= seat < n
        assert str(parse(text)) == text, f"log entry {text!r} is not canonical"


def _check_result(g: Game) -> None:
    """The reason a game ended really holds (R9.3, R13, R14.3, R15)."""
    st, cs = g.state, g.cards
    res = st["result"]
    reason = res["reason"]
    alive = [s for s, p in enumerate(st["players"]) if not p["eliminated"]]
    if "R14.3" in reason:
        assert not st["monster_deck"], "declared with monsters left in the deck (R14.3)"
        for s in res["winners"]:
            p = st["players"][s]
            assert monster_threat(cs, p) + sum(p["medals"]) <= 8, "winner's threat over 8"
    elif "R13.1" in reason and res["winners"]:
        p = st["players"][0]
        assert not st["monster_deck"] and monsters_left(p) == 0, "solo win with monsters left"
    elif "invaded" in reason:
        assert st["players"][0]["castle"], "solo loss without an invasion (R13.1)"
    elif "last player standing" in reason:
        assert alive == res["winners"] and len(alive) == 1, res
    elif "round cap" in reason:
        assert st["round"] == st["options"].get("round_cap", 30), "ended before the cap (R15)"
    elif "at once" in reason:
        assert not alive, res


def _check_player(g: Game, seat: int, p: dict[str, Any]) -> None:
    cs = g.cards
    assert p["gold"] >= 0, f"seat {seat} has negative gold"
    assert p["honor"] >= 0, f"seat {seat} has negative honor"
    assert p["levelups"] >= 0
    b = p["board"]
    assert len(b) == SIZE, "a board is 18 squares, one piece at most on each (R2)"
    for i, x in enumerate(b):
        if x is None:
            continue
        assert x["dmg"] >= 0
        if "owner" in x:
            assert i not in MAGIC_CIRCLES, f"unit on magic circle {NAMES[i]} (R2, R8.1)"
            assert x["owner"] == seat, f"a unit of seat {x['owner']} on seat {seat}'s board"
            assert isinstance(x["acted"], bool)
            hp = cs.units[x["card"]].hp
            assert x["dmg"] < hp, f"fainted unit left on {NAMES[i]} ({x['dmg']}/{hp}, R9.1)"
        else:
            hp = cs.monsters[x["card"]].hp
            assert x["dmg"] < hp, f"defeated monster left on {NAMES[i]} ({x['dmg']}/{hp}, R8.2)"
    for c in p["hand"]:
        assert c["card"] in cs.units, f"{c} in a hand"
    n = len(g.state["players"])
    if n > 1:
        blue_twice = len(p["castle"]) >= 2
        red = any(cs.monsters[c["card"]].red for c in p["castle"])
        assert len(p["castle"]) <= 2
        if blue_twice or red:
            assert p["eliminated"], "a boss or a second invader leaves the player in (R9.2)"
    elif p["castle"]:
        assert g.state["result"] is not None, "solo invasion did not end the game (R13.1)"
    assert len(p["medals"]) <= 2, "at most one medal per boss (R14.1)"


def _check_monsters(st: dict[str, Any], uni: Universe) -> None:
    deck = {c["id"]: c["card"] for c in st["monster_deck"]}
    assert len(deck) == len(st["monster_deck"]) and deck.items() <= uni.monsters.items()
    removed = Counter(c["id"] for c in st["removed"] if c["id"].startswith("m"))
    assert removed.keys().isdisjoint(deck), "an undrawn monster was spent"
    per_player = []
    for seat, p in enumerate(st["players"]):
        places = _monster_places(p)
        where = {c["id"]: c["card"] for c in places}
        assert len(where) == len(places), f"seat {seat} has a monster in two places (R3)"
        assert where.items() <= uni.monsters.items(), f"seat {seat}: monster changed identity"
        assert where.keys().isdisjoint(deck), f"seat {seat} holds an undrawn monster"
        per_player.append((p["eliminated"], where))
    for m in uni.monsters:
        if m in deck:
            continue
        missing_active = sum(1 for out, w in per_player if not out and m not in w)
        missing_any = sum(1 for _, w in per_player if m not in w)
        assert missing_active <= removed[m] <= missing_any, (
            f"monster {m}: {removed[m]} spent copies, but {missing_active} players still in "
            f"the game lack it and {missing_any} players lack it (R3, R12)")


def check_view(g: Game, seat: int | None) -> None:
    """`view()` never shows another player's medal values, a deck order or the RNG (R3)."""
    st = g.state
    v = g.view(seat)
    for key in ("rng", "monster_deck", "unit_deck", "medal_pool", "undo", "claims"):
        assert key not in v, f"view shows {key}"
    assert "seed" not in v["setup"], "the seed replays every secret"
    assert isinstance(v["chips"]["down"], int), "face-down chips are shown"
    for i, p in enumerate(v["players"]):
        assert p["medal_count"] == len(st["players"][i]["medals"])
        if i != seat:
            assert "medals" not in p and "threat" not in p, f"seat {seat} sees {i}'s medals"
        else:
            assert p["medals"] == st["players"][i]["medals"]
    # Public answers only (canonical texts name no card ids), except a mercenary claim not
    # yet granted, which only its owner sees (R7.1: choices are collected together).
    pending = {c[0] for c in st["claims"]}
    assert len(v["log"]) == len(st["log"])
    for (who, shown), (_, real) in zip(v["log"], st["log"], strict=True):
        if shown != real:
            assert who in pending and who != seat and real.startswith("recruit merc")
            assert "hidden" in shown
    text = json.dumps({k: x for k, x in v.items() if k != "log"}, ensure_ascii=False)
    for c in st["monster_deck"] + st["unit_deck"]:
        assert f'"{c["id"]}"' not in text, f"view shows the face-down card {c['id']}"
    orders = [[c["card"] for c in deck] for deck in (st["monster_deck"], st["unit_deck"])
              if len(deck) >= 5]
    if orders:
        for lst in _long_lists({k: x for k, x in v.items() if k != "log"}):
            keys = [x.get("card") if isinstance(x, dict) else x for x in lst]
            assert keys not in orders, "view holds a list in a deck's order"


def _long_lists(x: Any) -> list[list[Any]]:
    """Every list of 5 or more items anywhere inside `x` (deck orders are that long)."""
    out, stack = [], [x]
    while stack:
        y = stack.pop()
        if isinstance(y, dict):
            stack.extend(y.values())
        elif isinstance(y, list):
            if len(y) >= 5:
                out.append(y)
            stack.extend(z for z in y if isinstance(z, (dict, list)))
    return out


def check_events(events: list[dict[str, Any]], n: int) -> None:
    """A medal's value reaches its owner only (R14.1)."""
    for s in [None, *range(n)]:
        for e in visible(events, s):
            if e["type"] == "medal_value":
                assert e["player"] == s, f"seat {s} sees seat {e['player']}'s medal value"


# ---- comparing actions -------------------------------------------------------------------------

def action_key(a: Action | str) -> str:
    """Canonical text up to order-free parts (ready squares, allocated/heal targets)."""
    if isinstance(a, str):
        a = parse(a)
    if a.verb == "ready":
        if not a.squares:
            return "done"
        return " ".join(("ready", *sorted(a.squares, key=index)))
    if a.verb == "act" and a.skill is not None:
        return str(Action("act", square=a.square, to=a.to, fullmove=a.fullmove,
                          skill=_sorted_skill(a.skill)))
    return str(a)


def listed(text: str, keys: set[str]) -> bool:
    """Whether an accepted answer is one legal_actions listed. Two kinds of answer are
    accepted but deliberately not listed: a Full Move to a square reachable without it (a
    mark paid for nothing, R12.4), and a chain of Bard commands deeper than a Bard
    commanding a Bard (each level multiplies the list, R8.2 Command); they count as listed
    when the plain move / the chain cut after two commands is listed."""
    if action_key(text) in keys:
        return True
    a = parse(text)
    if a.verb != "act":
        return False
    skill = a.skill
    if skill and skill.kind == "command" and skill.sub and skill.sub.kind == "command":
        skill = SkillUse("command", skill.targets, SkillUse("command", skill.sub.targets))
    return action_key(Action("act", square=a.square, to=a.to, skill=skill)) in keys or (
        action_key(Action("act", square=a.square, to=a.to, fullmove=a.fullmove, skill=skill))
        in keys)


def _sorted_skill(s: SkillUse) -> SkillUse:
    sub = _sorted_skill(s.sub) if s.sub else None
    return SkillUse(s.kind, tuple(sorted(s.targets, key=index)), sub)


# ---- the random driver -------------------------------------------------------------------------

_JUNK = ["", "   ", "xyzzy", "act", "act 9Z", "act 2B to", "act 2B fullmove", "act 2b to 7b",
         "pick", "pick nothing", "place", "recruit", "recruit merc", "ready 7A", "ready 1A,1A,",
         "levelup", "levelup 0A", "support", "support 1A 2A", "done now", "keep 1", "reroll x",
         "autosave maybe", "rolls sometimes", "rolls", "timeout please", "act 1A attack",
         "act 1A heal", "act 1A command",
         "act 1A command 2A command", "act 1A area 2A", "resign now", "★", "進撃", "pick 進撃 2A",
         "act 1A to 1A", "act ,", "ready ,", "act 6A", "place thief 6A", "recruit thief 3A"]
_WORDS = ["pick", "place", "act", "recruit", "ready", "support", "levelup", "reroll", "keep",
          "done", "merc", "to", "fullmove", "attack", "area", "heal", "command", "advance",
          "raid", "rest", "reward", "thief", "warrior", "bard", "archer", "knight", "シーフ",
          "Cleric★", "goblin", "1A", "2B", "3C", "5B", "6A", "6C", "0A", "7B", "2D", "1A,1A",
          "5A,5B", ",", "x"]


def _mutations(rng: random.Random, g: Game, seat: int, legal: list[Action]) -> list[str]:
    """Likely-illegal texts: junk, random token strings, and legal actions with one part
    changed. Some may turn out legal; the caller then checks legal_actions listed them."""
    out = [rng.choice(_JUNK), " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 6)))]
    a = str(rng.choice(legal)).split()
    k = rng.randrange(len(a))
    choice = rng.random()
    if choice < 0.4:
        a[k] = rng.choice(NAMES)
    elif choice < 0.6:
        a[k] = rng.choice(_WORDS)
    elif choice < 0.8:
        del a[k]
    else:
        a.insert(k, rng.choice(_WORDS))
    out.append(" ".join(a))
    return out


def _names(g: Game, key: str) -> list[str]:
    """Spellings that must resolve to exactly `key`: key, printed names, case/width variants."""
    if key in g.cards.units:
        u = g.cards.units[key]
        return [key, key.upper(), u.en, u.en.lower(), u.ja]
    en, ja = g.cards.commands[key]
    return [key, key.upper(), en, ja]


def spelled(rng: random.Random, g: Game, a: Action) -> str:
    """The action as a human might type it: other card names, other case, extra spaces."""
    text = str(a)
    if a.card is not None and rng.random() < 0.5:
        parts = text.split(" ")
        parts[parts.index(a.card)] = rng.choice(_names(g, a.card)).replace(" ", "")
        text = " ".join(parts)
    if rng.random() < 0.2:
        text = text.lower()
    if rng.random() < 0.1:
        text = "  " + text.replace(" ", "   ") + " "
    return text


def choose(rng: random.Random, legal: list[Action], style: str) -> Action:
    """Pick an answer: uniform, or 'greedy' (fights and recruits, so games reach the deck's
    end, threat victories and level-ups instead of all ending in early invasions)."""
    if style == "uniform":
        return rng.choice(legal)
    fight = [a for a in legal if a.verb == "act" and a.skill and a.skill.kind != "heal"]
    if fight and rng.random() < 0.9:
        return rng.choice(fight)
    grow = [a for a in legal if a.verb in ("recruit", "ready", "support", "reroll", "place")]
    if grow and rng.random() < 0.9:
        return rng.choice(grow)
    lv = [a for a in legal if a.verb == "levelup"]
    if lv and rng.random() < 0.3:
        return rng.choice(lv)
    busy = [a for a in legal if a.verb not in ("done", "levelup")]
    if busy and rng.random() < 0.5:
        return rng.choice(busy)
    return rng.choice(legal)


class Snapshot:
    """A state frozen before an answer. Comparing JSON text is the real test (byte-identical
    `to_json`), but it costs a full encode, so most comparisons use plain `==` on a copy and
    a share of them (`strict`) compare the text. The log is only ever appended to, so it is
    kept as a shallow copy instead of being pickled with the rest."""

    __slots__ = ("obj", "log", "_text")

    def __init__(self, g: Game) -> None:
        rest = {k: v for k, v in g.state.items() if k != "log"}
        self.obj = pickle.loads(pickle.dumps(rest, pickle.HIGHEST_PROTOCOL))
        self.log = list(g.state["log"])
        self._text: str | None = None

    def state(self) -> dict[str, Any]:
        return {**pickle.loads(pickle.dumps(self.obj, pickle.HIGHEST_PROTOCOL)),
                "log": [list(e) for e in self.log]}

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = json.dumps({**self.obj, "log": self.log}, ensure_ascii=False,
                                    sort_keys=True, separators=(",", ":"))
        return self._text

    def same(self, g: Game, strict: bool) -> bool:
        if strict:
            return g.to_json() == self.text
        st = g.state
        return (st["log"] == self.log and len(st) == len(self.obj) + 1
                and all(st[k] == v for k, v in self.obj.items()))

    def game(self, g: Game) -> Game:
        """A fresh game at this snapshot (the original may have been changed since)."""
        return Game(self.state(), g.cards)


@dataclass
class Report:
    """What one checked game did: for the test's own sanity checks and for coverage output."""

    players: int
    steps: int = 0
    rounds: int = 0
    reason: str = ""
    illegal_tried: int = 0
    illegal_accepted: int = 0
    undos: int = 0
    verbs: Counter[str] = field(default_factory=Counter)


def play_checked(players: int, seed: int, illegal_per_step: float = 1.0,
                 view_rate: float = 0.3, cards_data: dict[str, Any] | None = None) -> Report:
    """One full game of random legal play; every invariant is checked after every answer.
    `cards_data`: play with that card set instead of the default (R3 allows a group's own)."""
    rng = random.Random(seed)
    names = ["Ann", "Bob", "Cid", "Dee"][:players]
    options: dict[str, Any] = {}
    if rng.random() < 0.2:
        options["round_cap"] = rng.randint(1, 6)  # reach the R15 round cap too
    if players == 1 and rng.random() < 0.6:
        options["difficulty"] = rng.choice(["easy", "normal", "hard"])
    style = rng.choice(["uniform", "greedy", "greedy"])
    g = Game.new(names, seed=rng.randrange(2**31), options=options, cards_data=cards_data)
    uni = Universe.of(g)
    check_state(g, uni)
    rep = Report(players)
    history: list[str] = []
    snaps: dict[int, Snapshot] = {}  # log length -> state just before the answer logged there
    while not g.over:
        rep.steps += 1
        assert rep.steps < MAX_STEPS, "the game does not end"
        seat = rng.choice(g.waiting_for())
        legal = g.legal_actions(seat)
        assert legal, f"seat {seat} must decide {g.decision(seat)} but has no legal answer"
        keys = {action_key(a) for a in legal}
        tries = int(illegal_per_step) + (rng.random() < illegal_per_step % 1)
        undo = rng.random() < 0.05
        if tries or undo:  # a snapshot costs a deep copy: only when something compares it
            snap = Snapshot(g)
            snaps[len(g.state["log"])] = snap
            snaps.pop(len(g.state["log"]) - 40, None)

        # illegal answers change nothing (typed errors, byte-identical state)
        for _ in range(tries):
            g = _try_illegal(rng, g, seat, legal, keys, snap, history, rep)

        # undo: only while it revealed nothing and the decision is open; replay reproduces
        if undo:
            g = _try_undo(g, seat, snap, snaps, rep)
            if not snap.same(g, strict=False):
                continue

        r = rng.random()
        if r < 0.03:
            text: str | Action = "timeout"
        elif r < 0.04:
            text = rng.choice(["autosave on", "autosave off", "rolls miss", "rolls always"])
        elif r < 0.0415:
            text = "resign"
        else:
            a = choose(rng, legal, style)
            text = a if rng.random() < 0.5 else spelled(rng, g, a)
        verb = text.verb if isinstance(text, Action) else parse(text).verb
        rep.verbs[verb] += 1
        events = g.apply(seat, text)
        logged = g.state["log"][-1][1]
        history.append(logged)
        if verb not in ("timeout", "autosave", "rolls", "resign"):
            assert listed(logged, keys), f"logged {logged!r} is not a listed answer"
            assert action_key(logged) == action_key(a), f"{text!r} was taken as {logged!r}"
        check_state(g, uni)
        check_events(events, players)
        if rng.random() < view_rate:  # views are costly (a JSON round trip each)
            check_view(g, rng.choice([None, *range(players)]))
        if rng.random() < 0.02:  # the bot's path: state goes through JSON between answers
            g = Game.from_json(g.to_json())
            assert g.to_json() == Game(json.loads(g.to_json())).to_json()

    rep.rounds = g.state["round"]
    rep.reason = g.state["result"]["reason"]
    final = g.to_json()
    for s in [None, *range(players)]:
        check_view(g, s)
    for s in range(players):  # a finished game answers nothing, and changes nothing
        for t in ("done", "pick advance", "timeout", "autosave on", "rolls always", "resign"):
            try:
                g.apply(s, t)
            except GameFinished:
                pass
            else:
                raise AssertionError(f"{t!r} accepted after the game ended")
            assert g.to_json() == final
    replayed = Game.replay(g.state["setup"], g.state["log"])
    assert replayed.to_json() == final, "setup + log does not replay to the final state (R15)"
    return rep


def _try_illegal(rng: random.Random, g: Game, seat: int, legal: list[Action], keys: set[str],
                 snap: Snapshot, history: list[str], rep: Report) -> Game:
    """Apply one likely-illegal answer; an error must leave the state byte-identical, an
    accepted answer must have been listed by legal_actions. Returns the game to go on with."""
    n = len(g.state["players"])
    dec = g.decision(seat)
    assert dec is not None
    kind = rng.random()
    who, did, expect = seat, None, ActionError
    if kind < 0.5:
        text = rng.choice(_mutations(rng, g, seat, legal))
    elif kind < 0.65 and history:
        text = rng.choice(history[-8:])  # an answer to an earlier question
    elif kind < 0.8 and [a for a in legal if a.verb != "levelup"]:
        # another seat's answer (Level Up aside: any player may declare it at any time,
        # R12.1, so an idle seat's levelup is judged on its own board)
        text = str(rng.choice([a for a in legal if a.verb != "levelup"]))
        idle = [s for s in range(n) if g.decision(s) is None] + [-1, n, 99]
        who, expect = rng.choice(idle), NotYourDecision
    else:
        text = str(rng.choice(legal))
        did, expect = rng.randint(0, dec["id"] - 1), StaleDecision
    rep.illegal_tried += 1
    try:
        g.apply(who, text, did)
    except ActionError as e:
        assert isinstance(e, expect), f"{text!r} by {who} raised {type(e).__name__}: {e}"
        assert e.message, "an error without a message"
        assert snap.same(g, strict=rng.random() < 0.15), f"illegal {text!r} by {who} changed the state: {e}"
        return g
    assert expect is ActionError and who == seat, f"{text!r} by {who} (id {did}) was accepted"
    rep.illegal_accepted += 1
    logged = g.state["log"][-1][1]
    if parse(text).verb not in ("timeout", "autosave", "rolls", "resign"):
        assert listed(logged, keys), f"apply accepted {text!r} ({logged!r}), not listed"
    return snap.game(g)


def _try_undo(g: Game, seat: int, snap: Snapshot, snaps: dict[int, Snapshot],
              rep: Report) -> Game:
    """Undo, when allowed, removes exactly that answer from the log; undoing the very last
    answer gives back the state from just before it, byte for byte."""
    if not g.can_undo(seat):
        try:
            g.undo(seat)
        except ActionError:
            assert snap.same(g, strict=True), "a refused undo changed the state"
            return g
        raise AssertionError("undo accepted while can_undo is False")
    at = g.state["undo"][str(seat)][0]
    log = g.state["log"]
    assert log[at][0] == seat, "undo would take back another player's answer"
    expected_log = log[:at] + log[at + 1:]
    g.undo(seat)
    rep.undos += 1
    assert g.state["log"] == expected_log
    if at == len(expected_log) and at in snaps:
        assert snaps[at].same(g, strict=True), "undo is not the state from before the action"
    for k in [k for k in snaps if k > at]:  # that history is gone: its snapshots are stale
        del snaps[k]
    return g
