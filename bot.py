"""Rook & Raiders for Discord — entry point.

`python bot.py` runs the bot (DISCORD_TOKEN required); `python bot.py --console` plays a
game offline in the terminal through the same service layer; `python bot.py --check` checks
a deployment without Discord — the settings, the database (opened, migrations applied), the
shard settings and the daily secret against the database's — and says in one line that it
is ready (exit 0) or why not (exit 2), so a unit or a deploy script can ask before it starts
the bot. Configuration comes from the environment only, so the same build runs anywhere:

  DISCORD_TOKEN   the bot token (required unless --console)
  RR_DB           where games are kept: an SQLite file (default: rookraiders.db), or a
                  postgresql://user@host/db URL so several bot processes share one database
  RR_LOG_LEVEL    DEBUG / INFO / WARNING (default: INFO)
  RR_TICK_SECONDS how often time limits are checked (default: 30)
  RR_SHARD_COUNT  several processes sharing one database (PostgreSQL; or an SQLite file, all
                  processes on one machine: docs/deploy.md): the total number of
                  Discord shards over all of them (unset: this is the only process, and it
                  runs as many shards as Discord recommends)
  RR_SHARD_IDS    this process's shards, e.g. `0,1` or `2-3` (default: all of them). A game
                  belongs to the process holding its server's shard; games outside a server
                  (the daily challenge in DMs) are timed by the one holding shard 0
                  (service/shards.py; docs/deploy.md)
  RR_LEASE_SECONDS how long a process holds the daily day job after its last renewal
                  (default: 60): a dead holder's job is taken over after at most this long
  RR_DAILY_SECRET the daily challenge's secret, at least 128 bits (e.g. 64 hex digits:
                  python -c "import secrets; print(secrets.token_hex(32))"); unset, one is
                  generated at the first start and kept in the database. Every process on
                  one database must have the same one: the database keeps its fingerprint
                  and a process with another refuses to start (docs/deploy.md)
  RR_PG_POOL_SIZE PostgreSQL only: the most connections this process's pool holds
                  (default: 10, from 1 to 1000); every process holds its own, so the
                  server's max_connections must cover their sum (docs/deploy.md)
  RR_PG_ACQUIRE_SECONDS PostgreSQL only: how long a command waits for a free connection
                  of the pool before it is answered "the database is busy; nothing was
                  changed" (default: 2, more than 0 and at most 60). A bad value of either
                  stops the bot at start with one line saying why
  RR_DAILY_PAR_PLAYS how many games each par AI plays of the day for its odds ("the expert
                  bot wins this day 3 times in 10"; default 10, about a minute of one core
                  once a day: docs/daily.md)
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from cogs.config import Config
from service.daily import keyed_from_date
from service.daily_secret import SecretError, check_fingerprint, check_secret
from service.shards import parse_shards
from store import (
    ACQUIRE_S,
    POOL_SIZE,
    DamagedSecret,
    StoreUnavailable,
    daily_store,
    is_postgres,
    make_store,
)
from store.migrations import LATEST
from store.rows import kept_secret

CHECK_OPEN_S = 20.0  # `--check`: a database that has not answered by then is unreachable
# RR_PG_POOL_SIZE's and RR_PG_ACQUIRE_SECONDS's bounds: a pool beyond a thousand connections
# per process is a typo (a server's max_connections is ~100 by default), and a wait beyond a
# minute leaves a player looking at "thinking…" for longer than anyone waits for a move.
POOL_MAX = 1000
ACQUIRE_MAX_S = 60.0


def pool_settings(env: Mapping[str, str]) -> tuple[int, float]:
    """RR_PG_POOL_SIZE and RR_PG_ACQUIRE_SECONDS (the defaults when unset); ValueError with
    a one-line reason for a value outside their bounds. Unlike RR_TICK_SECONDS, a bad value
    is not quietly replaced: an operator who sized the pool for the server wants to know
    their setting was not taken, before the bot runs with another."""
    raw = env.get("RR_PG_POOL_SIZE", "").strip()
    try:
        size = int(raw) if raw else POOL_SIZE
    except ValueError:
        size = 0
    if not 1 <= size <= POOL_MAX:
        raise ValueError(f"RR_PG_POOL_SIZE must be a whole number from 1 to {POOL_MAX} "
                         f"(the most database connections this process holds), not {raw!r}")
    raw = env.get("RR_PG_ACQUIRE_SECONDS", "").strip()
    try:
        wait = float(raw) if raw else ACQUIRE_S
    except ValueError:
        wait = -1.0
    if not 0 < wait <= ACQUIRE_MAX_S:  # (NaN fails both comparisons)
        raise ValueError(f"RR_PG_ACQUIRE_SECONDS must be a number of seconds above 0 and at "
                         f"most {ACQUIRE_MAX_S:g} (how long a command waits for a free "
                         f"database connection), not {raw!r}")
    return size, wait


def load_config(env: Mapping[str, str]) -> Config:
    """The settings; ValueError (with the reason) for shard settings that make no sense, a
    daily secret too weak to keep the days unknown, or a PostgreSQL pool setting out of
    bounds."""
    level = env.get("RR_LOG_LEVEL", "INFO").upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        level = "INFO"
    try:
        tick = max(1.0, float(env.get("RR_TICK_SECONDS", "30")))
    except ValueError:
        tick = 30.0
    try:
        lease = max(3.0, float(env.get("RR_LEASE_SECONDS", "60")))
    except ValueError:
        lease = 60.0
    try:
        plays: int | None = max(1, int(env["RR_DAILY_PAR_PLAYS"]))
    except (KeyError, ValueError):
        plays = None

    shards = parse_shards(env.get("RR_SHARD_COUNT"), env.get("RR_SHARD_IDS"))
    pool_size, acquire_s = pool_settings(env)
    if env.get("RR_DAILY_SECRET"):  # a weak one would give every future day away
        check_secret(env["RR_DAILY_SECRET"])
    return Config(token=env.get("DISCORD_TOKEN") or None,
                  db_path=env.get("RR_DB", "rookraiders.db"), log_level=level, tick_seconds=tick,
                  daily_par_at_start=True, shard_count=shards.count, shard_ids=shards.ids,
                  lease_seconds=lease, daily_par_plays=plays, pg_pool_size=pool_size,
                  pg_acquire_s=acquire_s)


class NotReady(Exception):
    """`--check` found what would stop the bot (or make it misbehave): one line for the
    operator."""


def shown(db: str) -> str:
    """Where the games are, fit for a log or a terminal: a URL's password (in its user part
    or as `?password=`) is never shown; a file path is shown as it is."""
    if "://" not in db:
        return db
    parts = urlsplit(db)
    if parts.password is not None:
        host = parts.netloc.rpartition("@")[2]
        parts = parts._replace(netloc=f"{parts.username or ''}:***@{host}")
    query = [(k, "***" if k == "password" else v) for k, v in parse_qsl(parts.query)]
    return urlunsplit(parts._replace(query=urlencode(query, safe="*")))


def first_line(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= 300 else text[:297] + "…"


async def check(config: Config, raw_secret: str | None) -> str:
    """What `bot.py --check` says of a deployment whose settings parsed (`load_config`):
    the line to print when the bot would start, or NotReady with why it would not. It does
    what a start does to the database and nothing more — opens it, applies the migrations
    (store/migrations.py) — and only reads the daily secret's records: the first start
    stores them, exactly as without the check."""
    if config.token is None:
        raise NotReady("DISCORD_TOKEN is not set — the bot cannot log in to Discord")
    where = shown(config.db_path)
    store = make_store(config.db_path, pg_pool_size=config.pg_pool_size,
                       pg_acquire_s=config.pg_acquire_s)
    try:
        await asyncio.wait_for(store.open(), CHECK_OPEN_S)
        try:
            kept, stored = await daily_store(store).stored_secret()
            first_keyed = await daily_store(store).stored_keyed_from()
        finally:
            await store.close()
    except TimeoutError:
        raise NotReady(f"the database {where} did not answer within {CHECK_OPEN_S:.0f} s") \
            from None
    except Exception as e:  # unreachable, refused, not a database, no schema to create in
        raise NotReady(f"the database {where} cannot be used: {first_line(e)}") from None
    if first_keyed is not None:  # as a start reads it (service/daily_play.py)
        try:
            keyed_from_date(first_keyed)
        except SecretError as e:
            raise NotReady(str(e)) from None
    try:
        generated = kept_secret(kept)
    except DamagedSecret as e:
        if not raw_secret:
            raise NotReady(str(e)) from None
        generated = None  # RR_DAILY_SECRET is compared with the fingerprint below
    key = check_secret(raw_secret) if raw_secret else generated
    if stored is None:
        secret = ("RR_DAILY_SECRET (the database has no fingerprint yet: the first start "
                  "stores it)" if raw_secret else "none set: the first start generates one "
                  "and keeps it in the database")
    else:
        try:  # without a secret of its own or stored, a start would generate a new one
            check_fingerprint(key if key is not None else os.urandom(32), stored)
        except SecretError as e:
            raise NotReady(str(e)) from None
        secret = ("RR_DAILY_SECRET, the database's" if raw_secret
                  else "the one generated and kept in the database")
    shards = ("this process alone, every shard Discord recommends" if config.shard_count is None
              else f"{','.join(map(str, config.shard_ids))} of {config.shard_count}")
    pool = (f", a pool of up to {config.pg_pool_size} connections waited for "
            f"{config.pg_acquire_s:g} s at most" if is_postgres(config.db_path) else "")
    return (f"ready: database {where} (schema version {LATEST}{pool}); shards {shards}; "
            f"daily secret {secret}")


def main(argv: list[str]) -> int:
    if "--console" in argv:
        from console import main as console_main

        return console_main([a for a in argv if a != "--console"])
    if "-h" in argv or "--help" in argv:  # what a newcomer types first: the modes and settings
        print(__doc__.strip())
        print("\nThe console's own options: python bot.py --console --help")
        return 0
    unknown = [a for a in argv if a != "--check"]
    if unknown:
        print(f"bot.py: unknown option {unknown[0]!r}: python bot.py --help lists the modes "
              "(the console's options go after --console)", file=sys.stderr)
        return 2
    try:
        config = load_config(os.environ)
    except ValueError as e:  # wrong servers to host, a weak daily secret: never start
        print(f"bot.py{' --check' if '--check' in argv else ''}: {e}", file=sys.stderr)
        return 2
    if "--check" in argv:
        try:
            ready = asyncio.run(check(config, os.environ.get("RR_DAILY_SECRET")))
            print(f"bot.py --check: {ready}")
        except NotReady as e:
            print(f"bot.py --check: {e}", file=sys.stderr)
            return 2
        return 0
    logging.basicConfig(level=config.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if config.token is None:
        print("bot.py: DISCORD_TOKEN is not set — export your bot token, or try the game "
              "offline with `bash rr run --console`.", file=sys.stderr)
        return 2
    from cogs.bot import RookBot

    try:
        RookBot(config, freeze_gc=True, ai_processes=True,
                draw_processes=True).run(config.token, log_handler=None)
    except SecretError as e:  # the database holds another secret's fingerprint
        print(f"bot.py: {e}", file=sys.stderr)
        return 2
    except StoreUnavailable as e:  # not a database, or one a newer release wrote
        print(f"bot.py: the database {shown(config.db_path)} cannot be used: {first_line(e)}",
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
