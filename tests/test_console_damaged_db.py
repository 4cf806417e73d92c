"""The console on a database it cannot use (the fault-injection audit): a file a newer
release migrated past this one's schema, a damaged page, and a write refused mid-game each
get one line in words — never a traceback, and nothing written."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from test_console import console

from store.migrations import LATEST

pytestmark = pytest.mark.process  # each test starts the console as a process


def _made(tmp: Path) -> Path:
    """A game file with a game in it, as a first run leaves it."""
    console(tmp, "--names", "Ann", "Bob", lines=["quit"])
    return tmp / "c.db"


def test_a_database_a_newer_release_wrote_is_one_line_and_left_alone(tmp_path: Path) -> None:
    db = _made(tmp_path)
    with sqlite3.connect(db) as con:
        con.execute("INSERT INTO schema_version VALUES (99, 'from the future', 0)")
    before = _rows(db)
    out = console(tmp_path, lines=["quit"])
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1, out.stderr
    assert "schema is version 99" in out.stderr and f"up to {LATEST}" in out.stderr
    assert _rows(db) == before


def _rows(db: Path) -> list[tuple[object, ...]]:
    """What the file holds (its bytes may move as the journal is folded in)."""
    with sqlite3.connect(db) as con:
        return [*con.execute("SELECT version FROM schema_version ORDER BY version"),
                *con.execute("SELECT id, status, version, state FROM games ORDER BY id")]


def test_a_damaged_page_is_one_line(tmp_path: Path) -> None:
    db = _made(tmp_path)
    data = bytearray(db.read_bytes())
    page = 4096
    for at in range(page * 2, min(len(data), page * 6), 7):  # pages past the header
        data[at] = 0xA5
    db.write_bytes(bytes(data))
    out = console(tmp_path, lines=["board", "quit"])
    assert out.returncode in (1, 2) and "Traceback" not in out.stderr
    said = out.stderr.strip().splitlines() + [x for x in out.stdout.splitlines() if x.startswith("!")]
    assert any("malformed" in x or "not a database" in x for x in said), out.stdout + out.stderr


def test_a_game_a_newer_release_started_is_refused_in_words_and_new_begins_anew(
        tmp_path: Path) -> None:
    """The verification audit: a game whose setup names rules a newer release brought was
    refused with "restore this one from a backup" (nothing is damaged: an upgrade plays
    it), and `--new`, which the refusal suggests, ended in a traceback."""
    db = _made(tmp_path)
    with sqlite3.connect(db) as con:
        (setup,) = con.execute("SELECT setup FROM games WHERE status='active'").fetchone()
        con.execute("UPDATE games SET setup=? WHERE status='active'",
                    (json.dumps({**json.loads(setup), "rules": 99}),))
    out = console(tmp_path, lines=["quit"])
    assert out.returncode == 1
    assert "started by a newer release" in out.stdout and "backup" not in out.stdout
    out = console(tmp_path, "--lang", "ja", lines=["quit"])  # one Japanese sentence (audit)
    assert "新しいボットで始められたゲーム" in out.stdout and "newer" not in out.stdout
    out = console(tmp_path, "--new", "--names", "Ann", lines=["quit"])  # (no traceback: above)
    assert out.returncode == 0 and "New game: Ann" in out.stdout, out.stdout
