"""AI players in the console mode (issue 9): `--ai LEVEL…` seats them; they answer at once
after each move, narrated like anyone under their marked names, and are never asked."""

from __future__ import annotations

import asyncio
import io
import random
import subprocess
import sys
from pathlib import Path

import pytest

from service import GameService
from service.console import CHANNEL, Console, main
from store import Store

ROOT = Path(__file__).resolve().parent.parent


def test_console_game_with_two_ai_players_to_the_end(tmp_path):
    async def scenario():
        store = await Store(":memory:").open()
        out = io.StringIO()
        con = Console(GameService(store, seed_source=lambda: 9), tmp_path, "en", out)
        await con.report(await con.setup(["Ann"], None, ["random", "random"]))
        await con.ai_turns()
        await con.handle("Bot 1 (random): done")
        assert "! No player called 'Bot 1 (random)'" in out.getvalue()  # nobody types for one
        rng = random.Random(2)
        for _ in range(400):
            row, g = await con.service.viewable(CHANNEL)
            if g.over:
                break
            assert g.waiting_for() == [0], "the AI players had answered everything else"
            action = str(rng.choice(g.legal_actions(0)))
            assert await con.handle(action)  # one person waited for: no name needed
        assert g.over
        text = out.getvalue()
        assert "🤖 Bot 1 (random) placed" in text and "🤖 Bot 2 (random) placed" in text
        assert "> Ann:" in text and "> Bot" not in text and "> 🤖" not in text
        await store.close()
    asyncio.run(scenario())


@pytest.mark.parametrize("argv, why", [
    (["--ai", "godlike"], "invalid choice: 'godlike'"),
    (["--names", "A", "B", "--ai", "random", "random", "random"], "at most 4 players"),
    (["--ai", "random", "--difficulty", "hard"], "solo option rule"),
])
def test_console_ai_options_are_checked(argv, why, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2 and why in capsys.readouterr().err


def test_console_process_with_ai_players(tmp_path):
    """A real `bot.py --console --ai …` process: the AI players place at once, Ann is asked."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bot.py"), "--console", "--names", "Ann", "--ai", "random",
         "random", "--seed", "4", "--db", str(tmp_path / "c.db"), "--out", str(tmp_path / "o")],
        input="status\nquit\n", capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "New game: Ann and 2 AI player(s)" in proc.stdout
    assert "🤖 Bot 2 (random) placed" in proc.stdout and "> Ann:" in proc.stdout
    assert "Traceback" not in proc.stderr
