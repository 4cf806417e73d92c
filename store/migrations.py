"""The schema of both backends, in one place, as numbered steps.

Why steps and not one CREATE script: a database made by an older bot must be brought up to
date at startup without losing games, and two processes starting at once must not both try.
Each step is written twice — SQLite and PostgreSQL — side by side, so a change to one is seen
next to the other. `schema_version` records the steps applied; a step runs once, in the same
transaction as its record, under the database's write lock (SQLite: BEGIN IMMEDIATE;
PostgreSQL: a transaction-scoped advisory lock), so a second process waits and then finds
nothing left to do.

Steps 1 and 2 use IF NOT EXISTS: databases made before `schema_version` existed already
hold those tables and simply get them recorded.

A step may also move data (`data`: Python, given each backend's rows through one small
adapter), in the same transaction as its DDL and its record. Step 4 is one: games stored
before card sets had versions get the version they were played with (issue 17).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine import find_cards_version

from .contract import NewerSchema, UnrecordedSchema

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class StoredGame:
    """What a data step reads of one game with a setup: its row's JSON text and its log."""

    id: int
    setup: str
    state: str | None
    log: list[list[Any]]
    created_at: float


Versioned = tuple[str, str | None]  # a game's new setup and state (JSON text)
# A data step: one stored game -> its new (setup, state), or None to leave it as it is;
# applied to every game with a setup, on either backend.
GameChange = Callable[[StoredGame], Versioned | None]


@dataclass(frozen=True, slots=True)
class Step:
    version: int
    name: str
    sqlite: str
    postgresql: str
    data: GameChange | None = None  # run after the DDL, in the same transaction


def version_cards(game: StoredGame) -> Versioned | None:
    """Step 4: name in a stored game's setup the released card set it was played with.

    A game from before versions would replay with today's cards — refused where a price or HP
    changed, silently different elsewhere. Its stored state (a cache of setup + log written by
    the release that played it) and its creation time say which set it was:
    `engine.find_cards_version`. The setup, and the setup inside the state, gain
    `cards_version`; nothing else changes. A game no released set replays is left as it was
    (it was damaged before: the service sets it aside as before); one with a custom set or a
    version already is not touched."""
    state_text = game.state
    try:
        setup = json.loads(game.setup)
        state = json.loads(state_text) if state_text else None
    except (ValueError, RecursionError):  # (nested past the stack: no JSON either)
        return None  # unreadable: the service reports it as before
    if not isinstance(setup, dict) or "cards" in setup or "cards_version" in setup:
        return None
    try:
        version = find_cards_version(setup, game.log, state if isinstance(state, dict) else None,
                                     game.created_at)
    except Exception:  # a damaged setup can fail anywhere: one game must not stop the upgrade
        log.exception("game %s: no card set version found; left as it was", game.id)
        return None
    if version is None:
        log.warning("game %s: no released card set replays its log; left as it was", game.id)
        return None
    setup["cards_version"] = version
    if isinstance(state, dict):
        state["setup"] = setup  # the engine's own form (Game.to_json), so a cache still equals
        state_text = json.dumps(state, ensure_ascii=False, sort_keys=True,
                                separators=(",", ":"))
    return json.dumps(setup), state_text


