"""Building a new game (R3, R4) and the small helpers every rule module shares.

The state is plain JSON data (docs/state.md); helpers here read it through the card set
so no module repeats a lookup rule.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, TypeGuard, cast

from . import board, rng
from .cards import CardSet
from .errors import excerpt
from .types import (
    ActionsDecision,
    Board,
    Card,
    Decision,
    DecisionKind,
    Event,
    Options,
    Piece,
    Player,
    Result,
    Roll,
    RollDecision,
    RollResult,
    State,
)

__all__ = ["ActionsDecision", "Board", "Card", "Decision", "Event", "Piece", "Player", "Result",
           "Roll", "RollDecision", "RollResult", "State"]  # the shapes the rule modules use, from one place

COMMANDS = ("advance", "raid", "rest", "reward", "recruit")
DIFFICULTY_DISCARDS = {"easy": 0, "normal": 3, "hard": 6}
"""R13.2's discards per level (one table: the interfaces offer its keys). A fourth level of 9
discards was measured and dropped: one round less than Hard, and the expert won 0 of 60
(docs/balance.md, pass 4)."""
JOBS = ("warrior", "cleric", "sorcerer", "thief")


def new_player(name: str) -> Player:
    return {
        "name": name, "gold": 2, "honor": 1, "defeated": [], "medals": [], "castle": [],
        "hand": [], "levelups": 0, "eliminated": False, "board": [None] * board.SIZE,
        "queues": {"A": [], "B": [], "C": []}, "autosave": False, "rolls": "miss",
    }


def blank_state(players: list[str], seed: int, options: Options,
                key: bytes | None = None) -> State:
    """Every key at its default: the base a hand-written puzzle state is merged onto.
    `key`: the game draws with the keyed generator (engine/rng.py), else from `seed`."""
    n = len(players)
    streams = {k: rng.start(seed, key, k)
               for k in ("monsters", "units", "chips", "medals", "table")}
    for p in range(n):
        streams[f"dice{p}"] = rng.start(seed, key, f"dice{p}")
    st: State = {
        "version": 1,
        "setup": {"players": list(players), "seed": seed, "options": options.copy()},
        "options": options.copy(),
        "round": 0, "phase": "placement", "step": None,
        "row": list(COMMANDS), "chosen": [], "executed": [], "current": None, "leader": None,
        "turn_order": list(range(n)), "turn": 0, "auto_left": [], "start_player": 0,
        "players": [new_player(p) for p in players],
        "monster_deck": [], "unit_deck": [], "discard": [], "mercenaries": [None, None, None],
        "levelup_piles": {j: [] for j in JOBS},
        "chips": {"down": ["A", "A", "B", "B", "C", "C"], "up": []},
        "medal_pool": [], "removed": [], "claims": [],
        "decisions": {}, "next_id": 1, "undo": {}, "rng": streams,
        "final_round": None, "result": None, "log": [],
    }
    if key is not None:  # which generator replays it (R15); absent: splitmix64, so the
        # setup of every game stored before the keyed generator replays unchanged
        st["setup"]["rng"] = rng.KEYED
        st["setup"]["key"] = key.hex()  # as secret as the streams themselves
        st["setup"]["seed"] = 0  # plays no part: one keyed game, one setup
    return st


def normalize(raw: dict[str, Any]) -> State:
    """Fill every key a hand-written state left out, so puzzles need only what they test.

    `raw` is untrusted JSON, so it is read as such; what comes out has every key of State."""
    setup = raw.get("setup") or {}
    names = setup.get("players") or [p.get("name", f"P{i + 1}")
                                      for i, p in enumerate(raw.get("players", [{}]))]
    options: Options = cast(Options, raw.get("options") or setup.get("options") or {})
    key = rng.key_of(setup)
    base = blank_state(names, int(setup.get("seed", 0)), options, key)
    out: dict[str, Any] = copy.deepcopy(raw)
    for k, v in base.items():
        out.setdefault(k, v)
    for i, p in enumerate(out["players"]):
        for k, v in new_player(names[i] if i < len(names) else f"P{i + 1}").items():
            p.setdefault(k, v)
        p["board"] = _grid(p["board"])
        for at, piece in enumerate(p["board"]):
            if piece is not None:
                _normalize_piece(piece, i, at)
        for q in "ABC":
            p["queues"].setdefault(q, [])
    for k, v in base["rng"].items():  # a puzzle may give only some streams, e.g. "dice0" (R15)
        out["rng"].setdefault(k, v)
    for p in range(len(out["players"])):
        out["rng"].setdefault(f"dice{p}", rng.start(int(setup.get("seed", 0)), key, f"dice{p}"))
    for k, v in out["rng"].items():
        rng.check_stream(str(k), v)
    return cast(State, out)


def _grid(raw: object) -> object:
    """A board as 18 squares: puzzles may name squares instead ({"2B": piece})."""
    if not isinstance(raw, dict):
        return raw
    grid: list[object] = [None] * board.SIZE
    for name, piece in raw.items():
        at = board.index(name)
        if at is None:
            raise ValueError(f"{excerpt(str(name))!r} is not a square (1A to 6C)")
        grid[at] = piece
    return grid


def _normalize_piece(piece: dict[str, Any], seat: int, at: int) -> None:
    """A hand-written piece as the engine keeps it: a unit has an owner (a puzzle may say
    `"kind": "unit"` instead) and an action marker; every piece has damage and an id."""
    if piece.get("kind") == "unit":
        piece.setdefault("owner", seat)
    piece.pop("kind", None)
    piece.setdefault("dmg", 0)
    piece.setdefault("id", f"x{seat}_{at}")
    if "owner" in piece:
        piece.setdefault("acted", False)


def new_game(cs: CardSet, players: list[str], seed: int, options: Mapping[str, Any],
             rng_key: bytes | None = None) -> State:
    """Setup R4 up to the moment the first decision (initial placement) is asked; `rng_key`
    (rng.KEY_BYTES) draws every stream with the keyed generator instead of the seed."""
    n = len(players)
    if not 1 <= n <= 4:
        raise ValueError("Rook & Raiders is for 1 to 4 players (R1).")
    difficulty = options.get("difficulty")
    if difficulty is not None and (n != 1 or difficulty not in DIFFICULTY_DISCARDS):
        raise ValueError("difficulty is easy, normal or hard, and only for 1 player (R13.2).")
    opts: Options = {"difficulty": difficulty, "round_cap": int(options.get("round_cap", 30))}
    opts.update(setup_variants(cs, options, n))
    st = blank_state(players, seed, opts, rng_key)
    r = st["rng"]
    st["monster_deck"] = _monster_deck(cs, st)
    units = _unit_deck(cs, st)
    if difficulty is not None:  # R13.2: discard from the top before the first reveal
        st["discard"] += units[:DIFFICULTY_DISCARDS[difficulty]]
        del units[:DIFFICULTY_DISCARDS[difficulty]]
    st["medal_pool"] = list(cs.medals) if n > 1 else []
    _apply_variants(st, opts)
    rng.shuffle(r, "table", st["row"])  # R3: commands shuffled into a row
    st["start_player"] = rng.randbelow(r, "table", n)  # R4.2
    return st


def _monster_deck(cs: CardSet, st: State) -> list[Card]:
    """R3: the monster deck, shuffled per level, level 1 on top."""
    deck: list[Card] = []
    serial = 0
    for level in (1, 2, 3):
        pile: list[Card] = []
        for key, m in cs.monsters.items():
            for _ in range(m.copies if m.level == level else 0):
                serial += 1
                pile.append({"id": f"m{serial}", "card": key})
        rng.shuffle(st["rng"], "monsters", pile)
        deck += pile
    return deck


def _unit_deck(cs: CardSet, st: State) -> list[Card]:
    """R3: the unit deck, shuffled, minus the starting hands (dealt here); the level-up
    cards go to their piles."""
    units: list[Card] = []
    serial = 0
    for key, u in cs.units.items():
        for _ in range(u.copies):
            serial += 1
            # a level-up card names its job in cards.json (the custom-set check requires it)
            (st["levelup_piles"].setdefault(u.job, [])  # type: ignore[arg-type]
             if u.levelled else units).append(
                {"id": f"{'l' if u.levelled else 'u'}{serial}", "card": key})
    for p in st["players"]:
        for key in cs.starting_hand:
            card = next(c for c in units if c["card"] == key)
            units.remove(card)
            p["hand"].append(card)
    rng.shuffle(st["rng"], "units", units)
    st["unit_deck"] = units
    return units


# ---- setup variants (daily-challenge modifiers and house rules) ------------------------------
# Each variant is a setup option, so setup + log still replays the game (R15). They change
# only the starting position, never a rule: interfaces (the daily challenge) list them as data.
VARIANTS = ("start_gold", "start_honor", "omit_commands", "opening_monster", "empty_levelup")


def setup_variants(cs: CardSet, options: Mapping[str, Any], players: int) -> Options:
    """The variant options of `options`, checked; anything unknown is refused so a typo in a
    modifier list cannot silently give the standard game."""
    known = {"difficulty", "round_cap", "rolls", *VARIANTS}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ValueError(f"unknown setup option(s): {', '.join(unknown)}")
    out: dict[str, Any] = {}
    rolls = options.get("rolls")
    if rolls is not None:
        # the standing order everyone starts with: a game stored before the order existed
        # was asked after every roll a boon could improve, so it replays with `always`
        # (store migration 15); a new game starts at `miss`
        if rolls not in ("miss", "always"):
            raise ValueError("rolls is miss or always (R12.1)")
        out["rolls"] = rolls
    for key in ("start_gold", "start_honor"):
        if options.get(key) is not None:
            value = options[key]
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 20:
                raise ValueError(f"{key} is a whole number from 0 to 20")
            out[key] = value
    omit = options.get("omit_commands") or []
    if omit:
        if not set(omit) <= set(COMMANDS) or len(set(omit)) != len(omit):
            raise ValueError(f"omit_commands names command cards: {', '.join(COMMANDS)}")
        if len(COMMANDS) - len(omit) < players + 1:  # R6.5 needs an unexecuted last card
            raise ValueError("too few command cards left for this many players (R6.5)")
        out["omit_commands"] = list(omit)
    monster = options.get("opening_monster")
    if monster is not None:
        if monster not in cs.monsters:
            raise ValueError(f"opening_monster names a monster: {', '.join(cs.monsters)}")
        out["opening_monster"] = monster
    jobs = options.get("empty_levelup") or []
    if jobs:
        if not set(jobs) <= set(JOBS):
            raise ValueError(f"empty_levelup names jobs: {', '.join(JOBS)}")
        out["empty_levelup"] = list(jobs)
    return cast(Options, out)


def _apply_variants(st: State, opts: Options) -> None:
    """Set up the starting position the variants ask for (before the row is shuffled)."""
    for p in st["players"]:
        p["gold"] = opts.get("start_gold", p["gold"])
        p["honor"] = opts.get("start_honor", p["honor"])
        p["rolls"] = opts.get("rolls", p["rolls"])
    st["row"] = [c for c in st["row"] if c not in opts.get("omit_commands", [])]
    monster = opts.get("opening_monster")
    if monster is not None:  # one copy leaves its level and is drawn by the first summon
        card = next((c for c in st["monster_deck"] if c["card"] == monster), None)
        if card is not None:
            st["monster_deck"].remove(card)
            st["monster_deck"].insert(0, card)
    for job in opts.get("empty_levelup", []):  # R12.2: an empty pile cannot be used
        st["removed"] += st["levelup_piles"][job]
        st["levelup_piles"][job] = []


# ---- shared helpers ------------------------------------------------------------------------

def active(st: State) -> list[int]:
    """Seats still in the game (R9.3)."""
    return [i for i, p in enumerate(st["players"]) if not p["eliminated"]]


def clockwise_from(st: State, first: int) -> list[int]:
    """Seats still in the game in seat order, starting at `first` (R6.1)."""
    n = len(st["players"])
    return [s for s in ((first + k) % n for k in range(n)) if not st["players"][s]["eliminated"]]


def marks(p: Player) -> int:
    """Honor marks: tokens plus defeated monster cards (R12)."""
    return p["honor"] + len(p["defeated"])


def spend_marks(st: State, p: Player, n: int) -> None:
    """Spend honor marks: tokens first (marks are interchangeable, R12); cards leave the game."""
    take = min(n, p["honor"])
    p["honor"] -= take
    for _ in range(n - take):
        st["removed"].append(p["defeated"].pop())


def levelup_price(p: Player) -> int:
    """R12.2: 2 marks for the 1st and 2nd level-up, 3 from the 3rd on."""
    return 2 if p["levelups"] < 2 else 3


def monster_threat(cs: CardSet, p: Player) -> int:
    """R14.2 without medals: board + waiting queues + castle."""
    t = sum(cs.monsters[m["card"]].threat for m in p["board"] if m is not None and "owner" not in m)
    t += sum(cs.monsters[m["card"]].threat for q in p["queues"].values() for m in q)
    return t + sum(cs.monsters[m["card"]].threat for m in p["castle"])


def threat(cs: CardSet, p: Player) -> int:
    """R14.2: monster threat plus medal values (negative)."""
    return monster_threat(cs, p) + sum(p["medals"])


def monsters_left(p: Player) -> int:
    """Monsters on the board plus in waiting queues (R11.1 support count, R13.1)."""
    return sum(1 for m in p["board"] if m is not None and "owner" not in m) + sum(
        len(q) for q in p["queues"].values())


def is_unit(piece: Piece | None) -> TypeGuard[Piece]:
    return piece is not None and "owner" in piece


def is_monster(piece: Piece | None) -> TypeGuard[Piece]:
    return piece is not None and "owner" not in piece


def occupant(b: Board, i: int) -> Piece:
    """The piece on `i`, where the rule reading it has already established one stands (the
    unit of a validated Plan, a roll's squares, a skill's user). An empty square here is an
    engine bug, never a player's mistake: it is raised as one, not read as a piece."""
    piece = b[i]
    if piece is None:
        raise LookupError(f"no piece on {sq(i)}")
    return piece


def open_decision(st: State, seat: int, kind: DecisionKind, **extra: Any) -> Decision:
    """Ask `seat` a new question; its id marks every prompt made for it (stale check)."""
    dec = cast(Decision, {"id": st["next_id"], "opened": st["next_id"], "kind": kind, **extra})
    st["next_id"] += 1
    st["decisions"][str(seat)] = dec
    return dec


def touch_decision(st: State, seat: int) -> None:
    """The question changed (e.g. one action fewer left): older prompts become stale."""
    dec = st["decisions"][str(seat)]
    dec["id"] = st["next_id"]
    st["next_id"] += 1


def close_decision(st: State, seat: int) -> None:
    st["decisions"].pop(str(seat), None)


def sq(i: int) -> str:
    return board.NAMES[i]
