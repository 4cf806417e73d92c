"""The daily solo challenge: one seeded game a day for everyone (hosting rules, no Discord).

Why it is built this way:
- The day's game must be the same for every player and unknowable before it is played, so
  its key is the whole HMAC-SHA256 digest of the UTC date under a secret only the bot holds
  (`day_key`), and the game draws every roll and shuffle from it with the engine's keyed
  generator (engine/rng.py, `hmac-ctr`). A 48-bit seed used to be sliced from that digest:
  a dozen observed dice pinned it and 2^48 seeds are searched in half an hour on one GPU;
  the keyed generator's outputs reveal nothing of a 256-bit key, so there is no search.
  A day's key is published once that day has closed (`published_key`): with it anyone
  rebuilds and replays the day (`challenge_from_key`).
- The secret is what keeps every future day unknown, and past keys are public, so a weak
  secret could be searched offline from them: `check_secret` refuses one under 128 bits at
  start, and `fingerprint` lets processes sharing a database prove they share the secret.
- No design stops one person from playing the day on a second Discord account first: that
  account sees the same game. The README and `/rr rules topic:daily` say so.
- A day's difficulty and modifiers are chosen from the same digest, from a data file a
  designer extends without code (`service/data/daily_modifiers.json`); the engine applies
  them as setup options, so setup + log still replays the attempt (R15).
- A score is never taken from a client: `replay_score` replays the stored setup and log,
  and the score is one integer made of documented terms (docs/daily.md).
- Ranks and streaks are pure functions of stored results, so they are testable with a
  frozen clock and identical in every process.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import logging
import math
import re
import string
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

import i18n
from engine import Game
from engine.rng import KEY_BYTES

log = logging.getLogger("rr.daily")

DATA_FILE = Path(__file__).with_name("data") / "daily_modifiers.json"
EPOCH = dt.date(2026, 11, 1)  # challenge #1
DAY_SECONDS = 24 * 3600


@cache
def catalogue() -> dict[str, Any]:
    """The modifier list and difficulty weights, read once."""
    data: dict[str, Any] = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    return data


def modifiers_of(cat: Mapping[str, Any]) -> list[Modifier]:
    """Every modifier of a catalogue (`catalogue()`, read once by the caller, which also
    reads its weights), in its order: the days deal from these, and the top solo level
    (service/levels.py) is built from two of them, so a modifier's text and its options
    live in one file."""
    return [Modifier(m["id"], m["en"], m["ja"], m["options"]) for m in cat["modifiers"]]


def setup_options(difficulty: str, modifiers: Iterable[Modifier]) -> dict[str, Any]:
    """The engine setup options of a difficulty (R13.2) with modifiers on top; two modifiers
    that both list cards (e.g. two empty level-up piles) add up rather than overwrite."""
    opts: dict[str, Any] = {"difficulty": difficulty}
    for m in modifiers:
        for k, v in m.options.items():
            if isinstance(v, list):
                opts[k] = sorted({*opts.get(k, []), *v})
            else:
                opts[k] = v
    return opts


def keyed_from_date(kept: str) -> dt.date:
    """The first day the keyed generator deals, as the database keeps it; SecretError (the
    bot must not start: which days it deals would change) when it is not a date — a hand
    edit, a bad restore (the fault-injection audit: a traceback at start, and `--check`
    said ready)."""
    try:
        return dt.date.fromisoformat(kept)
    except (TypeError, ValueError):
        raise SecretError(
            f"the first day of the keyed daily deal kept in the database (table kv, key "
            f"daily_keyed_from) is not a date: {str(kept)[:40]!r}. Restore the database from "
            f"a backup, or set it to the day this release first started (YYYY-MM-DD); the bot "
            f"does not start on it (the days it deals would change)") from None


def attempt_day(day: str) -> dt.date | None:
    """An attempt's day as stored; None for one that is not a date (a damaged row, the
    fault-injection audit: '2026-13-45' failed the player's history and stats for good),
    which every reader leaves out."""
    try:
        return dt.date.fromisoformat(day)
    except (TypeError, ValueError):
        log.warning("a daily attempt's day %r is not a date: left out", day)
        return None


def day_of(now: float) -> dt.date:
    """The UTC day a timestamp falls in: a challenge runs 00:00–24:00 UTC."""
    return dt.datetime.fromtimestamp(now, dt.UTC).date()


def day_end(day: dt.date) -> float:
    """When `day`'s challenge closes (the next 00:00 UTC), as a timestamp."""
    nxt = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), dt.UTC)
    return nxt.timestamp()


