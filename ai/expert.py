"""The `expert` level: determinized Monte-Carlo rollouts with `greedy` as the policy.

Where a choice shapes the rest of the round — the command card (R6, R7), the initial
placement (R4.4), a recruit (R7.1) — and, under the solo option rule, every unit action of
the rounds nearest the deadline (R13.2, where one wasted action loses the game), the expert
samples the hidden parts of its view (ai/determinize.py), plays each of greedy's best few
candidates out with greedy for every seat until its own next command choice (or the game's
end), and keeps the candidate with the best mean outcome. Every candidate is played on the
same samples and the same dice (common random numbers), so the comparison is between the
choices, not the luck. In the last `finish` + 1 solo rounds a rollout runs to the game's
end, so it sees the deadline's win or loss itself. Elsewhere (readying, rolls, the earlier
unit actions) greedy's one-step lookahead answers: they are most of a game's decisions, and
searching them would multiply its thinking time (README "AI levels").

At 2 players the game is a race (R14.3): once the monster deck is down to its last
summon, the first player to bring their threat to 8 or less wins. There the expert also
searches its unit actions, and every rollout plays BOTH boards with greedy to the game's
end, so it sees who declares first (and the tie-break of honor marks and gold, R14.4).
Before this, its rollouts let the other seat do nothing on its own board, and it won
56.5 % of 200 paired seeds where greedy in the same seat won 53.2 %; with it, 85.5 %
(docs/balance.md, pass 7). At 3–4 players a rollout to the end with every board played costs one to two
seconds of CPU per decision, past the time goal, so there it keeps the cheaper rollouts
(and already beats greedy, pass 6).

Strength does not depend on the machine's load: the search spends a COUNT of samples
(`samples` per decision, fewer when rollouts run long: at most `work` simulated greedy
answers), so the same seed makes the same choices on a quiet machine and a
busy one. `budget` (wall-clock seconds per decision, 0.9 by default) is only a hard cap
that keeps a decision under one second on an overloaded machine; a sample cut short by it
is dropped whole, and only then can two runs differ.
"""

from __future__ import annotations

import json
import math
import random
import time
from dataclasses import dataclass
from typing import Any

from engine import Action, CardSet, Game, State

from .determinize import determinize
from .evaluate import LOSS, evaluate, rounds_left
from .greedy import GreedyPlayer, legal_actions
from .model import View, cards_of, facts

WIN = 500.0
SEARCHED = ("pick", "place", "recruit")
ENDGAME = ("actions",)  # searched only in the last `endgame` rounds before a solo deadline
PICK_WORK = 4  # greedy's command-card choice costs about four of its other answers
RACE_PLAYERS = 2  # the table size where the race search runs (module docstring)
EFFORT_PER_WORK = 22  # positions the rollouts may score per unit of `work` (`weigh`)


@dataclass(frozen=True, slots=True)
class Weighing:
    """A decision as the expert weighed it: its candidates, greedy's best first, and each
    one's rollout values, one per complete sample (all on the same samples and dice).
    Unsearched, or with no sample complete within the clock, there are no values and the
    choice is the first candidate, greedy's."""

    candidates: list[Action]
    values: list[list[float]]

    @property
    def best(self) -> int:
        """The candidate with the best total; among equal totals one that keeps the honor
        marks (`spends_marks`), then the earlier one (greedy's order). The totals add the
        samples in order, as the search always has.

        Why marks first: equal totals mostly mean every sample was won (or lost) alike, and
        then a boon only spends marks, which break a tie between declarers (R14.3) and
        count in the daily's score; a hint suggested Level Ups in games already won
        ("100% → 100%", the learning audit)."""
        totals = [sum(v, 0.0) for v in self.values]
        return max(range(len(self.candidates)),
                   key=lambda k: (totals[k], not spends_marks(self.candidates[k]), -k))

    @property
    def choice(self) -> Action:
        return self.candidates[self.best]

    @property
    def samples(self) -> int:
        return len(self.values[0])


def spends_marks(a: Action) -> bool:
    """Whether an answer pays honor marks (R12): a Level Up, Willpower's reroll, a Full
    Move."""
    return a.verb in ("levelup", "reroll") or a.fullmove


def defended(view: View, seat: int) -> bool:
    """Whether the other seats play their unit actions in the rollouts (`full`): whenever
    one still plays. Their boards cannot touch the seat's (R1), but their fall ends the game
    (R9.3: the last player standing wins) and their declarations race the seat's (R14.3).
    Answering for them cheaply (no unit actions) let their undefended boards fall in nearly
    every rollout: a 3-player review charted a seat at 100 % two rounds before it resigned
    (the Japanese audit). The review and the hints play them so (about 5 % more CPU for a
    review); the expert's own play does not: with as many positions scored, the samples it
    affords fell, and it won 37.0 % at 3 players against 41.3 % (300 paired seeds, 55 / 68)."""
    return any(not p.get("eliminated") for k, p in enumerate(view["players"]) if k != seat)


