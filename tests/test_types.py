"""engine/types.py says what the engine's data looks like; these tests hold it to that.

mypy checks the code against the TypedDicts, but only the engine at run time can show that
the shapes are the ones it really produces: random whole games are played and every state,
pending decision, event and view is checked key by key and value by value against its
TypedDict (a missing key, an extra key or a wrong type fails). An interface reading a key
the types promise (docs/state.md) therefore finds it.
"""

from __future__ import annotations

import random
import types
import typing
from typing import Any, Literal, NotRequired, Union, get_args, get_origin

import pytest

from engine import Game, IllegalAction
from engine import types as T

_HINTS: dict[type, dict[str, Any]] = {}


def _hints(td: type) -> dict[str, Any]:
    if td not in _HINTS:
        _HINTS[td] = typing.get_type_hints(td, include_extras=True)
    return _HINTS[td]


def _is_typeddict(tp: object) -> bool:
    return isinstance(tp, type) and typing.is_typeddict(tp)


def problems(value: object, tp: Any, where: str) -> list[str]:
    """Where `value` does not have the shape `tp` (a TypedDict, list[…], dict[str, …],
    a union, a Literal, int/str/bool/None or Any); empty when it conforms."""
    if tp is Any or tp is object:
        return []
    if tp is None or tp is type(None):
        return [] if value is None else [f"{where}: {value!r} is not None"]
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        options = [problems(value, arm, where) for arm in get_args(tp)]
        if any(not p for p in options):
            return []
        tag = value.get("type", value.get("kind")) if isinstance(value, dict) else None
        if tag is not None:  # a tagged union: report against the arm with that tag, if any
            for arm, p in zip(get_args(tp), options, strict=True):
                lit = _hints(arm).get("type", _hints(arm).get("kind")) if _is_typeddict(
                    arm) else None
                if lit is not None and tag in get_args(lit):
                    return p
        return [f"{where}: {value!r:.80} matches none of {tp}"]
    if origin is Literal:
        return [] if value in get_args(tp) else [f"{where}: {value!r} not in {get_args(tp)}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: {type(value).__name__} is not a list"]
        (item,) = get_args(tp)
        return [p for k, v in enumerate(value) for p in problems(v, item, f"{where}[{k}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__} is not an object"]
        _, item = get_args(tp)
        return [p for k, v in value.items() for p in problems(v, item, f"{where}.{k}")]
    if _is_typeddict(tp):
        return _typeddict_problems(value, tp, where)
    if tp is bool:
        return [] if isinstance(value, bool) else [f"{where}: {value!r} is not a bool"]
    if tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [f"{where}: {value!r} is not an int"]
    if tp is str:
        return [] if isinstance(value, str) else [f"{where}: {value!r} is not a str"]
    raise AssertionError(f"the checker does not know {tp!r}")  # keep it honest


def _typeddict_problems(value: object, td: type, where: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{where}: {type(value).__name__} is not an object ({td.__name__})"]
    out: list[str] = []
    hints = _hints(td)
    for key, hint in hints.items():
        optional = get_origin(hint) is NotRequired
        inner = get_args(hint)[0] if optional else hint
        if key not in value:
            if not optional and td.__total__:
                out.append(f"{where}: {td.__name__} lacks '{key}'")
            continue
        out += problems(value[key], inner, f"{where}.{key}")
    out += [f"{where}: {td.__name__} has no key '{k}'" for k in value if k not in hints]
    return out


_FITS: dict[Any, Any] = {}


def fits(value: object, tp: Any) -> bool:
    """Whether `value` has the shape `tp`: the same judgement as `problems` (a test below
    holds them equal), compiled once per type into nested closures, because the games
    below check a million values and only a failure needs its words."""
    check = _FITS.get(tp)
    if check is None:
        check = _FITS[tp] = _compile(tp)
    return bool(check(value))


def _compile(tp: Any) -> Any:  # noqa: C901 — one branch per kind of type, as in `problems`
    if tp is Any or tp is object:
        return lambda v: True
    if tp is None or tp is type(None):
        return lambda v: v is None
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        arms = [_compile(arm) for arm in get_args(tp)]
        return lambda v: any(arm(v) for arm in arms)
    if origin is Literal:
        allowed = get_args(tp)
        return lambda v: v in allowed
    if origin is list:
        item = _compile(get_args(tp)[0])
        return lambda v: isinstance(v, list) and all(item(x) for x in v)
    if origin is dict:
        item = _compile(get_args(tp)[1])
        return lambda v: isinstance(v, dict) and all(item(x) for x in v.values())
    if _is_typeddict(tp):
        keys: list[tuple[str, bool, Any]] = []
        for key, hint in _hints(tp).items():
            optional = get_origin(hint) is NotRequired
            keys.append((key, optional or not getattr(tp, "__total__", True),
                         _lazy(get_args(hint)[0] if optional else hint)))
        names = {k for k, _, _ in keys}
        def typeddict(v: object) -> bool:
            if not isinstance(v, dict) or any(k not in names for k in v):
                return False
            for key, optional, check in keys:
                if key in v:
                    if not check(v[key]):
                        return False
                elif not optional:
                    return False
            return True
        return typeddict
    if tp is bool:
        return lambda v: isinstance(v, bool)
    if tp is int:
        return lambda v: isinstance(v, int) and not isinstance(v, bool)
    if tp is str:
        return lambda v: isinstance(v, str)
    raise AssertionError(f"the checker does not know {tp!r}")


def _lazy(tp: Any) -> Any:
    """A field's check, compiled on first use (a TypedDict may refer to itself)."""
    return lambda v: fits(v, tp)


def shape_problems(value: object, tp: Any, where: str) -> list[str]:
    """`problems`, worked out only when the compiled check says there are some."""
    return [] if fits(value, tp) else problems(value, tp, where)


def _games(n: int, players: int) -> typing.Iterator[tuple[Game, list[T.Event]]]:
    """`n` random games of `players`, yielding the game and each answer's events."""
    for seed in range(n):
        rng = random.Random(seed)
        events: list[T.Event] = []
        g = Game.new([f"P{i}" for i in range(players)], seed=seed, events=events)
        yield g, events
        for _ in range(3000):
            if g.over:
                break
            seat = rng.choice(g.waiting_for())
            legal = g.legal_actions(seat)
            action = rng.choice(legal) if legal and rng.random() > 0.03 else "timeout"
            yield g, g.apply(seat, action)


@pytest.mark.parametrize("players", [1, 2, 4])
def test_every_state_decision_event_and_view_has_its_documented_shape(players: int) -> None:
    """Whole random games: what the engine produces is exactly what engine/types.py (and so
    docs/state.md) promises interfaces — including the roll decision's `def` and `resume`
    (R8.2, R12.1) and the private `vis` events (R14.1)."""
    seen_events: set[str] = set()
    seen_decisions: set[str] = set()
    for g, events in _games(6, players):
        for e in events:
            seen_events.add(e["type"])
        found = shape_problems(events, list[T.Event], "events")
        assert not found, found[:5]
        for seat in g.waiting_for():
            dec = g.decision(seat)
            assert dec is not None
            seen_decisions.add(dec["kind"])
            assert g.decision_kind(seat) == dec["kind"] and g.decision_id(seat) == dec["id"]
        if g.over or len(g.state["log"]) % 7 == 0:
            found = (shape_problems(g.state, T.State, "state")
                     + shape_problems(g.view(0), T.View, "view")
                     + shape_problems(g.view(None), T.View, "spectator view"))
            assert not found, found[:5]
    # the games reached enough of the vocabulary for the check to mean something
    assert {"moved", "rolled", "damaged", "summoned", "game_over", "phase"} <= seen_events
    assert {"place", "pick", "actions"} <= seen_decisions


def test_the_checker_refuses_a_wrong_shape() -> None:
    """The shape check above would catch a drift: a missing key, an extra key, a wrong type
    or an unknown event kind."""
    good = {"type": "gold", "player": 0, "amount": 2, "total": 4}
    assert problems([good], list[T.Event], "e") == []
    assert problems([{**good, "total": "4"}], list[T.Event], "e")
    assert problems([{k: v for k, v in good.items() if k != "amount"}], list[T.Event], "e")
    assert problems([{**good, "colour": "red"}], list[T.Event], "e")
    assert problems([{"type": "teleported", "player": 0}], list[T.Event], "e")
    # the compiled check the whole games use judges every one of these the same way
    for value in ([good], [{**good, "total": "4"}], [{**good, "colour": "red"}],
                  [{k: v for k, v in good.items() if k != "amount"}],
                  [{"type": "teleported", "player": 0}]):
        assert fits(value, list[T.Event]) == (not problems(value, list[T.Event], "e"))
    g = Game.new(["Ann"], seed=1)
    state: dict[str, Any] = dict(g.state)
    assert fits(state, T.State) and not problems(state, T.State, "s")
    for wrong in ({**state, "colour": "red"}, {k: v for k, v in state.items() if k != "round"},
                  {**state, "round": "1"}):
        assert not fits(wrong, T.State) and problems(wrong, T.State, "s")


def test_accessors_follow_the_open_question() -> None:
    """`decision_kind` / `decision_id` say what a seat is asked and when the question
    changes (the stale-prompt check), and None once nothing is asked; `result` appears when
    the game ends."""
    g = Game.new(["Ann"], seed=3)
    assert g.decision_kind(0) == "place" and g.result is None
    first = g.decision_id(0)
    g.apply(0, g.legal_actions(0)[0])
    assert g.decision_id(0) != first
    over = [e for e in g.apply(0, "resign") if e["type"] == "game_over"]
    assert g.decision_kind(0) is None and g.decision_id(0) is None
    # solo, a resignation is the monsters' win (R9.3): `result` says so, as the event did
    assert g.result is not None and g.result["winners"] == [] == over[0]["winners"]
    assert g.result["reason"] == over[0]["reason"]


def test_setup_and_log_accessors_replay_the_game() -> None:
    """What the service stores through `setup` and `log` is the whole game: replaying them
    gives the same state (R15); `round` and `player` read the same game."""
    g = Game.new(["Ann", "Bo"], seed=5)
    rng = random.Random(5)
    for _ in range(40):
        if g.over:
            break
        seat = g.waiting_for()[0]
        g.apply(seat, rng.choice(g.legal_actions(seat)))
    again = Game.replay(g.setup, g.log)
    assert again.to_json() == g.to_json()
    assert again.round == g.round >= 1
    assert again.player(1)["name"] == "Bo" and again.player(0)["gold"] == g.player(0)["gold"]


def test_a_puzzle_naming_a_square_that_does_not_exist_is_refused_clearly() -> None:
    """A hand-written puzzle board with a bad square name is a clear ValueError (R2 names
    1A–6C), like any other bad file, not a crash deep in the engine."""
    bad = {"players": [{"name": "Ann", "board": {"7D": {"card": "goblin"}}}]}
    with pytest.raises(ValueError, match="'7D' is not a square"):
        Game.from_json(bad)
    with pytest.raises(IllegalAction):  # and a puzzle that is fine still loads and plays
        Game.from_json({"players": [{"name": "Ann", "board": {"5B": {"card": "goblin"}}}]}
                       ).reach(0, "9Z")
