"""Unit actions and skills (R8), damage, fainting (R9.1), Level Up and Willpower (R12).

Every `check_*` function validates against a scratch copy of the board and raises
IllegalAction with a player-readable reason; only then does the matching `do_*` mutate.
That split is what keeps an illegal action from ever touching the state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement
from typing import Any, TypedDict

from . import board, rng
from .cards import CardSet, UnitCard
from .errors import IllegalAction, excerpt
from .messages import ENGLISH, Items, Name, Phrase, phrase
from .notation import Action, SkillUse
from .state import (
    ActionsDecision,
    Board,
    Card,
    Event,
    Piece,
    Roll,
    RollDecision,
    RollResult,
    State,
    close_decision,
    is_monster,
    is_unit,
    levelup_price,
    marks,
    occupant,
    open_decision,
    spend_marks,
    sq,
)
from .types import DamagedEvent


def _name(cs: CardSet, piece: Piece) -> Name:
    """A piece's card name in both languages, for a refusal's parameters."""
    return Name(cs.name(piece["card"]), cs.name(piece["card"], "ja"))


def _unit(card: UnitCard) -> Name:
    return Name(card.en, card.ja)


def _at(cs: CardSet, b: Board, i: int) -> Phrase:
    piece = b[i]
    return (phrase("stands_on", card=_name(cs, piece), square=sq(i)) if piece
            else phrase("empty", square=sq(i)))


def skill_squares(cs: CardSet, b: Board, i: int) -> list[int]:
    """Squares the unit on `i` reaches with its skill (gap squares excluded, R8.2)."""
    skill = cs.units[occupant(b, i)["card"]].skill
    if skill.range_any:
        return list(range(board.SIZE))
    out = [board.unit_offset(i, off) for off in skill.range]
    return [j for j in out if j is not None]


def _blocked(b: Board, i: int, j: int) -> bool:
    """A non-long dice attack cannot reach past a piece on a straight line (R8.2, p.13)."""
    ci, li, cj, lj = board.col(i), board.lane(i), board.col(j), board.lane(j)
    if li == lj and abs(cj - ci) > 1:
        step = 1 if cj > ci else -1
        return any(b[board.on(c, li)] is not None for c in range(ci + step, cj, step))
    if ci == cj and abs(lj - li) > 1:
        return b[board.on(ci, 1)] is not None
    return False


@dataclass(slots=True)
class Plan:
    """A validated unit action: what to do, computed before anything is changed."""

    unit: int
    dest: int
    path: list[int]
    fullmove: bool
    skill: SkillUse | None


def _targets(use: SkillUse) -> list[int]:
    return [board.index(t) for t in use.targets]  # type: ignore[misc]


_SKILL_WORD = {"dice": "attack", "allocated": "attack", "area": "area", "heal": "heal",
               "command": "command"}  # a card's skill kind → the word that uses it (R8.2)
_SKILL_HINT = {"attack": "attack SQUARE", "area": "area", "heal": "heal SQUARE[,SQUARE]",
               "command": "command SQUARE [SKILL]"}


def check_skill(cs: CardSet, b: Board, pos: int, use: SkillUse, depth: int = 0) -> None:
    """Validate `use` as the skill of the unit on `pos` of scratch board `b` (R8.2)."""
    card = cs.units[occupant(b, pos)["card"]]
    want = _SKILL_WORD[card.skill.kind]
    if use.kind != want:
        raise IllegalAction("skill_word", card=_unit(card), square=sq(pos),
                            hint=_SKILL_HINT[want], used=use.kind)
    _SKILL_CHECKS[card.skill.kind](cs, b, pos, use, depth)


def _check_area(cs: CardSet, b: Board, pos: int, use: SkillUse, depth: int) -> None:
    if not any(is_monster(b[j]) for j in skill_squares(cs, b, pos)):
        card = cs.units[occupant(b, pos)["card"]]
        raise IllegalAction("no_monster_in_range", card=_unit(card), square=sq(pos))


def _check_dice(cs: CardSet, b: Board, pos: int, use: SkillUse, depth: int) -> None:
    card = cs.units[occupant(b, pos)["card"]]
    tg = _targets(use)
    if len(tg) != 1:
        raise IllegalAction("attacks_one", card=_unit(card))
    j = tg[0]
    if j not in skill_squares(cs, b, pos):
        gap = any(board.unit_offset(pos, g) == j for g in card.skill.gaps)
        raise IllegalAction("out_of_range", target=sq(j), card=_unit(card), square=sq(pos),
                            gap=phrase("gap") if gap else "")
    if not is_monster(b[j]):
        raise IllegalAction("no_monster_to_attack", at=_at(cs, b, j))
    if not card.skill.long and _blocked(b, pos, j):
        raise IllegalAction("blocked_front", card=_unit(card), square=sq(pos))


def _hp_left(cs: CardSet, m: Piece) -> int:
    """A monster's HP left (R8.2)."""
    return cs.monsters[m["card"]].hp - m["dmg"]