def ask_every_roll_as_then(game: StoredGame) -> Versioned | None:
    """Step 15: a game stored before the 'rolls' standing order (R12.1) replays as it was
    played.

    That engine asked after every roll a boon could improve, where today's asks only after a
    miss (the order's default, `miss`): a log holding an answer given after a hit failed to
    replay (the game was set aside), and a game waiting on such a question lost it. Such a
    game is known by its stored state, written by the engine that played it: no player in it
    has the order. Its setup gains `options.rolls = always`, the order everyone then had,
    and its card set version is found again with it (step 4 looked under the wrong rule, and
    left these games without one or chose by a replay that differed). A game the old rule
    does not replay either is left as it was."""
    try:
        setup = json.loads(game.setup)
        state = json.loads(game.state) if game.state else None
    except (ValueError, RecursionError):
        return None
    if not isinstance(setup, dict) or not isinstance(state, dict) or "cards" in setup:
        return None
    options, players = setup.get("options"), state.get("players")
    if not isinstance(options, dict) or "rolls" in options or not isinstance(players, list) \
            or not players or any(not isinstance(p, dict) or "rolls" in p for p in players):
        return None  # played with the order, or not a game this step can read
    then = {k: v for k, v in setup.items() if k != "cards_version"}
    then["options"] = {**options, "rolls": "always"}
    # the state as today's engine writes it: with the order every player then had
    as_then = {**state, "options": then["options"],
               "players": [{**p, "rolls": "always"} for p in players]}
    try:
        version = find_cards_version(then, game.log, as_then, game.created_at)
    except Exception:  # a damaged setup can fail anywhere: one game must not stop the upgrade
        log.exception("game %s: not replayed with the rolls asked then; left as it was",
                      game.id)
        return None
    if version is None:
        log.warning("game %s: the rule of its time does not replay it either; left as it was",
                    game.id)
        return None
    then["cards_version"] = version
    state["setup"] = then
    return json.dumps(then), json.dumps(state, ensure_ascii=False, sort_keys=True,
                                        separators=(",", ":"))