class ExpertPlayer:
    """Greedy everywhere, Monte-Carlo search where the round (or the game) is decided."""

    level = "expert"

    def __init__(self, seed: int = 0, budget: float = 0.9, samples: int = 8, width: int = 4,
                 picks: int = 4, endgame: int = 2, endgame_width: int = 5, finish: int = 2,
                 work: int = 200, race: int = 2, race_width: int = 3,
                 effort: int | None = None, defend: bool = False) -> None:
        self.rng = random.Random(seed)
        self.greedy = GreedyPlayer(seed)
        self.policy = GreedyPlayer(seed + 1)
        self.budget = budget
        self.samples = samples
        self.width = width
        self.picks = picks
        self.endgame = endgame
        self.endgame_width = endgame_width
        self.finish = finish
        self.work = work
        self.effort = EFFORT_PER_WORK * work if effort is None else effort
        self.race = race  # the race search starts with this many monster cards left (R10.1)
        self.race_width = race_width
        # the other seats play their unit actions in every rollout (`defended`): for the
        # chances a hint shows; the expert's own play answers for them cheaply (more samples)
        self.defend = defend
        self.capped = 0  # decisions where the wall-clock cap cut the sample count short

    @property
    def budget_s(self) -> float:
        """The name the daily par job sets (service/daily_play.py)."""
        return self.budget

    @budget_s.setter
    def budget_s(self, seconds: float) -> None:
        self.budget = seconds

    def choose(self, view: View, seat: int) -> str:
        return str(self.weighing(view, seat).choice)

    def weighing(self, view: View, seat: int) -> Weighing:
        """The decision as the expert weighs it: its candidates and their rollout values
        where it searches; greedy's one answer, unweighed, where it does not. The hints
        read their chances from it (ai/advise.py), so what they say matches the choice."""
        dec = view["decisions"].get(str(seat))
        legal = legal_actions(view, seat)
        if dec is None or not legal:
            raise ValueError(f"seat {seat} has no pending decision in this view")
        if not self.searched(view, dec["kind"]):
            return Weighing([self.greedy.best(view, seat, dec, legal)], [[]])
        return self.weigh(view, seat, dec, legal)

    def searched(self, view: View, kind: str) -> bool:
        """Search the round-shaping choices always, unit actions only near a solo deadline
        (R13.2): there the game is won or lost within the rollout, which sees it exactly."""
        if kind in SEARCHED:
            return True
        if kind in ENDGAME:
            left = rounds_left(view)
            return (left is not None and left < self.endgame) or self.racing(view)
        return False

    def racing(self, view: View) -> bool:
        """The race to a declaration (R14.3) at 2 players: the monster deck is down to its
        last summon (two cards, R10.1) or empty, so the game ends within a round or two and
        both boards decide it."""
        if len(view["players"]) != RACE_PLAYERS:
            return False
        deck: int = view.get("monster_deck_size", len(view.get("monster_deck", [])))
        return deck <= self.race

    def plays_others(self, view: View, seat: int) -> bool:
        """Whether the rollouts play the other seats' unit actions (`rollout`'s `full`): in
        the 2-player race, and wherever another seat still plays when this expert defends
        them (`defended`: the hints' and the review's)."""
        return self.racing(view) or (self.defend and defended(view, seat))

    def candidates(self, cs: CardSet, view: View, seat: int, dec: dict[str, Any],
                   legal: list[Action]) -> list[Action]:
        """Greedy's best few answers, best first (judged as greedy judges this position: in
        a stalemate with the weights that break it, ai/greedy.py)."""
        greedy = self.greedy.judging(view, seat)
        if dec["kind"] == "pick":
            scored = [(v, str(a), a) for v, a in greedy.pick_scores(cs, view, seat, legal)]
            width = self.picks
        else:
            scored = [(v, str(a), a)
                      for v, a in zip(greedy.values(cs, view, seat, legal), legal, strict=True)]
            width = self.endgame_width if dec["kind"] in ENDGAME else self.width
            if self.racing(view):  # each candidate's rollouts run to the end: fewer of them
                width = min(width, self.race_width)
        return [a for _, _, a in sorted(scored, key=lambda x: (x[0], x[1]), reverse=True)[:width]]

    def weigh(self, view: View, seat: int, dec: dict[str, Any], legal: list[Action]
              ) -> Weighing:
        """Mean rollout value per candidate over up to `samples` samples, fewer when the
        next sample would take the rollouts' work past `work` (rollouts to the game's end
        cost several rounds each) or the positions they score past `effort`, or when the
        wall-clock cap strikes (a sample cut short is dropped whole, so every candidate is
        judged on the same samples).

        `work` counts greedy's answers, but an answer's CPU grows with the choices it
        weighs: a full board in the last rounds before a solo deadline offers a hundred
        unit actions, and there 200 answers took up to 0.87 s, and the race's rollouts play
        both boards to the end (0.9 s). `effort` counts what the CPU follows, the positions
        scored (ai/greedy.py `Effort`), and binds only in those decisions (in 4 games each:
        11 of solo Hard's 83 searched ones, 7 of 111 at 2 players, 1 of 66 at 4, none at
        3), so it caps their time (issue 19: p99 ≤ 0.5 s of CPU) and leaves the other
        choices as they were.
        The memo is emptied first, so the count is this decision's alone: the same seed
        makes the same choices in any process, whatever it decided before."""
        deadline = time.perf_counter() + self.budget
        cs = cards_of(view)
        facts(cs).seen.clear()  # what is remembered, and so `effort`, is this decision's own
        cands = self.candidates(cs, view, seat, dec, legal)
        weighed: list[list[float]] = [[] for _ in cands]
        if len(cands) == 1:
            return Weighing(cands, weighed)
        left = rounds_left(view)
        race = self.racing(view)
        to_end = (left is not None and left <= self.finish) or race
        n = used = 0
        start = self.policy.effort.scored
        while n < self.samples and (n == 0 or self.affords(n, used,
                                                           self.policy.effort.scored - start)):
            sample = determinize(cs, view, seat, self.rng)
            seed = self.rng.getrandbits(32)
            values = []
            for a in cands:
                out = self.rollout(cs, sample, seat, a, seed, deadline, to_end,
                                   full=self.plays_others(view, seat),
                                   limit=self.effort // len(cands))
                if out is None:
                    break
                values.append(out[0])
                used += out[1]
            if len(values) < len(cands):
                self.capped += 1
                break
            for k, v in enumerate(values):
                weighed[k].append(v)
            n += 1
        return Weighing(cands, weighed)

    def affords(self, n: int, used: int, scored: int) -> bool:
        """Whether one more sample, as costly as the mean of the `n` so far, keeps the
        search within both budgets."""
        return used + used / n <= self.work and scored + scored / n <= self.effort

    def rollout(self, cs: CardSet, sample: dict[str, Any], seat: int, a: Action,
                seed: int, deadline: float, to_end: bool = False, rounds: int = 1,
                full: bool = False, limit: float = math.inf) -> tuple[float, int] | None:
        """Play `a`, then greedy for everyone until `seat` must choose a command card
        `rounds` rounds after the one `a` leaves it in (1: the next round's; the game
        review looks further, ai/review.py), or (`to_end`) until the game ends; the value
        reached, from `seat`'s point of view, and the work it took (greedy answers, a
        command card counting `PICK_WORK`: it weighs every card). None when the clock ran
        out first. `full`: the other seats play their unit actions with greedy too (the
        race, `racing`). `limit`: past this many scored positions the rollout stops where
        it is and the evaluation judges it, so that even the race's first sample (both
        boards played to the end) fits the search's `effort`."""
        g = Game(_copy(sample), cs)
        g.apply(seat, a)
        self.policy.rng.seed(seed)
        started = g.state["round"]
        work = 0
        scored = self.policy.effort.scored
        for _ in range(400):
            if g.over or self.policy.effort.scored - scored > limit:
                break
            if time.perf_counter() > deadline:
                return None
            dec = g.state["decisions"]
            mine = dec.get(str(seat))
            if (not to_end and mine is not None and mine["kind"] == "pick"
                    and g.state["round"] >= started + rounds):
                break
            who = int(next(iter(dec)))
            text, cost = self._rollout_answer(g, who, seat, full)
            g.apply(who, text)
            work += cost
        res = g.result
        if res is not None:  # the game is over
            if seat in res["winners"]:
                return WIN / (len(res["winners"]) if res["draw"] else 1), work
            return LOSS - _short(cs, g.state, seat), work
        return evaluate(cs, g.state, seat), work

    def _rollout_answer(self, g: Game, who: int, seat: int, full: bool = False
                        ) -> tuple[str, int]:
        """Greedy for the searching seat and for everyone's command choices (they decide
        which cards the seat leads or follows, R6); the other seats' own boards cannot touch
        the seat's (R1), so there they answer cheaply: ready the best units, keep rolls,
        decline the rest (R15 default answers) — several times more samples per second.
        In the race (`full`) their unit actions are greedy's too: they decide who declares
        first (R14.3)."""
        st = g.state
        kind = st["decisions"][str(who)]["kind"]
        # The sample is already a guess, so the policy may read it whole.
        if who == seat or kind in ("pick", "place") or (full and kind == "actions"):
            return self.policy.choose(st, who), PICK_WORK if kind == "pick" else 1
        if kind == "ready":
            dec = st["decisions"][str(who)]
            return str(self.policy.best(st, who, dec, [Action("done")])), 0
        return ("keep" if kind == "roll" else "done"), 0


def _short(cs: CardSet, st: State, seat: int) -> float:
    """How far a lost game fell short: the monsters and HP left (R13.1, R13.2), so that a
    near miss ranks above a rout when no candidate wins a sample."""
    p = st["players"][seat]
    # monsters on the board (pieces) and in the waiting queues (cards): both name a card
    mons: list[Any] = [x for x in p["board"] if x is not None and "owner" not in x]
    mons += [x for q in p["queues"].values() for x in q]
    hp: int = sum(cs.monsters[x["card"]].hp - x.get("dmg", 0) for x in mons)
    return 60.0 * (len(mons) + len(st.get("monster_deck", []))) + 12.0 * hp


def _copy(st: View) -> State:
    out: State = json.loads(json.dumps(st))  # a sampled full state (determinize) stays one
    return out
