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
from test_console import console

from console.app import CHANNEL, Console
from console.options import parse_command_line
from store import Store

ROOT = Path(__file__).resolve().parent.parent


def test_console_game_with_two_ai_players_to_the_end(tmp_path):
    async def scenario():
        store = await Store(":memory:").open()
        out = io.StringIO()
        try:
            _ns, table = parse_command_line(["--names", "Ann", "--ai", "random", "random",
                                             "--seed", "9"])
            con = Console(store, tmp_path, "en", out, "c.db", table)
            con.auto_board = False
            await con.start(table)
            await con.handle("Bot 1 (random): done")
            # not typed for, and told why: an AI seat answers for itself
            assert ("! 🤖 Bot 1 (random) is an AI seat and answers for itself; you can type "
                    "for the players at the keyboard: Ann.") in out.getvalue()
            for line in ("hint Bot 1", "undo bot 2", "hand Bot 2", "legal Bot 1"):
                await con.handle(line)
            text = out.getvalue()
            assert text.count("is an AI seat and answers for itself") == 1, text
            # a hint and an undo say why not in their own words
            assert "! 🤖 Bot 1 (random) is an AI seat and decides for itself; hints" in text
            assert "! 🤖 Bot 2 (random) is an AI seat: its moves are its own" in text
            assert "Bot 2 (random)'s hand: " in text  # public (R3), an AI's too
            assert "🤖 Bot 1 (random) may: " in text  # and what that hand allows
            assert "No player called" not in text
            rng = random.Random(2)
            for _ in range(400):
                row, g = await con.service.tables.viewable(CHANNEL)
                if g.over:
                    break
                assert g.waiting_for() == [0], "the AI players had answered everything else"
                action = str(rng.choice(g.legal_actions(0)))
                assert await con.handle(action)  # one person waited for: no name needed
            assert g.over
        finally:
            await store.close()
        text = out.getvalue()
        assert "🤖 Bot 1 (random) placed" in text and "🤖 Bot 2 (random) placed" in text
        assert "> Ann:" in text and "> Bot" not in text and "> 🤖" not in text
        assert "(to 🤖" not in text  # an AI's private lines are nobody's to read
    asyncio.run(scenario())


@pytest.mark.parametrize("argv, why", [
    (["--ai", "godlike"], "invalid choice: 'godlike'"),
    (["--names", "A", "B", "--ai", "random", "random", "random"], "at most 4 players (R1)"),
    (["--players", "4", "--ai", "greedy"], "at most 4 players (R1)"),
    (["--ai", "random", "--difficulty", "hard"], "solo option rule (R13.2)"),
    (["--lang", "ja", "--ai", "random", "--difficulty", "hard"], "AIプレイヤーとは使えません"),
])
@pytest.mark.process
def test_console_ai_options_are_checked_in_one_line(tmp_path, argv, why):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bot.py"), "--console", "--db", str(tmp_path / "c.db"),
         "--out", str(tmp_path / "o"), *argv],
        input="quit\n", capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and why in proc.stderr, proc.stderr
    assert not (tmp_path / "c.db").exists()