def ranked_record(settings: Mapping[str, Any]) -> bool:
    """A daily game is the day's ranked attempt unless its record says `ranked: false`, as
    a practice's is written: a damaged flag (0, null, gone) must neither open hints in the
    ranked try nor score it as a practice (a practice so damaged only goes without hints;
    its score is looked for as the ranked one's and not found, and the day's close ends it)."""
    daily = settings.get("daily")
    return isinstance(daily, Mapping) and bool(daily) and daily.get("ranked") is not False


def answer_by(settings: Mapping[str, Any], deadline: float, now: float) -> float:
    """The time a question asked at `now` must be answered by, as a player is told it: a
    daily game still open at its day's end closes with it (00:00 UTC; `close_day`),
    whatever its seat's time limit says (the English new-player audit: the card said the
    day ends in 12 hours, every prompt "in 7 days"). A practice of a day already closed
    keeps its seat's limit: it is left alone (a prompt said "12 hours ago")."""
    daily = settings.get("daily")
    day = attempt_day(str(daily.get("day"))) if isinstance(daily, Mapping) else None
    try:
        end = None if day is None else day_end(day)
    except OverflowError:  # a damaged day (9999-12-31 has no end): the seat's limit
        end = None
    return deadline if end is None or end <= now else min(deadline, end)


def day_start(day: dt.date) -> float:
    """When `day`'s challenge opens (its 00:00 UTC), as a timestamp: reminder hours count
    from here."""
    return dt.datetime.combine(day, dt.time(), dt.UTC).timestamp()


def number_of(day: dt.date) -> int:
    """The challenge number shown in the share line (#1 = EPOCH)."""
    return (day - EPOCH).days + 1


def number_in(info: Mapping[str, Any], day: dt.date) -> int:
    """The challenge number a daily game's record names. A damaged or missing one (not a
    positive count) made the resign, or the scoring of a finished game, raise: the player
    saw an error and their won game ended the day "unfinished". It is the day's own number
    then (the one every game of that day is dealt with), logged."""
    n = info.get("number")
    if type(n) is int and n > 0:
        return n
    log.warning("a daily game's challenge number %r is not one: #%d of %s", n,
                number_of(day), day)
    return number_of(day)


def day_key(secret: bytes, day: dt.date) -> bytes:
    """The day's key: the whole 32-byte digest, never a slice of it (a slice could be
    searched)."""
    return hmac.new(secret, f"rook-and-raiders/daily/{day.isoformat()}".encode(),
                    hashlib.sha256).digest()


def published_key(secret: bytes, day: dt.date, now: float) -> str | None:
    """A day's key (hex), but only once that day is over (nobody may learn today's game)."""
    return day_key(secret, day).hex() if now >= day_end(day) else None


# ---- the secret ----------------------------------------------------------------------------

MIN_SECRET_BITS = 128
MAKE_SECRET = 'python -c "import secrets; print(secrets.token_hex(32))"'
_HEX = re.compile(r"[0-9a-fA-F]+")
_CLASSES = (string.ascii_lowercase, string.ascii_uppercase, string.digits)
_OTHER = 33  # printable ASCII beside letters and digits (space included)
_DICEWARE_WORD = math.log2(7776)  # the most a word of a passphrase can hold


class SecretError(ValueError):
    """The daily secret cannot be used: the bot must not start (one line, for the operator)."""


def secret_bits(raw: str) -> float:
    """At most how many bits of entropy `raw` can hold: 4 a character for hex, else log2 of
    the character classes it uses (lower, upper, digits, other: a lowercase-only word scores
    4.7, a password manager's mix 6.6), a passphrase (words and spaces) 12.9 a word as if
    drawn by diceware, and a string repeating a few characters no more than those. An upper
    bound only: no check tells a random string from a well-chosen pattern, which is why the
    refusal says how to generate one."""
    body = raw.strip()
    if not body:
        return 0.0
    if any(c.isspace() for c in body):
        return _DICEWARE_WORD * len(body.split())
    if _HEX.fullmatch(body):
        per_char = 4.0
    else:
        size = sum(len(cls) for cls in _CLASSES if any(c in cls for c in body))
        if any(not c.isascii() or not c.isalnum() for c in body):
            size += _OTHER
        per_char = math.log2(size)
    bits = per_char * len(body)
    distinct = len(set(body))
    if distinct < min(len(body), 16) // 2:  # "aaaa…", "abab…": not random
        bits = min(bits, distinct * per_char)
    return bits