STEPS: tuple[Step, ...] = (
    Step(1, "games, action logs, timers, applied keys, outbox, quarantine", """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id INTEGER,
    channel_id INTEGER NOT NULL,
    status TEXT NOT NULL,             -- lobby | active | over | abandoned
    host_id INTEGER NOT NULL,
    seats TEXT NOT NULL,              -- JSON [{"user": id, "name": str}] in seat order
    settings TEXT NOT NULL,           -- JSON {"players": n, "difficulty", "time_limit_s", ...}
    setup TEXT,                       -- JSON engine setup (null while in the lobby)
    state TEXT,                       -- JSON engine state (cache of setup + log)
    version INTEGER NOT NULL DEFAULT 0,
    meta TEXT NOT NULL DEFAULT '{}',  -- JSON: timeouts per seat, kick votes, message ids
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS one_open_game_per_channel
    ON games(channel_id) WHERE status IN ('lobby', 'active');
CREATE INDEX IF NOT EXISTS games_by_channel ON games(channel_id, id);
CREATE TABLE IF NOT EXISTS actions (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    user_id INTEGER,
    text TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS timers (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    decision_id INTEGER NOT NULL,
    deadline REAL NOT NULL,
    remind_at REAL,
    reminded INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS applied (  -- every move's key: applied once
    key TEXT PRIMARY KEY,             -- "i:<interaction id>", or a generated one
    game_id INTEGER NOT NULL,
    version INTEGER NOT NULL,         -- the game's version it left
    text TEXT NOT NULL,               -- the answer as logged (a redelivery's reply)
    at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS outbox (   -- what must still be told; deleted once delivered
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games(id),
    version INTEGER NOT NULL,         -- the game's version when it was written
    log_end INTEGER,                  -- the log length it describes up to (undo drops later)
    body TEXT NOT NULL,               -- JSON: kind, log range, seats (see service.notices)
    parts_done INTEGER NOT NULL DEFAULT 0,  -- messages already sent (after a partial failure)
    attempts INTEGER NOT NULL DEFAULT 0,
    not_before REAL NOT NULL,         -- the live process delivers first; the worker after
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox(not_before);
CREATE TABLE IF NOT EXISTS quarantine (  -- games set aside because they are damaged
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    reason TEXT NOT NULL,             -- JSON {"kind": ..., details}: what was found
    at REAL NOT NULL
);
""", """
CREATE TABLE IF NOT EXISTS games (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    guild_id BIGINT,                  -- Discord ids are 64-bit
    channel_id BIGINT NOT NULL,
    status TEXT NOT NULL,
    host_id BIGINT NOT NULL,
    seats TEXT NOT NULL,              -- JSON kept as text: a damaged value stays readable
    settings TEXT NOT NULL,
    setup TEXT,
    state TEXT,
    version BIGINT NOT NULL DEFAULT 0,
    meta TEXT NOT NULL DEFAULT '{}',
    created_at DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS one_open_game_per_channel
    ON games(channel_id) WHERE status IN ('lobby', 'active');
CREATE INDEX IF NOT EXISTS games_by_channel ON games(channel_id, id);
CREATE TABLE IF NOT EXISTS actions (
    game_id BIGINT NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    user_id BIGINT,
    text TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS timers (
    game_id BIGINT NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    decision_id BIGINT NOT NULL,
    deadline DOUBLE PRECISION NOT NULL,
    remind_at DOUBLE PRECISION,
    reminded INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS applied (
    key TEXT PRIMARY KEY,
    game_id BIGINT NOT NULL,
    version BIGINT NOT NULL,
    text TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS applied_by_age ON applied(at);
CREATE TABLE IF NOT EXISTS outbox (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    game_id BIGINT NOT NULL REFERENCES games(id),
    version BIGINT NOT NULL,
    log_end INTEGER,
    body TEXT NOT NULL,
    parts_done INTEGER NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0,
    not_before DOUBLE PRECISION NOT NULL,
    created_at DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox(not_before);
CREATE TABLE IF NOT EXISTS quarantine (
    game_id BIGINT PRIMARY KEY REFERENCES games(id),
    reason TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL
);
"""),
    Step(2, "the daily challenge (store/daily.py)", """
CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS daily_attempts (
    user_id INTEGER NOT NULL,
    day TEXT NOT NULL,                -- the challenge's UTC date, ISO
    ranked INTEGER NOT NULL,          -- 1: the day's one ranked attempt; 0: practice
    game_id INTEGER,                  -- null until its game exists
    name TEXT NOT NULL,               -- display name when it was played
    status TEXT NOT NULL,             -- playing | finished | unfinished
    score TEXT,                       -- JSON Score (finished only), from the replayed log
    share TEXT,                       -- the spoiler-free share line
    started_at REAL NOT NULL,
    finished_at REAL,
    PRIMARY KEY (user_id, day, ranked)
);
CREATE INDEX IF NOT EXISTS daily_by_day ON daily_attempts(day, ranked, status);
CREATE TABLE IF NOT EXISTS daily_members (
    guild_id INTEGER NOT NULL, user_id INTEGER NOT NULL, PRIMARY KEY (guild_id, user_id));
CREATE TABLE IF NOT EXISTS daily_days (
    day TEXT PRIMARY KEY,
    par TEXT,                         -- JSON {level: Score json} from the AI players
    announced INTEGER NOT NULL DEFAULT 0,
    closed INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS daily_guilds (
    guild_id INTEGER PRIMARY KEY, channel_id INTEGER, lang TEXT NOT NULL DEFAULT 'en');
CREATE TABLE IF NOT EXISTS daily_reminders (
    user_id INTEGER PRIMARY KEY, channel_id INTEGER NOT NULL, last_day TEXT);
""", """
CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS daily_attempts (
    user_id BIGINT NOT NULL,
    day TEXT NOT NULL,
    ranked INTEGER NOT NULL,
    game_id BIGINT,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    score TEXT,
    share TEXT,
    started_at DOUBLE PRECISION NOT NULL,
    finished_at DOUBLE PRECISION,
    PRIMARY KEY (user_id, day, ranked)
);
CREATE INDEX IF NOT EXISTS daily_by_day ON daily_attempts(day, ranked, status);
CREATE TABLE IF NOT EXISTS daily_members (
    guild_id BIGINT NOT NULL, user_id BIGINT NOT NULL, PRIMARY KEY (guild_id, user_id));
CREATE TABLE IF NOT EXISTS daily_days (
    day TEXT PRIMARY KEY,
    par TEXT,
    announced INTEGER NOT NULL DEFAULT 0,
    closed INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS daily_guilds (
    guild_id BIGINT PRIMARY KEY, channel_id BIGINT, lang TEXT NOT NULL DEFAULT 'en');
CREATE TABLE IF NOT EXISTS daily_reminders (
    user_id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL, last_day TEXT);
"""),
    Step(3, "leases: one holder of a named job across processes", """
CREATE TABLE leases (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires REAL NOT NULL             -- on the clock the store was given (time.time)
);
""", """
CREATE TABLE leases (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires TIMESTAMPTZ NOT NULL      -- on the database's clock: machines need not agree
);
"""),
    Step(4, "every stored game names its card set version (issue 17)", "", "",
         data=version_cards),
    Step(6, "set_aside: damaged rows taken out of a shared table", """
CREATE TABLE set_aside (  -- a row that could not be read, moved here so the rest are read
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    source TEXT NOT NULL,             -- the table it came from ('outbox')
    game_id INTEGER,
    data TEXT NOT NULL,               -- JSON: the row's columns as they were (damaged ones
                                      -- as their raw text), for an operator to repair
    reason TEXT NOT NULL,             -- what could not be read
    at REAL NOT NULL
);
""", """
CREATE TABLE set_aside (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    source TEXT NOT NULL,
    game_id BIGINT,
    data TEXT NOT NULL,
    reason TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL
);
"""),
    # Steps 5, 7, 8 and 9 were set aside for work that needed no schema change; the steps
    # apply in order of their numbers, each once.
    Step(10, "the daily outbox (news, reminders) and each reminder's language and hour", """
CREATE TABLE daily_outbox (           -- a server's news or a player's reminder to tell
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,               -- news | reminder | time_up (a ranked day ended unfinished)
    day TEXT NOT NULL,                -- the challenge's UTC date it is about, ISO
    target INTEGER NOT NULL,          -- news: the guild id; reminder, time_up: the user id
    channel_id INTEGER NOT NULL,      -- where it goes (the news channel, the player's DM)
    lang TEXT,                        -- the reader's language (null: found at delivery)
    attempts INTEGER NOT NULL DEFAULT 0,
    not_before REAL NOT NULL,         -- a delivery under way, or a retry's time
    created_at REAL NOT NULL,
    UNIQUE (kind, day, target)        -- queued once; deleted only once Discord took it
);
CREATE INDEX daily_outbox_due ON daily_outbox(not_before);
ALTER TABLE daily_reminders ADD COLUMN lang TEXT;
ALTER TABLE daily_reminders ADD COLUMN hour INTEGER;  -- UTC hour; null: 20 (4 h before 00:00)
""", """
CREATE TABLE daily_outbox (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    kind TEXT NOT NULL,
    day TEXT NOT NULL,
    target BIGINT NOT NULL,
    channel_id BIGINT NOT NULL,
    lang TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    not_before DOUBLE PRECISION NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    UNIQUE (kind, day, target)
);
CREATE INDEX daily_outbox_due ON daily_outbox(not_before);
ALTER TABLE daily_reminders ADD COLUMN lang TEXT;
ALTER TABLE daily_reminders ADD COLUMN hour INTEGER;
"""),
    Step(11, "tutorial_progress: where each learner stands in the tutorial (issue 23)", """
CREATE TABLE tutorial_progress (      -- one row per user: the lesson and step to show next
    user_id INTEGER PRIMARY KEY,
    lesson TEXT NOT NULL,             -- a lesson id of service/data/tutorial.json
    step INTEGER NOT NULL,            -- 0-based; the lesson's step count once it is finished
    updated_at REAL NOT NULL
);
""", """
CREATE TABLE tutorial_progress (
    user_id BIGINT PRIMARY KEY,
    lesson TEXT NOT NULL,
    step INTEGER NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL
);
"""),
    Step(12, "ratings, profiles and history of finished games (issue 24, docs/ratings.md)", """
CREATE TABLE finished_games (         -- a finished channel game, settled once (its game id)
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    guild_id INTEGER,
    channel_id INTEGER NOT NULL,
    players INTEGER NOT NULL,
    unrated TEXT,                     -- null: rated; else why not (docs/ratings.md)
    ended_at REAL NOT NULL
);
CREATE INDEX finished_by_channel ON finished_games(channel_id, game_id);
CREATE TABLE finished_seats (         -- each seat's place in it (profiles, history)
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    user_id INTEGER NOT NULL,         -- an AI seat's id is negative
    place INTEGER NOT NULL,           -- 1 = first (winners share 1)
    won INTEGER NOT NULL,
    units TEXT NOT NULL,              -- JSON {"card": n, "merc:card": n}: units it brought in
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX finished_by_user ON finished_seats(user_id, game_id);
CREATE TABLE ratings (                -- a player's rating now; scope 0: across the bot
    scope INTEGER NOT NULL,           -- 0, or the server's id
    user_id INTEGER NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (scope, user_id)
);
CREATE TABLE rating_changes (         -- what one rated game did to one rating (charts)
    game_id INTEGER NOT NULL REFERENCES games(id),
    scope INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    mu_before REAL NOT NULL,
    sigma_before REAL NOT NULL,
    games_before INTEGER NOT NULL,
    mu_after REAL NOT NULL,
    sigma_after REAL NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, scope, user_id)
);
CREATE INDEX rating_changes_by_user ON rating_changes(user_id, scope, at);
CREATE TABLE stats_hidden (user_id INTEGER PRIMARY KEY, at REAL NOT NULL);
CREATE TABLE stats_servers (guild_id INTEGER PRIMARY KEY, ratings_off INTEGER NOT NULL);
""", """
CREATE TABLE finished_games (
    game_id BIGINT PRIMARY KEY REFERENCES games(id),
    guild_id BIGINT,
    channel_id BIGINT NOT NULL,
    players INTEGER NOT NULL,
    unrated TEXT,
    ended_at DOUBLE PRECISION NOT NULL
);
CREATE INDEX finished_by_channel ON finished_games(channel_id, game_id);
CREATE TABLE finished_seats (
    game_id BIGINT NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    user_id BIGINT NOT NULL,
    place INTEGER NOT NULL,
    won INTEGER NOT NULL,
    units TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX finished_by_user ON finished_seats(user_id, game_id);
CREATE TABLE ratings (
    scope BIGINT NOT NULL,
    user_id BIGINT NOT NULL,
    mu DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL,
    games INTEGER NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (scope, user_id)
);
CREATE TABLE rating_changes (
    game_id BIGINT NOT NULL REFERENCES games(id),
    scope BIGINT NOT NULL,
    user_id BIGINT NOT NULL,
    mu_before DOUBLE PRECISION NOT NULL,
    sigma_before DOUBLE PRECISION NOT NULL,
    games_before INTEGER NOT NULL,
    mu_after DOUBLE PRECISION NOT NULL,
    sigma_after DOUBLE PRECISION NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game_id, scope, user_id)
);
CREATE INDEX rating_changes_by_user ON rating_changes(user_id, scope, at);
CREATE TABLE stats_hidden (user_id BIGINT PRIMARY KEY, at DOUBLE PRECISION NOT NULL);
CREATE TABLE stats_servers (guild_id BIGINT PRIMARY KEY, ratings_off INTEGER NOT NULL);
"""),
    Step(13, "game_reviews: each finished game's review by the expert, computed once (issue 23)", """
CREATE TABLE game_reviews (           -- one row per reviewed game (service/review.py)
    game_id INTEGER PRIMARY KEY,
    review TEXT NOT NULL,             -- JSON: per person's seat, each decision judged
    created_at REAL NOT NULL
);
""", """
CREATE TABLE game_reviews (
    game_id BIGINT PRIMARY KEY,
    review TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL
);
"""),
    Step(14, "games still to settle, leaderboard names, the daily recap's flag (issue 24)", """
CREATE TABLE unsettled_games (        -- a channel game that ended and is not yet settled
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    ended_at REAL NOT NULL            -- written by the move that ended it (same transaction)
);
ALTER TABLE ratings ADD COLUMN name TEXT;  -- the display name the player last played as
ALTER TABLE daily_days ADD COLUMN recapped INTEGER NOT NULL DEFAULT 0;  -- recaps queued
-- a channel game that ended after ratings existed (step 12) but was never settled (its
-- game-over post, which settled it then, never went through): claimed now, so it is rated
INSERT INTO unsettled_games (game_id, ended_at)
    SELECT id, updated_at FROM games
    WHERE status = 'over' AND json_extract(settings, '$.daily') IS NULL
      AND id NOT IN (SELECT game_id FROM finished_games)
      AND updated_at >= (SELECT applied_at FROM schema_version WHERE version = 12);
""", """
CREATE TABLE unsettled_games (
    game_id BIGINT PRIMARY KEY REFERENCES games(id),
    ended_at DOUBLE PRECISION NOT NULL
);
ALTER TABLE ratings ADD COLUMN name TEXT;
ALTER TABLE daily_days ADD COLUMN recapped INTEGER NOT NULL DEFAULT 0;
INSERT INTO unsettled_games (game_id, ended_at)
    SELECT id, updated_at FROM games
    WHERE status = 'over' AND (settings::jsonb -> 'daily') IS NULL
      AND id NOT IN (SELECT game_id FROM finished_games)
      AND updated_at >= (SELECT EXTRACT(EPOCH FROM applied_at) FROM schema_version
                         WHERE version = 12);
"""),
    Step(15, "games stored before the 'rolls' standing order replay as they were played", "",
         "", data=ask_every_roll_as_then),
    Step(16, "an outbox row's claim: the one process telling it, until when", """
-- the process posting the notice, and until when its claim holds (renewed while it posts);
-- NULL: nobody tells it now (a row from before this step, or one waiting for a retry)
ALTER TABLE outbox ADD COLUMN claimed_by TEXT;
ALTER TABLE outbox ADD COLUMN claimed_until REAL;
""", """
ALTER TABLE outbox ADD COLUMN claimed_by TEXT;
ALTER TABLE outbox ADD COLUMN claimed_until DOUBLE PRECISION;
"""),
)