def _check_allocated(cs: CardSet, b: Board, pos: int, use: SkillUse, depth: int) -> None:
    card = cs.units[occupant(b, pos)["card"]]
    reach = skill_squares(cs, b, pos)
    left: dict[int, int] = {}
    for j in _targets(use):
        m = b[j]
        if j not in reach or not is_monster(m):
            raise IllegalAction("no_monster_at", target=sq(j), card=_unit(card), square=sq(pos))
        left[j] = left.get(j, _hp_left(cs, m)) - 1
        if left[j] < 0:
            raise IllegalAction("defeated_before", card=_name(cs, m), target=sq(j))
    need = min(card.skill.n, sum(_hp_left(cs, m) for m in _monsters(b, reach)))
    if need == 0:
        raise IllegalAction("no_monster_in_range", card=_unit(card), square=sq(pos))
    if len(use.targets) != need:
        raise IllegalAction("allocate", card=_unit(card), n=card.skill.n, need=need)


def _check_heal(cs: CardSet, b: Board, pos: int, use: SkillUse, depth: int) -> None:
    card = cs.units[occupant(b, pos)["card"]]
    tg = _targets(use)
    if not 1 <= len(tg) <= card.skill.n:
        raise IllegalAction("heal_count", card=_unit(card), n=card.skill.n)
    reach = skill_squares(cs, b, pos)
    for j in set(tg):
        u = b[j]
        if j not in reach or not is_unit(u):
            raise IllegalAction("heal_none", target=sq(j), card=_unit(card))
        if tg.count(j) > u["dmg"]:
            raise IllegalAction("heal_too_much", card=_name(cs, u), target=sq(j), n=u["dmg"])


def _check_command(cs: CardSet, b: Board, pos: int, use: SkillUse, depth: int) -> None:
    """The Bard (p.14): another friendly unit anywhere; 1 damage first."""
    card = cs.units[occupant(b, pos)["card"]]
    j = _targets(use)[0]
    target = b[j]
    if j == pos or not is_unit(target):
        raise IllegalAction("command_other", card=_unit(card), at=_at(cs, b, j))
    if use.sub is None:
        return
    if target["dmg"] + 1 >= cs.units[target["card"]].hp:
        raise IllegalAction("command_faints", card=_name(cs, target), target=sq(j))
    if depth > board.SIZE:
        raise IllegalAction("nested")
    check_skill(cs, _commanded(b, j, target), j, use.sub, depth + 1)


def _commanded(b: Board, j: int, target: Piece) -> Board:
    """A scratch board where the unit on `j` took the command's 1 damage."""
    scratch = list(b)
    scratch[j] = {**target, "dmg": target["dmg"] + 1}
    return scratch


def _monsters(b: Board, squares: Iterable[int]) -> list[Piece]:
    return [m for m in (b[j] for j in squares) if is_monster(m)]


_SkillCheck = Callable[[CardSet, Board, int, SkillUse, int], None]
_SKILL_CHECKS: dict[str, _SkillCheck] = {
    "area": _check_area, "dice": _check_dice, "allocated": _check_allocated,
    "heal": _check_heal, "command": _check_command}


