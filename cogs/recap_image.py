"""The animated recap of a game as the bot uploads it (issue 24): drawn from the stored
setup and log (R15) by service/replay.py and render/recap.py. Shared by the game-end post
(cogs/posts.py `post_recap`) and `/rr-recap` (cogs/recap.py)."""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import discord

from render.recap import LIMIT, recap_gif
from service.replay import replay

from .i18n import t


@dataclass(frozen=True, slots=True)
class Recap:
    """What an animated recap is drawn from: a stored game is its setup and log (R15)."""

    setup: Mapping[str, Any]
    log: list[list[Any]]
    names: list[str]


# What a recap may weigh: under the 8 MB (decimal; render's LIMIT is 8 MiB), which
# every upload limit Discord has had without a boost takes.
RECAP_LIMIT = min(LIMIT, 8_000_000)


def recap_gif_of(game_id: int, source: Recap, lang: str, limit: int = RECAP_LIMIT) -> bytes:
    """The animated recap of a game (a title, then one captioned table per phase, the
    board's changes highlighted), drawn smaller when it would weigh more than `limit`.
    Slow (seconds): run on a worker thread."""
    steps, title = replay(source.setup, source.log, source.names).recap(game_id, lang)
    return recap_gif(steps, title, lang=lang, limit=limit)


def recap_file(game_id: int, data: bytes, lang: str) -> discord.File:
    """The recap as an attachment, with alt text saying what it shows."""
    return discord.File(io.BytesIO(data), filename=f"recap-{game_id}.gif",
                        description=t("recap_alt", lang, game=game_id))
