"""What the store hands out, for both backends: a game's row with typed seats and settings,
what a committed move left behind, outbox and daily rows — and the decoding of stored JSON
into them, written once (SQL-neutral) so SQLite and PostgreSQL read a damaged row the same
way: one damaged row is its own problem, never every read's.

Seats and settings are TypedDicts rather than dataclasses: they are stored as JSON objects
and handed on as such (to the engine's opening, to the console's tables), and mypy checks
every key read against them."""

from __future__ import annotations

import json
import logging
import math
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, Protocol, TypedDict, TypeGuard, cast, get_args

log = logging.getLogger("rr.store")

GameStatus = Literal["lobby", "active", "over", "abandoned"]
"""A game's life: a lobby seating players, an active game, and its two ends (played out;
abandoned by a vote, its host, a replacing practice or the operator)."""
ENDED: tuple[GameStatus, ...] = ("over", "abandoned")


def ends_unsettled(row: GameRow, status: GameStatus) -> bool:
    """A move that ends a channel (or console) game claims its settling in its own
    transaction (`unsettled_games`): ratings and history no longer hang on its game-over
    post being delivered (issue 24). A daily game has its own scoring and board."""
    return status == "over" and not row.settings.get("daily")

Timer = tuple[int, int, float, float | None]  # (seat, decision opened, deadline, remind_at)
Entry = tuple[int, int | None, str]  # a logged answer: (seat, who gave it or None, its text)

# What json.loads raises on stored text that is no JSON: RecursionError too, for text nested
# deeper than the interpreter's stack (`[[[[…` 100,000 deep): one such row failed every read
# of the games listing (startup verified no game at all), not only its own (the reliability
# audit).
UNPARSABLE = (TypeError, ValueError, RecursionError)


class GameMeta(TypedDict, total=False):
    """The hosting facts kept beside a game's state (service/meta.py and service/hints.py
    change them), each key absent until its first change. Seats are the JSON object's keys,
    so they are strings ("0"…"3")."""

    timeouts: dict[str, int]  # seat → R15 default answers given for it (two allow removal)
    kick: dict[str, list[int]]  # seat → the user ids who voted to remove it (`/rr remove`)
    zombie: dict[str, str]  # seat → the AI level playing it since its time-out (zombie mode)
    ai_stood_in: bool  # an AI ever stood in, kept after `/rr back`: unrated (issue 24)
    hints: dict[str, int]  # seat → hints used (`/rr hint`)
    hinted: dict[str, str]  # "seat:decision id" → the answer its hint suggested (the review)
    lobby_message: int  # the lobby's Discord message, updated by a typed `/rr lobby join`
    ratings_off: bool  # the server had ratings off when the game started: its start post
    # said "not rated", so it stays unrated whatever the switch says at its end (issue 24)
    names: dict[str, str]  # seat → the name its person goes by now, where it changed since
    # they joined (service/meta.py `renamed`): posts and images show it; setup keeps the old
    held: float  # when Discord began refusing the bot's posts there (service/limits.py):
    # its time limits are held until the bot can post again


MetaChange = Callable[[GameMeta], bool | None]
"""A change to a game's `meta`, made in place on the meta as stored at the moment of the
write (db.py, "Two writers"). Returning False says there was nothing to do (another writer
already made the change): then nothing is written. It runs inside the transaction, so it
must be quick and pure (no I/O)."""


class Seat(TypedDict):
    """One seat of a game (R2: up to four players)."""

    user: int  # the player's Discord user id; an AI seat's is negative (service/seats.py)
    name: str
    ai: NotRequired[str]  # the AI level playing this seat (ai.LEVELS)


class DailyInfo(TypedDict, total=False):
    """A daily challenge game's record: which day, ranked or practice, the day's number and
    where its channel posts go (the player's DM)."""

    day: str  # ISO date
    ranked: bool
    number: int
    post_channel: int


class Settings(TypedDict, total=False):
    """A game's settings. Only `players` must be readable (the store checks it); an
    optional one of the wrong type is dropped on reading and its default applies."""

    players: int  # seats (R2), 1 = solo (R13)
    difficulty: str | None  # R13.2 solo option: easy | normal | hard
    time_limit_s: float  # per decision (README "Time limits")
    lang: str  # the channel's language (i18n)
    zombie: str | None  # the AI level that plays a removed player's seat, or None
    hints: bool
    daily: DailyInfo
    boards: bool  # the console's compact board after each phase (`board on|off`)