@pytest.mark.process
def test_console_process_with_ai_players_and_resume(tmp_path):
    """A real `bot.py --console --ai …` process: the AI players place at once, Ann is asked;
    resumed, the AI seats stay AI (still not typed for, still not asked)."""
    cmd = [sys.executable, str(ROOT / "bot.py"), "--console", "--db", str(tmp_path / "c.db"),
           "--out", str(tmp_path / "o")]
    proc = subprocess.run(cmd + ["--names", "Ann", "--ai", "random", "greedy", "--seed", "4"],
                          input="status\nquit\n", capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "New game: Ann and 2 AI players (random, greedy)" in proc.stdout
    assert "🤖 Bot 2 (greedy) placed" in proc.stdout and "> Ann:" in proc.stdout
    assert "> 🤖" not in proc.stdout and "Traceback" not in proc.stderr
    again = subprocess.run(cmd, input="Bot 1 (random): done\nquit\n", capture_output=True,
                           text=True, timeout=120, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "Resuming the unfinished game" in again.stdout and "> Ann:" in again.stdout
    assert "Bot 1 (random) is an AI seat" in again.stdout and "> 🤖" not in again.stdout


@pytest.mark.process
def test_an_ai_players_hand_is_public_by_any_of_its_names(tmp_path):
    """R3 (p.16): a hand is public information — an AI seat's too, by the name it is shown
    with, the one it sat down with, or that name without its level."""
    out = console(tmp_path, "--names", "Ann", "--ai", "greedy",
                  lines=["hand Bot 1", "hand bot 1 (greedy)", "hand 🤖 Bot 1 (greedy)",
                         "hand Zed"]).stdout
    assert out.count("Bot 1 (greedy)'s hand: ") == 3, out
    assert "! No player called 'Zed'." in out


@pytest.mark.process
def test_ai_levels_are_named_in_the_readers_language(tmp_path):
    """The new-game line names an AI seat's level as its seat does (熟練, not expert)."""
    out = console(tmp_path, "--names", "花子", "--ai", "expert", "--lang", "ja").stdout
    assert "新しいゲーム: 花子とAIプレイヤー1人（熟練）" in out, out
    assert "expert" not in out


def test_an_ai_seat_is_named_in_hand_legal_hint_and_undo_as_shown() -> None:
    """The new-player audit: an AI seat typed as a newcomer reads it off the board — `Bot1`,
    `ボット 1` — was "No player called 'Bot1'" in `hand`, `legal`, `hint` and `undo`. Any
    name the board shows is read with its spaces folded: the hand and the legal actions are
    as public as anyone's (R3); a hint (the AI decides for itself) and an undo (nobody typed
    its moves) are refused saying so, naming the players at the keyboard."""
    from test_console_play import Table

    async def typed(args: list[str], lines: list[str], lang: str = "en") -> list[str]:
        store = await Store(":memory:").open()
        try:
            t = Table(store, args, lang)
            t.con.auto_board = False
            await t.start()
            return [await t.type(line) for line in lines]
        finally:
            await store.close()

    hand, legal, legal_act, hint, undo, line = asyncio.run(typed(
        ["--names", "Ann", "--ai", "greedy", "--seed", "1"],
        ["hand Bot1", "legal bot1", "legal Bot 1 act", "hint Bot1", "undo Bot 1", "Bot1: done"]))
    assert hand.startswith("Bot 1 (greedy)'s hand: "), hand
    assert legal.startswith("🤖 Bot 1 (greedy) may:"), legal
    assert legal_act.startswith("🤖 Bot 1 (greedy) may:"), legal_act
    assert hint == ("! 🤖 Bot 1 (greedy) is an AI seat and decides for itself; hints are for "
                    "the players at the keyboard: Ann.\n"), hint
    assert undo == ("! 🤖 Bot 1 (greedy) is an AI seat: its moves are its own, and undo takes "
                    "back only a move typed here, for Ann.\n"), undo
    assert line.startswith("! 🤖 Bot 1 (greedy) is an AI seat and answers for itself"), line

    hand, hint, undo = asyncio.run(typed(
        ["--names", "花子", "--ai", "greedy", "--seed", "1"],
        ["手札 ボット 1", "ヒント ボット1", "取消 ボット1（欲張り）"], "ja"))
    assert hand.startswith("ボット1（欲張り）の手札: "), hand
    assert hint == ("! 🤖 ボット1（欲張り）はAIの席で、自分で判断します。ヒントはキーボードの前の"
                    "プレイヤー向けです: 花子\n"), hint
    assert undo.startswith("! 🤖 ボット1（欲張り）はAIの席です。undoで取り消せるのは"), undo
