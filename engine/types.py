"""The shapes of the engine's plain data: state, decisions, events, views (docs/state.md).

This module is the source of those shapes; docs/state.md explains what they mean. They are
`TypedDict`s, not classes, on purpose: a state stays the JSON object it is on disk and in
the store (`Game.to_json` / `from_json`, setup + log replay, R15), so typing it costs
nothing at run time, while mypy checks every key an interface reads. Keys that Python
reserves (`from`, `def`) force the functional `TypedDict(...)` form for a few kinds.

The rule modules build these dicts with literals exactly as before; the classes exist for
the type checker (and tests/test_types.py, which holds the engine's output to them).
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

# ---- small vocabularies ----------------------------------------------------------------------
Phase = Literal["placement", "main", "auto", "invasion", "summon", "end", "over"]
RollResult = Literal["hit", "miss", "critical", "fumble"]
RollPrompts = Literal["miss", "always"]
Termination = Literal["end.final_round", "end.castle_invaded", "end.last_standing",
                      "end.all_eliminated", "end.all_defeated", "end.threat_low",
                      "end.round_cap", "end.resigned"]
"""Why a game ended (R9.3, R13, R14.3, R15), as python-chess's `Termination`: the code a
stored result keeps (a JSON string) and `engine/messages.py` REASONS words in English."""


class Card(TypedDict):
    """One physical card: `u…` unit, `l…` level-up, `m…` monster (black-frame copies share
    their id across boards, R3)."""

    id: str
    card: str


class Piece(TypedDict):
    """A piece on a board. A unit has `owner` and `acted`; a monster has neither — the
    engine tells them apart by `owner` (`state.is_unit` / `state.is_monster`)."""

    id: str
    card: str
    dmg: int
    owner: NotRequired[int]
    acted: NotRequired[bool]


Board = list[Piece | None]
"""18 squares indexed `(column-1)*3 + lane` (R2); see engine/board.py."""


class Player(TypedDict):
    name: str
    gold: int
    honor: int
    defeated: list[Card]
    medals: list[int]
    castle: list[Card]
    hand: list[Card]
    levelups: int
    eliminated: bool
    board: Board
    queues: dict[str, list[Card]]
    autosave: bool
    rolls: RollPrompts


class Options(TypedDict, total=False):
    """Setup options (R13.2 difficulty, R15 round cap) and the setup variants of
    `state.VARIANTS`; every key is optional in a request, `new_game` fills the first two."""

    difficulty: str | None
    round_cap: int
    # every player's 'rolls' standing order at the start (R12.1); absent: miss
    rolls: Literal["miss", "always"]
    start_gold: int
    start_honor: int
    omit_commands: list[str]
    opening_monster: str
    empty_levelup: list[str]


class Setup(TypedDict):
    """All a replay needs beside the log (R15)."""

    players: list[str]
    seed: int
    options: Options
    rng: NotRequired[str]  # the generator (engine/rng.py); absent: splitmix64 (older games)
    key: NotRequired[str]  # an hmac-ctr game's key, 64 hex digits (secret like the rng)
    cards: NotRequired[dict[str, Any]]  # a custom card set: the free-form JSON of cards.json
    cards_version: NotRequired[int]  # else the released set data/cards/v<N>.json (issue 17)
    start: NotRequired[dict[str, Any]]  # a puzzle's starting position (a State minus setup)
    rules: NotRequired[int]  # the rules' readings it is played under (flow.RULES_VERSION)


class KeyedStream(TypedDict):
    """One hmac-ctr stream (engine/rng.py): the game's key and how many outputs were drawn."""

    key: str
    n: int


Stream = int | KeyedStream
"""A random stream's state: a splitmix64 integer, or a keyed counter (engine/rng.py)."""


class Chips(TypedDict):
    down: list[str]
    up: list[str]


class Result(TypedDict):
    winners: list[int]
    draw: bool
    reason: str  # the English of `code` (states from before codes have only this)
    code: NotRequired[Termination]  # why the game ended (states from before codes: absent)
    ranking: list[int]
    # the phase it ended in: a game that ends in the Main phase (R13.2, R14.3, a resignation)
    # never reaches ⑤⑥⑦, and its last image must not show them done (states from before: absent)
    ended_in: NotRequired[Phase]