def check_act(cs: CardSet, st: State, seat: int, a: Action) -> Plan:
    """R8: an un-acted unit of yours, optional move (R8.1), optional skill from there."""
    p = st["players"][seat]
    b: Board = p["board"]
    i = board.index(a.square or "")
    unit = b[i] if i is not None else None
    if i is None or unit is None:
        raise IllegalAction("no_unit_at", text=excerpt(a.square or ""), yours=_ready(cs, b))
    if not is_unit(unit):
        raise IllegalAction("not_your_unit", square=sq(i), card=_name(cs, unit))
    card = cs.units[unit["card"]]
    if unit["acted"]:
        raise IllegalAction("acted", card=_unit(card), square=sq(i))
    if a.fullmove and marks(p) < 1:
        raise IllegalAction("fullmove_mark")
    dest, path = i, []
    if a.to is not None:
        dest = board.index(a.to)  # type: ignore[assignment]
        mov = card.mov + (1 if a.fullmove else 0)
        moves = board.unit_moves(b, i, mov)
        if dest not in moves:
            raise IllegalAction("unreachable", card=_unit(card), square=sq(i), target=sq(dest),
                                why=_why_unreachable(cs, b, i, dest, mov))
        path = moves[dest]
    if a.skill is None and a.to is None:
        raise IllegalAction("does_nothing")
    if a.skill is not None:
        scratch = list(b)
        scratch[i], scratch[dest] = None, unit
        check_skill(cs, scratch, dest, a.skill)
    return Plan(i, dest, path, a.fullmove, a.skill)


def _ready(cs: CardSet, b: Board) -> Items | Phrase:
    """The units that may act, where they stand: what a refusal of an empty square offers
    instead, so a newcomer need not open the board to find their own units."""
    ready = tuple(phrase("unit_on", card=_name(cs, u), square=sq(j)) for j, u in enumerate(b)
                  if u is not None and is_unit(u) and not u["acted"])
    return Items(ready) if ready else phrase("have.nothing")


def _why_unreachable(cs: CardSet, b: Board, i: int, dest: int, mov: int) -> Phrase:
    if board.is_magic_circle(dest):
        return phrase("why.circle")
    if dest == i:
        return phrase("why.there")
    if b[dest] is not None:
        return _at(cs, b, dest)
    # Would it be reachable without monsters? Then name the monster in the way.
    unblocked = board.unit_moves([None if is_monster(x) else x for x in b], i, mov)
    if dest in unblocked:
        for step in unblocked[dest]:
            if is_monster(b[step]):
                return _at(cs, b, step)
        return phrase("why.monsters")
    return phrase("why.mov" if mov > 1 else "why.mov_one", n=mov)


# ---- execution ------------------------------------------------------------------------------

def do_act(cs: CardSet, st: State, seat: int, plan: Plan, ev: list[Event]) -> None:
    p = st["players"][seat]
    b: Board = p["board"]
    unit = occupant(b, plan.unit)
    if plan.fullmove:
        spend_marks(st, p, 1)
        ev.append({"type": "fullmove", "player": seat, "square": sq(plan.unit)})
    if plan.dest != plan.unit:
        b[plan.unit], b[plan.dest] = None, unit
        ev.append({"type": "moved", "player": seat, "unit": unit["id"], "card": unit["card"],
                   "path": [sq(plan.unit)] + [sq(s) for s in plan.path]})
    unit["acted"] = True  # R8.3: acted even if it only moved
    if plan.skill is not None:
        use_skill(cs, st, seat, plan.dest, plan.skill, ev)


