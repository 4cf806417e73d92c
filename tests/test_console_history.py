"""Issue 24 in the console: a finished game is kept for `history` (never rated: one
terminal plays every seat), which lists the database's finished games with their date,
players, places and result, in English or Japanese."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from test_console import console

pytestmark = pytest.mark.process  # each test starts the console or CLI as a process


def test_console_history_lists_finished_games(tmp_path: Path) -> None:
    out = console(tmp_path, "--names", "Ann", lines=["history", "resign", "resign", "history",
                                                     "quit"]).stdout
    assert "No game has finished in this database yet." in out
    assert "never rated: one terminal plays every seat" in out
    assert "#1  " in out and "Ann  the monsters won" in out, out  # solo: no place
    assert out.index("No game has finished") < out.index("resigned") < out.index("#1  ")


def test_console_history_in_japanese(tmp_path: Path) -> None:
    out = console(tmp_path, "--names", "Ann", "--lang", "ja",
                  lines=["履歴", "resign", "resign", "履歴", "quit"]).stdout
    assert "このデータベースで終了したゲームはまだありません。" in out
    assert "Ann  モンスターの勝利" in out, out


def test_a_game_that_ended_as_the_console_was_killed_is_kept_at_the_next_start(
        tmp_path: Path) -> None:
    """The crash audit: the move that ends a game claims its settling in its own
    transaction, and the console settled it only after drawing the recap (seconds); killed
    in between, the game never reached the history, and no console ever settled the claim.
    Here the database is left exactly as such a kill leaves it (the claim, no finished
    game); the next start keeps the game."""
    console(tmp_path, "--names", "Ann", lines=["resign", "resign", "quit"])
    con = sqlite3.connect(tmp_path / "c.db")
    with con:
        con.execute("DELETE FROM finished_seats")
        con.execute("DELETE FROM finished_games")
        con.execute("INSERT INTO unsettled_games (game_id, ended_at) SELECT id, updated_at"
                    " FROM games WHERE status = 'over'")
    con.close()
    out = console(tmp_path, "--names", "Bob", lines=["history", "quit"]).stdout
    assert "#1  " in out and "Ann  the monsters won" in out, out
    con = sqlite3.connect(tmp_path / "c.db")
    assert con.execute("SELECT count(*) FROM unsettled_games").fetchone() == (0,)
    con.close()


def test_a_damaged_history_row_reads_with_a_question_mark(tmp_path: Path) -> None:
    """The fault-injection audit: one finished game whose time is out of any calendar made
    the console's whole `history` an internal error (the Discord pages already read "?")."""
    console(tmp_path, "--names", "Ann", lines=["resign", "resign", "quit"])
    con = sqlite3.connect(tmp_path / "c.db")
    with con:
        con.execute("UPDATE finished_games SET ended_at=1e18")
    con.close()
    out = console(tmp_path, "--names", "Bob", lines=["history", "quit"]).stdout
    assert "#1  ?  " in out and "Ann  the monsters won" in out, out
    assert "went wrong" not in out and "internal" not in out.casefold()