def check_secret(raw: str) -> bytes:
    """RR_DAILY_SECRET as the key of every day, or SecretError with the reason and how to
    make a good one. Past days' keys are published, so a weak secret would be found
    offline and give away every future day."""
    bits = secret_bits(raw)
    if bits < MIN_SECRET_BITS:
        raise SecretError(
            f"RR_DAILY_SECRET is too weak ({len(raw)} characters, at most {bits:.0f} bits of "
            f"entropy; {MIN_SECRET_BITS} needed, because published day keys let a weak one "
            f"be searched offline) — make one with: {MAKE_SECRET}")
    return raw.encode()


def fingerprint(secret: bytes) -> str:
    """A keyed fingerprint of the secret, kept in the database: processes sharing it compare
    theirs without storing or logging the secret (HMAC: it gives nothing of the secret)."""
    return hmac.new(secret, b"rook-and-raiders/daily/fingerprint", hashlib.sha256).hexdigest()


def check_fingerprint(secret: bytes, stored: str) -> None:
    """SecretError when this process's secret is not the one the database was started with:
    two secrets would give two different games of one day. A stored fingerprint that is no
    fingerprint at all is said to be damaged, not blamed on RR_DAILY_SECRET (the
    fault-injection audit: it was, with no RR_DAILY_SECRET set)."""
    if not re.fullmatch(r"[0-9a-f]{64}", str(stored)):
        raise SecretError(
            "the daily secret's fingerprint kept in the database (table kv, key "
            "daily_secret_fingerprint) is damaged: restore that row from a backup; the bot "
            "does not start on it (it could not tell a wrong secret from the right one)")
    if not hmac.compare_digest(fingerprint(secret), stored):
        raise SecretError(
            "RR_DAILY_SECRET is not the secret this database's daily challenge was started "
            "with (another process or an earlier start used a different one, or none and a "
            "generated one): every process on one database needs the same secret — see "
            "docs/deploy.md, \"The daily secret\"")


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
        return i18n.named(lang, {"en": self.en, "ja": self.ja})


@dataclass(frozen=True, slots=True)
class Challenge:
    """One day's challenge: everything needed to build its game, nothing secret but the key
    (the whole day digest; the game draws with the keyed generator, engine/rng.py)."""

    day: dt.date
    number: int
    key: bytes = field(repr=False)
    difficulty: str
    modifiers: tuple[Modifier, ...]
    # A day dealt by a release before the keyed generator: splitmix64 from the digest's first
    # 48 bits, as it was played then (`challenge_for`, `legacy`); None: the keyed generator.
    legacy_seed: int | None = None

    @property
    def seed(self) -> int:
        """The engine seed a game of this day is built with (0 beside a key)."""
        return self.legacy_seed or 0

    @property
    def rng_key(self) -> bytes | None:
        """The keyed generator's key, or None for a day dealt before it existed."""
        return None if self.legacy_seed is not None else self.key

    @property
    def options(self) -> dict[str, Any]:
        """The engine setup options: the difficulty (R13.2) plus each modifier's options."""
        return setup_options(self.difficulty, self.modifiers)

    @property
    def rules(self) -> int:
        """The rules' readings the day is played under (`RULES_FROM`)."""
        return rules_on(self.day)

    def new_game(self, name: str, cards_data: dict[str, Any] | None = None) -> Game:
        return Game.new([name], seed=self.seed, options=self.options, cards_data=cards_data,
                        key=self.rng_key, rules=self.rules)


@dataclass(frozen=True, slots=True)
class Band:
    """One weekday of the rhythm: its difficulty (R13.2), the modifiers the digest picks
    from (None: all of the catalogue) and whether a second one is added (None: the digest
    decides, about every other day)."""

    difficulty: str
    pool: frozenset[str] | None
    second: bool | None


GENTLE = frozenset({"rich", "honored"})  # more gold or honor to start with
EVEN = frozenset({"golem"})  # a Golem first: measured no harder than the plain level
SCARCE = frozenset({"no_cleric", "no_warrior", "no_thief"})  # one job's level-ups missing
HARSH = frozenset({"poor", "skeleton"})  # nothing to start with, or a Skeleton at once
# Three commands a round (no Rest or no Reward card): worth about two levels on its own (the
# expert wins Easy with it ~4 times in 10, Hard with it 0 of 42 days), so the rhythm never
# deals it; it stays in the catalogue for the days dealt before the rhythm.
THREE_COMMANDS = frozenset({"no_rest", "no_reward"})
# The rules' readings (engine/flow.py RULES_VERSION) each day is played under, from its date
# on: everyone's attempt of one day, and its par, are the same game whichever release dealt
# them — a release that brings new readings names the first day they apply, a day not yet
# dealt — a week on, so that a release deployed late still comes first (rules 4, the solo
# option's reshuffle, changes a last round's mercenaries with a custom card set).
RULES_FROM: tuple[tuple[dt.date, int], ...] = ((dt.date(2026, 11, 1), 3),
                                               (dt.date(2026, 12, 7), 4))


