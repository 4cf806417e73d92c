"""Issue 24 in the console: a finished game is kept for `history` (never rated: one
terminal plays every seat), which lists the database's finished games with their date,
players, places and result, in English or Japanese."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_console import console

pytestmark = pytest.mark.process  # each test starts the console or CLI as a process


def test_console_history_lists_finished_games(tmp_path: Path) -> None:
    out = console(tmp_path, "--names", "Ann", lines=["history", "resign", "history",
                                                     "quit"]).stdout
    assert "No game has finished in this database yet." in out
    assert "never rated: one terminal plays every seat" in out
    assert "#1  " in out and "Ann  the monsters won" in out, out  # solo: no place
    assert out.index("No game has finished") < out.index("resigned") < out.index("#1  ")


def test_console_history_in_japanese(tmp_path: Path) -> None:
    out = console(tmp_path, "--names", "Ann", "--lang", "ja",
                  lines=["履歴", "resign", "履歴", "quit"]).stdout
    assert "このデータベースで終了したゲームはまだありません。" in out
    assert "Ann  モンスターの勝利" in out, out
