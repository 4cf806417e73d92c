"""Rook & Raiders for Discord — entry point.

`python bot.py` runs the bot (DISCORD_TOKEN required); `python bot.py --console` plays a
game offline in the terminal through the same service layer. Configuration comes from the
environment only, so the same build runs anywhere:

  DISCORD_TOKEN   the bot token (required unless --console)
  RR_DB           where games are kept: an SQLite file (default: rookraiders.db), or a
                  postgresql://user@host/db URL so several bot processes share one database
  RR_LOG_LEVEL    DEBUG / INFO / WARNING (default: INFO)
  RR_TICK_SECONDS how often time limits are checked (default: 30)
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Config:
    token: str | None
    db_path: str = "rookraiders.db"
    log_level: str = "INFO"
    tick_seconds: float = 30.0


def load_config(env: Mapping[str, str]) -> Config:
    level = env.get("RR_LOG_LEVEL", "INFO").upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        level = "INFO"
    try:
        tick = max(1.0, float(env.get("RR_TICK_SECONDS", "30")))
    except ValueError:
        tick = 30.0
    return Config(token=env.get("DISCORD_TOKEN") or None,
                  db_path=env.get("RR_DB", "rookraiders.db"), log_level=level, tick_seconds=tick)


def main(argv: list[str]) -> int:
    if "--console" in argv:
        from console import main as console_main

        return console_main([a for a in argv if a != "--console"])
    config = load_config(os.environ)
    logging.basicConfig(level=config.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if config.token is None:
        print("bot.py: DISCORD_TOKEN is not set — export your bot token, or try the game "
              "offline with `bash rr run --console`.", file=sys.stderr)
        return 2
    from cogs.bot import RookBot

    RookBot(config, freeze_gc=True, ai_processes=True).run(config.token, log_handler=None)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