def rules_on(day: dt.date) -> int:
    """The rules' readings of `day`'s challenge (`RULES_FROM`)."""
    return max((r for since, r in RULES_FROM if since <= day), default=RULES_FROM[0][1])


RHYTHM_FROM = dt.date(2026, 11, 30)  # a Monday: the first day of the weekly rhythm
RHYTHM: dict[int, Band] = {  # date.weekday(): Monday 0 … Sunday 6; frozen once shipped
    0: Band("easy", GENTLE, False),
    1: Band("easy", GENTLE | EVEN | SCARCE, None),
    2: Band("normal", GENTLE | EVEN | SCARCE, None),
    3: Band("normal", GENTLE | EVEN | SCARCE | HARSH, None),
    4: Band("hard", GENTLE | EVEN, False),
    5: Band("hard", SCARCE | HARSH, False),
    6: Band("hard", HARSH, True),  # both: the top level, Nightmare (service/levels.py)
}
"""The weekly rhythm people know from newspaper puzzles: easiest on Monday, harder through
the week, hardest at the weekend (Saturday: Hard with one scarce or harsh modifier; Sunday
with both harsh ones, the top level). The win rates it gives are measured in docs/daily.md (`bench/rhythm.py`).
Past days must rebuild as they were played, so this table is never edited for days already
out: a new rhythm would get a new cutover date of its own."""


def challenge_for(secret: bytes, day: dt.date, keyed_from: dt.date | None = None) -> Challenge:
    """The day's challenge, from the day's key. A day before `keyed_from` (the first day this
    release deals, kept in the database: `DailyHost.open`) was dealt by an older release and
    is rebuilt as it was played: see `legacy`."""
    key = day_key(secret, day)
    if keyed_from is not None and day < keyed_from:
        return legacy(day, key)
    return challenge_from_key(day, key)


def legacy(day: dt.date, key: bytes) -> Challenge:
    """A day dealt before the keyed generator and the weekly rhythm (issue 18, 19): splitmix64
    seeded with the digest's first 48 bits, the unbanded difficulty and modifiers — exactly
    what its players got, so its practice and review show the day they played."""
    return replace(_unbanded(day, key), legacy_seed=int.from_bytes(key[:6], "big"))


def challenge_from_key(day: dt.date, key: bytes) -> Challenge:
    """The day's challenge: the game's key, difficulty and one or two modifiers, all from one
    digest and the date — so a published key alone rebuilds a past day exactly.

    From `RHYTHM_FROM` the weekday sets the difficulty and the pool of modifiers (`RHYTHM`),
    and the digest picks within that band; days before it keep the derivation they were
    played with (`_unbanded`). Two modifiers never set the same option (so neither
    silently cancels the other)."""
    if len(key) != KEY_BYTES:
        raise ValueError(f"a day key is {2 * KEY_BYTES} hex digits")
    if day < RHYTHM_FROM:
        return _unbanded(day, key)
    band = RHYTHM[day.weekday()]
    cat = catalogue()
    mods = [m for m in modifiers_of(cat) if band.pool is None or m.id in band.pool]
    weights = {m["id"]: int(m.get("weight", 1)) for m in cat["modifiers"]}
    chosen = _pick_modifiers(key, mods, weights, band.second)
    return Challenge(day, number_of(day), key, band.difficulty, chosen)


def _unbanded(day: dt.date, key: bytes) -> Challenge:
    """A day before `RHYTHM_FROM`, exactly as it was derived when it was played: the
    difficulty weighted by the catalogue, any modifier, a second one every other day."""
    d = key
    cat = catalogue()
    difficulty = _weighted(sorted(cat["difficulties"].items()), int.from_bytes(d[6:8], "big"))
    mods = modifiers_of(cat)
    weights = {m["id"]: int(m.get("weight", 1)) for m in cat["modifiers"]}
    return Challenge(day, number_of(day), key, difficulty,
                     _pick_modifiers(key, mods, weights, None))


