"""Issue 24 in the console: when a game ends its animated recap is written to the output
folder as `recap-<game>.gif` beside the table images, and the `recap` command writes it
again (before the end it says the game is still on, and writes nothing)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image
from test_console import console

pytestmark = pytest.mark.process  # each test starts the console or CLI as a process


def test_console_writes_the_recap_at_the_end_and_on_request(tmp_path: Path) -> None:
    out = console(tmp_path, "--names", "Ann", lines=["recap", "resign", "resign", "recap", "quit"]).stdout
    assert "The game has not ended yet: its recap is written when it ends." in out
    path = tmp_path / "out" / "recap-1.gif"
    assert out.count(f"[recap] {path}") == 2, out  # at the end, then on request
    assert out.index("The game has not ended yet") < out.index("resigned") < \
        out.index(f"[recap] {path}")
    im = Image.open(io.BytesIO(path.read_bytes()))
    assert im.format == "GIF" and im.n_frames >= 2  # the title, then the table


def test_console_recap_in_japanese(tmp_path: Path) -> None:
    out = console(tmp_path, "--names", "Ann", "--lang", "ja",
                  lines=["振り返り", "resign", "resign", "quit"]).stdout
    assert "ゲームはまだ終わっていません" in out
    assert f"[振り返り] {tmp_path / 'out' / 'recap-1.gif'}" in out
