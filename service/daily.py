"""The daily solo challenge: one seeded game a day for everyone (hosting rules, no Discord).

Why it is built this way:
- The day's game must be the same for every player and unknowable before it is played, so
  its seed is an HMAC of the UTC date under a secret only the bot holds; the seed of a day
  is published once that day has closed (`published_seed`).
- A day's difficulty and modifiers are chosen from the same digest, from a data file a
  designer extends without code (`service/data/daily_modifiers.json`); the engine applies
  them as setup options, so setup + log still replays the attempt (R15).
- A score is never taken from a client: `score_of` replays the stored setup and log.
- Ranks and streaks are pure functions of stored results, so they are testable with a
  frozen clock and identical in every process.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import i18n
from engine import Game

DATA_FILE = Path(__file__).with_name("data") / "daily_modifiers.json"
EPOCH = dt.date(2026, 11, 1)  # challenge #1
DAY_SECONDS = 24 * 3600


@cache
def catalogue() -> dict[str, Any]:
    """The modifier list and difficulty weights, read once."""
    return json.loads(DATA_FILE.read_text(encoding="utf-8"))


def day_of(now: float) -> dt.date:
    """The UTC day a timestamp falls in: a challenge runs 00:00–24:00 UTC."""
    return dt.datetime.fromtimestamp(now, dt.UTC).date()


def day_end(day: dt.date) -> float:
    """When `day`'s challenge closes (the next 00:00 UTC), as a timestamp."""
    nxt = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), dt.UTC)
    return nxt.timestamp()


def number_of(day: dt.date) -> int:
    """The challenge number shown in the share line (#1 = EPOCH)."""
    return (day - EPOCH).days + 1


def _digest(secret: bytes, day: dt.date) -> bytes:
    return hmac.new(secret, f"rook-and-raiders/daily/{day.isoformat()}".encode(),
                    hashlib.sha256).digest()


def published_seed(secret: bytes, day: dt.date, now: float) -> int | None:
    """A day's seed, but only once that day is over (nobody may learn today's game)."""
    return challenge_for(secret, day).seed if now >= day_end(day) else None


def _weighted(items: Sequence[tuple[str, int]], x: int) -> str:
    total = sum(w for _, w in items)
    x %= total
    for key, w in items:
        if x < w:
            return key
        x -= w
    raise AssertionError("unreachable")  # pragma: no cover


@dataclass(frozen=True, slots=True)
class Modifier:
    id: str
    en: str
    ja: str
    options: dict[str, Any] = field(hash=False)

    def name(self, lang: str) -> str:
        return self.ja if lang == "ja" else self.en


@dataclass(frozen=True, slots=True)
class Challenge:
    """One day's challenge: everything needed to build its game, nothing secret but the seed."""

    day: dt.date
    number: int
    seed: int
    difficulty: str
    modifiers: tuple[Modifier, ...]

    @property
    def options(self) -> dict[str, Any]:
        """The engine setup options: the difficulty (R13.2) plus each modifier's options."""
        opts: dict[str, Any] = {"difficulty": self.difficulty}
        for m in self.modifiers:
            for k, v in m.options.items():
                if isinstance(v, list):
                    opts[k] = sorted({*opts.get(k, []), *v})
                else:
                    opts[k] = v
        return opts

    def new_game(self, name: str, cards_data: dict[str, Any] | None = None) -> Game:
        return Game.new([name], seed=self.seed, options=self.options, cards_data=cards_data)


def challenge_for(secret: bytes, day: dt.date) -> Challenge:
    """The day's challenge: seed, difficulty and one or two modifiers, all from one digest.

    Two modifiers never set the same option (so neither silently cancels the other)."""
    d = _digest(secret, day)
    seed = int.from_bytes(d[:6], "big")  # 48 bits: exact in JSON and in every language
    cat = catalogue()
    difficulty = _weighted(sorted(cat["difficulties"].items()), int.from_bytes(d[6:8], "big"))
    mods = [Modifier(m["id"], m["en"], m["ja"], m["options"]) for m in cat["modifiers"]]
    weights = [(m.id, int(raw.get("weight", 1)))
               for m, raw in zip(mods, cat["modifiers"], strict=True)]
    first = _weighted(weights, int.from_bytes(d[8:10], "big"))
    chosen = [next(m for m in mods if m.id == first)]
    if d[10] % 2:  # about every other day has a second modifier
        taken = set(chosen[0].options)
        rest = [(m.id, w) for (i, w), m in zip(weights, mods, strict=True)
                if i != first and not taken & set(m.options)]
        if rest:
            second = _weighted(rest, int.from_bytes(d[11:13], "big"))
            chosen.append(next(m for m in mods if m.id == second))
    return Challenge(day, number_of(day), seed, difficulty, tuple(chosen))


# ---- scores --------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True, order=True)
class Score:
    """Ordered best first: a win before a loss; then fewer rounds; then fewer fainted units;
    then more honor marks left (the issue's ranking, computed on the server from the log)."""

    lost: bool
    rounds: int
    fainted: int
    marks_left_neg: int

    @property
    def won(self) -> bool:
        return not self.lost

    @property
    def marks_left(self) -> int:
        return -self.marks_left_neg

    def to_json(self) -> dict[str, Any]:
        return {"won": self.won, "rounds": self.rounds, "fainted": self.fainted,
                "marks": self.marks_left}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Score:
        return cls(not d["won"], int(d["rounds"]), int(d["fainted"]), -int(d["marks"]))