# Step 14's claims for a database `store.copy` takes from an SQLite file that has had step 12
# but not 14: the file's own time of step 12 ($1), since the target's is the copy's.
CLAIM_UNSETTLED_SINCE = """
INSERT INTO unsettled_games (game_id, ended_at)
    SELECT id, updated_at FROM games
    WHERE status = 'over' AND (settings::jsonb -> 'daily') IS NULL
      AND id NOT IN (SELECT game_id FROM finished_games) AND updated_at >= $1
"""

LATEST = STEPS[-1].version
ADVISORY_KEY = 0x52524442  # "RRDB": the PostgreSQL advisory lock that serialises migrations
MIGRATE_WAIT_S = 60.0  # a second process starting at once waits this long for the first


def statements(script: str) -> list[str]:
    """Whole statements of a script (a comment may hold a ';'). sqlite3's executescript would
    COMMIT first, so a step could not share the transaction that records it."""
    out, stmt = [], ""
    for part in script.split(";"):
        stmt += part + ";"
        if sqlite3.complete_statement(stmt):
            if stmt.strip(" \n;"):
                out.append(stmt.strip())
            stmt = ""
    return out


def _not_newer(done: set[int]) -> None:
    """Refuse a database a newer release has migrated past `LATEST` (the fault-injection
    audit: one at version 99 was opened and written to without a word)."""
    known = STEPS[-1].version
    if done and max(done) > known:
        raise NewerSchema(f"its schema is version {max(done)}, written by a newer release of "
                          f"the bot; this release knows versions up to {known}. Upgrade the "
                          f"bot, or use another database")


