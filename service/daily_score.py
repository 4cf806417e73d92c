"""A daily attempt's score and the words around it: one integer replayed from the stored log,
the spoiler-free share line, the result against the bot's par, and the day's odds as the par
AIs found them. Apart from the day's game (service/daily.py): what a day is and how it is
scored change for different reasons (a new modifier; a new term of the score, versioned)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import i18n
from engine import Game

# ---- scores --------------------------------------------------------------------------------
#
# One integer, computed on the server from the replayed log (docs/daily.md says why each
# term is there). The terms are bands and fields that never overlap, so the number reads as
# a ranking: the outcome band first (any win above any loss, any loss above any resign),
# then the fight (each round and each monster is worth 10,000), then the refinements in the
# last four digits (units on the board: thousands; honor marks left: hundreds and tens;
# gold left: ones), capped so that together they never outweigh one round or monster.

SCORE_VERSION = 2  # v1 (no "v" key): {"won", "rounds", "fainted", "marks"}, ranked as a tuple
OUTCOME_POINTS = {"won": 2_000_000, "lost": 1_000_000, "resigned": 0}
FIGHT_POINTS = 10_000  # a round fought (a loss) or saved under the cap (a win); a monster
FIGHT_MAX = 49  # each fight count is capped so the fight stays inside its band (< 1,000,000)
REFINE_POINTS = {"units": 1_000, "marks": 10, "gold": 1}
REFINE_MAX = {"units": 9, "marks": 99, "gold": 9}  # together ≤ 9,999: less than one round
DEFAULT_ROUND_CAP = 30  # R15


@dataclass(frozen=True, slots=True)
class Score:
    """A finished (or resigned) attempt as the rulebook's terms: the outcome (R13), the round
    reached, monsters defeated, units still on the board, honor marks and gold left.
    `points` is the one number everybody is ranked by; `breakdown` shows where it comes
    from. `version` is the formula that read it: a v1 row (stored before scores were one
    number) keeps what it had and counts nothing it did not record."""

    outcome: str  # "won" | "lost" | "resigned"
    rounds: int
    monsters: int = 0
    units: int = 0
    marks: int = 0
    gold: int = 0
    round_cap: int = DEFAULT_ROUND_CAP
    version: int = SCORE_VERSION

    @property
    def won(self) -> bool:
        return self.outcome == "won"

    @property
    def resigned(self) -> bool:
        return self.outcome == "resigned"

    def breakdown(self) -> list[tuple[str, int, int]]:
        """(term, count, points) in the order the number reads: `outcome` (count 1), then
        `spare` (a win: rounds left under the cap, R15) or `fought` (rounds reached),
        `monsters`, `units`, `marks`, `gold`."""
        rounds_term = ("spare", max(0, self.round_cap - self.rounds)) if self.won else (
            "fought", self.rounds)
        out = [("outcome", 1, OUTCOME_POINTS[self.outcome])]
        for term, n in (rounds_term, ("monsters", self.monsters)):
            n = min(max(n, 0), FIGHT_MAX)
            out.append((term, n, n * FIGHT_POINTS))
        for term, n in (("units", self.units), ("marks", self.marks), ("gold", self.gold)):
            n = min(max(n, 0), REFINE_MAX[term])
            out.append((term, n, n * REFINE_POINTS[term]))
        return out

    @property
    def points(self) -> int:
        return sum(p for _, _, p in self.breakdown())

    def to_json(self) -> dict[str, Any]:
        """The stored form; `points` and `won` are written for readers of the raw row (the
        number is always recomputed from the terms when read back)."""
        return {"v": self.version, "outcome": self.outcome, "won": self.won,
                "rounds": self.rounds, "monsters": self.monsters, "units": self.units,
                "marks": self.marks, "gold": self.gold, "cap": self.round_cap,
                "points": self.points}

    @classmethod
    def from_json(cls, d: Any) -> Score:
        """The one decoder of a stored score (attempts and par), v1 or v2. Anything else
        raises ValueError, so a damaged row is one caller's `except ValueError`."""
        try:
            if not isinstance(d, dict):
                raise TypeError(type(d).__name__)
            if "v" not in d:  # v1: a win or a loss, its round and marks; nothing else known
                return cls("won" if d["won"] else "lost", _count(d["rounds"]),
                           marks=_count(d["marks"]), version=1)
            outcome, version = str(d["outcome"]), _count(d["v"])
            if outcome not in OUTCOME_POINTS or version not in (1, SCORE_VERSION):
                raise ValueError(f"outcome {outcome!r}, version {version!r}")
            return cls(outcome, _count(d["rounds"]), _count(d["monsters"]),
                       _count(d["units"]), _count(d["marks"]), _count(d["gold"]),
                       _count(d.get("cap", DEFAULT_ROUND_CAP)), version)
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"not a daily score: {e}") from e


