"""The static evaluation `greedy` maximises: one number for how well a seat stands.

It looks one Invasion ahead (R9 is deterministic, so it is previewed exactly, by
ai/preview.py) and a second one at a discount, then values what is left: monsters still on
the board (closer, tougher, more threatening = worse), units kept (and their health),
castle invasions (a loss in solo, R13.1; elimination or threat in 2–4 players, R9.2, R14.2),
gold and honor marks (what recruits and boons are bought with, R7.1, R12).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from engine import CardSet, board
from engine.board import col

from .model import UnitFacts, View, board_key, dice_odds, facts, near, skill_masks, skill_table
from .preview import Outcome, invade_board

LOSS = -1000.0


@dataclass(frozen=True, slots=True)
class Weights:
    """The evaluation's knobs, in "points"; one gold is worth about one point."""

    monster: float = 8.0  # each monster still to defeat (R13.1: all must go)
    monster_hp: float = 3.0  # per HP a monster has left
    threat: float = 1.5  # per threat point on the board, in queues or the castle (R14.2)
    near: float = 0.4  # per column a monster has advanced toward the castle
    unit: float = 4.0  # each unit on the board
    unit_hp: float = 0.8  # per HP a unit has left
    ready: float = 0.6  # an un-acted unit (it can still act this round)
    hand: float = 0.3  # per gold of cost of a unit card in hand (it can be recruited again)
    faint: float = 3.0  # tempo lost when a unit faints (R9.1)
    gold: float = 1.0
    gold_cap: int = 8  # gold beyond this is worth a third
    mark: float = 1.5  # an honor mark (R12)
    blue_castle: float = 25.0  # 2–4 players: the first blue invasion (the second eliminates)
    later: float = 0.5  # weight of the second Invasion preview (a round to answer it first)
    potential: float = 1.2  # per expected damage a unit could deal next from where it stands
    command: float = 1.0  # share of the attack a Bard could command that counts as potential
    approach: float = 0.0  # per expected damage a unit could deal after more than one move
    # (`approach`); 0 outside a stalemate (ai/greedy.py `STALEMATE`)


W = Weights()
FINAL_WIN = 400.0


