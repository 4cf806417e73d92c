"""The solo levels (issue 19): the rulebook's three (R13.2) and the top level above them,
Nightmare — Hard's deadline, no starting gold (R4) and a Skeleton in the opening summon (R7),
the daily's "Empty coffers" and "Bone march" — chosen from `/rr new` and the console, kept
as setup options."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from bot_driver import Clock, make_bot
from harness import Harness

from console.options import table_from, table_parser
from engine import Game
from service import daily, daily_schedule
from service.games import GameService
from service.levels import SOLO_LEVELS, level_of, level_options
from store.db import Store

ROOT = Path(__file__).resolve().parent.parent


def opening_monsters(g: Game) -> list[str]:
    """The monsters on the solo board right after setup: what the first summon brought."""
    return sorted(sq["card"] for sq in g.state["players"][0]["board"] if sq and "owner" not in sq)


def test_nightmare_is_hard_with_the_dailys_two_harsh_modifiers():
    """The top level invents nothing: Hard's R13.2 discards plus the catalogue's own
    "skeleton" and "poor" modifiers — the daily's Sunday band."""
    mods = {m["id"]: m["options"] for m in daily.catalogue()["modifiers"]}
    assert level_options("nightmare") == {**level_options("hard"), **mods["skeleton"],
                                          **mods["poor"]}
    assert {"skeleton", "poor"} == set(daily_schedule.HARSH)
    assert [SOLO_LEVELS[k]["difficulty"] for k in ("easy", "normal", "hard")] == \
        ["easy", "normal", "hard"]


def test_a_nightmare_game_discards_as_hard_and_always_opens_with_a_skeleton():
    """R13.2: the same 6 cards off the unit deck as Hard (the same final round); R4: no
    gold to start with; R7: a Skeleton in the opening summon in every deal, where Hard has
    one only when the shuffle puts it there."""
    hard_without = 0
    for seed in range(1, 31):
        hard = Game.new(["Ann"], seed=seed, options=level_options("hard"))
        nightmare = Game.new(["Ann"], seed=seed, options=level_options("nightmare"))
        assert nightmare.state["discard"] == hard.state["discard"]
        assert nightmare.state["unit_deck"] == hard.state["unit_deck"]
        assert "skeleton" in opening_monsters(nightmare), seed
        assert nightmare.state["players"][0]["gold"] == 0 < hard.state["players"][0]["gold"]
        hard_without += "skeleton" not in opening_monsters(hard)
    assert hard_without > 0


def test_the_level_is_read_back_from_a_games_options():
    assert level_of({"difficulty": None}) is None
    for name in SOLO_LEVELS:
        assert level_of(level_options(name)) == name
    # the daily's Sunday is the top level's game; one harsh modifier alone is not
    assert level_of({"difficulty": "hard", "opening_monster": "skeleton", "start_gold": 0}) \
        == "nightmare"
    assert level_of({"difficulty": "hard", "opening_monster": "skeleton"}) == "hard"


def test_the_service_starts_a_nightmare_game_and_refuses_it_for_several_players(tmp_path):
    async def main() -> None:
        store = await Store(str(tmp_path / "g.db")).open()
        svc = GameService(store, seed_source=lambda: 5)
        try:
            await svc.lobby.new_lobby(1, 1, 11, "Ann", players=1, difficulty="nightmare")
            out = await svc.lobby.start(1, 11)
            assert out.row.setup is not None
            options = out.row.setup["options"]
            assert options["difficulty"] == "hard" and options["opening_monster"] == "skeleton"
            assert options["start_gold"] == 0
            row, g = await svc.tables.current(1)
            assert "skeleton" in opening_monsters(g)
            with pytest.raises(Exception, match="(?i)solo"):
                await svc.lobby.new_lobby(1, 2, 11, "Ann", players=2, difficulty="nightmare")
            with pytest.raises(Exception, match="nightmare"):
                await svc.lobby.new_lobby(1, 3, 11, "Ann", players=1, difficulty="legendary")
        finally:
            svc.ai.close()
            await store.close()
    asyncio.run(main())


def test_rr_new_offers_nightmare_in_both_languages(tmp_path):
    """Through discord.py's command tree: the choice exists, the lobby names the level, and
    a Japanese reader sees its Japanese name."""
    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=2)) as h:
            ann, aki = h.user("ann"), h.user("aki", locale="ja")
            res = await h.slash(ann, "rr new", difficulty="nightmare")
            assert "Solo (nightmare)" in res.text, res.text
            started = await h.slash(ann, "rr start")
            assert "started" in started.text, started.text
            row = await h.bot.store.latest_game(h.channel.id)
            assert row is not None and row.setup is not None
            assert row.setup["options"]["opening_monster"] == "skeleton"
            other = h.text_channel("ja")
            h.server.guild_locale = "ja"
            res = await h.slash(aki, "rr new", difficulty="nightmare", channel=other)
            assert "悪夢" in res.text, res.text
    asyncio.run(scenario())


@pytest.mark.process
def test_the_console_plays_nightmare(tmp_path):
    """`--difficulty nightmare` (any case) starts the top level; the banner names it."""
    table = table_from(table_parser().parse_args(["--difficulty", "Nightmare"]))
    assert table.difficulty == "nightmare"
    r = subprocess.run([sys.executable, str(ROOT / "bot.py"), "--console", "--difficulty",
                        "nightmare", "--db", str(tmp_path / "c.db"), "--out",
                        str(tmp_path / "out"), "--seed", "4"],
                       input="quit\n", capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert "nightmare" in r.stdout, (r.stdout, r.stderr)
