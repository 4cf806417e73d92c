"""Hints (issue 23): the expert's answer to a seat's pending decision, why, and what it does
to the seat's chance to win.

Everything is computed from the seat's own view (engine.view), exactly as an AI player
sees the game, so a hint never leaks what the player could not see. The suggestion IS the
expert's choice (ai/expert.py) for the same seed, so a hint and an expert seat agree —
but for an answer paying honor marks that shows no gain (`keeping_marks`). The
reason is facts, not words — the unit and square acting, the monster it hits, the damage
expected (the dice weighed over their 36 outcomes, R8.2), whether that monster would reach
the castle in the coming Invasion (R9), how many of the seat's units the answer keeps from
fainting — and the interfaces word them in i18n (`hint.*`).

The chances to win are the share of sampled games won (hidden parts guessed by
ai/determinize.py, everyone played on by greedy; a game still running at the horizon is
scored by the static evaluation, made a chance by ai/chance.py's fit to how games end).
"Now" is the chance with the obvious answer, greedy's; "after" the chance with the
suggestion. Where the expert searches
(command cards, placement, recruits, the last rounds), both come from the very rollouts its
choice was made on (`ExpertPlayer.weighing`: the same samples and dice for every
candidate), so a hint never says its own move lowers the chance: with separate play-outs
of three samples, a third of the hints on searched decisions did (bench/hints.py;
tests/test_hints.py holds it).
Elsewhere the suggestion IS greedy's answer, so "now" and "after" are one figure, played
out `samples` times — except an answer paying honor marks (a Level Up, a reroll, a Full
Move) that does no better than greedy's best answer keeping them (`_keep_marks`).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from engine import Action, CardSet, Game, board, parse
from engine.state import levelup_price

from .chance import Chance
from .determinize import determinize
from .evaluate import evaluate
from .expert import ExpertPlayer, Weighing, spends_marks
from .greedy import GreedyPlayer, legal_actions
from .model import View, cards_of
from .preview import invade_board

HORIZON = 2  # rounds each sampled game is played on; a game still running is scored by
# the static evaluation, made a chance to win (ai/chance.py)
ROLLOUT_STEPS = 600  # a bound on the answers per sampled game, whatever the horizon


@dataclass(frozen=True, slots=True)
class Reason:
    """Why the suggestion: the engine's facts, as parameters for an i18n sentence.

    `verb` is the action's verb (docs/notation.md). For a unit action: `unit` (card key) on
    `square`; `monster` (card key) on `target` when its skill hits one, with `damage`
    expected; `hits`: how many monsters it may damage (an area attack, a split, a command:
    then `damage` is their total and no one monster is named); `castle`: that monster would
    enter the castle in the coming Invasion (R9) if nothing were done, and `stops` the
    chance that after this answer it does not; `saved`: how many more of the seat's units
    are still on the board after that Invasion than if nothing were done (a unit the answer
    itself makes faint counts as lost). For a pick,
    place or recruit: `card` (the command card's or unit's key) and `square`."""

    verb: str
    card: str | None = None  # (`to`: the square a unit action moves to first)
    unit: str | None = None
    square: str | None = None
    to: str | None = None  # where the unit moves first, if it moves
    monster: str | None = None
    target: str | None = None
    damage: float = 0.0
    hits: int = 0
    castle: bool = False
    stops: float = 0.0
    saved: int = 0
    price: int = 0  # honor marks a Level Up costs (R12.2)


@dataclass(frozen=True, slots=True)
class Advice:
    """A hint: the action to type, why, and the estimated chance to win (0–1) with the most
    obvious answer (greedy's) and with this one; `players` puts the figure in proportion (a
    third is an even share at three players)."""

    action: str
    reason: Reason
    p_before: float
    p_after: float
    players: int = 1


# Sampled games behind a figure where the expert does not search: as many as its search
# takes (ExpertPlayer.samples). With 3 the same position read 62–96 % across hint seeds (the
# second learning audit); with 8 the spread halves, for about 0.1 s more CPU.
SAMPLES = 8


def advise(view: View, seat: int, seed: int, samples: int = SAMPLES,
           budget: float = 1.0) -> Advice:
    """The expert's suggestion for `seat`'s pending decision in `view` (its own view), with
    its reason and chances. Deterministic for a seed (unless `budget`, the expert's
    wall-clock cap, strikes on an overloaded machine); ValueError when the seat has nothing
    to decide."""
    weighing = ExpertPlayer(seed, budget=budget, defend=True).weighing(view, seat)
    best = weighing.best
    cs = cards_of(view)
    if weighing.samples:
        chance = Chance(view)
        best = keeping_marks(weighing, [chance.mean(v) for v in weighing.values], best)
    text = str(weighing.candidates[best])
    reason = explain(cs, view, seat, parse(text))
    if weighing.samples:
        after = chance.mean(weighing.values[best])
        # The expert ranks by the mean value, a chance is the mean of the values made
        # chances: the two orders can differ only where candidates nearly tie (with the
        # squash before ai/chance.py: 1 hint in 504, by 0.3 points); the hint keeps to
        # the expert's ranking.
        before = min(after, chance.mean(weighing.values[0]))
    else:  # greedy's own answer (unsearched, or the clock left no sample)
        before = after = chances(cs, view, seat, text, random.Random(seed), samples)
        if spends_marks(weighing.candidates[best]):
            text, reason, before, after = _keep_marks(cs, view, seat, seed, samples, text,
                                                      reason, after)
    return Advice(text, reason, before, after,  # an even share among those still in (R9.3)
                  sum(not p.get("eliminated") for p in view["players"]))


def as_good_as_shown(p: float, than: float) -> bool:
    """Whether chance `p` is at least `than` as a hint shows chances: to the percent."""
    return round(100 * p) >= round(100 * than)


def keeping_marks(weighing: Weighing, chances: list[float], best: int) -> int:
    """The expert's choice, or — when it pays honor marks (`spends_marks`) — the best
    candidate keeping them whose chance to win is as high to the percent a hint shows: the
    evaluation behind the expert's ranking may still prefer a stronger unit or a longer move
    where every sample is won, but the chance, what the hint shows, sees nothing gained
    (`_keep_marks`)."""
    if not spends_marks(weighing.candidates[best]):
        return best
    keeping = [k for k in range(len(weighing.candidates))
               if not spends_marks(weighing.candidates[k])
               and as_good_as_shown(chances[k], chances[best])]
    return max(keeping, key=lambda k: (chances[k], -k)) if keeping else best


def _keep_marks(cs: CardSet, view: View, seat: int, seed: int, samples: int, text: str,
                reason: Reason, p: float) -> tuple[str, Reason, float, float]:
    """Greedy's answer that pays honor marks, or its best answer keeping them when that does
    as well (to the percent shown) on the same samples and dice: marks break a tie between
    declarers (R14.3) and count in the daily's score, and hints spent them on Level Ups,
    rerolls and Full Moves that changed nothing ("100% now, 100% after", the learning
    audits). Where paying does better, it stays the hint."""
    dec = view["decisions"][str(seat)]
    others = [a for a in legal_actions(view, seat) if not spends_marks(a)]
    if not others:
        return text, reason, p, p
    alt = GreedyPlayer(seed).best(view, seat, dec, others)
    p_alt = chances(cs, view, seat, str(alt), random.Random(seed), samples)
    if not as_good_as_shown(p_alt, p):
        return text, reason, p, p
    return str(alt), explain(cs, view, seat, alt), p_alt, p_alt


def _levelup(cs: CardSet, view: View, seat: int, a: Action) -> Reason | None:
    """A Level Up's facts: the ★ unit, the card it becomes, the price (R12.2)."""
    p = view["players"][seat]
    unit = None if a.square is None else p["board"][board.square(a.square)]
    job = cs.units[unit["card"]].job if unit is not None and unit.get("card") in cs.units \
        else None
    if unit is None or job is None:
        return None
    return Reason("levelup", card=cs.levelup_of(job), unit=str(unit["card"]), square=a.square,
                  price=levelup_price(p))