def use_skill(cs: CardSet, st: State, seat: int, pos: int, use: SkillUse, ev: list[Event]) -> None:
    b: Board = st["players"][seat]["board"]
    user = occupant(b, pos)
    skill = cs.units[user["card"]].skill
    if skill.kind == "area":
        hit = [j for j in skill_squares(cs, b, pos) if is_monster(b[j])]
        ev.append({"type": "area", "player": seat, "from": sq(pos), "squares": [sq(j) for j in hit]})
        for j in hit:
            damage_monster(cs, st, seat, j, 1, ev)
    elif skill.kind == "allocated":
        for j in _targets(use):  # each hit names its attacker: the story tells who shot
            damage_monster(cs, st, seat, j, 1, ev, by=(user["card"], sq(pos)))
    elif skill.kind == "heal":
        for j in _targets(use):
            u = occupant(b, j)
            u["dmg"] -= 1
            hp = cs.units[u["card"]].hp
            ev.append({"type": "healed", "player": seat, "square": sq(j), "amount": 1,
                       "card": u["card"], "hp": hp, "hp_left": hp - u["dmg"],
                       "by": user["card"], "from": sq(pos)})
    elif skill.kind == "dice":
        roll_attack(cs, st, seat, pos, _targets(use)[0], ev)
    else:  # command
        j = _targets(use)[0]
        ev.append({"type": "command", "player": seat, "from": sq(pos), "target": sq(j)})
        if damage_unit(cs, st, seat, j, 1, ev, enemy_phase=False) and use.sub is not None:
            use_skill(cs, st, seat, j, use.sub, ev)


def damage_monster(cs: CardSet, st: State, seat: int, j: int, n: int, ev: list[Event],
                   by: tuple[str, str] | None = None) -> None:
    """Cubes on a monster; at HP it is defeated and kept as an honor mark (R8.2, R14.1).
    `by` (card, square) names the attacker where no other event does (an allocated attack)."""
    p = st["players"][seat]
    m = p["board"][j]
    if n <= 0:
        return
    assert m is not None  # callers pass a validated target square
    m["dmg"] += n
    mc = cs.monsters[m["card"]]
    hit: DamagedEvent = {"type": "damaged", "player": seat, "square": sq(j), "card": m["card"],
                         "amount": n, "hp": mc.hp, "hp_left": max(0, mc.hp - m["dmg"])}
    if by is not None:
        hit["by"], hit["from"] = by
    ev.append(hit)
    if m["dmg"] >= mc.hp:
        p["board"][j] = None
        p["defeated"].append({"id": m["id"], "card": m["card"]})
        ev.append({"type": "defeated", "player": seat, "square": sq(j), "card": m["card"]})
        if mc.red and len(st["players"]) > 1 and st["medal_pool"]:
            k = rng.randbelow(st["rng"], "medals", len(st["medal_pool"]))
            value = st["medal_pool"].pop(k)
            p["medals"].append(value)
            ev.append({"type": "medal", "player": seat})
            ev.append({"type": "medal_value", "player": seat, "value": value, "vis": [seat]})


def damage_unit(cs: CardSet, st: State, seat: int, j: int, n: int, ev: list[Event],
                enemy_phase: bool) -> bool:
    """Cubes on a unit; returns False when it fainted (R9.1). In the Enemy phase a standing
    order may level a ★ unit up to save it (R12.1)."""
    p = st["players"][seat]
    u = p["board"][j]
    assert u is not None  # callers pass a validated target square
    u["dmg"] += n
    hp = cs.units[u["card"]].hp
    ev.append({"type": "damaged", "player": seat, "square": sq(j), "card": u["card"], "amount": n,
               "hp": hp, "hp_left": max(0, hp - u["dmg"])})
    if u["dmg"] < hp:
        return True
    if enemy_phase and p["autosave"] and levelup_problem(cs, st, seat, j) is None:
        new = cs.units[cs.levelup_of(cs.units[u["card"]].job)]  # type: ignore[arg-type]
        if u["dmg"] < new.hp:
            do_levelup(cs, st, seat, j, ev, reason="standing order")
            return True
    p["board"][j] = None
    p["hand"].append({"id": u["id"], "card": u["card"]})
    ev.append({"type": "fainted", "player": seat, "square": sq(j), "card": u["card"]})
    return False


# ---- dice and the roll decision (R8.2, R12.1, R12.3) -------------------------------------------

