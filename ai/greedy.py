"""The `greedy` level: a one-step lookahead over the listed legal actions.

Each legal answer is applied to a scratch copy of the view and scored with the static
evaluation (ai/evaluate.py), which previews the coming Invasion (R9). Dice are never
rolled: a dice attack is scored by its expectation over the 36 outcomes (R8.2). The command
card is chosen by estimating, per card, what its LEADER and FOLLOWER/AUTO effects would be
worth now (R6, R7), counting in solo which cards the choice leaves to run AUTO (R6.4–R6.5).

A one-step lookahead can freeze a game (issue 19): a monster that has a unit in range attacks
and never moves (R9), so a Wraith beating on a Thief★ that a Cleric★ heals every round stays
put, no unit can reach it within one move, every move scores the same, and Reward's gold is
the only gain left — round after round until the round cap (R15). A person would notice that
nothing has happened for a while and walk a unit over. So does `greedy`: when its own log
shows no attack on a monster for `STALEMATE` rounds while monsters stand on its board and no
deadline is near (R13.2), it plays with `BREAK` weights, which value getting units to where
they can strike (ai/evaluate.py `approach`) over gold that piles up with nothing to buy.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from engine import Action, CardSet, NotationError, board, combat, parse
from engine.decisions import act_options as engine_act_options
from engine.decisions import levelup_options
from engine.notation import SkillUse
from engine.state import marks, spend_marks
from engine.types import Decision, ReadyDecision, RollDecision

from .evaluate import W, Weights, evaluate, gold_value, healing, potential, rounds_left
from .model import View, board_key, cards_of, damage_odds, facts, game_of, scratch

Branches = list[tuple[float, View]]


def act_branches(cs: CardSet, st: View, seat: int, a: Action) -> Branches:
    """The outcomes of one unit action (R8), each with its probability; dice are weighed,
    never rolled."""
    s = scratch(st, seat)
    p = s["players"][seat]
    b = p["board"]
    i = board.square(a.square or "")
    dest = board.square(a.to) if a.to else i
    unit = b[i]
    if a.fullmove:
        spend_marks(s, p, 1)  # R12.4
    b[i], b[dest] = None, unit
    unit["acted"] = True  # R8.3
    if a.skill is None:
        return [(1.0, s)]
    return skill_branches(cs, s, seat, dest, a.skill)


def skill_branches(cs: CardSet, s: View, seat: int, pos: int, use: SkillUse) -> Branches:
    """Outcomes of a skill used from `pos` of scratch state `s` (mutated when sure)."""
    b = s["players"][seat]["board"]
    kind = cs.units[b[pos]["card"]].skill.kind
    if kind == "dice":
        j = board.square(use.targets[0])
        mod = cs.units[b[pos]["card"]].skill.mod
        out: Branches = []
        for dmg, prob in damage_odds(cs, mod, b[j]):
            t = scratch(s, seat)
            combat.damage_monster(cs, t, seat, j, dmg, [])
            out.append((prob, t))
        return out
    if kind == "command":  # the Bard (R8.2): 1 damage first, then the commanded skill
        j = board.square(use.targets[0])
        alive = combat.damage_unit(cs, s, seat, j, 1, [], enemy_phase=False)
        if alive and use.sub is not None:
            return skill_branches(cs, s, seat, j, use.sub)
        return [(1.0, s)]
    combat.use_skill(cs, s, seat, pos, use, [])  # area, allocated, heal: no dice
    return [(1.0, s)]


@dataclass
class Effort:
    """How many positions a player has scored with the static evaluation (a value it
    remembered costs nothing). The CPU follows this count (about 0.1 ms a position on the
    development machine), so the expert budgets its search in it (ai/expert.py `effort`):
    a count, unlike a clock, makes the same choices on a quiet machine and a busy one."""

    scored: int = 0


def position_key(view: View, seat: int) -> tuple[Any, ...]:
    """Everything of `view` that a unit action's outcome (`act_branches`: the board, honor
    marks for a full move, the hand a fainted unit returns to, the medal pool a boss kill
    draws from) and its evaluation (ai/evaluate.py: the seat's holdings, castle, waiting
    queues, the deadline's round count) read, as a hashable key: two views with the same key
    give every unit action the same value."""
    p = view["players"][seat]
    return (seat, len(view["players"]), view["options"].get("difficulty"), view["final_round"],
            view["round"], view["phase"] in ("main", "auto"),
            view.get("unit_deck_size", len(view.get("unit_deck", []))),
            view.get("monster_deck_size", len(view.get("monster_deck", []))),
            view.get("medal_pool_size", len(view.get("medal_pool", []))),
            board_key(p["board"]), p["gold"], p["honor"], len(p["defeated"]),
            tuple([c["card"] for c in p["hand"]]), tuple([m["card"] for m in p["castle"]]),
            tuple([(k, tuple([x["card"] for x in q])) for k, q in p["queues"].items()]),
            tuple(p.get("medals", ())))


def act_options(cs: CardSet, view: View, seat: int) -> list[Action]:
    """The unit actions `seat` could take on its board (the engine's own list; it reads
    the board and whether an honor mark pays a full move, R12.4), remembered per board."""
    p = view["players"][seat]
    seen = facts(cs).seen
    key = ("act_options", board_key(p["board"]), marks(p) >= 1)
    out: list[Action] | None = seen.get(key)
    if out is None:
        out = engine_act_options(cs, view, seat)
        seen.put(key, out)
    return out


def legal_actions(view: View, seat: int) -> list[Action]:
    """The engine's legal answers (engine `Game.legal_actions`), the same list in the same
    order. For unit actions (R8) it is "done", every unit action and the Level Ups
    (R12.1); the unit actions are remembered per board (`act_options`): a rollout asks for
    them at every answer, and listing every unit's moves and skill uses afresh was a fifth
    of the expert's profile in a solo Hard game (README "AI thinking time": searched
    decisions' p50 13–18 % less CPU). tests/test_ai_players.py holds the two lists equal."""
    dec = view["decisions"].get(str(seat))
    if dec is None or dec["kind"] != "actions" or view.get("result") is not None:
        return game_of(view).legal_actions(seat)
    cs = cards_of(view)
    return [Action("done"), *act_options(cs, view, seat), *levelup_options(cs, view, seat)]


STALEMATE = 3  # rounds of the seat's own play without an attack on a monster


def idle_rounds(view: View, seat: int, most: int = STALEMATE) -> int:
    """How many of `seat`'s rounds (counted by its command choices, one a round, R6) have
    passed since its last attack on a monster (a dice, allocated or area skill, commanded or
    not, R8.2), read back from the public log; at most `most`."""
    rounds = 0
    for who, text in reversed(view.get("log", [])):
        if who != seat:
            continue
        try:
            a = parse(text)
        except NotationError:  # not an action of this seat's (a hidden or system entry)
            continue
        if a.verb == "pick":
            rounds += 1
            if rounds >= most:
                return rounds
            continue
        use = a.skill
        while use is not None and use.kind == "command":
            use = use.sub
        if use is not None and use.kind in ("attack", "area"):
            return rounds
    return rounds


def stalemate(view: View, seat: int) -> bool:
    """True when `seat` is stuck: monsters stand on its board, it has not attacked one for
    `STALEMATE` rounds, and no solo deadline is near (R13.2: there the evaluation already
    presses for damage, and waiting is not what loses)."""
    p = view["players"][seat]
    if not any(x is not None and "owner" not in x for x in p["board"]):
        return False
    left = rounds_left(view)
    if left is not None and left <= STALEMATE:
        return False
    return idle_rounds(view, seat, STALEMATE) >= STALEMATE


def breaking(w: Weights) -> Weights:
    """The weights that break a stalemate: damage a unit could deal next, and the walk
    toward where it could (`approach`), count double; gold past what recruits need counts
    nothing more, since gold that piles up unspent is no progress."""
    return replace(w, potential=2 * w.potential, approach=2 * w.potential,
                   gold_cap=min(w.gold_cap, 4))


class GreedyPlayer:
    """Best legal answer by one-step lookahead and the static evaluation."""

    level = "greedy"

    def __init__(self, seed: int = 0, weights: Weights = W) -> None:
        self.rng = random.Random(seed)  # breaks exact ties only
        self.w = weights
        self.effort = Effort()

    def choose(self, view: View, seat: int) -> str:
        dec = view["decisions"].get(str(seat))
        legal = legal_actions(view, seat)
        if dec is None or not legal:
            raise ValueError(f"seat {seat} has no pending decision in this view")
        return str(self.best(view, seat, dec, legal))

    # ---- per decision kind ------------------------------------------------------------------
    def best(self, view: View, seat: int, dec: Decision, legal: list[Action]) -> Action:
        return self.judging(view, seat).answer(view, seat, dec, legal)

    def judging(self, view: View, seat: int) -> GreedyPlayer:
        """This player, or in a stalemate (`stalemate`) the same player with the weights that
        break it (`breaking`); the tie-break generator is shared, so the game's sequence of
        tie-breaks is the same either way."""
        if self.w.approach or not stalemate(view, seat):
            return self
        other = GreedyPlayer(0, breaking(self.w))
        other.rng = self.rng
        other.effort = self.effort
        return other

    def answer(self, view: View, seat: int, dec: Decision, legal: list[Action]) -> Action:
        """The best answer with this player's weights."""
        cs = cards_of(view)
        kind = dec["kind"]
        if kind == "pick":
            return self._pick(cs, view, seat, legal)
        if dec["kind"] == "ready":
            return self._ready(cs, view, seat, dec, legal)
        if dec["kind"] == "roll":
            return self._roll(cs, view, seat, dec, legal)
        scored = list(zip(self.values(cs, view, seat, legal), legal, strict=True))
        return self._top(scored)

    def _top(self, scored: list[tuple[float, Action]]) -> Action:
        top = max(v for v, _ in scored)
        return self.rng.choice([a for v, a in scored if v >= top - 1e-9])

    def values(self, cs: CardSet, view: View, seat: int, legal: list[Action]) -> list[float]:
        """`value` of each answer in `legal`. A unit action's or a "done"'s value depends on
        nothing but `position_key`, and the expert's rollouts reach the same positions again
        and again (its candidates and samples converge), so those values are remembered per
        position (ai/model.py `Recent`); the others are worked out afresh."""
        seen = facts(cs).seen
        key = ("values", position_key(view, seat), self.w)
        known: dict[Action, float] | None = seen.get(key)
        if known is None:
            known = {}
            seen.put(key, known)
        out = []
        for a in legal:
            if a.verb in ("act", "done"):
                v = known.get(a)
                if v is None:
                    v = known[a] = self.value(cs, view, seat, a)
            else:
                v = self.value(cs, view, seat, a)
            out.append(v)
        return out

    def value(self, cs: CardSet, view: View, seat: int, a: Action) -> float:
        """The expected evaluation after answer `a` (place, act, recruit, support, levelup,
        done)."""
        return self.expected(cs, self.outcomes(cs, view, seat, a), seat)

    def expected(self, cs: CardSet, branches: Branches, seat: int) -> float:
        """The mean evaluation over the branches, weighed by their chances."""
        self.effort.scored += len(branches)
        return sum(p * evaluate(cs, s, seat, self.w) for p, s in branches)

    def score(self, cs: CardSet, st: View, seat: int) -> float:
        """The static evaluation of one position, counted in `effort`."""
        self.effort.scored += 1
        return evaluate(cs, st, seat, self.w)

    def outcomes(self, cs: CardSet, view: View, seat: int, a: Action) -> Branches:
        """Answer `a` applied to a scratch copy (only the seat's own things change)."""
        v = a.verb
        if v == "act":
            return act_branches(cs, view, seat, a)
        s = scratch(view, seat)
        p = s["players"][seat]
        b = p["board"]
        if v in ("place", "recruit"):
            pool = s["mercenaries"] if a.merc else p["hand"]
            card = next(c for c in pool if c and c["card"] == a.card)
            if a.merc:
                pool[pool.index(card)] = None
            else:
                pool.remove(card)
            if v == "recruit":
                p["gold"] -= cs.units[card["card"]].cost
            b[board.square(a.square or "")] = {"id": card["id"], "card": card["card"], "owner": seat,
                                        "dmg": 0, "acted": False}
        elif v == "support":
            b[board.square(a.square or "")]["dmg"] -= 1  # R11.1
        elif v == "levelup":
            combat.do_levelup(cs, s, seat, board.square(a.square or ""), [])  # R12.2
        return [(1.0, s)]

    def _ready(self, cs: CardSet, view: View, seat: int, dec: ReadyDecision,
               legal: list[Action]) -> Action:
        """Rest / fatigue recovery (R7, R11.2): readying never hurts, so ready as many as
        allowed, the units with the most to do first."""
        b = view["players"][seat]["board"]
        acted = [i for i, u in enumerate(b) if u is not None and "owner" in u and u["acted"]]
        if not acted:
            return Action("done")
        def worth(i: int) -> float:
            return self._unit_worth(cs, b, i) + cs.units[b[i]["card"]].cost / 10
        ranked = sorted(acted, key=worth, reverse=True)[: dec["n"]]
        return Action("ready", squares=tuple(board.NAMES[i] for i in sorted(ranked)))

    def _roll(self, cs: CardSet, view: View, seat: int, dec: RollDecision,
              legal: list[Action]) -> Action:
        """After a roll (R12.1, R12.3): keep, Willpower, or a Level Up that raises the
        modifier — whichever leaves the better expected position."""
        unit, target = board.square(dec["unit"]), board.square(dec["target"])
        scored = []
        for a in legal:
            if a.verb == "levelup" and a.square != dec["unit"]:
                continue
            s = scratch(view, seat)
            if a.verb == "reroll":
                spend_marks(s, s["players"][seat], 1)
                mod = cs.units[s["players"][seat]["board"][unit]["card"]].skill.mod
                branches = []
                for dmg, prob in damage_odds(cs, mod, s["players"][seat]["board"][target]):
                    t = scratch(s, seat)
                    combat.damage_monster(cs, t, seat, target, dmg, [])
                    branches.append((prob, t))
                scored.append((self.expected(cs, branches, seat), a))
                continue
            if a.verb == "levelup":
                combat.do_levelup(cs, s, seat, unit, [])
            roll = combat.roll_of(dec)
            _, _, dmg = combat.roll_outcome(cs, s, seat, roll)
            combat.damage_monster(cs, s, seat, target, dmg, [])
            scored.append((self.score(cs, s, seat), a))
        return self._top(scored)

    # ---- choosing a command card (R6, R7) ---------------------------------------------------
    def _pick(self, cs: CardSet, view: View, seat: int, legal: list[Action]) -> Action:
        return self._top(self.pick_scores(cs, view, seat, legal))

    def pick_scores(self, cs: CardSet, view: View, seat: int, legal: list[Action]
                    ) -> list[tuple[float, Action]]:
        """Each command card on offer with its estimated worth (R6, R7)."""
        options = [a for a in legal if a.verb == "pick"]
        lead, small = self.card_values(cs, view, seat)
        solo = len(view["players"]) == 1
        scored = []
        for a in options:
            card = a.card or ""
            if solo:  # R6.4–R6.5: the choice runs first, then the first 3 others AUTO
                rest = [c for c in view["row"] if c not in view["chosen"] and c != card]
                order = [card] + rest[:3]
                value = 0.0
                for k, c in enumerate(order):
                    v = lead[c] if k == 0 else small[c]
                    if c in ("rest", "recruit") and not any(
                            x in ("advance", "raid") for x in order[k + 1:]):
                        v *= 0.4  # a readied or new unit with no action left this round
                    value += v
            else:
                value = lead[card] - 0.5 * small[card]
            scored.append((value, a))
        return scored

    def card_values(self, cs: CardSet, view: View, seat: int
                    ) -> tuple[dict[str, float], dict[str, float]]:
        """What each command card is worth now to `seat` as LEADER and as FOLLOWER/AUTO
        (R7), each estimated on the current position."""
        w = self.w
        base = self.score(cs, view, seat)
        one, two = self._actions_gain(cs, view, seat, base)
        ready = self._ready_gain(cs, view, seat)
        lead_recruit = self._recruit_gain(cs, view, seat, True, 1, base)
        small_recruit = self._recruit_gain(cs, view, seat, False, 0, base)
        def gold(n: int) -> float:
            """`n` more gold: worth `w.gold` each, except while breaking a stalemate, where
            it is worth what it adds to the holdings (little once past `gold_cap`)."""
            if not w.approach:
                return n * w.gold
            have = view["players"][seat]["gold"]
            return gold_value(have + n, w) - gold_value(have, w)

        lead = {"advance": gold(1) + two, "raid": two, "rest": w.mark + ready,
                "reward": gold(4), "recruit": gold(1) + lead_recruit}
        small = {"advance": two, "raid": one, "rest": ready, "reward": gold(2),
                 "recruit": small_recruit}
        return lead, small

    def _ready_gain(self, cs: CardSet, view: View, seat: int) -> float:
        """What readying the best two acted units is worth: what they could still do."""
        b = view["players"][seat]["board"]
        acted = [i for i, u in enumerate(b) if u is not None and "owner" in u and u["acted"]]
        worth = sorted((self._unit_worth(cs, b, i) for i in acted), reverse=True)[:2]
        return sum(self.w.ready + self.w.potential * x for x in worth)

    def _unit_worth(self, cs: CardSet, b: list[Any], i: int) -> float:
        """The expected damage the unit on `i` could deal from where it can reach; for a
        Bard, the attack it could command (R8.2), for a healer its healing, converted to the
        same scale."""
        alone = [x if x is None or "owner" not in x else None for x in b]
        alone[i] = b[i]
        kind = cs.units[b[i]["card"]].skill.kind
        if kind == "heal":  # the cubes it could remove now, this healer alone
            others = [None if j != i and x is not None and "owner" in x
                      and cs.units[x["card"]].skill.kind == "heal" else x
                      for j, x in enumerate(b)]
            hurt = [x["dmg"] if x is not None and "owner" in x else 0 for x in others]
            return healing(cs, others, hurt) * self.w.unit_hp / self.w.potential
        if kind == "command":
            without = list(b)
            without[i] = None
            return (potential(cs, b, command=self.w.command)
                    - potential(cs, without, command=self.w.command))
        return potential(cs, alone)

    def _actions_gain(self, cs: CardSet, view: View, seat: int, base: float
                      ) -> tuple[float, float]:
        """Gain of the best unit action, and of the best two in a row (the second after the
        first's most likely outcome)."""
        gains = []
        st = view
        for _ in range(2):
            best, best_a = 0.0, None
            options = act_options(cs, st, seat)
            for v, a in zip(self.values(cs, st, seat, options), options, strict=True):
                v -= base
                if v > best:
                    best, best_a = v, a
            if best_a is None:
                break
            gains.append(best)
            st = max(act_branches(cs, st, seat, best_a), key=lambda x: x[0])[1]
            base = self.score(cs, st, seat)
        one = gains[0] if gains else 0.0
        return one, sum(gains)

    def _recruit_gain(self, cs: CardSet, view: View, seat: int, mercs: bool, bonus: int,
                      base: float) -> float:
        p = view["players"][seat]
        homes = [i for i in range(6) if p["board"][i] is None]
        if not homes:
            return 0.0
        gold = p["gold"] + bonus
        cards = {c["card"]: False for c in p["hand"]}
        if mercs:
            for m in view["mercenaries"]:
                if m and m["card"] not in cards:
                    cards[m["card"]] = True
        best = 0.0
        for key, merc in cards.items():
            if cs.units[key].cost > gold:
                continue
            for h in homes:
                a = Action("recruit", card=key, square=board.NAMES[h], merc=merc)
                s = scratch(view, seat)
                s["players"][seat]["gold"] = gold
                br = self.outcomes(cs, s, seat, a)
                best = max(best, self.expected(cs, br, seat) - base - bonus * self.w.gold)
        return best