def explain(cs: CardSet, view: View, seat: int, a: Action) -> Reason:
    """The facts of answer `a`: who acts, what it hits and how hard, what it prevents; for a
    Level Up, the unit, the card it becomes and the price (a hint said only "the expert's
    best answer", not what it spends: the Discord audit)."""
    if a.verb == "levelup" and (lv := _levelup(cs, view, seat, a)) is not None:
        return lv
    if a.verb != "act" or a.square is None:
        return Reason(a.verb, card=a.card, square=a.square)
    p = view["players"][seat]
    b = p["board"]
    unit = b[board.square(a.square)]
    solo = len(view["players"]) == 1
    now = invade_board(cs, b, len(p["castle"]), solo)
    greedy = GreedyPlayer()
    branches = greedy.outcomes(cs, view, seat, a)
    damage = 0.0
    fainted = 0.0  # the seat's units lost, by the answer itself or in the Invasion after it
    hit: set[str] = set()  # the monsters some branch damages
    invaded: list[tuple[float, set[str]]] = []  # per branch: the monsters still getting in
    for prob, s in branches:
        after = s["players"][seat]["board"]
        damage += prob * (_monster_hp(cs, b) - _monster_hp(cs, after))
        then = invade_board(cs, after, len(p["castle"]), solo)
        # a unit the answer itself makes faint (a Bard's command on a 1-HP unit, R8.2) is
        # lost as surely as one the Invasion takes: never a unit "kept from fainting"
        fainted += prob * (len(then.fainted) + max(0, _units(b) - _units(after)))
        invaded.append((prob, {x["id"] for x in then.invaded}))
        left = _monster_hps(cs, after)
        hit |= {k for k, hp in _monster_hps(cs, b).items() if left.get(k, 0) < hp}
    monster = target = None
    castle = False
    stops = 0.0
    targets = a.skill.targets if a.skill is not None else ()
    for sq in targets if len(hit) <= 1 else ():  # several hit: their total, no one named
        m = b[board.square(sq)]
        if m is not None and "owner" not in m:
            monster, target = m["card"], sq
            castle = any(x["id"] == m["id"] for x in now.invaded)
            if castle:  # how often the answer keeps it out (defeated, or held back)
                stops = sum(prob for prob, ids in invaded if m["id"] not in ids)
            break
    return Reason("act", unit=unit["card"] if unit else None, square=a.square, to=a.to,
                  monster=monster, target=target, damage=round(damage, 1), hits=len(hit),
                  castle=castle, stops=round(stops, 2),
                  saved=max(0, round(len(now.fainted) - fainted)))