def roll_attack(cs: CardSet, st: State, seat: int, pos: int, target: int, ev: list[Event],
                resume: ActionsDecision | None = None) -> None:
    dice = rng.roll2d6(st["rng"], f"dice{seat}")
    roll: Roll = {"unit": sq(pos), "target": sq(target), "dice": dice, "rerolled": False}
    _settle_roll(cs, st, seat, roll, ev, resume)


def roll_outcome(cs: CardSet, st: State, seat: int, roll: Roll) -> tuple[int, RollResult, int]:
    """(total, result, damage) for a roll as things stand now (modifier may have changed)."""
    b: Board = st["players"][seat]["board"]
    mod = cs.units[_card_on(b, roll["unit"])].skill.mod
    monster = cs.monsters[_card_on(b, roll["target"])]
    a, c = roll["dice"]
    total = a + c + mod
    if a == c == 6:
        return total, "critical", 3
    if a == c == 1:
        return total, "fumble", 0
    return (total, "hit", 2) if total >= monster.defense else (total, "miss", 1)


def roll_options(cs: CardSet, st: State, seat: int, roll: Roll) -> tuple[bool, bool]:
    """Which boons could still raise the damage this roll deals: (Willpower, Level Up).

    The original lets a player reroll any result it dislikes (p.25) and level up at any time
    (p.24); the engine asks only when a boon could actually deal more effective damage
    (damage capped by the monster's HP left), so a sure result never stalls the game. By
    default (the player's `rolls` standing order, "miss") it asks only after a roll that
    missed (a miss or a fumble, R12.1 [decision]): otherwise nearly every hit would stop
    the game to ask, since a critical could still do better; "always" asks whenever a boon
    could raise the damage.
    """
    p = st["players"][seat]
    b: Board = p["board"]
    _, result, dmg = roll_outcome(cs, st, seat, roll)
    if result not in ("miss", "fumble") and p.get("rolls", "miss") != "always":
        return False, False
    m = occupant(b, board.square(roll["target"]))
    hp_left = _hp_left(cs, m)
    now = min(dmg, hp_left)
    can_reroll = not roll["rerolled"] and marks(p) >= 1 and now < min(3, hp_left)
    pos = board.square(roll["unit"])
    can_lv = False
    if result in ("miss", "hit") and levelup_problem(cs, st, seat, pos) is None:
        card = cs.units[occupant(b, pos)["card"]]
        new = cs.units[cs.levelup_of(card.job)]  # type: ignore[arg-type]
        total = sum(roll["dice"]) + new.skill.mod
        better = 2 if total >= cs.monsters[m["card"]].defense else 1
        can_lv = min(better, hp_left) > now
    return can_reroll, can_lv


class _Roller(TypedDict):
    attacker: str
    mod: int


def _roller(cs: CardSet, b: Board, roll: Roll) -> _Roller:
    """Who rolled and the modifier added (R8.2), so a story can say "4+3+1 = 8" and name
    the attacker without reading the board."""
    card = _card_on(b, roll["unit"])
    return {"attacker": card, "mod": cs.units[card].skill.mod}


def _card_on(b: Board, square: str) -> str:
    """The card key on a square the engine itself named (a roll's unit or target): a roll
    names occupied squares until it is resolved."""
    return occupant(b, board.square(square))["card"]


def _settle_roll(cs: CardSet, st: State, seat: int, roll: Roll, ev: list[Event],
                 resume: ActionsDecision | None) -> None:
    total, result, dmg = roll_outcome(cs, st, seat, roll)
    b: Board = st["players"][seat]["board"]
    tcard = _card_on(b, roll["target"])
    who = _roller(cs, b, roll)
    ev.append({"type": "rolled", "player": seat, "from": roll["unit"], "target": roll["target"],
               "card": tcard, "dice": list(roll["dice"]), "total": total, "result": result,
               "def": cs.monsters[tcard].defense, "rerolled": roll["rerolled"],
               "attacker": who["attacker"], "mod": who["mod"]})
    can_reroll, can_lv = roll_options(cs, st, seat, roll)
    if can_reroll or can_lv:
        if resume is None:
            now = st["decisions"].get(str(seat))
            resume = now if now is not None and now["kind"] == "actions" else None
        # `def` too, as docs/state.md lists it, so a prompt can say "8 vs DEF 9" (R8.2)
        open_decision(st, seat, "roll", **roll, total=total, result=result,
                      **{"def": cs.monsters[tcard].defense},
                      can_reroll=can_reroll, can_levelup=can_lv, resume=resume)
        return
    resolve_roll(cs, st, seat, roll, dmg, ev, resume)