def _count(x: Any) -> int:
    if isinstance(x, bool) or not isinstance(x, int) or x < 0:
        raise ValueError(f"{x!r} is not a count")
    return x


@dataclass(slots=True)
class Replayed:
    """What a replay of a finished attempt tells: its score and a spoiler-free round trace."""

    score: Score
    defeats_per_round: list[int]


def replay_score(setup: Mapping[str, Any], log: list[list[Any]], *,
                 resigned: bool = False) -> Replayed:
    """Replay setup + log (R15) and score the result; never trust a stored or sent score.
    `resigned`: the player gave up an unfinished game — scored in the resign band, below
    every loss, at the round and with the monsters reached."""
    g = Game.replay(setup, [])
    monsters, defeats = 0, [0]
    for seat, text in log:
        for e in g.apply(int(seat), text):
            if e["type"] == "defeated" and e.get("player", 0) == 0:
                monsters += 1
                defeats[-1] += 1
            elif e["type"] == "phase" and e.get("phase") == "main" and e.get("round", 0) > 1:
                defeats.append(0)
    result = g.result
    if result is None and not resigned:
        raise ValueError("the attempt is not finished")
    p = g.player(0)
    if result is not None:
        outcome = "won" if 0 in result["winners"] else "lost"
    else:
        outcome = "resigned"
    rounds = g.round
    units = sum(1 for piece in p["board"] if piece and "owner" in piece)
    cap = int(g.state["options"].get("round_cap", DEFAULT_ROUND_CAP))
    score = Score(outcome, rounds, monsters, units, p["honor"] + len(p["defeated"]), p["gold"],
                  cap)
    return Replayed(score, defeats[:rounds] if rounds else defeats)


def points_text(points: int) -> str:
    """1,021,352: grouped the same way in both languages (Japanese writes 1,021,352 too)."""
    return f"{points:,}"


def outcome_words(score: Score, lang: str) -> str:
    """'won in 9 rounds' / 'fell in round 4' / 'resigned in round 2' — the share line's and
    the par's words, so the bot's result reads exactly like a player's."""
    key = {"won": "daily.outcome_won", "lost": "daily.outcome_lost",
           "resigned": "daily.outcome_resigned"}[score.outcome]
    return i18n.tn(lang, key, score.rounds)


def share_line(challenge_no: int, score: Score, par: Score | None,
               defeats_per_round: Sequence[int], lang: str = "en") -> str:
    """Spoiler-free and copyable: the number, the outcome and score, the bot's result and
    score, one mark a round (⚔️ a monster fell that round, 🛡️ none did) ending with 🏰
    (held), 🔥 (fallen) or 🏳️ (resigned: it says so)."""
    end = {"won": "🏰", "lost": "🔥", "resigned": "🏳️"}[score.outcome]
    marks = "".join("⚔️" if n else "🛡️" for n in defeats_per_round) + end
    head = i18n.t(lang, "daily.share_head", no=challenge_no, outcome=outcome_words(score, lang),
                  points=points_text(score.points))
    bot = i18n.t(lang, "daily.share_par", outcome=outcome_words(par, lang),
                 points=points_text(par.points)) if par is not None else ""
    return f"{head}{bot} {marks}"