def _unrecorded(step: Step, error: Exception) -> UnrecordedSchema:
    """What a step that finds its own table already there means (the fault-injection audit:
    a database without `schema_version` read "table leases already exists")."""
    return UnrecordedSchema(
        f"its schema record does not match its tables: step {step.version} ({step.name}) is "
        f"not recorded in schema_version, yet what it makes is already there ({error}). The "
        f"record was removed or the tables were made by another program; restore the "
        f"database from a backup")


def migrate_sqlite(con: sqlite3.Connection) -> list[int]:
    """Bring an SQLite database up to `LATEST`; returns the versions applied now. The
    connection must be in autocommit mode (isolation_level=None)."""
    old_timeout = con.execute("PRAGMA busy_timeout").fetchone()[0]
    con.execute(f"PRAGMA busy_timeout={int(MIGRATE_WAIT_S * 1000)}")
    try:
        con.execute("BEGIN IMMEDIATE")
        try:
            con.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY,"
                        " name TEXT NOT NULL, applied_at REAL NOT NULL)")
            done = {r[0] for r in con.execute("SELECT version FROM schema_version")}
            _not_newer(done)
            applied = []
            for step in STEPS:
                if step.version in done:
                    continue
                try:
                    for stmt in statements(step.sqlite):
                        con.execute(stmt)
                except sqlite3.OperationalError as e:
                    if "already exists" in str(e):
                        raise _unrecorded(step, e) from e
                    raise
                if step.data is not None:
                    _data_sqlite(con, step.data)
                con.execute("INSERT INTO schema_version VALUES (?, ?, ?)",
                            (step.version, step.name, time.time()))
                applied.append(step.version)
            con.execute("COMMIT")
        except BaseException:
            if con.in_transaction:
                con.execute("ROLLBACK")
            raise
        return applied
    finally:
        con.execute(f"PRAGMA busy_timeout={old_timeout}")