# ---- decisions: what a seat must answer now ---------------------------------------------------
class _DecisionBase(TypedDict):
    id: int
    opened: int


class PlaceDecision(_DecisionBase):
    kind: Literal["place"]


class PickDecision(_DecisionBase):
    kind: Literal["pick"]
    options: list[str]


class ActionsDecision(_DecisionBase):
    kind: Literal["actions"]
    card: str
    left: int
    acted_now: list[str]


class ReadyDecision(_DecisionBase):
    kind: Literal["ready"]
    card: str
    n: int


class RecruitDecision(_DecisionBase):
    kind: Literal["recruit"]
    card: str
    mercenaries: bool
    again: bool


class SupportDecision(_DecisionBase):
    kind: Literal["support"]


class Roll(TypedDict):
    """A dice attack in flight (R8.2): what `reroll` and `keep` work from."""

    unit: str
    target: str
    dice: list[int]
    rerolled: bool


RollDecision = TypedDict("RollDecision", {
    "id": int, "opened": int, "kind": Literal["roll"],
    "unit": str, "target": str, "dice": list[int], "rerolled": bool,
    "total": int, "result": RollResult, "def": int, "can_reroll": bool, "can_levelup": bool,
    "resume": "ActionsDecision | None",  # the `actions` decision the roll interrupted
})

Decision = (PlaceDecision | PickDecision | ActionsDecision | ReadyDecision | RecruitDecision
            | SupportDecision | RollDecision)
DecisionKind = Literal["place", "pick", "actions", "ready", "recruit", "support", "roll"]


# ---- the state --------------------------------------------------------------------------------
LogEntry = list[Any]
"""`[seat, "action text"]` (a JSON pair, so a list, not a tuple)."""

Claim = list[Any]
"""`[seat, card id, square]`: a mercenary choice waiting to be granted (R7.1)."""


class State(TypedDict):
    version: int
    setup: Setup
    options: Options
    round: int
    phase: Phase
    step: str | None
    auto_left: list[str]
    row: list[str]
    chosen: list[str]
    executed: list[str]
    current: str | None
    leader: int | None
    turn_order: list[int]
    turn: int
    start_player: int
    players: list[Player]
    monster_deck: list[Card]
    unit_deck: list[Card]
    discard: list[Card]
    mercenaries: list[Card | None]
    levelup_piles: dict[str, list[Card]]
    chips: Chips
    medal_pool: list[int]
    removed: list[Card]
    claims: list[Claim]
    # seat → [log index, opened] or, from rules 3, [log index, opened, step] (engine/game.py)
    undo: dict[str, list[Any]]
    decisions: dict[str, Decision]
    next_id: int
    rng: dict[str, Stream]
    final_round: int | None
    result: Result | None
    log: list[LogEntry]


# ---- views: a state as one seat may see it (R3) -----------------------------------------------
class PlayerView(TypedDict):
    name: str
    gold: int
    honor: int
    defeated: list[Card]
    medals: NotRequired[list[int]]  # the viewer's own only
    medal_count: int
    castle: list[Card]
    hand: list[Card]
    levelups: int
    eliminated: bool
    board: Board
    queues: dict[str, list[Card]]
    autosave: bool
    rolls: RollPrompts
    threat_public: int
    threat: NotRequired[int]  # the viewer's own only: with hidden medals
    honor_marks: int


class ChipsView(TypedDict):
    down: int
    up: list[str]


class SetupView(TypedDict):
    players: list[str]
    options: Options
    cards: NotRequired[dict[str, Any]]
    cards_version: NotRequired[int]
    rules: NotRequired[int]


