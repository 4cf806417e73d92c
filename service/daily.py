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
  start, and `fingerprint` lets processes sharing a database prove they share the secret
  (service/daily_secret.py).
- No design stops one person from playing the day on a second Discord account first: that
  account sees the same game. The README and `/rr rules topic:daily` say so.
- A day's difficulty and modifiers are chosen from the same digest, from a data file a
  designer extends without code (`service/data/daily_modifiers.json`); the engine applies
  them as setup options, so setup + log still replays the attempt (R15).
- A score is never taken from a client: `replay_score` replays the stored setup and log,
  and the score is one integer made of documented terms (docs/daily.md;
  service/daily_score.py).
- Ranks and streaks are pure functions of stored results, so they are testable with a
  frozen clock and identical in every process (service/daily_standings.py).

This module is the day itself: its calendar, its key, its level and modifiers (the
`Challenge`); the secret, the score and the standings are the three modules named above,
and the dated tables a day is dealt under (the weekly rhythm, the rules' readings) are
service/daily_schedule.py.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

import i18n
from engine import Game
from engine.rng import KEY_BYTES

from .daily_schedule import RHYTHM, RHYTHM_FROM, rules_on
from .daily_secret import SecretError

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