def rounds_left(st: View) -> int | None:
    """Solo option rule (R13.2): rounds after this one until the final round (0: this is
    the final round); None when there is no deadline. Before the unit deck has run out the
    final round is foreseen: each End phase reveals 3 mercenaries from it (R11.3)."""
    if len(st["players"]) != 1 or st["options"].get("difficulty") is None:
        return None
    final: int | None = st["final_round"]
    if final is not None:
        now: int = st["round"]
        return max(0, final - now)
    left: int = st.get("unit_deck_size", len(st.get("unit_deck", [])))
    return max(1, -(-left // 3))


def evaluate(cs: CardSet, st: View, seat: int, w: Weights = W) -> float:
    """How good `seat`'s position in (scratch) state `st` is; higher is better."""
    solo = len(st["players"]) == 1
    left = rounds_left(st)
    if left is not None:
        if left == 0 and st["phase"] in ("main", "auto"):
            return _final(cs, st, seat, w)
        if left <= 2:  # the deadline nears: damage now beats savings (R13.2)
            w = pressed(w, 3 - left)
    p = st["players"][seat]
    f = facts(cs)
    b = p["board"]
    castle = len(p["castle"])
    key = (board_key(b), castle, solo, w)
    ahead: Ahead | None = f.seen.get(key)
    if ahead is None:
        ahead = _ahead(cs, b, castle, solo, w)
        f.seen.put(key, ahead)
    if ahead[0]:  # the coming Invasion eliminates the seat
        return LOSS + _holdings(cs, p, w)
    _, penalty, later, moved, score, pot, app = ahead
    monsters = f.monsters
    for q in p["queues"].values():
        for x in q:
            m = monsters[x["card"]]
            score -= w.monster + w.monster_hp * m.hp + w.threat * m.threat
    if w.potential:
        score += pot
    if w.approach:
        score += app
    return penalty + w.later * later + score + _holdings(cs, p, w) + moved


Ahead = tuple[bool, float, float, float, float, float, float]


def _ahead(cs: CardSet, b: list[Any], castle: int, solo: bool, w: Weights) -> Ahead:
    """The part of the evaluation that depends on the board alone, in the order `evaluate`
    adds it up (so a remembered one gives the same sum to the last bit): whether the coming
    Invasion eliminates the seat; its penalty; the next one's; units sent back to the hand
    and invaders; the pieces left; their potential and approach terms."""
    o1 = invade_board(cs, b, castle, solo)
    if o1.eliminated:
        return (True, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    o2 = invade_board(cs, o1.board, castle + len(o1.invaded), solo)
    later = LOSS if o2.eliminated else _penalty(cs, o2, w)
    # fainted units go back to the hand (R9.1); a blue invader stays as threat (R14.2)
    moved = (w.hand * sum(cs.units[u["card"]].cost for u in o1.fainted)
             - w.threat * sum(cs.monsters[m["card"]].threat for m in o1.invaded))
    pot = w.potential * potential(cs, o1.board, command=w.command) if w.potential else 0.0
    app = w.approach * approach(cs, o1.board) if w.approach else 0.0
    return (False, _penalty(cs, o1, w), later, moved, _pieces(cs, o1.board, w), pot, app)


@lru_cache(maxsize=64)
def pressed(w: Weights, k: int) -> Weights:
    """The weights `k` rounds into the last three before a solo deadline (R13.2): monsters
    and damage weigh more, savings less. Cached: the evaluation asks this thousands of times
    a decision in those rounds."""
    return replace(w, monster_hp=w.monster_hp * (1 + k / 2), monster=w.monster * (1 + k / 2),
                   gold=w.gold * (1 - k / 5), mark=w.mark * (1 - k / 4),
                   potential=w.potential * (1 + k / 2))


def _final(cs: CardSet, st: View, seat: int, w: Weights) -> float:
    """The final round (R13.2): the game is lost at the end of this Main phase unless every
    monster is defeated by then, so only the damage still to deal counts; the Invasion
    never comes."""
    p = st["players"][seat]
    b = p["board"]
    monsters = facts(cs).monsters
    hp = count = 0
    for x in b:
        if x is not None and "owner" not in x:
            count += 1
            hp += monsters[x["card"]].hp - x["dmg"]
    for q in p["queues"].values():
        for x in q:
            count += 1
            hp += monsters[x["card"]].hp
    deck = st.get("monster_deck_size", len(st.get("monster_deck", [])))
    if count == 0 and deck == 0:
        return FINAL_WIN
    marks: int = p["honor"] + len(p["defeated"])
    gold: int = p["gold"]
    seen = facts(cs).seen
    key = (board_key(b), "final", w.command)
    pot: float | None = seen.get(key)
    if pot is None:
        pot = potential(cs, b, unacted_only=True, command=w.command)
        seen.put(key, pot)
    return -60.0 * count - 12.0 * hp + 4.0 * pot + 0.5 * marks + 0.2 * gold


def _penalty(cs: CardSet, o: Outcome, w: Weights) -> float:
    """What an Invasion that eliminates nobody costs: units knocked out, blue invaders."""
    return -(w.faint + w.unit + w.unit_hp) * len(o.fainted) - w.blue_castle * len(o.invaded)


def gold_value(gold: int, w: Weights = W) -> float:
    """What `gold` gold is worth: a point each up to `gold_cap`, a third beyond (recruits are
    limited by Recruit cards and home squares, not by gold, R7.1)."""
    return w.gold * min(gold, w.gold_cap) + w.gold / 3 * max(0, gold - w.gold_cap)


def _holdings(cs: CardSet, p: dict[str, Any], w: Weights) -> float:
    g = gold_value(p["gold"], w)
    marks: int = p["honor"] + len(p["defeated"])
    hand = w.hand * sum(cs.units[c["card"]].cost for c in p["hand"])
    medals: int = sum(p.get("medals", []))  # negative values lower threat (R14.2)
    castle = sum(cs.monsters[m["card"]].threat for m in p["castle"])
    return g + w.mark * marks + hand - w.threat * (medals + castle)


def _pieces(cs: CardSet, b: list[Any], w: Weights) -> float:
    """Units kept (their cost, health, readiness) less monsters left (toughness, threat,
    how near the castle they are)."""
    f = facts(cs)
    units, monsters = f.units, f.monsters
    score = 0.0
    for i, x in enumerate(b):
        if x is None:
            continue
        if "owner" in x:
            u = units[x["card"]]
            score += w.unit + u.cost + w.unit_hp * (u.hp - x["dmg"])
            if not x["acted"]:
                score += w.ready
        else:
            m = monsters[x["card"]]
            score -= (w.monster + w.monster_hp * (m.hp - x["dmg"]) + w.threat * m.threat
                      + w.near * (6 - col(i)))
    return score


def potential(cs: CardSet, b: list[Any], unacted_only: bool = False, command: float = 1.0
              ) -> float:
    """Expected damage the units could deal next, each from the best square it can reach:
    what makes moving toward the monsters worth an action. Paths are not traced (a square
    within MOV that is free counts), which is close enough for a valuation and fast.

    A Bard counts the best attack it could command (R8.2 Command: another unit uses its
    skill from where it stands, acted or not, at the cost of 1 damage): without it a Bard
    on the board would be worth no more than its HP, and greedy would never buy one.

    This is the evaluation's hottest loop (issue 19): a hit's value is worked out once per
    skill and set of monsters hit, then reused by every square and unit that hits the same."""
    mask = 0
    for j, x in enumerate(b):
        if x is not None and "owner" not in x:
            mask |= 1 << j
    if not mask:
        return 0.0
    units = facts(cs).units
    known: dict[str, dict[int, float]] = {}  # skill -> hit mask -> value, on this board
    total = 0.0
    here = 0.0  # the best attack a unit could make without moving (what a Bard commands)
    bards = 0
    for i, x in enumerate(b):
        if x is None or "owner" not in x:
            continue
        u = units[x["card"]]
        kind = u.kind
        if kind == "command":
            bards += not (unacted_only and x["acted"])
            continue
        if kind == "heal":
            continue
        values = known.get(u.skill_key)
        if values is None:
            values = known[u.skill_key] = {}
        masks = u.masks
        if u.hp - x["dmg"] > 1:  # a commanded unit that would faint does nothing (R8.2)
            hit = masks[i] & mask
            if hit:
                v = values.get(hit)
                if v is None:
                    v = values[hit] = _hit_value(cs, b, kind, u.skill, hit)
                if v > here:
                    here = v
        if not (unacted_only and x["acted"]):
            total += _best_reach(cs, b, u, i, mask, values)
    if bards and here > COMMAND_COST:
        total += command * bards * (here - COMMAND_COST)
    return total


def _best_reach(cs: CardSet, b: list[Any], u: UnitFacts, i: int, mask: int,
                values: dict[int, float]) -> float:
    """The best hit unit `u` on square `i` could make from a square it can reach (one
    within MOV that is free, or its own), each set of monsters hit valued once (`values`)."""
    best = 0.0
    masks = u.masks
    for pos in u.reach[i]:
        if pos != i and b[pos] is not None:
            continue
        hit = masks[pos] & mask
        if hit:
            v = values.get(hit)
            if v is None:
                v = values[hit] = _hit_value(cs, b, u.kind, u.skill, hit)
            if v > best:
                best = v
    return best


APPROACH_DECAY = 0.5  # each further move's worth of distance halves what a unit may deal


def approach(cs: CardSet, b: list[Any]) -> float:
    """What the units that can hit nothing from where they can reach now could deal once
    they have walked closer: each counts its best attack square, halved for every move
    beyond the first it needs to get there (orthogonal steps ÷ MOV, blockers ignored).

    `potential` sees one move ahead, so a unit two moves from any monster is worth the same
    wherever it stands; in a stalemate (a monster sitting out of every unit's one-move reach
    while a healer keeps its victim alive) that flat ground is why nobody ever walks over.
    This term gives the walk a slope; it is weighed only there (`Weights.approach`)."""
    mask = 0
    for j, x in enumerate(b):
        if x is not None and "owner" not in x:
            mask |= 1 << j
    if not mask:
        return 0.0
    total = 0.0
    for i, x in enumerate(b):
        if x is None or "owner" not in x:
            continue
        u = cs.units[x["card"]]
        kind = u.skill.kind
        if kind in ("heal", "command"):
            continue
        table = skill_masks(cs, x["card"])
        if any(table[pos] & mask for pos in near(i, u.mov) if pos == i or b[pos] is None):
            continue  # it can strike next action: `potential` counts it
        best = 0.0
        for pos in range(board.SIZE):
            hit = table[pos] & mask
            if not hit or (b[pos] is not None and pos != i) or board.is_magic_circle(pos):
                continue
            steps = abs(col(pos) - col(i)) + abs(board.lane(pos) - board.lane(i))
            moves = -(-steps // max(u.mov, 1))
            best = max(best, _hit_value(cs, b, kind, u.skill, hit) * APPROACH_DECAY ** (moves - 1))
        total += best
    return total


COMMAND_COST = 0.5  # the commanded unit's 1 damage, in expected damage dealt (unit_hp ÷ potential)


def _hit_value(cs: CardSet, b: list[Any], kind: str, skill: Any, hit: int) -> float:
    """The expected damage of one skill use on the monsters of bit mask `hit` (R8.2)."""
    if not hit:
        return 0.0
    if kind == "area":
        return float(hit.bit_count())
    monsters = facts(cs).monsters
    if kind == "allocated":
        left = 0
        while hit:
            low = hit & -hit
            x = b[low.bit_length() - 1]
            left += monsters[x["card"]].hp - x["dmg"]
            hit ^= low
        return float(min(skill.n, left))
    best = -1.0
    while hit:  # ascending squares, as a scan would
        low = hit & -hit
        x = b[low.bit_length() - 1]
        m = monsters[x["card"]]
        v = expected_damage(skill.mod, m.defense, m.hp - x["dmg"])
        if v > best:
            best = v
        hit ^= low
    return best


def healing(cs: CardSet, b: list[Any], hurt: list[int]) -> float:
    """The `hurt` cubes (per square) the healers on `b` could remove with their next
    action, each from the best square it can reach (R8.2 Heal ×N); at most N per healer,
    and two healers are not checked for healing the same cubes."""
    total = 0.0
    for i, x in enumerate(b):
        if x is None or "owner" not in x:
            continue
        u = cs.units[x["card"]]
        if u.skill.kind != "heal":
            continue
        table = skill_table(cs, x["card"])
        best = 0
        for pos in near(i, u.mov):
            if pos != i and b[pos] is not None:
                continue
            # the healer moved to pos: its own wounds travel with it
            cubes = sum(hurt[i] if j == pos else 0 if j == i else hurt[j] for j in table[pos])
            best = max(best, cubes)
        total += min(u.skill.n, best)
    return total


@lru_cache(maxsize=1024)
def expected_damage(mod: int, defense: int, left: int) -> float:
    """Mean damage of a dice attack on a monster with `left` HP (R8.2)."""
    return sum(min(d, left) * p for d, p in enumerate(dice_odds(mod, defense)))