class View(TypedDict):
    version: int
    setup: SetupView
    options: Options
    round: int
    phase: Phase
    step: str | None
    auto_left: list[str]
    row: list[str]
    chosen: list[str]
    executed: list[str]
    current: str | None
    leader: int | None
    turn_order: list[int]
    turn: int
    start_player: int
    players: list[PlayerView]
    monster_deck_size: int
    unit_deck_size: int
    medal_pool_size: int
    discard: list[Card]
    mercenaries: list[Card | None]
    levelup_piles: dict[str, list[Card]]
    chips: ChipsView
    removed: list[Card]
    decisions: dict[str, Decision]
    next_id: int
    final_round: int | None
    result: Result | None
    log: list[LogEntry]
    viewer: int | None
    after: NotRequired[str]  # set by service/games.py on a stage's view: what just ended


# ---- events: what an action caused, in order --------------------------------------------------
# `player` names the seat whose board or resources it concerns; `vis` makes it private.
class _EventBase(TypedDict):
    vis: NotRequired[list[int]]  # only these seats may see it (engine.visible)


class PhaseEvent(_EventBase):
    type: Literal["phase"]
    phase: str
    round: int
    start_player: NotRequired[int]


class CardEvent(_EventBase):
    type: Literal["card"]
    card: str
    leader: int | None
    auto: bool


class ResolvedEvent(_EventBase):
    type: Literal["resolved"]
    what: str


class PickedEvent(_EventBase):
    type: Literal["picked"]
    player: int
    card: str


class PassedEvent(_EventBase):
    type: Literal["passed"]
    player: int


class GoldEvent(_EventBase):
    type: Literal["gold"]
    player: int
    amount: int
    total: int


class HonorEvent(_EventBase):
    type: Literal["honor"]
    player: int
    amount: int


class PlacedEvent(_EventBase):
    type: Literal["placed", "recruited"]
    player: int
    card: str
    square: str
    mercenary: bool


class MercClaimedEvent(TypedDict):  # always private
    type: Literal["merc_claimed"]
    player: int
    card: str
    vis: list[int]


class MercTakenEvent(_EventBase):
    type: Literal["merc_taken"]
    player: int


class MovedEvent(_EventBase):
    type: Literal["moved"]
    player: int
    unit: str
    card: str
    path: list[str]


class FullMoveEvent(_EventBase):
    type: Literal["fullmove"]
    player: int
    square: str


RolledEvent = TypedDict("RolledEvent", {
    "type": Literal["rolled"], "vis": NotRequired[list[int]], "player": int, "from": str,
    "target": str, "card": str,
    "dice": list[int], "total": int, "def": int, "result": RollResult, "rerolled": bool,
    "attacker": str, "mod": int})


class WillpowerEvent(_EventBase):
    type: Literal["willpower"]
    player: int


AreaEvent = TypedDict("AreaEvent", {
    "type": Literal["area"], "vis": NotRequired[list[int]], "player": int, "from": str,
    "squares": list[str]})

CommandEvent = TypedDict("CommandEvent", {
    "type": Literal["command"], "vis": NotRequired[list[int]], "player": int, "from": str,
    "target": str})


DamagedEvent = TypedDict("DamagedEvent", {
    "type": Literal["damaged"], "vis": NotRequired[list[int]], "player": int, "square": str,
    "card": str, "amount": int, "hp": int, "hp_left": int,
    # the attacker's card and square, for an allocated attack (no other event names it)
    "by": NotRequired[str], "from": NotRequired[str]})


HealedEvent = TypedDict("HealedEvent", {
    "type": Literal["healed"], "vis": NotRequired[list[int]], "player": int, "square": str,
    "amount": int,
    "support": NotRequired[bool],  # True for End-phase support (R11.1); absent for a heal skill
    "card": str, "hp": int, "hp_left": int,
    # the healer's card and square (a heal skill; absent for support and in older logs)
    "by": NotRequired[str], "from": NotRequired[str]})


class DefeatedEvent(_EventBase):
    type: Literal["defeated"]
    player: int
    square: str
    card: str


class MedalEvent(_EventBase):
    type: Literal["medal"]
    player: int


class MedalValueEvent(TypedDict):  # always private
    type: Literal["medal_value"]
    player: int
    value: int
    vis: list[int]