@dataclass(slots=True)
class Replayed:
    """What a replay of a finished attempt tells: its score and a spoiler-free round trace."""

    score: Score
    defeats_per_round: list[int]


def replay_score(setup: Mapping[str, Any], log: list[list[Any]], *,
                 resigned: bool = False) -> Replayed:
    """Replay setup + log (R15) and score the result; never trust a stored or sent score.
    `resigned`: the player gave up an unfinished game — a loss at the round reached."""
    g = Game.replay(setup, [])
    fainted, defeats = 0, [0]
    for seat, text in log:
        for e in g.apply(int(seat), text):
            if e["type"] == "fainted":
                fainted += 1
            elif e["type"] == "defeated":
                defeats[-1] += 1
            elif e["type"] == "phase" and e.get("phase") == "main" and e.get("round", 0) > 1:
                defeats.append(0)
    result = g.result
    if result is None and not resigned:
        raise ValueError("the attempt is not finished")
    p = g.player(0)
    won = result is not None and 0 in result["winners"]
    rounds = g.round
    return Replayed(Score(not won, rounds, fainted, -(p["honor"] + len(p["defeated"]))),
                    defeats[:rounds] if rounds else defeats)


def share_line(challenge_no: int, score: Score, par_rounds: int | None,
               defeats_per_round: Sequence[int], lang: str = "en") -> str:
    """Spoiler-free and copyable: the number, the outcome, the bot's par, one mark a round
    (⚔️ a monster fell that round, 🛡️ none did) ending with 🏰 (held) or 🔥 (fallen)."""
    marks = "".join("⚔️" if n else "🛡️" for n in defeats_per_round) + (
        "🏰" if score.won else "🔥")
    head = i18n.tn(lang, "daily.share_won" if score.won else "daily.share_lost", score.rounds,
                   no=challenge_no)
    bot = i18n.t(lang, "daily.share_par", rounds=par_rounds) if par_rounds is not None else ""
    return f"{head}{bot} {marks}"


def share_params(challenge_no: int, par_rounds: int | None,
                 defeats_per_round: Sequence[int]) -> str:
    """What the store keeps of a share line: its parameters, not its words, so it is told
    in the language of whoever reads it (the score is stored beside it)."""
    return json.dumps({"no": challenge_no, "par": par_rounds, "trace": list(defeats_per_round)},
                      separators=(",", ":"))


def render_share(stored: str | None, score: Score | None, lang: str) -> str | None:
    """The share line of a stored attempt in `lang`; a line stored as words by an older
    version is shown as it was; stored parameters that cannot be read give no line (the
    rest of the answer still goes out)."""
    if not stored or score is None:
        return None
    try:
        p = json.loads(stored)
    except ValueError:
        return stored
    if not isinstance(p, dict):
        return stored
    try:
        return share_line(int(p["no"]), score, p.get("par"), [int(n) for n in p["trace"]],
                          lang)
    except (KeyError, TypeError, ValueError):
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


# ---- ranks and streaks ---------------------------------------------------------------------

def ranked(entries: Iterable[tuple[int, Score]]) -> list[tuple[int, int, Score]]:
    """(rank, user, score), best first; equal scores share a rank (1, 2, 2, 4)."""
    order = sorted(entries, key=lambda e: (e[1], e[0]))
    out: list[tuple[int, int, Score]] = []
    for k, (user, score) in enumerate(order):
        rank = out[-1][0] if out and out[-1][2] == score else k + 1
        out.append((rank, user, score))
    return out


@dataclass(frozen=True, slots=True)
class Stats:
    played: int
    won: int
    current_streak: int
    longest_streak: int
    best: Score | None
    rounds_to_win: dict[int, int]  # rounds → wins in that many (Wordle's distribution)

    @property
    def win_percent(self) -> int:
        return round(100 * self.won / self.played) if self.played else 0


def stats(results: dict[dt.date, Score | None], today: dt.date) -> Stats:
    """Stats over a player's ranked days. `results[day]` is the score of a finished attempt,
    or None for an attempt left unfinished (it breaks the streak, and is not a loss).

    A streak is a run of consecutive UTC days with a finished ranked attempt; today not yet
    played does not break the current streak (the player still has until 00:00 UTC)."""
    finished = sorted(d for d, s in results.items() if s is not None)
    longest, run, prev = 0, 0, None
    for d in finished:
        run = run + 1 if prev is not None and (d - prev).days == 1 else 1
        longest = max(longest, run)
        prev = d
    current = 0
    d = today if results.get(today) is not None else today - dt.timedelta(days=1)
    while results.get(d) is not None:
        current += 1
        d -= dt.timedelta(days=1)
    scores = [s for s in results.values() if s is not None]
    dist: dict[int, int] = {}
    for s in scores:
        if s.won:
            dist[s.rounds] = dist.get(s.rounds, 0) + 1
    return Stats(len(scores), sum(s.won for s in scores), current, longest,
                 min(scores) if scores else None, dict(sorted(dist.items())))