async def migrate_postgresql(con: Any) -> list[int]:
    """Bring a PostgreSQL database (an asyncpg connection) up to `LATEST`; returns the
    versions applied now. DDL is transactional there, so a step lands whole or not at all."""
    async with con.transaction():
        await con.execute(f"SET LOCAL lock_timeout = '{int(MIGRATE_WAIT_S)}s'")
        await con.execute("SELECT pg_advisory_xact_lock($1)", ADVISORY_KEY,
                          timeout=MIGRATE_WAIT_S + 5)
        await con.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY"
                          " KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)")
        done = {r[0] for r in await con.fetch("SELECT version FROM schema_version")}
        _not_newer(done)
        applied = []
        for step in STEPS:
            if step.version in done:
                continue
            if step.postgresql:
                try:
                    await con.execute(step.postgresql)
                except Exception as e:  # asyncpg's DuplicateTable/DuplicateObject: 42P07/42710
                    if getattr(e, "sqlstate", None) in ("42P07", "42710", "42701"):
                        raise _unrecorded(step, e) from e
                    raise
            if step.data is not None:
                await data_postgresql(con, step.data)
            await con.execute("INSERT INTO schema_version VALUES ($1, $2, now())",
                              step.version, step.name)
            applied.append(step.version)
        return applied