class TimerRow(TypedDict):
    """A stored time limit: one per seat waiting on a decision."""

    game_id: int
    seat: int
    decision_id: int
    deadline: float
    remind_at: float | None
    reminded: int  # 1 once the reminder was claimed (`mark_reminded`)


class Columns(Protocol):
    """A row read by column name: an sqlite3.Row or an asyncpg Record."""

    def __getitem__(self, key: str, /) -> Any: ...


@dataclass(slots=True)
class GameRow:
    id: int
    guild_id: int | None
    channel_id: int
    status: GameStatus
    host_id: int
    seats: list[Seat]
    settings: Settings
    setup: dict[str, Any] | None
    state: str | None
    version: int
    meta: GameMeta
    # JSON columns that could not be read (the row is then only good for abandoning it)
    damage: list[str] = field(default_factory=list)

    def seat_of(self, user_id: int) -> int | None:
        for i, s in enumerate(self.seats):
            if s["user"] == user_id:
                return i
        return None


@dataclass(slots=True)
class Commit:
    """What a committed move left in the database: the game's row, its timers, and the id
    of the outbox row that announces it (None when nothing was to be told)."""

    row: GameRow
    timers: list[TimerRow]
    notice: int | None = None
    ended: int | None = None  # the outbox row of `commit_actions(ended=…)`, if one was given


@dataclass(frozen=True, slots=True)
class Marked:
    """A reminder this pass claimed (`mark_reminded`): it alone tells it. `notice` is the
    outbox row queued with it (None when the caller asked for none)."""

    notice: int | None


@dataclass(slots=True)
class Notice:
    """One outbox row: something that must still be told about a game (see
    service.notices for the body)."""

    id: int
    game_id: int
    version: int
    body: dict[str, Any]
    parts_done: int = 0
    attempts: int = 0


@dataclass(slots=True)
class NewGame:
    """A game that starts at once, without a lobby: what `create_started` writes. Hosts that
    prepare their games themselves (the daily challenge) open them this way, so no crash
    can leave a lobby missing the settings it was opened for."""

    guild_id: int | None
    channel_id: int
    host_id: int
    seats: list[Seat]
    settings: Settings
    setup: Mapping[str, Any]
    state: str
    entries: list[Entry]  # the answers resolved on their own at the start
    timers: list[Timer]
    notice: dict[str, Any] | None = None


# The time limits a game may have per decision (README "Time limits"; service/tables.py
# takes them from here). A stored one outside is damage: 1e12 s timed nobody out (R15) and
# its timers were found wrong and "rebuilt" as wrong at every load.
MIN_LIMIT_S, MAX_LIMIT_S = 60, 7 * 24 * 3600
# A deadline is no time a timer can have once it is more than the longest limit plus this
# ahead (the slack: processes on machines whose clocks differ a little write deadlines).
LATEST_SLACK_S = 3600

# Settings a game can do without: one of the wrong type is dropped (with a WARNING), so the
# readers' defaults apply (the time limit, the language, zombie mode) and the game plays on.
OPTIONAL_SETTINGS: dict[str, tuple[type, ...]] = {
    "time_limit_s": (int, float), "lang": (str,), "difficulty": (str, type(None)),
    "zombie": (str, type(None))}


def _seats_whole(seats: list[Any]) -> bool:
    return all(isinstance(s, dict) and isinstance(s.get("user"), int)
               and isinstance(s.get("name"), str) for s in seats)


def _meta_whole(meta: dict[str, Any]) -> bool:
    """Per-seat records (time-outs, removal votes, zombie seats) are objects."""
    return all(isinstance(meta.get(k, {}), dict) for k in ("timeouts", "kick", "zombie"))


def _settings_whole(settings: dict[str, Any], game_id: object) -> bool:
    """The seat count (and a daily game's record) must be read; an optional setting of the
    wrong type is dropped here, reported, and its default applies."""
    for key, kinds in OPTIONAL_SETTINGS.items():
        value = settings.get(key)
        if key in settings and (not isinstance(value, kinds) or isinstance(value, bool) or (
                isinstance(value, float | int) and not MIN_LIMIT_S <= value <= MAX_LIMIT_S)):
            log.warning("game %s: setting %s could not be read (%r); its default applies",
                        game_id, key, value)
            del settings[key]
    return isinstance(settings.get("players", 0), int) and \
        isinstance(settings.get("daily", {}), dict)