def chances(cs: CardSet, view: View, seat: int, text: str, rng: random.Random,
            samples: int) -> float:
    """Share of `samples` sampled games `seat` wins after answering `text`."""
    chance = Chance(view)
    won = 0.0
    for _ in range(samples):
        sample = determinize(cs, view, seat, rng)
        won += _play_out(cs, sample, seat, text, rng.getrandbits(32), chance)
    return won / samples


def _play_out(cs: CardSet, sample: dict[str, Any], seat: int, first: str, dice: int,
              chance: Chance) -> float:
    """1 for a win, a share for a shared win (a draw), 0 for a loss: the sampled game played
    on by greedy for every seat after `first` for `HORIZON` rounds; a game still running
    then is scored by the evaluation, made a chance."""
    g = Game(json.loads(json.dumps(sample)), cs)
    policy = GreedyPlayer(dice)
    g.apply(seat, first)
    play_on(g, policy, g.state["round"] + HORIZON)
    if g.result is None:
        return chance(evaluate(cs, g.state, seat))
    return share_won(g, seat)


def play_on(g: Game, policy: GreedyPlayer, last_round: int | None,
            steps: int = ROLLOUT_STEPS) -> None:
    """`policy` answers every seat's decisions until the game ends or passes `last_round`
    (None: until it ends), `steps` answers at most. A hint's play-out, and the calibration
    of its chance (sim/calibrate.py), which must play on exactly as a hint does."""
    for _ in range(steps):
        if g.over or (last_round is not None and g.state["round"] > last_round):
            return
        who = int(next(iter(g.state["decisions"])))
        g.apply(who, policy.choose(g.state, who))


def share_won(g: Game, seat: int) -> float:
    """`seat`'s share of the game's win: 1, 1/n of a draw between n winners, else 0 (a loss,
    or a game not over)."""
    res = g.result
    if res is None or seat not in res["winners"]:
        return 0.0
    return 1.0 / len(res["winners"]) if res["draw"] else 1.0


def _monster_hps(cs: CardSet, b: list[Any]) -> dict[str, int]:
    """Each monster's HP left, by its id (a defeated one is missing)."""
    return {x["id"]: cs.monsters[x["card"]].hp - x.get("dmg", 0) for x in b
            if x is not None and "owner" not in x}


def _units(b: list[Any]) -> int:
    """The units on a board (a fainted one has left it, R9.1)."""
    return sum(1 for x in b if x is not None and "owner" in x)


def _monster_hp(cs: CardSet, b: list[Any]) -> int:
    """HP the monsters on a board have left (a defeated one is gone: all its HP counts)."""
    return sum(cs.monsters[x["card"]].hp - x.get("dmg", 0) for x in b
               if x is not None and "owner" not in x)