class FaintedEvent(_EventBase):
    type: Literal["fainted"]
    player: int
    square: str
    card: str


LevelupEvent = TypedDict("LevelupEvent", {
    "type": Literal["levelup"], "vis": NotRequired[list[int]], "player": int, "square": str,
    "from": str, "card": str,
    "price": int, "reason": str})


class ReadiedEvent(_EventBase):
    type: Literal["readied"]
    player: int
    squares: list[str]


class DoneEvent(_EventBase):
    type: Literal["done"]
    player: int


MonsterAttackedEvent = TypedDict("MonsterAttackedEvent", {
    "type": Literal["monster_attacked"], "vis": NotRequired[list[int]], "player": int, "from": str,
    "card": str,
    "targets": list[str]})

MonsterMovedEvent = TypedDict("MonsterMovedEvent", {
    "type": Literal["monster_moved"], "vis": NotRequired[list[int]], "player": int, "card": str,
    "from": str, "to": str,
    "bonus": bool})


class InvadedEvent(_EventBase):
    type: Literal["invaded"]
    player: int
    card: str
    first: NotRequired[bool]  # 2+ players, an ordinary monster, none before: not yet out (R9.2)


class EliminatedEvent(_EventBase):
    type: Literal["eliminated"]
    player: int
    resigned: NotRequired[bool]


class ChipEvent(_EventBase):
    type: Literal["chip"]
    lane: str
    card: str


class ChipsReshuffledEvent(_EventBase):
    type: Literal["chips_reshuffled"]


class SummonedEvent(_EventBase):
    type: Literal["summoned"]
    player: int
    square: str
    card: str
    from_queue: bool


class QueuedEvent(_EventBase):
    type: Literal["queued"]
    player: int
    lane: str
    card: str


class MercenariesEvent(_EventBase):
    type: Literal["mercenaries"]
    cards: list[str | None]


class UnitDeckReshuffledEvent(_EventBase):
    type: Literal["unit_deck_reshuffled"]


class FinalRoundEvent(_EventBase):
    type: Literal["final_round"]
    round: int | None


class TimeoutEvent(_EventBase):
    type: Literal["timeout"]
    player: int
    decision: DecisionKind


class AutosaveEvent(TypedDict):  # always private
    type: Literal["autosave"]
    player: int
    on: bool
    vis: list[int]


class RollsEvent(TypedDict):  # always private
    type: Literal["rolls"]
    player: int
    mode: str
    vis: list[int]


class DeclaredEvent(_EventBase):
    type: Literal["declared"]
    players: list[int]
    # each declarer's, in `players` order (R14.3: medals revealed; R14.4: what decides)
    threat: NotRequired[list[int]]
    medals: NotRequired[list[int]]
    marks: NotRequired[list[int]]
    gold: NotRequired[list[int]]


class GameOverEvent(_EventBase):
    type: Literal["game_over"]
    winners: list[int]
    draw: bool
    reason: str
    code: NotRequired[Termination]
    ranking: list[int]


Event = (PhaseEvent | CardEvent | ResolvedEvent | PickedEvent | PassedEvent | GoldEvent
         | HonorEvent | PlacedEvent | MercClaimedEvent | MercTakenEvent | MovedEvent
         | FullMoveEvent | RolledEvent | WillpowerEvent | AreaEvent | CommandEvent
         | DamagedEvent | HealedEvent | DefeatedEvent | MedalEvent | MedalValueEvent
         | FaintedEvent | LevelupEvent | ReadiedEvent | DoneEvent | MonsterAttackedEvent
         | MonsterMovedEvent | InvadedEvent | EliminatedEvent | ChipEvent | ChipsReshuffledEvent
         | SummonedEvent | QueuedEvent | MercenariesEvent | UnitDeckReshuffledEvent
         | FinalRoundEvent | TimeoutEvent | AutosaveEvent | RollsEvent | DeclaredEvent
         | GameOverEvent)
"""One event; narrow it by `type` (`if e["type"] == "moved": …`) to read its fields."""