def game_row(r: Columns) -> GameRow:
    """A game row; a JSON column that does not parse (or has the wrong shape) is replaced by
    an empty value and named in `damage`, so one damaged game never breaks a read of others
    (and can still be found, reported and abandoned)."""
    damage: list[str] = []

    def load(column: str, kind: type, empty: Any,
             whole: Callable[[Any], bool] = lambda _: True) -> Any:
        raw = r[column]
        if raw is None and empty is None:
            return None
        try:
            value = json.loads(raw)
        except UNPARSABLE:
            value = None
        if not isinstance(value, kind) or not whole(value):
            damage.append(column)
            return empty
        return value

    guild_id = r["guild_id"]
    if guild_id is not None and not is_whole(guild_id):
        # (text, or a REAL SQLite made of a too large number): the shard formula raised on
        # it outside every per-game guard. As no server's, the process hosting games
        # outside any server finds the damage at load and sets the game aside
        damage.append("guild_id")
        guild_id = None
    if not is_whole(r["channel_id"]):
        # (the same kinds of damage): it was played on by the time-limit pass, each
        # time-out's announcement raising on the id (the fault-injection audit); set aside
        damage.append("channel_id")
    return GameRow(
        id=r["id"], guild_id=guild_id, channel_id=r["channel_id"], status=r["status"],
        host_id=r["host_id"], seats=load("seats", list, [], _seats_whole),
        settings=load("settings", dict, {}, lambda v: _settings_whole(v, r["id"])),
        setup=load("setup", dict, None) if r["setup"] else None, state=r["state"],
        version=r["version"], meta=load("meta", dict, {}, _meta_whole), damage=damage,
    )


def timer_row(r: Columns) -> TimerRow:
    return TimerRow(game_id=r["game_id"], seat=r["seat"], decision_id=r["decision_id"],
                    deadline=r["deadline"], remind_at=r["remind_at"], reminded=r["reminded"])


def stored_meta(raw: str | None) -> GameMeta:
    """The stored meta `raw`, read for a change. One that cannot be read raises ValueError
    and is not overwritten (that would erase what it held): the game is left for loading to
    find and set aside (service/games.py, quarantine)."""
    try:
        meta = json.loads(raw) if raw is not None else None
    except UNPARSABLE:
        meta = None
    if not isinstance(meta, dict):
        raise ValueError("the game's stored meta cannot be read; it is left as it is")
    # JSON has no TypedDict: the object is taken as the meta its writers (MetaChange) made
    return cast(GameMeta, meta)


def changed_meta(raw: str | None, change: MetaChange) -> GameMeta | None:
    """The stored meta `raw` after `change`, or None when the change found nothing to do."""
    meta = stored_meta(raw)
    return None if change(meta) is False else meta


def new_key() -> str:
    """A transaction key for a write no interaction caused (time limits, the console)."""
    return f"w:{uuid.uuid4().hex}"


def decode_notice(r: Columns) -> Notice | int:
    """An outbox row read on its own: its Notice, or its id when its body is not a JSON
    object (then nothing could be told from it, and it must not stop the others)."""
    try:
        body = json.loads(r["body"])
    except UNPARSABLE:
        body = None
    if not isinstance(body, dict) or not isinstance(body.get("kind"), str):
        return int(r["id"])
    return Notice(r["id"], r["game_id"], r["version"], body, r["parts_done"], r["attempts"])


NOT_A_NOTICE = "its body is not a JSON object with a kind"
NOTICE_WAIT_MAX_S = 2 * 3600.0
"""The furthest ahead an outbox row's `not_before` can be (the longest back-off is an hour,
a delivery's hold ten minutes). A time past it, or one that is no number at all (text on
SQLite, which sorts after every number; NaN on PostgreSQL, likewise), is damage that used to
keep that notice from ever being told: such a row is due at once, and the delivery that
fails rewrites the time. So is a wait left by a wall clock stepped back since it was
written: with a day allowed, a step back of 5 hours told a notice in back-off 5 hours
late (the clock audit); now at most two."""
OUTBOX_DUE = ("(not_before<={now} OR not_before>{late} OR claimed_until<={now})"
              " AND (created_at<{before} OR created_at>={inf})")
"""The outbox rows a pass may tell (`notices`), for either backend's placeholders: due, or
with a `not_before` that cannot be a real time; written before `before` (at startup, by an
earlier process), or with a `created_at` that is no finite number (text, NaN, infinity:
counted as written long ago, not as never). A row whose claim expired (its teller died or
stalled mid-post: `claim_notice`) is due at once, whatever its `not_before`."""