def resolve_roll(cs: CardSet, st: State, seat: int, roll: Roll, dmg: int,
                 ev: list[Event], resume: ActionsDecision | None) -> None:
    damage_monster(cs, st, seat, board.square(roll["target"]), dmg, ev)
    now = st["decisions"].get(str(seat))
    if now is not None and now["kind"] == "roll":
        close_decision(st, seat)
    if resume is not None:
        st["decisions"][str(seat)] = resume
        continue_actions(st, seat, resume)


def continue_actions(st: State, seat: int, dec: ActionsDecision) -> None:
    """After a unit action: the decision stays open while actions and un-acted units remain."""
    b: Board = st["players"][seat]["board"]
    if dec["left"] <= 0 or not any(is_unit(u) and not u["acted"] for u in b):
        close_decision(st, seat)
    else:
        dec["id"] = st["next_id"]
        st["next_id"] += 1


def reroll(cs: CardSet, st: State, seat: int, dec: RollDecision, ev: list[Event]) -> None:
    """Willpower (R12.3): 1 mark, new dice; the new result stands."""
    spend_marks(st, st["players"][seat], 1)
    roll = roll_of(dec)
    roll["dice"] = rng.roll2d6(st["rng"], f"dice{seat}")
    roll["rerolled"] = True
    ev.append({"type": "willpower", "player": seat})
    _settle_roll(cs, st, seat, roll, ev, dec["resume"])


def roll_of(dec: RollDecision) -> Roll:
    """The roll a roll decision is about, apart from the question asked about it."""
    return {"unit": dec["unit"], "target": dec["target"], "dice": dec["dice"],
            "rerolled": dec["rerolled"]}


def reconsider_roll(cs: CardSet, st: State, seat: int, dec: RollDecision, ev: list[Event]) -> None:
    """After a Level Up at a roll decision: keep asking only if a boon could still matter."""
    roll = roll_of(dec)
    total, result, dmg = roll_outcome(cs, st, seat, roll)
    can_reroll, can_lv = roll_options(cs, st, seat, roll)
    if can_reroll or can_lv:
        dec.update({"total": total, "result": result, "can_reroll": can_reroll,
                    "can_levelup": can_lv})
        return
    who = _roller(cs, st["players"][seat]["board"], roll)
    ev.append({"type": "rolled", "player": seat, "from": roll["unit"], "target": roll["target"],
               "card": _card_on(st["players"][seat]["board"], roll["target"]),
               "dice": list(roll["dice"]), "total": total, "result": result,
               "def": dec["def"], "rerolled": roll["rerolled"],
               "attacker": who["attacker"], "mod": who["mod"]})
    resolve_roll(cs, st, seat, roll, dmg, ev, dec["resume"])


# ---- Level Up (R12.2) -----------------------------------------------------------------------

def levelup_problem(cs: CardSet, st: State, seat: int,
                    i: int | None) -> tuple[str, dict[str, Any]] | None:
    """Why the unit on `i` cannot level up now (a refusal code and its parameters: cheap,
    since legal_actions asks about every unit), or None when it can."""
    p = st["players"][seat]
    b: Board = p["board"]
    u = b[i] if i is not None else None
    if i is None or not is_unit(u):
        return "no_unit", {"square": sq(i) if i is not None else "that square"}
    card = cs.units[u["card"]]
    if not card.star or card.job is None:
        return "not_star", {"card": _unit(card), "square": sq(i)}
    if not st["levelup_piles"].get(card.job):
        job = f"job.{card.job}"
        return "pile_empty", {"job": phrase(job) if job in ENGLISH else card.job}
    price = levelup_price(p)
    if marks(p) < price:
        return "levelup_cost", {"price": price, "marks": marks(p)}
    return None


