"""Issue 23 in the console: `review` (講評) prints the expert's review of the finished game
and writes its chart to the output folder as `review-<game>.png`; before the end it says
the game is still on and writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_console import console

pytestmark = pytest.mark.process  # each test starts the console or CLI as a process

PNG = b"\x89PNG"


def test_console_review_before_and_after_the_end(tmp_path: Path) -> None:
    out = console(tmp_path, "--names", "Ann",
                  lines=["review", "Ann: place thief 2B", "resign", "resign", "review", "quit"]).stdout
    assert "Game 1 has not ended yet: it can be reviewed once it is over." in out, out
    path = tmp_path / "out" / "review-c-1.png"
    assert "Game 1: the expert's review" in out and "Ann: accuracy" in out, out
    assert "over 1 decision" in out and "over 1 decisions" not in out  # the placement
    assert f"The review chart is in {path}." in out
    assert out.index("has not ended yet") < out.index("resigned") < out.index("expert's review")
    assert path.read_bytes().startswith(PNG)


def test_console_review_in_japanese(tmp_path: Path) -> None:
    out = console(tmp_path, "--names", "Ann", "--lang", "ja",
                  lines=["講評", "Ann: place thief 2B", "resign", "resign", "講評", "quit"]).stdout
    assert "ゲーム1はまだ終わっていません。講評は終了後に見られます。" in out, out
    assert "ゲーム1: 熟練AIの講評" in out and "正確度" in out, out
    assert (tmp_path / "out" / "review-c-1.png").read_bytes().startswith(PNG)


def test_a_finished_game_is_reviewed_by_its_number_after_a_new_one_began(tmp_path: Path) -> None:
    """The next start deals a new game; the finished one stays within reach: `review 1`
    and `recap 1` (the numbers `history` shows), and the end of a game says so."""
    first = console(tmp_path, "--names", "Ann", lines=["Ann: place thief 2B", "resign", "resign",
                                                       "quit"]).stdout
    assert "Type review for the expert's review" in first, first
    out = console(tmp_path, "--names", "Ann", lines=["history", "review 1", "recap 1",
                                                      "review 7", "quit"]).stdout
    assert "#1" in out and "Game 1: the expert's review" in out and "Ann: accuracy" in out
    assert (tmp_path / "out" / "review-c-1.png").read_bytes().startswith(PNG)
    assert (tmp_path / "out" / "recap-c-1.gif").read_bytes().startswith(b"GIF8")
    assert "There is no game '7' in this database: history lists the finished ones" in out


def test_a_resignation_before_any_choice_has_nothing_to_review(tmp_path: Path) -> None:
    """The learning audit: a player who resigned at placement got "accuracy 100% over 0
    decisions" and an empty chart; now the review says there was nothing to judge."""
    out = console(tmp_path, "--names", "Ann", lines=["resign", "resign", "review", "quit"]).stdout
    assert "Ann: no decision to review" in out and "accuracy" not in out, out
    assert not (tmp_path / "out" / "review-c-1.png").exists()