OUTBOX_CLAIMABLE = ("(claimed_by IS NULL OR claimed_by={holder} OR claimed_until IS NULL"
                    " OR claimed_until<={now} OR claimed_until>{late})")
"""An outbox row a process may take (`claim_notice`): nobody tells it, it is this process's
own, or its teller's claim expired (the teller died or stalled); a claim further ahead than
any renewal makes (a clock that jumped, a hand edit) counts as expired."""


def set_aside_row(source: str, r: Mapping[str, Any], reason: str) -> tuple[object, ...]:
    """The `set_aside` values keeping a damaged row as it was (damaged text stays text)."""
    return (source, r.get("game_id"), json.dumps(dict(r), default=str), reason, time.time())


def report_set_aside(source: str, rows: Sequence[Mapping[str, Any]], reason: str) -> None:
    """The WARNING an operator reads: which rows, of which games, and where they went."""
    for r in rows:
        log.warning("%s row %s (game %s) set aside in table set_aside: %s", source,
                    r.get("id"), r.get("game_id"), reason)


def is_time(value: object) -> TypeGuard[int | float]:
    """A stored time (or count) that is one: a finite number. SQLite keeps text in a REAL
    column and PostgreSQL NaN and infinity, and each sorts after every number."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def is_whole(value: object) -> TypeGuard[int]:
    """A stored whole number as one was written: SQLite keeps text or a REAL in an INTEGER
    column, and a JSON `true` reads as Python's bool, which is an int too."""
    return isinstance(value, int) and not isinstance(value, bool)


def news_channel(guild_id: int, value: object) -> int | None:
    """A server's stored daily news channel, None for none; one that is no channel id
    (text SQLite kept in its INTEGER column) reads as none, logged: `int()` of it failed
    `/rr daily settings` for that server with a traceback (the fault-injection audit)."""
    if value is None or is_whole(value):
        return value
    log.warning("the daily news channel of server %s could not be read (%r); read as none",
                guild_id, value)
    return None


def touched_at(slot: int, value: object) -> float:
    """When a daily slot's open game last changed, as the DM's choice of game reads it: a
    stored time that is no finite number (text SQLite kept in its REAL column, NaN or
    infinity) reads as the oldest, logged. It made that choice compare text with a number,
    and every command the player typed in their DM failed (the fault-injection audit)."""
    if is_time(value):
        return float(value)
    log.warning("daily slot %s: its game's last change is no time (%r); read as the oldest",
                slot, value)
    return 0.0


def is_flag(value: object) -> bool:
    """A stored 0/1 flag as one was written (None: no row, the default); anything else is
    damage, which any truthy text would otherwise read as set."""
    return value is None or (type(value) is int and value in (0, 1))


def json_object(raw: str | None) -> dict[str, Any] | None:
    """A stored JSON object, or None when the text is not one (damaged rows are read, not
    raised: one bad row must stay its own problem)."""
    try:
        value = json.loads(raw) if raw else None
    except UNPARSABLE:
        return None
    return value if isinstance(value, dict) else None


def quarantine_reason(raw: object, game_id: int) -> dict[str, Any]:
    """A stored quarantine reason as the words of a refusal read it. Unparsable: "error"
    (it could not be loaded). An "unreadable" one whose `what` is not a list of the parts
    that could not be read (a number, null, one string: a hand edit) made every refusal in
    its channel raise TypeError, so its players were told "Something went wrong" (the
    second fault-injection pass); its list is what can be read of it, else "error",
    logged."""
    reason = json_object(raw if isinstance(raw, str) else None)
    if reason is None:
        return {"kind": "error"}
    what = reason.get("what", [])
    if reason.get("kind") != "unreadable" or (
            isinstance(what, list) and all(isinstance(w, str) for w in what) and what):
        return reason
    kept = {**reason, "what": [what]} if isinstance(what, str) and what else {"kind": "error"}
    log.warning("game %s: its quarantine reason names what could not be read as %r; read as"
                " %s", game_id, str(what)[:40], kept)
    return kept


# ---- the daily challenge ------------------------------------------------------------------------
EVERY_DAY = "0001-01-01"  # `keyed_from` of a database no daily was played on
DEFAULT_REMIND_HOUR = 20  # UTC: four hours before the day closes


