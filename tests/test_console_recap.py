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
    path = tmp_path / "out" / "recap-c-1.gif"
    assert out.count(f"[recap] {path}") == 2, out  # at the end, then on request
    assert out.index("The game has not ended yet") < out.index("resigned") < \
        out.index(f"[recap] {path}")
    im = Image.open(io.BytesIO(path.read_bytes()))
    assert im.format == "GIF" and im.n_frames >= 2  # the title, then the table


def test_console_recap_in_japanese(tmp_path: Path) -> None:
    out = console(tmp_path, "--names", "Ann", "--lang", "ja",
                  lines=["振り返り", "resign", "resign", "quit"]).stdout
    assert "ゲームはまだ終わっていません" in out
    assert f"[振り返り] {tmp_path / 'out' / 'recap-c-1.gif'}" in out


def test_two_databases_sharing_an_output_folder_keep_their_own_recaps(tmp_path: Path) -> None:
    """The new-player audit: each database numbers its games from 1, so a second database
    writing to the same folder overwrote the first one's `recap-1.gif`. Each recap is now
    named after its database too."""
    first = console(tmp_path, "--names", "Ann", lines=["resign", "resign", "quit"],
                    db="club.db").stdout
    second = console(tmp_path, "--names", "Bob", "--players", "1",
                     lines=["resign", "resign", "quit"], db="home.db").stdout
    a, b = tmp_path / "out" / "recap-club-1.gif", tmp_path / "out" / "recap-home-1.gif"
    assert f"[recap] {a}" in first and f"[recap] {b}" in second
    assert a.read_bytes() != b.read_bytes()  # Ann's game and Bob's, both kept