def _data_sqlite(con: sqlite3.Connection, change: GameChange) -> None:
    """Apply a data step to every game with a setup, inside the migration's transaction."""
    for game_id, setup, state, created_at in con.execute(
            "SELECT id, setup, state, created_at FROM games WHERE setup IS NOT NULL"
            " ORDER BY id").fetchall():
        log_ = [[seat, text] for seat, text in con.execute(
            "SELECT seat, text FROM actions WHERE game_id=? ORDER BY seq", (game_id,))]
        new = change(StoredGame(game_id, setup, state, log_, created_at))
        if new is not None:
            con.execute("UPDATE games SET setup=?, state=? WHERE id=?", (*new, game_id))


async def data_postgresql(con: Any, change: GameChange) -> None:
    """`_data_sqlite` on PostgreSQL (an asyncpg connection in a transaction). Public because
    `store.copy` runs it too: a copy takes games from an SQLite file it does not migrate."""
    for r in await con.fetch("SELECT id, setup, state, created_at FROM games"
                             " WHERE setup IS NOT NULL ORDER BY id"):
        log_ = [[a["seat"], a["text"]] for a in await con.fetch(
            "SELECT seat, text FROM actions WHERE game_id=$1 ORDER BY seq", r["id"])]
        new = change(StoredGame(r["id"], r["setup"], r["state"], log_, r["created_at"]))
        if new is not None:
            await con.execute("UPDATE games SET setup=$1, state=$2 WHERE id=$3", *new, r["id"])