def share_params(challenge_no: int, par: Score | None,
                 defeats_per_round: Sequence[int]) -> str:
    """What the store keeps of a share line: its parameters, not its words, so it is told
    in the language of whoever reads it (the score is stored beside it)."""
    return json.dumps({"no": challenge_no, "par": par.to_json() if par else None,
                       "trace": list(defeats_per_round)}, separators=(",", ":"))


def render_share(stored: str | None, score: Score | None, lang: str) -> str | None:
    """The share line of a stored attempt in `lang`; a line stored as words by an older
    version is shown as it was. An older row's par was a bare round count that did not say
    whether the bot won: it is left out rather than shown untruthfully."""
    if not stored or score is None:
        return None
    try:
        p = json.loads(stored)
    except (ValueError, RecursionError):
        return stored
    if not isinstance(p, dict):
        return stored
    try:
        par = Score.from_json(p["par"]) if isinstance(p.get("par"), dict) else None
    except ValueError:
        par = None
    try:
        return share_line(int(p["no"]), score, par, [int(n) for n in p["trace"]], lang)
    except (KeyError, TypeError, ValueError):  # stored parameters that cannot be read
        return None


def versus_par(score: Score, par: Score | None, lang: str = "en") -> str | None:
    """'beat the bot by 2 rounds' and friends; None without a par."""
    if par is None:
        return None
    if score.won and par.won:
        diff = par.rounds - score.rounds
        if diff > 0:
            return i18n.tn(lang, "daily.vs_faster", diff)
        if diff == 0:
            return i18n.t(lang, "daily.vs_tied")
        return i18n.tn(lang, "daily.vs_slower", -diff)
    if score.won:
        return i18n.t(lang, "daily.vs_won_bot_lost")
    if par.won:
        return i18n.t(lang, "daily.vs_bot_won")
    return i18n.t(lang, "daily.vs_both_fell")


def par_score(par: Mapping[str, Any] | None) -> Score | None:
    """The best AI result of the day (most points): the par a player is measured against.
    A level whose stored score cannot be read is left out, not fatal."""
    best: Score | None = None
    for p in (par or {}).values():
        try:
            s = Score.from_json(p["score"] if isinstance(p, dict) else None)
        except (KeyError, ValueError):
            continue
        if best is None or s.points > best.points:
            best = s
    return best


ODDS_ORDER = ("expert", "greedy")  # the strongest AI's odds first: the day's difficulty


def par_odds(par: Mapping[str, Any] | None) -> list[tuple[str, int, int]]:
    """(level, wins, plays) of each par AI that played the day several times, expert
    first. A par stored before the odds were kept has none: an empty list, never an error
    (nor is a count that cannot be read)."""
    out: list[tuple[str, int, int]] = []
    for level, p in (par or {}).items():
        if not isinstance(p, dict):
            continue
        try:
            wins, plays = _count(p.get("wins")), _count(p.get("plays"))
        except ValueError:
            continue
        if 1 <= plays and wins <= plays:
            out.append((str(level), wins, plays))
    return sorted(out, key=lambda o: ((*ODDS_ORDER, o[0]).index(o[0]), o[0]))


def odds_words(par: Mapping[str, Any] | None, lang: str) -> str | None:
    """'the expert wins this day 3 times in 10; greedy 1 in 10': how hard the day is, as the
    par AIs found it playing it many times. None while the odds are not known."""
    odds = par_odds(par)
    if not odds:
        return None
    parts = []
    for k, (level, wins, plays) in enumerate(odds):
        name = i18n.t(lang, f"level.{level}")
        parts.append(i18n.tn(lang, "daily.odds_first", wins, level=name, plays=plays) if k == 0
                     else i18n.t(lang, "daily.odds_more", level=name, wins=wins, plays=plays))
    return i18n.t(lang, "daily.odds_sep").join(parts)