def day_flag_set(raw: object, day: str, flag: str) -> bool:
    """A `daily_days` flag (`announced`, `closed`, `recapped`) as stored: only 0 and 1 are
    ever written. Anything else is damage, which used to count as done for a read (any
    truthy text) and as never takeable for the write that sets it (`flag=0` false), so the
    day's news, close or recaps were silently skipped forever. It counts as not done, is
    logged, and the next pass runs that step and sets the flag (a step told twice is the
    worst case, never one lost)."""
    if is_flag(raw):
        return raw == 1
    log.warning("daily_days: the %s flag of %s could not be read (%r); counted as not done",
                flag, day, raw)
    return False


def remind_hour(raw: object, user_id: int) -> int:
    """A user's stored reminder hour (UTC; None: the default). Only 0–23 is ever written;
    anything else (text, 99) is damage that used to keep the reminder from ever coming
    (never "due") and made `/rr daily settings` fail on it: it reads as the default, logged."""
    if raw is None:
        return DEFAULT_REMIND_HOUR
    if type(raw) is int and 0 <= raw <= 23:
        return raw
    log.warning("daily_reminders: the hour of user %s could not be read (%r); the default"
                " %d UTC applies", user_id, raw, DEFAULT_REMIND_HOUR)
    return DEFAULT_REMIND_HOUR


HOLD_S = 600.0  # a delivery under way holds its row this long (then another pass may take it)

AttemptStatus = Literal["playing", "finished", "unfinished"]
DAMAGED_RANKED = "ranked NOT IN (0, 1)"
"""SQL: an attempt whose ranked flag is damaged (text in SQLite, which the primary key tells
apart from 1; another number). A ranked claim finding one of the player's day refuses, as for
a ranked attempt: the flag is only ever written 1 for the day's one ranked try or 0 for a
practice, so a damaged one may be that try, and a second ranked try of a day must never be
given (a practice lost to this is the lesser harm, and `/rr daily practice` replaces it)."""


def closed_attempt(user: str, day: str, ranked: str) -> str:
    """SQL (with the backend's placeholders for the user, the day and the 0/1 flag): the
    attempt a write that closes the day's ranked attempt (or practice) means. The ranked one
    is the row flagged 1 or, where there is none, the row whose flag is damaged, as
    `attempt` reads it: a write that looked for `ranked=1` alone left such an attempt
    playing for good (never scored, never closed with its day)."""
    return (f"ranked=(SELECT ranked FROM daily_attempts WHERE user_id={user} AND day={day}"
            f" AND (ranked={ranked} OR ({ranked}=1 AND {DAMAGED_RANKED}))"
            f" ORDER BY ranked={ranked} DESC LIMIT 1)")


ATTEMPT_PLAYING = "{0}status NOT IN ('finished', 'unfinished')"
"""SQL (format it with a table alias and its dot, or ""): an attempt still being played. An
attempt is over only once its row says so: a damaged status (none of `AttemptStatus`) counts
as playing, as `attempt_of` reads it, so the day's close still ends it (`status='playing'`
left it, and its game, open for ever)."""
DailyNoticeKind = Literal["news", "reminder", "time_up", "recap"]
"""A daily outbox row's kind: a server's news, a streak reminder, "your ranked day ended
unfinished", and the animated recap of a player's ranked game once its day closed."""


@dataclass(slots=True)
class Attempt:
    user_id: int
    day: str
    ranked: bool
    game_id: int | None
    name: str
    status: AttemptStatus
    score: dict[str, Any] | None
    share: str | None
    started_at: float
    finished_at: float | None
    # columns that could not be read ("score": the attempt is then left out of rankings;
    # "status": read as playing)
    damage: list[str] = field(default_factory=list)


@dataclass(slots=True)
class DailyNotice:
    """One `daily_outbox` row: a server's daily news or a player's streak reminder still to
    be told. It holds no text: the words are written at delivery, in `lang` (a reminder
    queued without one finds the player's language then)."""

    id: int
    kind: DailyNoticeKind
    day: str
    target: int  # news: the guild; reminder, time_up, recap: the user
    channel_id: int
    lang: str | None
    attempts: int


@dataclass(frozen=True, slots=True)
class Tell:
    """A daily outbox row written with another change, in its transaction (e.g. the "your
    day ended unfinished" DM with the attempt's end): its kind, where it goes, in which
    language, and from when (the host's clock) it may be sent."""

    kind: DailyNoticeKind
    channel_id: int
    lang: str | None
    at: float