def _pick_modifiers(d: bytes, mods: list[Modifier], weight: Mapping[str, int],
                    second: bool | None) -> tuple[Modifier, ...]:
    """One modifier of `mods` from the digest, and a second that sets no option of the
    first: always (`second` True), never (False), or about every other day (None: the
    digest decides, as before the rhythm)."""
    weights = [(m.id, weight[m.id]) for m in mods]
    first = _weighted(weights, int.from_bytes(d[8:10], "big"))
    chosen = [next(m for m in mods if m.id == first)]
    if second or (second is None and d[10] % 2):
        taken = set(chosen[0].options)
        rest = [(m.id, w) for (i, w), m in zip(weights, mods, strict=True)
                if i != first and not taken & set(m.options)]
        if rest:
            pick = _weighted(rest, int.from_bytes(d[11:13], "big"))
            chosen.append(next(m for m in mods if m.id == pick))
    return tuple(chosen)


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


# ---- ranks and streaks ---------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Entry:
    """One finished ranked attempt as the board sees it: who, their score, when it ended
    (the tie-break) and the display name stored with the attempt."""

    user: int
    score: Score
    finished_at: float
    name: str = ""


def ranked(entries: Iterable[Entry]) -> list[tuple[int, Entry]]:
    """(rank, entry), best first, one rank each: more points first; equal points, the
    earlier finish first (it reached that score first); the same instant, the lower user
    id (only so the order is the same in every process)."""
    order = sorted(entries, key=lambda e: (-e.score.points, e.finished_at, e.user))
    return [(k + 1, e) for k, e in enumerate(order)]


@dataclass(frozen=True, slots=True)
class Standing:
    """'#37 of 1,204 — top 3%' after finishing."""

    rank: int
    total: int

    @property
    def top_percent(self) -> int:
        """The share of finishers at or above this rank, rounded, at least 1 %."""
        return max(1, round(100 * self.rank / self.total)) if self.total else 100


def standing(board: Sequence[tuple[int, Entry]], user: int) -> Standing | None:
    return next((Standing(rank, len(board)) for rank, e in board if e.user == user), None)


@dataclass(frozen=True, slots=True)
class Stats:
    """A player's ranked days. `played` counts every ranked attempt of a closed day or a
    finished one: a resign, and an attempt left unfinished at 00:00 UTC, are losses (had
    walking away not counted, it would keep a win % that resigning lowers); either breaks
    both streaks."""

    played: int
    won: int
    win_streak: int
    best_win_streak: int
    played_streak: int
    best_played_streak: int
    best: Score | None
    rounds_to_win: dict[int, int]  # rounds → wins in that many (Wordle's distribution)

    @property
    def win_percent(self) -> int:
        return round(100 * self.won / self.played) if self.played else 0


def _streaks(results: Mapping[dt.date, Score | None], today: dt.date,
             counts: Callable[[Score | None], bool]) -> tuple[int, int]:
    """(current, longest) run of consecutive UTC days that `counts`. Today not yet played
    does not break the current run (the player still has until 00:00 UTC); today played
    and not counting does."""
    longest, run, prev = 0, 0, None
    for d in sorted(results):
        if not counts(results[d]):
            run, prev = 0, None
            continue
        run = run + 1 if prev is not None and (d - prev).days == 1 else 1
        longest, prev = max(longest, run), d
    current = 0
    d = today if today in results else today - dt.timedelta(days=1)
    while d in results and counts(results[d]):
        current += 1
        d -= dt.timedelta(days=1)
    return current, longest


def stats(results: dict[dt.date, Score | None], today: dt.date) -> Stats:
    """Stats over a player's ranked days. `results[day]` is the score of a finished attempt,
    or None for an attempt left unfinished.

    Two streaks, as Wordle counts them: the win streak (consecutive days won; a loss ends
    it) and the played streak (consecutive days finished, won or lost). A resign or an
    unfinished day ends both: giving up is not playing the day out."""
    win = _streaks(results, today, lambda s: s is not None and s.won)
    played = _streaks(results, today, lambda s: s is not None and not s.resigned)
    scores = [s for s in results.values() if s is not None]
    dist: dict[int, int] = {}
    for s in scores:
        if s.won:
            dist[s.rounds] = dist.get(s.rounds, 0) + 1
    return Stats(len(results), sum(s.won for s in scores), *win, *played,
                 max(scores, key=lambda s: s.points) if scores else None,
                 dict(sorted(dist.items())))