def do_levelup(cs: CardSet, st: State, seat: int, i: int, ev: list[Event], reason: str = "") -> None:
    p = st["players"][seat]
    unit = p["board"][i]
    job = cs.units[unit["card"]].job if unit is not None else None
    assert unit is not None and job is not None  # levelup_problem checked: a ★ unit
    old: Card = {"id": unit["id"], "card": unit["card"]}
    new = st["levelup_piles"][job].pop(0)
    price = levelup_price(p)
    spend_marks(st, p, price)
    p["levelups"] += 1
    st["discard"].append(old)
    unit["id"], unit["card"] = new["id"], new["card"]  # square, cubes, marker carry over
    ev.append({"type": "levelup", "player": seat, "square": sq(i), "from": old["card"],
               "card": new["card"], "price": price, "reason": reason})


def reach(cs: CardSet, st: State, seat: int, i: int) -> tuple[list[str], list[str]]:
    """For a help overlay: where the unit on `i` can move, and its skill range from here."""
    b: Board = st["players"][seat]["board"]
    u = b[i]
    if not is_unit(u):
        raise IllegalAction("no_unit", square=sq(i))
    mov = cs.units[u["card"]].mov
    return ([sq(j) for j in sorted(board.unit_moves(b, i, mov))],
            [sq(j) for j in skill_squares(cs, b, i)])


def skill_options(cs: CardSet, b: Board, pos: int, depth: int = 0) -> list[SkillUse]:
    """Every valid use of the skill of the unit on `pos` (commands nested one level)."""
    kind = cs.units[occupant(b, pos)["card"]].skill.kind
    return _SKILL_OPTIONS[kind](cs, b, pos, depth)


def _area_options(cs: CardSet, b: Board, pos: int, depth: int) -> list[SkillUse]:
    return [SkillUse("area")] if _monsters(b, skill_squares(cs, b, pos)) else []


def _dice_options(cs: CardSet, b: Board, pos: int, depth: int) -> list[SkillUse]:
    out = []
    for j in skill_squares(cs, b, pos):
        use = SkillUse("attack", (sq(j),))
        try:
            if is_monster(b[j]):
                check_skill(cs, b, pos, use)
                out.append(use)
        except IllegalAction:
            continue
    return out


def _allocated_options(cs: CardSet, b: Board, pos: int, depth: int) -> list[SkillUse]:
    pts = [j for j in skill_squares(cs, b, pos) if is_monster(b[j])
           for _ in range(_hp_left(cs, occupant(b, j)))]
    need = min(cs.units[occupant(b, pos)["card"]].skill.n, len(pts))
    combos = sorted(set(combinations(pts, need))) if need else []
    return [SkillUse("attack", tuple(sq(j) for j in c)) for c in combos]


def _heal_options(cs: CardSet, b: Board, pos: int, depth: int) -> list[SkillUse]:
    dmg = {j: u["dmg"] for j in skill_squares(cs, b, pos)
           if is_unit(u := b[j]) and u["dmg"] > 0}
    return [SkillUse("heal", tuple(sq(j) for j in c))
            for n in range(1, cs.units[occupant(b, pos)["card"]].skill.n + 1)
            for c in combinations_with_replacement(dmg, n)
            if all(c.count(j) <= dmg[j] for j in set(c))]


def _command_options(cs: CardSet, b: Board, pos: int, depth: int) -> list[SkillUse]:
    out = []
    for j, t in enumerate(b):
        if j == pos or not is_unit(t):
            continue
        out.append(SkillUse("command", (sq(j),)))
        if depth == 0 and t["dmg"] + 1 < cs.units[t["card"]].hp:
            out += [SkillUse("command", (sq(j),), sub)
                    for sub in skill_options(cs, _commanded(b, j, t), j, depth + 1)]
    return out


_SKILL_OPTIONS: dict[str, Callable[[CardSet, Board, int, int], list[SkillUse]]] = {
    "area": _area_options, "dice": _dice_options, "allocated": _allocated_options,
    "heal": _heal_options, "command": _command_options}