def attempt_of(r: Columns) -> Attempt:
    """An attempt row; a score that is not a JSON object is read as None, named in `damage`
    and reported, so the attempt is left out of rankings instead of failing every read of
    its day. A time that is not one (text in SQLite's REAL column, NaN) is read as the end
    of time, named and reported: the board's tie-break sorts by it, and one text among
    numbers failed the whole day's board and news (the reliability audit)."""
    score = json_object(r["score"])
    damage = ["score"] if score is None and r["score"] else []
    if damage:
        log.warning("daily_attempts row of user %s on %s: its score could not be read; "
                    "left out", r["user_id"], r["day"])
    times: list[float | None] = []
    for column in ("started_at", "finished_at"):
        value = r[column]
        if value is not None and not is_time(value):
            log.warning("daily_attempts row of user %s on %s: its %s could not be read (%r);"
                        " ranked last among equal scores", r["user_id"], r["day"], column,
                        value)
            damage.append(column)
            value = math.inf
        times.append(value)
    status = r["status"]
    if status not in get_args(AttemptStatus):
        # not over until it says so (`ATTEMPT_PLAYING`): "done today" would have locked the
        # player out of a game still open
        log.warning("daily_attempts row of user %s on %s: its status could not be read (%r);"
                    " read as still playing", r["user_id"], r["day"], status)
        damage.append("status")
        status = "playing"
    return Attempt(r["user_id"], r["day"], bool(r["ranked"]), r["game_id"], r["name"],
                   status, score, r["share"], times[0] or 0.0, times[1], damage)


def daily_notice(r: Columns) -> DailyNotice:
    """A daily outbox row. A try count that is no number (text SQLite kept in its INTEGER
    column) reads as no try yet, logged, as the game outbox reads one: the back-off added
    to it, and the TypeError stopped the day job's pass for every row after it (the
    fault-injection audit). A negative one is left to the back-off (`notice_retry_s`)."""
    attempts = r["attempts"]
    if not is_whole(attempts):
        log.warning("daily_outbox row %s: its try count could not be read (%r); read as none",
                    r["id"], attempts)
        attempts = 0
    return DailyNotice(r["id"], r["kind"], r["day"], r["target"], r["channel_id"], r["lang"],
                       attempts)


def recap_rows(day: str, games: Sequence[tuple[int, str | None]],
               now: float) -> list[tuple[Any, ...]]:
    """The daily outbox rows of a closed day's recaps: (user, their ranked game's settings
    JSON) → one "recap" row to the DM the game was played in, in its language. A game
    whose settings cannot be read names no DM: it is skipped (its player still has
    `/rr-recap`)."""
    out: list[tuple[Any, ...]] = []
    for user_id, raw in games:
        settings = json_object(raw) or {}
        daily = settings.get("daily")
        channel = daily.get("post_channel") if isinstance(daily, dict) else None
        if not is_whole(channel) or channel <= 0:
            log.warning("daily recap of %s for user %s: no DM recorded; not queued", day,
                        user_id)
            continue
        lang = settings.get("lang")
        out.append(("recap", day, user_id, channel, lang if isinstance(lang, str) else None,
                    now, now))
    return out


def par_of(raw: str | None, day: str) -> dict[str, Any] | None:
    """A day's stored par; an unreadable one is reported and read as unknown, so it is
    computed again (and stored over the damaged text) instead of stopping the day job."""
    par = json_object(raw)
    if par is None and raw:
        log.warning("daily_days row %s: par could not be read; computing it again", day)
    return par



@dataclass(frozen=True, slots=True)
class Progress:
    """A learner's place in the tutorial (store/contract.py `TutorialStore`)."""

    user_id: int
    lesson: str
    step: int
    # the stored step was no whole number (SQLite keeps text or a fraction): `step` is what
    # it reads as, and it must be stored so, since an advance compares with the stored value
    damaged: bool = False


class DamagedSecret(ValueError):
    """The daily secret kept in the database cannot be read (a hand edit, a bad restore): a
    process must not start on it, nor make up another (the days would change)."""


DAMAGED_SECRET = ("the daily secret generated and kept in the database (table kv, key "
                  "daily_secret) is damaged: restore that row, or the database, from a backup "
                  "(docs/deploy.md, \"The daily secret\"); a new secret would change every "
                  "day's game")


def kept_secret(text: object) -> bytes | None:
    """The stored daily secret's bytes (None: none kept); DamagedSecret when the text is not
    the hex of a secret."""
    if text is None or text == "":
        return None
    try:
        return bytes.fromhex(str(text))
    except ValueError:
        raise DamagedSecret(DAMAGED_SECRET) from None
